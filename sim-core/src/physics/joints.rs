//! Joints in rapier: building each SDF joint type, reading joint states and wrenches, driving
//! joint axes, and the velocity-level couplings of screw and gearbox joints.
//!
//! * revolute, continuous, prismatic, fixed and ball joints are one rapier impulse joint
//!   ([`GenericJoint`]) between the parent and child bodies, its X axis along the SDF axis;
//! * universal and revolute2 joints are one rapier joint that locks the translations and the
//!   rotation about `axis x axis2`, with X along `axis` and Y along `axis2`. rapier locks a
//!   rotation about an axis of the frame half-way between the joint's two frames, which is
//!   only the right constraint while both angles are zero; so before each step the joint's
//!   frames are turned to the joint's current angles (the parent's frame by angle 1 about
//!   axis 1, the child's back by angle 2 about axis 2), which makes axis 1 fixed in the
//!   parent, axis 2 fixed in the child and the locked direction their cross product, exactly,
//!   and the limits and spring targets are shifted by the same angles. The two axes must be
//!   perpendicular (as ODE's universal joint assumes); a revolute2 joint with oblique axes is
//!   refused when the world is built;
//! * a screw joint is a rapier cylindrical joint (rotation about and translation along the
//!   axis) plus one coupling row, `translation = pitch * angle / 2pi`;
//! * a gearbox joint is a rapier joint that locks nothing (the gears turn on their own
//!   revolute joints) plus one coupling row, `parent_angle = -ratio * child_angle`, both angles
//!   measured relative to the reference body (as Gazebo's ODE gearbox).
//!
//! The coupling rows are solved after each rapier step as velocity constraints on the bodies
//! involved (an impulse that makes the coupled velocity exact, with a Baumgarte term of
//! [`COUPLING_ERP`] per step pulling the positions back onto the coupling), so they are not
//! solved together with rapier's contacts and joints: the coupled positions lag by what one
//! step of the other constraints moves them, and return to the coupling within a few steps.

use super::build::scoped_in;
use super::convert::*;
use super::entities::{AxisPair, Entity, EntityData};
use super::{BuildError, Physics};
use crate::world::{Joint, JointAxis as SdfAxis, JointKind};
use rapier3d::prelude::*;
use sim_plugin_api::{EntityId, EntityKind, JointState, Pose, Quat, Vec3};

/// The fraction of a coupling's position error corrected per step.
const COUPLING_ERP: f64 = 0.2;

/// Gain of velocity commands (acceleration-based motor): the joint reaches the commanded
/// speed within a few steps, as far as the command's force limit allows.
const VELOCITY_GAIN: f32 = 1000.0;

/// A velocity-level coupling between joint axes, solved after each rapier step.
#[derive(Clone, Debug)]
pub(super) struct Coupling {
    /// The joint entity.
    pub joint: EntityId,
    /// Screw: travel along the axis per radian (m/rad). Gearbox: the ratio.
    pub factor: f64,
    /// The reference body of a gearbox (none for a screw).
    pub reference: Option<RigidBodyHandle>,
    /// The impulse of the last step's correction (along the screw axis on the child, or about
    /// the gearbox's parent axis on the parent).
    pub impulse: f64,
}

/// A universal or revolute2 joint, whose rapier frames follow its angles.
#[derive(Clone, Debug)]
pub(super) struct TwoAxes {
    /// The joint entity.
    pub joint: EntityId,
    pub handle: ImpulseJointHandle,
    pub parent: RigidBodyHandle,
    pub child: RigidBodyHandle,
    /// The joint frame on each body at rest (X along axis 1, Y along axis 2).
    pub frame1: Pose,
    pub frame2: Pose,
    /// Position limits per axis, rad.
    pub limits: [[f64; 2]; 2],
    /// Position targets per axis (the spring reference, or a position command's target).
    pub targets: [f64; 2],
    /// The joint that brakes both axes with their friction, whose frames follow the main
    /// joint's (see [`Physics::add_friction`]).
    pub friction: Option<ImpulseJointHandle>,
}

/// One body's part of a coupling row: linear and angular Jacobian, world frame.
struct Row {
    body: RigidBodyHandle,
    lin: Vec3,
    ang: Vec3,
}

