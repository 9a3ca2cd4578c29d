//! Building joints in rapier (see the `joints` module for each type).

use super::bounds::{rapier_force, rapier_limits, within};
use super::couplings::{Coupling, TwoAxes};
use crate::build::scoped_in;
use crate::convert::*;
use crate::entities::{AxisPair, Entity, EntityData};
use crate::{BuildError, Physics};
use rapier3d::prelude::*;
use sim_plugin_api::{EntityId, EntityKind, Pose, Quat, Vec3};
use sim_world::{Joint, JointAxis as SdfAxis, JointKind};

/// The two links a joint joins: the entity, body and initial world pose of each (the world
/// entity and the world anchor for `world`).
struct Ends {
    parent_link: EntityId,
    parent: RigidBodyHandle,
    parent_pose: Pose,
    child_link: EntityId,
    child: RigidBodyHandle,
    child_pose: Pose,
}

/// A joint built in rapier, before its entity exists.
struct Built {
    /// The rapier joint that carries the joint's constraints.
    handle: ImpulseJointHandle,
    axes: [Option<AxisPair>; 2],
    coupling: Option<Coupling>,
    two_axes: Option<TwoAxes>,
    /// The multibody joint of a joint in reduced coordinates, and its fixed world root.
    multibody: Option<(MultibodyJointHandle, Option<RigidBodyHandle>)>,
}

impl Physics {
    /// Builds one joint (see the module documentation for each type), with its frame (X along
    /// the axis) on each body, limits, the passive spring and damping as a force-based motor
    /// per axis, and friction as a second joint (see [`Physics::add_friction`]). Also names
    /// its links for plugins: `model::joint::__parent__` is the parent link (the world entity
    /// for `world`) and `model::joint::__child__` the child link (names beginning with `__`
    /// are reserved by SDF, so these cannot clash).
    pub(crate) fn add_joint(
        &mut self,
        joint: &Joint,
        model: EntityId,
        model_scoped: &str,
    ) -> Result<EntityId, BuildError> {
        let ends = self.joint_ends(joint, model_scoped)?;
        let joint_w = ends.child_pose.compose(joint.pose);
        let frame_w = match axis_in_world(joint_w, &joint.axis) {
            Some(a) if joint.kind != JointKind::Fixed && joint.kind != JointKind::Ball => {
                Pose::new(joint_w.position, rotation_from_x(a))
            }
            _ => joint_w,
        };
        let frame1 = ends.parent_pose.inverse().compose(frame_w);
        let frame2 = ends.child_pose.inverse().compose(frame_w);
        let built = match joint.kind {
            JointKind::Revolute
            | JointKind::Continuous
            | JointKind::Prismatic
            | JointKind::Fixed
            | JointKind::Ball
            | JointKind::Screw => self.add_one_axis_joint(joint, &ends, frame1, frame2),
            JointKind::Universal | JointKind::Revolute2 => {
                self.add_two_axis_joint(joint, &ends, joint_w)?
            }
            JointKind::Gearbox => {
                self.add_gearbox_joint(joint, model_scoped, &ends, joint_w, frame1, frame2)?
            }
        };
        Ok(self.add_joint_entity(joint, model, model_scoped, &ends, frame2, built))
    }

    /// The links `joint` joins, by their names in `model_scoped`.
    fn joint_ends(&mut self, joint: &Joint, model_scoped: &str) -> Result<Ends, BuildError> {
        let (child_link, child, child_pose) = self
            .link_body(model_scoped, &joint.child_link)
            .ok_or_else(|| {
                joint_error(
                    joint,
                    format!(
                        "joint `{}`: no child link `{}`",
                        joint.name, joint.child_link
                    ),
                )
            })?;
        let (parent_link, parent, parent_pose) = self
            .link_or_world(model_scoped, &joint.parent_link)
            .ok_or_else(|| {
                joint_error(
                    joint,
                    format!(
                        "joint `{}`: no parent link `{}`",
                        joint.name, joint.parent_link
                    ),
                )
            })?;
        Ok(Ends {
            parent_link,
            parent,
            parent_pose,
            child_link,
            child,
            child_pose,
        })
    }

