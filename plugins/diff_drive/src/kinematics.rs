//! The arithmetic of a differential drive, free of any engine: command limits, wheel speeds,
//! odometry from wheel rotation, and stall detection.

pub use simcore_plugin_common::SpeedLimiter;

/// Wheel angular speeds (left, right), rad/s, for a body moving at `linear` m/s and turning
/// at `angular` rad/s: `(v ∓ ω·separation/2) / radius`.
pub fn wheel_speeds(linear: f64, angular: f64, separation: f64, radius: f64) -> (f64, f64) {
    let half = angular * separation / 2.0;
    ((linear - half) / radius, (linear + half) / radius)
}

/// Planar dead reckoning from the rotation of the wheels, in the odometry frame (the body's
/// pose when odometry started: x forward, y left, yaw counter-clockwise).
#[derive(Clone, Debug, PartialEq)]
pub struct WheelOdometry {
    separation: f64,
    radius: f64,
    last: Option<(f64, f64)>,
    /// x, m.
    pub x: f64,
    /// y, m.
    pub y: f64,
    /// Heading, rad (not wrapped).
    pub yaw: f64,
}

impl WheelOdometry {
    /// Odometry at the origin for wheels `separation` apart of `radius`.
    pub fn new(separation: f64, radius: f64) -> Self {
        WheelOdometry {
            separation,
            radius,
            last: None,
            x: 0.0,
            y: 0.0,
            yaw: 0.0,
        }
    }

    /// Takes the wheels' current angles (left, right; rad, unwrapped) and integrates the motion
    /// since the previous call (the first call only records them). Returns the distance
    /// travelled by the body's centre and its change of heading.
    pub fn update(&mut self, left: f64, right: f64) -> (f64, f64) {
        let Some((l0, r0)) = self.last.replace((left, right)) else {
            return (0.0, 0.0);
        };
        let dl = (left - l0) * self.radius;
        let dr = (right - r0) * self.radius;
        let ds = (dl + dr) / 2.0;
        let dyaw = (dr - dl) / self.separation;
        if dyaw.abs() < 1e-9 {
            // Straight (or nearly): second-order (midpoint) integration.
            let mid = self.yaw + dyaw / 2.0;
            self.x += ds * mid.cos();
            self.y += ds * mid.sin();
        } else {
            // Exact integration along the arc of radius ds / dyaw.
            let r = ds / dyaw;
            let yaw1 = self.yaw + dyaw;
            self.x += r * (yaw1.sin() - self.yaw.sin());
            self.y -= r * (yaw1.cos() - self.yaw.cos());
        }
        self.yaw += dyaw;
        (ds, dyaw)
    }

    /// Forgets the wheels' angles and returns to the origin.
    pub fn reset(&mut self) {
        *self = WheelOdometry::new(self.separation, self.radius);
    }
}

/// Gain of [`WheelTracker`]'s correction, 1/s.
pub const TRACKING_GAIN: f64 = 10.0;
/// Largest angle error [`WheelTracker`] corrects, rad (no wind-up while a wheel is blocked).
pub const TRACKING_MAX_ERROR: f64 = 0.5;

/// Makes a wheel turn by the integral of its speed command, as a motor controller does: the
/// joint's velocity motor alone falls behind under load (scrubbing, climbing). It integrates
/// the commanded speed into a desired angle and adds [`TRACKING_GAIN`] times the angle error
/// (limited to [`TRACKING_MAX_ERROR`]) to the command.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WheelTracker {
    desired: Option<f64>,
}

impl WheelTracker {
    /// The velocity to command for speed `target` over the next `dt` seconds, given the wheel's
    /// angle `position` now (rad, unwrapped).
    pub fn command(&mut self, target: f64, position: f64, dt: f64) -> f64 {
        let desired = self.desired.get_or_insert(position);
        let error = (*desired - position).clamp(-TRACKING_MAX_ERROR, TRACKING_MAX_ERROR);
        // Keep the desired angle within reach, so that a blocked wheel does not wind up.
        *desired = position + error + target * dt;
        target + TRACKING_GAIN * error
    }

    /// Forgets the desired angle.
    pub fn reset(&mut self) {
        self.desired = None;
    }
}

/// Commanded wheel speeds below this (rad/s) never count as a stall.
pub const STALL_MIN_COMMAND: f64 = 0.05;
/// A wheel stalls while it turns at less than this fraction of its command...
pub const STALL_FRACTION: f64 = 0.1;
/// ...for longer than this, s.
pub const STALL_TIME: f64 = 0.5;

/// Reports when the wheels stop following their commands.
///
/// A wheel is *held* while its command is above [`STALL_MIN_COMMAND`] and its speed in the
/// commanded direction is below [`STALL_FRACTION`] of the command. The drive is stalled once
/// any wheel has been held for more than [`STALL_TIME`], and recovers as soon as no wheel is
/// held.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StallDetector {
    held_since: Vec<Option<f64>>,
    stalled: bool,
}

impl StallDetector {
    /// Whether the drive is stalled now.
    pub fn stalled(&self) -> bool {
        self.stalled
    }

