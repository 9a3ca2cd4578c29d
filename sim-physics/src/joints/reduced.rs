//! Joints in reduced coordinates: rapier multibody joints, with the axis's passive damping,
//! spring and friction acting on the joint coordinate (see the `joints` module).

use crate::Physics;
use crate::convert::*;
use rapier3d::prelude::*;
use sim_plugin_api::{EntityId, Pose};
use sim_world::{Joint, JointAxis as SdfAxis, JointKind, Model};

/// Whether the joints of `model` (with its nested models) are built in reduced coordinates:
///
/// * not when any of them is a screw or gearbox joint, whose couplings are solved on the
///   bodies' velocities after each step (a multibody link's velocity is its tree's), nor a
///   universal or revolute2 joint, whose turning frames and position targets assume rapier's
///   constraints between plain bodies;
/// * then when a joint hangs the model from the world (an arm on a fixed base, a pendulum:
///   the tree's root is fixed, and its coordinates are the joints' alone), or when a joint's
///   axis has passive dynamics (`<damping>`, `<friction>` or a spring), which impulse joints
///   cannot honour on light links.
///
/// A free-floating model without passive joint dynamics (most mobile robots) keeps impulse
/// joints: its tree's root would bring six free coordinates, and rapier rebuilds and factors
/// the tree's mass matrix at every substep and solves each contact and impulse joint on its
/// links over all of the tree's coordinates, which made `worlds/pioneer.sdf` step three
/// times slower for no change in its motion (its joints have no dynamics, and its wheels'
/// continuous joints stay impulse joints either way).
pub(crate) fn reducible(model: &Model) -> bool {
    kinds_reducible(model) && (grounded(model) || has_passive_dynamics(model))
}

/// Whether no joint of `model` (nested models included) is of a kind that keeps its whole
/// model in impulse joints.
fn kinds_reducible(model: &Model) -> bool {
    !model.joints.iter().any(|j| {
        matches!(
            j.kind,
            JointKind::Screw | JointKind::Gearbox | JointKind::Universal | JointKind::Revolute2
        )
    }) && model.models.iter().all(kinds_reducible)
}

/// Whether a joint of `model` (nested models included) has `world` as its parent.
fn grounded(model: &Model) -> bool {
    model.joints.iter().any(|j| j.parent_link == "world") || model.models.iter().any(grounded)
}

/// Whether an axis of a joint of `model` (nested models included) has damping, friction or
/// a spring.
fn has_passive_dynamics(model: &Model) -> bool {
    let passive = |a: &SdfAxis| a.damping > 0.0 || a.friction > 0.0 || a.spring_stiffness > 0.0;
    model
        .joints
        .iter()
        .any(|j| j.axis.iter().chain(&j.axis2).any(passive))
        || model.models.iter().any(has_passive_dynamics)
}

