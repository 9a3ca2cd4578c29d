//! The payload kinds, as [`Payload::type_name`](sim_plugin_api::Payload::type_name) spells
//! them, with the ROS 2 types [`encode`](crate::encode) writes each as (what a listing of a
//! run's topics shows before anything was published) and the one [`decode`](crate::decode)
//! reads it from (what an input of that kind is offered as).

use crate::RosType;
use crate::catalog as t;

/// A payload kind and the ROS 2 types its messages leave the engine as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// [`Payload::type_name`](sim_plugin_api::Payload::type_name): `"Odometry"`, `"Pose_V"`...
    pub name: &'static str,
    /// The ROS 2 types [`encode`](crate::encode) writes it as: one for most kinds; a
    /// `LaserScan` of one row is a `LaserScan`, of several a `PointCloud2`; none for `Custom`.
    pub ros: &'static [&'static RosType],
    /// The ROS 2 type [`decode`](crate::decode) reads it from: the first of `ros` but for
    /// `Pose`, read from a `PoseStamped` (which a client sends; a `TransformStamped` is what
    /// the engine writes); none for `Custom`.
    pub read_from: Option<&'static RosType>,
}

const fn kind(name: &'static str, ros: &'static [&'static RosType]) -> Kind {
    let read_from = match ros.first() {
        Some(t) => Some(*t),
        None => None,
    };
    Kind {
        name,
        ros,
        read_from,
    }
}

/// Every payload kind, in [`Payload`](sim_plugin_api::Payload)'s order.
pub const KINDS: &[Kind] = &[
    kind("Empty", &[&t::EMPTY]),
    kind("Boolean", &[&t::BOOL]),
    kind("Double", &[&t::FLOAT64]),
    kind("Int64", &[&t::INT64]),
    kind("StringMsg", &[&t::STRING]),
    kind("Vector3d", &[&t::VECTOR3_STAMPED]),
    kind("Twist", &[&t::TWIST]),
    Kind {
        name: "Pose",
        ros: &[&t::TRANSFORM_STAMPED],
        read_from: Some(&t::POSE_STAMPED),
    },
    kind("Pose_V", &[&t::TF_MESSAGE]),
    kind("IMU", &[&t::IMU]),
    kind("LaserScan", &[&t::LASER_SCAN, &t::POINT_CLOUD2]),
    kind("PointCloudPacked", &[&t::POINT_CLOUD2]),
    kind("Image", &[&t::IMAGE]),
    kind("CameraInfo", &[&t::CAMERA_INFO]),
    kind("NavSat", &[&t::NAV_SAT_FIX]),
    kind("LogicalCameraImage", &[&t::LOGICAL_CAMERA_IMAGE]),
    kind("LogicalCameraSensor", &[&t::LOGICAL_CAMERA_FRUSTUM]),
    kind("Altimeter", &[&t::ALTIMETER]),
    kind("Magnetometer", &[&t::MAGNETIC_FIELD]),
    kind("FluidPressure", &[&t::FLUID_PRESSURE]),
    kind("Odometry", &[&t::ODOMETRY]),
    kind("BatteryState", &[&t::BATTERY_STATE]),
    kind("EntityFactory", &[&t::ENTITY_FACTORY]),
    kind("PerformanceSensorMetrics", &[&t::SENSOR_METRICS]),
    kind("Custom", &[]),
    kind("Wrench", &[&t::WRENCH_STAMPED]),
    kind("Contacts", &[&t::CONTACTS]),
    kind("Fiducials", &[&t::FIDUCIAL_ARRAY]),
];

/// The kind named `name` ([`KINDS`]), if there is one.
pub fn kind_named(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden_tests::{Check, cases};

    /// A golden message decoded from a kind's `read_from` type is of that kind, and each
    /// kind's type is one the decoder knows (a type it does not know is refused as unknown,
    /// whatever the bytes).
    #[test]
    fn each_kind_is_read_from_a_type_decode_reads_as_that_kind() {
        let mut checked = 0;
        for c in cases() {
            if !matches!(c.check, Check::Both | Check::Decode) {
                continue;
            }
            let Some(k) = KINDS
                .iter()
                .find(|k| k.read_from.is_some_and(|t| t.name == c.ty))
            else {
                continue;
            };
            let name = c
                .message
                .payload
                .as_enum()
                .map_or("Unknown", |p| p.type_name());
            assert_eq!(name, k.name, "{}", c.name);
            checked += 1;
        }
        assert!(checked >= 20, "{checked} golden cases decode a kind's type");
        for k in KINDS {
            let Some(from) = k.read_from else {
                assert_eq!(k.name, "Custom", "only Custom has no ROS form");
                continue;
            };
            let r = crate::decode(from.name, &[0, 1, 0, 0]);
            assert!(
                !matches!(r, Err(crate::DecodeError::UnknownType(_))),
                "{}: {r:?}",
                k.name
            );
            assert!(t::ALL.contains(&from), "{}", from.name);
        }
    }

    /// Every golden message is encoded as one of the ROS types its kind lists.
    #[test]
    fn each_kind_lists_the_types_encode_writes() {
        let mut seen = std::collections::BTreeSet::new();
        for c in cases() {
            if !matches!(c.check, Check::Both | Check::Encode) {
                continue;
            }
            let name = c
                .message
                .payload
                .as_enum()
                .map_or("Unknown", |p| p.type_name());
            let k = kind_named(name).unwrap_or_else(|| panic!("no kind {name}"));
            let mut out = Vec::new();
            if let Some(ty) = crate::encode_with(&c.message, &c.options, &mut out) {
                assert!(k.ros.contains(&ty), "{name}: {}", ty.name);
                seen.insert(name);
            }
        }
        assert!(seen.len() >= 20, "{seen:?}");
        assert_eq!(kind_named("Custom").map(|k| k.ros.len()), Some(0));
        assert_eq!(kind_named("Nope"), None);
        let names: std::collections::BTreeSet<_> = KINDS.iter().map(|k| k.name).collect();
        assert_eq!(names.len(), KINDS.len(), "no kind twice");
    }
}
