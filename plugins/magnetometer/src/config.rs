//! Reading the `<magnetometer>` element of a `<sensor type="magnetometer">`.
//!
//! Read once, when the sensor is created, from its parsed `<sensor>` element
//! ([`SensorConfig::parse_sdf`](sim_plugin_api::SensorConfig::parse_sdf)). Invalid values are
//! configuration errors whose message names the sensor's scoped name, the element, the text
//! found there and, when known, its place in the world file.

use sim_plugin_api::{PluginError, noise::NoiseParams, sdf::Element};
use simcore_plugin_common::axis_noises;

/// The parsed `<magnetometer>` element. [`Default`] (no noise) is what a sensor without it
/// gets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MagnetometerConfig {
    /// `<x|y|z><noise>`, tesla, in x, y, z order.
    pub noise: [NoiseParams; 3],
}

impl MagnetometerConfig {
    /// Reads the `<magnetometer>` child of `sensor` (the `<sensor>` element). Without
    /// `<magnetometer>`: the defaults.
    pub fn read(sensor: &Element<'_, '_>) -> Result<MagnetometerConfig, PluginError> {
        Ok(MagnetometerConfig {
            noise: axis_noises(sensor, "magnetometer")?,
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

    const NAME: &str = "robot::base::mag";

    fn parse(text: &str) -> Result<MagnetometerConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new(NAME))?;
        MagnetometerConfig::read(&doc.root())
    }

    #[test]
    fn defaults_and_axes() {
        assert_eq!(
            parse(r#"<sensor name="mag" type="magnetometer"/>"#).unwrap(),
            MagnetometerConfig::default()
        );
        assert_eq!(parse("").unwrap(), MagnetometerConfig::default());
        let c = parse(
            r#"<sensor name="mag" type="magnetometer"><magnetometer>
                 <z><noise type="gaussian"><stddev>1e-7</stddev></noise></z>
                 <x><noise type="gaussian"><bias_mean>2e-7</bias_mean></noise></x>
               </magnetometer></sensor>"#,
        )
        .unwrap();
        assert_eq!(c.noise[0].bias_mean, 2e-7);
        assert_eq!(c.noise[1], NoiseParams::default());
        assert_eq!(c.noise[2].kind, NoiseKind::Gaussian);
        assert_eq!(c.noise[2].stddev, 1e-7);
    }

    #[test]
    fn errors_name_sensor_element_and_text() {
        let e = parse(
            r#"<sensor><magnetometer><y><noise type="gaussian"><precision>-1e-9</precision></noise></y></magnetometer></sensor>"#,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "robot::base::mag: <magnetometer><y><noise><precision> must be zero or positive, found \"-1e-9\""
        );
    }
}
