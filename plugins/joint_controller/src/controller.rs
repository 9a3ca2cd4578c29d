//! The joint controller: a target velocity in, joint velocity or force commands out.

use crate::config::VelocityConfig;
use sim_plugin_api::prelude::*;
use simcore_plugin_common::gz::{GzSystem, JointGroup, joints, last_finite_double};
use simcore_plugin_common::{Attached, attached, plugin_document};

/// A joint velocity controller attached to a model (see the crate documentation).
pub struct JointController {
    config: VelocityConfig,
    joints: JointGroup,
    target: f64,
}

impl GzSystem for JointController {
    /// Creates the system from its `<plugin>` element; it must be attached to a model whose
    /// joints exist.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, model } = attached(config, world, "JointController")?;
        let doc = plugin_document(config, &who)?;
        let parsed = VelocityConfig::read(&doc.root(), &model)?;
        let ids = joints(world, scoped, &parsed.joints, "joint_name", &who)?;
        let system = JointController::new(parsed, ids);
        simcore_plugin_common::declare_inputs(world, &system, &["Double"]);
        Ok(system)
    }
}

impl JointController {
    /// Builds the system from a parsed configuration and the resolved joints.
    pub fn new(config: VelocityConfig, joints: Vec<EntityId>) -> Self {
        JointController {
            target: config.initial_velocity,
            joints: JointGroup::new(joints),
            config,
        }
    }

    /// The velocity the joints are driven at.
    pub fn target(&self) -> f64 {
        self.target
    }
}

/// Whether force mode with `<disable_braking>` pushes at all: only towards a non-zero
/// `target` while the joint is slower than it (`error = velocity − target`).
pub fn pushes_without_braking(target: f64, error: f64) -> bool {
    target != 0.0 && target.signum() * error <= 0.0
}

impl System for JointController {
    fn subscriptions(&self) -> Vec<String> {
        vec![self.config.topic.clone()]
    }

    fn pre_step(
        &mut self,
        ctx: &StepContext,
        inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        if let Some(v) = last_finite_double(inbox) {
            self.target = v;
        }
        // As gz-sim: the first joint's axis 0 is the measurement; a removed joint, or one
        // without an axis, leaves the controller idle.
        let Some(first) = self.joints.first_state(world).filter(|s| s.dof > 0) else {
            return Ok(());
        };
        let (mode, value) = match self.config.force_pid.as_mut() {
            None => (JointCommandMode::VELOCITY, self.target),
            Some(pid) => {
                let error = first.velocity[0] - self.target;
                if self.config.disable_braking && !pushes_without_braking(self.target, error) {
                    return Ok(());
                }
                (
                    JointCommandMode::FORCE,
                    pid.update(error, ctx.step.as_secs_f64()),
                )
            }
        };
        self.joints.drive(commands, 0, mode, value);
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        if let Some(pid) = self.config.force_pid.as_mut() {
            pid.reset();
        }
        self.target = self.config.initial_velocity;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::SystemSetup;

    #[test]
    fn errors_name_the_file_and_line() {
        let setup = SystemSetup::on_model("gz::sim::systems::JointController", "rover");
        let e = setup.create_error::<JointController>(
            "<plugin name=\"gz::sim::systems::JointController\" filename=\"f\">\n  \
             <joint_name>j</joint_name>\n  <use_force_commands>yes</use_force_commands>\n</plugin>",
        );
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "rover: JointController: <use_force_commands> must be true, false, 1 or 0, \
             found \"yes\" at world.sdf:42"
        );
    }

    #[test]
    fn no_braking_pushes_only_towards_the_target() {
        assert!(pushes_without_braking(2.0, -1.0));
        assert!(!pushes_without_braking(2.0, 0.5));
        assert!(pushes_without_braking(-2.0, 1.0));
        assert!(!pushes_without_braking(-2.0, -0.5));
        assert!(!pushes_without_braking(0.0, -1.0));
    }
}
