//! Reading joints: their angles (unwrapped across turns), states and wrenches.

use crate::Physics;
use crate::convert::*;
use crate::entities::{AxisPair, EntityData};
use rapier3d::prelude::*;
use sim_plugin_api::{EntityId, JointState, Pose, Quat, Vec3};
use sim_world::JointKind;

impl Physics {
    /// The axes of a joint entity, with its kind and first slot.
    pub(super) fn joint_axes(
        &self,
        id: EntityId,
    ) -> Option<(JointKind, usize, [Option<AxisPair>; 2])> {
        match &self.entities.get(id)?.data {
            EntityData::Joint {
                kind, slot, axes, ..
            } => Some((*kind, *slot, **axes)),
            _ => None,
        }
    }

    /// The two frames of an axis in the world now.
    pub(super) fn axis_frames(&self, a: &AxisPair) -> Option<(Pose, Pose)> {
        let b1 = self.pw.bodies.get(a.body1)?;
        let b2 = self.pw.bodies.get(a.body2)?;
        Some((
            pose_from_rapier(b1.position()).compose(a.frame1),
            pose_from_rapier(b2.position()).compose(a.frame2),
        ))
    }

    /// The wrapped angle of a joint's rotational axis `k`. `None` for translations and
    /// joints without that axis.
    pub(super) fn joint_angle(&self, id: EntityId, k: usize) -> Option<f64> {
        let (_, _, axes) = self.joint_axes(id)?;
        let a = axes[k].as_ref().filter(|a| !a.linear)?;
        let (f1, f2) = self.axis_frames(a)?;
        let rel = f1.inverse().compose(f2);
        Some(match a.two_axes {
            Some(k) => two_axis_angles(rel.orientation)[k],
            None => rotation_about_x(rel),
        })
    }

    /// Unwrapped position and velocity of axis `a` (number `k` of the joint whose first slot
    /// is `slot`).
    fn axis_motion(&self, a: &AxisPair, slot: usize) -> Option<(f64, f64)> {
        let b1 = self.pw.bodies.get(a.body1)?;
        let b2 = self.pw.bodies.get(a.body2)?;
        let (f1, f2) = self.axis_frames(a)?;
        let axis_w = axis_direction(a, f1, f2);
        let rel = f1.inverse().compose(f2);
        if a.linear {
            let point = vec_to_rapier(f2.position);
            let v = vec_from_rapier(b2.velocity_at_point(point))
                - vec_from_rapier(b1.velocity_at_point(point));
            Some((rel.position.x, v.dot(axis_w)))
        } else {
            let raw = match a.two_axes {
                Some(k) => two_axis_angles(rel.orientation)[k],
                None => rotation_about_x(rel),
            };
            let (_, _, last, turns) = self.joints.turns[slot];
            let turns = turns + turn_change(last, raw);
            let w = vec_from_rapier(b2.angvel()) - vec_from_rapier(b1.angvel());
            Some((raw + turns * std::f64::consts::TAU, w.dot(axis_w)))
        }
    }

    /// State of a joint: per axis, the position (unwrapped for rotations), velocity and the
    /// effort of the last step along or about the axis (limits, motors and couplings).
    pub fn joint_state(&self, id: EntityId) -> Option<JointState> {
        let (kind, slot, axes) = self.joint_axes(id)?;
        let mut state = JointState::default();
        let k_force = self.joint_impulse_to_force();
        let dt = self.clock.step.as_secs_f64();
        let coupling = self.joints.couplings.iter().find(|c| c.joint == id);
        let mut s = slot;
        for (k, a) in axes.iter().enumerate() {
            let Some(a) = a else { continue };
            let (position, velocity) = self.axis_motion(a, s)?;
            s += 1;
            let i = rapier_axis(a) as usize;
            // The stored impulses act on the first body; the effort is on the second.
            let impulse = a
                .joint
                .and_then(|h| self.pw.impulse_joints.get(h))
                .map_or(0.0, |j| {
                    j.impulses[i] + j.data.limits[i].impulse + j.data.motors[i].impulse
                })
                + a.friction
                    .and_then(|h| self.pw.impulse_joints.get(h))
                    .map_or(0.0, |j| j.data.motors[i].impulse);
            let mut effort = -(impulse as f64) * k_force;
            if let Some(c) = coupling {
                effort += match kind {
                    // The coupling's torque about the screw axis on the child.
                    JointKind::Screw => -c.factor * c.impulse / dt,
                    // On the parent about axis 1, on the child about axis 2.
                    _ if k == 0 => c.impulse / dt,
                    _ => c.factor * c.impulse / dt,
                };
            }
            state.position[k] = position;
            state.velocity[k] = velocity;
            state.effort[k] = effort;
            state.dof = k as u32 + 1;
        }
        Some(state)
    }

