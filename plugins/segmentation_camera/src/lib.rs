//! # simcore-plugin-segmentation-camera: the segmentation camera of simcore
//!
//! Serves SDF `<sensor type="segmentation_camera">` and `segmentation`. Every update casts
//! one ray per pixel (one batch) from the near clip plane against the world's visual geometry
//! and labels each pixel with the semantic label of the visual hit (from a
//! `gz::sim::systems::Label` plugin, else a stable id derived from its model's name) and,
//! for `instance`/`panoptic` segmentation, the model it belongs to. It publishes a label map,
//! a coloured map, the list of labels seen and `camera_info` below the sensor's topic.
//!
//! The logic is plain Rust: [`SegmentationCameraSensor`] (in [`segmentation`]).

pub mod segmentation;

pub use segmentation::{SegmentationCameraSensor, label_color, name_label};

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "segmentation_camera" {
        serves: ["segmentation_camera" => "segmentation", "segmentation" => "segmentation"],
        description: "Segmentation camera: semantic or instance label maps, a coloured map and the label list from per-pixel ray casts",
        create: SegmentationCameraSensor::create,
    }
}