    /// A revolute, continuous, prismatic, fixed, ball or screw joint: one rapier joint with
    /// its frames `frame1` on the parent and `frame2` on the child (X along the axis), and for
    /// a screw its coupling.
    fn add_one_axis_joint(
        &mut self,
        joint: &Joint,
        ends: &Ends,
        frame1: Pose,
        frame2: Pose,
    ) -> Built {
        let (locked, axis) = match joint.kind {
            JointKind::Revolute | JointKind::Continuous => {
                (JointAxesMask::LOCKED_REVOLUTE_AXES, Some(JointAxis::AngX))
            }
            JointKind::Prismatic => (JointAxesMask::LOCKED_PRISMATIC_AXES, Some(JointAxis::LinX)),
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
        let (parent, child) = (ends.parent, ends.child);
        if let Some((mh, anchor)) = self.add_multibody_joint(
            joint,
            (ends.parent_link, parent, child),
            locked,
            axis,
            frame1,
            frame2,
        ) {
            // The drive joint: it locks nothing, holds the limits and takes the commands,
            // its constraints solved with the tree's inertia (and its impulses read back).
            let body1 = anchor.unwrap_or(parent);
            let mut drive = joint_builder(JointAxesMask::empty(), frame1, frame2);
            if let (Some(a), Some(axis)) = (&joint.axis, axis)
                && let Some(limits) = rapier_limits([a.lower, a.upper], 0.0)
            {
                drive = drive.limits(axis, limits);
            }
            let h = self
                .pw
                .impulse_joints
                .insert(body1, child, drive.build(), true);
            let axes = match axis {
                Some(axis) => {
                    let linear = axis == JointAxis::LinX;
                    let pair = axis_pair(Some(h), body1, frame1, child, frame2, linear);
                    [Some(limited(pair, &joint.axis)), None]
                }
                None => [None, None],
            };
            return Built {
                handle: h,
                axes,
                coupling: None,
                two_axes: None,
                multibody: Some((mh, anchor)),
            };
        }
        let mut builder = joint_builder(locked, frame1, frame2);
        if let (Some(a), Some(axis)) = (&joint.axis, axis) {
            builder = axis_dynamics(builder, axis, a);
        }
        let h = self
            .pw
            .impulse_joints
            .insert(parent, child, builder.build(), true);
        let friction = match (&joint.axis, axis) {
            (Some(a), Some(axis)) => self.add_friction(parent, child, frame1, frame2, &[(axis, a)]),
            _ => None,
        };
        let coupling = (joint.kind == JointKind::Screw).then(|| Coupling {
            joint: EntityId::NONE,
            factor: joint.screw_thread_pitch / std::f64::consts::TAU,
            reference: None,
            impulse: 0.0,
        });
        let axes = match axis {
            Some(axis) => {
                let linear = axis == JointAxis::LinX;
                let pair = axis_pair(Some(h), parent, frame1, child, frame2, linear);
                [
                    Some(limited(pair.with_friction(friction), &joint.axis)),
                    None,
                ]
            }
            None => [None, None],
        };
        Built {
            handle: h,
            axes,
            coupling,
            two_axes: None,
            multibody: None,
        }
    }

    /// A universal or revolute2 joint: one rapier joint whose frame has X along `<axis>` and
    /// Y along `<axis2>` (which must be perpendicular), its frames following its angles (see
    /// [`TwoAxes`]). `joint_w` is the joint's world pose.
    fn add_two_axis_joint(
        &mut self,
        joint: &Joint,
        ends: &Ends,
        joint_w: Pose,
    ) -> Result<Built, BuildError> {
        let a1 = axis_in_world(joint_w, &joint.axis).unwrap_or(Vec3::new(0.0, 0.0, 1.0));
        let a2 = axis_in_world(joint_w, &joint.axis2).unwrap_or(Vec3::new(0.0, 0.0, 1.0));
        if a1.dot(a2).abs() > 1e-6 {
            return Err(joint_error(
                joint,
                format!(
                    "{} joint `{}`: <axis> and <axis2> are not perpendicular (they meet at \
                     {:.3} rad); this engine builds two-axis joints with perpendicular axes \
                     only: make them perpendicular, or chain two revolute joints through a \
                     light link",
                    joint.kind.name(),
                    joint.name,
                    a1.dot(a2).clamp(-1.0, 1.0).acos()
                ),
            ));
        }
        let (parent, child) = (ends.parent, ends.child);
        // The joint frame: X along axis 1, Y along axis 2, Z across both (the direction the
        // joint locks).
        let frame_w = Pose::new(joint_w.position, frame_from_xy(a1, a2));
        let frame1 = ends.parent_pose.inverse().compose(frame_w);
        let frame2 = ends.child_pose.inverse().compose(frame_w);
        let mut builder = joint_builder(
            JointAxesMask::LIN_X
                | JointAxesMask::LIN_Y
                | JointAxesMask::LIN_Z
                | JointAxesMask::ANG_Z,
            frame1,
            frame2,
        );
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
        let axis = |k| AxisPair {
            two_axes: Some(k),
            friction,
            ..axis_pair(Some(h), parent, frame1, child, frame2, false)
        };
        Ok(Built {
            handle: h,
            axes: [
                Some(limited(axis(0), &joint.axis)),
                Some(limited(axis(1), &joint.axis2)),
            ],
            coupling: None,
            two_axes: Some(two),
            multibody: None,
        })
    }

    /// A gearbox joint: a rapier joint that locks nothing, with its frames `frame1` and
    /// `frame2`, plus the coupling of the parent's turn about `<axis>` and the child's about
    /// `<axis2>`, both relative to the reference body. `joint_w` is the joint's world pose.
    fn add_gearbox_joint(
        &mut self,
        joint: &Joint,
        model_scoped: &str,
        ends: &Ends,
        joint_w: Pose,
        frame1: Pose,
        frame2: Pose,
    ) -> Result<Built, BuildError> {
        if joint.gearbox_reference_link.is_empty() {
            return Err(joint_error(
                joint,
                format!(
                    "gearbox joint `{}` has no <gearbox_reference_body>: add one naming the \
                     link both gears turn relative to",
                    joint.name
                ),
            ));
        }
        let (_, reference, reference_pose) = self
            .link_or_world(model_scoped, &joint.gearbox_reference_link)
            .ok_or_else(|| {
                joint_error(
                    joint,
                    format!(
                        "gearbox joint `{}`: no reference body `{}`",
                        joint.name, joint.gearbox_reference_body
                    ),
                )
            })?;
        let a1 = axis_in_world(joint_w, &joint.axis).unwrap_or(Vec3::new(0.0, 0.0, 1.0));
        let a2 = axis_in_world(joint_w, &joint.axis2).unwrap_or(Vec3::new(0.0, 0.0, 1.0));
        let (parent, parent_pose) = (ends.parent, ends.parent_pose);
        let (child, child_pose) = (ends.child, ends.child_pose);
        // Axis 1 turns the parent relative to the reference body, axis 2 the child; the
        // frames sit at each gear's origin.
        let f_par = Pose::new(parent_pose.position, rotation_from_x(a1));
        let f_chi = Pose::new(child_pose.position, rotation_from_x(a2));
        let h = self.pw.impulse_joints.insert(
            parent,
            child,
            joint_builder(JointAxesMask::empty(), frame1, frame2).build(),
            true,
        );
        let r_inv = reference_pose.inverse();
        let gear = |body, pose: Pose, frame: Pose| {
            axis_pair(
                None,
                reference,
                r_inv.compose(frame),
                body,
                pose.inverse().compose(frame),
                false,
            )
        };
        Ok(Built {
            handle: h,
            axes: [
                Some(gear(parent, parent_pose, f_par)),
                Some(gear(child, child_pose, f_chi)),
            ],
            coupling: Some(Coupling {
                joint: EntityId::NONE,
                factor: joint.gearbox_ratio,
                reference: Some(reference),
                impulse: 0.0,
            }),
            two_axes: None,
            multibody: None,
        })
    }

    /// The entity of a built joint (with its child frame `frame2`), the aliases of its links,
    /// the turn counters of its axes, and its coupling and two-axis frames.
    fn add_joint_entity(
        &mut self,
        joint: &Joint,
        model: EntityId,
        model_scoped: &str,
        ends: &Ends,
        frame2: Pose,
        built: Built,
    ) -> EntityId {
        let axes = built.axes.iter().filter(|a| a.is_some()).count();
        let reused = self
            .joints
            .free_turns
            .iter()
            .position(|&(_, run)| run == axes);
        let slot = match reused {
            Some(i) if axes > 0 => self.joints.free_turns.swap_remove(i).0,
            _ => self.joints.turns.len(),
        };
        let joint_scoped = scoped_in(model_scoped, &joint.name);
        self.entities
            .alias(&format!("{joint_scoped}::__parent__"), ends.parent_link);
        self.entities
            .alias(&format!("{joint_scoped}::__child__"), ends.child_link);
        let id = self.entities.add(Entity {
            kind: EntityKind::JOINT,
            parent: model,
            name: joint.name.clone(),
            scoped_name: joint_scoped,
            model,
            data: EntityData::Joint {
                handle: built.handle,
                parent: ends.parent,
                child_link: ends.child_link,
                frame2,
                kind: joint.kind,
                slot,
                axes: Box::new(built.axes),
                multibody: built.multibody.map(|(h, _)| h),
                anchor: built.multibody.and_then(|(_, a)| a),
            },
        });
        let mut next = slot;
        for (k, a) in built.axes.iter().enumerate() {
            if a.is_some() {
                if next < self.joints.turns.len() {
                    self.joints.turns[next] = (id, k, 0.0, 0.0);
                } else {
                    self.joints.turns.push((id, k, 0.0, 0.0));
                }
                next += 1;
            }
        }
        if let Some(mut c) = built.coupling {
            c.joint = id;
            self.joints.couplings.push(c);
        }
        if let Some(mut t) = built.two_axes {
            t.joint = id;
            self.joints.two_axes.push(t);
        }
        id
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
        let mut builder = joint_builder(JointAxesMask::empty(), frame1, frame2);
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
            Some(EntityData::Link { body, .. }) => Some((id, *body, *self.links.initial.get(&id)?)),
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
                .joints
                .world_anchor
                .get_or_insert_with(|| self.pw.bodies.insert(RigidBodyBuilder::fixed().build()));
            Some((EntityId::WORLD, anchor, Pose::IDENTITY))
        } else {
            self.link_body(scope, name)
        }
    }
}

