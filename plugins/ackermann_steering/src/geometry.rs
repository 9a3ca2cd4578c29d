//! The geometry of Ackermann steering, as gz-sim computes it: the turning radius of a
//! command, the steering angle of each side, and the wheel speeds on that circle. The radius is
//! measured from the turning centre to the middle of the rear axle, positive to the left.

/// What a vehicle does for one command: steering joint angles and wheel speeds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Steer {
    /// Left steering joint angle, rad.
    pub left_angle: f64,
    /// Right steering joint angle, rad.
    pub right_angle: f64,
    /// Left wheel joint speed, rad/s.
    pub left_speed: f64,
    /// Right wheel joint speed, rad/s.
    pub right_speed: f64,
}

/// The vehicle's dimensions (gz-sim's parameters, m and rad).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dimensions {
    /// `<wheel_separation>`: between the left and right wheels.
    pub wheel_separation: f64,
    /// `<kingpin_width>`: between the left and right steering axes.
    pub kingpin_width: f64,
    /// `<wheel_base>`: between the front and rear axles.
    pub wheel_base: f64,
    /// `<steering_limit>`: the largest steering angle of the virtual middle wheel.
    pub steering_limit: f64,
    /// `<wheel_radius>`.
    pub wheel_radius: f64,
}

/// The radius gz-sim's turning circle has for a speed of `v` m/s at a yaw rate of `w` rad/s:
/// `v / w`, no tighter than `wheel_base / sin(steering_limit)`; a yaw rate below 0.001 rad/s
/// drives straight (a radius of 10⁹ m), a turn on the spot is the tightest circle.
pub fn turning_radius(d: &Dimensions, v: f64, w: f64) -> f64 {
    let minimum = d.wheel_base / d.steering_limit.sin();
    if w.abs() < 0.001 {
        return 1e9;
    }
    if v.abs() > 0.0 {
        let r = v / w;
        if r >= 0.0 {
            r.max(minimum)
        } else {
            r.min(-minimum)
        }
    } else {
        w.signum() * minimum
    }
}

/// Steering angles and wheel speeds for speed `v` on a circle of `radius`.
pub fn steer(d: &Dimensions, v: f64, radius: f64) -> Steer {
    let half_kingpin = d.kingpin_width / 2.0;
    let phi = (d.wheel_base / radius).atan();
    let side = d.wheel_separation * phi.tan() / (2.0 * d.wheel_base);
    Steer {
        left_angle: (d.wheel_base / (radius - half_kingpin)).atan(),
        right_angle: (d.wheel_base / (radius + half_kingpin)).atan(),
        left_speed: v * (1.0 - side) / d.wheel_radius,
        right_speed: v * (1.0 + side) / d.wheel_radius,
    }
}

/// Steering joint angles (left, right) of steering-only mode for the middle angle `angle`
/// (limited to `steering_limit`).
pub fn steering_angles(d: &Dimensions, angle: f64) -> (f64, f64) {
    let a = angle.clamp(-d.steering_limit, d.steering_limit);
    let (s, c) = a.sin_cos();
    let l = 2.0 * d.wheel_base;
    (
        (l * s / (l * c - d.wheel_separation * s)).atan(),
        (l * s / (l * c + d.wheel_separation * s)).atan(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAR: Dimensions = Dimensions {
        wheel_separation: 1.2,
        kingpin_width: 1.0,
        wheel_base: 1.5,
        steering_limit: 0.5,
        wheel_radius: 0.3,
    };

    #[test]
    fn radius_of_a_command() {
        assert_eq!(turning_radius(&CAR, 1.0, 0.0), 1e9);
        assert!((turning_radius(&CAR, 2.0, 0.5) - 4.0).abs() < 1e-12);
        assert!((turning_radius(&CAR, -2.0, 0.5) + 4.0).abs() < 1e-12);
        let min = 1.5 / 0.5f64.sin();
        assert!((turning_radius(&CAR, 1.0, 5.0) - min).abs() < 1e-12);
        assert!((turning_radius(&CAR, 0.0, -1.0) + min).abs() < 1e-12);
    }

    #[test]
    fn each_wheel_points_at_the_turning_centre() {
        let r = 4.0;
        let s = steer(&CAR, 2.0, r);
        // A steering axis at (wheel_base, ±kingpin/2) from the rear axle's middle points its
        // wheel perpendicular to the line to the centre (0, r).
        assert!((s.left_angle - (1.5f64 / (r - 0.5)).atan()).abs() < 1e-12);
        assert!((s.right_angle - (1.5f64 / (r + 0.5)).atan()).abs() < 1e-12);
        assert!(s.left_angle > s.right_angle, "the inner wheel steers more");
        // The rear wheels roll on circles of r ∓ separation / 2.
        assert!((s.left_speed * 0.3 - 2.0 * (r - 0.6) / r).abs() < 1e-12);
        assert!((s.right_speed * 0.3 - 2.0 * (r + 0.6) / r).abs() < 1e-12);
        let (l, rr) = steering_angles(&CAR, 0.3);
        assert!(l > 0.3 && rr < 0.3 && rr > 0.0);
        assert_eq!(steering_angles(&CAR, 2.0), steering_angles(&CAR, 0.5));
    }
}
