//! The joint position controller: a target in, joint force or velocity commands out.

use crate::config::PositionConfig;
use sim_plugin_api::prelude::*;
use simcore_plugin_common::gz::{GzSystem, JointGroup, joints, last_finite_double};
use simcore_plugin_common::{Attached, Pid, attached, plugin_document};

/// A joint position controller attached to a model (see the crate documentation).
pub struct JointPositionController {
    config: PositionConfig,
    joints: JointGroup,
    pid: Pid,
    target: f64,
}

impl GzSystem for JointPositionController {
    /// Creates the system from its `<plugin>` element; it must be attached to a model whose
    /// joints exist.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, model } = attached(config, world, "JointPositionController")?;
        let doc = plugin_document(config, &who)?;
        let parsed = PositionConfig::read(&doc.root(), &model)?;
        let ids = joints(world, scoped, &parsed.joints, "joint_name", &who)?;
        let system = JointPositionController::new(parsed, ids);
        simcore_plugin_common::declare_inputs(world, &system, &["Double"]);
        Ok(system)
    }
}

impl JointPositionController {
    /// Builds the system from a parsed configuration and the resolved joints.
    pub fn new(config: PositionConfig, joints: Vec<EntityId>) -> Self {
        JointPositionController {
            pid: config.pid.clone(),
            target: config.initial_position,
            joints: JointGroup::new(joints),
            config,
        }
    }

    /// The position the joints are driven to.
    pub fn target(&self) -> f64 {
        self.target
    }

    /// The velocity command of velocity mode for `error` (position − target) over `dt`:
    /// the speed that closes it in one step, at most `<cmd_max>` when that was given.
    pub fn velocity_for(&self, error: f64, dt: f64) -> f64 {
        let max = self.config.pid.cmd_max;
        if self.config.cmd_max_set && error.abs() > max * dt {
            if error < 0.0 { max } else { -max }
        } else {
            -error / dt
        }
    }
}

impl System for JointPositionController {
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
        let axis = self.config.axis as usize;
        // As gz-sim: the first joint's position is the measurement; a removed joint, or an
        // axis the joint lacks, leaves the controller idle.
        let Some(first) = self
            .joints
            .first_state(world)
            .filter(|s| axis < s.dof as usize)
        else {
            return Ok(());
        };
        let error = first.position[axis] - self.target;
        let dt = ctx.step.as_secs_f64();
        let (mode, target) = if self.config.velocity_mode {
            (JointCommandMode::VELOCITY, self.velocity_for(error, dt))
        } else {
            (JointCommandMode::FORCE, self.pid.update(error, dt))
        };
        self.joints.drive(commands, self.config.axis, mode, target);
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.pid.reset();
        self.target = self.config.initial_position;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::SystemSetup;

    #[test]
    fn errors_name_the_file_and_line() {
        let setup = SystemSetup::on_model("gz::sim::systems::JointPositionController", "arm");
        let e = setup.create_error::<JointPositionController>(
            "<plugin name=\"gz::sim::systems::JointPositionController\" filename=\"f\">\n  \
             <joint_name>j</joint_name>\n  <p_gain>x</p_gain>\n</plugin>",
        );
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "arm: JointPositionController: <p_gain> must be a finite number, found \"x\" \
             at world.sdf:42"
        );
        // Without a joint the system is idle, with a warning saying where.
        assert!(
            setup
                .create::<JointPositionController>(
                    "<plugin name=\"gz::sim::systems::JointPositionController\" filename=\"f\"/>"
                )
                .unwrap()
                .is_idle()
        );
        assert_eq!(
            setup.last_log(),
            "arm: JointPositionController: needs a <joint_name> at world.sdf:40; the system does \
             nothing (as in gz-sim)"
        );
    }
}
