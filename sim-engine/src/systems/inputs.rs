//! The message type each system reads on each of its subscriptions. The plugin interface
//! names a subscription's topic, not its type, so the engine knows it from two places: the
//! table of the systems simcore ships ([`input_type`], by gz-sim's names), and what a system
//! declared through the `simcore.input_types.v1` extension while it was created
//! ([`InputDeclarations`](super::InputDeclarations), the kinds of [`KINDS`]), which wins for
//! its own topics. `simcore run` refuses a `--pub` of another type to such an input, and the
//! Zenoh transport gives the input's subscription an `MS` token of its ROS type. Any other
//! input (or one whose type its SDF chooses, as TriggeredPublisher's) reads whatever arrives.

use super::{SystemManager, SystemSetup};
use sim_codec::{RosType, catalog};

/// The type a system reads on one of its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputType {
    /// The engine's message type, as `--echo` prints it and `--pub` writes it
    /// ([`sim_plugin_api::Payload::type_name`]).
    pub message: &'static str,
    /// Its ROS 2 type.
    pub ros: &'static RosType,
}

const TWIST: InputType = typed("Twist", &catalog::TWIST);
const BOOLEAN: InputType = typed("Boolean", &catalog::BOOL);
const DOUBLE: InputType = typed("Double", &catalog::FLOAT64);
const VECTOR3: InputType = typed("Vector3d", &catalog::VECTOR3_STAMPED);

const fn typed(message: &'static str, ros: &'static RosType) -> InputType {
    InputType { message, ros }
}

/// The payload kinds a system may declare for an input: each [`Payload::type_name`]
/// (sim_plugin_api) that the engine decodes from a ROS 2 type ([`sim_codec::decode`]), with
/// that type.
///
/// [`Payload::type_name`]: sim_plugin_api::Payload::type_name
pub const KINDS: &[InputType] = &[
    typed("Empty", &catalog::EMPTY),
    BOOLEAN,
    DOUBLE,
    typed("Int64", &catalog::INT64),
    typed("StringMsg", &catalog::STRING),
    VECTOR3,
    TWIST,
    typed("Pose", &catalog::POSE_STAMPED),
    typed("Pose_V", &catalog::TF_MESSAGE),
    typed("Wrench", &catalog::WRENCH_STAMPED),
    typed("IMU", &catalog::IMU),
    typed("LaserScan", &catalog::LASER_SCAN),
    typed("PointCloudPacked", &catalog::POINT_CLOUD2),
    typed("Image", &catalog::IMAGE),
    typed("CameraInfo", &catalog::CAMERA_INFO),
    typed("NavSat", &catalog::NAV_SAT_FIX),
    typed("Magnetometer", &catalog::MAGNETIC_FIELD),
    typed("FluidPressure", &catalog::FLUID_PRESSURE),
    typed("BatteryState", &catalog::BATTERY_STATE),
    typed("Odometry", &catalog::ODOMETRY),
    typed("Altimeter", &catalog::ALTIMETER),
    typed("LogicalCameraImage", &catalog::LOGICAL_CAMERA_IMAGE),
    typed("LogicalCameraSensor", &catalog::LOGICAL_CAMERA_FRUSTUM),
    typed("Fiducials", &catalog::FIDUCIAL_ARRAY),
    typed("Contacts", &catalog::CONTACTS),
    typed("PerformanceSensorMetrics", &catalog::SENSOR_METRICS),
    typed("EntityFactory", &catalog::ENTITY_FACTORY),
];

/// The input type of payload kind `kind` ([`KINDS`]), if a system may declare it.
pub fn kind_type(kind: &str) -> Option<InputType> {
    KINDS.iter().find(|t| t.message == kind).copied()
}

