//! Reading the `<navsat>` element of a `<sensor type="navsat">` (or `gps`).
//!
//! Parsed once, when the sensor is created. Invalid values are configuration errors whose
//! message names the sensor's scoped name, the element and the text found there.

use sim_plugin_api::{PluginError, noise::NoiseParams};
use simcore_plugin_common::{Reader, child, parse_sensor_sdf};

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
    /// Parses the `<navsat>` child of a `<sensor>` element given as XML text. `sensor` (the
    /// scoped name) is used in error messages. Without `<navsat>` (or with blank text): the
    /// defaults.
    pub fn parse(sensor_sdf: &str, sensor: &str) -> Result<NavSatConfig, PluginError> {
        let Some(doc) = parse_sensor_sdf(sensor_sdf, sensor)? else {
            return Ok(NavSatConfig::default());
        };
        let root = doc.root_element();
        if child(root, "navsat").is_none() {
            return Ok(NavSatConfig::default());
        }
        let r = Reader::new(sensor);
        Ok(NavSatConfig {
            horizontal_position_noise: r
                .noise_at(root, &["navsat", "position_sensing", "horizontal"])?,
            vertical_position_noise: r
                .noise_at(root, &["navsat", "position_sensing", "vertical"])?,
            horizontal_velocity_noise: r
                .noise_at(root, &["navsat", "velocity_sensing", "horizontal"])?,
            vertical_velocity_noise: r
                .noise_at(root, &["navsat", "velocity_sensing", "vertical"])?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{ErrorCode, noise::NoiseKind};

    const NAME: &str = "rover::base::gps";

    #[test]
    fn defaults() {
        assert_eq!(
            NavSatConfig::parse(r#"<sensor name="gps" type="navsat"/>"#, NAME).unwrap(),
            NavSatConfig::default()
        );
        assert_eq!(
            NavSatConfig::parse("", NAME).unwrap(),
            NavSatConfig::default()
        );
        assert_eq!(
            NavSatConfig::parse(r#"<sensor><navsat/></sensor>"#, NAME).unwrap(),
            NavSatConfig::default()
        );
    }

    #[test]
    fn all_four_noises() {
        let c = NavSatConfig::parse(
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
            NAME,
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
        let e = NavSatConfig::parse(
            r#"<sensor><navsat><velocity_sensing><vertical><noise type="gaussian"><stddev>fast</stddev></noise></vertical></velocity_sensing></navsat></sensor>"#,
            NAME,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "rover::base::gps: <navsat><velocity_sensing><vertical><noise><stddev> must be a finite number, found \"fast\""
        );
        let e = NavSatConfig::parse(r#"<sensor><navsat></sensor>"#, NAME).unwrap_err();
        assert!(e.message.starts_with(NAME));
    }
}
