//! # simcore-plugin-camera-common: what the simcore camera plugins share
//!
//! The camera, depth camera, RGB-D camera, segmentation and bounding box camera plugins cast
//! one ray per pixel against the world's visual geometry; this crate holds the parts they
//! share:
//!
//! - [`config`]: the `<camera>` element (field of view, image size and format, clip planes,
//!   intrinsics, distortion, noise, `<save>`);
//! - [`model`]: the pinhole model with Brown-Conrady distortion (conventions for frames,
//!   pixel centres and distortion are documented there);
//! - [`rays`]: the per-pixel rays, cast per frame into kept buffers;
//! - [`Passes`]: the per-pixel passes in chunks on the engine's sensor threads (from
//!   `simcore_plugin_common::passes`, shared with the lidar);
//! - [`shading`]: Lambert shading by the world's lights with shadow rays;
//! - [`shadow_map`]: the shadow maps of directional lights the shading looks up first;
//! - [`image`]: image, depth and point cloud encodings, `camera_info`, PNG frames;
//! - [`labels`]: the segmentation labels of the visuals hit;
//! - [`core`]: the configuration, model and rays of one sensor and its `horizontal_fov`
//!   run-time parameter;
//! - [`plugin`]: the skeleton of a camera plugin ([`CameraPlugin`] and [`camera_sensor!`],
//!   which implements the plugin API's `Sensor` on top).
//!
//! This is an ordinary Rust library (an `rlib`): each plugin library links its own copy, and
//! nothing here crosses the plugin boundary.

pub mod config;
pub mod core;
pub mod image;
pub mod labels;
pub mod model;
pub mod plugin;
pub mod rays;
pub mod shading;
pub mod shadow_map;

#[cfg(test)]
mod tests;

pub use crate::core::CameraCore;
pub use config::{CameraConfig, ImageFormat, SaveConfig, is_wide_angle_type};
pub use labels::LabelCache;
pub use model::{CameraModel, Distortion, Intrinsics, Projection};
pub use plugin::CameraPlugin;
pub use rays::{ORIGIN_NEAR, RayGrid, RayStart};
pub use shading::{AsCast, Shader, SurfaceCache};
/// Pixels per chunk of a frame's passes on several sensor threads.
pub use simcore_plugin_common::CHUNK_LEN as CHUNK_PIXELS;
pub use simcore_plugin_common::Passes;

#[doc(hidden)]
pub use sim_plugin_api as __api;

/// Noise stream number (with the sensor's seed) of colour pixels.
pub const COLOR_STREAM: u64 = 0;
/// Noise stream number of depths.
pub const DEPTH_STREAM: u64 = 1;
