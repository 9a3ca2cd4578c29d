//! Reading the `<fiducial>` element of a fiducial sensor.

use sim_plugin_api::PluginError;
use simcore_plugin_common::{Reader, parse_sensor_sdf};

/// The parsed configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FiducialConfig {
    /// `<fiducial><range_min>`, m (default 0).
    pub range_min: f64,
    /// `<fiducial><range_max>`, m (default 8).
    pub range_max: f64,
    /// `<fiducial><horizontal_fov>`, the full horizontal angle, rad (default pi; up to 2 pi).
    pub horizontal_fov: f64,
    /// `<fiducial><vertical_fov>`, the full vertical angle, rad (default pi: no limit).
    pub vertical_fov: f64,
}

impl Default for FiducialConfig {
    fn default() -> Self {
        FiducialConfig {
            range_min: 0.0,
            range_max: 8.0,
            horizontal_fov: std::f64::consts::PI,
            vertical_fov: std::f64::consts::PI,
        }
    }
}

impl FiducialConfig {
    /// Parses the `<sensor>` element given as XML text; `sensor` (its scoped name) names it in
    /// errors.
    pub fn parse(sensor_sdf: &str, sensor: &str) -> Result<FiducialConfig, PluginError> {
        let d = FiducialConfig::default();
        let Some(doc) = parse_sensor_sdf(sensor_sdf, sensor)? else {
            return Ok(d);
        };
        let root = doc.root_element();
        let r = Reader::new(sensor);
        let get = |tag: &str, default: f64| {
            r.number(root, &["fiducial", tag])
                .map(|v| v.unwrap_or(default))
        };
        let c = FiducialConfig {
            range_min: get("range_min", d.range_min)?,
            range_max: get("range_max", d.range_max)?,
            horizontal_fov: get("horizontal_fov", d.horizontal_fov)?,
            vertical_fov: get("vertical_fov", d.vertical_fov)?,
        };
        if c.range_min < 0.0 {
            return Err(r.error(
                "<fiducial><range_min>",
                "zero or positive",
                &c.range_min.to_string(),
            ));
        }
        if c.range_max <= c.range_min {
            return Err(r.error(
                "<fiducial><range_max>",
                &format!("greater than <range_min> ({})", c.range_min),
                &c.range_max.to_string(),
            ));
        }
        let tau = std::f64::consts::TAU;
        if !(c.horizontal_fov > 0.0 && c.horizontal_fov <= tau) {
            return Err(r.error(
                "<fiducial><horizontal_fov>",
                "in (0, 2 pi] (radians)",
                &c.horizontal_fov.to_string(),
            ));
        }
        if !(c.vertical_fov > 0.0 && c.vertical_fov <= std::f64::consts::PI) {
            return Err(r.error(
                "<fiducial><vertical_fov>",
                "in (0, pi] (radians)",
                &c.vertical_fov.to_string(),
            ));
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_values_and_errors() {
        assert_eq!(
            FiducialConfig::parse("", "s").unwrap(),
            FiducialConfig::default()
        );
        let c = FiducialConfig::parse(
            "<sensor><fiducial><range_min>0.5</range_min><range_max>4</range_max>\
             <horizontal_fov>1.5</horizontal_fov><vertical_fov>0.5</vertical_fov></fiducial></sensor>",
            "s",
        )
        .unwrap();
        assert_eq!(
            (c.range_min, c.range_max, c.horizontal_fov, c.vertical_fov),
            (0.5, 4.0, 1.5, 0.5)
        );
        let e = FiducialConfig::parse(
            "<sensor><fiducial><range_min>2</range_min><range_max>1</range_max></fiducial></sensor>",
            "m::l::f",
        )
        .unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "m::l::f: <fiducial><range_max> must be greater than <range_min> (2), found \"1\""
        );
        let e = FiducialConfig::parse(
            "<sensor><fiducial><horizontal_fov>7</horizontal_fov></fiducial></sensor>",
            "s",
        )
        .unwrap_err();
        assert!(e.message.contains("in (0, 2 pi]"));
    }
}