    /// The wrench a joint applied on its child over the last step, at the joint origin,
    /// world frame (see [`sim_plugin_api::WorldView::joint_wrenches`]).
    pub fn joint_wrench(&self, id: EntityId) -> Option<sim_plugin_api::Wrench> {
        let e = self.entities.get(id)?;
        let EntityData::Joint {
            handle,
            parent,
            kind,
            axes,
            multibody,
            ..
        } = &e.data
        else {
            return None;
        };
        if multibody.is_some() {
            // Reduced coordinates compute no force on the locked axes.
            return None;
        }
        let j = self.pw.impulse_joints.get(*handle)?;
        let p = self.pw.bodies.get(*parent)?;
        // The impulses are in the joint's current frame (which a two-axis joint turns).
        let f1 = pose_from_rapier(p.position()).compose(pose_from_rapier(&j.data.local_frame1));
        let mut imp = [0.0f64; 6];
        // The friction joint's frames are the joint's, so its impulses add component-wise.
        let friction = axes
            .iter()
            .flatten()
            .find_map(|a| a.friction)
            .and_then(|h| self.pw.impulse_joints.get(h));
        for (i, v) in imp.iter_mut().enumerate() {
            *v = (j.impulses[i] + j.data.limits[i].impulse + j.data.motors[i].impulse) as f64
                + friction.map_or(0.0, |f| f.data.motors[i].impulse as f64);
        }
        // The stored impulses act on the parent, over one solver substep.
        let k = -self.joint_impulse_to_force();
        let mut force = f1
            .orientation
            .rotate(Vec3::new(imp[0], imp[1], imp[2]))
            .scale(k);
        let mut torque = f1
            .orientation
            .rotate(Vec3::new(imp[3], imp[4], imp[5]))
            .scale(k);
        if *kind == JointKind::Screw
            && let Some(c) = self.joints.couplings.iter().find(|c| c.joint == id)
        {
            let dt = self.clock.step.as_secs_f64();
            let a = f1.orientation.rotate(Vec3::new(1.0, 0.0, 0.0));
            force = force + a.scale(c.impulse / dt);
            torque = torque + a.scale(-c.factor * c.impulse / dt);
        }
        Some(sim_plugin_api::Wrench { force, torque })
    }

    /// rapier keeps a joint's impulses of the last solver substep: force = impulse / (dt /
    /// substeps).
    pub(super) fn joint_impulse_to_force(&self) -> f64 {
        self.pw.integration_parameters.num_solver_iterations.max(1) as f64
            / self.clock.step.as_secs_f64()
    }

    /// Updates the unwrapped angles of every joint axis after a step.
    pub(crate) fn update_joint_turns(&mut self) {
        for i in 0..self.joints.turns.len() {
            let (id, k, last, turns) = self.joints.turns[i];
            if let Some(raw) = self.joint_angle(id, k) {
                self.joints.turns[i] = (id, k, raw, turns + turn_change(last, raw));
            }
        }
    }

    /// The unwrapped angle of axis `k` of a joint, as of the last `update_joint_turns`.
    pub(super) fn unwrapped(&self, slot: usize, k: usize) -> f64 {
        let (_, _, last, turns) = self.joints.turns[slot + k];
        last + turns * std::f64::consts::TAU
    }
}

/// The rapier axis that moves axis `a`.
pub(super) fn rapier_axis(a: &AxisPair) -> JointAxis {
    match (a.linear, a.two_axes) {
        (true, _) => JointAxis::LinX,
        (false, Some(1)) => JointAxis::AngY,
        _ => JointAxis::AngX,
    }
}

/// The world direction of axis `a`, whose frames are `f1` and `f2` in the world: X of the
/// first frame, or for the second axis of a two-axis joint, Y of the child's frame.
pub(super) fn axis_direction(a: &AxisPair, f1: Pose, f2: Pose) -> Vec3 {
    match a.two_axes {
        Some(1) => f2.orientation.rotate(Vec3::new(0.0, 1.0, 0.0)),
        _ => f1.orientation.rotate(Vec3::new(1.0, 0.0, 0.0)),
    }
}

/// The two angles of a universal joint whose relative rotation (child frame in parent
/// frame) is `q = R_x(a1) * R_y(a2)`, wrapped to (-pi, pi].
pub(super) fn two_axis_angles(q: Quat) -> [f64; 2] {
    let r = q.to_matrix();
    [r[2][1].atan2(r[1][1]), r[0][2].atan2(r[0][0])]
}

/// The angle of a rotation about X (a revolute joint's relative pose), in (-pi, pi].
fn rotation_about_x(rel: Pose) -> f64 {
    wrap_angle(2.0 * rel.orientation.x.atan2(rel.orientation.w))
}

fn wrap_angle(a: f64) -> f64 {
    let t = std::f64::consts::TAU;
    let a = a.rem_euclid(t);
    if a > std::f64::consts::PI { a - t } else { a }
}

/// Whole turns crossed between two wrapped angles a step apart.
pub(super) fn turn_change(last: f64, now: f64) -> f64 {
    let d = now - last;
    if d > std::f64::consts::PI {
        -1.0
    } else if d < -std::f64::consts::PI {
        1.0
    } else {
        0.0
    }
}
