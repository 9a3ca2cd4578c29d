//! # simcore-plugin-wide-angle-camera: the wide-angle camera sensor of simcore
//!
//! Serves SDF `<sensor type="wideanglecamera">` (and `wide_angle_camera`). Every update
//! casts one ray per pixel through Gazebo's lens mapping functions ([`lens`]: gnomonical,
//! stereographic, equidistant, equisolid angle, orthographic or custom, with
//! `<scale_to_hfov>` and `<cutoff_angle>`) against the world's visual geometry, shades what
//! the rays hit as the pinhole camera does (Lambert, ambient, shadows), adds Gaussian pixel
//! noise and publishes an [`Image`](sim_plugin_api::Image) on the sensor's topic and a
//! [`CameraInfo`](sim_plugin_api::CameraInfo) beside it (`.../camera_info`). With
//! `<save enabled="true">` every frame is also written as a PNG file.
//!
//! The logic is plain Rust: [`Lens`] (in [`lens`]) and [`WideAngleCameraSensor`] (in
//! [`sensor`]); shading and encodings come from `simcore-plugin-camera-common`. This file
//! only exports them.

pub mod lens;
pub mod sensor;

#[cfg(test)]
mod tests;

pub use lens::{AngleFunction, Lens};
pub use sensor::WideAngleCameraSensor;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "wide_angle_camera" {
        serves: ["wideanglecamera" => "image", "wide_angle_camera" => "image"],
        description: "Wide-angle camera: Gazebo's lens mapping functions by per-pixel ray casts of visuals, Lambert shading with shadows, pixel noise, camera_info, PNG frames",
        create: WideAngleCameraSensor::create,
    }
}
