//! # simcore-plugin-air-speed: the air speed (pitot) sensor of simcore
//!
//! Serves SDF `<sensor type="air_speed">`. Every update publishes the differential pressure
//! of the air flowing along the sensor's x axis, `sgn(uₓ)·½ρuₓ²` Pa with the air density of
//! the standard atmosphere at the sensor's height, and the air temperature, with Gazebo's
//! noise model, as gz-msgs' `AirSpeedSensor` (a JSON [`Payload::Custom`](sim_plugin_api::Payload)
//! of schema [`AIR_SPEED_SCHEMA`]).
//!
//! The logic is plain Rust: [`AirSpeedSensor`] (in [`air_speed`]), the air model in
//! [`atmosphere`] and the message in [`message`]. This file only exports it to the engine.

pub mod air_speed;
pub mod atmosphere;
pub mod message;

#[cfg(test)]
mod tests;

pub use air_speed::{AirSpeedReading, AirSpeedSensor};
pub use message::AIR_SPEED_SCHEMA;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "air_speed" {
        serves: ["air_speed" => "air_speed"],
        enabled_by: ["gz::sim::systems::AirSpeed"],
        description: "Air speed: differential (pitot) pressure of the forward air speed in the standard atmosphere, Pa, with Gazebo-style noise",
        create: AirSpeedSensor::create,
    }
}
