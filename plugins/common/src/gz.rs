//! What gz-sim's systems share in reading their `<plugin>` element: topic names made valid as
//! gz-transport makes them, the `<topic>` / `<sub_topic>` / default choice of the controller
//! systems, repeated `<joint_name>` elements resolved to joints, and gz-sim's way with a
//! system whose joints or links are missing: it is reported and does nothing ([`OrIdle`]).

use crate::lookup::find_in_model;
use crate::sdf::{Reader, text};
use crate::{Pid, SpeedLimiter};
use roxmltree::Node;
use sim_plugin_api::abi_stable::std_types::{RBox, RVec};
use sim_plugin_api::msgs::NamedPose;
use sim_plugin_api::prelude::*;
use sim_plugin_api::{EntityId, EntityKind, Extension, PluginError, WorldRef};

/// A gz-sim system built from its `<plugin>` element, served through [`create`].
pub trait GzSystem: Sized {
    /// Builds the system; a [`missing`] error where gz-sim's system would do nothing.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError>;
}

/// The factory of a [`GzSystem`] (for `export_plugin!`'s `create:`): the system, or, where a
/// joint, link or element it needs is missing, a warning and an idle system (see [`OrIdle`]).
pub fn create<S: GzSystem>(
    config: &SystemConfig<'_>,
    world: &WorldRef<'_>,
) -> Result<OrIdle<S>, PluginError> {
    OrIdle::from(S::build(config, world), world)
}

/// A system, or nothing: what a gz-sim system is when an element or an entity it needs is
/// missing (gz-sim logs an error and the system does nothing; the world runs).
pub enum OrIdle<S> {
    /// The system.
    Active(S),
    /// Nothing: no subscriptions, no commands, no output.
    Idle,
}

impl<S> OrIdle<S> {
    /// `created` as a system, or, when it failed with [`ErrorCode::NOT_FOUND`] (a missing
    /// element or entity), a warning naming what is missing and an idle system. Other errors
    /// (malformed values) stay errors.
    pub fn from(
        created: Result<S, PluginError>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        match created {
            Ok(s) => Ok(OrIdle::Active(s)),
            Err(e) if e.code == ErrorCode::NOT_FOUND => {
                world.log_message(
                    LogLevel::WARN,
                    &format!("{}; the system does nothing (as in gz-sim)", e.message),
                );
                Ok(OrIdle::Idle)
            }
            Err(e) => Err(e),
        }
    }

    /// Whether this is [`OrIdle::Idle`].
    pub fn is_idle(&self) -> bool {
        matches!(self, OrIdle::Idle)
    }
}

impl<S: System> System for OrIdle<S> {
    fn subscriptions(&self) -> Vec<String> {
        match self {
            OrIdle::Active(s) => s.subscriptions(),
            OrIdle::Idle => Vec::new(),
        }
    }
    fn services(&self) -> Vec<String> {
        match self {
            OrIdle::Active(s) => s.services(),
            OrIdle::Idle => Vec::new(),
        }
    }
    fn pre_step(
        &mut self,
        ctx: &StepContext,
        inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        match self {
            OrIdle::Active(s) => s.pre_step(ctx, inbox, world, commands),
            OrIdle::Idle => Ok(()),
        }
    }
    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        match self {
            OrIdle::Active(s) => s.post_step(ctx, world, out),
            OrIdle::Idle => Ok(()),
        }
    }
    fn call(
        &mut self,
        service: &str,
        request: &Message,
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<Message, PluginError> {
        match self {
            OrIdle::Active(s) => s.call(service, request, world, commands),
            OrIdle::Idle => Err(PluginError::new(
                ErrorCode::NOT_FOUND,
                format!("no service `{service}`"),
            )),
        }
    }
    fn reset(&mut self, world: &WorldRef<'_>) -> Result<(), PluginError> {
        match self {
            OrIdle::Active(s) => s.reset(world),
            OrIdle::Idle => Ok(()),
        }
    }
    fn extension(&self, name: &str) -> Option<Extension<'_>> {
        match self {
            OrIdle::Active(s) => s.extension(name),
            OrIdle::Idle => None,
        }
    }
}

/// The [`ErrorCode::NOT_FOUND`] error `message`: something a gz-sim system needs is missing.
pub fn missing(message: impl Into<String>) -> PluginError {
    PluginError::new(ErrorCode::NOT_FOUND, message)
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

/// Whether every component of a commanded twist is a finite number (gz-sim's systems would
/// pass a NaN on to the physics; here such a command is ignored).
pub fn finite_twist(t: &Twist) -> bool {
    [t.linear, t.angular]
        .iter()
        .all(|v| v.x.is_finite() && v.y.is_finite() && v.z.is_finite())
}

/// The pose of a planar odometry at `x`, `y` heading `yaw` (z, roll and pitch 0).
pub fn planar_pose(x: f64, y: f64, yaw: f64) -> Pose {
    Pose::new(Vec3::new(x, y, 0.0), Quat::from_rpy(0.0, 0.0, yaw))
}

/// The body twist of travelling `travel` m forward while turning `turn` rad in `span` s
/// (zero for no time).
pub fn mean_twist(travel: f64, turn: f64, span: f64) -> Twist {
    if span > 0.0 {
        Twist {
            linear: Vec3::new(travel / span, 0.0, 0.0),
            angular: Vec3::new(0.0, 0.0, turn / span),
        }
    } else {
        Twist::default()
    }
}

/// The odometry message of gz-sim's drive systems on `topic` and its transform on `tf`: the
/// pose (as one pose named `child`) and the twist, both with `header.frame_id` = `frame`.
pub fn odometry_messages(
    topic: &SharedStr,
    tf: &SharedStr,
    frame: &SharedStr,
    child: &SharedStr,
    pose: Pose,
    twist: Twist,
) -> [Message; 2] {
    let mut odom = Message::new(
        topic.clone(),
        Payload::Odometry(RBox::new(Odometry { pose, twist })),
    );
    odom.header.frame_id = frame.clone();
    let mut transform = Message::new(
        tf.clone(),
        Payload::PoseList(RBox::new(RVec::from(vec![NamedPose {
            name: child.clone(),
            pose,
        }]))),
    );
    transform.header.frame_id = frame.clone();
    [odom, transform]
}

/// The own name of the entity a system is attached to (gz-sim's `Model::Name`, which the
/// default topics use), or `scoped` when the engine does not know it.
pub fn own_name(world: &WorldRef<'_>, entity: EntityId, scoped: &str) -> String {
    world
        .entity_info(entity)
        .into_option()
        .map(|i| i.name.to_string())
        .unwrap_or_else(|| scoped.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

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
