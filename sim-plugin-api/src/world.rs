//! What the engine hands to plugins: the read-only [`WorldView`] and the [`Commands`] queue.
//!
//! Both traits are **frozen** for the 1.x ABI: abi_stable refuses a plugin whose copy of a
//! trait the engine hands out has fewer methods than the engine's. New engine capabilities
//! therefore arrive as separate, versioned extension traits reached through
//! [`WorldView::extension`] / [`Commands::extension`] (see [`crate::Extension`]).

use crate::{
    Aabb, EntityFactory, EntityId, EntityKind, Extension, LogLevel, Message, Pose, SimTime, Vec3,
};
use abi_stable::{
    RMut, RRef, StableAbi, sabi_trait,
    std_types::{ROption, RSlice, RSliceMut, RStr, RVec},
};

/// The world's geodetic reference (SDF `<spherical_coordinates>`).
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct SphericalCoordinates {
    /// Latitude of the world origin, degrees.
    pub latitude_deg: f64,
    /// Longitude of the world origin, degrees.
    pub longitude_deg: f64,
    /// Elevation of the world origin above the ellipsoid, m.
    pub elevation: f64,
    /// Heading offset of the world frame, degrees (see `gazebo-semantics` §1.3).
    pub heading_deg: f64,
    /// Equatorial axis of the surface, m (WGS84: 6378137).
    pub equatorial_axis: f64,
    /// Polar axis of the surface, m (WGS84: 6356752.314245).
    pub polar_axis: f64,
}

/// Motion of an entity's frame, all in world coordinates.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct KinematicState {
    /// Pose of the frame in the world.
    pub pose: Pose,
    /// Velocity of the frame's origin, m/s.
    pub linear_velocity: Vec3,
    /// Angular velocity, rad/s.
    pub angular_velocity: Vec3,
    /// Acceleration of the frame's origin over the last step (finite difference), m/s^2.
    pub linear_acceleration: Vec3,
    /// Angular acceleration over the last step (finite difference), rad/s^2.
    pub angular_acceleration: Vec3,
}

impl KinematicState {
    /// The motion of a frame fixed at `offset` in this (rigid) frame: pose `self ∘ offset`,
    /// velocity `v + ω × r`, acceleration `a + α × r + ω × (ω × r)` with the lever arm
    /// `r = R · offset.position`; angular velocity and acceleration are this frame's.
    pub fn at_offset(&self, offset: Pose) -> KinematicState {
        let r = self.pose.orientation.rotate(offset.position);
        let w = self.angular_velocity;
        let alpha = self.angular_acceleration;
        KinematicState {
            pose: self.pose.compose(offset),
            linear_velocity: self.linear_velocity + w.cross(r),
            angular_velocity: w,
            linear_acceleration: self.linear_acceleration + alpha.cross(r) + w.cross(w.cross(r)),
            angular_acceleration: alpha,
        }
    }
}

/// Name and place in the tree of one entity. Borrowed from the engine for one call.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug)]
pub struct EntityInfo<'a> {
    /// Its id.
    pub id: EntityId,
    /// What it is.
    pub kind: EntityKind,
    /// The entity it belongs to (a link's model, a model's parent model or the world).
    pub parent: EntityId,
    /// Its own name.
    pub name: RStr<'a>,
    /// Its scoped name, `model::nested::link::sensor` (the world's is its name).
    pub scoped_name: RStr<'a>,
}

/// One model in the list returned by [`WorldView::models`].
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct ModelInfo {
    /// The model.
    pub id: EntityId,
    /// Its parent model, or [`EntityId::WORLD`].
    pub parent: EntityId,
    /// Whether the model is static.
    pub is_static: bool,
    /// Whether the model's own links have collision geometry (not counting nested models).
    pub has_collision: bool,
    /// World AABB of the collision geometry of the model's own links (not nested models);
    /// meaningful only when `has_collision`. Infinite planes give an infinite box.
    pub aabb: Aabb,
}

/// State of a joint (up to two degrees of freedom).
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct JointState {
    /// Number of axes: 1 for revolute, continuous, prismatic and screw joints (a screw reports
    /// its rotation), 2 for universal, revolute2 and gearbox joints, 0 for fixed, ball and
    /// unknown joints.
    pub dof: u32,
    /// Position per axis (rad or m).
    pub position: [f64; 2],
    /// Velocity per axis.
    pub velocity: [f64; 2],
    /// Force or torque applied by the joint's motor per axis over the last step.
    pub effort: [f64; 2],
}

