//! # simcore-plugin-thruster: gz-sim's Thruster
//!
//! A model system serving `gz::sim::systems::Thruster` (file name `gz-sim-thruster-system`):
//! a propeller on a joint of the model, commanded in thrust (`.../cmd_thrust`) or, with
//! `<use_angvel_cmd>`, in angular velocity (`.../cmd_vel`); thrust and spin are related by
//! `T = Ct ρ D⁴ ω |ω|` ([`propeller`]). Every step the thrust pushes the propeller's link
//! along the joint axis and the propeller is spun up (a PID torque, or a joint velocity
//! command with `<velocity_control>`). See the README.
//!
//! The logic is plain Rust: [`Thruster`] (in [`system`]), configured by [`ThrusterConfig`]
//! (in [`config`]), with the propeller law in [`propeller`]. This file only exports it to the
//! engine.

pub mod config;
pub mod propeller;
pub mod system;

pub use config::{Command, ThrusterConfig};
pub use propeller::Propeller;
pub use system::Thruster;

sim_plugin_api::export_plugin! {
    system "thruster" {
        serves: ["gz::sim::systems::Thruster"],
        description: "Propeller thrust along a joint axis from thrust or angular velocity commands",
        create: simcore_plugin_common::gz::create::<Thruster>,
    }
}
