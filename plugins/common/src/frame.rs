//! The motion of a sensor's own frame.
//!
//! The engine reports the motion of links; a sensor sits at a fixed pose in its link
//! (`<sensor><pose>`). For a rigid link with world pose `(p_wl, R_wl)`, velocity `v` of its
//! origin, angular velocity `ω`, acceleration `a` of its origin and angular acceleration `α`,
//! and the sensor at `(p_ls, R_ls)` in the link, with the lever arm `r = R_wl · p_ls`:
//!
//! - pose: `(p_wl + r, R_wl · R_ls)`;
//! - velocity of the sensor origin: `v + ω × r`;
//! - acceleration of the sensor origin: `a + α × r + ω × (ω × r)`;
//! - angular velocity and acceleration: those of the link.

use sim_plugin_api::{KinematicState, Pose};

/// The motion of a frame at `pose_in_link` on a link moving as `link` (all world frame).
pub fn sensor_frame(link: &KinematicState, pose_in_link: Pose) -> KinematicState {
    link.at_offset(pose_in_link)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{Quat, Vec3};
    use std::f64::consts::FRAC_PI_2;

    fn close(a: Vec3, b: Vec3) {
        assert!((a - b).length() < 1e-12, "{a:?} != {b:?}");
    }

    #[test]
    fn offset_frame_on_a_spinning_link() {
        // Link at (1, 2, 3) yawed +90°, spinning at 2 rad/s about z, moving at (0, 0, -1).
        let link = KinematicState {
            pose: Pose::new(
                Vec3::new(1.0, 2.0, 3.0),
                Quat::from_rpy(0.0, 0.0, FRAC_PI_2),
            ),
            linear_velocity: Vec3::new(0.0, 0.0, -1.0),
            angular_velocity: Vec3::new(0.0, 0.0, 2.0),
            linear_acceleration: Vec3::new(0.0, 0.0, -9.8),
            angular_acceleration: Vec3::new(0.0, 0.0, 1.0),
        };
        // Sensor 0.5 m along the link's +x (world +y), pitched.
        let s = sensor_frame(
            &link,
            Pose::new(Vec3::new(0.5, 0.0, 0.0), Quat::from_rpy(0.0, 0.3, 0.0)),
        );
        close(s.pose.position, Vec3::new(1.0, 2.5, 3.0));
        // ω × r = (0,0,2) × (0,0.5,0) = (-1, 0, 0).
        close(s.linear_velocity, Vec3::new(-1.0, 0.0, -1.0));
        // α × r = (-0.5, 0, 0); ω × (ω × r) = (0,0,2) × (-1,0,0) = (0, -2, 0).
        close(s.linear_acceleration, Vec3::new(-0.5, -2.0, -9.8));
        close(s.angular_velocity, link.angular_velocity);
        let expected = Quat::from_rpy(0.0, 0.0, FRAC_PI_2) * Quat::from_rpy(0.0, 0.3, 0.0);
        close(
            s.pose.orientation.rotate(Vec3::new(1.0, 0.0, 0.0)),
            expected.rotate(Vec3::new(1.0, 0.0, 0.0)),
        );
    }
}