impl Physics {
    /// Builds `joint` (one that locks `locked`, with its free axis `axis`) between `parent`
    /// (`parent_link`, the world entity for `world`) and `child` as a multibody joint, with
    /// its frames `frame1` and `frame2`, when it can be one (see the `joints` module): the
    /// multibody joint and the fixed body made to root it to the world. `None` (and nothing
    /// built) otherwise.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn add_multibody_joint(
        &mut self,
        joint: &Joint,
        (parent_link, parent, child): (EntityId, RigidBodyHandle, RigidBodyHandle),
        locked: JointAxesMask,
        axis: Option<JointAxis>,
        frame1: Pose,
        frame2: Pose,
    ) -> Option<(MultibodyJointHandle, Option<RigidBodyHandle>)> {
        if !self.joints.reduced || !self.may_reduce(joint, parent, child) {
            return None;
        }
        // Each joint to the world gets its own fixed root, so that the trees hanging from
        // the world stay separate multibodies.
        let anchor = (parent_link == EntityId::WORLD)
            .then(|| self.pw.bodies.insert(RigidBodyBuilder::fixed().build()));
        let data = GenericJointBuilder::new(locked)
            .local_frame1(pose_to_rapier(frame1))
            .local_frame2(pose_to_rapier(frame2))
            .contacts_enabled(false)
            .build();
        let Some(h) = self
            .pw
            .multibody_joints
            .insert(anchor.unwrap_or(parent), child, data, true)
        else {
            // A loop: the child already hangs from this tree.
            if let Some(a) = anchor {
                self.pw.remove_body(a);
            }
            return None;
        };
        self.set_passive(h, axis.zip(joint.axis.as_ref()));
        // rapier lets a body sleep once it moves slower than 0.4 m/s and 0.5 rad/s for 2 s,
        // which would stop a slow swing (a 0.1 rad swing of a 0.5 m pendulum) at its turn.
        for b in [parent, child] {
            if let Some(b) = self.pw.bodies.get_mut(b).filter(|b| b.is_dynamic()) {
                *b.activation_mut() = RigidBodyActivation::cannot_sleep();
            }
        }
        Some((h, anchor))
    }

    /// Whether a joint of this kind, between these bodies, may be a multibody joint: a
    /// revolute, prismatic, fixed or ball joint (a continuous joint, most often a wheel,
    /// stays an impulse joint: rapier solves the contacts of multibody links one friction
    /// constraint per contact point, which makes a diff drive on cylinder wheels turn 10 %
    /// faster than its wheels roll, where the one friction constraint and twist of its
    /// plain bodies' contacts follow the wheels), between dynamic bodies of the default
    /// dominance (or from a fixed one), carrying no force-torque sensor (reduced
    /// coordinates compute no force on the locked axes).
    fn may_reduce(&self, joint: &Joint, parent: RigidBodyHandle, child: RigidBodyHandle) -> bool {
        let kind_ok = matches!(
            joint.kind,
            JointKind::Revolute | JointKind::Prismatic | JointKind::Fixed | JointKind::Ball
        );
        let sensed = joint
            .sensors
            .iter()
            .any(|s| s.sensor_type == "force_torque");
        let plain = |b: &RigidBody| b.is_dynamic() && b.dominance_group() == 0;
        let child_ok = self.pw.bodies.get(child).is_some_and(plain);
        let parent_ok = parent
            == self
                .joints
                .world_anchor
                .unwrap_or(RigidBodyHandle::invalid())
            || self
                .pw
                .bodies
                .get(parent)
                .is_some_and(|b| plain(b) || b.is_fixed());
        kind_ok && !sensed && child_ok && parent_ok
    }

    /// Sets the passive dynamics of the multibody joint `h`: no damping but the SDF axis's
    /// (rapier gives each angular axis 0.1 by default), and on its free axis `axis` the SDF
    /// `<damping>`, `<friction>` and spring, all acting on the joint coordinate with the
    /// tree's inertia and none bounded by `<effort>`.
    fn set_passive(&mut self, h: MultibodyJointHandle, axis: Option<(JointAxis, &SdfAxis)>) {
        let Some((mb, link)) = self.pw.multibody_joints.get_mut(h) else {
            return;
        };
        let Some((first, ndofs)) = mb.link(link).map(|l| (l.assembly_id(), l.joint().ndofs()))
        else {
            return;
        };
        for d in first..first + ndofs {
            mb.damping_mut()[d] = 0.0;
        }
        let Some((axis, a)) = axis else {
            return;
        };
        if ndofs == 1 {
            mb.damping_mut()[first] = a.damping.max(0.0) as Real;
            mb.frictions_mut()[first] = a.friction.max(0.0) as Real;
        }
        if a.spring_stiffness > 0.0
            && let Some(l) = mb.link_mut(link)
        {
            l.joint.set_spring(
                axis as usize,
                a.spring_stiffness as Real,
                a.spring_reference as Real,
            );
        }
    }
}

/// rapier measures the angle of a motor on a joint between multibody links by the sine of
/// half of it, and pulls `sin(angle / 2) - sin(target / 2)` toward zero, which halves a
/// position motor's stiffness (and bends it away from the target). Before each step the
/// target given to rapier is set so that its error is `angle - target` (wrapped, and at most
/// 1 rad: a larger error pulls as hard as 1 rad).
fn compensated_target(angle: f64, target: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    let error = ((angle - target + std::f64::consts::PI).rem_euclid(tau) - std::f64::consts::PI)
        .clamp(-1.0, 1.0);
    2.0 * ((angle / 2.0).sin() - error).clamp(-1.0, 1.0).asin()
}

impl Physics {
    /// Sets the rapier targets of the position commands on angular axes of reduced-coordinate
    /// joints for this step (see [`compensated_target`]).
    pub(crate) fn update_drive_targets(&mut self) {
        for i in 0..self.joints.drive_targets.len() {
            let (joint, handle, target) = self.joints.drive_targets[i];
            let Some(angle) = self.joint_angle(joint, 0) else {
                continue;
            };
            if let Some(j) = self.pw.impulse_joints.get_mut(handle, false) {
                j.data.motors[JointAxis::AngX as usize].target_pos =
                    compensated_target(angle, target) as Real;
            }
        }
    }
}
