//! The contact and motion parameters of SDF that the engine honours: a collision's
//! `<surface>`, a link's `<velocity_decay>` (see [`VelocityDecay`]) and the solver iterations
//! of `<physics>`. Pure data, with SDF's defaults; `docs/physics.md` says what the engine
//! makes of each.

use sim_plugin_api::Vec3;

/// A collision's `<surface>`: friction, bounce and collision filtering.
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    /// `<friction><ode><mu>`: the friction coefficient along the first friction direction
    /// (default 1).
    pub mu: f64,
    /// `<friction><ode><mu2>`: the friction coefficient along the second friction direction,
    /// perpendicular to the first and to the contact normal (default 1).
    pub mu2: f64,
    /// `<friction><ode><fdir1>`: the first friction direction in the collision frame, unit
    /// length; `None` when not written or zero (the engine then uses the world's Z axis
    /// projected on the contact plane, as DART does).
    pub fdir1: Option<Vec3>,
    /// `<friction><ode><slip1>` (m/s/N, default 0): read, not honoured (friction is rigid).
    pub slip1: f64,
    /// `<friction><ode><slip2>` (m/s/N, default 0): read, not honoured (friction is rigid).
    pub slip2: f64,
    /// `<bounce><restitution_coefficient>`, from 0 to 1 (default 0).
    pub restitution: f64,
    /// `<bounce><threshold>`, m/s: the impact speed below which there is no bounce, when
    /// written. `None`: DART's rule (no bounce when the rebound would be slower than
    /// 0.1 m/s).
    pub bounce_threshold: Option<f64>,
    /// `<contact><collide_bitmask>` (16 bits, default 0xffff).
    pub collide_bitmask: u16,
    /// `<contact><category_bitmask>` (16 bits; default: the collide bitmask). Two collisions
    /// touch when `(category1 & collide2) | (category2 & collide1)` is not zero.
    pub category_bitmask: u16,
}

impl Default for Surface {
    fn default() -> Self {
        Surface {
            mu: 1.0,
            mu2: 1.0,
            fdir1: None,
            slip1: 0.0,
            slip2: 0.0,
            restitution: 0.0,
            bounce_threshold: None,
            collide_bitmask: 0xffff,
            category_bitmask: 0xffff,
        }
    }
}

impl Surface {
    /// Whether friction differs along the two friction directions.
    pub fn is_anisotropic(&self) -> bool {
        self.mu != self.mu2
    }

    /// Whether the bitmasks are SDF's defaults (touching every default collision).
    pub fn has_default_bitmasks(&self) -> bool {
        self.collide_bitmask == 0xffff && self.category_bitmask == 0xffff
    }
}

/// A link's `<velocity_decay>`: exponential damping of its velocity, 1/s (default 0).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VelocityDecay {
    /// `<linear>`: damping of the linear velocity.
    pub linear: f64,
    /// `<angular>`: damping of the angular velocity.
    pub angular: f64,
}
