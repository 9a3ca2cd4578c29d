//! The arithmetic of a mecanum drive, as gz-sim and gz-math compute it: wheel speeds of a
//! body twist, and odometry from wheel rotation.

use simcore_plugin_common::RollingMean;

/// Wheel joint speeds (front left, front right, back left, back right), rad/s, for a body
/// moving at `forward` and `left` m/s and turning at `yaw` rad/s, with `a` the half sum of the
/// wheel separation and the wheel base: `(v ∓ l ∓ ω a) / r` in gz-sim's sign pattern.
pub fn wheel_speeds(forward: f64, left: f64, yaw: f64, a: f64, radius: f64) -> [f64; 4] {
    let w = yaw * a;
    [
        (forward - left - w) / radius,
        (forward + left + w) / radius,
        (forward + left - w) / radius,
        (forward - left + w) / radius,
    ]
}

/// Planar dead reckoning from the rotation of the four wheels (gz-math's
/// `MecanumDriveOdometry`): x forward, y left, yaw counter-clockwise from the pose at the first
/// update; velocities are rolling means over the last 10 updates.
#[derive(Clone, Debug, PartialEq)]
pub struct MecanumOdometry {
    a: f64,
    radius: f64,
    last: Option<[f64; 4]>,
    means: [RollingMean; 3],
    /// x, m.
    pub x: f64,
    /// y, m.
    pub y: f64,
    /// Heading, rad (not wrapped).
    pub yaw: f64,
}

impl MecanumOdometry {
    /// Odometry at the origin for wheels of `radius` with `a` the half sum of separation and
    /// base.
    pub fn new(a: f64, radius: f64) -> Self {
        MecanumOdometry {
            a,
            radius,
            last: None,
            means: std::array::from_fn(|_| RollingMean::new(10)),
            x: 0.0,
            y: 0.0,
            yaw: 0.0,
        }
    }

    /// Advances by the wheels' angles (rad, in [`wheel_speeds`] order) after `dt` seconds.
    pub fn update(&mut self, wheels: [f64; 4], dt: f64) {
        let Some(last) = self.last.replace(wheels) else {
            return;
        };
        let [fl, fr, bl, br]: [f64; 4] =
            std::array::from_fn(|i| (wheels[i] - last[i]) * self.radius);
        let forward = (fl + fr + bl + br) * 0.25;
        let left = (-fl + fr + bl - br) * 0.25;
        let turn = (-fl + fr - bl + br) / (4.0 * self.a);
        let h0 = self.yaw;
        if turn.abs() < 1e-6 {
            let mid = h0 + turn * 0.5;
            self.x += forward * mid.cos() - left * mid.sin();
            self.y += forward * mid.sin() + left * mid.cos();
        } else {
            let h1 = h0 + turn;
            let (rv, rl) = (forward / turn, left / turn);
            self.x += rv * (h1.sin() - h0.sin()) + rl * (h1.cos() - h0.cos());
            self.y += -rv * (h1.cos() - h0.cos()) + rl * (h1.sin() - h0.sin());
        }
        self.yaw += turn;
        if dt > 0.0 {
            for (m, d) in self.means.iter_mut().zip([forward, left, turn]) {
                m.push(d / dt);
            }
        }
    }

    /// The mean forward, sideways and yaw velocities.
    pub fn velocities(&self) -> (f64, f64, f64) {
        (
            self.means[0].mean(),
            self.means[1].mean(),
            self.means[2].mean(),
        )
    }

    /// Back to the origin, no history.
    pub fn reset(&mut self) {
        *self = MecanumOdometry::new(self.a, self.radius);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odometry_inverts_the_wheel_speeds() {
        let (a, r, dt) = (0.5, 0.1, 0.001);
        for (v, l, w) in [(1.0, 0.0, 0.0), (0.0, 0.5, 0.0), (0.3, -0.2, 0.8)] {
            let speeds = wheel_speeds(v, l, w, a, r);
            let mut o = MecanumOdometry::new(a, r);
            let mut angles = [0.0; 4];
            o.update(angles, dt);
            for _ in 0..1000 {
                for (x, s) in angles.iter_mut().zip(speeds) {
                    *x += s * dt;
                }
                o.update(angles, dt);
            }
            let (fv, fl, fw) = o.velocities();
            assert!((fv - v).abs() < 1e-9 && (fl - l).abs() < 1e-9 && (fw - w).abs() < 1e-9);
            // One second of the body twist, integrated exactly.
            let (ex, ey) = if w == 0.0 {
                (v, l)
            } else {
                (
                    (v * w.sin() + l * (w.cos() - 1.0)) / w,
                    (v * (1.0 - w.cos()) + l * w.sin()) / w,
                )
            };
            assert!((o.x - ex).abs() < 1e-9 && (o.y - ey).abs() < 1e-9, "{o:?}");
            assert!((o.yaw - w).abs() < 1e-9);
        }
    }
}
