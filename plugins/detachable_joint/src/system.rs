//! The detachable joint: attach when the child exists, detach and attach on request.

use sim_plugin_api::{prelude::*, runtime_joints};
use simcore_plugin_common::gz::{
    GzSystem, entity, first_named, first_valid_topic, missing, own_name,
};
use simcore_plugin_common::sdf::at;
use simcore_plugin_common::{Attached, attached, plugin_document};

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

impl GzSystem for DetachableJoint {
    /// Creates the system from its `<plugin>` element; it must be attached to a model that
    /// has `<parent_link>`, and name `<child_model>` and `<child_link>`.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, .. } = attached(config, world, "DetachableJoint")?;
        let doc = plugin_document(config, &who)?;
        let root = doc.root();
        let required = |tag: &str| -> Result<String, PluginError> {
            let element = first_named(&root, tag).ok_or_else(|| {
                missing(format!(
                    "{who}: '{tag}' is a required parameter{}",
                    at(&root)
                ))
            })?;
            Ok(element.text().to_string())
        };
        let parent = required("parent_link")?;
        let parent_link = entity(
            world,
            scoped,
            &parent,
            EntityKind::LINK,
            "parent_link",
            &who,
        )?;
        let child_model = required("child_model")?;
        let child_link = required("child_link")?;
        let child_model = if child_model == "__model__" {
            scoped.to_string()
        } else {
            child_model
        };
        let suppress_child_warning = root.get_or("suppress_child_warning", false)?;
        let model = own_name(world, config.entity, scoped);
        let base = format!("/model/{model}/detachable_joint");
        let topic =
            |tags: &[&str], last: &str| first_valid_topic(&root, tags, &format!("{base}/{last}"));
        let topics = [
            topic(&["detach_topic", "topic"], "detach")?,
            topic(&["attach_topic"], "attach")?,
            topic(&["output_topic"], "state")?,
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
    use sim_plugin_api::sdf::{Origin, SdfDocument};
    use simcore_plugin_common::testing::SystemSetup;

    #[test]
    fn the_first_valid_topic_wins() {
        let doc = SdfDocument::parse(
            "<plugin><topic>old</topic><detach_topic>a//b</detach_topic></plugin>",
            Origin::new("m: DetachableJoint"),
        )
        .unwrap();
        let t = |tags: &[&str]| first_valid_topic(&doc.root(), tags, "/d").unwrap();
        assert_eq!(
            t(&["detach_topic", "topic"]),
            "/old",
            "an invalid topic is passed over"
        );
        assert_eq!(t(&["attach_topic"]), "/d");
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let setup = SystemSetup::on_model("gz::sim::systems::DetachableJoint", "m").with(
            2,
            EntityKind::LINK,
            "base",
        );
        let create_from = |sdf: &str| setup.create::<DetachableJoint>(sdf).map(|s| s.is_idle());
        let e = create_from(
            "<plugin name=\"gz::sim::systems::DetachableJoint\" filename=\"f\">\n  \
             <parent_link>base</parent_link><child_model>box</child_model>\n  \
             <child_link>body</child_link><suppress_child_warning>yes</suppress_child_warning>\n\
             </plugin>",
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "m: DetachableJoint: <suppress_child_warning> must be true, false, 1 or 0, \
             found \"yes\" at world.sdf:42"
        );
        // Without a parent link the system is idle, with a warning saying where.
        assert!(create_from("").unwrap(), "idle");
        assert_eq!(
            setup.last_log(),
            "m: DetachableJoint: 'parent_link' is a required parameter at world.sdf:40; the \
             system does nothing (as in gz-sim)"
        );
    }
}
