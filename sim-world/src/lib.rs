//! # sim-world: the data model of a simulated world
//!
//! What a world is, independent of any physics engine or plugin: worlds, models, links,
//! collisions, visuals, sensors and plugins, with poses and the file, line and column each
//! was read from ([`World`] and the types it holds). Around the model, what reading one
//! needs below the SDF reader: the bounds on what one load may read ([`input`]), where the
//! files a world names are found (`model://` URIs, [`resources`]), the SDF versions there
//! are ([`version`]) and the mesh files read into triangles ([`mesh`]).
//!
//! The geometric types (`Vec3`, `Quat`, `Pose`) are the plain-data ones of
//! `sim-plugin-api`, shared so that poses cross into plugins without conversion. The SDF
//! reader (`sim-sdf`) produces this model; the physics adapter (`sim-physics`) and the
//! engine (`sim-core`) consume it.

pub mod input;
pub mod mesh;
mod model;
pub mod resources;
mod surface;
pub mod version;

pub use model::*;
pub use sim_plugin_api::{Pose, Quat, Vec3};
pub use surface::{Surface, VelocityDecay};
