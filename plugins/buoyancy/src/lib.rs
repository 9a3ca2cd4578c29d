//! # simcore-plugin-buoyancy: gz-sim's Buoyancy
//!
//! A world system serving `gz::sim::systems::Buoyancy` (file name `gz-sim-buoyancy-system`):
//! before every step it applies to each link (or each link of the `<enable>`d models and
//! links) the buoyant force of the fluid its collisions displace: `−ρ V g` at the centre of
//! volume in a `<uniform_fluid_density>`, or, with `<graded_buoyancy>`, layer by layer of
//! the fluid's density by height for box and sphere collisions. See the README.
//!
//! The logic is plain Rust: [`Buoyancy`] (in [`system`]), configured by [`BuoyancyConfig`]
//! (in [`config`]), with the submerged volumes in [`volume`]. This file only exports it to
//! the engine.

pub mod config;
pub mod system;
pub mod volume;

pub use config::{BuoyancyConfig, Fluid};
pub use system::Buoyancy;
pub use volume::{Layers, Submersible, layered_forces};

sim_plugin_api::export_plugin! {
    system "buoyancy" {
        serves: ["gz::sim::systems::Buoyancy"],
        description: "Archimedes' force on every link from its collision volumes, in a uniform or graded fluid",
        create: simcore_plugin_common::gz::create::<Buoyancy>,
    }
}
