//! Reading the `<air_pressure>` element of a `<sensor type="air_pressure">`.
//!
//! Parsed once, when the sensor is created. Invalid values are configuration errors whose
//! message names the sensor's scoped name, the element and the text found there.

use sim_plugin_api::{PluginError, noise::NoiseParams};
use simcore_plugin_common::{Reader, parse_sensor_sdf};

/// The parsed `<air_pressure>` element. [`Default`] (reference altitude 0, no noise) is what a
/// sensor without it gets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AirPressureConfig {
    /// `<reference_altitude>`: the altitude above sea level of the world's `z = 0`, m.
    pub reference_altitude: f64,
    /// `<pressure><noise>`, Pa.
    pub pressure_noise: NoiseParams,
}

impl AirPressureConfig {
    /// Parses the `<air_pressure>` child of a `<sensor>` element given as XML text. `sensor`
    /// (the scoped name) is used in error messages. Without `<air_pressure>`: the defaults.
    pub fn parse(sensor_sdf: &str, sensor: &str) -> Result<AirPressureConfig, PluginError> {
        let Some(doc) = parse_sensor_sdf(sensor_sdf, sensor)? else {
            return Ok(AirPressureConfig::default());
        };
        let root = doc.root_element();
        let r = Reader::new(sensor);
        Ok(AirPressureConfig {
            reference_altitude: r
                .number(root, &["air_pressure", "reference_altitude"])?
                .unwrap_or(0.0),
            pressure_noise: r.noise_at(root, &["air_pressure", "pressure"])?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{ErrorCode, noise::NoiseKind};

    const NAME: &str = "drone::body::baro";

    #[test]
    fn defaults_and_full() {
        assert_eq!(
            AirPressureConfig::parse(r#"<sensor name="baro" type="air_pressure"/>"#, NAME).unwrap(),
            AirPressureConfig::default()
        );
        let c = AirPressureConfig::parse(
            r#"<sensor name="baro" type="air_pressure"><air_pressure>
                 <reference_altitude> 123.5 </reference_altitude>
                 <pressure><noise type="gaussian"><stddev>3</stddev></noise></pressure>
               </air_pressure></sensor>"#,
            NAME,
        )
        .unwrap();
        assert_eq!(c.reference_altitude, 123.5);
        assert_eq!(c.pressure_noise.kind, NoiseKind::Gaussian);
        assert_eq!(c.pressure_noise.stddev, 3.0);
    }

    #[test]
    fn errors_name_sensor_element_and_text() {
        let e = AirPressureConfig::parse(
            r#"<sensor><air_pressure><reference_altitude>high</reference_altitude></air_pressure></sensor>"#,
            NAME,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "drone::body::baro: <air_pressure><reference_altitude> must be a finite number, found \"high\""
        );
        let e = AirPressureConfig::parse(
            r#"<sensor><air_pressure><pressure><noise type="gaussian"><stddev>-3</stddev></noise></pressure></air_pressure></sensor>"#,
            NAME,
        )
        .unwrap_err();
        assert!(
            e.message.starts_with(NAME)
                && e.message
                    .contains("<air_pressure><pressure><noise><stddev>")
                && e.message.contains("\"-3\""),
            "{e}"
        );
    }
}
