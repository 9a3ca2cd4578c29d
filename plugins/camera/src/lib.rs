//! # simcore-plugin-camera: the camera sensor of simcore
//!
//! Serves SDF `<sensor type="camera">`. Every update casts one ray per pixel (one batch) from
//! the camera's near clip plane against the world's visual geometry, shades what the rays hit
//! with the material diffuse colour lit by the world's lights (Lambert, plus ambient, with
//! shadows by a second batch of rays), adds Gaussian pixel noise and publishes an
//! [`Image`](sim_plugin_api::Image) on the sensor's topic and a
//! [`CameraInfo`](sim_plugin_api::CameraInfo) beside it (`.../camera_info`). With
//! `<save enabled="true">` every frame is also written as a PNG file.
//!
//! The logic is plain Rust: [`CameraSensor`] (in [`camera`]); the camera model, rays,
//! shading and encodings come from `simcore-plugin-camera-common`. This file only exports it.

pub mod camera;

#[cfg(test)]
mod tests;

pub use camera::CameraSensor;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "camera" {
        serves: ["camera" => "image"],
        description: "Camera: per-pixel ray casts of visuals, Lambert shading with shadows, pixel noise, camera_info, PNG frames",
        create: CameraSensor::create,
    }
}
