//! Models by name, for callers outside the step loop (the Zenoh services, in-process
//! callers): those named or in a region, their ground truth, setting it through the truth
//! path, creating them from SDF (no factory plugin needed) and deleting them. Each check is
//! made here, once; the errors are typed so that a front end maps them to its own codes.

use super::Simulation;
use super::spawn::SpawnError;
use sim_physics::{CommandError, PhysicsCommand};
use sim_plugin_api::{EntityFactory, EntityId, EntityKind, Pose, SimTime, Vec3};

/// A model's ground truth in the world frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EntityState {
    /// The sim time it was read at.
    pub time: SimTime,
    /// Its pose.
    pub pose: Pose,
    /// Linear velocity of its origin (m/s).
    pub linear_velocity: Vec3,
    /// Angular velocity (rad/s).
    pub angular_velocity: Vec3,
    /// Linear acceleration (m/s², the finite difference over the last step).
    pub linear_acceleration: Vec3,
    /// Angular acceleration (rad/s², likewise).
    pub angular_acceleration: Vec3,
}

/// What [`Simulation::set_entity_state`] sets: each part given is checked and set, the
/// others stay as they are.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EntityUpdate {
    /// A pose in the world frame (the rotation need not be normalised).
    pub pose: Option<Pose>,
    /// Linear and angular velocity in the world frame.
    pub twist: Option<(Vec3, Vec3)>,
    /// Linear and angular acceleration: checked, then left to the forces (the engine's
    /// acceleration comes from them); a non-zero one is refused for a static model.
    pub acceleration: Option<(Vec3, Vec3)>,
}

/// The part of an [`EntityUpdate`] an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatePart {
    /// The pose.
    Pose,
    /// The velocities.
    Twist,
    /// The accelerations.
    Acceleration,
}

impl StatePart {
    /// Its name (`pose`, `twist`, `acceleration`).
    pub fn name(self) -> &'static str {
        match self {
            StatePart::Pose => "pose",
            StatePart::Twist => "twist",
            StatePart::Acceleration => "acceleration",
        }
    }
}

/// A region of the world that models are looked for in ([`Simulation::models_where`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Region {
    /// The ball of `radius` (m) around `centre`.
    Sphere {
        /// Its centre, world frame.
        centre: Vec3,
        /// Its radius.
        radius: f64,
    },
    /// The axis-aligned box between two corners, in either order.
    Box(Vec3, Vec3),
}

impl Region {
    /// Whether the axis-aligned box `lo..hi` (world frame) overlaps the region.
    pub fn overlaps(&self, lo: Vec3, hi: Vec3) -> bool {
        match *self {
            Region::Sphere { centre: c, radius } => {
                let d = |c: f64, lo: f64, hi: f64| c - c.clamp(lo, hi);
                let (x, y, z) = (d(c.x, lo.x, hi.x), d(c.y, lo.y, hi.y), d(c.z, lo.z, hi.z));
                x * x + y * y + z * z <= radius * radius
            }
            Region::Box(a, b) => {
                let within = |a: f64, b: f64, lo: f64, hi: f64| a.min(b) <= hi && lo <= a.max(b);
                within(a.x, b.x, lo.x, hi.x)
                    && within(a.y, b.y, lo.y, hi.y)
                    && within(a.z, b.z, lo.z, hi.z)
            }
        }
    }
}

/// Why an entity request was refused: nothing was changed.
#[derive(Debug, thiserror::Error)]
pub enum EntityError {
    /// No model has this scoped name.
    #[error("no model `{0}`")]
    NotFound(String),
    /// A number of the update is not finite or out of range, or its rotation is none.
    #[error("{}: {source}", part.name())]
    Invalid {
        /// The part it is in.
        part: StatePart,
        /// What is wrong.
        source: CommandError,
    },
    /// A static model takes a pose, not a motion.
    #[error("`{0}` is static: it takes a pose, not a velocity or an acceleration")]
    Static(String),
    /// The engine refused the change.
    #[error(transparent)]
    Command(#[from] CommandError),
}

impl Simulation {
    /// The id of the model `name` (a scoped name, `outer::inner` for a nested one).
    pub fn model_named(&self, name: &str) -> Option<EntityId> {
        self.physics
            .frames()
            .find(|f| f.kind == EntityKind::MODEL && f.scoped_name == name)
            .map(|f| f.id)
    }