impl Physics {
    /// Builds one joint (see the module documentation for each type), with its frame (X along
    /// the axis) on each body, limits, the passive spring and damping as a force-based motor
    /// per axis, and friction as a second joint (see [`Physics::add_friction`]). Also names its links for plugins:
    /// `model::joint::__parent__` is the parent link (the world entity for `world`) and
    /// `model::joint::__child__` the child link (names beginning with `__` are reserved by
    /// SDF, so these cannot clash).
    pub(super) fn add_joint(
        &mut self,
        joint: &Joint,
        model: EntityId,
        model_scoped: &str,
    ) -> Result<EntityId, BuildError> {
        let err = |message: String| BuildError {
            span: joint.span.clone(),
            message,
        };
        let (child_link, child, child_pose) = self
            .link_body(model_scoped, &joint.child_link)
            .ok_or_else(|| {
                err(format!(
                    "joint `{}`: no child link `{}`",
                    joint.name, joint.child_link
                ))
            })?;
        let (parent_link, parent, parent_pose) = self
            .link_or_world(model_scoped, &joint.parent_link)
            .ok_or_else(|| {
                err(format!(
                    "joint `{}`: no parent link `{}`",
                    joint.name, joint.parent_link
                ))
            })?;
        let joint_w = child_pose.compose(joint.pose);
        let axis_w = |a: &Option<SdfAxis>| {
            a.as_ref()
                .map(|a| joint_w.orientation.rotate(a.xyz_in_joint).normalized())
        };
        let axis1_w = axis_w(&joint.axis);
        let frame_w = match axis1_w {
            Some(a) if joint.kind != JointKind::Fixed && joint.kind != JointKind::Ball => {
                Pose::new(joint_w.position, rotation_from_x(a))
            }
            _ => joint_w,
        };
        let frame1 = parent_pose.inverse().compose(frame_w);
        let frame2 = child_pose.inverse().compose(frame_w);
        let pair = |joint, body1, frame1, body2, frame2, linear| AxisPair {
            joint,
            body1,
            frame1,
            body2,
            frame2,
            linear,
            two_axes: None,
            friction: None,
            effort: f64::INFINITY,
            velocity: f64::INFINITY,
        };
        let limited = |a: AxisPair, axis: &Option<SdfAxis>| match axis {
            Some(x) => AxisPair {
                effort: x.effort,
                velocity: x.velocity,
                ..a
            },
            None => a,
        };
        let mut two_axes = None;
        let mut coupling = None;
        let (handle, axes) = match joint.kind {
            JointKind::Revolute
            | JointKind::Continuous
            | JointKind::Prismatic
            | JointKind::Fixed
            | JointKind::Ball
            | JointKind::Screw => {
                let (locked, axis) = match joint.kind {
                    JointKind::Revolute | JointKind::Continuous => {
                        (JointAxesMask::LOCKED_REVOLUTE_AXES, Some(JointAxis::AngX))
                    }
                    JointKind::Prismatic => {
                        (JointAxesMask::LOCKED_PRISMATIC_AXES, Some(JointAxis::LinX))
                    }
                    JointKind::Screw => (
                        JointAxesMask::LIN_Y
                            | JointAxesMask::LIN_Z
                            | JointAxesMask::ANG_Y
                            | JointAxesMask::ANG_Z,
                        Some(JointAxis::AngX),
                    ),
                    JointKind::Fixed => (JointAxesMask::LOCKED_FIXED_AXES, None),
                    _ => (JointAxesMask::LOCKED_SPHERICAL_AXES, None),
                };
                let mut builder = GenericJointBuilder::new(locked)
                    .local_frame1(pose_to_rapier(frame1))
                    .local_frame2(pose_to_rapier(frame2))
                    .contacts_enabled(false);
                if let (Some(a), Some(axis)) = (&joint.axis, axis) {
                    builder = axis_dynamics(builder, axis, a);
                }
                let h = self
                    .pw
                    .impulse_joints
                    .insert(parent, child, builder.build(), true);
                let friction = match (&joint.axis, axis) {
                    (Some(a), Some(axis)) => {
                        self.add_friction(parent, child, frame1, frame2, &[(axis, a)])
                    }
                    _ => None,
                };
                if joint.kind == JointKind::Screw {
                    coupling = Some(Coupling {
                        joint: EntityId::NONE,
                        factor: joint.screw_thread_pitch / std::f64::consts::TAU,
                        reference: None,
                        impulse: 0.0,
                    });
                }
                let axes = match axis {
                    Some(axis) => [
                        Some(limited(
                            pair(
                                Some(h),
                                parent,
                                frame1,
                                child,
                                frame2,
                                axis == JointAxis::LinX,
                            )
                            .with_friction(friction),
                            &joint.axis,
                        )),
                        None,
                    ],
                    None => [None, None],
                };
                (h, axes)
            }
            JointKind::Universal | JointKind::Revolute2 => {
                let a1 = axis1_w.unwrap_or(Vec3::new(0.0, 0.0, 1.0));
                let a2 = axis_w(&joint.axis2).unwrap_or(Vec3::new(0.0, 0.0, 1.0));
                if a1.dot(a2).abs() > 1e-6 {
                    return Err(err(format!(
                        "{} joint `{}`: <axis> and <axis2> are not perpendicular (they meet at \
                         {:.3} rad); this engine builds two-axis joints with perpendicular axes \
                         only: make them perpendicular, or chain two revolute joints through a \
                         light link",
                        joint.kind.name(),
                        joint.name,
                        a1.dot(a2).clamp(-1.0, 1.0).acos()
                    )));
                }
                // The joint frame: X along axis 1, Y along axis 2, Z across both (the
                // direction the joint locks).
                let frame_w = Pose::new(joint_w.position, frame_from_xy(a1, a2));
                let frame1 = parent_pose.inverse().compose(frame_w);
                let frame2 = child_pose.inverse().compose(frame_w);
                let mut builder = GenericJointBuilder::new(
                    JointAxesMask::LIN_X
                        | JointAxesMask::LIN_Y
                        | JointAxesMask::LIN_Z
                        | JointAxesMask::ANG_Z,
                )
                .local_frame1(pose_to_rapier(frame1))
                .local_frame2(pose_to_rapier(frame2))
                .contacts_enabled(false);
                let mut two = TwoAxes {
                    joint: EntityId::NONE,
                    handle: ImpulseJointHandle::invalid(),
                    parent,
                    child,
                    frame1,
                    frame2,
                    limits: [[f64::NEG_INFINITY, f64::INFINITY]; 2],
                    targets: [0.0; 2],
                    friction: None,
                };
                let mut frictions = Vec::new();
                for (k, (a, axis)) in [
                    (&joint.axis, JointAxis::AngX),
                    (&joint.axis2, JointAxis::AngY),
                ]
                .into_iter()
                .enumerate()
                {
                    if let Some(a) = a {
                        builder = axis_dynamics(builder, axis, a);
                        frictions.push((axis, a));
                        two.limits[k] = [a.lower, a.upper];
                        two.targets[k] = a.spring_reference;
                    }
                }
                let h = self
                    .pw
                    .impulse_joints
                    .insert(parent, child, builder.build(), true);
                two.handle = h;
                let friction = self.add_friction(parent, child, frame1, frame2, &frictions);
                two.friction = friction;
                two_axes = Some(two);
                let axis = |k| AxisPair {
                    joint: Some(h),
                    body1: parent,
                    frame1,
                    body2: child,
                    frame2,
                    linear: false,
                    two_axes: Some(k),
                    friction,
                    effort: f64::INFINITY,
                    velocity: f64::INFINITY,
                };
                (
                    h,
                    [
                        Some(limited(axis(0), &joint.axis)),
                        Some(limited(axis(1), &joint.axis2)),
                    ],
                )
            }
            JointKind::Gearbox => {
                if joint.gearbox_reference_link.is_empty() {
                    return Err(err(format!(
                        "gearbox joint `{}` has no <gearbox_reference_body>: add one naming the \
                         link both gears turn relative to",
                        joint.name
                    )));
                }
                let (_, reference, reference_pose) = self
                    .link_or_world(model_scoped, &joint.gearbox_reference_link)
                    .ok_or_else(|| {
                        err(format!(
                            "gearbox joint `{}`: no reference body `{}`",
                            joint.name, joint.gearbox_reference_body
                        ))
                    })?;
                let (a1, a2) = (
                    axis1_w.unwrap_or(Vec3::new(0.0, 0.0, 1.0)),
                    axis_w(&joint.axis2).unwrap_or(Vec3::new(0.0, 0.0, 1.0)),
                );
                // Axis 1 turns the parent relative to the reference body, axis 2 the child; the
                // frames sit at each gear's origin.
                let f_par = Pose::new(parent_pose.position, rotation_from_x(a1));
                let f_chi = Pose::new(child_pose.position, rotation_from_x(a2));
                let h = self.pw.impulse_joints.insert(
                    parent,
                    child,
                    GenericJointBuilder::new(JointAxesMask::empty())
                        .local_frame1(pose_to_rapier(frame1))
                        .local_frame2(pose_to_rapier(frame2))
                        .contacts_enabled(false)
                        .build(),
                    true,
                );
                coupling = Some(Coupling {
                    joint: EntityId::NONE,
                    factor: joint.gearbox_ratio,
                    reference: Some(reference),
                    impulse: 0.0,
                });
                let r_inv = reference_pose.inverse();
                (
                    h,
                    [
                        Some(pair(
                            None,
                            reference,
                            r_inv.compose(f_par),
                            parent,
                            parent_pose.inverse().compose(f_par),
                            false,
                        )),
                        Some(pair(
                            None,
                            reference,
                            r_inv.compose(f_chi),
                            child,
                            child_pose.inverse().compose(f_chi),
                            false,
                        )),
                    ],
                )
            }
        };
        let slot = self.joint_turns.len();
        let joint_scoped = scoped_in(model_scoped, &joint.name);
        self.entities
            .alias(&format!("{joint_scoped}::__parent__"), parent_link);
        self.entities
            .alias(&format!("{joint_scoped}::__child__"), child_link);
        let id = self.entities.add(Entity {
            kind: EntityKind::JOINT,
            parent: model,
            name: joint.name.clone(),
            scoped_name: joint_scoped,
            model,
            data: EntityData::Joint {
                handle,
                parent,
                child_link,
                frame2,
                kind: joint.kind,
                slot,
                axes: Box::new(axes),
            },
            removed: false,
        });
        for (k, a) in axes.iter().enumerate() {
            if a.is_some() {
                self.joint_turns.push((id, k, 0.0, 0.0));
            }
        }
        if let Some(mut c) = coupling {
            c.joint = id;
            self.couplings.push(c);
        }
        if let Some(mut t) = two_axes {
            t.joint = id;
            self.two_axes.push(t);
        }
        Ok(id)
    }

