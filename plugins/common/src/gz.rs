//! What gz-sim's systems (and simcore's own systems) share in reading their `<plugin>`
//! element: topic names made valid as gz-transport makes them, the `<topic>` / `<sub_topic>` /
//! default choice of the controller systems, topics made of names, required names and texts,
//! repeated `<joint_name>` elements resolved to joints and other entities named by an element,
//! PID gains and speed limits, joint commands, and the value a controller takes from its
//! command topic. With them, re-exported: the factory that leaves a system idle when what it
//! needs is missing ([`crate::idle`]), the joints a controller drives together
//! ([`crate::joint_group`]) and the drive systems' odometry settings and messages
//! ([`crate::odometry`]).

use crate::bounded::bounded_value;
pub use crate::lookup::{find_named, own_name};
use crate::sdf::{at, owner};
use crate::{Pid, SpeedLimiter};
use sim_plugin_api::prelude::*;
use sim_plugin_api::sdf::{Element, SdfError};
use sim_plugin_api::{EntityId, EntityKind, MechanicsRef, PluginError, WorldRef};

pub use crate::idle::{GzSystem, OrIdle, create, missing};
pub use crate::joint_group::JointGroup;
pub use crate::odometry::{
    OdometryOutput, OdometrySettings, drive_frames, mean_twist, planar_pose,
};

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
/// `/model/<model>/<sub_topic>`, else `default`. An invalid name is an error naming the element.
pub fn controller_topic(
    root: &Element<'_, '_>,
    model: &str,
    default: &str,
) -> Result<String, PluginError> {
    let (written, element) = match (root.child("topic"), root.child("sub_topic")) {
        (Some(t), _) => (t.text().to_string(), Some(t)),
        (None, Some(s)) => (format!("/model/{model}/{}", s.text()), Some(s)),
        (None, None) => (default.to_string(), None),
    };
    valid_topic(&written).ok_or_else(|| match element {
        Some(e) => e.error(TOPIC, &written).into(),
        None => PluginError::config(format!(
            "{}: the default topic `{written}` is not a valid topic name",
            owner(root)
        )),
    })
}

/// What a topic element must be, in messages.
const TOPIC: &str = "a valid topic name (no `//`, not empty)";

/// The texts of every `<tag>` child of `root`, trimmed, skipping empty ones (gz-sim reports
/// those and goes on); a [`missing`] error naming the system when none is left.
pub fn names(root: &Element<'_, '_>, tag: &str) -> Result<Vec<String>, PluginError> {
    let names: Vec<String> = root
        .children_named(tag)
        .map(|c| c.text().to_string())
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() {
        return Err(needs(root, tag));
    }
    Ok(names)
}

/// The [`missing`] error of a system whose element `root` lacks a `<tag>` (or has only empty
/// ones): `<owner>: needs a <tag>`, with ` at file:line` when known.
pub fn needs(root: &Element<'_, '_>, tag: &str) -> PluginError {
    missing(format!("{}: needs a <{tag}>{}", owner(root), at(root)))
}

/// The first `<tag>` child of `root` when its text is not empty (gz-sim reads the first one;
/// an empty one is as if absent).
pub fn first_named<'a, 't>(root: &Element<'a, 't>, tag: &str) -> Option<Element<'a, 't>> {
    root.child(tag).filter(|e| !e.text().is_empty())
}

/// [`first_named`], which the system needs: the [`needs`] error when it is absent or empty.
pub fn required_name<'a, 't>(
    root: &Element<'a, 't>,
    tag: &str,
) -> Result<Element<'a, 't>, PluginError> {
    first_named(root, tag).ok_or_else(|| needs(root, tag))
}

/// The text of `element`, which must not be empty: `error(expected, "")` on it otherwise.
pub fn nonempty<'a>(element: &Element<'a, '_>, expected: &str) -> Result<&'a str, SdfError> {
    match element.text() {
        "" => Err(element.error(expected, "")),
        text => Ok(text),
    }
}

/// The `<tag>` child of `root`, which must be there ([`Element::require_element`]:
/// `<tag> is required (<expected>)`) and hold text ([`nonempty`]).
pub fn required_text<'a, 't>(
    root: &Element<'a, 't>,
    tag: &str,
    expected: &str,
) -> Result<Element<'a, 't>, SdfError> {
    let element = root.require_element(tag, expected)?;
    nonempty(&element, expected)?;
    Ok(element)
}

/// What a joint element must hold, in messages.
pub const JOINT_NAME: &str = "a joint name";

