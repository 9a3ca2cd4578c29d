//! The contact and motion parameters the engine honours: a collision's `<surface>` (friction,
//! bounce, collision bitmasks), a link's `<self_collide>` and `<velocity_decay>`, and the
//! solver iterations of `<physics>`. Ranges (`<mu>` at least 0, a restitution from 0 to 1...)
//! are checked with the other typed values (see `validate`); the parameters the engine does
//! not honour are warned about in `unhonoured`.

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::reader::Reader;
use crate::world::{Surface, Vec3, VelocityDecay};

impl Reader<'_> {
    /// The `<surface>` of `collision` (SDF's defaults where nothing is written).
    pub(super) fn surface(&self, collision: Node) -> Result<Surface, SdfError> {
        let mut s = Surface::default();
        let Some(surface) = self.child(collision, "surface") else {
            return Ok(s);
        };
        let ode = self
            .child(surface, "friction")
            .and_then(|f| self.child(f, "ode"));
        if let Some(ode) = ode {
            s.mu = self.checked_f64(ode, "mu", s.mu);
            s.mu2 = self.checked_f64(ode, "mu2", s.mu2);
            s.slip1 = self.checked_f64(ode, "slip1", s.slip1);
            s.slip2 = self.checked_f64(ode, "slip2", s.slip2);
            let fdir1 = self.child_vec3(ode, "fdir1", Vec3::ZERO)?;
            let length = fdir1.length();
            s.fdir1 = (length > 1e-12).then(|| fdir1.scale(1.0 / length));
        }
        if let Some(bounce) = self.child(surface, "bounce") {
            s.restitution = self.checked_f64(bounce, "restitution_coefficient", s.restitution);
            s.bounce_threshold = self.f64_of(self.child(bounce, "threshold")).ok().flatten();
        }
        if let Some(contact) = self.child(surface, "contact") {
            if let Some(collide) = self.bitmask(contact, "collide_bitmask")? {
                s.collide_bitmask = collide;
                s.category_bitmask = collide;
            }
            if let Some(category) = self.bitmask(contact, "category_bitmask")? {
                s.category_bitmask = category;
            }
        }
        Ok(s)
    }

    /// The number in child `name` of `parent`, `default` when absent or malformed: the values
    /// the schema types are checked (and a malformed one refused) in document order with
    /// the others, by `validate`.
    fn checked_f64(&self, parent: Node, name: &str, default: f64) -> f64 {
        self.f64_of(self.child(parent, name))
            .ok()
            .flatten()
            .unwrap_or(default)
    }

    /// A 16-bit mask in child `name` of `parent`, decimal or `0x` hexadecimal (as libsdformat
    /// reads it; higher bits are dropped, as Gazebo keeps 16); None when absent or empty.
    fn bitmask(&self, parent: Node, name: &str) -> Result<Option<u16>, SdfError> {
        let Some(node) = self.child(parent, name) else {
            return Ok(None);
        };
        let text = self.text(node);
        let value = text.trimmed();
        if value.is_empty() {
            return Ok(None);
        }
        let parsed = match value
            .strip_prefix("0x")
            .or_else(|| value.strip_prefix("0X"))
        {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => value.parse::<u64>(),
        };
        match parsed {
            Ok(v) => Ok(Some((v & 0xffff) as u16)),
            Err(_) => Err(self.error_at(
                text.start(),
                node,
                ErrorKind::Invalid,
                format!("<{name}> must be an unsigned integer, found \"{value}\""),
                "write a bitmask such as 65535 or 0xffff",
            )),
        }
    }

    /// A link's own `<self_collide>`, when written.
    pub(super) fn link_self_collide(&self, link: Node) -> Result<Option<bool>, SdfError> {
        self.bool_of(self.child(link, "self_collide"))
    }

    /// A link's `<velocity_decay>` (0 0 when absent).
    pub(super) fn velocity_decay(&self, link: Node) -> VelocityDecay {
        let mut decay = VelocityDecay::default();
        if let Some(node) = self.child(link, "velocity_decay") {
            decay.linear = self.checked_f64(node, "linear", 0.0);
            decay.angular = self.checked_f64(node, "angular", 0.0);
        }
        decay
    }

    /// The solver iterations of `<physics>`: `<dart><solver><iters>`, else
    /// `<ode><solver><iters>`; None when neither is written. At least 1.
    pub(super) fn solver_iterations(&self, physics: Node) -> Result<Option<u32>, SdfError> {
        for engine in ["dart", "ode"] {
            let Some(iters) = self
                .child(physics, engine)
                .and_then(|e| self.child(e, "solver"))
                .and_then(|s| self.child(s, "iters"))
            else {
                continue;
            };
            let Some(v) = self.f64_of(Some(iters))? else {
                continue;
            };
            if v < 1.0 || v.fract() != 0.0 || v > f64::from(u32::MAX) {
                return Err(self.error_at(
                    self.text(iters).start(),
                    iters,
                    ErrorKind::Invalid,
                    format!("<iters> must be a whole number of at least 1, found {v}"),
                    "the solver iterations per step, e.g. 50",
                ));
            }
            return Ok(Some(v as u32));
        }
        Ok(None)
    }
}
