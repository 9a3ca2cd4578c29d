//! # sim-physics: the physics adapter, the only crate that names rapier types
//!
//! [`Physics::build`] turns a [`World`](sim_world::World) into a rapier [`PhysicsWorld`]:
//! one rigid body per link (fixed for static models but for the links their joints drive,
//! which move only through their joints; position-based kinematic for `<kinematic>` links),
//! one collider per `<collision>` (mass comes from `<inertial>`, not from collider density),
//! and one visual-only collider per `<visual>` in its own interaction group, so that visuals
//! never touch anything but can be ray cast. [`Physics::step`] advances one fixed step and
//! computes each link's acceleration by finite difference of the velocity of its origin
//! across the step. [`Physics::view`] gives the read-only
//! [`WorldView`](sim_plugin_api::WorldView) plugins see.
//!
//! One file per concept: `build` (the world in rapier), `contacts` (SDF surfaces in contacts),
//! `shapes` (geometry to rapier shapes), `plane` (SDF planes, bounded for the broad phase), `mechanics` (mass properties and
//! collision volumes for plugins), `joints`, `overlaps` (the bound on overlapping collider pairs), `state` (stepping and motion), `commands`
//! (run-time changes), `query` (ray casts), `ray_index` (the trees ray casts walk), `ray_packet` (rays cast
//! together), `ray_shape` (shapes prepared for a packet's rays), `runtime_joints` (fixed joints made and removed
//! while the world runs), `temperatures` (the Thermal temperatures of visuals), `view`
//! (what plugins see), `workers` (the sensor threads plugins share their work with) and `listing` (the models, links and visuals, for recorders).

mod build;
mod commands;
mod contacts;
mod convert;
mod dispatch;
mod entities;
mod joints;
mod leading;
mod listing;
mod mechanics;
mod overlaps;
mod plane;
mod query;
mod raster;
mod ray_index;
mod ray_packet;
mod ray_shape;
mod runtime_joints;
mod shapes;
mod state;
mod summary;
mod temperatures;
#[cfg(test)]
mod tests;
mod view;
mod workers;
mod wrapped;

pub use build::BuildError;
pub use commands::{
    CommandError, MAX_COMMAND_MAGNITUDE, MAX_COMMAND_POSITION, PhysicsCommand, Retained,
    check_joint_command,
};
use entities::Entities;
pub use listing::{FrameEntry, VisualEntry};
pub use view::aabb_grow;
pub use view::{DEFAULT_DIFFUSE, PhysicsView};
pub use workers::Workers;

use rapier3d::prelude::*;
use sim_plugin_api::{
    EntityId, ModelPlugins, Pose, SceneInfo, SimTime, SphericalCoordinates, Vec3,
};
use state::LinkMotion;

/// Collision colliders are members of this group (and collide with each other).
const GROUP_COLLISION: Group = Group::GROUP_1;
/// Visual colliders are members of this group (and collide with nothing).
const GROUP_VISUAL: Group = Group::GROUP_2;
/// A bit no collider is a member of: only queries carry it, so visuals can be found by
/// ray casts without ever forming contact pairs.
const GROUP_QUERY: Group = Group::GROUP_32;

/// The simulated world in rapier, with the entity table.
pub struct Physics {
    pw: PhysicsWorld,
    pub(crate) entities: Entities,
    motion: Vec<LinkMotion>,
    /// Slots of `motion` whose links were removed, for the next links added.
    free_motion: Vec<usize>,
    /// Runs (first slot, length) of `joint_turns` whose joints were removed, for the next
    /// joints added with as many axes.
    free_turns: Vec<(usize, usize)>,
    /// Whether each link's pose and velocities in `motion` are those of its body: true from
    /// the end of a step until anything moves, adds or removes a body. Sensors then read one
    /// compact record per link instead of the body's scattered fields.
    motion_fresh: bool,
    /// Counts the models added and removed at run time (see [`Physics::revision`]).
    revision: u64,
    time: SimTime,
    step: SimTime,
    iteration: u64,
    gravity: Vec3,
    magnetic_field: Vec3,
    /// `<atmosphere><temperature>`, K, for the visual temperatures extension.
    atmosphere_temperature: f64,
    spherical: Option<SphericalCoordinates>,
    world_name: String,
    /// The `<scene>`, for the scene extension.
    scene: SceneInfo,
    /// World-level lights, world frame, for the scene extension.
    lights: Vec<sim_plugin_api::Light>,
    wrenched: Vec<RigidBodyHandle>,
    /// A fixed body at the world origin, for joints whose parent is `world`.
    world_anchor: Option<RigidBodyHandle>,
    /// Per joint axis (joint, axis number): the last raw angle and the whole turns counted,
    /// so that rotations report an unwrapped position.
    joint_turns: Vec<(EntityId, usize, f64, f64)>,
    /// The screw and gearbox couplings, solved after each step.
    couplings: Vec<joints::Coupling>,
    /// The universal and revolute2 joints, whose frames follow their angles (see `joints`).
    two_axes: Vec<joints::TwoAxes>,
    /// Mesh and height-map files read, and the shapes built from them.
    shapes: shapes::ShapeCache,
    /// The initial world pose of each link (in f64, for building joints between links of
    /// different models).
    link_initial: std::collections::HashMap<EntityId, Pose>,
    /// The `<plugin>` elements of each model, for the model plugins extension.
    model_plugins: ModelPlugins,
    /// The contact hooks of the colliders whose surfaces need them (see `contacts`).
    hooks: contacts::ContactHooks,
    /// The trees ray packets are cast through (see `ray_index`).
    rays: ray_index::RayIndex,
    /// The colliders first in each of their contact pairs: ordered planes and leading fixed
    /// shapes (see `leading`; removed ones are dropped when the leads are next looked through).
    first_in_pairs: Vec<ColliderHandle>,
    /// The least places in the collider set of the colliders that can touch them.
    first_places: leading::FirstPlaces,
    /// The position commands on angular axes of reduced-coordinate joints: joint entity,
    /// drive joint and target, rad (see `joints::reduced`).
    drive_targets: Vec<(EntityId, ImpulseJointHandle, f64)>,
    /// Whether the joints being added may be built in reduced coordinates (see `joints`):
    /// while the world's models are built.
    reduced: bool,
    /// The fixed joints made at run time, by id (see `runtime_joints`).
    runtime_joints: std::collections::HashMap<u64, ImpulseJointHandle>,
}

impl std::fmt::Debug for Physics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Physics")
            .field("world", &self.world_name)
            .field("time", &self.time)
            .field("bodies", &self.pw.bodies.len())
            .field("colliders", &self.pw.colliders.len())
            .finish()
    }
}
