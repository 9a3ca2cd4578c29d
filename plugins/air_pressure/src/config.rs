//! Reading the `<air_pressure>` element of a `<sensor type="air_pressure">`.
//!
//! Read once, when the sensor is created, from its parsed `<sensor>` element
//! ([`SensorConfig::parse_sdf`](sim_plugin_api::SensorConfig::parse_sdf)). Invalid values are
//! configuration errors whose message names the sensor's scoped name, the element, the text
//! found there and, when known, its place in the world file.

use sim_plugin_api::{PluginError, noise::NoiseParams, sdf::Element};

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
    /// Reads the `<air_pressure>` child of `sensor` (the `<sensor>` element). Without
    /// `<air_pressure>`: the defaults.
    pub fn read(sensor: &Element<'_, '_>) -> Result<AirPressureConfig, PluginError> {
        Ok(AirPressureConfig {
            reference_altitude: sensor.get_or("air_pressure/reference_altitude", 0.0)?,
            pressure_noise: sensor.noise("air_pressure/pressure")?,
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

    const NAME: &str = "drone::body::baro";

    fn parse(text: &str) -> Result<AirPressureConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new(NAME))?;
        AirPressureConfig::read(&doc.root())
    }

    #[test]
    fn defaults_and_full() {
        assert_eq!(
            parse(r#"<sensor name="baro" type="air_pressure"/>"#).unwrap(),
            AirPressureConfig::default()
        );
        assert_eq!(parse(" ").unwrap(), AirPressureConfig::default());
        let c = parse(
            r#"<sensor name="baro" type="air_pressure"><air_pressure>
                 <reference_altitude> 123.5 </reference_altitude>
                 <pressure><noise type="gaussian"><stddev>3</stddev></noise></pressure>
               </air_pressure></sensor>"#,
        )
        .unwrap();
        assert_eq!(c.reference_altitude, 123.5);
        assert_eq!(c.pressure_noise.kind, NoiseKind::Gaussian);
        assert_eq!(c.pressure_noise.stddev, 3.0);
    }

    #[test]
    fn errors_name_sensor_element_and_text() {
        let e = parse(
            r#"<sensor><air_pressure><reference_altitude>high</reference_altitude></air_pressure></sensor>"#,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "drone::body::baro: <air_pressure><reference_altitude> must be a finite number, found \"high\""
        );
        let e = parse(
            r#"<sensor><air_pressure><pressure><noise type="gaussian"><stddev>-3</stddev></noise></pressure></air_pressure></sensor>"#,
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