/// The type a system reads on its `index`-th subscription, if simcore knows it.
pub fn input_type(setup: &SystemSetup, index: usize) -> Option<InputType> {
    let system = setup.name.rsplit("::").next().unwrap_or_default();
    let t = match (system, index) {
        ("DiffDrive", 0) => TWIST,
        ("DiffDrive", 1) => BOOLEAN,
        ("AckermannSteering", 0) if steering_only(&setup.sdf) => DOUBLE,
        ("AckermannSteering", 0) | ("MecanumDrive", 0) | ("VelocityControl", _) => TWIST,
        ("JointController" | "JointPositionController" | "ApplyJointForce", 0) => DOUBLE,
        ("PanTiltZoom", 0) => VECTOR3,
        ("Thruster", 0) => DOUBLE,
        ("Thruster", 1) => BOOLEAN,
        _ => return None,
    };
    Some(t)
}

impl SystemManager {
    /// The active systems that subscribe to `topic` and whose type there simcore knows (the
    /// one they declared, else [`input_type`]), in load order.
    pub fn input_types(&self, topic: &str) -> Vec<(&SystemSetup, InputType)> {
        self.slots
            .iter()
            .filter(|s| s.plugin.is_some())
            .filter_map(|s| {
                let i = s.subscriptions.iter().position(|t| t.topic() == topic)?;
                let declared = s.declared[i];
                Some((&s.setup, declared.or_else(|| input_type(&s.setup, i))?))
            })
            .collect()
    }
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
            post_step_serves: Vec::new(),
        }
    }

    fn names(t: Option<InputType>) -> Option<(&'static str, &'static str)> {
        t.map(|t| (t.message, t.ros.name))
    }

    #[test]
    fn inputs_are_typed_as_their_systems_read_them() {
        let dd = setup("gz::sim::systems::DiffDrive", "<plugin/>");
        assert_eq!(
            names(input_type(&dd, 0)),
            Some(("Twist", "geometry_msgs/msg/Twist"))
        );
        assert_eq!(
            names(input_type(&dd, 1)),
            Some(("Boolean", "std_msgs/msg/Bool"))
        );
        assert_eq!(input_type(&dd, 2), None);
        let steer = setup(
            "gz::sim::systems::AckermannSteering",
            "<plugin><steering_only>true</steering_only></plugin>",
        );
        assert_eq!(
            names(input_type(&steer, 0)),
            Some(("Double", "std_msgs/msg/Float64"))
        );
        let jc = setup("ignition::gazebo::systems::JointController", "<plugin/>");
        assert_eq!(
            names(input_type(&jc, 0)),
            Some(("Double", "std_msgs/msg/Float64"))
        );
        let ptz = setup("gz::sim::systems::PanTiltZoom", "<plugin/>");
        assert_eq!(
            names(input_type(&ptz, 0)),
            Some(("Vector3d", "geometry_msgs/msg/Vector3Stamped"))
        );
        let tp = setup("gz::sim::systems::TriggeredPublisher", "<plugin/>");
        assert_eq!(input_type(&tp, 0), None);
    }

    /// Every kind a system may declare is one the inbound decoder reads (a ROS type it does
    /// not know is refused as unknown, whatever the bytes), and its ROS type is in the
    /// catalogue.
    #[test]
    fn every_declarable_kind_is_decoded_from_its_ros_type() {
        for k in KINDS {
            let r = sim_codec::decode(k.ros.name, &[0, 1, 0, 0]);
            assert!(
                !matches!(r, Err(sim_codec::DecodeError::UnknownType(_))),
                "{}: {r:?}",
                k.message
            );
            assert!(catalog::ALL.contains(&k.ros), "{}", k.ros.name);
            assert_eq!(kind_type(k.message), Some(*k));
        }
        let empty = sim_codec::decode(catalog::EMPTY.name, &[0, 1, 0, 0, 0]).unwrap();
        assert_eq!(empty.type_name(), "Empty");
        assert_eq!(kind_type("Quaternion"), None);
        assert_eq!(kind_type("Custom"), None, "Custom has no ROS form");
    }
}
