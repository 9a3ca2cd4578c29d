//! # simcore-plugin-diff-drive: the differential drive of simcore
//!
//! A model system serving `<plugin name="simcore::DiffDrive">` and Gazebo's
//! `gz::sim::systems::DiffDrive`. It turns `Twist` commands (linear x, angular z) into
//! velocity commands for the model's left and right wheel joints, within velocity,
//! acceleration and wheel torque limits, and publishes odometry integrated from the wheels'
//! rotation (not from the ground truth) and a stall flag. See the README for the SDF
//! parameters, topics and the differences from Gazebo.
//!
//! The logic is plain Rust: [`DiffDrive`] (in [`diff_drive`]), configured by
//! [`DiffDriveConfig`] (in [`config`]), with the arithmetic in [`kinematics`]. This file only
//! exports it to the engine.

pub mod config;
pub mod diff_drive;
pub mod kinematics;

pub use config::DiffDriveConfig;
pub use diff_drive::DiffDrive;
pub use kinematics::{SpeedLimiter, StallDetector, WheelOdometry, wheel_speeds};

sim_plugin_api::export_plugin! {
    system "diff_drive" {
        serves: ["simcore::DiffDrive", "gz::sim::systems::DiffDrive"],
        description: "Differential drive: wheel velocity commands from Twist on cmd_vel, wheel odometry on odometry, stall flag on stall",
        create: simcore_plugin_common::gz::create::<DiffDrive>,
    }
}