/// A build error at `joint`.
fn joint_error(joint: &Joint, message: String) -> BuildError {
    BuildError {
        span: joint.span.clone(),
        message,
    }
}

/// The world direction of an SDF axis of the joint whose world pose is `joint_w`.
fn axis_in_world(joint_w: Pose, a: &Option<SdfAxis>) -> Option<Vec3> {
    a.as_ref()
        .map(|a| joint_w.orientation.rotate(a.xyz_in_joint).normalized())
}

/// A rapier joint locking `locked`, with its frames `frame1` on the first body and `frame2`
/// on the second, the two bodies not colliding.
fn joint_builder(locked: JointAxesMask, frame1: Pose, frame2: Pose) -> GenericJointBuilder {
    GenericJointBuilder::new(locked)
        .local_frame1(pose_to_rapier(frame1))
        .local_frame2(pose_to_rapier(frame2))
        .contacts_enabled(false)
}

/// An axis moving `body2` (frame `frame2`) relative to `body1` (frame `frame1`), along X if
/// `linear` else about it, through the rapier joint `joint` (`None` for a gearbox's gears),
/// with no friction joint and no limits.
fn axis_pair(
    joint: Option<ImpulseJointHandle>,
    body1: RigidBodyHandle,
    frame1: Pose,
    body2: RigidBodyHandle,
    frame2: Pose,
    linear: bool,
) -> AxisPair {
    AxisPair {
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
    }
}

/// `a` with the effort and velocity limits of the SDF `axis`, if there is one.
fn limited(a: AxisPair, axis: &Option<SdfAxis>) -> AxisPair {
    match axis {
        Some(x) => AxisPair {
            effort: x.effort,
            velocity: x.velocity,
            ..a
        },
        None => a,
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
    if let Some(limits) = rapier_limits([a.lower, a.upper], 0.0) {
        builder = builder.limits(axis, limits);
    }
    let max = rapier_force(a.effort);
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