    /// The scoped names of every model, nested ones included, in the engine's order.
    pub fn models(&self) -> Vec<String> {
        self.models_where(|_| true, None)
    }

    /// The scoped names of the models (nested ones included, in the engine's order) whose
    /// name `name` accepts and, with a `region`, whose collision box overlaps it (a model
    /// without collisions is its origin).
    pub fn models_where(
        &self,
        name: impl Fn(&str) -> bool,
        region: Option<&Region>,
    ) -> Vec<String> {
        let physics = &self.physics;
        let inside = |id, at: Vec3| {
            region.is_none_or(|region| {
                let (lo, hi) = physics.model_bounds(id).unwrap_or((at, at));
                region.overlaps(lo, hi)
            })
        };
        physics
            .frames()
            .filter(|f| f.kind == EntityKind::MODEL && name(f.scoped_name))
            .filter(|f| inside(f.id, f.pose.position))
            .map(|f| f.scoped_name.to_string())
            .collect()
    }

    /// The ground truth now of a model, or of a link by its scoped name (`robot::chassis`, a
    /// nested model's `outer::inner::wheel`): its frame's pose in the world, velocities and
    /// accelerations. A name that is both a model's and a link's is the model's.
    pub fn entity_state(&self, name: &str) -> Result<EntityState, EntityError> {
        let link = || {
            self.physics
                .frames()
                .find(|f| f.kind == EntityKind::LINK && f.scoped_name == name)
                .map(|f| f.id)
        };
        let k = self
            .model_named(name)
            .or_else(link)
            .and_then(|id| self.physics.kinematics_of(id))
            .ok_or_else(|| EntityError::NotFound(name.to_string()))?;
        Ok(EntityState {
            time: self.time(),
            pose: k.pose,
            linear_velocity: k.linear_velocity,
            angular_velocity: k.angular_velocity,
            linear_acceleration: k.linear_acceleration,
            angular_acceleration: k.angular_acceleration,
        })
    }

    /// Sets the parts of a model's state `update` gives, at once, through the truth path
    /// (rays see it at once): every part is checked before anything is set.
    pub fn set_entity_state(
        &mut self,
        name: &str,
        update: &EntityUpdate,
    ) -> Result<(), EntityError> {
        let id = self
            .model_named(name)
            .ok_or_else(|| EntityError::NotFound(name.to_string()))?;
        let invalid = |part| move |source| EntityError::Invalid { part, source };
        let pose = update.pose.map(|mut p| {
            let c = PhysicsCommand::SetPose(id, p);
            p.orientation = p.orientation.normalized();
            (c, p)
        });
        if let Some((c, _)) = &pose {
            c.check().map_err(invalid(StatePart::Pose))?;
        }
        let mut moving = false;
        for (part, v) in [
            (StatePart::Twist, update.twist),
            (StatePart::Acceleration, update.acceleration),
        ] {
            if let Some((lin, ang)) = v {
                PhysicsCommand::SetVelocity(id, lin, ang)
                    .check()
                    .map_err(invalid(part))?;
                moving |= [lin, ang]
                    .iter()
                    .any(|v| v.x != 0.0 || v.y != 0.0 || v.z != 0.0);
            }
        }
        let is_static = self.physics.is_static_model(id);
        if is_static && moving {
            return Err(EntityError::Static(name.to_string()));
        }
        if let Some((_, p)) = pose {
            self.physics.apply(&PhysicsCommand::SetPose(id, p))?;
        }
        if let (Some((lin, ang)), false) = (update.twist, is_static) {
            self.physics
                .apply(&PhysicsCommand::SetVelocity(id, lin, ang))?;
        }
        Ok(())
    }

    /// Creates a model from SDF text or a file, as [`Simulation::spawn`] does (no factory
    /// plugin needed); returns its scoped name.
    pub fn spawn_entity(&mut self, request: &EntityFactory) -> Result<String, SpawnError> {
        let id = self.spawn(request)?;
        Ok(self.physics.scoped_name(id).unwrap_or_default().to_string())
    }

    /// Deletes a model (its nested models, sensors and plugins with it).
    pub fn delete_entity(&mut self, name: &str) -> Result<(), EntityError> {
        let id = self
            .model_named(name)
            .ok_or_else(|| EntityError::NotFound(name.to_string()))?;
        Ok(self.remove_model(id)?)
    }
}
