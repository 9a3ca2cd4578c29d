//! Fuzzes the CDR decoder: what a ROS 2 client sends over Zenoh is decoded by
//! `sim_codec::decode` and `decode_message` (`sim_core::ros`) as the type its topic or
//! service says. The first byte of an input chooses one of the types the decoder reads
//! ([`TYPES`], under the three spellings a type name may take); the rest is the message's
//! bytes, encapsulation header included. Errors are expected; a panic, an abort, an
//! allocation of what a length field claims, or a hang is a bug.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sim_core::ros;

/// Every type `decode` reads, as `package/msg/Type`.
const TYPES: &[&str] = &[
    "std_msgs/msg/Empty",
    "std_msgs/msg/Bool",
    "std_msgs/msg/Float64",
    "std_msgs/msg/Int64",
    "std_msgs/msg/String",
    "geometry_msgs/msg/Vector3Stamped",
    "geometry_msgs/msg/Twist",
    "geometry_msgs/msg/TwistStamped",
    "geometry_msgs/msg/PoseStamped",
    "geometry_msgs/msg/TransformStamped",
    "geometry_msgs/msg/WrenchStamped",
    "tf2_msgs/msg/TFMessage",
    "sensor_msgs/msg/Imu",
    "sensor_msgs/msg/LaserScan",
    "sensor_msgs/msg/PointCloud2",
    "sensor_msgs/msg/Image",
    "sensor_msgs/msg/CameraInfo",
    "sensor_msgs/msg/NavSatFix",
    "sensor_msgs/msg/MagneticField",
    "sensor_msgs/msg/FluidPressure",
    "sensor_msgs/msg/BatteryState",
    "nav_msgs/msg/Odometry",
    "simcore_msgs/msg/Altimeter",
    "simcore_msgs/msg/Contacts",
    "simcore_msgs/msg/EntityFactory",
    "simcore_msgs/msg/FiducialArray",
    "simcore_msgs/msg/LogicalCameraFrustum",
    "simcore_msgs/msg/LogicalCameraImage",
    "simcore_msgs/msg/SensorMetrics",
];

/// The type `name` under one of its spellings: `pkg/msg/Type`, `pkg/Type` or the DDS
/// name `pkg::msg::dds_::Type_`.
fn spelled(name: &str, spelling: u8) -> String {
    let (package, ty) = name.split_once("/msg/").unwrap_or((name, ""));
    match spelling % 3 {
        0 => name.to_string(),
        1 => format!("{package}/{ty}"),
        _ => format!("{package}::msg::dds_::{ty}_"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((which, bytes)) = data.split_first() else {
        return;
    };
    let which = usize::from(*which);
    let name = spelled(TYPES[which % TYPES.len()], (which / TYPES.len()) as u8);
    let payload = ros::decode(&name, bytes);
    let message = ros::decode_message(&name, bytes);
    // The two read the same bytes the same way.
    assert_eq!(payload.is_ok(), message.is_ok(), "{name}");
    if let Err(e) = payload {
        let _ = e.to_string();
    }
});