    /// Adds the joint that brakes `axes` (rapier axis, SDF axis) with their `<friction>`:
    /// a second rapier joint between the same bodies with the same frames that locks nothing
    /// and has, per axis with friction, a stiff velocity motor toward rest that can push no
    /// harder than the friction (nor the effort limit). Being a motor of its own, it acts
    /// together with the spring and damping motor, the limits and the commands of the joint
    /// itself. `None` when no axis has friction.
    fn add_friction(
        &mut self,
        parent: RigidBodyHandle,
        child: RigidBodyHandle,
        frame1: Pose,
        frame2: Pose,
        axes: &[(JointAxis, &SdfAxis)],
    ) -> Option<ImpulseJointHandle> {
        let mut builder = GenericJointBuilder::new(JointAxesMask::empty())
            .local_frame1(pose_to_rapier(frame1))
            .local_frame2(pose_to_rapier(frame2))
            .contacts_enabled(false);
        let mut any = false;
        for &(axis, a) in axes {
            if a.friction > 0.0 {
                any = true;
                builder = builder
                    .motor_model(axis, MotorModel::ForceBased)
                    .motor_velocity(axis, 0.0, 1.0e6)
                    .motor_max_force(axis, within(a.friction, a.effort) as f32);
            }
        }
        any.then(|| {
            self.pw
                .impulse_joints
                .insert(parent, child, builder.build(), true)
        })
    }

