//! Pictures of a world (`simcore render`): the world drawn from a viewpoint by the camera
//! plugin, with the lidar rays and camera frusta of its sensors optionally drawn on top, as
//! a PNG image.
//!
//! The picture is taken by the real camera sensor: the registry's factory for the `camera`
//! sensor type (the `simcore_plugin_camera` library, found on the plugin search path as for
//! any world) creates one more camera, placed at the viewpoint on the world frame, and it is
//! updated once, through a sensor manager and topic bus of its own, against the stepped
//! world. So the picture is what a camera in the world would see (the world's lights and
//! shadows, its background, visibility flags), and the engine depends only on the plugin
//! API, never on a plugin crate: the renderer stays in the plugin it belongs to, and the
//! command draws with whatever library serves cameras ([`Viewer`]).
//!
//! - [`view`]: the viewpoint, its pinhole projection, and the default one that frames the
//!   whole world ([`frame_world`], from [`scene_bounds`]);
//! - [`camera`]: the camera sensor at the viewpoint;
//! - [`overlay`]: the lidar rays and camera frusta drawn over the picture;
//! - [`picture`]: the RGB picture and its PNG encoding.

pub mod camera;
pub mod overlay;
pub mod picture;
pub mod view;

pub use camera::{RenderError, Viewer};
pub use overlay::{LidarTap, draw_frusta, draw_rays};
pub use picture::Picture;
pub use view::{MAX_SIDE, View, frame_world, scene_bounds};
