//! Payloads to CDR: [`encode`], each kind's encoder being its entry's in
//! [`KINDS`](crate::kinds::KINDS).

use crate::catalog as t;
use crate::kinds::kind_named;
use crate::options::EncodeOptions;
use crate::write::time;
use crate::{CdrWriter, RosType};
use sim_plugin_api::{Message, SimTime};

/// Encodes `message` as CDR (encapsulation header included) at the end of `out`, and returns
/// its ROS 2 type; `None` (and nothing written) for a payload with no ROS 2 form.
///
/// The `header` of a stamped type is the message's: stamp = its sim time, `frame_id` = its
/// frame.
///
/// | payload | ROS 2 type |
/// |---|---|
/// | `Empty` | `std_msgs/msg/Empty` (one byte, 0) |
/// | `Boolean`, `Double`, `Int64`, `Text` | `std_msgs/msg/Bool`, `Float64`, `Int64`, `String` |
/// | `Vector3` | `geometry_msgs/msg/Vector3Stamped` |
/// | `Twist` | `geometry_msgs/msg/Twist` |
/// | `Pose` | `geometry_msgs/msg/TransformStamped`: `child_frame_id` = the pose's name, parent = the header's frame, `world` when empty |
/// | `PoseList` | `tf2_msgs/msg/TFMessage`: one `TransformStamped` per pose, as for `Pose` |
/// | `Wrench` | `geometry_msgs/msg/WrenchStamped` |
/// | `Odometry` | `nav_msgs/msg/Odometry`: `child_frame_id` from [`EncodeOptions`], covariances 0 (unknown) |
/// | `Imu` | `sensor_msgs/msg/Imu`: without orientation, orientation covariance `[-1, 0, ...]` |
/// | `LaserScan`, one row | `sensor_msgs/msg/LaserScan`: `float32` fields, `time_increment` 0 (all rays at once), `scan_time` from [`EncodeOptions`] |
/// | `LaserScan`, several rows | `sensor_msgs/msg/PointCloud2`: fields `x`, `y`, `z`, `intensity` (`float32`) and `ring` (`uint16`, the row), 18-byte points as the lidar plugin's `points`, one row per vertical angle, in the sensor frame, `x = r cos(v) cos(h)`, `y = r cos(v) sin(h)`, `z = r sin(v)`; non-finite ranges give non-finite points and `is_dense` false |
/// | `PointCloud` | `sensor_msgs/msg/PointCloud2` (the same layout; datatypes 1 to 8 are ROS's) |
/// | `Image` | `sensor_msgs/msg/Image`: encodings `mono8`, `mono16`, `rgb8`, `rgba8`, `bgra8`, `bgr8`, `32FC1`, `32FC3`, little-endian; other pixel formats: `None` |
/// | `CameraInfo` | `sensor_msgs/msg/CameraInfo`: `d` = distortion, `k`, `r`, `p`; binning 0, ROI zero |
/// | `NavSat` | `sensor_msgs/msg/NavSatFix`: status `STATUS_FIX`, service `SERVICE_GPS`, covariance type `UNKNOWN` (all 0); the frame is the header's, or the payload's when the header has none; velocity is not part of the type |
/// | `Magnetometer` | `sensor_msgs/msg/MagneticField` (tesla; covariance 0, unknown) |
/// | `FluidPressure` | `sensor_msgs/msg/FluidPressure` |
/// | `BatteryState` | `sensor_msgs/msg/BatteryState`: `float32` fields, `design_capacity` = `capacity`, temperature NaN (not measured), health and technology `UNKNOWN`, `present` true, no cells; status values as ROS's (others: `UNKNOWN`) |
/// | `Altimeter`, `LogicalCameraImage`, `LogicalCameraFrustum`, `Fiducials`, `Contacts`, `SensorMetrics`, `EntityFactory` | `simcore_msgs/msg/Altimeter`, `LogicalCameraImage`, `LogicalCameraFrustum`, `FiducialArray`, `Contacts`, `SensorMetrics`, `EntityFactory` |
/// | `Custom` | `None` |
pub fn encode(message: &Message, out: &mut Vec<u8>) -> Option<&'static RosType> {
    encode_with(message, &EncodeOptions::default(), out)
}

/// As [`encode`], with the fields a payload does not carry taken from `options`.
pub fn encode_with(
    message: &Message,
    options: &EncodeOptions<'_>,
    out: &mut Vec<u8>,
) -> Option<&'static RosType> {
    let payload = message.payload.as_enum().ok()?;
    let kind = kind_named(payload.type_name())?;
    (kind.encode)(payload, &message.header, options, out)
}

/// Encodes a `rosgraph_msgs/msg/Clock` of sim time `now` at the end of `out`.
pub fn encode_clock(now: SimTime, out: &mut Vec<u8>) -> &'static RosType {
    time(&mut CdrWriter::new(out), now);
    &t::CLOCK
}
