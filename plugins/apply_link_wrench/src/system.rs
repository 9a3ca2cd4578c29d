//! The ApplyLinkWrench system: wrenches queued from its topics and the SDF, applied before
//! each step.

use crate::wrench::{EntityRef, EntityWrench, TargetKind, parse_entity, parse_wrench, persistent};
use sim_plugin_api::prelude::*;
use simcore_plugin_common::gz::{GzSystem, lever_torque, missing, topic_or};
use simcore_plugin_common::{Reader, on_world, parse_plugin_sdf};

/// The most persistent wrenches kept; more are refused with a warning.
pub const MAX_PERSISTENT: usize = 1024;

/// Wrenches on links and models (see the crate documentation).
pub struct ApplyLinkWrench {
    topic: String,
    topic_persistent: String,
    topic_clear: String,
    verbose: bool,
    persistent: Vec<EntityWrench>,
}

impl GzSystem for ApplyLinkWrench {
    /// Creates the system from its `<plugin>` element; it must be attached to the world.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let who = format!("{}: ApplyLinkWrench", config.entity_name.as_str());
        if !on_world(config, world) {
            return Err(missing(format!("{who}: should be attached to a world")));
        }
        let w = config.world_name.as_str();
        let doc = parse_plugin_sdf(config.sdf.as_str(), &who)?;
        let r = Reader::new(&who);
        let mut sys = ApplyLinkWrench {
            topic: format!("/world/{w}/wrench"),
            topic_persistent: format!("/world/{w}/wrench/persistent"),
            topic_clear: format!("/world/{w}/wrench/clear"),
            verbose: true,
            persistent: Vec::new(),
        };
        let Some(doc) = doc else { return Ok(sys) };
        let root = doc.root_element();
        sys.verbose = r.boolean(root, "verbose")?.unwrap_or(true);
        sys.topic = topic_or(root, "topic", sys.topic, &who)?;
        sys.topic_persistent = topic_or(root, "topic_persistent", sys.topic_persistent, &who)?;
        sys.topic_clear = topic_or(root, "topic_clear", sys.topic_clear, &who)?;
        for e in root
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "persistent")
        {
            match persistent(&r, e)? {
                Some(w) if sys.persistent.len() < MAX_PERSISTENT => sys.persistent.push(w),
                Some(_) => world.log_message(
                    LogLevel::WARN,
                    &format!("{who}: more than {MAX_PERSISTENT} <persistent> wrenches; the rest are ignored"),
                ),
                None => world.log_message(
                    LogLevel::WARN,
                    &format!(
                        "{who}: skipping a <persistent> element without <entity_name> and an \
                         <entity_type> of link or model"
                    ),
                ),
            }
        }
        Ok(sys)
    }
}

/// The link a reference names: the link itself, or a model's canonical link.
fn target(world: &WorldRef<'_>, e: &EntityRef) -> Option<EntityId> {
    let id = if e.id != 0 {
        EntityId(e.id)
    } else {
        world.entity_by_name(e.name.as_str().into())
    };
    let kind = world.entity_info(id).into_option()?.kind;
    match (kind, e.kind) {
        (EntityKind::LINK, TargetKind::Link | TargetKind::Any) => Some(id),
        (EntityKind::MODEL, TargetKind::Model | TargetKind::Any) => {
            let link = world.mechanics()?.canonical_link(id);
            (!link.is_none()).then_some(link)
        }
        _ => None,
    }
}

/// Queues `w` on its link: the force at the centre of mass plus `offset` (link frame), as
/// the engine's force at the link origin and the torque of the lever arm.
fn apply(world: &WorldRef<'_>, commands: &mut CommandsMut<'_>, link: EntityId, w: &EntityWrench) {
    let Some(state) = world.kinematics_of(link) else {
        return;
    };
    let lever = lever_torque(world, link, state.pose, w.force, w.offset);
    commands.apply_wrench(link, w.force, w.torque + lever);
}

impl ApplyLinkWrench {
    /// The one-step, persistent and clear topics.
    pub fn topics(&self) -> [&str; 3] {
        [&self.topic, &self.topic_persistent, &self.topic_clear]
    }
}

impl System for ApplyLinkWrench {
    fn subscriptions(&self) -> Vec<String> {
        let mut t: Vec<String> = self.topics().iter().map(|s| s.to_string()).collect();
        t.dedup();
        t
    }

    fn pre_step(
        &mut self,
        _ctx: &StepContext,
        inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        let warn =
            |msg: String| world.log_message(LogLevel::WARN, &format!("ApplyLinkWrench: {msg}"));
        let mut once = Vec::new();
        // Clear requests first, as gz-sim does; then the new wrenches, in order.
        for m in inbox
            .iter()
            .filter(|m| m.topic.as_str() == self.topic_clear)
        {
            match parse_entity(m) {
                Some(Ok(e)) => {
                    let gone = target(world, &e);
                    let before = self.persistent.len();
                    self.persistent
                        .retain(|p| gone.is_none() || target(world, &p.entity) != gone);
                    if self.verbose && before != self.persistent.len() {
                        world.log_message(
                            LogLevel::DEBUG,
                            &format!(
                                "ApplyLinkWrench: cleared the persistent wrenches of `{}`",
                                e.name
                            ),
                        );
                    }
                }
                Some(Err(e)) => warn(e),
                None => warn(format!(
                    "{} takes gz.msgs.Entity messages (JSON)",
                    self.topic_clear
                )),
            }
        }
        for m in inbox {
            let t = m.topic.as_str();
            if t != self.topic && t != self.topic_persistent {
                continue;
            }
            match parse_wrench(m) {
                Some(Ok(w)) if t == self.topic_persistent => {
                    if self.persistent.len() < MAX_PERSISTENT {
                        self.persistent.push(w);
                    } else {
                        warn(format!(
                            "more than {MAX_PERSISTENT} persistent wrenches; this one is ignored"
                        ));
                    }
                }
                Some(Ok(w)) => once.push(w),
                Some(Err(e)) => warn(e),
                None => warn(format!("{t} takes gz.msgs.EntityWrench messages (JSON)")),
            }
        }
        for w in &once {
            match target(world, &w.entity) {
                Some(link) => apply(world, commands, link, w),
                None => warn(format!(
                    "entity `{}` (id {}) is not a link or a model",
                    w.entity.name, w.entity.id
                )),
            }
        }
        // A persistent wrench may name an entity not created yet: it waits for it.
        for w in &self.persistent {
            if let Some(link) = target(world, &w.entity) {
                apply(world, commands, link, w);
            }
        }
        Ok(())
    }
}
