//! The contact and motion parameters the engine honours: a collision's `<surface>` (friction,
//! bounce, collision bitmasks), a link's `<self_collide>` and `<velocity_decay>`, and the
//! solver iterations of `<physics>`. Ranges (`<mu>` at least 0, a restitution from 0 to 1...)
//! are checked with the other typed values (see `validate`); the parameters the engine does
//! not honour are warned about in `unhonoured`.

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::reader::Reader;
use sim_world::{Surface, Vec3, VelocityDecay};

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
                    format!(
                        "<iters> must be a whole number of at least 1, found {}",
                        self.written(iters)
                    ),
                    "the solver iterations per step, e.g. 50",
                ));
            }
            return Ok(Some(v as u32));
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use crate::parse_str;
    use sim_world::{Surface, Vec3, World};

    /// A world of one model (with `model_extra`) whose link (with `link_extra`) has one
    /// collision with `collision_extra`.
    fn world(model_extra: &str, link_extra: &str, collision_extra: &str) -> String {
        format!(
            "<sdf version=\"1.9\"><world name=\"w\"><model name=\"m\">{model_extra}<link name=\"l\">{link_extra}\
             <collision name=\"c\"><geometry><sphere><radius>1</radius></sphere></geometry>{collision_extra}</collision>\
             </link></model></world></sdf>"
        )
    }

    fn read(text: &str) -> World {
        parse_str(text, None).unwrap_or_else(|e| panic!("{}", e.render(None)))
    }

    fn surface_of(collision_extra: &str) -> Surface {
        read(&world("", "", collision_extra)).models[0].links[0].collisions[0]
            .surface
            .clone()
    }

    #[test]
    fn surfaces_read_with_sdf_defaults() {
        assert_eq!(surface_of(""), Surface::default());
        let s = surface_of(
            "<surface><friction><ode><mu>0.3</mu><mu2>0.7</mu2><fdir1>0 2 0</fdir1><slip1>0.1</slip1></ode></friction>\
             <bounce><restitution_coefficient>0.5</restitution_coefficient><threshold>0.2</threshold></bounce>\
             <contact><collide_bitmask>0x0f</collide_bitmask></contact></surface>",
        );
        assert_eq!((s.mu, s.mu2, s.slip1, s.slip2), (0.3, 0.7, 0.1, 0.0));
        assert_eq!(s.fdir1, Some(Vec3::new(0.0, 1.0, 0.0)), "normalised");
        assert_eq!((s.restitution, s.bounce_threshold), (0.5, Some(0.2)));
        assert_eq!(
            (s.collide_bitmask, s.category_bitmask),
            (0x0f, 0x0f),
            "the category defaults to the collide bitmask"
        );
        let s = surface_of(
            "<surface><friction><ode><fdir1>0 0 0</fdir1></ode></friction><contact>\
             <collide_bitmask>3</collide_bitmask><category_bitmask>65537</category_bitmask></contact></surface>",
        );
        assert_eq!(s.fdir1, None, "a zero fdir1 is none");
        assert_eq!(
            (s.collide_bitmask, s.category_bitmask),
            (3, 1),
            "16 bits kept"
        );
    }

    #[test]
    fn a_malformed_bitmask_or_iteration_count_is_an_error_at_its_value() {
        let e = parse_str(
            &world(
                "",
                "",
                "<surface><contact><collide_bitmask>lots</collide_bitmask></contact></surface>",
            ),
            None,
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "<collide_bitmask> must be an unsigned integer, found \"lots\""
        );
        let text = "<sdf version=\"1.9\"><world name=\"w\"><physics><ode><solver><iters>2.5</iters></solver></ode></physics></world></sdf>";
        let e = parse_str(text, None).unwrap_err();
        assert_eq!(
            e.message,
            "<iters> must be a whole number of at least 1, found \"2.5\""
        );
    }

    #[test]
    fn links_read_self_collide_and_velocity_decay() {
        let w = read(&world(
            "<self_collide>true</self_collide>",
            "<self_collide>false</self_collide><velocity_decay><linear>0.5</linear><angular>0.25</angular></velocity_decay>",
            "",
        ));
        let (m, l) = (&w.models[0], &w.models[0].links[0]);
        assert!(m.self_collide);
        assert_eq!(l.self_collide, Some(false));
        assert_eq!(
            (l.velocity_decay.linear, l.velocity_decay.angular),
            (0.5, 0.25)
        );
        let w = read(&world("", "", ""));
        let l = &w.models[0].links[0];
        assert_eq!(l.self_collide, None);
        assert_eq!(l.velocity_decay, Default::default());
        assert_eq!(w.physics.solver_iterations, None);
    }
}
