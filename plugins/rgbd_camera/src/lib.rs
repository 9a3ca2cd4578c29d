//! # simcore-plugin-rgbd-camera: the RGB-D camera of simcore
//!
//! Serves SDF `<sensor type="rgbd_camera">` and `rgbd`. Every update casts one ray per pixel
//! (one batch) from the camera's origin against the world's visual geometry and derives from
//! the same hits a colour image (shaded as the camera plugin does), a float32 z-depth image
//! (as the depth camera plugin) and a coloured point cloud, published below the sensor's
//! topic on `image`, `depth_image`, `points` and `camera_info`.
//!
//! The logic is plain Rust: [`RgbdCameraSensor`] (in [`rgbd`]). This file only exports it.

pub mod rgbd;

pub use rgbd::RgbdCameraSensor;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "rgbd_camera" {
        serves: ["rgbd_camera" => "", "rgbd" => ""],
        description: "RGB-D camera: colour, z-depth and a coloured point cloud from one set of per-pixel ray casts",
        create: RgbdCameraSensor::create,
    }
}
