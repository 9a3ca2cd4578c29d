//! The joint position controller: a target in, joint force or velocity commands out.

use crate::config::PositionConfig;
use sim_plugin_api::{
    abi_stable::std_types::{RSlice, RSliceMut},
    prelude::*,
};
use simcore_plugin_common::gz::{GzSystem, drive, joints, last_finite_double};
use simcore_plugin_common::{Attached, Pid, attached};

/// A joint position controller attached to a model (see the crate documentation).
pub struct JointPositionController {
    config: PositionConfig,
    joints: Vec<EntityId>,
    pid: Pid,
    target: f64,
    states: Vec<JointState>,
}

impl GzSystem for JointPositionController {
    /// Creates the system from its `<plugin>` element; it must be attached to a model whose
    /// joints exist.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, model } = attached(config, world, "JointPositionController")?;
        let parsed = PositionConfig::parse(config.sdf.as_str(), &model, &who)?;
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
            states: vec![JointState::default(); joints.len()],
            joints,
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
        let known = world.joint_states(
            RSlice::from_slice(&self.joints),
            RSliceMut::from_mut_slice(&mut self.states),
        );
        let axis = self.config.axis as usize;
        // As gz-sim: the first joint's position is the measurement; a removed joint, or an
        // axis the joint lacks, leaves the controller idle.
        let first = self.states[0];
        if known as usize != self.joints.len() || axis >= first.dof as usize {
            return Ok(());
        }
        let error = first.position[axis] - self.target;
        let dt = ctx.step.as_secs_f64();
        let (mode, target) = if self.config.velocity_mode {
            (JointCommandMode::VELOCITY, self.velocity_for(error, dt))
        } else {
            (JointCommandMode::FORCE, self.pid.update(error, dt))
        };
        for joint in &self.joints {
            commands.joint_command(&drive(*joint, self.config.axis, mode, target));
        }
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.pid.reset();
        self.target = self.config.initial_position;
        Ok(())
    }
}
