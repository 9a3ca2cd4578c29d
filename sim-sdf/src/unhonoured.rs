//! Warnings for the physics parameters of SDF that the engine does not honour: ODE's and
//! Bullet's contact softness, torsional friction, force-dependent slip, the solver settings of
//! each `<physics>` engine block but the iteration count... Each is a warning of the load
//! (shown by `simcore check` and logged by `simcore run`), once per parameter and load, at
//! its first place, saying what the engine does instead. `docs/physics.md` lists every
//! parameter.

use roxmltree::Node;

use super::error::ErrorKind;
use super::reader::{Reader, is_sdf_element, tag};

/// What the engine does instead of contact softness parameters.
const RIGID_CONTACT: &str = "contacts are rigid, with rapier's contact softness and its default \
                             error correction";
/// What the engine does instead of the engine blocks' solver settings.
const RAPIER_SOLVER: &str = "rapier's solver settings are used (only <iters> is read, as the \
                             number of solver iterations)";

/// What the engine does instead of force-dependent slip.
const RIGID_FRICTION: &str = "friction is rigid (slip 0)";
/// What the engine does instead of contacts without forces.
const WITH_CONTACT: &str = "the collision touches others with contact forces, as any other";
/// What the engine does instead of a contact count.
const FOUR_POINTS: &str = "rapier keeps up to 4 contact points per contact manifold";

/// A parameter not honoured: the tags from an ancestor down to it, and what the engine does
/// instead. A `*` matches any element (every leaf below the rest of the path).
struct Unhonoured {
    path: &'static [&'static str],
    instead: &'static str,
}

const fn rule(path: &'static [&'static str], instead: &'static str) -> Unhonoured {
    Unhonoured { path, instead }
}

/// The parameters not honoured.
const UNHONOURED: &[Unhonoured] = &[
    rule(&["surface", "contact", "ode", "*"], RIGID_CONTACT),
    rule(&["surface", "contact", "bullet", "*"], RIGID_CONTACT),
    rule(&["surface", "contact", "poissons_ratio"], RIGID_CONTACT),
    rule(&["surface", "contact", "elastic_modulus"], RIGID_CONTACT),
    rule(&["surface", "soft_contact", "*"], RIGID_CONTACT),
    rule(
        &["surface", "contact", "collide_without_contact"],
        WITH_CONTACT,
    ),
    rule(
        &["surface", "contact", "collide_without_contact_bitmask"],
        WITH_CONTACT,
    ),
    rule(
        &["surface", "friction", "bullet", "*"],
        "friction is read from <friction><ode> (mu, mu2, fdir1) only",
    ),
    rule(
        &["surface", "friction", "torsional", "*"],
        "there is no torsional friction but what the contact points' friction gives",
    ),
    rule(&["surface", "friction", "ode", "slip1"], RIGID_FRICTION),
    rule(&["surface", "friction", "ode", "slip2"], RIGID_FRICTION),
    rule(&["collision", "max_contacts"], FOUR_POINTS),
    rule(&["physics", "max_contacts"], FOUR_POINTS),
    rule(&["physics", "ode", "*"], RAPIER_SOLVER),
    rule(&["physics", "dart", "*"], RAPIER_SOLVER),
    rule(&["physics", "bullet", "*"], RAPIER_SOLVER),
    rule(&["physics", "simbody", "*"], RAPIER_SOLVER),
];

impl Reader<'_> {
    /// Warns (through the loader) when `node` is a physics parameter the engine does not
    /// honour, unless the same parameter was already warned about in this load.
    pub(super) fn warn_unhonoured(&self, node: Node) {
        if node.children().any(|c| is_sdf_element(c)) || honoured_here(node) {
            return;
        }
        let Some((rule, chain)) = UNHONOURED.iter().find_map(|r| matching(node, r)) else {
            return;
        };
        let message = format!("{chain} is not honoured: {}", rule.instead);
        if self
            .loader
            .warnings
            .borrow()
            .iter()
            .any(|w| w.message == message)
        {
            return;
        }
        self.loader.warn(self.error(
            node,
            ErrorKind::Unsupported,
            message,
            "simcore simulates with rapier; docs/physics.md lists what it does with each \
             physics parameter",
        ));
    }
}

/// Whether `node` is read although a rule's `*` covers it: the solver iterations, and a
/// slip of 0 (rigid friction, what the engine does).
fn honoured_here(node: Node) -> bool {
    let parents: Vec<&str> = node.ancestors().skip(1).take(3).map(tag).collect();
    match tag(node) {
        "iters" => {
            parents.first() == Some(&"solver")
                && matches!(parents.get(1), Some(&"ode") | Some(&"dart"))
                && parents.get(2) == Some(&"physics")
        }
        "slip1" | "slip2" => node
            .text()
            .map(str::trim)
            .and_then(|t| t.parse::<f64>().ok())
            .is_none_or(|v| v == 0.0),
        "collide_without_contact" => !node
            .text()
            .map(str::trim)
            .is_some_and(|t| t == "true" || t == "1"),
        _ => false,
    }
}

