//! Reading the `<force_torque>` element of a `<sensor type="force_torque">`.
//!
//! Read once, when the sensor is created, from its parsed `<sensor>` element
//! ([`SensorConfig::parse_sdf`](sim_plugin_api::SensorConfig::parse_sdf)). Invalid values are
//! configuration errors whose message names the sensor's scoped name, the element, the text
//! found there and, when known, its place in the world file.

use sim_plugin_api::{
    PluginError,
    noise::NoiseParams,
    sdf::{Element, FromSdf},
};
use simcore_plugin_common::axis_noises;
use std::borrow::Cow;

/// The frame whose axes the wrench is expressed in (`<force_torque><frame>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Frame {
    /// The joint's child link (`child`, the default).
    #[default]
    Child,
    /// The joint's parent link (`parent`; the world frame when the parent is `world`).
    Parent,
    /// The sensor's own frame (`sensor`: the joint frame composed with `<sensor><pose>`).
    Sensor,
}

/// `child`, `parent` or `sensor`; empty text is the default, `child`.
impl FromSdf for Frame {
    fn expected() -> Cow<'static, str> {
        "child, parent or sensor".into()
    }
    fn from_text(text: &str) -> Option<Self> {
        match text {
            "" | "child" => Some(Frame::Child),
            "parent" => Some(Frame::Parent),
            "sensor" => Some(Frame::Sensor),
            _ => None,
        }
    }
}

/// Which of the two equal and opposite wrenches is reported (`<measure_direction>`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MeasureDirection {
    /// `child_to_parent` (the default): the wrench the child link applies on the parent
    /// through the joint. A weight hanging below the joint pulls down: with the child frame
    /// upright it reads a force of `(0, 0, -m g)`.
    #[default]
    ChildToParent,
    /// `parent_to_child`: the wrench the parent applies on the child (the joint's constraint
    /// wrench on the child). The same hanging weight reads `(0, 0, +m g)`.
    ParentToChild,
}

/// `child_to_parent` or `parent_to_child`; empty text is the default, `child_to_parent`.
impl FromSdf for MeasureDirection {
    fn expected() -> Cow<'static, str> {
        "child_to_parent or parent_to_child".into()
    }
    fn from_text(text: &str) -> Option<Self> {
        match text {
            "" | "child_to_parent" => Some(MeasureDirection::ChildToParent),
            "parent_to_child" => Some(MeasureDirection::ParentToChild),
            _ => None,
        }
    }
}

/// The parsed `<force_torque>` element. [`Default`] (child frame, child to parent, no noise)
/// is what a sensor without it gets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ForceTorqueConfig {
    /// `<frame>`.
    pub frame: Frame,
    /// `<measure_direction>`.
    pub direction: MeasureDirection,
    /// `<force><x|y|z><noise>`, N, per axis of the reporting frame.
    pub force_noise: [NoiseParams; 3],
    /// `<torque><x|y|z><noise>`, N m, per axis of the reporting frame.
    pub torque_noise: [NoiseParams; 3],
}

impl ForceTorqueConfig {
    /// Reads the `<force_torque>` child of `sensor` (the `<sensor>` element). Without
    /// `<force_torque>`: the defaults.
    pub fn read(sensor: &Element<'_, '_>) -> Result<ForceTorqueConfig, PluginError> {
        Ok(ForceTorqueConfig {
            frame: sensor.get_or("force_torque/frame", Frame::default())?,
            direction: sensor.get_or(
                "force_torque/measure_direction",
                MeasureDirection::default(),
            )?,
            force_noise: axis_noises(sensor, "force_torque/force")?,
            torque_noise: axis_noises(sensor, "force_torque/torque")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{
        EntityId, ErrorCode,
        noise::NoiseKind,
        sdf::{Origin, SdfDocument},
        testing::sensor_config,
    };

    const NAME: &str = "arm::wrist::ft";

    fn parse(text: &str) -> Result<ForceTorqueConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new(NAME))?;
        ForceTorqueConfig::read(&doc.root())
    }

    #[test]
    fn defaults() {
        for sdf in [
            "",
            r#"<sensor name="ft" type="force_torque"/>"#,
            r#"<sensor><force_torque/></sensor>"#,
            r#"<sensor><force_torque><frame> </frame></force_torque></sensor>"#,
        ] {
            assert_eq!(parse(sdf).unwrap(), ForceTorqueConfig::default());
        }
        let d = ForceTorqueConfig::default();
        assert_eq!(
            (d.frame, d.direction),
            (Frame::Child, MeasureDirection::ChildToParent)
        );
    }

    #[test]
    fn frames_directions_and_noises() {
        let c = parse(
            r#"<sensor name="ft" type="force_torque"><force_torque>
                 <frame>parent</frame><measure_direction>parent_to_child</measure_direction>
                 <force><y><noise type="gaussian"><stddev>0.5</stddev></noise></y></force>
                 <torque><z><noise type="gaussian"><mean>0.1</mean></noise></z></torque>
               </force_torque></sensor>"#,
        )
        .unwrap();
        assert_eq!(c.frame, Frame::Parent);
        assert_eq!(c.direction, MeasureDirection::ParentToChild);
        assert_eq!(c.force_noise[0], NoiseParams::default());
        assert_eq!(c.force_noise[1].kind, NoiseKind::Gaussian);
        assert_eq!(c.force_noise[1].stddev, 0.5);
        assert_eq!(c.torque_noise[2].mean, 0.1);
        let s =
            parse("<sensor><force_torque><frame>sensor</frame></force_torque></sensor>").unwrap();
        assert_eq!(s.frame, Frame::Sensor);
    }

    #[test]
    fn errors_name_sensor_element_and_text() {
        let e = parse("<sensor><force_torque><frame>world</frame></force_torque></sensor>")
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "arm::wrist::ft: <force_torque><frame> must be child, parent or sensor, found \"world\""
        );
        let e = parse(
            "<sensor><force_torque><measure_direction>up</measure_direction></force_torque></sensor>",
        )
        .unwrap_err();
        assert!(
            e.message
                .contains("<measure_direction> must be child_to_parent or parent_to_child"),
            "{e}"
        );
        let e = parse(
            r#"<sensor><force_torque><torque><x><noise type="gaussian"><stddev>-1</stddev></noise></x></torque></force_torque></sensor>"#,
        )
        .unwrap_err();
        assert!(
            e.message
                .contains("<force_torque><torque><x><noise><stddev> must be zero or positive"),
            "{e}"
        );
        let e = parse("<sensor><force_torque></sensor>").unwrap_err();
        assert!(e.message.starts_with(NAME));
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let text = "<sensor name=\"ft\" type=\"force_torque\">\n  <force_torque>\n    \
                    <measure_direction>up</measure_direction>\n  </force_torque>\n</sensor>";
        let config =
            sensor_config(NAME, "force_torque", EntityId(3), text).with_source("world.sdf", 40);
        let doc = config.parse_sdf().unwrap();
        let e = ForceTorqueConfig::read(&doc.root()).unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "arm::wrist::ft: <force_torque><measure_direction> must be child_to_parent or parent_to_child, found \"up\" at world.sdf:42"
        );
    }
}
