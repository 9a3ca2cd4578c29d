//! Reading the `<logical_camera>` element of a `<sensor type="logical_camera">`.
//!
//! SDF marks all four children required, so a missing one is a configuration error
//! ([`ErrorCode::INVALID_CONFIG`](sim_plugin_api::ErrorCode::INVALID_CONFIG)), as is a value
//! outside its range. Every message starts with the sensor's scoped name and names the
//! element (and the text found there).

use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::Element;
use std::f64::consts::PI;

/// The parsed `<logical_camera>` element: the frustum's shape.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct LogicalCameraConfig {
    /// `<near>`: distance of the near clip plane along the view axis, m (>= 0).
    pub near: f64,
    /// `<far>`: distance of the far clip plane along the view axis, m (> near).
    pub far: f64,
    /// `<horizontal_fov>`: full horizontal field of view, rad (in (0, pi)).
    pub horizontal_fov: f64,
    /// `<aspect_ratio>`: width / height of the view (> 0).
    pub aspect_ratio: f64,
}

/// One of the four parameters, for [`LogicalCameraConfig::set`] and error messages.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Parameter {
    /// `<near>`.
    Near,
    /// `<far>`.
    Far,
    /// `<horizontal_fov>`.
    HorizontalFov,
    /// `<aspect_ratio>`.
    AspectRatio,
}

impl Parameter {
    /// All four, in SDF order.
    pub const ALL: [Parameter; 4] = [
        Parameter::Near,
        Parameter::Far,
        Parameter::HorizontalFov,
        Parameter::AspectRatio,
    ];

