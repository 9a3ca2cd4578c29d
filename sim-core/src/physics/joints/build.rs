//! Building joints in rapier (see the `joints` module for each type).

use super::commands::within;
use super::couplings::{Coupling, TwoAxes};
use crate::physics::build::scoped_in;
use crate::physics::convert::*;
use crate::physics::entities::{AxisPair, Entity, EntityData};
use crate::physics::{BuildError, Physics};
use crate::world::{Joint, JointAxis as SdfAxis, JointKind};
use rapier3d::prelude::*;
use sim_plugin_api::{EntityId, EntityKind, Pose, Quat, Vec3};

impl Physics {
    /// Builds one joint (see the module documentation for each type), with its frame (X along
    /// the axis) on each body, limits, the passive spring and damping as a force-based motor
    /// per axis, and friction as a second joint (see [`Physics::add_friction`]). Also names its links for plugins:
    /// `model::joint::__parent__` is the parent link (the world entity for `world`) and
    /// `model::joint::__child__` the child link (names beginning with `__` are reserved by
    /// SDF, so these cannot clash).
    pub(in crate::physics) fn add_joint(
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
fn rotation_from_x(to: Vec3) -> Quat {
    let x = Vec3::new(1.0, 0.0, 0.0);
    let d = x.dot(to);
    if d < -1.0 + 1e-12 {
        return Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), std::f64::consts::PI);
    }
    let c = x.cross(to);
    Quat::new(c.x, c.y, c.z, 1.0 + d).normalized()
}
