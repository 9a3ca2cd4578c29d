//! # simcore-plugin-boundingbox-camera: the bounding box camera of simcore
//!
//! Serves SDF `<sensor type="boundingbox_camera">` and `boundingbox`. Every update casts one
//! ray per pixel (one batch) against the world's visual geometry, as the segmentation camera
//! does, and gathers the pixels of each labelled model into its visible 2D box (gz-sensors'
//! `BoundingBoxCameraSensor` with `<box_type>2d</box_type>`), or, with `full_2d` and `3d`,
//! the full 2D or oriented 3D box of its seen visuals ([`full`]). It publishes the boxes
//! (`gz.msgs.AnnotatedAxisAligned2DBox_V` or `gz.msgs.AnnotatedOriented3DBox_V`) on the
//! sensor's topic, the camera image with the
//! boxes drawn on `<topic>_image`, and `camera_info` beside the topic; with `<save>`, each
//! frame's image and boxes as files ([`save`]).
//!
//! The logic is plain Rust: [`boxes`] (from labelled pixels to boxes), [`message`] (the
//! published message) and [`BoundingBoxCameraSensor`] (in [`sensor`]).

pub mod boxes;
pub mod full;
pub mod message;
pub mod save;
pub mod sensor;

pub use boxes::{BoxType, VisibleBox};
pub use full::{Box2d, Box3d};
pub use sensor::{BoundingBoxCameraSensor, Boxes};

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "boundingbox_camera" {
        serves: ["boundingbox_camera" => "boundingbox", "boundingbox" => "boundingbox"],
        description: "Bounding box camera: visible or full 2D boxes and 3D boxes of labelled visuals from per-pixel ray casts, and the image with the boxes drawn",
        create: BoundingBoxCameraSensor::create,
    }
}
