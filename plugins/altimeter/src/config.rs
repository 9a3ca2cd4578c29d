//! Reading the `<altimeter>` element of a `<sensor type="altimeter">`.
//!
//! Read once, when the sensor is created, from its parsed `<sensor>` element
//! ([`SensorConfig::parse_sdf`](sim_plugin_api::SensorConfig::parse_sdf)). Invalid values are
//! configuration errors whose message names the sensor's scoped name, the element, the text
//! found there and, when known, its place in the world file.

use sim_plugin_api::{PluginError, noise::NoiseParams, sdf::Element};

/// The parsed `<altimeter>` element. [`Default`] (no noise) is what a sensor without it gets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AltimeterConfig {
    /// `<vertical_position><noise>`, m.
    pub vertical_position_noise: NoiseParams,
    /// `<vertical_velocity><noise>`, m/s.
    pub vertical_velocity_noise: NoiseParams,
}

impl AltimeterConfig {
    /// Reads the `<altimeter>` child of `sensor` (the `<sensor>` element). Without
    /// `<altimeter>`: the defaults.
    pub fn read(sensor: &Element<'_, '_>) -> Result<AltimeterConfig, PluginError> {
        Ok(AltimeterConfig {
            vertical_position_noise: sensor.noise("altimeter/vertical_position")?,
            vertical_velocity_noise: sensor.noise("altimeter/vertical_velocity")?,
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

    const NAME: &str = "drone::body::alt";

    fn parse(text: &str) -> Result<AltimeterConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new(NAME))?;
        AltimeterConfig::read(&doc.root())
    }

    #[test]
    fn defaults_and_full() {
        assert_eq!(
            parse(r#"<sensor name="alt" type="altimeter"/>"#).unwrap(),
            AltimeterConfig::default()
        );
        assert_eq!(parse(" ").unwrap(), AltimeterConfig::default());
        let c = parse(
            r#"<sensor name="alt" type="altimeter"><altimeter>
                 <vertical_position><noise type="gaussian"><stddev>0.1</stddev></noise></vertical_position>
                 <vertical_velocity><noise type="gaussian"><mean>0.5</mean><stddev>0.2</stddev></noise></vertical_velocity>
               </altimeter></sensor>"#,
        )
        .unwrap();
        assert_eq!(c.vertical_position_noise.kind, NoiseKind::Gaussian);
        assert_eq!(c.vertical_position_noise.stddev, 0.1);
        assert_eq!(c.vertical_velocity_noise.mean, 0.5);
        assert_eq!(c.vertical_velocity_noise.stddev, 0.2);
    }

    #[test]
    fn errors_name_sensor_element_and_text() {
        let e = parse(
            r#"<sensor><altimeter><vertical_position><noise type="gauss"/></vertical_position></altimeter></sensor>"#,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "drone::body::alt: <altimeter><vertical_position><noise> type must be one of none, gaussian, gaussian_quantized, found \"gauss\""
        );
    }
}
