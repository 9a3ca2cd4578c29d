//! # simcore-plugin-odometry-publisher: gz-sim's OdometryPublisher
//!
//! A model system serving `gz::sim::systems::OdometryPublisher` (file name
//! `gz-sim-odometry-publisher-system`): the model's pose (with an offset) as `Odometry`, in
//! 2-D or 3-D, its body-frame velocities the rolling mean of the last ten steps' finite
//! differences, with optional Gaussian noise, and the same pose as a transform. See the
//! README.
//!
//! The logic is plain Rust: [`OdometryPublisher`] (in [`publisher`]), configured by
//! [`OdometryConfig`] (in [`config`]), with the velocity estimate in [`estimate`]. This file
//! only exports it to the engine.

pub mod config;
pub mod estimate;
pub mod publisher;

pub use config::OdometryConfig;
pub use estimate::{angular_velocity, planar_velocity};
pub use publisher::OdometryPublisher;

sim_plugin_api::export_plugin! {
    system "odometry_publisher" {
        serves: ["gz::sim::systems::OdometryPublisher"],
        description: "Odometry of a model from its pose (2-D or 3-D) on /model/<m>/odometry, the transform on /model/<m>/pose",
        create: simcore_plugin_common::gz::create::<OdometryPublisher>,
    }
}
