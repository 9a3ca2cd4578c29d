//! Commands that change the world at run time: spawning and removing models, teleports,
//! velocities and wrenches.

use super::Physics;
use super::build::BuildError;
use super::convert::*;
use super::entities::EntityData;
use rapier3d::prelude::*;
use sim_plugin_api::{EntityId, EntityKind, Pose, Vec3};
use sim_world::{Model, World};

/// The largest position, in metres from the world's origin, a command may set (the extent
/// the engine simulates, as for shapes).
pub const MAX_COMMAND_POSITION: f64 = 1.0e6;

/// The largest magnitude of any other number a command carries: a velocity (m/s, rad/s), a
/// force (N), a torque (N m), a joint target, gain or force limit.
pub const MAX_COMMAND_MAGNITUDE: f64 = 1.0e12;

/// `value`, the command's `field`, if it is a number within `max`.
fn bounded(field: &'static str, value: f64, max: f64) -> Result<(), CommandError> {
    if value.is_finite() && value.abs() <= max {
        Ok(())
    } else {
        Err(CommandError::OutOfRange { field, value, max })
    }
}

/// The three parts of `v`, the command's `x`, `y` and `z` fields.
fn bounded_vec(fields: [&'static str; 3], v: Vec3, max: f64) -> Result<(), CommandError> {
    bounded(fields[0], v.x, max)?;
    bounded(fields[1], v.y, max)?;
    bounded(fields[2], v.z, max)
}

/// Checks a pose the world is asked to put something at (a moved entity, a spawned model):
/// every number finite, the position within [`MAX_COMMAND_POSITION`] of the origin on each
/// axis, the rotation's parts within [`MAX_COMMAND_MAGNITUDE`] and not all zero. The error
/// names the first field that is not.
pub fn check_pose(pose: Pose) -> Result<(), CommandError> {
    bounded_vec(
        ["position.x", "position.y", "position.z"],
        pose.position,
        MAX_COMMAND_POSITION,
    )?;
    let q = pose.orientation;
    for (field, v) in [
        ("orientation.x", q.x),
        ("orientation.y", q.y),
        ("orientation.z", q.z),
        ("orientation.w", q.w),
    ] {
        bounded(field, v, MAX_COMMAND_MAGNITUDE)?;
    }
    if (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt() < 1e-9 {
        return Err(CommandError::ZeroRotation);
    }
    Ok(())
}

impl PhysicsCommand {
    /// Checks every number of the command: finite, a position within
    /// [`MAX_COMMAND_POSITION`], anything else within [`MAX_COMMAND_MAGNITUDE`], a rotation
    /// that is not zero. The error names the first field that is not.
    pub fn check(&self) -> Result<(), CommandError> {
        match *self {
            PhysicsCommand::SetPose(_, pose) => check_pose(pose),
            PhysicsCommand::SetVelocity(_, lin, ang) => {
                bounded_vec(
                    ["linear.x", "linear.y", "linear.z"],
                    lin,
                    MAX_COMMAND_MAGNITUDE,
                )?;
                bounded_vec(
                    ["angular.x", "angular.y", "angular.z"],
                    ang,
                    MAX_COMMAND_MAGNITUDE,
                )
            }
            PhysicsCommand::ApplyWrench(_, force, torque) => {
                bounded_vec(
                    ["force.x", "force.y", "force.z"],
                    force,
                    MAX_COMMAND_MAGNITUDE,
                )?;
                bounded_vec(
                    ["torque.x", "torque.y", "torque.z"],
                    torque,
                    MAX_COMMAND_MAGNITUDE,
                )
            }
            PhysicsCommand::AttachFixed { .. } | PhysicsCommand::Detach(_) => Ok(()),
        }
    }
}

/// Checks every number of a joint command within [`MAX_COMMAND_MAGNITUDE`] (`max_force`
/// may also be infinite or not positive: no limit but the joint's own).
pub fn check_joint_command(cmd: &sim_plugin_api::JointCommand) -> Result<(), CommandError> {
    bounded("target", cmd.target, MAX_COMMAND_MAGNITUDE)?;
    bounded("stiffness", cmd.stiffness, MAX_COMMAND_MAGNITUDE)?;
    bounded("damping", cmd.damping, MAX_COMMAND_MAGNITUDE)?;
    if cmd.max_force.is_nan() {
        return Err(CommandError::OutOfRange {
            field: "max_force",
            value: cmd.max_force,
            max: MAX_COMMAND_MAGNITUDE,
        });
    }
    Ok(())
}

/// The entries a world keeps (see [`Physics::retained`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retained {
    /// Entities in the id table (a removed entity leaves nothing there).
    pub entities: usize,
    /// Names that lead to entities (scoped names and the aliases of joints' ends).
    pub names: usize,
    /// Link motion records (taken again by new links when links are removed).
    pub link_slots: usize,
    /// Joint-axis angle records (taken again likewise).
    pub joint_slots: usize,
    /// Links' initial poses.
    pub initial_poses: usize,
    /// Rapier bodies.
    pub bodies: usize,
    /// Rapier colliders.
    pub colliders: usize,
    /// Rapier joints.
    pub joints: usize,
    /// Rapier multibody joints (the joints of trees in reduced coordinates).
    pub multibody_joints: usize,
}

/// A command for the physics world, queued by plugins and applied before a step.
#[derive(Clone, Debug, PartialEq)]
pub enum PhysicsCommand {
    /// Teleport a model or link.
    SetPose(EntityId, Pose),
    /// Set the velocity of a model or link (of its origin, world frame).
    SetVelocity(EntityId, Vec3, Vec3),
    /// Apply a force at the link origin and a torque for the next step.
    ApplyWrench(EntityId, Vec3, Vec3),
    /// Hold `child` to `parent` (links) by a fixed joint in their present relative pose,
    /// known by `id` (the runtime joints extension).
    AttachFixed {
        /// The joint's id.
        id: u64,
        /// The parent link.
        parent: EntityId,
        /// The child link.
        child: EntityId,
    },
    /// Remove the run-time joint with this id.
    Detach(u64),
}

impl Physics {
    /// Builds `model` apart, as [`Physics::spawn_model`] would add it to this world (built
    /// from `world`), without changing this world: the verdict on a creation request comes
    /// from a real build, meshes and height maps read, so that a model accepted is one that
    /// builds. The shapes it builds are kept in this world's cache for the build that follows.
    pub fn check_model(&self, model: &Model, world: &World) -> Result<(), BuildError> {
        let empty = World {
            name: world.name.clone(),
            sdf_version: world.sdf_version.clone(),
            physics: world.physics.clone(),
            gravity: world.gravity,
            magnetic_field: world.magnetic_field,
            atmosphere_temperature: world.atmosphere_temperature,
            spherical_coordinates: world.spherical_coordinates.clone(),
            scene: world.scene.clone(),
            lights: Vec::new(),
            actors: Vec::new(),
            models: Vec::new(),
            frames: Vec::new(),
            joints: Vec::new(),
            plugins: Vec::new(),
            span: world.span.clone(),
            limits: world.limits.clone(),
            resources: world.resources.clone(),
        };
        let mut apart = Physics::build(&empty)?;
        apart.shapes = self.shapes.clone();
        apart.spawn_model(model).map(|_| ())
    }

    /// Adds a top-level model at run time (its pose is in the world frame). Rays see it at
    /// once; it moves from the next step.
    pub fn spawn_model(&mut self, model: &Model) -> Result<EntityId, BuildError> {
        self.links.fresh = false;
        self.planes.placed = true;
        self.revision += 1;
        self.joints.reduced = super::joints::reducible(model);
        let added = self
            .add_model(model, EntityId::WORLD, "", Pose::IDENTITY, None)
            .and_then(|id| {
                // The model's colliders, with the world's, are within the bound on pairs.
                let limits = self.shapes.limits.clone();
                self.check_overlapping_pairs(&limits, &model.span, "the world with this model")?;
                Ok(id)
            });
        self.joints.reduced = false;
        match added {
            Ok(id) => {
                let bodies: Vec<RigidBodyHandle> = self
                    .rigid_targets(id)
                    .map(|t| t.iter().map(|(_, h)| *h).collect())
                    .unwrap_or_default();
                self.sync_for_queries(&bodies);
                Ok(id)
            }
            Err(e) => {
                // Take back what was built before the error.
                if let Some(id) = self.entity_id(&model.name) {
                    let _ = self.remove_model(id);
                }
                Err(e)
            }
        }
    }

    /// What the world keeps, entry by entry: creating and removing a model leaves these as
    /// they were (entity ids are never given twice, but a removed entity leaves no place in
    /// the id table).
    pub fn retained(&self) -> Retained {
        Retained {
            entities: self.entities.len(),
            names: self.entities.names(),
            link_slots: self.links.records.len(),
            joint_slots: self.joints.turns.len(),
            initial_poses: self.links.initial.len(),
            bodies: self.pw.bodies.len(),
            colliders: self.pw.colliders.len(),
            joints: self.pw.impulse_joints.len(),
            multibody_joints: self.pw.multibody_joints.iter().count(),
        }
    }

    /// Removes a model with everything in it (links, collisions, visuals, sensors and nested
    /// models). Returns the removed entities; their ids are never reused.
    pub fn remove_model(&mut self, id: EntityId) -> Result<Vec<EntityId>, CommandError> {
        self.links.fresh = false;
        self.revision += 1;
        self.rays.invalidate();
        self.scans.world_changed();
        let e = self.entities.get(id).ok_or_else(|| unknown(id))?;
        if e.kind != EntityKind::MODEL {
            return Err(CommandError::NotRemovable {
                name: e.scoped_name.clone(),
                kind: e.kind.name(),
            });
        }
        let doomed: Vec<EntityId> = self
            .entities
            .iter()
            .filter(|(eid, e)| {
                let owner = if e.kind == EntityKind::MODEL {
                    *eid
                } else {
                    e.model
                };
                self.entities.is_within(owner, id)
            })
            .map(|(eid, _)| eid)
            .collect();
        for d in &doomed {
            let body = match self.entities.get(*d).map(|e| &e.data) {
                Some(EntityData::Link { body, .. }) => *body,
                // The fixed root of a reduced-coordinate joint to the world.
                Some(EntityData::Joint {
                    anchor: Some(a), ..
                }) => *a,
                _ => continue,
            };
            self.pw.remove_body(body);
        }
        self.joints.couplings.retain(|c| !doomed.contains(&c.joint));
        self.joints.two_axes.retain(|t| !doomed.contains(&t.joint));
        self.joints.drive_targets.retain(|t| !doomed.contains(&t.0));
        // The slots of the removed links and joints are taken again by the next ones added,
        // so that creating and removing models does not grow the world.
        for d in &doomed {
            match self.entities.get(*d).map(|e| &e.data) {
                Some(EntityData::Link { slot, .. }) => {
                    self.links.remove(*slot);
                }
                Some(EntityData::Joint { slot, .. }) => {
                    let slot = *slot;
                    let run = self.joints.turns[slot..]
                        .iter()
                        .take_while(|t| t.0 == *d)
                        .count();
                    for t in &mut self.joints.turns[slot..slot + run] {
                        t.0 = EntityId::NONE;
                    }
                    if run > 0 {
                        self.joints.free_turns.push((slot, run));
                    }
                }
                _ => {}
            }
            self.links.initial.remove(d);
            self.model_plugins.remove(*d);
        }
        self.entities.remove_all(&doomed);
        // Queries skip colliders that are no longer in the collider set, so rays cast before
        // the next step already miss the removed bodies.
        Ok(doomed)
    }

    /// Applies a queued command. Returns a message for the user when it cannot be applied;
    /// a command with a number out of range ([`PhysicsCommand::check`]) changes nothing.
    pub fn apply(&mut self, command: &PhysicsCommand) -> Result<(), CommandError> {
        command.check()?;
        self.links.fresh = false;
        match *command {
            PhysicsCommand::SetPose(id, pose) => {
                self.planes.placed = true;
                let targets = self.rigid_targets(id)?;
                let current = self.pose_of(id).ok_or_else(|| unknown(id))?;
                let delta = pose.compose(current.inverse());
                let handles: Vec<RigidBodyHandle> = targets.iter().map(|(_, h)| *h).collect();
                for (_, h) in targets {
                    if let Some(b) = self.pw.bodies.get_mut(h) {
                        let p = delta.compose(pose_from_rapier(b.position()));
                        b.set_position(pose_to_rapier(p), true);
                        if b.is_kinematic() {
                            b.set_next_kinematic_position(pose_to_rapier(p));
                        }
                    }
                }
                // Queries in this tick must see the teleported bodies.
                self.sync_for_queries(&handles);
                Ok(())
            }
            PhysicsCommand::SetVelocity(id, lin, ang) => {
                let origin = self.pose_of(id).ok_or_else(|| unknown(id))?.position;
                let targets = self.rigid_targets(id)?;
                for &(_, h) in &targets {
                    if let Some(b) = self.pw.bodies.get_mut(h) {
                        let com = vec_from_rapier(b.center_of_mass());
                        let v = lin + ang.cross(com - origin);
                        b.set_linvel(vec_to_rapier(v), true);
                        b.set_angvel(vec_to_rapier(ang), true);
                    }
                }
                let handles: Vec<RigidBodyHandle> = targets.iter().map(|(_, h)| *h).collect();
                self.set_tree_velocities(&handles);
                Ok(())
            }
            PhysicsCommand::ApplyWrench(id, force, torque) => {
                let entity = self.entities.get(id).ok_or_else(|| unknown(id))?;
                let EntityData::Link { body, .. } = entity.data else {
                    return Err(CommandError::NotALink {
                        name: entity.scoped_name.clone(),
                        kind: entity.kind.name(),
                    });
                };
                if let Some(b) = self.pw.bodies.get_mut(body) {
                    let origin = b.translation();
                    b.add_force_at_point(vec_to_rapier(force), origin, true);
                    b.add_torque(vec_to_rapier(torque), true);
                    self.wrenched.push(body);
                }
                Ok(())
            }
            PhysicsCommand::AttachFixed { id, parent, child } => {
                self.attach_fixed(id, parent, child)
            }
            PhysicsCommand::Detach(id) => {
                self.detach(id);
                Ok(())
            }
        }
    }

    /// Makes the multibodies (trees in reduced coordinates) whose root is among `moved` move
    /// as their root body now does, rigidly: a multibody link's velocity is its tree's, so the
    /// velocities just given to its bodies would be overwritten by the next step.
    fn set_tree_velocities(&mut self, moved: &[RigidBodyHandle]) {
        for &h in moved {
            let Some(link) = self.pw.multibody_joints.rigid_body_link(h).copied() else {
                continue;
            };
            let Some(b) = self.pw.bodies.get(h).filter(|b| b.is_dynamic()) else {
                continue;
            };
            if link.id != 0 {
                continue;
            }
            let (v, w) = (b.linvel(), b.angvel());
            let Some(mb) = self.pw.multibody_joints.get_multibody_mut(link.multibody) else {
                continue;
            };
            let mut gv = mb.generalized_velocity_mut();
            gv.fill(0.0);
            // A dynamic root's free joint: its centre of mass's velocity, then its spin.
            if gv.len() >= 6 {
                for k in 0..3 {
                    gv[k] = v[k];
                    gv[3 + k] = w[k];
                }
            }
        }
    }

    /// Bodies that move with an entity: a link's body, or every body of a model and the
    /// models nested in it.
    fn rigid_targets(
        &self,
        id: EntityId,
    ) -> Result<Vec<(EntityId, RigidBodyHandle)>, CommandError> {
        let e = self.entities.get(id).ok_or_else(|| unknown(id))?;
        match &e.data {
            EntityData::Link { body, .. } => Ok(vec![(id, *body)]),
            EntityData::Model { .. } => Ok(self
                .entities
                .iter()
                .filter_map(|(lid, l)| match l.data {
                    EntityData::Link { body, .. } if self.entities.is_within(l.model, id) => {
                        Some((lid, body))
                    }
                    _ => None,
                })
                .collect()),
            _ => Err(CommandError::NotMovable {
                name: e.scoped_name.clone(),
                kind: e.kind.name(),
            }),
        }
    }
}

pub(super) fn unknown(id: EntityId) -> CommandError {
    CommandError::Unknown(id)
}

/// Why a run-time command was not applied (each message is for the user).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CommandError {
    /// No entity has this id (never had, or it was removed).
    #[error("no entity with id {}", .0.0)]
    Unknown(EntityId),
    /// Only models can be removed.
    #[error("`{name}` is a {kind}; only models can be removed")]
    NotRemovable {
        /// The entity's scoped name.
        name: String,
        /// What it is.
        kind: &'static str,
    },
    /// Only models and links can be moved.
    #[error("`{name}` is a {kind}; only models and links can be moved")]
    NotMovable {
        /// The entity's scoped name.
        name: String,
        /// What it is.
        kind: &'static str,
    },
    /// A run-time joint needs two links.
    #[error("a run-time joint holds two links; `{name}` is a {kind}")]
    NotJoinable {
        /// The entity's scoped name.
        name: String,
        /// What it is.
        kind: &'static str,
    },
    /// A wrench needs a link.
    #[error("a wrench can only be applied to a link; `{name}` is a {kind}")]
    NotALink {
        /// The entity's scoped name.
        name: String,
        /// What it is.
        kind: &'static str,
    },
    /// A joint command named something else.
    #[error("`{name}` is a {kind}, not a joint")]
    NotAJoint {
        /// The entity's scoped name.
        name: String,
        /// What it is.
        kind: &'static str,
    },
    /// The joint has no such axis.
    #[error("joint `{joint}` ({kind}) has no axis {axis}")]
    NoAxis {
        /// The joint's scoped name.
        joint: String,
        /// Its type.
        kind: &'static str,
        /// The axis asked for.
        axis: u32,
    },
    /// The joint only couples other joints (a gearbox).
    #[error("joint `{joint}` ({kind}) only couples its gears; drive the joints the gears turn on")]
    CouplingOnly {
        /// The joint's scoped name.
        joint: String,
        /// Its type.
        kind: &'static str,
    },
    /// A joint command mode this engine does not know.
    #[error("unknown joint command mode {0}")]
    UnknownMode(u32),
    /// A number of the command is not finite or out of range: nothing was applied.
    #[error(
        "the command's `{field}` is {value:e}; it must be a finite number of magnitude at most {max:e}"
    )]
    OutOfRange {
        /// The field, e.g. `linear.x` or `position.z`.
        field: &'static str,
        /// Its value.
        value: f64,
        /// The largest magnitude allowed.
        max: f64,
    },
    /// The command's rotation quaternion is zero: it turns to no orientation.
    #[error("the command's `orientation` is a zero quaternion; it must have a length")]
    ZeroRotation,
    /// The rapier joint behind the axis is gone.
    #[error("joint gone")]
    JointGone,
}