/// When `node` matches `rule`: the rule and the element's tags from the rule's first tag down
/// (`<surface><contact><ode><kp>`).
fn matching(node: Node, rule: &'static Unhonoured) -> Option<(&'static Unhonoured, String)> {
    // The tags from the node up, as many as the rule has; a `*` may stand for several.
    let path = rule.path;
    let (fixed, any) = match path.last() {
        Some(&"*") => (&path[..path.len() - 1], true),
        _ => (path, false),
    };
    let up: Vec<Node> = node.ancestors().collect();
    let start = if any {
        // The fixed part ends at some ancestor (not the node itself).
        (1..up.len()).find(|&i| {
            fixed.len() <= up.len() - i
                && fixed
                    .iter()
                    .rev()
                    .enumerate()
                    .all(|(k, t)| tag(up[i + k]) == *t)
        })?
    } else {
        let ok = fixed.len() <= up.len()
            && fixed
                .iter()
                .rev()
                .enumerate()
                .all(|(k, t)| tag(up[k]) == *t);
        if !ok {
            return None;
        }
        0
    };
    let top = start + fixed.len() - 1;
    // A joint's <physics> is not the world's.
    if fixed.first() == Some(&"physics") && up.get(top + 1).map(|n| tag(*n)) != Some("world") {
        return None;
    }
    let chain: String = up[..=top]
        .iter()
        .rev()
        .map(|n| format!("<{}>", tag(*n)))
        .collect();
    Some((rule, chain))
}

#[cfg(test)]
mod tests {
    /// 1-based line of the first line of `text` containing `needle`.
    fn line_of(text: &str, needle: &str) -> u32 {
        text.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
    }

    #[test]
    fn each_unhonoured_parameter_is_warned_about_once_at_its_first_place() {
        let collision = |name: &str, contact: &str, slip: &str| {
            format!(
                "<collision name=\"{name}\"><geometry><sphere><radius>1</radius></sphere></geometry>\n\
                 <surface><friction><ode><mu>0.5</mu><slip1>{slip}</slip1></ode></friction>\n\
                 <contact><collide_bitmask>1</collide_bitmask><ode>{contact}</ode></contact></surface></collision>\n"
            )
        };
        let text = format!(
            "<sdf version=\"1.9\">\n<world name=\"w\">\n<physics type=\"ode\">\n<max_step_size>0.001</max_step_size>\n\
             <ode><solver><iters>50</iters></solver>\n<constraints><cfm>0.01</cfm></constraints></ode>\n</physics>\n\
             <model name=\"m\">\n<link name=\"a\">\n{}</link>\n<link name=\"b\">\n{}</link>\n\
             <joint name=\"j\" type=\"revolute\"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis>\n\
             <physics><ode><cfm>0.2</cfm></ode></physics></joint>\n</model>\n</world>\n</sdf>\n",
            collision("c1", "<kp>1e6</kp>", "0"),
            collision("c2", "<kp>1e6</kp><kd>1</kd>", "0.1"),
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.sdf");
        std::fs::write(&path, &text).unwrap();
        let (loaded, warnings) =
            crate::load_document_with_warnings(&path, &crate::LoadOptions::default());
        loaded.unwrap_or_else(|e| panic!("{}", e.render(None)));
        let found: Vec<(&str, u32)> = warnings
            .iter()
            .map(|w| (w.message.as_str(), w.line))
            .collect();
        let rigid = "contacts are rigid, with rapier's contact softness and its default error \
                     correction";
        let kp = format!("<surface><contact><ode><kp> is not honoured: {rigid}");
        let kd = format!("<surface><contact><ode><kd> is not honoured: {rigid}");
        let cfm = "<physics><ode><constraints><cfm> is not honoured: rapier's solver settings \
                   are used (only <iters> is read, as the number of solver iterations)";
        let slip = "<surface><friction><ode><slip1> is not honoured: friction is rigid (slip 0)";
        assert_eq!(
            found,
            [
                (cfm, line_of(&text, "<cfm>0.01")),
                (kp.as_str(), line_of(&text, "<kp>")),
                (slip, line_of(&text, "<slip1>0.1")),
                (kd.as_str(), line_of(&text, "<kd>")),
            ],
            "the solver's <iters>, a slip of 0, the bitmasks and a joint's <physics> are not \
             warned about; <kp> once"
        );
        assert_eq!(warnings[0].file.as_deref(), Some(path.as_path()));
        assert!(warnings[0].hint.contains("docs/physics.md"));
    }
}
