//! The velocity estimate of gz-sim's odometry publisher: finite differences between
//! consecutive poses, averaged over a rolling window.

use sim_plugin_api::{Pose, Vec3};

/// The body-frame angular velocity that turns `last` into `now` in `dt` seconds (the axis and
/// angle of `now · last⁻¹`, over `dt`, rotated into `now`'s frame).
pub fn angular_velocity(last: Pose, now: Pose, dt: f64) -> Vec3 {
    let mut q = now.orientation * last.orientation.inverse();
    if q.w < 0.0 {
        q = sim_plugin_api::Quat::new(-q.x, -q.y, -q.z, -q.w);
    }
    let s = (q.x * q.x + q.y * q.y + q.z * q.z).sqrt();
    if s < 1e-12 {
        return Vec3::ZERO;
    }
    let angle = 2.0 * s.atan2(q.w);
    let axis = Vec3::new(q.x / s, q.y / s, q.z / s);
    now.orientation.inverse().rotate(axis.scale(angle / dt))
}

/// The planar body velocity (forward, left) of a 2-D odometry: the x-y displacement from
/// `last` to `now` over `dt`, rotated by `now`'s yaw.
pub fn planar_velocity(last: Pose, now: Pose, dt: f64) -> (f64, f64) {
    let (dx, dy) = (
        now.position.x - last.position.x,
        now.position.y - last.position.y,
    );
    let yaw = now.orientation.to_rpy().2;
    let (s, c) = yaw.sin_cos();
    ((c * dx + s * dy) / dt, (c * dy - s * dx) / dt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::Quat;

    #[test]
    fn finite_differences_in_the_body_frame() {
        let last = Pose::new(Vec3::ZERO, Quat::from_rpy(0.0, 0.0, 1.0));
        let now = Pose::new(Vec3::new(0.0, 0.1, 0.0), Quat::from_rpy(0.0, 0.0, 1.02));
        let w = angular_velocity(last, now, 0.1);
        assert!((w - Vec3::new(0.0, 0.0, 0.2)).length() < 1e-9, "{w:?}");
        // Moving along world +y while facing yaw ~1 rad: mostly forward, some to the right.
        let (fwd, left) = planar_velocity(last, now, 0.1);
        assert!((fwd - 1.02f64.sin()).abs() < 1e-9 && (left - 1.02f64.cos()).abs() < 1e-9);
        // A roll seen in the body frame.
        let tilted = Pose::new(
            Vec3::ZERO,
            Quat::from_rpy(0.0, 0.0, std::f64::consts::FRAC_PI_2),
        );
        let rolled = Pose::new(
            Vec3::ZERO,
            Quat::from_rpy(0.0, 0.0, std::f64::consts::FRAC_PI_2) * Quat::from_rpy(0.01, 0.0, 0.0),
        );
        let w = angular_velocity(tilted, rolled, 0.01);
        assert!((w - Vec3::new(1.0, 0.0, 0.0)).length() < 1e-6, "{w:?}");
    }
}
