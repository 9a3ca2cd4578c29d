//! The screw and gearbox couplings, solved after each step, and the frames of two-axis
//! joints, turned to their angles before each step (see the `joints` module).

use super::bounds::rapier_limits;
use super::readout::{turn_change, two_axis_angles};
use crate::Physics;
use crate::convert::*;
use crate::entities::EntityData;
use rapier3d::prelude::*;
use sim_plugin_api::{EntityId, Pose, Quat, Vec3};
use sim_world::JointKind;

/// The fraction of a coupling's position error corrected per step.
const COUPLING_ERP: f64 = 0.2;

/// A velocity-level coupling between joint axes, solved after each rapier step.
#[derive(Clone, Debug)]
pub(crate) struct Coupling {
    /// The joint entity.
    pub(crate) joint: EntityId,
    /// Screw: travel along the axis per radian (m/rad). Gearbox: the ratio.
    pub(crate) factor: f64,
    /// The reference body of a gearbox (none for a screw).
    pub(crate) reference: Option<RigidBodyHandle>,
    /// The impulse of the last step's correction (along the screw axis on the child, or about
    /// the gearbox's parent axis on the parent).
    pub(crate) impulse: f64,
}

/// A universal or revolute2 joint, whose rapier frames follow its angles.
#[derive(Clone, Debug)]
pub(crate) struct TwoAxes {
    /// The joint entity.
    pub(crate) joint: EntityId,
    pub(crate) handle: ImpulseJointHandle,
    pub(crate) parent: RigidBodyHandle,
    pub(crate) child: RigidBodyHandle,
    /// The joint frame on each body at rest (X along axis 1, Y along axis 2).
    pub(crate) frame1: Pose,
    pub(crate) frame2: Pose,
    /// Position limits per axis, rad.
    pub(crate) limits: [[f64; 2]; 2],
    /// Position targets per axis (the spring reference, or a position command's target).
    pub(crate) targets: [f64; 2],
    /// The joint that brakes both axes with their friction, whose frames follow the main
    /// joint's (see [`Physics::add_friction`]).
    pub(crate) friction: Option<ImpulseJointHandle>,
}

/// One body's part of a coupling row: linear and angular Jacobian, world frame.
struct Row {
    body: RigidBodyHandle,
    lin: Vec3,
    ang: Vec3,
}

