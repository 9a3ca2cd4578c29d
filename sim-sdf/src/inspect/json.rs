//! The JSON value `inspect` writes ([`J`], keys in insertion order) and its numbers and
//! angles as the oracle prints them.

use std::fmt::Write as _;

use sim_world::{Pose, Vec3};

/// A JSON value that keeps its keys in insertion order.
#[derive(Clone, Debug)]
pub(super) enum J {
    Null,
    Bool(bool),
    Num(f64),
    Int(i64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(&'static str, J)>),
}

impl J {
    pub(super) fn s(v: impl Into<String>) -> J {
        J::Str(v.into())
    }
    pub(super) fn nums(v: &[f64]) -> J {
        J::Arr(v.iter().map(|x| J::Num(*x)).collect())
    }
    pub(super) fn vec3(v: Vec3) -> J {
        J::nums(&v.to_array())
    }
    pub(super) fn pose(p: Pose) -> J {
        let (r, pi, y) = rpy(p);
        J::nums(&[p.position.x, p.position.y, p.position.z, r, pi, y])
    }
}

/// Extrinsic X-Y-Z angles (R = Rz(yaw) Ry(pitch) Rx(roll)) of a pose's rotation, from its
/// matrix; at (or within 1e-7 rad of) pitch = ±pi/2, where only roll ∓ yaw is defined, yaw
/// is 0 (as ignition-math does).
pub(super) fn rpy(p: Pose) -> (f64, f64, f64) {
    let m = p.orientation.normalized().to_matrix();
    let cp = m[0][0].hypot(m[1][0]);
    let pitch = (-m[2][0]).atan2(cp);
    if cp > 1e-7 {
        (m[2][1].atan2(m[2][2]), pitch, m[1][0].atan2(m[0][0]))
    } else if m[2][0] < 0.0 {
        // pitch = +pi/2: m01 = sin(roll - yaw), m11 = cos(roll - yaw).
        (m[0][1].atan2(m[1][1]), pitch, 0.0)
    } else {
        // pitch = -pi/2: m01 = -sin(roll + yaw), m11 = cos(roll + yaw).
        ((-m[0][1]).atan2(m[1][1]), pitch, 0.0)
    }
}

/// `%.12g` as C prints it; values below 1e-12 in magnitude are `0`.
pub(super) fn num(v: f64) -> String {
    if v.is_nan() {
        return "\"nan\"".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "\"inf\"" } else { "\"-inf\"" }.into();
    }
    if v.abs() < 1e-12 {
        return "0".into();
    }
    let sci = format!("{:.11e}", v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-5..12).contains(&exp) {
        let decimals = (11 - exp).max(0) as usize;
        trim(&format!("{v:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    }
}

/// Writes `v` as JSON, its nested lines indented by `indent` levels.
pub(super) fn write(out: &mut String, v: &J, indent: usize) {
    let pad = "  ".repeat(indent + 1);
    let end = "  ".repeat(indent);
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(x) => out.push_str(&num(*x)),
        J::Int(i) => {
            let _ = write!(out, "{i}");
        }
        J::Str(s) => out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())),
        J::Arr(a) if a.is_empty() => out.push_str("[]"),
        J::Arr(a) if a.iter().all(|x| matches!(x, J::Num(_) | J::Int(_))) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(out, x, indent);
            }
            out.push(']');
        }
        J::Arr(a) => {
            out.push_str("[\n");
            for (i, x) in a.iter().enumerate() {
                out.push_str(&pad);
                write(out, x, indent + 1);
                out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            out.push_str(&end);
            out.push(']');
        }
        J::Obj(o) if o.is_empty() => out.push_str("{}"),
        J::Obj(o) => {
            out.push_str("{\n");
            for (i, (k, x)) in o.iter().enumerate() {
                let _ = write!(out, "{pad}\"{k}\": ");
                write(out, x, indent + 1);
                out.push_str(if i + 1 < o.len() { ",\n" } else { "\n" });
            }
            out.push_str(&end);
            out.push('}');
        }
    }
}

/// `scope::name`, or `name` at the top.
pub(super) fn scoped(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}::{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_world::{Pose, Vec3};

    #[test]
    fn numbers_print_as_printf_g12() {
        for (v, s) in [
            (0.0, "0"),
            (1e-13, "0"),
            (1.0, "1"),
            (-9.8, "-9.8"),
            (0.1 + 0.2, "0.3"),
            (6e-06, "6e-06"),
            (std::f64::consts::FRAC_PI_2, "1.57079632679"),
            (1e16, "1e+16"),
            (123456789012.0, "123456789012"),
            (1234567890123.0, "1.23456789012e+12"),
            (f64::INFINITY, "\"inf\""),
        ] {
            assert_eq!(num(v), s, "{v}");
        }
    }

    #[test]
    fn angles_survive_gimbal_lock() {
        use sim_world::Quat;
        for (r, pi, y) in [
            (0.0, std::f64::consts::FRAC_PI_2, -0.349),
            (0.3, -std::f64::consts::FRAC_PI_2, 0.2),
            (0.1, 0.2, 0.3),
            (3.0, -1.2, -2.5),
        ] {
            let q = Quat::from_rpy(r, pi, y);
            let (a, b, c) = rpy(Pose::new(Vec3::ZERO, q));
            let (m, n) = (q.to_matrix(), Quat::from_rpy(a, b, c).to_matrix());
            for i in 0..3 {
                for j in 0..3 {
                    assert!(
                        (m[i][j] - n[i][j]).abs() < 1e-9,
                        "{r} {pi} {y} -> {a} {b} {c}"
                    );
                }
            }
        }
    }
}
