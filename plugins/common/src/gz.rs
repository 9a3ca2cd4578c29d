//! What gz-sim's systems share in reading their `<plugin>` element: topic names made valid as
//! gz-transport makes them, the `<topic>` / `<sub_topic>` / default choice of the controller
//! systems, repeated `<joint_name>` elements resolved to joints, PID gains and speed limits,
//! joint commands, and the value a controller takes from its command topic. With them,
//! re-exported: the factory that leaves a system idle when what it needs is missing
//! ([`crate::idle`]) and the drive systems' odometry messages ([`crate::odometry`]).

use crate::bounded::bounded_value;
use crate::lookup::find_in_model;
pub use crate::lookup::own_name;
use crate::sdf::{Reader, text};
use crate::{Pid, SpeedLimiter};
use roxmltree::Node;
use sim_plugin_api::prelude::*;
use sim_plugin_api::{EntityId, EntityKind, PluginError, WorldRef};

pub use crate::idle::{GzSystem, OrIdle, create, missing};
pub use crate::odometry::{OdometryOutput, mean_twist, planar_pose};

/// The value of the last usable `Double` among `inbox`'s messages: the command the
/// controller systems take from their topic (a NaN, infinite or out-of-range one, see
/// [`bounded_value`], is ignored).
pub fn last_finite_double(inbox: &[Message]) -> Option<f64> {
    inbox.iter().rev().find_map(|m| match m.payload.as_enum() {
        Ok(Payload::Double(v)) if bounded_value(*v) => Some(*v),
        _ => None,
    })
}

/// `topic` as gz-transport's `TopicUtils::AsValidTopic` makes it: spaces become `_`, `@`,
/// `~` and `:=` are removed, and a leading `/` is added; `None` when nothing valid is left
/// (empty, or holding `//`).
pub fn valid_topic(topic: &str) -> Option<String> {
    let t = topic
        .trim()
        .replace(' ', "_")
        .replace(":=", "")
        .replace(['@', '~'], "");
    if t.is_empty() || t == "/" || t.contains("//") || t.chars().any(char::is_whitespace) {
        return None;
    }
    Some(if t.starts_with('/') {
        t
    } else {
        format!("/{t}")
    })
}

/// The topic a gz-sim controller subscribes to: `<topic>` as written (made valid), else
/// `/model/<model>/<sub_topic>`, else `default`. An invalid name is an error naming `who`.
pub fn controller_topic(
    root: Node<'_, '_>,
    model: &str,
    default: &str,
    who: &str,
) -> Result<String, PluginError> {
    let (written, tag) = match (text(root, "topic"), text(root, "sub_topic")) {
        (Some(t), _) => (t.to_string(), "topic"),
        (None, Some(s)) => (format!("/model/{model}/{s}"), "sub_topic"),
        (None, None) => (default.to_string(), "the default topic"),
    };
    valid_topic(&written).ok_or_else(|| {
        PluginError::config(format!(
            "{who}: <{tag}> `{written}` is not a valid topic name"
        ))
    })
}

/// The texts of every `<tag>` child of `root`, trimmed, skipping empty ones (gz-sim reports
/// those and goes on); a [`missing`] error naming `who` when none is left.
pub fn names(root: Node<'_, '_>, tag: &str, who: &str) -> Result<Vec<String>, PluginError> {
    let names: Vec<String> = root
        .children()
        .filter(|c| c.is_element() && c.tag_name().name() == tag)
        .map(|c| c.text().unwrap_or("").trim().to_string())
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() {
        return Err(missing(format!("{who}: needs a <{tag}>")));
    }
    Ok(names)
}

/// The joints `names` of `model`, each looked up below the model first, then as written; a
/// [`missing`] error naming `who` and the element `<tag>` for a name that is not a joint.
pub fn joints(
    world: &WorldRef<'_>,
    model: &str,
    names: &[String],
    tag: &str,
    who: &str,
) -> Result<Vec<EntityId>, PluginError> {
    names
        .iter()
        .map(|n| {
            find_in_model(world, model, n, EntityKind::JOINT).map_err(|e| {
                missing(
                    e.element_error(&format!("{who}: <{tag}>"), n, EntityKind::JOINT)
                        .message,
                )
            })
        })
        .collect()
}

/// A command driving axis `axis` of `joint` in `mode` to `target`, with no force limit of its
/// own (the joint's `<effort>` still bounds it), as gz-sim's systems command joints.
pub fn drive(joint: EntityId, axis: u32, mode: JointCommandMode, target: f64) -> JointCommand {
    JointCommand {
        joint,
        axis,
        mode,
        target,
        max_force: f64::INFINITY,
        stiffness: 0.0,
        damping: 0.0,
    }
}

/// The PID of a gz-sim controller from `<p_gain>`, `<i_gain>`, `<d_gain>`, `<i_max>`,
/// `<i_min>`, `<cmd_max>`, `<cmd_min>` and `<cmd_offset>`, each defaulting to `defaults`'.
pub fn pid(r: &Reader<'_>, root: Node<'_, '_>, defaults: &Pid) -> Result<Pid, PluginError> {
    let num = |tag: &str, d: f64| -> Result<f64, PluginError> {
        Ok(r.number(root, &[tag])?.unwrap_or(d))
    };
    Ok(Pid::new(
        num("p_gain", defaults.p)?,
        num("i_gain", defaults.i)?,
        num("d_gain", defaults.d)?,
        num("i_max", defaults.i_max)?,
        num("i_min", defaults.i_min)?,
        num("cmd_max", defaults.cmd_max)?,
        num("cmd_min", defaults.cmd_min)?,
        num("cmd_offset", defaults.cmd_offset)?,
    ))
}