    /// A link's entity, body and initial world pose, by its name in `scope`.
    fn link_body(&self, scope: &str, name: &str) -> Option<(EntityId, RigidBodyHandle, Pose)> {
        let id = self.entity_id(&scoped_in(scope, name))?;
        match self.entities.get(id).map(|e| &e.data) {
            Some(EntityData::Link { body, .. }) => Some((id, *body, *self.link_initial.get(&id)?)),
            _ => None,
        }
    }

    /// As `link_body`, or the fixed world anchor for `world`.
    fn link_or_world(
        &mut self,
        scope: &str,
        name: &str,
    ) -> Option<(EntityId, RigidBodyHandle, Pose)> {
        if name == "world" {
            let anchor = *self
                .world_anchor
                .get_or_insert_with(|| self.pw.bodies.insert(RigidBodyBuilder::fixed().build()));
            Some((EntityId::WORLD, anchor, Pose::IDENTITY))
        } else {
            self.link_body(scope, name)
        }
    }

    /// The axes of a joint entity, with its kind and first slot.
    fn joint_axes(&self, id: EntityId) -> Option<(JointKind, usize, [Option<AxisPair>; 2])> {
        match &self.entities.get(id)?.data {
            EntityData::Joint {
                kind, slot, axes, ..
            } => Some((*kind, *slot, **axes)),
            _ => None,
        }
    }

