//! # simcore-plugin-navsat: the navigation satellite (GPS) sensor of simcore
//!
//! Serves SDF `<sensor type="navsat">` and its legacy name `gps`. Every update publishes one
//! [`NavSat`](sim_plugin_api::NavSat) message: the latitude, longitude and altitude of the
//! sensor's position on the world's reference ellipsoid (`<spherical_coordinates>`) and its
//! east, north and up velocity, with the Gazebo noise model.
//!
//! The logic is plain Rust: [`NavSatSensor`] (in [`navsat`]), configured by [`NavSatConfig`]
//! (in [`config`]), with the geodesy in [`geodesy`]. This file only exports it to the engine.

pub mod config;
pub mod geodesy;
pub mod navsat;

#[cfg(test)]
mod tests;

pub use config::NavSatConfig;
pub use geodesy::{Ellipsoid, Geodetic, LocalFrame};
pub use navsat::NavSatSensor;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "navsat" {
        serves: ["navsat" => "navsat", "gps" => "navsat"],
        enabled_by: ["gz::sim::systems::NavSat"],
        description: "Navigation satellite fix: latitude, longitude, altitude and east/north/up velocity from the world's spherical coordinates, with Gazebo-style noise",
        create: NavSatSensor::create,
    }
}