/// The speed limits of gz-sim's drive systems: `<min_velocity>`, `<max_velocity>`,
/// `<min_acceleration>`, `<max_acceleration>`, each unbounded when absent; a minimum above its
/// maximum is an error naming `who`.
pub fn limiter(r: &Reader<'_>, root: Node<'_, '_>, who: &str) -> Result<SpeedLimiter, PluginError> {
    let num = |tag: &str, d: f64| -> Result<f64, PluginError> {
        Ok(r.number(root, &[tag])?.unwrap_or(d))
    };
    let l = SpeedLimiter {
        min_velocity: num("min_velocity", f64::NEG_INFINITY)?,
        max_velocity: num("max_velocity", f64::INFINITY)?,
        min_acceleration: num("min_acceleration", f64::NEG_INFINITY)?,
        max_acceleration: num("max_acceleration", f64::INFINITY)?,
    };
    if l.min_velocity > l.max_velocity || l.min_acceleration > l.max_acceleration {
        return Err(PluginError::config(format!(
            "{who}: a <min_...> limit is above its <max_...>"
        )));
    }
    Ok(l)
}

/// The topic in `<tag>` made valid, or `default` when absent; an invalid name is an error
/// naming `who`.
pub fn topic_or(
    root: Node<'_, '_>,
    tag: &str,
    default: String,
    who: &str,
) -> Result<String, PluginError> {
    match text(root, tag) {
        None => Ok(default),
        Some(t) => valid_topic(t).ok_or_else(|| {
            PluginError::config(format!("{who}: <{tag}> `{t}` is not a valid topic name"))
        }),
    }
}

/// The text of `<tag>`, or `default` when absent or empty (a frame id).
pub fn text_or(root: Node<'_, '_>, tag: &str, default: String) -> String {
    match text(root, tag) {
        None | Some("") => default,
        Some(t) => t.to_string(),
    }
}

/// The torque about `link`'s origin of `force` (world frame) acting at the link's centre of
/// mass plus `offset` (link frame), the link being at `pose`: what turns gz-sim's wrench at
/// the centre of mass into the engine's wrench at the link origin. The centre of mass is the
/// origin when the engine does not say (no mechanics extension).
pub fn lever_torque(
    world: &WorldRef<'_>,
    link: EntityId,
    pose: sim_plugin_api::Pose,
    force: Vec3,
    offset: Vec3,
) -> Vec3 {
    let com = world
        .mechanics()
        .and_then(|m| m.inertial(link).into_option())
        .map(|i| i.center_of_mass)
        .unwrap_or(Vec3::ZERO);
    pose.orientation.rotate(com + offset).cross(force)
}

/// A message of a gz-msgs type simcore's payloads lack, as gz-sim's systems here carry it: a
/// `Custom` payload of schema `schema` (`gz.msgs.Model`) with the fields as JSON text.
pub fn json_message(schema: &str, json: String) -> Payload {
    Payload::Custom(sim_plugin_api::abi_stable::std_types::RBox::new(
        sim_plugin_api::CustomMessage {
            schema: SharedStr::new(schema),
            encoding: SharedStr::new("json"),
            data: json.into_bytes().into(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_finite_double_is_the_command() {
        let d = |v| Message::new("", Payload::Double(v));
        assert_eq!(last_finite_double(&[]), None);
        assert_eq!(last_finite_double(&[d(1.0), d(2.0)]), Some(2.0));
        let inbox = [
            d(1.0),
            d(f64::NAN),
            Message::new("", Payload::Empty),
            d(f64::INFINITY),
            d(1e300),
        ];
        assert_eq!(last_finite_double(&inbox), Some(1.0));
    }

    #[test]
    fn topics_made_valid_as_gz_transport() {
        assert_eq!(valid_topic("cmd vel").as_deref(), Some("/cmd_vel"));
        assert_eq!(valid_topic("/a/b").as_deref(), Some("/a/b"));
        assert_eq!(valid_topic("a@b~c:=d").as_deref(), Some("/abcd"));
        assert_eq!(valid_topic(""), None);
        assert_eq!(valid_topic("/a//b"), None);
    }

    fn root_of(xml: &str, f: impl FnOnce(Node<'_, '_>)) {
        let doc = roxmltree::Document::parse(xml).unwrap();
        f(doc.root_element());
    }

    #[test]
    fn topic_then_sub_topic_then_default() {
        let pick = |xml: &str| {
            let mut out = None;
            root_of(xml, |r| {
                out = Some(controller_topic(r, "arm", "/d", "m: X"))
            });
            out.unwrap()
        };
        assert_eq!(pick("<plugin/>").unwrap(), "/d");
        assert_eq!(
            pick("<plugin><sub_topic>j</sub_topic></plugin>").unwrap(),
            "/model/arm/j"
        );
        assert_eq!(
            pick("<plugin><sub_topic>j</sub_topic><topic>t</topic></plugin>").unwrap(),
            "/t"
        );
        let e = pick("<plugin><topic>a//b</topic></plugin>").unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "m: X: <topic> `a//b` is not a valid topic name"
        );
    }

    #[test]
    fn repeated_names_skip_empty_ones() {
        root_of(
            "<plugin><joint_name>a</joint_name><joint_name> </joint_name><joint_name>b</joint_name></plugin>",
            |r| assert_eq!(names(r, "joint_name", "m: X").unwrap(), ["a", "b"]),
        );
        root_of("<plugin/>", |r| {
            assert_eq!(
                names(r, "joint_name", "m: X").unwrap_err().message.as_str(),
                "m: X: needs a <joint_name>"
            )
        });
    }
}
