//! Reading the `<force_torque>` element of a `<sensor type="force_torque">`.
//!
//! Parsed once, when the sensor is created. Invalid values are configuration errors whose
//! message names the sensor's scoped name, the element and the text found there.

use sim_plugin_api::{PluginError, noise::NoiseParams};
use simcore_plugin_common::{Reader, child, parse_sensor_sdf, text};

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
    /// Parses the `<force_torque>` child of a `<sensor>` element given as XML text. `sensor`
    /// (the scoped name) is used in error messages. Without `<force_torque>` (or with blank
    /// text): the defaults.
    pub fn parse(sensor_sdf: &str, sensor: &str) -> Result<ForceTorqueConfig, PluginError> {
        let Some(doc) = parse_sensor_sdf(sensor_sdf, sensor)? else {
            return Ok(ForceTorqueConfig::default());
        };
        let root = doc.root_element();
        let Some(ft) = child(root, "force_torque") else {
            return Ok(ForceTorqueConfig::default());
        };
        let r = Reader::new(sensor);
        let frame = match text(ft, "frame") {
            None | Some("") | Some("child") => Frame::Child,
            Some("parent") => Frame::Parent,
            Some("sensor") => Frame::Sensor,
            Some(other) => {
                return Err(r.error("<force_torque><frame>", "child, parent or sensor", other));
            }
        };
        let direction = match text(ft, "measure_direction") {
            None | Some("") | Some("child_to_parent") => MeasureDirection::ChildToParent,
            Some("parent_to_child") => MeasureDirection::ParentToChild,
            Some(other) => {
                return Err(r.error(
                    "<force_torque><measure_direction>",
                    "child_to_parent or parent_to_child",
                    other,
                ));
            }
        };
        let axes = |kind: &str| -> Result<[NoiseParams; 3], PluginError> {
            Ok([
                r.noise_at(root, &["force_torque", kind, "x"])?,
                r.noise_at(root, &["force_torque", kind, "y"])?,
                r.noise_at(root, &["force_torque", kind, "z"])?,
            ])
        };
        Ok(ForceTorqueConfig {
            frame,
            direction,
            force_noise: axes("force")?,
            torque_noise: axes("torque")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{ErrorCode, noise::NoiseKind};

    const NAME: &str = "arm::wrist::ft";

    #[test]
    fn defaults() {
        for sdf in [
            "",
            r#"<sensor name="ft" type="force_torque"/>"#,
            r#"<sensor><force_torque/></sensor>"#,
            r#"<sensor><force_torque><frame> </frame></force_torque></sensor>"#,
        ] {
            assert_eq!(
                ForceTorqueConfig::parse(sdf, NAME).unwrap(),
                ForceTorqueConfig::default()
            );
        }
        let d = ForceTorqueConfig::default();
        assert_eq!(
            (d.frame, d.direction),
            (Frame::Child, MeasureDirection::ChildToParent)
        );
    }

    #[test]
    fn frames_directions_and_noises() {
        let c = ForceTorqueConfig::parse(
            r#"<sensor name="ft" type="force_torque"><force_torque>
                 <frame>parent</frame><measure_direction>parent_to_child</measure_direction>
                 <force><y><noise type="gaussian"><stddev>0.5</stddev></noise></y></force>
                 <torque><z><noise type="gaussian"><mean>0.1</mean></noise></z></torque>
               </force_torque></sensor>"#,
            NAME,
        )
        .unwrap();
        assert_eq!(c.frame, Frame::Parent);
        assert_eq!(c.direction, MeasureDirection::ParentToChild);
        assert_eq!(c.force_noise[0], NoiseParams::default());
        assert_eq!(c.force_noise[1].kind, NoiseKind::Gaussian);
        assert_eq!(c.force_noise[1].stddev, 0.5);
        assert_eq!(c.torque_noise[2].mean, 0.1);
        let s = ForceTorqueConfig::parse(
            "<sensor><force_torque><frame>sensor</frame></force_torque></sensor>",
            NAME,
        )
        .unwrap();
        assert_eq!(s.frame, Frame::Sensor);
    }

    #[test]
    fn errors_name_sensor_element_and_text() {
        let e = ForceTorqueConfig::parse(
            "<sensor><force_torque><frame>world</frame></force_torque></sensor>",
            NAME,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "arm::wrist::ft: <force_torque><frame> must be child, parent or sensor, found \"world\""
        );
        let e = ForceTorqueConfig::parse(
            "<sensor><force_torque><measure_direction>up</measure_direction></force_torque></sensor>",
            NAME,
        )
        .unwrap_err();
        assert!(
            e.message
                .contains("<measure_direction> must be child_to_parent or parent_to_child"),
            "{e}"
        );
        let e = ForceTorqueConfig::parse(
            r#"<sensor><force_torque><torque><x><noise type="gaussian"><stddev>-1</stddev></noise></x></torque></force_torque></sensor>"#,
            NAME,
        )
        .unwrap_err();
        assert!(
            e.message
                .contains("<force_torque><torque><x><noise><stddev> must be zero or positive"),
            "{e}"
        );
        let e = ForceTorqueConfig::parse("<sensor><force_torque></sensor>", NAME).unwrap_err();
        assert!(e.message.starts_with(NAME));
    }
}
