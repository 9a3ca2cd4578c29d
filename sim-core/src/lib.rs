//! # sim-core: the simcore engine
//!
//! Reads a world ([`sdf`] into the data model of [`world`], finding what it includes through
//! [`resources`]), builds it in rapier ([`physics`], with the mesh files read by [`mesh`]), loads the plugins it names ([`plugins`]), and runs it ([`runner`]): each
//! iteration updates the due sensors ([`sensors`]) in parallel against the read-only world,
//! publishes their outputs on the topic bus ([`transport`]) in a deterministic order, runs the
//! system plugins' hooks ([`systems`]) and steps the physics. A run can be recorded to MCAP
//! ([`record`], in the ROS 2 wire format of [`ros`]); [`render`] takes pictures of a world
//! with the camera plugin. Every file simcore writes is written through [`files`], which never
//! follows a symbolic link.
//!
//! The `simcore` binary is a thin command line over this library.

pub mod render;

pub use sim_batch as batch;
/// The ROS 2 wire format (the `sim-codec` crate).
pub use sim_codec as ros;
pub use sim_codec::json as echo;
pub use sim_engine::{guard, manifest, plugins, runner, sensors, systems};
/// How simcore writes files (the `sim-files` crate).
pub use sim_files as files;
/// The physics adapter (the `sim-physics` crate).
pub use sim_physics as physics;
pub use sim_record as record;
/// The SDF reader (the `sim-sdf` crate).
pub use sim_sdf as sdf;
pub use sim_sdf::inspect;
/// The in-process topic bus (the `sim-transport` crate).
pub use sim_transport as transport;
/// The data model of a world (the `sim-world` crate).
pub use sim_world as world;
pub use sim_world::{input, mesh, resources};
#[cfg(feature = "zenoh")]
pub use sim_zenoh as zenoh;
