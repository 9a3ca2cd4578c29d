//! Driving joint axes: velocity, position and force commands.

use super::bounds::{rapier_force, within};
use super::readout::{axis_direction, rapier_axis};
use crate::Physics;
use crate::commands::CommandError;
use crate::convert::*;
use crate::entities::EntityData;
use rapier3d::prelude::*;

/// Gain of velocity commands (acceleration-based motor), 1/s: rapier removes the fraction
/// `h·k / (1 + h·k)` of the speed error in each solver substep of length `h`, so a steady
/// load leaves an error of about `load / (inertia · k)`. At 10⁵ a substep of 0.25 ms removes
/// 96 % of it: the joint holds the commanded speed as a stiff constraint would, as far as
/// the command's force limit allows (at 10³, an Ackermann car's steering settled 4 % short
/// and turned on a circle 6 % too wide).
const VELOCITY_GAIN: f32 = 100_000.0;

impl Physics {
    /// Drives a joint axis (see [`sim_plugin_api::JointCommand`]). A command with a number
    /// that is not finite or out of range changes nothing.
    pub fn joint_command(
        &mut self,
        cmd: &sim_plugin_api::JointCommand,
    ) -> Result<(), CommandError> {
        crate::commands::check_joint_command(cmd)?;
        self.links.fresh = false;
        let e = self
            .entities
            .get(cmd.joint)
            .ok_or_else(|| crate::commands::unknown(cmd.joint))?;
        let EntityData::Joint {
            kind,
            ref axes,
            multibody,
            ..
        } = e.data
        else {
            return Err(CommandError::NotAJoint {
                name: e.scoped_name.clone(),
                kind: e.kind.name(),
            });
        };
        let a = axes
            .get(cmd.axis as usize)
            .copied()
            .flatten()
            .ok_or_else(|| CommandError::NoAxis {
                joint: e.scoped_name.clone(),
                kind: kind.name(),
                axis: cmd.axis,
            })?;
        let Some(handle) = a.joint else {
            return Err(CommandError::CouplingOnly {
                joint: e.scoped_name.clone(),
                kind: kind.name(),
            });
        };
        let axis = rapier_axis(&a);
        // The SDF effort limit bounds every command, the velocity limit velocity commands.
        let requested = if cmd.max_force.is_finite() && cmd.max_force > 0.0 {
            cmd.max_force
        } else {
            f64::INFINITY
        };
        let max_force = within(requested, a.effort);
        let max = rapier_force(max_force);
        // An angular position target of a reduced-coordinate joint is kept up before each
        // step (see `joints::reduced`); any other command replaces it.
        self.joints.drive_targets.retain(|t| t.0 != cmd.joint);
        if multibody.is_some()
            && !a.linear
            && cmd.mode == sim_plugin_api::JointCommandMode::POSITION
        {
            self.joints
                .drive_targets
                .push((cmd.joint, handle, cmd.target));
        }
        match cmd.mode {
            sim_plugin_api::JointCommandMode::VELOCITY => {
                let target = within(cmd.target, a.velocity);
                self.driven_joint(handle)?
                    .set_motor_model(axis, MotorModel::AccelerationBased)
                    .set_motor_velocity(axis, target as f32, VELOCITY_GAIN)
                    .set_motor_max_force(axis, max);
            }
            sim_plugin_api::JointCommandMode::POSITION => {
                if let (Some(k), Some(t)) = (
                    a.two_axes,
                    self.joints
                        .two_axes
                        .iter_mut()
                        .find(|t| t.joint == cmd.joint),
                ) {
                    // Shifted by the angle before each step (see `update_two_axes`).
                    t.targets[k] = cmd.target;
                }
                self.driven_joint(handle)?
                    .set_motor_model(axis, MotorModel::ForceBased)
                    .set_motor_position(
                        axis,
                        cmd.target as f32,
                        cmd.stiffness as f32,
                        cmd.damping as f32,
                    )
                    .set_motor_max_force(axis, max);
            }
            sim_plugin_api::JointCommandMode::FORCE => {
                let (f1, f2) = self.axis_frames(&a).ok_or(CommandError::JointGone)?;
                let along = axis_direction(&a, f1, f2).scale(within(cmd.target, a.effort));
                for (h, sign) in [(a.body2, 1.0), (a.body1, -1.0)] {
                    if let Some(b) = self.pw.bodies.get_mut(h) {
                        if a.linear {
                            b.add_force(vec_to_rapier(along.scale(sign)), true);
                        } else {
                            b.add_torque(vec_to_rapier(along.scale(sign)), true);
                        }
                        self.wrenched.push(h);
                    }
                }
            }
            other => return Err(CommandError::UnknownMode(other.0)),
        }
        Ok(())
    }

    /// The rapier joint `handle`, woken up to be driven.
    fn driven_joint(
        &mut self,
        handle: ImpulseJointHandle,
    ) -> Result<&mut GenericJoint, CommandError> {
        self.pw
            .impulse_joints
            .get_mut(handle, true)
            .map(|j| &mut j.data)
            .ok_or(CommandError::JointGone)
    }
}
