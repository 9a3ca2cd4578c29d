//! # simcore-plugin-fiducial: the fiducial finder
//!
//! A sensor plugin serving `<sensor type="fiducial">`. Each update it reports every
//! fiducial-marked model (a model with a visual whose `<laser_retro>` is a whole number of at
//! least 1: that number is its id) whose marker lies within `<range_min>`..`<range_max>` and
//! the horizontal and vertical field of view, and is not occluded: a ray from the sensor to
//! the marker must hit the marked model first. It reports the id, range, bearing, elevation
//! and the marker's pose in the sensor frame. See the README.
//!
//! The logic is plain Rust: [`FiducialFinder`] (in [`finder`]), configured by
//! [`FiducialConfig`] (in [`config`]). This file only exports it.

pub mod config;
pub mod finder;

pub use config::FiducialConfig;
pub use finder::FiducialFinder;

sim_plugin_api::export_plugin! {
    sensor "fiducial" {
        serves: ["fiducial"],
        description: "Fiducial finder: id, range, bearing and pose of the marked models in range and view, occlusion checked by rays",
        create: FiducialFinder::create,
    }
}
