//! # simcore-plugin-velocity-control: gz-sim's VelocityControl
//!
//! A model system serving `gz::sim::systems::VelocityControl` (file name
//! `gz-sim-velocity-control-system`): every step the model (and each `<link_name>` link) is
//! set to the linear and angular velocity, in its own frame, last received as a `Twist`. See
//! the README.
//!
//! The logic is plain Rust: [`VelocityControl`] (in [`control`]), configured by
//! [`VelocityControlConfig`] (in [`config`]). This file only exports it to the engine.

pub mod config;
pub mod control;

pub use config::VelocityControlConfig;
pub use control::{VelocityControl, world_twist};

sim_plugin_api::export_plugin! {
    system "velocity_control" {
        serves: ["gz::sim::systems::VelocityControl"],
        description: "Sets the model's (and links') body-frame velocity to the Twist on /model/<m>/cmd_vel (and /model/<m>/link/<l>/cmd_vel)",
        create: simcore_plugin_common::gz::create::<VelocityControl>,
    }
}