    /// Takes each wheel's command and measured speed (rad/s) at time `now` (s). Returns the
    /// new state when it changed.
    pub fn update(&mut self, now: f64, wheels: &[(f64, f64)]) -> Option<bool> {
        self.held_since.resize(wheels.len(), None);
        let mut any_held = false;
        let mut stalled = false;
        for ((command, speed), since) in wheels.iter().zip(&mut self.held_since) {
            let held = command.abs() > STALL_MIN_COMMAND
                && speed * command.signum() < STALL_FRACTION * command.abs();
            if held {
                any_held = true;
                let t0 = *since.get_or_insert(now);
                stalled |= now - t0 > STALL_TIME;
            } else {
                *since = None;
            }
        }
        let next = if self.stalled { any_held } else { stalled };
        (next != self.stalled).then(|| {
            self.stalled = next;
            next
        })
    }

    /// Forgets all history.
    pub fn reset(&mut self) {
        *self = StallDetector::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wheel_speeds_of_straight_and_turning_motion() {
        assert_eq!(wheel_speeds(0.5, 0.0, 0.4, 0.1), (5.0, 5.0));
        let (l, r) = wheel_speeds(0.0, 1.0, 0.4, 0.1);
        assert!((l + 2.0).abs() < 1e-12 && (r - 2.0).abs() < 1e-12);
        let (l, r) = wheel_speeds(1.0, 1.0, 0.5, 0.25);
        assert!((l - 3.0).abs() < 1e-12 && (r - 5.0).abs() < 1e-12);
    }

    #[test]
    fn odometry_straight_turn_and_arc() {
        let mut o = WheelOdometry::new(0.4, 0.1);
        assert_eq!(o.update(3.0, 3.0), (0.0, 0.0));
        for i in 1..=100 {
            let a = 3.0 + 0.1 * i as f64;
            o.update(a, a);
        }
        assert!((o.x - 1.0).abs() < 1e-9 && o.y.abs() < 1e-12 && o.yaw == 0.0);

        // Turning in place: each wheel rolls sep/2·θ.
        let mut o = WheelOdometry::new(0.4, 0.1);
        o.update(0.0, 0.0);
        for i in 1..=100 {
            let a = 0.02 * i as f64; // wheel angle; body turns a·r/(sep/2)
            o.update(-a, a);
        }
        assert!((o.yaw - 1.0).abs() < 1e-9 && o.x.abs() < 1e-9 && o.y.abs() < 1e-9);

        // A quarter circle of radius 1 m: ends at (1, 1) facing +y.
        let (sep, r) = (0.4, 0.1);
        let mut o = WheelOdometry::new(sep, r);
        o.update(0.0, 0.0);
        let arc = std::f64::consts::FRAC_PI_2;
        for i in 1..=1000 {
            let t = arc * i as f64 / 1000.0;
            o.update(t * (1.0 - sep / 2.0) / r, t * (1.0 + sep / 2.0) / r);
        }
        assert!((o.x - 1.0).abs() < 1e-9, "{}", o.x);
        assert!((o.y - 1.0).abs() < 1e-9, "{}", o.y);
        assert!((o.yaw - arc).abs() < 1e-9);
    }

    #[test]
    fn tracker_corrects_lag_without_wind_up() {
        let mut t = WheelTracker::default();
        // A wheel that only reaches 90 % of what it is told still turns by the integral.
        let (mut angle, dt) = (0.0, 0.001);
        for _ in 0..2000 {
            let v = t.command(1.0, angle, dt);
            angle += 0.9 * v * dt;
        }
        assert!((angle - 2.0).abs() < 0.02, "{angle}");
        // A blocked wheel: the correction is bounded.
        let mut t = WheelTracker::default();
        let mut v = 0.0;
        for _ in 0..5000 {
            v = t.command(1.0, 0.0, dt);
        }
        assert!(
            (v - (1.0 + TRACKING_GAIN * TRACKING_MAX_ERROR)).abs() < 1e-9,
            "{v}"
        );
        t.reset();
        assert_eq!(t.command(1.0, 3.0, dt), 1.0);
    }

    #[test]
    fn stall_after_half_a_second_and_recovery() {
        let mut s = StallDetector::default();
        // Following the command: no stall.
        for i in 0..1000 {
            assert_eq!(s.update(i as f64 * 0.001, &[(5.0, 4.9), (5.0, 5.0)]), None);
        }
        // Accelerating slowly is fine as long as it exceeds 10 %.
        assert_eq!(s.update(1.0, &[(5.0, 0.6), (5.0, 0.6)]), None);
        // One wheel blocked: stalled after 0.5 s.
        let mut changed = Vec::new();
        for i in 0..=700 {
            let t = 1.0 + i as f64 * 0.001;
            if let Some(v) = s.update(t, &[(5.0, 0.2), (5.0, 5.0)]) {
                changed.push((t, v));
            }
        }
        assert_eq!(changed.len(), 1);
        assert!(
            changed[0].1 && (changed[0].0 - 1.501).abs() < 1e-9,
            "{changed:?}"
        );
        assert!(s.stalled());
        // Turning backwards against the command also counts as held.
        assert_eq!(s.update(1.8, &[(-5.0, 1.0), (5.0, 5.0)]), None);
        // Recovers at once.
        assert_eq!(s.update(1.9, &[(5.0, 5.0), (5.0, 5.0)]), Some(false));
        // Zero commands never stall.
        for i in 0..2000 {
            assert_eq!(
                s.update(2.0 + i as f64 * 0.001, &[(0.0, 0.0), (0.01, 0.0)]),
                None
            );
        }
    }
}