    /// The two frames of an axis in the world now.
    fn axis_frames(&self, a: &AxisPair) -> Option<(Pose, Pose)> {
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
            let (_, _, last, turns) = self.joint_turns[slot];
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
        let dt = self.step.as_secs_f64();
        let coupling = self.couplings.iter().find(|c| c.joint == id);
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
            ..
        } = &e.data
        else {
            return None;
        };
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
            && let Some(c) = self.couplings.iter().find(|c| c.joint == id)
        {
            let dt = self.step.as_secs_f64();
            let a = f1.orientation.rotate(Vec3::new(1.0, 0.0, 0.0));
            force = force + a.scale(c.impulse / dt);
            torque = torque + a.scale(-c.factor * c.impulse / dt);
        }
        Some(sim_plugin_api::Wrench { force, torque })
    }

    /// rapier keeps a joint's impulses of the last solver substep: force = impulse / (dt /
    /// substeps).
    pub(super) fn joint_impulse_to_force(&self) -> f64 {
        self.pw.integration_parameters.num_solver_iterations.max(1) as f64 / self.step.as_secs_f64()
    }

    /// Drives a joint axis (see [`sim_plugin_api::JointCommand`]).
    pub fn joint_command(&mut self, cmd: &sim_plugin_api::JointCommand) -> Result<(), String> {
        self.motion_fresh = false;
        let e = self
            .entities
            .get(cmd.joint)
            .ok_or_else(|| super::commands::unknown(cmd.joint))?;
        let EntityData::Joint { kind, ref axes, .. } = e.data else {
            return Err(format!(
                "`{}` is a {}, not a joint",
                e.scoped_name,
                e.kind.name()
            ));
        };
        let a = axes
            .get(cmd.axis as usize)
            .copied()
            .flatten()
            .ok_or_else(|| {
                format!(
                    "joint `{}` ({}) has no axis {}",
                    e.scoped_name,
                    kind.name(),
                    cmd.axis
                )
            })?;
        let Some(handle) = a.joint else {
            return Err(format!(
                "joint `{}` ({}) only couples its gears; drive the joints the gears turn on",
                e.scoped_name,
                kind.name()
            ));
        };
        let axis = rapier_axis(&a);
        // The SDF effort limit bounds every command, the velocity limit velocity commands.
        let requested = if cmd.max_force.is_finite() && cmd.max_force > 0.0 {
            cmd.max_force
        } else {
            f64::INFINITY
        };
        let max_force = within(requested, a.effort);
        let max = if max_force.is_finite() {
            max_force as f32
        } else {
            f32::MAX
        };
        match cmd.mode {
            sim_plugin_api::JointCommandMode::VELOCITY => {
                let target = within(cmd.target, a.velocity);
                let j = self
                    .pw
                    .impulse_joints
                    .get_mut(handle, true)
                    .ok_or("joint gone")?;
                j.data
                    .set_motor_model(axis, MotorModel::AccelerationBased)
                    .set_motor_velocity(axis, target as f32, VELOCITY_GAIN)
                    .set_motor_max_force(axis, max);
            }
            sim_plugin_api::JointCommandMode::POSITION => {
                if let (Some(k), Some(t)) = (
                    a.two_axes,
                    self.two_axes.iter_mut().find(|t| t.joint == cmd.joint),
                ) {
                    // Shifted by the angle before each step (see `update_two_axes`).
                    t.targets[k] = cmd.target;
                }
                let j = self
                    .pw
                    .impulse_joints
                    .get_mut(handle, true)
                    .ok_or("joint gone")?;
                j.data
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
                let (f1, f2) = self.axis_frames(&a).ok_or("joint gone")?;
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
            other => return Err(format!("unknown joint command mode {}", other.0)),
        }
        Ok(())
    }

    /// Turns the frames of universal and revolute2 joints to their current angles, and shifts
    /// their limits and position targets by the same angles (see the module documentation).
    pub(super) fn update_two_axes(&mut self) {
        for t in 0..self.two_axes.len() {
            let two = self.two_axes[t].clone();
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
                let (_, _, last, turns) = self.joint_turns[slot + k];
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
                let [lo, hi] = two.limits[k];
                if lo.is_finite() || hi.is_finite() {
                    let lo = if lo.is_finite() {
                        (lo - angles[k]) as f32
                    } else {
                        f32::MIN
                    };
                    let hi = if hi.is_finite() {
                        (hi - angles[k]) as f32
                    } else {
                        f32::MAX
                    };
                    j.data.set_limits(axis, [lo, hi]);
                }
                j.data.motors[axis as usize].target_pos = (two.targets[k] - angles[k]) as f32;
            }
        }
    }

    /// Updates the unwrapped angles of every joint axis after a step.
    pub(super) fn update_joint_turns(&mut self) {
        for i in 0..self.joint_turns.len() {
            let (id, k, last, turns) = self.joint_turns[i];
            if let Some(raw) = self.joint_angle(id, k) {
                self.joint_turns[i] = (id, k, raw, turns + turn_change(last, raw));
            }
        }
    }

    /// The unwrapped angle of axis `k` of a joint, as of the last `update_joint_turns`.
    fn unwrapped(&self, slot: usize, k: usize) -> f64 {
        let (_, _, last, turns) = self.joint_turns[slot + k];
        last + turns * std::f64::consts::TAU
    }

    /// Solves the screw and gearbox couplings on the velocities after a step (see the module
    /// documentation).
    pub(super) fn solve_couplings(&mut self) {
        let dt = self.step.as_secs_f64();
        for ci in 0..self.couplings.len() {
            let c = self.couplings[ci].clone();
            let Some((kind, slot, axes)) = self.joint_axes(c.joint) else {
                continue;
            };
            if self.entities.get(c.joint).is_none_or(|e| e.removed) {
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
            self.couplings[ci].impulse = lambda;
        }
    }
}

