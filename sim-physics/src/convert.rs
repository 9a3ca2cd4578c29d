//! Conversions between the engine's f64 plain-data math and rapier's f32 glam types.

use rapier3d::math::{Pose as RPose, Rotation, Vector};
use sim_plugin_api::{Pose, Quat, Vec3};

pub(crate) fn vec_to_rapier(v: Vec3) -> Vector {
    Vector::new(v.x as f32, v.y as f32, v.z as f32)
}

pub(crate) fn vec_from_rapier(v: Vector) -> Vec3 {
    Vec3::new(v.x as f64, v.y as f64, v.z as f64)
}

pub(crate) fn quat_to_rapier(q: Quat) -> Rotation {
    let q = q.normalized();
    Rotation::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32).normalize()
}

pub(crate) fn quat_from_rapier(q: Rotation) -> Quat {
    Quat::new(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalized()
}

pub(crate) fn pose_to_rapier(p: Pose) -> RPose {
    RPose::from_parts(vec_to_rapier(p.position), quat_to_rapier(p.orientation))
}

pub(crate) fn pose_from_rapier(p: &RPose) -> Pose {
    Pose::new(vec_from_rapier(p.translation), quat_from_rapier(p.rotation))
}
