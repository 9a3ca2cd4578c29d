//! # simcore-plugin-ackermann-steering: gz-sim's Ackermann steering
//!
//! A model system serving `gz::sim::systems::AckermannSteering` (file name
//! `gz-sim-ackermann-steering-system`). From a `Twist` (forward speed, yaw rate) it finds the
//! turning radius, steers the left and right steering joints to their Ackermann angles and
//! turns the wheels at the speeds of that circle, and publishes odometry from the wheels and the
//! steering angle; with `<steering_only>` it steers to the angle given as a `Double`. See the
//! README.
//!
//! The logic is plain Rust: [`AckermannSteering`] (in [`steering`]), configured by
//! [`AckermannConfig`] (in [`config`]), with the geometry in [`geometry`]. This file only
//! exports it to the engine.

pub mod config;
pub mod geometry;
pub mod steering;

pub use config::AckermannConfig;
pub use steering::AckermannSteering;

sim_plugin_api::export_plugin! {
    system "ackermann_steering" {
        serves: ["gz::sim::systems::AckermannSteering"],
        description: "Ackermann steering: steering and wheel joints from Twist on /model/<m>/cmd_vel (or a steering angle), odometry on /model/<m>/odometry",
        create: simcore_plugin_common::gz::create::<AckermannSteering>,
    }
}
