//! # simcore-plugin-imu: the IMU sensor of simcore
//!
//! Serves SDF `<sensor type="imu">`. Every update publishes one [`Imu`](sim_plugin_api::Imu)
//! message on the sensor's topic: the orientation relative to a reference frame, the angular
//! velocity and the proper linear acceleration, all in the sensor frame, with per-axis noise
//! following the Gazebo noise model.
//!
//! The logic is plain Rust: [`ImuSensor`] (in [`imu`]), configured by [`ImuConfig`] (in
//! [`config`]), with the reference frame conventions in [`frames`]. This file only exports it
//! to the engine.

pub mod config;
pub mod frames;
pub mod imu;

#[cfg(test)]
mod tests;

pub use config::{ImuConfig, OrientationReference};
pub use frames::Localization;
pub use imu::ImuSensor;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "imu" {
        serves: ["imu" => "imu"],
        enabled_by: ["gz::sim::systems::Imu"],
        description: "Inertial measurement unit: orientation, angular velocity and proper linear acceleration, with Gazebo-style noise",
        create: ImuSensor::create,
    }
}