/// The rapier axis that moves axis `a`.
fn rapier_axis(a: &AxisPair) -> JointAxis {
    match (a.linear, a.two_axes) {
        (true, _) => JointAxis::LinX,
        (false, Some(1)) => JointAxis::AngY,
        _ => JointAxis::AngX,
    }
}

/// The world direction of axis `a`, whose frames are `f1` and `f2` in the world: X of the
/// first frame, or for the second axis of a two-axis joint, Y of the child's frame.
fn axis_direction(a: &AxisPair, f1: Pose, f2: Pose) -> Vec3 {
    match a.two_axes {
        Some(1) => f2.orientation.rotate(Vec3::new(0.0, 1.0, 0.0)),
        _ => f1.orientation.rotate(Vec3::new(1.0, 0.0, 0.0)),
    }
}

/// The two angles of a universal joint whose relative rotation (child frame in parent
/// frame) is `q = R_x(a1) * R_y(a2)`, wrapped to (-pi, pi].
fn two_axis_angles(q: Quat) -> [f64; 2] {
    let r = q.to_matrix();
    [r[2][1].atan2(r[1][1]), r[0][2].atan2(r[0][0])]
}

/// The rotation whose X axis is `x` and whose Y axis is `y` (perpendicular unit vectors).
fn frame_from_xy(x: Vec3, y: Vec3) -> Quat {
    let y = (y - x.scale(x.dot(y))).normalized();
    let z = x.cross(y);
    // Rotation matrix columns x, y, z to a quaternion (Shepperd).
    let m = [[x.x, y.x, z.x], [x.y, y.y, z.y], [x.z, y.z, z.z]];
    let tr = m[0][0] + m[1][1] + m[2][2];
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        Quat::new(
            (m[2][1] - m[1][2]) / s,
            (m[0][2] - m[2][0]) / s,
            (m[1][0] - m[0][1]) / s,
            0.25 * s,
        )
    } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
        let s = (1.0 + m[0][0] - m[1][1] - m[2][2]).sqrt() * 2.0;
        Quat::new(
            0.25 * s,
            (m[0][1] + m[1][0]) / s,
            (m[0][2] + m[2][0]) / s,
            (m[2][1] - m[1][2]) / s,
        )
    } else if m[1][1] > m[2][2] {
        let s = (1.0 + m[1][1] - m[0][0] - m[2][2]).sqrt() * 2.0;
        Quat::new(
            (m[0][1] + m[1][0]) / s,
            0.25 * s,
            (m[1][2] + m[2][1]) / s,
            (m[0][2] - m[2][0]) / s,
        )
    } else {
        let s = (1.0 + m[2][2] - m[0][0] - m[1][1]).sqrt() * 2.0;
        Quat::new(
            (m[0][2] + m[2][0]) / s,
            (m[1][2] + m[2][1]) / s,
            0.25 * s,
            (m[1][0] - m[0][1]) / s,
        )
    };
    q.normalized()
}

