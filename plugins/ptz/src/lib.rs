//! # simcore-plugin-ptz: a pan-tilt-zoom head
//!
//! A model system serving `<plugin name="simcore::PanTiltZoom">`. It drives a pan joint and a
//! tilt joint to commanded angles (clamped to their limits) with a PID on each, whose output
//! is a joint velocity command; zoom sets the named camera sensor's horizontal field of view
//! through the engine (`set_sensor_parameter("horizontal_fov", radians)`). Commands arrive as
//! `Vector3d {x: pan, y: tilt, z: zoom}` on `/model/<m>/ptz/cmd`; the measured angles and
//! the zoom are published on `/model/<m>/ptz/state`. See the README.
//!
//! The logic is plain Rust: [`PanTiltZoom`] (in [`ptz`]), its [`Pid`] and configuration in
//! [`config`]. This file only exports it.

pub mod config;
pub mod ptz;

pub use config::{Pid, PtzConfig};
pub use ptz::PanTiltZoom;

sim_plugin_api::export_plugin! {
    system "ptz" {
        serves: ["simcore::PanTiltZoom"],
        description: "Pan-tilt-zoom head: PID pan/tilt joints to commanded angles within limits, zoom as the camera's horizontal_fov; Vector3d on ptz/cmd, state on ptz/state",
        create: PanTiltZoom::create,
    }
}
