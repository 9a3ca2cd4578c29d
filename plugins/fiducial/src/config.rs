//! Reading the `<fiducial>` element of a fiducial sensor.

use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::Element;
use simcore_plugin_common::upper_bound;

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
    /// Reads the `<fiducial>` child of `sensor` (the `<sensor>` element); every value has a
    /// default.
    pub fn read(sensor: &Element<'_, '_>) -> Result<FiducialConfig, PluginError> {
        let d = FiducialConfig::default();
        let Some(f) = sensor.child("fiducial") else {
            return Ok(d);
        };
        let range_min = f.param::<f64>("range_min").non_negative().or(d.range_min)?;
        let range_max = upper_bound(&f, ("range_min", range_min), "range_max", d.range_max)?;
        Ok(FiducialConfig {
            range_min,
            range_max,
            horizontal_fov: f
                .param::<f64>("horizontal_fov")
                .check("in (0, 2 pi] (radians)", |h| {
                    *h > 0.0 && *h <= std::f64::consts::TAU
                })
                .or(d.horizontal_fov)?,
            vertical_fov: f
                .param::<f64>("vertical_fov")
                .check("in (0, pi] (radians)", |v| {
                    *v > 0.0 && *v <= std::f64::consts::PI
                })
                .or(d.vertical_fov)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    /// The configuration read from the `<sensor>` element `text` of the sensor `name`.
    fn read(text: &str, name: &str) -> Result<FiducialConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new(name))?;
        FiducialConfig::read(&doc.root())
    }

    #[test]
    fn defaults_values_and_errors() {
        assert_eq!(read("", "s").unwrap(), FiducialConfig::default());
        assert_eq!(
            read("<sensor><fiducial/></sensor>", "s").unwrap(),
            FiducialConfig::default()
        );
        let c = read(
            "<sensor><fiducial><range_min>0.5</range_min><range_max>4</range_max>\
             <horizontal_fov>1.5</horizontal_fov><vertical_fov>0.5</vertical_fov></fiducial></sensor>",
            "s",
        )
        .unwrap();
        assert_eq!(
            (c.range_min, c.range_max, c.horizontal_fov, c.vertical_fov),
            (0.5, 4.0, 1.5, 0.5)
        );
        let e = read(
            "<sensor><fiducial><range_min>2</range_min><range_max>1</range_max></fiducial></sensor>",
            "m::l::f",
        )
        .unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "m::l::f: <fiducial><range_max> must be greater than <range_min> (2), found \"1\""
        );
        let e = read(
            "<sensor><fiducial><range_min>9</range_min></fiducial></sensor>",
            "m::l::f",
        )
        .unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "m::l::f: <fiducial><range_min> must be less than <range_max> (8, the default), found \"9\""
        );
        let e = read(
            "<sensor><fiducial><range_min>-1</range_min></fiducial></sensor>",
            "m::l::f",
        )
        .unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "m::l::f: <fiducial><range_min> must be zero or positive, found \"-1\""
        );
        let e = read(
            "<sensor><fiducial><horizontal_fov>7</horizontal_fov></fiducial></sensor>",
            "s",
        )
        .unwrap_err();
        assert!(e.message.contains("in (0, 2 pi]"));
        let e = read(
            "<sensor><fiducial><vertical_fov>x</vertical_fov></fiducial></sensor>",
            "s",
        )
        .unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "s: <fiducial><vertical_fov> must be a finite number, found \"x\""
        );
    }

    #[test]
    fn errors_name_the_place_in_the_world_file() {
        let text = "<sensor name=\"f\" type=\"fiducial\">\n  <fiducial>\n    <vertical_fov>4</vertical_fov>\n  </fiducial>\n</sensor>";
        let e = simcore_plugin_common::testing::sensor_error::<crate::FiducialFinder>(
            "m::l::f",
            "fiducial",
            sim_plugin_api::EntityId(3),
            text,
            5,
        );
        assert_eq!(
            e.message.as_str(),
            "m::l::f: <fiducial><vertical_fov> must be in (0, pi] (radians), found \"4\" at world.sdf:7"
        );
    }
}