/// Surface properties of a collision or visual, for ray-based sensors.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct SurfaceInfo {
    /// Diffuse colour RGBA in [0, 1] (`<material><diffuse>`).
    pub diffuse: [f32; 4],
    /// Laser retro-reflectivity (`<laser_retro>`).
    pub laser_retro: f64,
}

/// A force and a torque, world frame.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct Wrench {
    /// Force, N.
    pub force: Vec3,
    /// Torque, N m.
    pub torque: Vec3,
}

/// One contact point between two collisions, from the last step.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct ContactPoint {
    /// The collision the contact was asked for.
    pub collision1: EntityId,
    /// The collision it touches.
    pub collision2: EntityId,
    /// Contact point, world frame.
    pub position: Vec3,
    /// Unit normal pointing from `collision1` towards `collision2`, world frame.
    pub normal: Vec3,
    /// Penetration depth, m (0 when only touching).
    pub depth: f64,
    /// Force `collision2` applied on `collision1` over the last step, world frame, N.
    pub force: Vec3,
}

/// A ray: origin and unit direction in world coordinates.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct Ray {
    /// Start point.
    pub origin: Vec3,
    /// Unit direction.
    pub direction: Vec3,
}

/// Which geometry a ray cast sees. A newtype so that later versions can add targets.
#[repr(transparent)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq, Eq)]
pub struct RayTarget(pub u32);

impl RayTarget {
    /// Collision geometry (what a physics ray sees).
    pub const COLLISION: RayTarget = RayTarget(1);
    /// Visual geometry (what a camera sees).
    pub const VISUAL: RayTarget = RayTarget(2);
    /// Flag bit: the hits need not carry their surface normal. Set it through
    /// [`RayCastOptions::without_normals_in`], which checks that the engine honours it.
    pub const NO_NORMALS: u32 = 1 << 31;

    /// This target with [`RayTarget::NO_NORMALS`] set.
    pub const fn without_normals(self) -> RayTarget {
        RayTarget(self.0 | Self::NO_NORMALS)
    }

    /// The geometry this target sees, its flag bits cleared.
    pub const fn geometry(self) -> RayTarget {
        RayTarget(self.0 & !Self::NO_NORMALS)
    }

    /// Whether hits must carry their surface normal.
    pub const fn wants_normals(self) -> bool {
        self.0 & Self::NO_NORMALS == 0
    }
}

/// Options of one batched ray cast.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq)]
pub struct RayCastOptions {
    /// Rays are cast up to this distance, m.
    pub max_distance: f64,
    /// Which geometry to hit.
    pub target: RayTarget,
    /// Geometry of this model and of the models nested in it is ignored
    /// ([`EntityId::NONE`]: ignore nothing).
    pub exclude_model: EntityId,
}

/// The engine extension (a `u32` of the [`RayTarget`] flag bits it honours) that says which
/// flags a plugin may set: an engine without it reads every target value as a kind of
/// geometry, so a flag must be set only where it is served (see
/// [`RayCastOptions::without_normals_in`]).
pub const RAY_FLAGS_EXTENSION: &str = "simcore.ray_flags.v1";

impl RayCastOptions {
    /// These options with hits that need not carry their surface normal (it is zero; a cast
    /// is cheaper without), where `world`'s engine honours [`RayTarget::NO_NORMALS`]; else
    /// unchanged. Since 1.2; the layout of the options is that of 1.0.
    pub fn without_normals_in(mut self, world: &WorldRef<'_>) -> RayCastOptions {
        let honoured = world
            .extension(RStr::from_str(RAY_FLAGS_EXTENSION))
            .into_option()
            .and_then(|e| e.get::<u32>())
            .is_some_and(|flags| flags & RayTarget::NO_NORMALS != 0);
        if honoured {
            self.target = self.target.without_normals();
        }
        self
    }
}

/// Result of one ray. A miss has `distance = +inf` and `entity = NONE`.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct RayHit {
    /// Distance along the ray, m (`f64::INFINITY` for a miss).
    pub distance: f64,
    /// Surface normal at the hit, world frame.
    pub normal: Vec3,
    /// The collision or visual hit.
    pub entity: EntityId,
    /// The model that entity belongs to.
    pub model: EntityId,
}

