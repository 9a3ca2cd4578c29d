//! # simcore-plugin-truth: ground-truth poses and teleports
//!
//! A system serving `<plugin name="simcore::TruthWidget">` and Gazebo's
//! `gz::sim::systems::PosePublisher`. On a world it publishes the true world poses of the
//! models (optionally of their links and nested models) as a pose list on
//! `/world/<w>/pose/info`, and answers `/world/<w>/set_pose`, which teleports a model. On a
//! model it publishes that model's pose (and optionally its links') on `/model/<m>/pose`. See
//! the README for the SDF parameters and the differences from Gazebo.
//!
//! The logic is plain Rust: [`TruthWidget`] (in [`truth`]), configured by [`TruthConfig`] (in
//! [`config`]). This file only exports it to the engine.

pub mod config;
pub mod truth;

pub use config::TruthConfig;
pub use truth::TruthWidget;

sim_plugin_api::export_plugin! {
    system "truth" {
        serves: ["simcore::TruthWidget", "gz::sim::systems::PosePublisher"],
        description: "Ground-truth poses of models (and links) as a pose list; set_pose service on the world",
        create: simcore_plugin_common::gz::create::<TruthWidget>,
    }
}
