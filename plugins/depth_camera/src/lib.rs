//! # simcore-plugin-depth-camera: the depth camera of simcore
//!
//! Serves SDF `<sensor type="depth_camera">` and `depth`. Every update casts one ray per
//! pixel (one batch) from the camera's origin against the world's visual geometry and
//! publishes a float32 depth image ([`Image`](sim_plugin_api::Image), `R_FLOAT32`) on the
//! sensor's topic: the distance **along the optical axis** (z-depth, not the ray length) in
//! metres, `+inf` where nothing is seen within the far clip and `-inf` where something is
//! nearer than the near clip. Beside it, `camera_info`; below it (`<topic>/points`), an
//! organised point cloud in the sensor frame.
//!
//! The logic is plain Rust: [`DepthCameraSensor`] (in [`depth`]). This file only exports it.

pub mod depth;

pub use depth::DepthCameraSensor;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "depth_camera" {
        serves: ["depth_camera" => "depth_image", "depth" => "depth_image"],
        description: "Depth camera: per-pixel ray casts of visuals, float32 z-depth (REP-117 ends), camera_info, point cloud",
        create: DepthCameraSensor::create,
    }
}
