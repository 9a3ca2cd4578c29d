//! Reading the `<navsat>` element of a `<sensor type="navsat">` (or `gps`).
//!
//! Read once, when the sensor is created, from its parsed `<sensor>` element
//! ([`SensorConfig::parse_sdf`](sim_plugin_api::SensorConfig::parse_sdf)). Invalid values are
//! configuration errors whose message names the sensor's scoped name, the element, the text
//! found there and, when known, its place in the world file.

use sim_plugin_api::{PluginError, noise::NoiseParams, sdf::Element};

/// The parsed `<navsat>` element. [`Default`] (no noise) is what a sensor without it gets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NavSatConfig {
    /// `<position_sensing><horizontal><noise>`, in metres, applied to the east and to the
    /// north position (each with its own stream).
    pub horizontal_position_noise: NoiseParams,
    /// `<position_sensing><vertical><noise>`, in metres, applied to the altitude.
    pub vertical_position_noise: NoiseParams,
    /// `<velocity_sensing><horizontal><noise>`, m/s, applied to the east and to the north
    /// velocity (each with its own stream).
    pub horizontal_velocity_noise: NoiseParams,
    /// `<velocity_sensing><vertical><noise>`, m/s, applied to the up velocity.
    pub vertical_velocity_noise: NoiseParams,
}

impl NavSatConfig {
    /// Reads the `<navsat>` child of `sensor` (the `<sensor>` element). Without `<navsat>`: the
    /// defaults.
    pub fn read(sensor: &Element<'_, '_>) -> Result<NavSatConfig, PluginError> {
        Ok(NavSatConfig {
            horizontal_position_noise: sensor.noise("navsat/position_sensing/horizontal")?,
            vertical_position_noise: sensor.noise("navsat/position_sensing/vertical")?,
            horizontal_velocity_noise: sensor.noise("navsat/velocity_sensing/horizontal")?,
            vertical_velocity_noise: sensor.noise("navsat/velocity_sensing/vertical")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{
        ErrorCode,
        noise::NoiseKind,
        sdf::{Origin, SdfDocument},
    };

    const NAME: &str = "rover::base::gps";

    fn parse(text: &str) -> Result<NavSatConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new(NAME))?;
        NavSatConfig::read(&doc.root())
    }

    #[test]
    fn defaults() {
        assert_eq!(
            parse(r#"<sensor name="gps" type="navsat"/>"#).unwrap(),
            NavSatConfig::default()
        );
        assert_eq!(parse("").unwrap(), NavSatConfig::default());
        assert_eq!(
            parse(r#"<sensor><navsat/></sensor>"#).unwrap(),
            NavSatConfig::default()
        );
    }

    #[test]
    fn all_four_noises() {
        let c = parse(
            r#"<sensor name="gps" type="navsat"><navsat>
                 <position_sensing>
                   <horizontal><noise type="gaussian"><stddev>1.5</stddev></noise></horizontal>
                   <vertical><noise type="gaussian"><stddev>3</stddev></noise></vertical>
                 </position_sensing>
                 <velocity_sensing>
                   <horizontal><noise type="gaussian"><stddev>0.1</stddev></noise></horizontal>
                   <vertical><noise type="gaussian"><mean>0.2</mean></noise></vertical>
                 </velocity_sensing>
               </navsat></sensor>"#,
        )
        .unwrap();
        assert_eq!(c.horizontal_position_noise.kind, NoiseKind::Gaussian);
        assert_eq!(c.horizontal_position_noise.stddev, 1.5);
        assert_eq!(c.vertical_position_noise.stddev, 3.0);
        assert_eq!(c.horizontal_velocity_noise.stddev, 0.1);
        assert_eq!(c.vertical_velocity_noise.mean, 0.2);
    }

    #[test]
    fn errors_name_sensor_element_and_text() {
        let e = parse(
            r#"<sensor><navsat><velocity_sensing><vertical><noise type="gaussian"><stddev>fast</stddev></noise></vertical></velocity_sensing></navsat></sensor>"#,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "rover::base::gps: <navsat><velocity_sensing><vertical><noise><stddev> must be a finite number, found \"fast\""
        );
        let e = parse(r#"<sensor><navsat></sensor>"#).unwrap_err();
        assert!(e.message.starts_with(NAME));
    }
}
