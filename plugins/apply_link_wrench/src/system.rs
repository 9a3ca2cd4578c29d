//! The ApplyLinkWrench system: wrenches queued from its topics and the SDF, applied before
//! each step.

use crate::wrench::{EntityRef, EntityWrench, TargetKind, parse_entity, parse_wrench, persistent};
use sim_plugin_api::prelude::*;
use simcore_plugin_common::gz::{GzSystem, lever_torque, missing, topic_or};
use simcore_plugin_common::{on_world, plugin_document};

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
        let doc = plugin_document(config, &who)?;
        let root = doc.root();
        let mut sys = ApplyLinkWrench {
            verbose: root.get_or("verbose", true)?,
            topic: topic_or(&root, "topic", format!("/world/{w}/wrench"))?,
            topic_persistent: topic_or(
                &root,
                "topic_persistent",
                format!("/world/{w}/wrench/persistent"),
            )?,
            topic_clear: topic_or(&root, "topic_clear", format!("/world/{w}/wrench/clear"))?,
            persistent: Vec::new(),
        };
        for e in root.children_named("persistent") {
            match persistent(&e)? {
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

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::SystemSetup;

    /// The system on the world `test`, written at line 40 of `world.sdf`.
    fn setup() -> SystemSetup<'static> {
        SystemSetup::on_world("gz::sim::systems::ApplyLinkWrench", "test")
    }

    /// The world and the system built in it from `sdf`.
    fn create_from(sdf: &str) -> (SystemSetup<'static>, Result<ApplyLinkWrench, PluginError>) {
        let s = setup();
        let config = s.config(sdf);
        let created = s
            .world
            .with(|world| ApplyLinkWrench::build(&config, &world));
        (s, created)
    }

    #[test]
    fn topics_and_persistent_wrenches() {
        let (w, created) = create_from(
            "<plugin name=\"gz::sim::systems::ApplyLinkWrench\" filename=\"f\">\n  \
             <topic>push</topic><verbose>0</verbose>\n  \
             <persistent><entity_name>box</entity_name><entity_type>model</entity_type>\
             <force>1 0 0</force></persistent>\n  \
             <persistent><entity_name>box</entity_name></persistent>\n</plugin>",
        );
        let sys = created.unwrap();
        assert_eq!(
            sys.topics(),
            [
                "/push",
                "/world/static/wrench/persistent",
                "/world/static/wrench/clear"
            ]
        );
        assert!(!sys.verbose);
        assert_eq!(sys.persistent.len(), 1);
        assert_eq!(sys.persistent[0].force, Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(
            w.world.logs.lock().unwrap().len(),
            1,
            "the second is skipped"
        );
        let (_, created) = create_from("");
        assert_eq!(created.unwrap().topics()[0], "/world/static/wrench");
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let (_, created) = create_from(
            "<plugin name=\"gz::sim::systems::ApplyLinkWrench\" filename=\"f\">\n  \
             <persistent>\n    <entity_name>box</entity_name><entity_type>link</entity_type>\n    \
             <torque>0 0 z</torque>\n  </persistent>\n</plugin>",
        );
        let e = created.err().expect("an error");
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "test: ApplyLinkWrench: <persistent><torque> must be three numbers (x y z), \
             found \"0 0 z\" at world.sdf:43"
        );
        // Through the factory too.
        let e = setup().create_error::<ApplyLinkWrench>("<plugin><topic>a//b</topic></plugin>");
        assert!(e.message.ends_with("found \"a//b\" at world.sdf:40"), "{e}");
    }
}
