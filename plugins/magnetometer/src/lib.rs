//! # simcore-plugin-magnetometer: the magnetometer sensor of simcore
//!
//! Serves SDF `<sensor type="magnetometer">`. Every update publishes the world's magnetic
//! field (`<magnetic_field>`, tesla) expressed in the sensor frame, with per-axis noise
//! following the Gazebo noise model, as [`Payload::Magnetometer`](sim_plugin_api::Payload).
//!
//! The logic is plain Rust: [`MagnetometerSensor`] (in [`magnetometer`]), configured by
//! [`MagnetometerConfig`] (in [`config`]). This file only exports it to the engine.

pub mod config;
pub mod magnetometer;

#[cfg(test)]
mod tests;

pub use config::MagnetometerConfig;
pub use magnetometer::MagnetometerSensor;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "magnetometer" {
        serves: ["magnetometer" => "magnetometer"],
        enabled_by: ["gz::sim::systems::Magnetometer"],
        description: "Magnetometer: the world magnetic field in the sensor frame, tesla, with Gazebo-style noise",
        create: MagnetometerSensor::create,
    }
}
