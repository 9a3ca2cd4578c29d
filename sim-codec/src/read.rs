//! The CDR readers of the parts ROS 2 types share (time, header, vectors, rotations, poses),
//! and the two shapes of a kind's reader: a type without a header ([`bare`]) and one that
//! starts with one ([`stamped`]).

use crate::cdr::{CdrReader, DecodeError};
use sim_plugin_api::{Header, Payload, Pose, Quat, SimTime, Vec3};

/// The reading of a type without a `header`: `payload`, with an empty header.
pub(crate) fn bare(payload: Payload) -> Result<(Header, Payload), DecodeError> {
    Ok((Header::default(), payload))
}

/// Reads a type that starts with a `std_msgs/Header`: the header, then the fields after it
/// with `fields`.
pub(crate) fn stamped(
    r: &mut CdrReader<'_>,
    fields: impl FnOnce(&mut CdrReader<'_>, &Header) -> Result<Payload, DecodeError>,
) -> Result<(Header, Payload), DecodeError> {
    let h = header(r)?;
    let p = fields(r, &h)?;
    Ok((h, p))
}

fn time(r: &mut CdrReader<'_>) -> Result<SimTime, DecodeError> {
    let sec: i32 = r.read("header.stamp.sec")?;
    let nsec: u32 = r.read("header.stamp.nanosec")?;
    Ok(SimTime::from_nanos(
        i64::from(sec) * 1_000_000_000 + i64::from(nsec),
    ))
}

/// `std_msgs/Header`.
pub(crate) fn header(r: &mut CdrReader<'_>) -> Result<Header, DecodeError> {
    Ok(Header {
        stamp: time(r)?,
        frame_id: r.string("header.frame_id")?.into(),
        seq: 0,
    })
}

/// `geometry_msgs/Vector3` (and `Point`), its components named `field` in errors.
pub(crate) fn vector3(r: &mut CdrReader<'_>, field: &'static str) -> Result<Vec3, DecodeError> {
    Ok(Vec3::new(r.f64(field)?, r.f64(field)?, r.f64(field)?))
}

/// `geometry_msgs/Quaternion`, its components named `field` in errors.
pub(crate) fn quaternion(r: &mut CdrReader<'_>, field: &'static str) -> Result<Quat, DecodeError> {
    Ok(Quat::new(
        r.f64(field)?,
        r.f64(field)?,
        r.f64(field)?,
        r.f64(field)?,
    ))
}

/// A rotation: finite non-zero norm, normalised unless already of unit norm.
pub(crate) fn rotation(q: Quat, field: &str) -> Result<Quat, DecodeError> {
    let n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if !n2.is_normal() {
        return Err(DecodeError::Invalid(format!("`{field}` is not a rotation")));
    }
    Ok(if (n2 - 1.0).abs() > 1e-9 {
        q.normalized()
    } else {
        q
    })
}

/// `geometry_msgs/Pose`, its orientation a rotation.
pub(crate) fn pose(r: &mut CdrReader<'_>) -> Result<Pose, DecodeError> {
    let position = vector3(r, "pose.position")?;
    let orientation = rotation(quaternion(r, "pose.orientation")?, "pose.orientation")?;
    Ok(Pose::new(position, orientation))
}
