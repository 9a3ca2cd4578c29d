//! The reference frames an IMU can report its orientation in.
//!
//! # Conventions
//!
//! The simcore world frame is taken to be ENU: +X east, +Y north, +Z up (the world's
//! `<spherical_coordinates><heading_deg>` is not applied). A sensor's own frame is the SDF
//! frame of its `<pose>`: for a sensor mounted level and facing forward that is
//! forward-left-up.
//!
//! The IMU reports `orientation = R_wf⁻¹ · R_ws`, where `R_ws` is the sensor's orientation in
//! the world and `R_wf` is the orientation of the reference frame `f` in the world. The result
//! is the sensor's orientation expressed in `f`; its roll, pitch and yaw are those of the
//! sensor's axes as seen from `f`. The fixed frames, by the world directions of their axes:
//!
//! | frame | +X    | +Y    | +Z   | `R_wf` (quaternion x, y, z, w)     | as SDF roll pitch yaw |
//! |-------|-------|-------|------|------------------------------------|-----------------------|
//! | ENU   | east  | north | up   | (0, 0, 0, 1)                       | 0 0 0                 |
//! | NED   | north | east  | down | (1/√2, 1/√2, 0, 0)                 | π 0 π/2               |
//! | NWU   | north | west  | up   | (0, 0, 1/√2, 1/√2)                 | 0 0 π/2               |
//!
//! So NWU is ENU yawed by +90°, and NED is NWU turned upside down about its north axis.
//! Consequences, all checked by tests:
//!
//! - a level sensor whose +X points north has yaw 0 in NED and in NWU, and yaw π/2 in ENU;
//! - a level sensor (its +Z up) has roll π in NED, because NED's +Z points down;
//! - a level sensor whose +X points east has yaw 0 in ENU, yaw π/2 in NED (east is a
//!   clockwise quarter turn from north seen from above, a positive turn about NED's down
//!   axis) and yaw −π/2 in NWU.

use sim_plugin_api::Quat;
use std::f64::consts::FRAC_1_SQRT_2;

/// `<orientation_reference_frame><localization>`: the frame orientation is reported in.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Localization {
    /// East-north-up: the world frame itself.
    Enu,
    /// North-east-down.
    Ned,
    /// North-west-up.
    Nwu,
    /// `<custom_rpy parent_frame="world">`, or, without it, the sensor's initial orientation
    /// (the SDF default).
    #[default]
    Custom,
}

impl Localization {
    /// Parses the element's text (`ENU`, `NED`, `NWU` or `CUSTOM`, in any letter case).
    pub fn parse(text: &str) -> Option<Localization> {
        let t = text.trim();
        [
            ("ENU", Localization::Enu),
            ("NED", Localization::Ned),
            ("NWU", Localization::Nwu),
            ("CUSTOM", Localization::Custom),
        ]
        .into_iter()
        .find(|(name, _)| t.eq_ignore_ascii_case(name))
        .map(|(_, l)| l)
    }

    /// The SDF spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Localization::Enu => "ENU",
            Localization::Ned => "NED",
            Localization::Nwu => "NWU",
            Localization::Custom => "CUSTOM",
        }
    }

    /// The orientation of this frame in the world (`R_wf`), for the fixed frames; `None` for
    /// [`Localization::Custom`], whose frame comes from the SDF or the sensor's initial pose.
    pub fn frame_in_world(self) -> Option<Quat> {
        match self {
            Localization::Enu => Some(ENU_IN_WORLD),
            Localization::Ned => Some(NED_IN_WORLD),
            Localization::Nwu => Some(NWU_IN_WORLD),
            Localization::Custom => None,
        }
    }
}

/// Orientation of the ENU frame in the world: the identity (the world frame is ENU).
pub const ENU_IN_WORLD: Quat = Quat::IDENTITY;

/// Orientation of the NED frame in the world: a half turn about the horizontal axis halfway
/// between east and north, which maps east to north, north to east and up to down.
pub const NED_IN_WORLD: Quat = Quat::new(FRAC_1_SQRT_2, FRAC_1_SQRT_2, 0.0, 0.0);

/// Orientation of the NWU frame in the world: a quarter turn about up, which maps east to
/// north and north to west.
pub const NWU_IN_WORLD: Quat = Quat::new(0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2);

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::Vec3;
    use std::f64::consts::{FRAC_PI_2, PI};

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-12
    }

    #[test]
    fn frame_axes_point_where_their_names_say() {
        let (east, north, up) = (
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        );
        let axes = |q: Quat| {
            (
                q.rotate(Vec3::new(1.0, 0.0, 0.0)),
                q.rotate(Vec3::new(0.0, 1.0, 0.0)),
                q.rotate(Vec3::new(0.0, 0.0, 1.0)),
            )
        };
        let (x, y, z) = axes(ENU_IN_WORLD);
        assert!(close(x, east) && close(y, north) && close(z, up));
        let (x, y, z) = axes(NED_IN_WORLD);
        assert!(close(x, north) && close(y, east) && close(z, -up));
        let (x, y, z) = axes(NWU_IN_WORLD);
        assert!(close(x, north) && close(y, -east) && close(z, up));
    }

    #[test]
    fn frames_match_their_rpy() {
        let same = |a: Quat, b: Quat| {
            let d = a.inverse() * b;
            d.w.abs() > 1.0 - 1e-12
        };
        assert!(same(NED_IN_WORLD, Quat::from_rpy(PI, 0.0, FRAC_PI_2)));
        assert!(same(NWU_IN_WORLD, Quat::from_rpy(0.0, 0.0, FRAC_PI_2)));
    }

    #[test]
    fn parse_names() {
        assert_eq!(Localization::parse(" ned "), Some(Localization::Ned));
        assert_eq!(Localization::parse("CUSTOM"), Some(Localization::Custom));
        assert_eq!(Localization::parse("NEU"), None);
        for l in [
            Localization::Enu,
            Localization::Ned,
            Localization::Nwu,
            Localization::Custom,
        ] {
            assert_eq!(Localization::parse(l.as_str()), Some(l));
        }
    }
}
