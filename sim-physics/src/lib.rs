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
//! `shapes` (geometry to rapier shapes), `plane` (SDF planes, bounded for the broad phase), `environment` (what the world is in), `mechanics` (mass properties and
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
mod environment;
mod joints;
mod kept;
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
mod scan;
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
    check_joint_command, check_pose,
};
use entities::Entities;
pub use listing::{FrameEntry, VisualEntry};
pub use view::aabb_grow;
pub use view::{DEFAULT_DIFFUSE, PhysicsView};
pub use workers::Workers;

use environment::Environment;
use rapier3d::prelude::*;
use sim_plugin_api::ModelPlugins;
use state::{Clock, LinkRecords};

/// Collision colliders are members of this group (and collide with each other).
const GROUP_COLLISION: Group = Group::GROUP_1;
/// Visual colliders are members of this group (and collide with nothing).
const GROUP_VISUAL: Group = Group::GROUP_2;
/// A bit no collider is a member of: only queries carry it, so visuals can be found by
/// ray casts without ever forming contact pairs.
const GROUP_QUERY: Group = Group::GROUP_32;

/// The simulated world in rapier, with the entity table. Its parts, each in the module of
/// its concept: the rapier world, the entities, the links' motion records (`state`), the
/// clock (`state`), the world's environment (`environment`), the joints' bookkeeping
/// (`joints`), the colliders first in their pairs (`leading`), the contact hooks
/// (`contacts`), the shape cache (`shapes`), the model plugins, the ray trees (`ray_index`).
pub struct Physics {
    pw: PhysicsWorld,
    pub(crate) entities: Entities,
    /// The links' motion records and initial poses.
    links: LinkRecords,
    /// Time, step size and steps taken.
    clock: Clock,
    /// What the world is in: its name, fields, atmosphere, place on Earth, scene and lights.
    environment: Environment,
    /// The joints' bookkeeping beyond rapier's joint sets.
    joints: joints::JointState,
    /// The colliders first in each of their contact pairs: ordered planes and leading fixed
    /// shapes (see `leading`).
    leads: leading::Leads,
    /// The planes and how far their boxes reach (see `plane`).
    planes: plane::Planes,
    /// The contact hooks of the colliders whose surfaces need them (see `contacts`).
    hooks: contacts::ContactHooks,
    /// Mesh and height-map files read, and the shapes built from them.
    shapes: shapes::ShapeCache,
    /// The `<plugin>` elements of each model, for the model plugins extension.
    model_plugins: ModelPlugins,
    /// The trees ray packets are cast through (see `ray_index`).
    rays: ray_index::RayIndex,
    /// What the lidars' scans keep between bands and scans.
    scans: scan::ScanKept,
    /// The lengths of the rasterised cameras' rays, by image.
    lenses: raster::Lenses,
    /// The bodies given a wrench for the coming step (cleared after it).
    wrenched: Vec<RigidBodyHandle>,
    /// Counts the models added and removed at run time (see [`Physics::revision`]).
    revision: u64,
}

impl std::fmt::Debug for Physics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Physics")
            .field("world", &self.environment.name)
            .field("time", &self.clock.time)
            .field("bodies", &self.pw.bodies.len())
            .field("colliders", &self.pw.colliders.len())
            .finish()
    }
}