impl Physics {
    /// Turns the frames of universal and revolute2 joints to their current angles, and shifts
    /// their limits and position targets by the same angles (see the module documentation).
    pub(crate) fn update_two_axes(&mut self) {
        for t in 0..self.joints.two_axes.len() {
            let two = self.joints.two_axes[t].clone();
            let (Some(p), Some(c)) = (
                self.pw.bodies.get(two.parent),
                self.pw.bodies.get(two.child),
            ) else {
                continue;
            };
            let f1 = pose_from_rapier(p.position()).compose(two.frame1);
            let f2 = pose_from_rapier(c.position()).compose(two.frame2);
            let slot = match self.entities.get(two.joint).map(|e| &e.data) {
                Some(EntityData::Joint { slot, .. }) => *slot,
                _ => continue,
            };
            let raw = two_axis_angles(f1.inverse().compose(f2).orientation);
            // Unwrapped, continuing the turns counted so far.
            let mut angles = [0.0; 2];
            for (k, a) in angles.iter_mut().enumerate() {
                let (_, _, last, turns) = self.joints.turns[slot + k];
                *a = raw[k] + (turns + turn_change(last, raw[k])) * std::f64::consts::TAU;
            }
            let local1 = two.frame1.compose(Pose::new(
                Vec3::ZERO,
                Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), raw[0]),
            ));
            let local2 = two.frame2.compose(Pose::new(
                Vec3::ZERO,
                Quat::from_axis_angle(Vec3::new(0.0, 1.0, 0.0), -raw[1]),
            ));
            if let Some(f) = two
                .friction
                .and_then(|f| self.pw.impulse_joints.get_mut(f, false))
            {
                f.data.set_local_frame1(pose_to_rapier(local1));
                f.data.set_local_frame2(pose_to_rapier(local2));
            }
            let Some(j) = self.pw.impulse_joints.get_mut(two.handle, false) else {
                continue;
            };
            j.data.set_local_frame1(pose_to_rapier(local1));
            j.data.set_local_frame2(pose_to_rapier(local2));
            for (k, axis) in [JointAxis::AngX, JointAxis::AngY].into_iter().enumerate() {
                if let Some(limits) = rapier_limits(two.limits[k], angles[k]) {
                    j.data.set_limits(axis, limits);
                }
                j.data.motors[axis as usize].target_pos = (two.targets[k] - angles[k]) as f32;
            }
        }
    }

    /// Solves the screw and gearbox couplings on the velocities after a step (see the module
    /// documentation).
    pub(crate) fn solve_couplings(&mut self) {
        let dt = self.clock.step.as_secs_f64();
        for ci in 0..self.joints.couplings.len() {
            let c = self.joints.couplings[ci].clone();
            let Some((kind, slot, axes)) = self.joint_axes(c.joint) else {
                continue;
            };
            if self.entities.get(c.joint).is_none() {
                continue;
            }
            let (rows, error) = match (kind, axes[0], axes[1]) {
                (JointKind::Screw, Some(a), _) => {
                    let Some((f1, f2)) = self.axis_frames(&a) else {
                        continue;
                    };
                    let axis = f1.orientation.rotate(Vec3::new(1.0, 0.0, 0.0));
                    let x = f1.inverse().compose(f2).position.x;
                    let err = x - c.factor * self.unwrapped(slot, 0);
                    let p = f2.position;
                    let mut rows = Vec::new();
                    for (body, sign) in [(a.body2, 1.0), (a.body1, -1.0)] {
                        let Some(b) = self.pw.bodies.get(body) else {
                            continue;
                        };
                        let r = p - vec_from_rapier(b.center_of_mass());
                        rows.push(Row {
                            body,
                            lin: axis.scale(sign),
                            ang: (r.cross(axis) - axis.scale(c.factor)).scale(sign),
                        });
                    }
                    (rows, err)
                }
                (JointKind::Gearbox, Some(a1), Some(a2)) => {
                    let (Some((f1, _)), Some((g1, _))) =
                        (self.axis_frames(&a1), self.axis_frames(&a2))
                    else {
                        continue;
                    };
                    let (x1, x2) = (
                        f1.orientation.rotate(Vec3::new(1.0, 0.0, 0.0)),
                        g1.orientation.rotate(Vec3::new(1.0, 0.0, 0.0)),
                    );
                    let err = self.unwrapped(slot, 0) + c.factor * self.unwrapped(slot, 1);
                    let rows = vec![
                        Row {
                            body: a1.body2,
                            lin: Vec3::ZERO,
                            ang: x1,
                        },
                        Row {
                            body: a2.body2,
                            lin: Vec3::ZERO,
                            ang: x2.scale(c.factor),
                        },
                        Row {
                            body: c.reference.unwrap_or(a1.body1),
                            lin: Vec3::ZERO,
                            ang: -(x1 + x2.scale(c.factor)),
                        },
                    ];
                    (rows, err)
                }
                _ => continue,
            };
            let mut jv = 0.0;
            let mut k = 0.0;
            for row in &rows {
                let Some(b) = self.pw.bodies.get(row.body) else {
                    continue;
                };
                if !b.is_dynamic() {
                    continue;
                }
                jv += row.lin.dot(vec_from_rapier(b.linvel()))
                    + row.ang.dot(vec_from_rapier(b.angvel()));
                let mp = b.mass_properties();
                let im = vec_from_rapier(mp.effective_inv_mass);
                let ii = vec_from_rapier(mp.effective_world_inv_inertia * vec_to_rapier(row.ang));
                k += row.lin.x * row.lin.x * im.x
                    + row.lin.y * row.lin.y * im.y
                    + row.lin.z * row.lin.z * im.z
                    + row.ang.dot(ii);
            }
            if k <= 0.0 || !k.is_finite() {
                continue;
            }
            let lambda = -(jv + COUPLING_ERP * error / dt) / k;
            for row in &rows {
                if let Some(b) = self.pw.bodies.get_mut(row.body) {
                    b.apply_impulse(vec_to_rapier(row.lin.scale(lambda)), true);
                    b.apply_torque_impulse(vec_to_rapier(row.ang.scale(lambda)), true);
                }
            }
            self.joints.couplings[ci].impulse = lambda;
        }
    }
}
