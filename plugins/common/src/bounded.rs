//! The numbers a command may carry, checked before it is queued, so that a request with NaN,
//! an infinity or an absurd value (1e300) is refused with a reply or a warning naming the
//! field, and never poisons the world. The bounds are the engine's, which refuses such
//! commands too (`sim_core::physics::PhysicsCommand::check`); a plugin checks first so that
//! its reply tells the truth.

use sim_plugin_api::{LogLevel, Pose, Vec3, WorldRef, msgs::Twist};

/// The largest position, in metres from the world's origin, a command may set.
pub const MAX_POSITION: f64 = 1.0e6;

/// The largest magnitude of any other number in a command (velocities, forces, targets).
pub const MAX_MAGNITUDE: f64 = 1.0e12;

/// Why `value`, the field `field`, cannot be used: not finite, or larger than `max`.
fn problem(field: &str, value: f64, max: f64) -> Option<String> {
    (!(value.is_finite() && value.abs() <= max)).then(|| {
        format!("`{field}` is {value:e}; it must be a finite number of magnitude at most {max:e}")
    })
}

fn vec_problem(prefix: &str, v: Vec3, max: f64) -> Option<String> {
    [("x", v.x), ("y", v.y), ("z", v.z)]
        .into_iter()
        .find_map(|(axis, value)| problem(&format!("{prefix}.{axis}"), value, max))
}

/// Why `pose` cannot be set: the first field that is not finite or out of range (the
/// position within [`MAX_POSITION`]), or a zero rotation.
pub fn pose_problem(pose: &Pose) -> Option<String> {
    let q = pose.orientation;
    vec_problem("position", pose.position, MAX_POSITION)
        .or_else(|| {
            [("x", q.x), ("y", q.y), ("z", q.z), ("w", q.w)]
                .into_iter()
                .find_map(|(c, v)| problem(&format!("orientation.{c}"), v, MAX_MAGNITUDE))
        })
        .or_else(|| {
            ((q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt() < 1e-9)
                .then(|| "`orientation` is a zero quaternion".to_string())
        })
}

/// Why `twist` cannot be followed: the first field that is not finite or out of range.
pub fn twist_problem(twist: &Twist) -> Option<String> {
    vec_problem("linear", twist.linear, MAX_MAGNITUDE)
        .or_else(|| vec_problem("angular", twist.angular, MAX_MAGNITUDE))
}

/// Whether a command value (a joint target, a steering angle) is usable: finite and of
/// magnitude at most [`MAX_MAGNITUDE`].
pub fn bounded_value(value: f64) -> bool {
    problem("", value, MAX_MAGNITUDE).is_none()
}

/// Whether the `Twist` received on `topic` can be followed ([`twist_problem`]); one that
/// cannot is logged as a warning naming the topic and the field, and the caller keeps its
/// last command.
pub fn accepted_twist(world: &WorldRef<'_>, topic: &str, twist: &Twist) -> bool {
    match twist_problem(twist) {
        None => true,
        Some(problem) => {
            world.log_message(
                LogLevel::WARN,
                &format!("{topic}: Twist refused: {problem}"),
            );
            false
        }
    }
}

/// Whether the `Double` command `value` received on `topic` can be followed
/// ([`bounded_value`]); one that cannot is logged as a warning naming the topic, and the
/// caller keeps its last command.
pub fn accepted_value(world: &WorldRef<'_>, topic: &str, value: f64) -> bool {
    match problem("data", value, MAX_MAGNITUDE) {
        None => true,
        Some(problem) => {
            world.log_message(
                LogLevel::WARN,
                &format!("{topic}: Double refused: {problem}"),
            );
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_first_bad_field() {
        let mut t = Twist::default();
        assert_eq!(twist_problem(&t), None);
        t.angular.z = f64::NAN;
        assert!(twist_problem(&t).unwrap().starts_with("`angular.z` is NaN"));
        t.linear.y = 1e300;
        assert!(
            twist_problem(&t)
                .unwrap()
                .starts_with("`linear.y` is 1e300")
        );
        let mut p = Pose::IDENTITY;
        assert_eq!(pose_problem(&p), None);
        p.position.z = 2e6;
        assert!(pose_problem(&p).unwrap().contains("`position.z`"));
        p.position.z = 0.0;
        p.orientation.w = 0.0;
        assert!(pose_problem(&p).unwrap().contains("zero quaternion"));
        assert!(bounded_value(-MAX_MAGNITUDE) && bounded_value(0.0));
        assert!(!bounded_value(1e300) && !bounded_value(f64::NAN));
        assert!(!bounded_value(f64::NEG_INFINITY));
    }
}
