//! # simcore-plugin-altimeter: the altimeter sensor of simcore
//!
//! Serves SDF `<sensor type="altimeter">`. Every update publishes one
//! [`Altimeter`](sim_plugin_api::Altimeter) message: the sensor's height above its initial
//! height, its vertical velocity, and that initial height, with the Gazebo noise model.
//!
//! The logic is plain Rust: [`AltimeterSensor`] (in [`altimeter`]), configured by
//! [`AltimeterConfig`] (in [`config`]). This file only exports it to the engine.

pub mod altimeter;
pub mod config;

#[cfg(test)]
mod tests;

pub use altimeter::AltimeterSensor;
pub use config::AltimeterConfig;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "altimeter" {
        serves: ["altimeter" => "altimeter"],
        enabled_by: ["gz::sim::systems::Altimeter"],
        description: "Altimeter: height above the sensor's initial height and vertical velocity, with Gazebo-style noise",
        create: AltimeterSensor::create,
    }
}
