//! The engine's side of the `simcore.output_types.v1` extension: the topics a sensor or a
//! system declares, while its factory creates it, that it publishes on, each with its payload
//! kind (see [`sim_plugin_api::output_types`](mod@sim_plugin_api::output_types)).
//!
//! The extension is offered on the world a factory's `create` receives, because a run's
//! outputs are listed (`simcore run --list`) and `--echo` names checked before the first
//! step. The topic, the kind and the count are checked during the call; the declarations are
//! kept by the sensor or system manager beside the plugin, which give the rows of what a run
//! serves ([`ServedTopic`], [`ServedService`], gathered by [`crate::runner::Served`]).

use sim_codec::kinds::{KINDS, kind_named};
use sim_plugin_api::{
    MAX_OUTPUT_TYPES, OutputTypes,
    abi_stable::std_types::{RErr, ROk, RResult, RStr, RString},
};
use sim_transport::validate_topic;
use std::cell::RefCell;

/// The most bytes of a declared topic (an input's or an output's).
pub const MAX_DECLARED_TOPIC_BYTES: usize = 1024;

/// Which way a topic's messages go, seen from the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// The world publishes there (a sensor's or system's output).
    Out,
    /// The world listens there (a system's subscription, a sensor's trigger).
    In,
}

impl Direction {
    /// `out` or `in`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Out => "out",
            Direction::In => "in",
        }
    }
}

/// One topic a run serves, one way, for one sensor or plugin.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ServedTopic {
    /// The topic.
    pub topic: String,
    /// Which way its messages go.
    pub direction: Direction,
    /// The payload kind ([`sim_plugin_api::Payload::type_name`]), when known.
    pub kind: Option<&'static str>,
    /// Who publishes or listens there: `sensor m::l::s`, `plugin NAME (on ENTITY)`; empty
    /// for a topic published on from outside the plugins (`--pub`, a transport).
    pub by: String,
}

/// One service a run serves.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ServedService {
    /// The service.
    pub name: String,
    /// Who answers it: `sensor m::l::s` (its `set_rate`), `plugin NAME (on ENTITY)`.
    pub by: String,
}

/// One output a plugin declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredOutput {
    /// The topic, resolved as the plugin's publications are.
    pub topic: String,
    /// The payload kind published there ([`sim_plugin_api::Payload::type_name`]).
    pub kind: &'static str,
}

/// How a plugin's relative topics resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TopicBase {
    /// A sensor's, below its own topic (`""` is that topic itself).
    Sensor(String),
    /// A system's, below its namespace (`/world/<w>` or `/model/<m>`).
    System(String),
}

impl TopicBase {
    /// `topic` as the plugin's publications resolve it.
    pub fn resolve(&self, topic: &str) -> String {
        match self {
            TopicBase::Sensor(own) if topic.is_empty() => own.clone(),
            _ if topic.starts_with('/') => topic.to_string(),
            TopicBase::Sensor(own) => format!("{own}/{topic}"),
            // As `systems::resolve_topic`.
            TopicBase::System(namespace) => format!("{namespace}/{topic}"),
        }
    }
}

/// The output declarations of one plugin's creation, in order (a later one for the same
/// topic replaces the earlier).
#[derive(Debug)]
pub struct OutputDeclarations {
    who: String,
    base: TopicBase,
    declared: RefCell<Vec<DeclaredOutput>>,
}

impl OutputDeclarations {
    /// Declarations of the plugin `who` (as warnings name it), whose relative topics resolve
    /// against `base`.
    pub fn new(who: String, base: TopicBase) -> Self {
        OutputDeclarations {
            who,
            base,
            declared: RefCell::new(Vec::new()),
        }
    }

    /// What was declared.
    pub fn take(&self) -> Vec<DeclaredOutput> {
        std::mem::take(&mut self.declared.borrow_mut())
    }

    fn check(&self, topic: &str, kind: &str) -> Result<(), String> {
        let resolved = declared_topic(topic, |t| self.base.resolve(t))?;
        let Some(k) = kind_named(kind) else {
            let kinds: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
            return Err(format!(
                "`{resolved}`: there is no payload kind `{}` (the kinds: {})",
                shown(kind),
                kinds.join(", ")
            ));
        };
        let entry = DeclaredOutput {
            topic: resolved,
            kind: k.name,
        };
        keep(
            &mut self.declared.borrow_mut(),
            entry,
            MAX_OUTPUT_TYPES,
            |d| &d.topic,
        )
        .map_err(|d| {
            format!(
                "`{}`: a plugin declares at most {MAX_OUTPUT_TYPES} outputs",
                d.topic
            )
        })
    }
}

impl OutputTypes for OutputDeclarations {
    fn declare(&self, topic: RStr<'_>, kind: RStr<'_>) -> RResult<(), RString> {
        answer(
            &self.who,
            "an output type",
            self.check(topic.as_str(), kind.as_str()),
        )
    }
}

/// The topic a declaration (an input's or an output's) names, resolved with `resolve`: at
/// most [`MAX_DECLARED_TOPIC_BYTES`] as written, and a valid topic once resolved.
pub(crate) fn declared_topic(
    topic: &str,
    resolve: impl FnOnce(&str) -> String,
) -> Result<String, String> {
    if topic.len() > MAX_DECLARED_TOPIC_BYTES {
        return Err(format!(
            "the topic `{}` is over {MAX_DECLARED_TOPIC_BYTES} bytes",
            shown(topic)
        ));
    }
    validate_topic(&resolve(topic)).map_err(|e| e.to_string())
}

