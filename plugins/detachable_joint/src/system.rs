//! The detachable joint: attach when the child exists, detach and attach on request.

use sim_plugin_api::{prelude::*, runtime_joints};
use simcore_plugin_common::gz::{GzSystem, missing, own_name, valid_topic};
use simcore_plugin_common::{Attached, attached, find_in_model, parse_plugin_sdf, text};

/// A fixed joint that can be released and made again (see the crate documentation).
pub struct DetachableJoint {
    parent_link: EntityId,
    /// The child: `model::link` as a scoped name (looked up until it exists).
    child: String,
    suppress_child_warning: bool,
    warned: bool,
    /// The detach, attach and state topics.
    topics: [String; 3],
    /// The run-time joint while attached.
    joint: Option<u64>,
    /// Whether an attach is due (at start, and after an attach request while detached).
    attach_due: bool,
}

/// The first valid topic of `<tag>` (if written) and `default`, as gz-sim's `validTopic`.
fn topic(
    root: Option<simcore_plugin_common::roxmltree::Node<'_, '_>>,
    tags: &[&str],
    default: String,
    who: &str,
) -> Result<String, PluginError> {
    tags.iter()
        .filter_map(|t| root.and_then(|r| text(r, t)))
        .chain(std::iter::once(default.as_str()))
        .find_map(valid_topic)
        .ok_or_else(|| missing(format!("{who}: no valid topic (`{default}`)")))
}

impl GzSystem for DetachableJoint {
    /// Creates the system from its `<plugin>` element; it must be attached to a model that
    /// has `<parent_link>`, and name `<child_model>` and `<child_link>`.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, .. } = attached(config, world, "DetachableJoint")?;
        let doc = parse_plugin_sdf(config.sdf.as_str(), &who)?;
        let root = doc.as_ref().map(|d| d.root_element());
        let required = |tag: &str| -> Result<String, PluginError> {
            match root.and_then(|r| text(r, tag)) {
                Some(t) if !t.is_empty() => Ok(t.to_string()),
                _ => Err(missing(format!("{who}: '{tag}' is a required parameter"))),
            }
        };
        let parent = required("parent_link")?;
        let parent_link = find_in_model(world, scoped, &parent, EntityKind::LINK).map_err(|e| {
            missing(
                e.element_error(&format!("{who}: <parent_link>"), &parent, EntityKind::LINK)
                    .message,
            )
        })?;
        let child_model = required("child_model")?;
        let child_link = required("child_link")?;
        let child_model = if child_model == "__model__" {
            scoped.to_string()
        } else {
            child_model
        };
        let suppress_child_warning = match root {
            Some(r) => simcore_plugin_common::Reader::new(&who)
                .boolean(r, "suppress_child_warning")?
                .unwrap_or(false),
            None => false,
        };
        let model = own_name(world, config.entity, scoped);
        let base = format!("/model/{model}/detachable_joint");
        let topics = [
            topic(
                root,
                &["detach_topic", "topic"],
                format!("{base}/detach"),
                &who,
            )?,
            topic(root, &["attach_topic"], format!("{base}/attach"), &who)?,
            topic(root, &["output_topic"], format!("{base}/state"), &who)?,
        ];
        Ok(DetachableJoint {
            parent_link,
            child: format!("{child_model}::{child_link}"),
            suppress_child_warning,
            warned: false,
            topics,
            joint: None,
            attach_due: true,
        })
    }

    /// The state: `attached` or `detached`.
    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(self.topics[2].clone(), "StringMsg")]
    }
}

impl DetachableJoint {
    /// The detach, attach and state topics.
    pub fn topics(&self) -> &[String; 3] {
        &self.topics
    }

    fn state(&self, commands: &mut CommandsMut<'_>, now: SimTime, attached: bool) {
        let text = if attached { "attached" } else { "detached" };
        let mut m = Message::new(self.topics[2].as_str(), Payload::Text(text.into()));
        m.header.stamp = now;
        commands.publish(m);
    }
}

impl System for DetachableJoint {
    fn subscriptions(&self) -> Vec<String> {
        vec![self.topics[0].clone(), self.topics[1].clone()]
    }

    fn pre_step(
        &mut self,
        ctx: &StepContext,
        inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        let on = |t: &str| inbox.iter().any(|m| m.topic.as_str() == t);
        if on(&self.topics[0]) {
            if let Some(id) = self.joint.take() {
                if let Some(j) = runtime_joints(commands) {
                    j.detach(id);
                }
                self.state(commands, ctx.now, false);
            }
            self.attach_due = false;
        }
        if on(&self.topics[1]) && self.joint.is_none() {
            self.attach_due = true;
        }
        if !self.attach_due {
            return Ok(());
        }
        let child = world.entity_by_name(self.child.as_str().into());
        let is_link =
            world.entity_info(child).into_option().map(|i| i.kind) == Some(EntityKind::LINK);
        if !is_link {
            if !self.warned && !self.suppress_child_warning {
                self.warned = true;
                world.log_message(
                    LogLevel::WARN,
                    &format!(
                        "DetachableJoint: child link `{}` not found; it is attached once it exists",
                        self.child
                    ),
                );
            }
            return Ok(());
        }
        let Some(j) = runtime_joints(commands) else {
            self.attach_due = false;
            world.log_message(
                LogLevel::WARN,
                "DetachableJoint: this engine cannot make joints at run time (no simcore.runtime_joints.v1 extension)",
            );
            return Ok(());
        };
        self.joint = Some(j.attach_fixed(self.parent_link, child));
        self.attach_due = false;
        self.state(commands, ctx.now, true);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_valid_topic_wins() {
        let doc = simcore_plugin_common::roxmltree::Document::parse(
            "<plugin><topic>old</topic><detach_topic>a//b</detach_topic></plugin>",
        )
        .unwrap();
        let root = Some(doc.root_element());
        let t = |tags: &[&str]| topic(root, tags, "/d".into(), "m: DetachableJoint").unwrap();
        assert_eq!(
            t(&["detach_topic", "topic"]),
            "/old",
            "an invalid topic is passed over"
        );
        assert_eq!(t(&["attach_topic"]), "/d");
    }
}
