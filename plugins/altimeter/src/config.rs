//! Reading the `<altimeter>` element of a `<sensor type="altimeter">`.
//!
//! Parsed once, when the sensor is created. Invalid values are configuration errors whose
//! message names the sensor's scoped name, the element and the text found there.

use sim_plugin_api::{PluginError, noise::NoiseParams};
use simcore_plugin_common::{Reader, parse_sensor_sdf};

/// The parsed `<altimeter>` element. [`Default`] (no noise) is what a sensor without it gets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AltimeterConfig {
    /// `<vertical_position><noise>`, m.
    pub vertical_position_noise: NoiseParams,
    /// `<vertical_velocity><noise>`, m/s.
    pub vertical_velocity_noise: NoiseParams,
}

impl AltimeterConfig {
    /// Parses the `<altimeter>` child of a `<sensor>` element given as XML text. `sensor` (the
    /// scoped name) is used in error messages. Without `<altimeter>`: the defaults.
    pub fn parse(sensor_sdf: &str, sensor: &str) -> Result<AltimeterConfig, PluginError> {
        let Some(doc) = parse_sensor_sdf(sensor_sdf, sensor)? else {
            return Ok(AltimeterConfig::default());
        };
        let root = doc.root_element();
        let r = Reader::new(sensor);
        Ok(AltimeterConfig {
            vertical_position_noise: r.noise_at(root, &["altimeter", "vertical_position"])?,
            vertical_velocity_noise: r.noise_at(root, &["altimeter", "vertical_velocity"])?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{ErrorCode, noise::NoiseKind};

    const NAME: &str = "drone::body::alt";

    #[test]
    fn defaults_and_full() {
        assert_eq!(
            AltimeterConfig::parse(r#"<sensor name="alt" type="altimeter"/>"#, NAME).unwrap(),
            AltimeterConfig::default()
        );
        assert_eq!(
            AltimeterConfig::parse(" ", NAME).unwrap(),
            AltimeterConfig::default()
        );
        let c = AltimeterConfig::parse(
            r#"<sensor name="alt" type="altimeter"><altimeter>
                 <vertical_position><noise type="gaussian"><stddev>0.1</stddev></noise></vertical_position>
                 <vertical_velocity><noise type="gaussian"><mean>0.5</mean><stddev>0.2</stddev></noise></vertical_velocity>
               </altimeter></sensor>"#,
            NAME,
        )
        .unwrap();
        assert_eq!(c.vertical_position_noise.kind, NoiseKind::Gaussian);
        assert_eq!(c.vertical_position_noise.stddev, 0.1);
        assert_eq!(c.vertical_velocity_noise.mean, 0.5);
        assert_eq!(c.vertical_velocity_noise.stddev, 0.2);
    }

    #[test]
    fn errors_name_sensor_element_and_text() {
        let e = AltimeterConfig::parse(
            r#"<sensor><altimeter><vertical_position><noise type="gauss"/></vertical_position></altimeter></sensor>"#,
            NAME,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "drone::body::alt: <altimeter><vertical_position><noise> type must be one of none, gaussian, gaussian_quantized, found \"gauss\""
        );
    }
}
