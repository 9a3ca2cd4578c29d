//! The joint state publisher: the model's joints after every step, on one topic.

use crate::message::{JointEntry, model_message};
use sim_plugin_api::{
    abi_stable::std_types::{RSlice, RSliceMut, RVec},
    prelude::*,
};
use simcore_plugin_common::gz::{GzSystem, first_valid_topic, joints, missing};
use simcore_plugin_common::{Attached, attached, plugin_document};

/// The state of a model's joints (see the crate documentation).
pub struct JointStatePublisher {
    model: EntityId,
    model_name: String,
    topic: String,
    /// The joints published, in order, with their own names.
    joints: Vec<(EntityId, String)>,
    states: Vec<JointState>,
}

/// gz-sim's default topic of a model: `/world/<world>/model/<m>` with one `/model/<name>` per
/// level of nesting of the scoped name `a::b`, then `/joint_state`.
pub fn default_topic(world: &str, scoped_model: &str) -> String {
    let mut t = format!("/world/{world}");
    for part in scoped_model.split("::") {
        t.push_str("/model/");
        t.push_str(part);
    }
    t.push_str("/joint_state");
    t
}

impl GzSystem for JointStatePublisher {
    /// Creates the system from its `<plugin>` element; it must be attached to a model. A
    /// `<joint_name>` the model lacks is reported and left out, as in gz-sim; a repeated one
    /// is published once.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, .. } = attached(config, world, "JointStatePublisher")?;
        let doc = plugin_document(config, &who)?;
        let root = doc.root();
        let listed: Vec<String> = root
            .children_named("joint_name")
            .map(|c| c.text().to_string())
            .collect();
        let mut ids = Vec::new();
        if listed.is_empty() {
            let mech = world.mechanics().ok_or_else(|| {
                missing(format!(
                    "{who}: this engine cannot list the model's joints (no simcore.mechanics.v1 \
                     extension); name them with <joint_name>"
                ))
            })?;
            let mut all = RVec::new();
            mech.model_joints(config.entity, &mut all);
            ids.extend(all.iter().copied());
        } else {
            for name in &listed {
                match joints(
                    world,
                    scoped,
                    std::slice::from_ref(name),
                    "joint_name",
                    &who,
                ) {
                    Ok(found) => ids.extend(found),
                    Err(e) => world.log_message(
                        LogLevel::WARN,
                        &format!("{}; the JointStatePublisher leaves it out", e.message),
                    ),
                }
            }
        }
        let mut joints = Vec::new();
        for id in ids {
            if joints.iter().any(|(j, _)| *j == id) {
                world.log_message(
                    LogLevel::WARN,
                    &format!("{who}: a duplicate joint is ignored"),
                );
                continue;
            }
            let name = world
                .entity_info(id)
                .into_option()
                .map(|i| i.name.to_string())
                .unwrap_or_default();
            joints.push((id, name));
        }
        let model_name = simcore_plugin_common::gz::own_name(world, config.entity, scoped);
        let default = default_topic(config.world_name.as_str(), scoped);
        let topic = first_valid_topic(&root, &["topic"], &default)?;
        Ok(JointStatePublisher {
            model: config.entity,
            model_name,
            topic,
            states: vec![JointState::default(); joints.len()],
            joints,
        })
    }

    /// The joint states, as gz-sim's `gz.msgs.Model` in JSON (a `Custom` message).
    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(self.topic.clone(), "Custom")]
    }
}

impl JointStatePublisher {
    /// The topic it publishes on.
    pub fn topic(&self) -> &str {
        &self.topic
    }
}

impl System for JointStatePublisher {
    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        // A removed model publishes nothing more.
        let Some(state) = world.kinematics_of(self.model) else {
            return Ok(());
        };
        let ids: Vec<EntityId> = self.joints.iter().map(|(j, _)| *j).collect();
        world.joint_states(
            RSlice::from_slice(&ids),
            RSliceMut::from_mut_slice(&mut self.states),
        );
        let entries: Vec<JointEntry> = self
            .joints
            .iter()
            .zip(&self.states)
            .map(|((id, name), s)| JointEntry {
                name: name.clone(),
                id: id.0,
                state: *s,
            })
            .collect();
        let msg = model_message(
            &self.model_name,
            self.model.0,
            state.pose,
            ctx.now,
            &entries,
        );
        let mut m = Message::new(self.topic.as_str(), msg);
        m.header.stamp = ctx.now;
        out.push(m);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::SystemSetup;

    #[test]
    fn errors_name_the_file_and_line() {
        let sdf = "<plugin name=\"gz::sim::systems::JointStatePublisher\" filename=\"f\">\n  \
                   <joint_name>j</joint_name>\n  <topic>t</plugin>";
        let e = SystemSetup::on_model("gz::sim::systems::JointStatePublisher", "arm")
            .create_error::<JointStatePublisher>(sdf);
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "arm: JointStatePublisher: the element is not valid XML: expected 'topic' tag, not \
             'plugin' at 3:11 at world.sdf:42"
        );
    }

    #[test]
    fn default_topics_follow_the_nesting() {
        assert_eq!(default_topic("w", "arm"), "/world/w/model/arm/joint_state");
        assert_eq!(
            default_topic("w", "base::arm"),
            "/world/w/model/base/model/arm/joint_state"
        );
    }
}
