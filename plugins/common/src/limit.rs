//! Limits on a commanded speed: bounds on its value and on its rate of change (gz-math's
//! `SpeedLimiter` without the jerk limit), as the drive systems apply them.

/// Limits of one command component (linear or angular velocity): bounds on the value and on
/// its rate of change.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SpeedLimiter {
    /// Smallest velocity (usually negative).
    pub min_velocity: f64,
    /// Largest velocity.
    pub max_velocity: f64,
    /// Smallest rate of change per second (usually negative: the largest deceleration).
    pub min_acceleration: f64,
    /// Largest rate of change per second.
    pub max_acceleration: f64,
}

impl SpeedLimiter {
    /// No limits.
    pub const UNLIMITED: SpeedLimiter = SpeedLimiter {
        min_velocity: f64::NEG_INFINITY,
        max_velocity: f64::INFINITY,
        min_acceleration: f64::NEG_INFINITY,
        max_acceleration: f64::INFINITY,
    };

    /// The command to apply for `target` when `previous` was applied `dt` seconds ago:
    /// `target` clamped to the velocity bounds, then moved from `previous` by no more than
    /// the acceleration bounds allow in `dt`.
    pub fn limit(&self, target: f64, previous: f64, dt: f64) -> f64 {
        let v = target.clamp(self.min_velocity, self.max_velocity);
        let dv = (v - previous).clamp(self.min_acceleration * dt, self.max_acceleration * dt);
        previous + dv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limiter_clamps_and_ramps() {
        let l = SpeedLimiter {
            min_velocity: -0.5,
            max_velocity: 1.0,
            min_acceleration: -2.0,
            max_acceleration: 1.0,
        };
        assert_eq!(l.limit(5.0, 1.0, 0.01), 1.0);
        assert_eq!(l.limit(-5.0, -0.5, 0.01), -0.5);
        assert!((l.limit(1.0, 0.0, 0.1) - 0.1).abs() < 1e-12);
        assert!((l.limit(-0.5, 0.5, 0.1) - 0.3).abs() < 1e-12);
        assert_eq!(SpeedLimiter::UNLIMITED.limit(7.0, 0.0, 0.001), 7.0);
        // Ramping up to 1 m/s at 1 m/s² takes 1 s.
        let mut v = 0.0;
        for _ in 0..500 {
            v = l.limit(1.0, v, 0.001);
        }
        assert!((v - 0.5).abs() < 1e-9);
    }
}
