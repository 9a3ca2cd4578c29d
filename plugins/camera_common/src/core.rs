//! What every camera plugin has: its configuration, camera model, per-pixel rays and place
//! on its link, and the run-time `horizontal_fov` and `primary_visibility` parameters.

use crate::config::CameraConfig;
use crate::model::CameraModel;
use crate::rays::{RayGrid, RayStart};
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{CameraInfo, EntityId, ErrorCode, PluginError, Pose, SensorConfig, WorldRef};
use simcore_plugin_common::Passes;
use simcore_plugin_common::{MaskedCast, sensor_state};

/// The shared part of a camera sensor.
#[derive(Clone, Debug)]
pub struct CameraCore {
    /// The sensor's scoped name (for messages).
    pub scoped_name: String,
    /// The link it is on.
    pub link: EntityId,
    /// Its pose in the link.
    pub pose_in_link: Pose,
    /// The parsed `<camera>`.
    pub config: CameraConfig,
    /// The camera model in use.
    pub model: CameraModel,
    /// The per-pixel rays.
    pub grid: RayGrid,
    /// The resolved topic of the sensor.
    pub topic: String,
}

impl CameraCore {
    /// Reads the `<camera>` of `sensor` (the sensor's parsed `<sensor>` element, see
    /// [`CameraConfig::read`]) and builds the rays: starting at `from`, over the clip range
    /// `clip(&config)`, ignoring the sensor's own model.
    pub fn new(
        config: &SensorConfig<'_>,
        sensor: &Element<'_, '_>,
        from: RayStart,
        clip: impl Fn(&CameraConfig) -> (f64, f64),
    ) -> Result<CameraCore, PluginError> {
        let camera = CameraConfig::read(sensor)?;
        Ok(CameraCore::from_config(
            camera,
            config.scoped_name.as_str(),
            config.link,
            config.model,
            config.pose,
            config.topic.as_str(),
            from,
            clip,
        ))
    }

    /// [`CameraCore::new`] from a parsed configuration.
    #[allow(clippy::too_many_arguments)]
    pub fn from_config(
        camera: CameraConfig,
        scoped_name: &str,
        link: EntityId,
        model: EntityId,
        pose_in_link: Pose,
        topic: &str,
        from: RayStart,
        clip: impl Fn(&CameraConfig) -> (f64, f64),
    ) -> CameraCore {
        let cam_model = CameraModel {
            width: camera.width,
            height: camera.height,
            intrinsics: camera.render_intrinsics(),
            distortion: camera.distortion,
        };
        let (near, far) = clip(&camera);
        let mut grid = RayGrid::new(&cam_model, near, far, from, model);
        grid.set_visibility(MaskedCast::new(camera.visibility_mask, scoped_name));
        CameraCore {
            scoped_name: scoped_name.to_string(),
            link,
            pose_in_link: Pose::new(pose_in_link.position, pose_in_link.orientation.normalized()),
            grid,
            model: cam_model,
            config: camera,
            topic: topic.to_string(),
        }
    }

    /// The camera's world pose now.
    pub fn pose(&self, world: &WorldRef<'_>) -> Result<Pose, PluginError> {
        Ok(sensor_state(world, self.link, self.pose_in_link, &self.scoped_name)?.pose)
    }

    /// Casts every pixel's ray from the camera's current pose; returns that pose.
    pub fn cast(&mut self, world: &WorldRef<'_>) -> Result<Pose, PluginError> {
        self.cast_in(&Passes::new(world))
    }

    /// [`CameraCore::cast`] in the chunks of pixels of `passes` (see [`RayGrid::cast_in`]).
    pub fn cast_in(&mut self, passes: &Passes<'_, '_>) -> Result<Pose, PluginError> {
        let pose = self.pose(passes.world())?;
        self.grid.cast_in(passes, pose);
        Ok(pose)
    }

    /// The current `camera_info`: K from the intrinsics (`<lens><intrinsics>` or the field of
    /// view), P from `<lens><projection>` (else K's values), the model's distortion.
    pub fn camera_info(&self) -> CameraInfo {
        let k = CameraModel {
            intrinsics: self.config.effective_intrinsics(),
            ..self.model
        };
        let mut info = crate::image::camera_info(&k);
        info.projection = self.config.projection_matrix();
        info
    }

    /// The `camera_info` topic: `<camera_info_topic>`, else beside the image topic `image`
    /// (see [`crate::config::sibling_topic`]).
    pub fn camera_info_topic(&self, image_topic: &str) -> String {
        self.config.info_topic(image_topic)
    }

    /// The run-time parameter `horizontal_fov` (radians, as text): the camera zooms from the
    /// next frame on. Focal lengths follow the new field of view (explicit intrinsics are
    /// scaled by the same factor, keeping their principal point and aspect); `camera_info`
    /// follows.
    ///
    /// The run-time parameter `primary_visibility`: `raster` for the engine's rasteriser
    /// where it can serve the camera (see [`RayGrid::set_raster`]), `rays` for one ray per
    /// pixel. Any other key is refused.
    pub fn set_parameter(&mut self, key: &str, value: &str) -> Result<(), PluginError> {
        let bad = |k: &str, m: String| {
            PluginError::new(
                ErrorCode::BAD_REQUEST,
                format!("{}: {k}: {m}", self.scoped_name),
            )
        };
        if key == "primary_visibility" {
            match value.trim() {
                "raster" => self.grid.set_raster(true),
                "rays" => self.grid.set_raster(false),
                _ => {
                    return Err(bad(
                        key,
                        format!("expected raster or rays, found \"{value}\""),
                    ));
                }
            }
            return Ok(());
        }
        if key != "horizontal_fov" {
            return Err(PluginError::unsupported(format!(
                "{}: no run-time parameter `{key}` (horizontal_fov, primary_visibility)",
                self.scoped_name
            )));
        }
        let bad = |m: String| bad("horizontal_fov", m);
        let hfov = value
            .trim()
            .parse::<f64>()
            .map_err(|_| bad(format!("expected a number of radians, found \"{value}\"")))
            .and_then(|h| CameraConfig::check_hfov(h).map_err(bad))?;
        let scale = (self.config.horizontal_fov / 2.0).tan() / (hfov / 2.0).tan();
        self.config.horizontal_fov = hfov;
        if let Some(i) = &mut self.config.intrinsics {
            i.fx *= scale;
            i.fy *= scale;
            i.s *= scale;
        }
        if let Some(p) = &mut self.config.projection {
            p.fx *= scale;
            p.fy *= scale;
            p.tx *= scale;
            p.ty *= scale;
        }
        self.model.intrinsics = self.config.render_intrinsics();
        self.grid.set_model(&self.model);
        Ok(())
    }
}
