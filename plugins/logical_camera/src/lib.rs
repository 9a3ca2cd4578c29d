//! # simcore-plugin-logical-camera: the logical camera of simcore
//!
//! Serves SDF `<sensor type="logical_camera">`. Every update publishes a
//! [`LogicalCameraImage`](sim_plugin_api::LogicalCameraImage) on the sensor's topic (the
//! camera's world pose and the scoped name and camera-relative pose of every model whose
//! collision box meets the view frustum) and a
//! [`LogicalCameraFrustum`](sim_plugin_api::LogicalCameraFrustum) on `<topic>/frustum`.
//!
//! The logic is plain Rust: [`LogicalCameraSensor`] (in [`camera`]), configured by
//! [`LogicalCameraConfig`] (in [`config`]), with the frustum geometry and the exact
//! frustum-versus-box test in [`frustum`]. This file only exports it to the engine.

pub mod camera;
pub mod config;
pub mod frustum;

#[cfg(test)]
mod tests;

pub use camera::LogicalCameraSensor;
pub use config::LogicalCameraConfig;
pub use frustum::{Frustum, PosedFrustum};

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "logical_camera" {
        serves: ["logical_camera" => "logical_camera"],
        enabled_by: ["gz::sim::systems::LogicalCamera"],
        description: "Logical camera: scoped names and relative poses of the models whose collision boxes meet its frustum",
        create: LogicalCameraSensor::create,
    }
}
