//! The system: a force in, a joint force command every step out.

use sim_plugin_api::prelude::*;
use simcore_plugin_common::gz::{
    GzSystem, drive, joints, last_finite_double, missing, names, own_name, valid_topic,
};
use simcore_plugin_common::{Attached, attached, parse_plugin_sdf};

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
        let doc = parse_plugin_sdf(config.sdf.as_str(), &who)?
            .ok_or_else(|| missing(format!("{who}: needs a <joint_name>")))?;
        // gz-sim reads the first <joint_name>.
        let name = names(doc.root_element(), "joint_name", &who)?.swap_remove(0);
        let joint = joints(
            world,
            scoped,
            std::slice::from_ref(&name),
            "joint_name",
            &who,
        )?[0];
        let model = own_name(world, config.entity, scoped);
        let written = format!("/model/{model}/joint/{name}/cmd_force");
        let topic = valid_topic(&written).ok_or_else(|| {
            PluginError::config(format!("{who}: `{written}` is not a valid topic name"))
        })?;
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
