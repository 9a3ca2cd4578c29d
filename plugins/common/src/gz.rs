//! What gz-sim's systems share in reading their `<plugin>` element: topic names made valid as
//! gz-transport makes them, the `<topic>` / `<sub_topic>` / default choice of the controller
//! systems, repeated `<joint_name>` elements resolved to joints, and gz-sim's way with a
//! system whose joints or links are missing: it is reported and does nothing ([`OrIdle`]).

use crate::lookup::find_in_model;
use crate::sdf::text;
use roxmltree::Node;
use sim_plugin_api::prelude::*;
use sim_plugin_api::{EntityId, EntityKind, Extension, PluginError, WorldRef};

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
