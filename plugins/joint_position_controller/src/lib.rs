//! # simcore-plugin-joint-position-controller: gz-sim's joint position controller
//!
//! A model system serving `gz::sim::systems::JointPositionController` (file name
//! `gz-sim-joint-position-controller-system`). It drives one or more joints to the position
//! last received as a `Double` on its topic: by gz-math's PID on the joint force, or, with
//! `<use_velocity_commands>`, by the velocity that reaches it in one step (at most
//! `<cmd_max>`). See the README for the parameters and the differences from Gazebo.
//!
//! The logic is plain Rust: [`JointPositionController`] (in [`controller`]), configured by
//! [`PositionConfig`] (in [`config`]). This file only exports it to the engine.

pub mod config;
pub mod controller;

pub use config::PositionConfig;
pub use controller::JointPositionController;

sim_plugin_api::export_plugin! {
    system "joint_position_controller" {
        serves: ["gz::sim::systems::JointPositionController"],
        description: "Joint position controller: PID (or velocity) drive of joints to the Double on /model/<m>/joint/<j>/<i>/cmd_pos",
        create: simcore_plugin_common::gz::create::<JointPositionController>,
    }
}
