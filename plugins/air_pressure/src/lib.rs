//! # simcore-plugin-air-pressure: the air pressure (barometer) sensor of simcore
//!
//! Serves SDF `<sensor type="air_pressure">`. Every update publishes the static air pressure
//! of the US 1976 standard atmosphere (troposphere) at the sensor's altitude, in pascals,
//! with the Gazebo noise model and the noise variance, as
//! [`Payload::FluidPressure`](sim_plugin_api::Payload).
//!
//! The logic is plain Rust: [`AirPressureSensor`] (in [`air_pressure`]), configured by
//! [`AirPressureConfig`] (in [`config`]), with the atmosphere model in [`atmosphere`]. This
//! file only exports it to the engine.

pub mod air_pressure;
pub mod atmosphere;
pub mod config;

#[cfg(test)]
mod tests;

pub use air_pressure::AirPressureSensor;
pub use config::AirPressureConfig;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "air_pressure" {
        serves: ["air_pressure" => "air_pressure"],
        enabled_by: ["gz::sim::systems::AirPressure"],
        description: "Air pressure: US 1976 standard-atmosphere pressure at the sensor's altitude, Pa, with Gazebo-style noise",
        create: AirPressureSensor::create,
    }
}
