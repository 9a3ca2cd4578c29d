//! gz-sim's lift and drag model of a flat surface, free of any engine.

use sim_plugin_api::{Pose, Vec3};

/// The aerodynamic parameters of a surface (gz-sim's names and defaults in the README).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefficients {
    /// `<cla>`: lift slope, per rad.
    pub cla: f64,
    /// `<cda>`: drag slope, per rad.
    pub cda: f64,
    /// `<cma>`: moment slope, per rad.
    pub cma: f64,
    /// `<alpha_stall>`: stall angle, rad.
    pub alpha_stall: f64,
    /// `<cla_stall>`, `<cda_stall>`, `<cma_stall>`: slopes past the stall.
    pub cla_stall: f64,
    /// See `cla_stall`.
    pub cda_stall: f64,
    /// See `cla_stall`.
    pub cma_stall: f64,
    /// `<air_density>`, kg/m³.
    pub rho: f64,
    /// `<area>`, m².
    pub area: f64,
    /// `<a0>`: angle of attack at zero lift, rad.
    pub alpha0: f64,
    /// `<cp>`: centre of pressure in the link frame, m.
    pub cp: Vec3,
    /// `<forward>`: the surface's forward direction in the link frame (unit).
    pub forward: Vec3,
    /// `<upward>`: its upward (lift) direction in the link frame (unit).
    pub upward: Vec3,
    /// `<radial_symmetry>`: the upward direction follows the flow about `forward`.
    pub radial_symmetry: bool,
    /// `<reversible>`: also produce forces when the air comes from behind.
    pub reversible: bool,
    /// `<control_joint_rad_to_cl>`: lift coefficient per radian of the control joint.
    pub control_to_cl: f64,
    /// `<cm_delta>`: moment coefficient per radian of the control joint.
    pub cm_delta: f64,
}

/// The coefficient of a slope `k` (and `k_stall` past the stall) at `alpha`, scaled by
/// `cos²(sweep)`; `clamp_sign` keeps it on the side of the stall it is on, as gz-sim does for
/// lift and moment.
fn coefficient(k: f64, k_stall: f64, alpha: f64, stall: f64, cos2: f64, clamp_sign: bool) -> f64 {
    if alpha > stall {
        let c = (k * stall + k_stall * (alpha - stall)) * cos2;
        if clamp_sign { c.max(0.0) } else { c }
    } else if alpha < -stall {
        let c = (-k * stall + k_stall * (alpha + stall)) * cos2;
        if clamp_sign { c.min(0.0) } else { c }
    } else {
        k * alpha * cos2
    }
}

/// Folds an angle into [−π/2, π/2] by half turns.
fn fold(mut a: f64) -> f64 {
    use std::f64::consts::{FRAC_PI_2, PI};
    while a.abs() > FRAC_PI_2 {
        a = if a > 0.0 { a - PI } else { a + PI };
    }
    a
}

