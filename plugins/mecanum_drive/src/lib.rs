//! # simcore-plugin-mecanum-drive: gz-sim's mecanum drive
//!
//! A model system serving `gz::sim::systems::MecanumDrive` (file name
//! `gz-sim-mecanum-drive-system`). It turns `Twist` commands (forward x, sideways y, yaw z)
//! into velocity commands for the front-left, front-right, back-left and back-right wheel
//! joints, and publishes odometry integrated from the wheels' rotation. See the README.
//!
//! The logic is plain Rust: [`MecanumDrive`] (in [`drive`]), configured by [`MecanumConfig`]
//! (in [`config`]), with the arithmetic in [`kinematics`]. This file only exports it to the
//! engine.

pub mod config;
pub mod drive;
pub mod kinematics;

pub use config::MecanumConfig;
pub use drive::MecanumDrive;
pub use kinematics::{MecanumOdometry, wheel_speeds};

sim_plugin_api::export_plugin! {
    system "mecanum_drive" {
        serves: ["gz::sim::systems::MecanumDrive"],
        description: "Mecanum drive: four wheel velocity commands from Twist on /model/<m>/cmd_vel, wheel odometry on /model/<m>/odometry",
        create: simcore_plugin_common::gz::create::<MecanumDrive>,
    }
}
