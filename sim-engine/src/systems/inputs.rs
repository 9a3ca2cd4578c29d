//! The message type each system reads on each of its subscriptions. The plugin interface
//! names a subscription's topic, not its type, so the engine knows it from what a system
//! declared through the `simcore.input_types.v1` extension while it was created
//! ([`InputDeclarations`](super::InputDeclarations), the kinds of [`KINDS`]); the systems
//! simcore ships declare theirs as any plugin does, so the engine holds no table of them. `simcore run` refuses a `--pub` of another type to such an input, and the
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
    typed("Boolean", &catalog::BOOL),
    typed("Double", &catalog::FLOAT64),
    typed("Int64", &catalog::INT64),
    typed("StringMsg", &catalog::STRING),
    typed("Vector3d", &catalog::VECTOR3_STAMPED),
    typed("Twist", &catalog::TWIST),
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

impl SystemManager {
    /// The active systems that subscribe to `topic` and declared the type they read there,
    /// in load order.
    pub fn input_types(&self, topic: &str) -> Vec<(&SystemSetup, InputType)> {
        self.slots
            .iter()
            .filter(|s| s.plugin.is_some())
            .filter_map(|s| {
                let i = s.subscriptions.iter().position(|t| t.topic() == topic)?;
                let declared = s.declared[i];
                Some((&s.setup, declared?))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