/// The force (world frame) and the torque about the link origin that the air applies to a
/// link at `pose` moving at `linear` (its origin's velocity) and `angular`, with the control
/// joint at `control` rad; `None` when the air speed at the centre of pressure is at most
/// 0.01 m/s, or (not reversible) the air comes from behind.
pub fn wrench(
    c: &Coefficients,
    pose: Pose,
    linear: Vec3,
    angular: Vec3,
    control: Option<f64>,
) -> Option<(Vec3, Vec3)> {
    let cp = pose.orientation.rotate(c.cp);
    let vel = linear + angular.cross(cp);
    if vel.length() <= 0.01 {
        return None;
    }
    let vel_dir = vel.normalized();
    let forward = pose.orientation.rotate(c.forward);
    if !c.reversible && forward.dot(vel) <= 0.0 {
        return None;
    }
    let upward = if c.radial_symmetry {
        forward.cross(forward.cross(vel_dir)).normalized()
    } else {
        pose.orientation.rotate(c.upward)
    };
    let spanwise = forward.cross(upward).normalized();
    let sin_sweep = spanwise.dot(vel_dir).clamp(-1.0, 1.0);
    let cos2 = 1.0 - sin_sweep * sin_sweep;
    let in_plane = vel - spanwise.scale(vel.dot(spanwise));
    let drag_dir = -in_plane.normalized();
    let lift_dir = spanwise.cross(in_plane).normalized();
    let angle = lift_dir.dot(upward).clamp(-1.0, 1.0).acos();
    let alpha = fold(if lift_dir.dot(forward) >= 0.0 {
        c.alpha0 + angle
    } else {
        c.alpha0 - angle
    });
    let speed = in_plane.length();
    let q = 0.5 * c.rho * speed * speed;
    let stall = c.alpha_stall;
    let mut cl = coefficient(c.cla, c.cla_stall, alpha, stall, cos2, true);
    let cd = coefficient(c.cda, c.cda_stall, alpha, stall, cos2, false).abs();
    let mut cm = coefficient(c.cma, c.cma_stall, alpha, stall, cos2, true);
    if let Some(j) = control {
        cl += c.control_to_cl * j;
        cm += c.cm_delta * j;
    }
    let lift = lift_dir.scale(cl * q * c.area);
    let drag = drag_dir.scale(cd * q * c.area);
    let moment = spanwise.scale(cm * q * c.area);
    let force = lift + drag;
    let finite = |v: Vec3| v.x.is_finite() && v.y.is_finite() && v.z.is_finite();
    if !finite(force) || !finite(moment) {
        return None;
    }
    Some((force, moment + cp.cross(force)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::Quat;

    pub(crate) const WING: Coefficients = Coefficients {
        cla: 4.0,
        cda: 0.5,
        cma: 0.0,
        alpha_stall: 0.3,
        cla_stall: -1.0,
        cda_stall: 1.0,
        cma_stall: 0.0,
        rho: 1.2,
        area: 2.0,
        alpha0: 0.0,
        cp: Vec3::ZERO,
        forward: Vec3::new(1.0, 0.0, 0.0),
        upward: Vec3::new(0.0, 0.0, 1.0),
        radial_symmetry: false,
        reversible: false,
        control_to_cl: 0.0,
        cm_delta: 0.0,
    };

    #[test]
    fn lift_at_a_small_angle_of_attack() {
        // Flying forward at 10 m/s with the air 0.1 rad from below.
        let a: f64 = 0.1;
        let v = Vec3::new(10.0 * a.cos(), 0.0, -10.0 * a.sin());
        let (f, t) = wrench(&WING, Pose::default(), v, Vec3::ZERO, None).unwrap();
        let q = 0.5 * 1.2 * 100.0;
        let lift = Vec3::new(a.sin(), 0.0, a.cos()).scale(4.0 * a * q * 2.0);
        let drag = v.normalized().scale(-0.5 * a * q * 2.0);
        assert!((f - (lift + drag)).length() < 1e-9, "{f:?}");
        assert!(t.length() < 1e-12);
        // Past the stall the lift slope turns down.
        let b: f64 = 0.4;
        let v = Vec3::new(10.0 * b.cos(), 0.0, -10.0 * b.sin());
        let (f, _) = wrench(&WING, Pose::default(), v, Vec3::ZERO, None).unwrap();
        let cl = 4.0 * 0.3 - 1.0 * 0.1;
        let up = Vec3::new(b.sin(), 0.0, b.cos());
        assert!((f.dot(up) - cl * q * 2.0).abs() < 1e-9);
    }

    #[test]
    fn no_force_from_behind_slow_air_and_the_lever_arm() {
        let back = Vec3::new(-10.0, 0.0, 0.0);
        assert!(wrench(&WING, Pose::default(), back, Vec3::ZERO, None).is_none());
        assert!(
            wrench(
                &WING,
                Pose::default(),
                Vec3::new(0.005, 0.0, 0.0),
                Vec3::ZERO,
                None
            )
            .is_none()
        );
        let reversible = Coefficients {
            reversible: true,
            ..WING
        };
        assert!(wrench(&reversible, Pose::default(), back, Vec3::ZERO, None).is_some());
        // A centre of pressure 1 m out along y: the force acts there.
        let off = Coefficients {
            cp: Vec3::new(0.0, 1.0, 0.0),
            ..WING
        };
        let v = Vec3::new(10.0, 0.0, -1.0);
        let (f, t) = wrench(
            &off,
            Pose::new(Vec3::ZERO, Quat::default()),
            v,
            Vec3::ZERO,
            None,
        )
        .unwrap();
        assert!((t - Vec3::new(0.0, 1.0, 0.0).cross(f)).length() < 1e-12);
        // The control joint adds lift.
        let flap = Coefficients {
            control_to_cl: 4.0,
            ..WING
        };
        let (f0, _) = wrench(&flap, Pose::default(), v, Vec3::ZERO, Some(0.0)).unwrap();
        let (f1, _) = wrench(&flap, Pose::default(), v, Vec3::ZERO, Some(0.1)).unwrap();
        assert!(f1.z > f0.z);
    }
}
