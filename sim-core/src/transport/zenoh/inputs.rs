//! The ROS 2 type of each topic a system listens to, for its `MS` liveliness token: what the
//! systems simcore ships read there. The engine's plugin interface names a subscription's
//! topic, not its type, so a system not listed here (or an input whose type its SDF chooses,
//! as TriggeredPublisher's) is subscribed to over Zenoh without a token.

use crate::ros::{RosType, catalog};
use crate::systems::SystemSetup;

/// The type a system reads on its `index`-th subscription, if simcore knows it.
pub fn input_type(setup: &SystemSetup, index: usize) -> Option<&'static RosType> {
    let system = setup.name.rsplit("::").next().unwrap_or_default();
    let t = match (system, index) {
        ("DiffDrive", 0) => &catalog::TWIST,
        ("DiffDrive", 1) => &catalog::BOOL,
        ("AckermannSteering", 0) if steering_only(&setup.sdf) => &catalog::FLOAT64,
        ("AckermannSteering", 0) | ("MecanumDrive", 0) | ("VelocityControl", _) => &catalog::TWIST,
        ("JointController" | "JointPositionController" | "ApplyJointForce", 0) => &catalog::FLOAT64,
        ("PanTiltZoom", 0) => &catalog::VECTOR3_STAMPED,
        _ => return None,
    };
    Some(t)
}

/// Whether an AckermannSteering `<plugin>` has `<steering_only>true`.
fn steering_only(sdf: &str) -> bool {
    roxmltree::Document::parse(sdf).is_ok_and(|d| {
        d.root_element()
            .children()
            .find(|n| n.has_tag_name("steering_only"))
            .and_then(|n| n.text())
            .is_some_and(|t| matches!(t.trim(), "true" | "1"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(name: &str, sdf: &str) -> SystemSetup {
        SystemSetup {
            entity: sim_plugin_api::EntityId(2),
            entity_name: "m".into(),
            name: name.into(),
            filename: String::new(),
            sdf: sdf.into(),
            span: Default::default(),
            seed: 0,
            namespace: "/model/m".into(),
        }
    }

    #[test]
    fn inputs_are_typed_as_their_systems_read_them() {
        let dd = setup("gz::sim::systems::DiffDrive", "<plugin/>");
        assert_eq!(
            input_type(&dd, 0).map(|t| t.name),
            Some("geometry_msgs/msg/Twist")
        );
        assert_eq!(
            input_type(&dd, 1).map(|t| t.name),
            Some("std_msgs/msg/Bool")
        );
        assert_eq!(input_type(&dd, 2), None);
        let steer = setup(
            "gz::sim::systems::AckermannSteering",
            "<plugin><steering_only>true</steering_only></plugin>",
        );
        assert_eq!(
            input_type(&steer, 0).map(|t| t.name),
            Some("std_msgs/msg/Float64")
        );
        let jc = setup("ignition::gazebo::systems::JointController", "<plugin/>");
        assert_eq!(
            input_type(&jc, 0).map(|t| t.name),
            Some("std_msgs/msg/Float64")
        );
        let tp = setup("gz::sim::systems::TriggeredPublisher", "<plugin/>");
        assert_eq!(input_type(&tp, 0), None);
    }
}
