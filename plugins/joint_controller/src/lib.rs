//! # simcore-plugin-joint-controller: gz-sim's joint velocity controller
//!
//! A model system serving `gz::sim::systems::JointController` (file name
//! `gz-sim-joint-controller-system`). It drives one or more joints at the velocity last
//! received as a `Double` on its topic: by a velocity command (default), or, with
//! `<use_force_commands>`, by gz-math's PID on the first joint's velocity error applied as a
//! force. See the README for the parameters and the differences from Gazebo.
//!
//! The logic is plain Rust: [`JointController`] (in [`controller`]), configured by
//! [`VelocityConfig`] (in [`config`]). This file only exports it to the engine.

pub mod config;
pub mod controller;

pub use config::VelocityConfig;
pub use controller::JointController;

sim_plugin_api::export_plugin! {
    system "joint_controller" {
        serves: ["gz::sim::systems::JointController"],
        description: "Joint velocity controller: joints driven at the Double on /model/<m>/joint/<j>/cmd_vel, by velocity or by a force PID",
        create: simcore_plugin_common::gz::create::<JointController>,
    }
}
