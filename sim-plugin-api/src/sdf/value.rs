//! The types an SDF value reads as: the [`FromSdf`] implementations.

use super::element::{Element, FromSdf};
use crate::math::{Pose, Quat, Vec3};
use std::borrow::Cow;

/// A finite `f64`, surrounding whitespace allowed.
fn finite(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Exactly `N` finite numbers separated by whitespace.
fn numbers<const N: usize>(text: &str) -> Option<[f64; N]> {
    let mut out = [0.0; N];
    let mut words = text.split_whitespace();
    for slot in &mut out {
        *slot = finite(words.next()?)?;
    }
    words.next().is_none().then_some(out)
}

impl FromSdf for f64 {
    fn expected() -> Cow<'static, str> {
        "a finite number".into()
    }
    fn from_text(text: &str) -> Option<Self> {
        finite(text)
    }
}

impl FromSdf for f32 {
    fn expected() -> Cow<'static, str> {
        "a finite number".into()
    }
    fn from_text(text: &str) -> Option<Self> {
        text.trim().parse::<f32>().ok().filter(|v| v.is_finite())
    }
}

macro_rules! integer {
    ($($t:ty => $what:expr),* $(,)?) => {$(
        impl FromSdf for $t {
            fn expected() -> Cow<'static, str> {
                $what.into()
            }
            fn from_text(text: &str) -> Option<Self> {
                text.trim().parse::<$t>().ok()
            }
        }
    )*};
}

integer! {
    i64 => "a whole number",
    i32 => "a whole number from -2147483648 to 2147483647",
    u64 => "a whole number from 0 to 18446744073709551615",
    u32 => "a whole number from 0 to 4294967295",
}

impl FromSdf for bool {
    fn expected() -> Cow<'static, str> {
        "true, false, 1 or 0".into()
    }
    fn from_text(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => Some(true),
            "false" | "0" => Some(false),
            _ => None,
        }
    }
}

impl FromSdf for String {
    fn expected() -> Cow<'static, str> {
        "text".into()
    }
    fn from_text(text: &str) -> Option<Self> {
        Some(text.trim().to_string())
    }
}

impl FromSdf for Vec3 {
    fn expected() -> Cow<'static, str> {
        "three numbers (x y z)".into()
    }
    fn from_text(text: &str) -> Option<Self> {
        numbers::<3>(text).map(|[x, y, z]| Vec3::new(x, y, z))
    }
}

/// An SDF pose: `x y z roll pitch yaw` (radians; degrees with `degrees="true"`), or
/// `x y z qx qy qz qw` with `rotation_format="quat_xyzw"`; empty text is the identity. The
/// `relative_to` attribute is left to the plugin ([`Element::attribute`]).
impl FromSdf for Pose {
    fn expected() -> Cow<'static, str> {
        "six numbers (x y z roll pitch yaw)".into()
    }
    fn from_text(text: &str) -> Option<Self> {
        euler(text, false)
    }
    fn from_element(e: &Element<'_, '_>) -> Result<Self, Cow<'static, str>> {
        let degrees = match e.attribute("degrees") {
            None => false,
            Some(d) => bool::from_text(d).ok_or(Cow::Borrowed(
                "a pose whose degrees attribute is true, false, 1 or 0",
            ))?,
        };
        match e.attribute("rotation_format").map(str::trim) {
            None | Some("euler_rpy") => euler(e.text(), degrees).ok_or_else(|| match degrees {
                true => "six numbers (x y z roll pitch yaw, angles in degrees)".into(),
                false => Self::expected(),
            }),
            Some("quat_xyzw") if !degrees => quaternion(e.text()).ok_or(Cow::Borrowed(
                "seven numbers (x y z qx qy qz qw) with a non-zero quaternion",
            )),
            Some("quat_xyzw") => Err("a quat_xyzw pose without degrees=\"true\"".into()),
            Some(_) => Err("a pose whose rotation_format is euler_rpy or quat_xyzw".into()),
        }
    }
}

fn euler(text: &str, degrees: bool) -> Option<Pose> {
    if text.trim().is_empty() {
        return Some(Pose::IDENTITY);
    }
    let [x, y, z, mut r, mut p, mut w] = numbers::<6>(text)?;
    if degrees {
        (r, p, w) = (r.to_radians(), p.to_radians(), w.to_radians());
    }
    Some(Pose::from_xyz_rpy(x, y, z, r, p, w))
}

fn quaternion(text: &str) -> Option<Pose> {
    if text.trim().is_empty() {
        return Some(Pose::IDENTITY);
    }
    let [x, y, z, qx, qy, qz, qw] = numbers::<7>(text)?;
    let norm = (qx * qx + qy * qy + qz * qz + qw * qw).sqrt();
    (norm > 1e-12).then(|| Pose::new(Vec3::new(x, y, z), Quat::new(qx, qy, qz, qw).normalized()))
}

/// An SDF colour: red, green, blue and alpha from 0 to 1.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Color {
    /// Red, 0 to 1.
    pub r: f32,
    /// Green, 0 to 1.
    pub g: f32,
    /// Blue, 0 to 1.
    pub b: f32,
    /// Alpha (opacity), 0 to 1.
    pub a: f32,
}

impl Default for Color {
    /// Opaque black, SDF's default colour.
    fn default() -> Self {
        Color {
            r: 0.0,
            g: 0.0,
            b: 0.0,
            a: 1.0,
        }
    }
}

/// `r g b a`, or `r g b` (opaque), each from 0 to 1.
impl FromSdf for Color {
    fn expected() -> Cow<'static, str> {
        "three or four numbers from 0 to 1 (r g b [a])".into()
    }
    fn from_text(text: &str) -> Option<Self> {
        let v =
            numbers::<4>(text).or_else(|| numbers::<3>(text).map(|[r, g, b]| [r, g, b, 1.0]))?;
        v.iter().all(|c| (0.0..=1.0).contains(c)).then(|| Color {
            r: v[0] as f32,
            g: v[1] as f32,
            b: v[2] as f32,
            a: v[3] as f32,
        })
    }
}
