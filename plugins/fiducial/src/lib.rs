//! # simcore-plugin-fiducial: the fiducial finder
//!
//! A sensor plugin serving `<sensor type="fiducial">`. Each update it reports every
//! fiducial marker (a visual whose `<laser_retro>` is a whole number of at least 1, or a
//! model with a `<fiducial_id>` in one of its `<plugin>` elements, as the
//! `simcore::FiducialMarker` plugin this library also serves) that lies within
//! `<range_min>`..`<range_max>` and the horizontal and vertical field of view, and is not
//! occluded: a ray from the sensor to the marker must hit the marked model first. It reports the id, range, bearing, elevation
//! and the marker's pose in the sensor frame. See the README.
//!
//! The logic is plain Rust: [`FiducialFinder`] (in [`finder`]), configured by
//! [`FiducialConfig`] (in [`config`]). This file only exports it.

pub mod config;
pub mod finder;
pub mod marker;

pub use config::FiducialConfig;
pub use finder::FiducialFinder;
pub use marker::FiducialMarker;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "fiducial" {
        serves: ["fiducial" => "fiducial"],
        description: "Fiducial finder: id, range, bearing and pose of the marked models in range and view, occlusion checked by rays",
        create: FiducialFinder::create,
    }
    system "fiducial_marker" {
        serves: ["simcore::FiducialMarker"],
        description: "Marks its model with <fiducial_id> for fiducial sensors",
        create: FiducialMarker::create,
    }
}
