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

/// A parameter not honoured: the tags from an ancestor down to it, and what the engine does
/// instead. A `*` matches any element (every leaf below the rest of the path).
struct Unhonoured {
    path: &'static [&'static str],
    instead: &'static str,
}

const UNHONOURED: &[Unhonoured] = &[
    Unhonoured {
        path: &["surface", "contact", "ode", "*"],
        instead: RIGID_CONTACT,
    },
    Unhonoured {
        path: &["surface", "contact", "bullet", "*"],
        instead: RIGID_CONTACT,
    },
    Unhonoured {
        path: &["surface", "contact", "poissons_ratio"],
        instead: RIGID_CONTACT,
    },
    Unhonoured {
        path: &["surface", "contact", "elastic_modulus"],
        instead: RIGID_CONTACT,
    },
    Unhonoured {
        path: &["surface", "soft_contact", "*"],
        instead: RIGID_CONTACT,
    },
    Unhonoured {
        path: &["surface", "contact", "collide_without_contact"],
        instead: "the collision touches others with contact forces, as any other",
    },
    Unhonoured {
        path: &["surface", "contact", "collide_without_contact_bitmask"],
        instead: "the collision touches others with contact forces, as any other",
    },
    Unhonoured {
        path: &["surface", "friction", "torsional", "*"],
        instead: "there is no torsional friction but what the contact points' friction gives",
    },
    Unhonoured {
        path: &["surface", "friction", "bullet", "*"],
        instead: "friction is read from <friction><ode> (mu, mu2, fdir1) only",
    },
    Unhonoured {
        path: &["surface", "friction", "ode", "slip1"],
        instead: "friction is rigid (slip 0)",
    },
    Unhonoured {
        path: &["surface", "friction", "ode", "slip2"],
        instead: "friction is rigid (slip 0)",
    },
    Unhonoured {
        path: &["collision", "max_contacts"],
        instead: "rapier keeps up to 4 contact points per contact manifold",
    },
    Unhonoured {
        path: &["physics", "max_contacts"],
        instead: "rapier keeps up to 4 contact points per contact manifold",
    },
    Unhonoured {
        path: &["physics", "ode", "*"],
        instead: RAPIER_SOLVER,
    },
    Unhonoured {
        path: &["physics", "dart", "*"],
        instead: RAPIER_SOLVER,
    },
    Unhonoured {
        path: &["physics", "bullet", "*"],
        instead: RAPIER_SOLVER,
    },
    Unhonoured {
        path: &["physics", "simbody", "*"],
        instead: RAPIER_SOLVER,
    },
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