impl RayHit {
    /// A miss.
    pub const MISS: RayHit = RayHit {
        distance: f64::INFINITY,
        normal: Vec3::ZERO,
        entity: EntityId::NONE,
        model: EntityId::NONE,
    };
}

/// The read-only view of the world a plugin sees during one call.
///
/// Implemented by the engine. It is `Send + Sync`: the engine updates sensors in parallel
/// against the same view of the post-step state. Plugins must not keep anything borrowed
/// from it beyond the call. Batched calls fill a caller-owned output slice and return how
/// many entries are valid.
#[sabi_trait]
pub trait WorldView: Send + Sync {
    /// Current simulation time.
    fn sim_time(&self) -> SimTime;
    /// The fixed physics step.
    fn step_size(&self) -> SimTime;
    /// Name of the world.
    fn world_name(&self) -> RStr<'_>;
    /// Gravity, m/s^2, world frame.
    fn gravity(&self) -> Vec3;
    /// Magnetic field, tesla, world frame.
    fn magnetic_field(&self) -> Vec3;
    /// The world's spherical coordinates, if it declares them.
    fn spherical_coordinates(&self) -> ROption<SphericalCoordinates>;
    /// Looks an entity up by scoped name (`model::link`, `model::link::sensor`, ...);
    /// [`EntityId::NONE`] if there is none.
    fn entity_by_name(&self, scoped_name: RStr<'_>) -> EntityId;
    /// Name, kind and parent of an entity.
    fn entity_info(&self, id: EntityId) -> ROption<EntityInfo<'_>>;
    /// Replaces the contents of `out` with every model in the world (nested ones included),
    /// in a stable order.
    fn models(&self, out: &mut RVec<ModelInfo>);
    /// Replaces the contents of `out` with the models whose collision AABB (as in
    /// [`WorldView::models`]) intersects `aabb`, found through the broad phase rather than by
    /// scanning every model; in a stable order.
    fn models_in_aabb(&self, aabb: Aabb, out: &mut RVec<ModelInfo>);
    /// Motion of each entity in `ids` (links, models, sensors, collisions, visuals). Unknown
    /// ids get a default state. Returns how many ids were known.
    fn kinematics(&self, ids: RSlice<'_, EntityId>, out: RSliceMut<'_, KinematicState>) -> u32;
    /// State of each joint in `ids`. Returns how many ids were known joints.
    fn joint_states(&self, ids: RSlice<'_, EntityId>, out: RSliceMut<'_, JointState>) -> u32;
    /// The constraint wrench each joint in `ids` applied on its child link over the last step
    /// (reaction, limit and motor forces), at the joint origin, world frame. Returns how many
    /// ids were known joints.
    fn joint_wrenches(&self, ids: RSlice<'_, EntityId>, out: RSliceMut<'_, Wrench>) -> u32;
    /// Replaces the contents of `out` with the contact points of the last step that involve
    /// any of the collisions in `collisions` (each reported with that collision as
    /// `collision1`).
    fn contacts(&self, collisions: RSlice<'_, EntityId>, out: &mut RVec<ContactPoint>);
    /// Surface properties of each collision or visual in `ids`. Returns how many were known.
    fn surfaces(&self, ids: RSlice<'_, EntityId>, out: RSliceMut<'_, SurfaceInfo>) -> u32;
    /// Casts every ray in `rays` against the post-step world and writes one hit per ray
    /// into `hits` (which must be at least as long). One call per scan: the engine
    /// parallelises the batch. Returns the number of rays that hit something.
    fn cast_rays(
        &self,
        rays: RSlice<'_, Ray>,
        options: &RayCastOptions,
        hits: RSliceMut<'_, RayHit>,
    ) -> u32;
    /// Writes a log record, attributed to the calling plugin.
    fn log(&self, level: LogLevel, message: RStr<'_>);
    /// Looks up an engine extension by name (see [`crate::Extension`]).
    #[sabi(last_prefix_field)]
    fn extension(&self, name: RStr<'_>) -> ROption<Extension<'_>>;
}

/// The world view as plugins receive it.
pub type WorldRef<'a> = WorldView_TO<'a, RRef<'a, ()>>;

/// How a [`JointCommand`] drives its axis. A newtype so that later versions can add modes.
#[repr(transparent)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq, Eq)]
pub struct JointCommandMode(pub u32);

impl JointCommandMode {
    /// Drive to `target` velocity (rad/s or m/s) with at most `max_force`.
    pub const VELOCITY: JointCommandMode = JointCommandMode(1);
    /// Drive to `target` position with `stiffness`, `damping` and at most `max_force`.
    pub const POSITION: JointCommandMode = JointCommandMode(2);
    /// Apply `target` as a force or torque for the next step.
    pub const FORCE: JointCommandMode = JointCommandMode(3);
}

/// A command for one joint axis.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq)]
pub struct JointCommand {
    /// The joint.
    pub joint: EntityId,
    /// Axis index (0 or 1).
    pub axis: u32,
    /// How to drive it.
    pub mode: JointCommandMode,
    /// Target velocity, position or force, by mode.
    pub target: f64,
    /// Largest force or torque the motor may apply.
    pub max_force: f64,
    /// Position gain (position mode).
    pub stiffness: f64,
    /// Velocity gain (position mode).
    pub damping: f64,
}

/// Changes a system plugin asks for. Implemented by the engine as a queue: commands are
/// applied in plugin order after all pre-step hooks and before the physics step.
#[sabi_trait]
pub trait Commands {
    /// Teleports a model or link to a world pose.
    fn set_pose(&mut self, entity: EntityId, pose: Pose);
    /// Sets the world-frame velocity of a model's canonical link or of a link.
    fn set_velocity(&mut self, entity: EntityId, linear: Vec3, angular: Vec3);
    /// Applies a world-frame force at the link origin and a torque, for the next step only.
    ///
    /// `entity` must be a link. A model (or any other entity that is not a link) is not
    /// pushed: the engine applies nothing and names the plugin and the entity in a warning
    /// (printed the first time, then at most once every 5 s); the plugin keeps running. To
    /// push a model, apply the wrench to its links: [`WorldRef::links_of`] gives their ids
    /// (the `simcore.model_links.v1` extension). A force or torque that is not finite, or
    /// beyond the engine's bound, is refused the same way.
    fn apply_wrench(&mut self, entity: EntityId, force: Vec3, torque: Vec3);
    /// Drives a joint axis.
    fn joint_command(&mut self, command: &JointCommand);
    /// Asks for a model to be created from SDF; returns a ticket for the request.
    fn spawn(&mut self, request: &EntityFactory) -> u64;
    /// Removes a model (with its sensors and plugins).
    fn remove(&mut self, entity: EntityId);
    /// Publishes a message (absolute topic, or relative to the plugin's namespace).
    fn publish(&mut self, message: Message);
    /// Pauses or resumes a sensor.
    fn set_sensor_active(&mut self, sensor: EntityId, active: bool);
    /// Passes a run-time parameter to a sensor plugin (e.g. `horizontal_fov`).
    fn set_sensor_parameter(&mut self, sensor: EntityId, key: RStr<'_>, value: RStr<'_>);
    /// Looks up an engine extension by name (see [`crate::Extension`]).
    #[sabi(last_prefix_field)]
    fn extension(&mut self, name: RStr<'_>) -> ROption<Extension<'_>>;
}

/// The command queue as plugins receive it.
pub type CommandsMut<'a> = Commands_TO<'a, RMut<'a, ()>>;

impl WorldRef<'_> {
    /// The motion of one entity (see [`WorldView::kinematics`]); `None` if the id is unknown.
    #[inline]
    pub fn kinematics_of(&self, id: EntityId) -> Option<KinematicState> {
        let mut out = [KinematicState::default()];
        let known = self.kinematics(
            RSlice::from_slice(&[id]),
            RSliceMut::from_mut_slice(&mut out),
        );
        (known == 1).then_some(out[0])
    }

    /// The scoped name of an entity, if it exists.
    pub fn scoped_name_of(&self, id: EntityId) -> Option<String> {
        self.entity_info(id)
            .into_option()
            .map(|i| i.scoped_name.to_string())
    }

    /// Casts a batch of rays into a caller-owned buffer (resized to fit): the convenient form
    /// of [`WorldView::cast_rays`].
    pub fn cast_ray_batch(
        &self,
        rays: &[Ray],
        options: &RayCastOptions,
        hits: &mut Vec<RayHit>,
    ) -> u32 {
        hits.resize(rays.len(), RayHit::MISS);
        self.cast_rays(
            RSlice::from_slice(rays),
            options,
            RSliceMut::from_mut_slice(hits),
        )
    }

    /// Logs a message at `level`.
    pub fn log_message(&self, level: LogLevel, message: &str) {
        self.log(level, RStr::from_str(message));
    }
}