/// `v` clamped to `[-limit, limit]` (unchanged when the limit is not a number or negative).
fn within(v: f64, limit: f64) -> f64 {
    if limit >= 0.0 {
        v.clamp(-limit, limit)
    } else {
        v
    }
}

/// Limits, and the passive spring and damping of an SDF axis on rapier axis `axis` (its
/// friction is a joint of its own, see [`Physics::add_friction`]).
fn axis_dynamics(
    mut builder: GenericJointBuilder,
    axis: JointAxis,
    a: &SdfAxis,
) -> GenericJointBuilder {
    if a.lower.is_finite() || a.upper.is_finite() {
        let lo = if a.lower.is_finite() {
            a.lower as f32
        } else {
            f32::MIN
        };
        let hi = if a.upper.is_finite() {
            a.upper as f32
        } else {
            f32::MAX
        };
        builder = builder.limits(axis, [lo, hi]);
    }
    let max = if a.effort.is_finite() {
        a.effort as f32
    } else {
        f32::MAX
    };
    if a.spring_stiffness > 0.0 || a.damping > 0.0 {
        builder = builder
            .motor_model(axis, MotorModel::ForceBased)
            .motor_position(
                axis,
                a.spring_reference as f32,
                a.spring_stiffness as f32,
                a.damping as f32,
            )
            .motor_max_force(axis, max);
    }
    builder
}

/// The rotation taking the X axis to the unit vector `to`.
pub(super) fn rotation_from_x(to: Vec3) -> Quat {
    let x = Vec3::new(1.0, 0.0, 0.0);
    let d = x.dot(to);
    if d < -1.0 + 1e-12 {
        return Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), std::f64::consts::PI);
    }
    let c = x.cross(to);
    Quat::new(c.x, c.y, c.z, 1.0 + d).normalized()
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
fn turn_change(last: f64, now: f64) -> f64 {
    let d = now - last;
    if d > std::f64::consts::PI {
        -1.0
    } else if d < -std::f64::consts::PI {
        1.0
    } else {
        0.0
    }
}
