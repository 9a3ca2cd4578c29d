//! Reading the `<magnetometer>` element of a `<sensor type="magnetometer">`.
//!
//! Parsed once, when the sensor is created. Invalid values are configuration errors whose
//! message names the sensor's scoped name, the element and the text found there.

use sim_plugin_api::{PluginError, noise::NoiseParams};
use simcore_plugin_common::{Reader, parse_sensor_sdf};

/// The parsed `<magnetometer>` element. [`Default`] (no noise) is what a sensor without it
/// gets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MagnetometerConfig {
    /// `<x|y|z><noise>`, tesla, in x, y, z order.
    pub noise: [NoiseParams; 3],
}

impl MagnetometerConfig {
    /// Parses the `<magnetometer>` child of a `<sensor>` element given as XML text. `sensor`
    /// (the scoped name) is used in error messages. Without `<magnetometer>`: the defaults.
    pub fn parse(sensor_sdf: &str, sensor: &str) -> Result<MagnetometerConfig, PluginError> {
        let Some(doc) = parse_sensor_sdf(sensor_sdf, sensor)? else {
            return Ok(MagnetometerConfig::default());
        };
        let root = doc.root_element();
        let r = Reader::new(sensor);
        Ok(MagnetometerConfig {
            noise: [
                r.noise_at(root, &["magnetometer", "x"])?,
                r.noise_at(root, &["magnetometer", "y"])?,
                r.noise_at(root, &["magnetometer", "z"])?,
            ],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{ErrorCode, noise::NoiseKind};

    const NAME: &str = "robot::base::mag";

    #[test]
    fn defaults_and_axes() {
        assert_eq!(
            MagnetometerConfig::parse(r#"<sensor name="mag" type="magnetometer"/>"#, NAME).unwrap(),
            MagnetometerConfig::default()
        );
        let c = MagnetometerConfig::parse(
            r#"<sensor name="mag" type="magnetometer"><magnetometer>
                 <z><noise type="gaussian"><stddev>1e-7</stddev></noise></z>
                 <x><noise type="gaussian"><bias_mean>2e-7</bias_mean></noise></x>
               </magnetometer></sensor>"#,
            NAME,
        )
        .unwrap();
        assert_eq!(c.noise[0].bias_mean, 2e-7);
        assert_eq!(c.noise[1], NoiseParams::default());
        assert_eq!(c.noise[2].kind, NoiseKind::Gaussian);
        assert_eq!(c.noise[2].stddev, 1e-7);
    }

    #[test]
    fn errors_name_sensor_element_and_text() {
        let e = MagnetometerConfig::parse(
            r#"<sensor><magnetometer><y><noise type="gaussian"><precision>-1e-9</precision></noise></y></magnetometer></sensor>"#,
            NAME,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "robot::base::mag: <magnetometer><y><noise><precision> must be zero or positive, found \"-1e-9\""
        );
    }
}
