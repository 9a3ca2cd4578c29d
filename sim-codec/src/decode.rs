//! CDR to payload: what ROS 2 clients send in, and every type [`encode`](fn@crate::encode)
//! writes (the table is [`decode`]'s; each type's reader is its kind's entry in
//! [`KINDS`](crate::kinds::KINDS)).

use crate::cdr::{CdrReader, DecodeError};
use crate::kinds;
use sim_plugin_api::{Header, Message, Payload, Payload_NE};

/// Decodes the CDR bytes (encapsulation header included) of a message of ROS 2 type
/// `type_name` into a payload.
///
/// | ROS 2 type | payload |
/// |---|---|
/// | `std_msgs/msg/Empty`, `Bool`, `Float64`, `Int64`, `String` | `Empty`, `Boolean`, `Double`, `Int64`, `Text` |
/// | `geometry_msgs/msg/Vector3Stamped` | `Vector3` |
/// | `geometry_msgs/msg/Twist`, `TwistStamped` | `Twist` |
/// | `geometry_msgs/msg/PoseStamped` | `Pose` with an empty name |
/// | `geometry_msgs/msg/TransformStamped` | `Pose` named by `child_frame_id` |
/// | `geometry_msgs/msg/WrenchStamped` | `Wrench` |
/// | `tf2_msgs/msg/TFMessage` | `PoseList` named by `child_frame_id` (per-transform headers dropped) |
/// | `sensor_msgs/msg/Imu` | `Imu` (`has_orientation` unless `orientation_covariance[0]` is -1) |
/// | `sensor_msgs/msg/LaserScan` | `LaserScan` of one row, `frame` = the header's frame |
/// | `sensor_msgs/msg/PointCloud2` | `PointCloud` |
/// | `sensor_msgs/msg/Image` | `Image` (the encodings [`encode`](fn@crate::encode) writes) |
/// | `sensor_msgs/msg/CameraInfo` | `CameraInfo` (binning and ROI dropped) |
/// | `sensor_msgs/msg/NavSatFix` | `NavSat` (no velocity; status and covariance dropped) |
/// | `sensor_msgs/msg/MagneticField`, `FluidPressure`, `BatteryState` | `Magnetometer`, `FluidPressure`, `BatteryState` |
/// | `nav_msgs/msg/Odometry` | `Odometry` (covariances and `child_frame_id` dropped) |
/// | `simcore_msgs/msg/*` | the payload of the same name |
///
/// A type name is `pkg/msg/Type`, `pkg/Type` or the DDS name `pkg::msg::dds_::Type_`. Both
/// byte orders are read. Poses must hold a rotation (a quaternion of finite, non-zero norm;
/// one not of unit norm is normalised); other values are taken as they are, infinities and
/// NaN included.
pub fn decode(type_name: &str, bytes: &[u8]) -> Result<Payload, DecodeError> {
    decode_parts(type_name, bytes).map(|(_, p)| p)
}

/// As [`decode`], into a message whose header holds the stamp and frame of the ROS
/// message's `header` (zero and empty for types without one); the topic is empty.
pub fn decode_message(type_name: &str, bytes: &[u8]) -> Result<Message, DecodeError> {
    let (header, payload) = decode_parts(type_name, bytes)?;
    Ok(Message {
        topic: Default::default(),
        header,
        payload: Payload_NE::new(payload),
    })
}

fn decode_parts(type_name: &str, bytes: &[u8]) -> Result<(Header, Payload), DecodeError> {
    let unknown = || DecodeError::UnknownType(type_name.to_string());
    let (package, name) = short_name(type_name).ok_or_else(unknown)?;
    let mut reader = CdrReader::new(bytes)?;
    let read = kinds::reader(package, name).ok_or_else(unknown)?;
    let parts = read(&mut reader)?;
    reader.finish()?;
    Ok(parts)
}

/// `(package, Type)` of `pkg/msg/Type`, `pkg/Type` or `pkg::msg::dds_::Type_`.
fn short_name(name: &str) -> Option<(&str, &str)> {
    if let Some((pkg, rest)) = name.split_once("::msg::dds_::") {
        return Some((pkg, rest.strip_suffix('_')?));
    }
    let mut parts = name.split('/');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(pkg), Some("msg"), Some(t), None) | (Some(pkg), Some(t), None, None) => {
            Some((pkg, t))
        }
        _ => None,
    }
}