/// The texts of every `<tag>` child of `root` (any number), each a joint name that must not be
/// empty ([`nonempty`]).
pub fn joint_names(root: &Element<'_, '_>, tag: &str) -> Result<Vec<String>, SdfError> {
    root.children_named(tag)
        .map(|e| nonempty(&e, JOINT_NAME).map(str::to_string))
        .collect()
}

/// The entity `name` of kind `kind` in `model`, named by the element `<tag>` of the system
/// `who` ([`find_named`]); the [`missing`] error when there is none (gz-sim leaves the system
/// idle).
pub fn entity(
    world: &WorldRef<'_>,
    model: &str,
    name: &str,
    kind: EntityKind,
    tag: &str,
    who: &str,
) -> Result<EntityId, PluginError> {
    find_named(world, model, name, kind, tag, who).map_err(|e| missing(e.message))
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
        .map(|n| entity(world, model, n, EntityKind::JOINT, tag, who))
        .collect()
}

/// The engine's mechanics extension, which the system `who` needs for what it `gives`
/// (`"joint axes"`); without it, the [`missing`] error saying so (gz-sim's system would have
/// them: simcore's is left idle).
pub fn mechanics<'a>(
    world: &'a WorldRef<'_>,
    who: &str,
    gives: &str,
) -> Result<&'a MechanicsRef<'a>, PluginError> {
    world.mechanics().ok_or_else(|| {
        missing(format!(
            "{who}: this engine does not give {gives} (no simcore.mechanics.v1 extension)"
        ))
    })
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
pub fn pid(root: &Element<'_, '_>, defaults: &Pid) -> Result<Pid, SdfError> {
    Ok(Pid::new(
        root.get_or("p_gain", defaults.p)?,
        root.get_or("i_gain", defaults.i)?,
        root.get_or("d_gain", defaults.d)?,
        root.get_or("i_max", defaults.i_max)?,
        root.get_or("i_min", defaults.i_min)?,
        root.get_or("cmd_max", defaults.cmd_max)?,
        root.get_or("cmd_min", defaults.cmd_min)?,
        root.get_or("cmd_offset", defaults.cmd_offset)?,
    ))
}

/// The speed limits of gz-sim's drive systems: `<min_velocity>`, `<max_velocity>`,
/// `<min_acceleration>`, `<max_acceleration>`, each unbounded when absent; a minimum above its
/// maximum is an error naming the system.
pub fn limiter(root: &Element<'_, '_>) -> Result<SpeedLimiter, PluginError> {
    let l = SpeedLimiter {
        min_velocity: root.get_or("min_velocity", f64::NEG_INFINITY)?,
        max_velocity: root.get_or("max_velocity", f64::INFINITY)?,
        min_acceleration: root.get_or("min_acceleration", f64::NEG_INFINITY)?,
        max_acceleration: root.get_or("max_acceleration", f64::INFINITY)?,
    };
    if l.min_velocity > l.max_velocity || l.min_acceleration > l.max_acceleration {
        return Err(PluginError::config(format!(
            "{}: a <min_...> limit is above its <max_...>{}",
            owner(root),
            at(root)
        )));
    }
    Ok(l)
}

/// The topic in `<tag>` made valid, or `default` when absent; an invalid name is an error
/// naming the element.
pub fn topic_or(root: &Element<'_, '_>, tag: &str, default: String) -> Result<String, SdfError> {
    match root.child(tag) {
        None => Ok(default),
        Some(e) => valid_topic(e.text()).ok_or_else(|| e.error(TOPIC, e.text())),
    }
}

/// `written`, a topic made of the text of `element` (a name put into a default topic), made
/// valid ([`valid_topic`]); when nothing valid is left, an error on `element` quoting the
/// topic.
pub fn topic_from(element: &Element<'_, '_>, written: &str) -> Result<String, SdfError> {
    valid_topic(written).ok_or_else(|| {
        element.error(
            format!("a name making a valid topic (not `{written}`)"),
            element.text(),
        )
    })
}

/// The topic in `<tag>` as simcore's own systems read it: a leading `/` added to the text
/// written, or `default` (as given, relative) when absent; an empty one is an error.
pub fn absolute_topic_or(
    root: &Element<'_, '_>,
    tag: &str,
    default: &str,
) -> Result<String, SdfError> {
    match root.child(tag) {
        None => Ok(default.to_string()),
        Some(e) => {
            let text = nonempty(&e, "a topic name")?;
            Ok(if text.starts_with('/') {
                text.to_string()
            } else {
                format!("/{text}")
            })
        }
    }
}

/// The first valid topic ([`valid_topic`]) among the texts of the `tags` children of `root`
/// (those written, in order) and `default`, as gz-sim's `validTopic`; a [`missing`] error when
/// none is valid.
pub fn first_valid_topic(
    root: &Element<'_, '_>,
    tags: &[&str],
    default: &str,
) -> Result<String, PluginError> {
    tags.iter()
        .filter_map(|t| root.child(t).map(|e| e.text()))
        .chain(std::iter::once(default))
        .find_map(valid_topic)
        .ok_or_else(|| {
            missing(format!(
                "{}: no valid topic (`{default}`){}",
                owner(root),
                at(root)
            ))
        })
}

/// The text of `<tag>`, or `default` when absent or empty (a frame id).
pub fn text_or(root: &Element<'_, '_>, tag: &str, default: String) -> String {
    match root.child(tag) {
        Some(e) if !e.text().is_empty() => e.text().to_string(),
        _ => default,
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
    use sim_plugin_api::sdf::{Origin, SdfDocument};

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

    fn document(xml: &str) -> SdfDocument<'_> {
        SdfDocument::parse(xml, Origin::new("m: X")).unwrap()
    }

    #[test]
    fn topic_then_sub_topic_then_default() {
        let pick = |xml: &str| controller_topic(&document(xml).root(), "arm", "/d");
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
            "m: X: <topic> must be a valid topic name (no `//`, not empty), found \"a//b\""
        );
        let e = controller_topic(&document("<plugin/>").root(), "arm", "").unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "m: X: the default topic `` is not a valid topic name"
        );
    }

    #[test]
    fn repeated_names_skip_empty_ones() {
        let doc = document(
            "<plugin><joint_name>a</joint_name><joint_name> </joint_name><joint_name>b</joint_name></plugin>",
        );
        assert_eq!(names(&doc.root(), "joint_name").unwrap(), ["a", "b"]);
        let e = names(&document("<plugin/>").root(), "joint_name").unwrap_err();
        assert_eq!(e.code, ErrorCode::NOT_FOUND);
        assert_eq!(e.message.as_str(), "m: X: needs a <joint_name>");
    }

    /// Asserts that `e` is the [`missing`] error `message`.
    #[track_caller]
    fn assert_missing(e: &PluginError, message: &str) {
        assert_eq!(e.code, ErrorCode::NOT_FOUND);
        assert_eq!(e.message.as_str(), message);
    }

    /// `xml` parsed as the element of `m: X`, written at line 10 of `w.sdf`.
    fn placed(xml: &str) -> SdfDocument<'_> {
        let origin = Origin {
            file: "w.sdf",
            line: 10,
            ..Origin::new("m: X")
        };
        SdfDocument::parse(xml, origin).unwrap()
    }

    #[test]
    fn required_names_are_the_first_and_not_empty() {
        let doc = placed("<plugin>\n<a> </a><a>x</a>\n<b>y</b><b>z</b></plugin>");
        let root = doc.root();
        assert!(first_named(&root, "a").is_none(), "the first <a> is empty");
        assert_eq!(first_named(&root, "b").unwrap().text(), "y");
        assert!(first_named(&root, "c").is_none());
        assert_eq!(required_name(&root, "b").unwrap().text(), "y");
        assert_missing(
            &required_name(&root, "a").unwrap_err(),
            "m: X: needs a <a> at w.sdf:10",
        );
        assert_missing(&needs(&root, "c"), "m: X: needs a <c> at w.sdf:10");
    }

    #[test]
    fn texts_that_must_not_be_empty() {
        let doc =
            placed("<plugin>\n<j>a</j>\n<j> </j>\n<k>b</k><k>c</k><name>n</name><empty/></plugin>");
        let root = doc.root();
        let msg = |e: SdfError| e.to_string();
        assert_eq!(
            msg(joint_names(&root, "j").unwrap_err()),
            "m: X: <j> must be a joint name, found \"\" at w.sdf:12"
        );
        assert_eq!(joint_names(&root, "k").unwrap(), ["b", "c"]);
        assert!(joint_names(&root, "none").unwrap().is_empty());
        assert_eq!(required_text(&root, "name", "a name").unwrap().text(), "n");
        assert_eq!(
            msg(required_text(&root, "empty", "a name").unwrap_err()),
            "m: X: <empty> must be a name, found \"\" at w.sdf:13"
        );
        let e = required_text(&root, "none", "a name").unwrap_err();
        assert!(e.is_missing());
        assert_eq!(msg(e), "m: X: <none> is required (a name) at w.sdf:10");
        assert_eq!(nonempty(&root.child("name").unwrap(), "x").unwrap(), "n");
    }

    #[test]
    fn topics_from_names_absolute_topics_and_the_first_valid_one() {
        let doc = placed(
            "<plugin>\n<joint>a b</joint><bad>a//b</bad>\n<t>x</t><u>/y</u><e> </e></plugin>",
        );
        let root = doc.root();
        let joint = root.child("joint").unwrap();
        assert_eq!(topic_from(&joint, "/m/a b/cmd").unwrap(), "/m/a_b/cmd");
        let bad = root.child("bad").unwrap();
        assert_eq!(
            topic_from(&bad, "/m/a//b/cmd").unwrap_err().to_string(),
            "m: X: <bad> must be a name making a valid topic (not `/m/a//b/cmd`), \
             found \"a//b\" at w.sdf:11"
        );
        assert_eq!(absolute_topic_or(&root, "t", "d").unwrap(), "/x");
        assert_eq!(absolute_topic_or(&root, "u", "d").unwrap(), "/y");
        assert_eq!(absolute_topic_or(&root, "none", "d/e").unwrap(), "d/e");
        assert_eq!(
            absolute_topic_or(&root, "e", "d").unwrap_err().to_string(),
            "m: X: <e> must be a topic name, found \"\" at w.sdf:12"
        );
        assert_eq!(first_valid_topic(&root, &["bad", "t"], "/d").unwrap(), "/x");
        assert_eq!(
            first_valid_topic(&root, &["bad", "none"], "/d").unwrap(),
            "/d"
        );
        let e = first_valid_topic(&root, &["bad"], "a//d").unwrap_err();
        assert_missing(&e, "m: X: no valid topic (`a//d`) at w.sdf:10");
    }

    #[test]
    fn entities_and_joints_of_the_model_or_missing() {
        let setup = crate::testing::SystemSetup::on_model("X", "arm")
            .with(2, EntityKind::JOINT, "j")
            .with(3, EntityKind::LINK, "l");
        setup.world.with(|world| {
            assert_eq!(
                entity(&world, "arm", "l", EntityKind::LINK, "link_name", "arm: X").unwrap(),
                EntityId(3)
            );
            let e =
                entity(&world, "arm", "j", EntityKind::LINK, "link_name", "arm: X").unwrap_err();
            assert_missing(&e, "arm: X: <link_name> `arm::j` is a joint, not a link");
            let names = ["j".to_string(), "arm::j".to_string()];
            assert_eq!(
                joints(&world, "arm", &names, "joint_name", "arm: X").unwrap(),
                [EntityId(2), EntityId(2)]
            );
            let e = joints(&world, "arm", &["k".to_string()], "joint_name", "arm: X").unwrap_err();
            assert_missing(&e, "arm: X: <joint_name> `k`: no such joint in the model");
        });
    }

    #[test]
    fn without_the_mechanics_extension_the_system_is_idle() {
        // The static world offers no mechanics extension.
        let w = sim_plugin_api::testing::StaticWorld::default();
        let e = w.with(|world| mechanics(&world, "arm: X", "joint axes").err());
        let e = e.expect("no mechanics");
        assert_missing(
            &e,
            "arm: X: this engine does not give joint axes (no simcore.mechanics.v1 extension)",
        );
    }

    #[test]
    fn gains_limits_topics_and_texts() {
        let doc = document(
            "<plugin><p_gain>2</p_gain><cmd_max>5</cmd_max><max_velocity>3</max_velocity>\
             <odom_topic>odom x</odom_topic><frame> </frame><child>base</child></plugin>",
        );
        let root = doc.root();
        let defaults = Pid::new(1.0, 0.1, 0.0, 1.0, -1.0, 10.0, -10.0, 0.0);
        assert_eq!(
            pid(&root, &defaults).unwrap(),
            Pid::new(2.0, 0.1, 0.0, 1.0, -1.0, 5.0, -10.0, 0.0)
        );
        let l = limiter(&root).unwrap();
        assert_eq!((l.min_velocity, l.max_velocity), (f64::NEG_INFINITY, 3.0));
        assert_eq!(
            topic_or(&root, "odom_topic", "/d".into()).unwrap(),
            "/odom_x"
        );
        assert_eq!(topic_or(&root, "none", "/d".into()).unwrap(), "/d");
        assert_eq!(text_or(&root, "frame", "odom".into()), "odom");
        assert_eq!(text_or(&root, "child", "x".into()), "base");
        let bad = document(
            "<plugin><min_velocity>2</min_velocity><max_velocity>1</max_velocity></plugin>",
        );
        assert_eq!(
            limiter(&bad.root()).unwrap_err().message.as_str(),
            "m: X: a <min_...> limit is above its <max_...>"
        );
    }
}