    /// The element name (`near`, `far`, `horizontal_fov`, `aspect_ratio`), which is also the
    /// key of the run-time parameter.
    pub fn name(self) -> &'static str {
        match self {
            Parameter::Near => "near",
            Parameter::Far => "far",
            Parameter::HorizontalFov => "horizontal_fov",
            Parameter::AspectRatio => "aspect_ratio",
        }
    }

    /// The parameter named `name`, if any.
    pub fn from_name(name: &str) -> Option<Parameter> {
        Parameter::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl LogicalCameraConfig {
    /// Reads the `<logical_camera>` child of `sensor` (the `<sensor>` element): its four
    /// children are required, each a finite number in its range (see
    /// [`LogicalCameraConfig::problem`]).
    pub fn read(sensor: &Element<'_, '_>) -> Result<LogicalCameraConfig, PluginError> {
        let element = sensor.require_element(
            "logical_camera",
            "with <near>, <far>, <horizontal_fov> and <aspect_ratio>",
        )?;
        let mut values = [0.0; 4];
        for (p, v) in Parameter::ALL.into_iter().zip(values.iter_mut()) {
            *v = element.require::<f64>(p.name())?;
        }
        let [near, far, horizontal_fov, aspect_ratio] = values;
        let config = LogicalCameraConfig {
            near,
            far,
            horizontal_fov,
            aspect_ratio,
        };
        match config.problem() {
            Some((p, expected)) => {
                // Every parameter was read from its element, which is there.
                let e = element.child(p.name()).unwrap_or(element);
                Err(e.error(expected, e.text()).into())
            }
            None => Ok(config),
        }
    }

    /// The first parameter out of its range, with what it must be: `near >= 0`,
    /// `far > near`, `0 < horizontal_fov < pi`, `aspect_ratio > 0`, all finite.
    pub fn problem(&self) -> Option<(Parameter, String)> {
        let values = [
            (Parameter::Near, self.near),
            (Parameter::Far, self.far),
            (Parameter::HorizontalFov, self.horizontal_fov),
            (Parameter::AspectRatio, self.aspect_ratio),
        ];
        if let Some((p, _)) = values.iter().find(|(_, v)| !v.is_finite()) {
            return Some((*p, "a finite number".into()));
        }
        if self.near < 0.0 {
            return Some((Parameter::Near, "zero or positive (m)".into()));
        }
        if self.far <= self.near {
            return Some((
                Parameter::Far,
                format!("greater than <near> ({})", self.near),
            ));
        }
        if !(self.horizontal_fov > 0.0 && self.horizontal_fov < PI) {
            return Some((
                Parameter::HorizontalFov,
                "between 0 and pi, both excluded (rad)".into(),
            ));
        }
        if self.aspect_ratio <= 0.0 {
            return Some((Parameter::AspectRatio, "positive".into()));
        }
        None
    }

    /// Checks the ranges (see [`LogicalCameraConfig::problem`]). `sensor` starts the error
    /// message, which names the offending element and its value.
    pub fn validate(&self, sensor: &str) -> Result<(), PluginError> {
        match self.problem() {
            Some((p, expected)) => {
                let v = match p {
                    Parameter::Near => self.near,
                    Parameter::Far => self.far,
                    Parameter::HorizontalFov => self.horizontal_fov,
                    Parameter::AspectRatio => self.aspect_ratio,
                };
                Err(PluginError::config(format!(
                    "{sensor}: <logical_camera><{}> must be {expected}, found {v}",
                    p.name()
                )))
            }
            None => Ok(()),
        }
    }

    /// This configuration with one parameter changed from text (a run-time parameter),
    /// validated as a whole. `sensor` starts the error message.
    pub fn set(
        &self,
        parameter: Parameter,
        text: &str,
        sensor: &str,
    ) -> Result<LogicalCameraConfig, PluginError> {
        let v = parse_number(sensor, parameter, text)?;
        let mut c = *self;
        match parameter {
            Parameter::Near => c.near = v,
            Parameter::Far => c.far = v,
            Parameter::HorizontalFov => c.horizontal_fov = v,
            Parameter::AspectRatio => c.aspect_ratio = v,
        }
        c.validate(sensor)?;
        Ok(c)
    }

    /// The vertical field of view, rad: `tan(v/2) = tan(h/2) / aspect_ratio`.
    pub fn vertical_fov(&self) -> f64 {
        2.0 * ((self.horizontal_fov * 0.5).tan() / self.aspect_ratio).atan()
    }
}

fn parse_number(sensor: &str, p: Parameter, text: &str) -> Result<f64, PluginError> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            PluginError::config(format!(
                "{sensor}: <logical_camera><{}> must be a finite number, found \"{}\"",
                p.name(),
                text.trim()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::ErrorCode;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    const NAME: &str = "post::link::cam";

    fn sdf(body: &str) -> String {
        format!(
            r#"<sensor name="cam" type="logical_camera"><update_rate>10</update_rate><logical_camera>{body}</logical_camera></sensor>"#
        )
    }

    const FULL: &str = "<near>0.55</near><far>2.5</far><horizontal_fov>1.05</horizontal_fov><aspect_ratio>1.8</aspect_ratio>";

    /// The configuration read from the `<sensor>` element `text`.
    fn read(text: &str) -> Result<LogicalCameraConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new(NAME))?;
        LogicalCameraConfig::read(&doc.root())
    }

    fn error(text: &str) -> String {
        let e = read(text).expect_err("expected a config error");
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert!(e.message.starts_with(NAME), "does not name the sensor: {e}");
        e.message.to_string()
    }

    #[test]
    fn tutorial_element() {
        let c = read(&sdf(FULL)).unwrap();
        assert_eq!(
            c,
            LogicalCameraConfig {
                near: 0.55,
                far: 2.5,
                horizontal_fov: 1.05,
                aspect_ratio: 1.8
            }
        );
        let v = c.vertical_fov();
        assert!(((v / 2.0).tan() - (1.05f64 / 2.0).tan() / 1.8).abs() < 1e-15);
    }

    #[test]
    fn whitespace_and_order_do_not_matter() {
        let c = read(&sdf("<aspect_ratio> 1 </aspect_ratio>\n<far>\n10</far><horizontal_fov>1.5e0</horizontal_fov><near>0</near>"))
            .unwrap();
        assert_eq!(
            (c.near, c.far, c.horizontal_fov, c.aspect_ratio),
            (0.0, 10.0, 1.5, 1.0)
        );
    }

    #[test]
    fn every_element_is_required() {
        for p in Parameter::ALL {
            let body: String = Parameter::ALL
                .iter()
                .filter(|q| **q != p)
                .map(|q| {
                    let v = match q {
                        Parameter::Far => "2",
                        _ => "1",
                    };
                    format!("<{0}>{v}</{0}>", q.name())
                })
                .collect();
            let m = error(&sdf(&body));
            assert!(
                m.contains(&format!("<logical_camera><{}> is required", p.name())),
                "{m}"
            );
        }
        let m = error(r#"<sensor name="cam" type="logical_camera"/>"#);
        assert!(m.contains("<logical_camera> is required"), "{m}");
    }

    #[test]
    fn ranges() {
        let cases = [
            (
                "<near>-0.1</near><far>2</far><horizontal_fov>1</horizontal_fov><aspect_ratio>1</aspect_ratio>",
                "<near>",
                "-0.1",
            ),
            (
                "<near>2</near><far>2</far><horizontal_fov>1</horizontal_fov><aspect_ratio>1</aspect_ratio>",
                "<far>",
                "greater than <near>",
            ),
            (
                "<near>2</near><far>1</far><horizontal_fov>1</horizontal_fov><aspect_ratio>1</aspect_ratio>",
                "<far>",
                "found \"1\"",
            ),
            (
                "<near>0</near><far>2</far><horizontal_fov>0</horizontal_fov><aspect_ratio>1</aspect_ratio>",
                "<horizontal_fov>",
                "found \"0\"",
            ),
            (
                "<near>0</near><far>2</far><horizontal_fov>3.1416</horizontal_fov><aspect_ratio>1</aspect_ratio>",
                "<horizontal_fov>",
                "3.1416",
            ),
            (
                "<near>0</near><far>2</far><horizontal_fov>-1</horizontal_fov><aspect_ratio>1</aspect_ratio>",
                "<horizontal_fov>",
                "-1",
            ),
            (
                "<near>0</near><far>2</far><horizontal_fov>1</horizontal_fov><aspect_ratio>0</aspect_ratio>",
                "<aspect_ratio>",
                "positive",
            ),
            (
                "<near>0</near><far>2</far><horizontal_fov>1</horizontal_fov><aspect_ratio>-2</aspect_ratio>",
                "<aspect_ratio>",
                "-2",
            ),
        ];
        for (body, element, detail) in cases {
            let m = error(&sdf(body));
            assert!(
                m.contains(&format!("<logical_camera>{element}")) && m.contains(detail),
                "{body}: {m}"
            );
        }
    }

    #[test]
    fn not_numbers() {
        for bad in ["abc", "", "nan", "inf", "1 2"] {
            let m = error(&sdf(&FULL.replace("2.5", bad)));
            assert!(
                m.contains("<logical_camera><far> must be a finite number")
                    && m.contains(&format!("\"{bad}\"")),
                "{m}"
            );
        }
    }

    #[test]
    fn errors_name_the_place_in_the_world_file() {
        let text = "<sensor name=\"cam\" type=\"logical_camera\">\n  <logical_camera>\n    <near>0.5</near><far>0.2</far>\n    <horizontal_fov>1</horizontal_fov><aspect_ratio>1</aspect_ratio>\n  </logical_camera>\n</sensor>";
        let config = sim_plugin_api::testing::sensor_config(
            NAME,
            "logical_camera",
            sim_plugin_api::EntityId(3),
            text,
        )
        .with_source("world.sdf", 70);
        let doc = config.parse_sdf().unwrap();
        assert_eq!(
            LogicalCameraConfig::read(&doc.root())
                .unwrap_err()
                .message
                .as_str(),
            format!(
                "{NAME}: <logical_camera><far> must be greater than <near> (0.5), found \"0.2\" at world.sdf:72"
            )
        );
        let doc = SdfDocument::parse(
            "<sensor>\n  <logical_camera>\n    <near>1</near>\n  </logical_camera>\n</sensor>",
            Origin {
                file: "world.sdf",
                line: 70,
                ..Origin::new(NAME)
            },
        )
        .unwrap();
        assert_eq!(
            LogicalCameraConfig::read(&doc.root())
                .unwrap_err()
                .message
                .as_str(),
            format!("{NAME}: <logical_camera><far> is required (a finite number) at world.sdf:71")
        );
    }

    #[test]
    fn malformed_xml() {
        let m = error("<sensor><logical_camera></sensor>");
        assert!(m.contains("not valid XML"), "{m}");
    }

    #[test]
    fn set_one_parameter() {
        let c = read(&sdf(FULL)).unwrap();
        let z = c.set(Parameter::HorizontalFov, " 0.5 ", NAME).unwrap();
        assert_eq!(z.horizontal_fov, 0.5);
        assert_eq!(
            (z.near, z.far, z.aspect_ratio),
            (c.near, c.far, c.aspect_ratio)
        );
        let e = c.set(Parameter::Near, "3", NAME).unwrap_err();
        assert!(e.message.contains("<logical_camera><far>"), "{e}");
        let e = c.set(Parameter::AspectRatio, "x", NAME).unwrap_err();
        assert!(
            e.message.contains("<aspect_ratio>") && e.message.contains("\"x\""),
            "{e}"
        );
        assert_eq!(Parameter::from_name("far"), Some(Parameter::Far));
        assert_eq!(Parameter::from_name("fov"), None);
    }
}