/// Keeps `entry` among `declared`: in place of the declaration of the same topic (`topic`
/// names it; a later one replaces the earlier), else added while fewer than `max` are kept.
/// Gives `entry` back when there is no room.
pub(crate) fn keep<T>(
    declared: &mut Vec<T>,
    entry: T,
    max: usize,
    topic: impl Fn(&T) -> &String,
) -> Result<(), T> {
    if let Some(d) = declared.iter_mut().find(|d| topic(d) == topic(&entry)) {
        *d = entry;
    } else if declared.len() < max {
        declared.push(entry);
    } else {
        return Err(entry);
    }
    Ok(())
}

/// The extension's answer to a declaration of `what` by plugin `who`: a refusal is also
/// warned about, naming the plugin.
pub(crate) fn answer(who: &str, what: &str, checked: Result<(), String>) -> RResult<(), RString> {
    match checked {
        Ok(()) => ROk(()),
        Err(e) => {
            tracing::warn!("{who}: refused {what}: {e}");
            RErr(e.into())
        }
    }
}

/// `s` cut to at most 80 characters, for messages.
pub(crate) fn shown(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system() -> OutputDeclarations {
        OutputDeclarations::new(
            "plugin P (on m)".into(),
            TopicBase::System("/model/m".into()),
        )
    }

    fn sensor() -> OutputDeclarations {
        OutputDeclarations::new(
            "sensor m::l::cam".into(),
            TopicBase::Sensor("/world/w/model/m/link/l/sensor/cam/image".into()),
        )
    }

    fn declare(d: &OutputDeclarations, topic: &str, kind: &str) -> Result<(), String> {
        d.declare(topic.into(), kind.into())
            .into_result()
            .map_err(String::from)
    }

    fn got(d: &OutputDeclarations) -> Vec<(String, &'static str)> {
        d.take().into_iter().map(|o| (o.topic, o.kind)).collect()
    }

    #[test]
    fn a_system_s_relative_topics_resolve_in_its_namespace() {
        let d = system();
        declare(&d, "odometry", "Odometry").unwrap();
        declare(&d, "/abs/tf", "Pose_V").unwrap();
        declare(&d, "state", "Custom").unwrap();
        declare(&d, "odometry", "Pose").unwrap();
        assert_eq!(
            got(&d),
            [
                ("/model/m/odometry".to_string(), "Pose"),
                ("/abs/tf".to_string(), "Pose_V"),
                ("/model/m/state".to_string(), "Custom"),
            ]
        );
        let e = declare(&d, "", "Double").unwrap_err();
        assert!(e.contains("ends with `/`"), "{e}");
    }

    #[test]
    fn a_sensor_s_relative_topics_resolve_below_its_own() {
        let d = sensor();
        declare(&d, "", "Image").unwrap();
        declare(&d, "points", "PointCloudPacked").unwrap();
        declare(&d, "/w/cam/camera_info", "CameraInfo").unwrap();
        assert_eq!(
            got(&d),
            [
                (
                    "/world/w/model/m/link/l/sensor/cam/image".to_string(),
                    "Image"
                ),
                (
                    "/world/w/model/m/link/l/sensor/cam/image/points".to_string(),
                    "PointCloudPacked"
                ),
                ("/w/cam/camera_info".to_string(), "CameraInfo"),
            ]
        );
    }

    #[test]
    fn an_unknown_kind_is_refused_with_the_kinds() {
        let d = system();
        let e = declare(&d, "odometry", "Odom").unwrap_err();
        assert!(e.contains("`/model/m/odometry`"), "{e}");
        assert!(e.contains("no payload kind `Odom`"), "{e}");
        assert!(e.contains("Odometry") && e.contains("Custom"), "{e}");
        let e = declare(&d, "odometry", &"K".repeat(100_000)).unwrap_err();
        assert!(e.len() < 2000, "the message is bounded: {} bytes", e.len());
        assert!(d.take().is_empty());
    }

    #[test]
    fn an_invalid_topic_is_refused() {
        let d = sensor();
        let e = declare(&d, "bad topic", "Image").unwrap_err();
        assert!(e.contains("whitespace"), "{e}");
        let e = declare(&d, &"t".repeat(MAX_DECLARED_TOPIC_BYTES + 1), "Image").unwrap_err();
        assert!(e.contains("over 1024 bytes") && e.len() < 300, "{e}");
        assert!(d.take().is_empty());
    }

    #[test]
    fn declarations_are_bounded() {
        let d = system();
        for i in 0..MAX_OUTPUT_TYPES {
            declare(&d, &format!("out{i}"), "Double").unwrap();
        }
        let e = declare(&d, "one_more", "Double").unwrap_err();
        assert!(e.contains("at most 64 outputs"), "{e}");
        // Replacing one already declared is not one more.
        declare(&d, "out3", "Twist").unwrap();
        let all = d.take();
        assert_eq!(all.len(), MAX_OUTPUT_TYPES);
        assert_eq!(all[3].kind, "Twist");
    }
}
