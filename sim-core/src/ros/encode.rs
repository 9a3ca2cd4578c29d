//! One CDR encoder per simcore payload type, each to the ROS 2 type of [`encode`]'s table.

use super::catalog as t;
use super::{CdrWriter, RosType};
use sim_plugin_api::{Header, Imu, LaserScan, Message, Payload, Quat, SimTime, Twist, Vec3};

/// What a payload does not carry but some ROS types want (see [`encode_with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EncodeOptions<'a> {
    /// `child_frame_id` of `nav_msgs/Odometry`: the body frame its twist is in (the diff
    /// drive's `<child_frame_id>`); empty by default.
    pub child_frame_id: &'a str,
    /// `scan_time` of `sensor_msgs/LaserScan`, s: the sensor's update period; 0 (unknown)
    /// by default.
    pub scan_time: f32,
}

/// Encodes `message` as CDR (encapsulation header included) at the end of `out`, and returns
/// its ROS 2 type; `None` (and nothing written) for a payload with no ROS 2 form.
///
/// | payload | ROS 2 type |
/// |---|---|
/// | `Imu` | `sensor_msgs/msg/Imu` (orientation covariance `[-1, 0, ...]` without orientation) |
/// | `LaserScan`, one row | `sensor_msgs/msg/LaserScan` (angles and ranges as `float32`) |
/// | `Twist` | `geometry_msgs/msg/Twist` |
pub fn encode(message: &Message, out: &mut Vec<u8>) -> Option<&'static RosType> {
    let payload = message.payload.as_enum().ok()?;
    let header = &message.header;
    match payload {
        Payload::Imu(m) => Some(imu(header, m, &mut CdrWriter::new(out))),
        Payload::LaserScan(m) if m.vertical_count <= 1 => {
            Some(laser_scan(header, m, &mut CdrWriter::new(out)))
        }
        Payload::Twist(m) => Some(twist(m, &mut CdrWriter::new(out))),
        _ => None,
    }
}

/// Encodes a `rosgraph_msgs/msg/Clock` of sim time `now` at the end of `out`.
pub fn encode_clock(now: SimTime, out: &mut Vec<u8>) -> &'static RosType {
    time(&mut CdrWriter::new(out), now);
    &t::CLOCK
}

/// `builtin_interfaces/Time`.
pub(crate) fn time(w: &mut CdrWriter<'_>, at: SimTime) {
    let (sec, nsec) = at.to_sec_nsec();
    w.i32(i32::try_from(sec).unwrap_or(if sec < 0 { i32::MIN } else { i32::MAX }));
    w.u32(nsec as u32);
}

/// `std_msgs/Header`.
pub(crate) fn header(w: &mut CdrWriter<'_>, h: &Header) {
    time(w, h.stamp);
    w.string(h.frame_id.as_str());
}

/// `geometry_msgs/Vector3` (and `Point`).
pub(crate) fn vector3(w: &mut CdrWriter<'_>, v: &Vec3) {
    w.f64(v.x);
    w.f64(v.y);
    w.f64(v.z);
}

/// `geometry_msgs/Quaternion`.
pub(crate) fn quaternion(w: &mut CdrWriter<'_>, q: &Quat) {
    w.f64(q.x);
    w.f64(q.y);
    w.f64(q.z);
    w.f64(q.w);
}

fn imu(h: &Header, m: &Imu, w: &mut CdrWriter<'_>) -> &'static RosType {
    header(w, h);
    quaternion(w, &m.orientation);
    if m.has_orientation {
        w.f64_array(&m.orientation_covariance);
    } else {
        // REP-145 / sensor_msgs: element 0 is -1 when the orientation is not estimated.
        let mut c = [0.0; 9];
        c[0] = -1.0;
        w.f64_array(&c);
    }
    vector3(w, &m.angular_velocity);
    w.f64_array(&m.angular_velocity_covariance);
    vector3(w, &m.linear_acceleration);
    w.f64_array(&m.linear_acceleration_covariance);
    &t::IMU
}

fn laser_scan(h: &Header, m: &LaserScan, w: &mut CdrWriter<'_>) -> &'static RosType {
    header(w, h);
    w.f32(m.angle_min as f32);
    w.f32(m.angle_max as f32);
    w.f32(m.angle_step as f32);
    w.f32(0.0); // time_increment: every ray of a scan is cast at the same instant
    w.f32(0.0); // scan_time: not carried by the payload
    w.f32(m.range_min as f32);
    w.f32(m.range_max as f32);
    w.f32_seq(m.ranges.iter().map(|&r| r as f32));
    w.f32_seq(m.intensities.iter().map(|&r| r as f32));
    &t::LASER_SCAN
}

fn twist(m: &Twist, w: &mut CdrWriter<'_>) -> &'static RosType {
    vector3(w, &m.linear);
    vector3(w, &m.angular);
    &t::TWIST
}
