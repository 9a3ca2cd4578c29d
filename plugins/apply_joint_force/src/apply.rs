//! The system: a force in, a joint force command every step out.

use sim_plugin_api::prelude::*;
use simcore_plugin_common::gz::{
    GzSystem, drive, entity, last_finite_double, names, own_name, topic_from,
};
use simcore_plugin_common::{Attached, attached, plugin_document};

/// Applies a commanded force to one joint (see the crate documentation).
pub struct ApplyJointForce {
    joint: EntityId,
    topic: String,
    force: f64,
}

impl GzSystem for ApplyJointForce {
    /// Creates the system from its `<plugin>` element (`<joint_name>`, required); it must be
    /// attached to a model that has the joint.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, .. } = attached(config, world, "ApplyJointForce")?;
        let doc = plugin_document(config, &who)?;
        let root = doc.root();
        // gz-sim reads the first <joint_name>.
        let name = names(&root, "joint_name")?.swap_remove(0);
        let joint = entity(world, scoped, &name, EntityKind::JOINT, "joint_name", &who)?;
        let model = own_name(world, config.entity, scoped);
        let element = root.children_named("joint_name").find(|j| j.text() == name);
        let topic = topic_from(
            &element.unwrap_or(root),
            &format!("/model/{model}/joint/{name}/cmd_force"),
        )?;
        let system = ApplyJointForce::new(joint, topic);
        simcore_plugin_common::declare_inputs(world, &system, &["Double"]);
        Ok(system)
    }
}

impl ApplyJointForce {
    /// A system applying commands received on `topic` to `joint`.
    pub fn new(joint: EntityId, topic: String) -> Self {
        ApplyJointForce {
            joint,
            topic,
            force: 0.0,
        }
    }

    /// The force (or torque) applied each step.
    pub fn force(&self) -> f64 {
        self.force
    }
}

impl System for ApplyJointForce {
    fn subscriptions(&self) -> Vec<String> {
        vec![self.topic.clone()]
    }

    fn pre_step(
        &mut self,
        _ctx: &StepContext,
        inbox: &[Message],
        _world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        if let Some(v) = last_finite_double(inbox) {
            self.force = v;
        }
        if self.force != 0.0 {
            commands.joint_command(&drive(self.joint, 0, JointCommandMode::FORCE, self.force));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::SystemSetup;

    #[test]
    fn errors_name_the_file_and_line() {
        let setup = SystemSetup::on_model("gz::sim::systems::ApplyJointForce", "disc").with(
            2,
            EntityKind::JOINT,
            "a//b",
        );
        let e = setup.create_error::<ApplyJointForce>(
            "<plugin name=\"gz::sim::systems::ApplyJointForce\" filename=\"f\">\n  \
             <joint_name> </joint_name>\n  <joint_name>a//b</joint_name>\n</plugin>",
        );
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "disc: ApplyJointForce: <joint_name> must be a name making a valid topic \
             (not `/model/disc/joint/a//b/cmd_force`), found \"a//b\" at world.sdf:42"
        );
        // Without a joint the system is idle, with a warning saying where.
        assert!(
            setup
                .create::<ApplyJointForce>(
                    "<plugin name=\"gz::sim::systems::ApplyJointForce\" filename=\"f\"/>"
                )
                .unwrap()
                .is_idle()
        );
        assert_eq!(
            setup.last_log(),
            "disc: ApplyJointForce: needs a <joint_name> at world.sdf:40; the system does \
             nothing (as in gz-sim)"
        );
    }
}
