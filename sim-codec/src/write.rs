//! The CDR writers of the parts ROS 2 types share (time, header, vectors, rotations, poses),
//! and the start of every encoder's message ([`cdr`]).

use crate::{CdrWriter, RosType};
use sim_plugin_api::{Header, Pose, Quat, SimTime, Vec3};

/// Starts a message at the end of `out`, writes its body with `body`, and returns its type
/// `ty` (what an encoder returns).
pub(crate) fn cdr(
    out: &mut Vec<u8>,
    ty: &'static RosType,
    body: impl FnOnce(&mut CdrWriter<'_>),
) -> Option<&'static RosType> {
    body(&mut CdrWriter::new(out));
    Some(ty)
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

/// `geometry_msgs/Pose` (and `Transform`: a translation and a rotation).
pub(crate) fn pose(w: &mut CdrWriter<'_>, p: &Pose) {
    vector3(w, &p.position);
    quaternion(w, &p.orientation);
}
