//! What every camera plugin has: its configuration, camera model, per-pixel rays and place
//! on its link, and the run-time `horizontal_fov` and `primary_visibility` parameters.

use crate::config::CameraConfig;
use crate::image::ImageOutputs;
use crate::model::CameraModel;
use crate::rays::{RayGrid, RayStart};
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{
    CameraInfo, ErrorCode, PluginError, Pose, Ray, RayHit, SensorConfig, Vec3, WorldRef,
};
use simcore_plugin_common::{MaskedCast, Passes, SensorMount};

/// The shared part of a camera sensor.
#[derive(Clone, Debug)]
pub struct CameraCore {
    /// Where the sensor is: its scoped name (for messages), its link and its pose there.
    pub mount: SensorMount,
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
    /// [`CameraConfig::read`]) and builds the rays of the sensor `config` configures (see
    /// [`CameraCore::from_config`]).
    pub fn new(
        config: &SensorConfig<'_>,
        sensor: &Element<'_, '_>,
        from: RayStart,
    ) -> Result<CameraCore, PluginError> {
        let camera = CameraConfig::read(sensor)?;
        Ok(CameraCore::from_config(camera, config, from))
    }

    /// The core of the sensor `config` configures (its place, model and topic), with the
    /// parsed `<camera>` `camera`: the rays start at `from` and see over the clip range
    /// `<clip>`, ignoring the sensor's own model.
    pub fn from_config(
        camera: CameraConfig,
        config: &SensorConfig<'_>,
        from: RayStart,
    ) -> CameraCore {
        let mount = SensorMount::of(config);
        let cam_model = CameraModel {
            width: camera.width,
            height: camera.height,
            intrinsics: camera.render_intrinsics(),
            distortion: camera.distortion,
        };
        let mut grid = RayGrid::new(&cam_model, camera.near, camera.far, from, config.model);
        grid.set_visibility(MaskedCast::new(camera.visibility_mask, &mount.scoped_name));
        CameraCore {
            mount,
            grid,
            model: cam_model,
            config: camera,
            topic: config.topic.as_str().to_string(),
        }
    }

    /// The camera's world pose now.
    pub fn pose(&self, world: &WorldRef<'_>) -> Result<Pose, PluginError> {
        self.mount.pose(world)
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

    /// [`CameraCore::cast_in`], with `then` called on each chunk of pixels as it is cast
    /// (see [`RayGrid::cast_in_then`]).
    pub fn cast_in_then<T: Send>(
        &mut self,
        passes: &Passes<'_, '_>,
        items: impl IntoIterator<Item = T>,
        then: impl Fn(usize, &[Ray], &[RayHit], &[Vec3], T) + Sync,
    ) -> Result<Pose, PluginError> {
        let pose = self.pose(passes.world())?;
        self.grid.cast_in_then(passes, pose, items, then);
        Ok(pose)
    }

    /// The current `camera_info`: K from the intrinsics (`<lens><intrinsics>` or the field of
    /// view, as zoomed by `horizontal_fov`), P from `<lens><projection>` (else K's values), the
    /// distortion (see [`CameraConfig::camera_info`]).
    pub fn camera_info(&self) -> CameraInfo {
        self.config.camera_info()
    }

    /// The `camera_info` topic: `<camera_info_topic>`, else `camera_info` beside the sensor's
    /// topic (see [`CameraConfig::info_topic`]).
    pub fn camera_info_topic(&self) -> String {
        self.config.info_topic(&self.topic)
    }

    /// The `camera_info` topic of a camera whose outputs are named below its sensor's topic
    /// (the RGB-D and segmentation cameras): `<camera_info_topic>`, else the relative name
    /// `camera_info`, below that topic.
    pub fn camera_info_topic_below(&self) -> String {
        match &self.config.camera_info_topic {
            Some(_) => self.config.info_topic(""),
            None => "camera_info".to_string(),
        }
    }

    /// The outputs of a camera publishing one image per frame on the sensor's topic (see
    /// [`ImageOutputs::new`]): `camera_info` on [`CameraCore::camera_info_topic`], and with
    /// `<save>` a PNG file per frame.
    pub fn image_outputs(&self) -> Result<ImageOutputs, PluginError> {
        ImageOutputs::new(&self.config, &self.topic, &self.mount.scoped_name)
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
                format!("{}: {k}: {m}", self.mount.scoped_name),
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
                self.mount.scoped_name
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
