//! The RGB-D camera sensor.
//!
//! Per update, one batched ray cast from the camera's origin (one ray per pixel, against
//! visuals, ignoring the camera's own model), then from the same hits:
//!
//! - **depth** (`depth_image`, `R_FLOAT32`): the z-depth in metres within the depth range
//!   (`<depth_camera><clip>`, else `<clip>`): `+inf` for no hit or beyond far, `-inf` nearer
//!   than near;
//! - **colour** (`image`, the configured format): hits within the colour far clip are shaded
//!   as by the camera plugin (Lambert, ambient, shadow rays), everything else is background.
//!   Because the rays start at the origin, geometry nearer than the near clip is seen in
//!   colour (and reads `-inf` in depth) rather than clipped away. `<noise>` applies to colour;
//! - **points** (`points`): the organised cloud of the depths in the sensor frame, with the
//!   shaded colour of each pixel in `rgb`;
//! - `camera_info`.
//!
//! With `<save>` the colour frames are written as PNG files.

use sim_plugin_api::{
    abi_stable::std_types::{RBox, RVec},
    msgs::PointField,
    prelude::*,
};
use simcore_plugin_camera_common::{
    COLOR_STREAM, CameraCore, CameraPlugin, RayStart, Shader, camera_sensor,
    image::{
        FrameSaver, depth_image, encode_image, packed_rgb, pixel_noise, point_cloud, point_fields,
    },
};
use simcore_plugin_common::NoiseChannel;

/// The relative topics of the outputs.
pub const TOPICS: [&str; 4] = ["image", "depth_image", "points", "camera_info"];

/// An RGB-D camera sensor (SDF `<sensor type="rgbd_camera">` or `rgbd`).
#[derive(Clone, Debug)]
pub struct RgbdCameraSensor {
    core: CameraCore,
    topics: [SharedStr; 4],
    shader: Shader,
    color_hits: Vec<RayHit>,
    colors: Vec<[f32; 3]>,
    depths: Vec<f32>,
    noise: NoiseChannel,
    saver: Option<FrameSaver>,
    fields: RVec<PointField>,
}

impl RgbdCameraSensor {
    /// Creates the sensor from its configuration (the factory the plugin exports).
    pub fn create(config: &SensorConfig<'_>, _world: &WorldRef<'_>) -> Result<Self, PluginError> {
        // One set of rays long enough for both the colour and the depth range.
        let mut core = CameraCore::new(config, RayStart::Origin, |c| {
            let (dn, df) = c.depth_range();
            (dn.min(c.near), df.max(c.far))
        })?;
        // Shading needs the normals.
        core.grid.set_normals(true);
        let saver = match &core.config.save {
            Some(s) => Some(FrameSaver::new(&s.path, &core.scoped_name)?),
            None => None,
        };
        let info = match &core.config.camera_info_topic {
            Some(_) => core.camera_info_topic(""),
            None => TOPICS[3].to_string(),
        };
        Ok(RgbdCameraSensor {
            topics: [
                SharedStr::new(TOPICS[0]),
                SharedStr::new(TOPICS[1]),
                SharedStr::new(TOPICS[2]),
                SharedStr::new(&info),
            ],
            noise: pixel_noise(&core.config.noise, config.seed, COLOR_STREAM),
            shader: Shader::default(),
            color_hits: Vec::new(),
            colors: Vec::new(),
            depths: Vec::new(),
            saver,
            fields: point_fields(),
            core,
        })
    }

    /// The shared camera state (configuration, model, rays).
    pub fn core(&self) -> &CameraCore {
        &self.core
    }
}

impl CameraPlugin for RgbdCameraSensor {
    fn core_mut(&mut self) -> &mut CameraCore {
        &mut self.core
    }

    fn publish_frame(
        &mut self,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        self.core.cast(world)?;
        let grid = &self.core.grid;
        let (near, far) = self.core.config.depth_range();
        let color_far = self.core.config.far;
        self.depths.clear();
        self.color_hits.clear();
        for (k, h) in grid.hits().iter().enumerate() {
            let z = grid.depth(k);
            self.depths.push(if !z.is_finite() || z > far {
                f32::INFINITY
            } else if z < near {
                f32::NEG_INFINITY
            } else {
                z as f32
            });
            self.color_hits
                .push(if z <= color_far { *h } else { RayHit::MISS });
        }
        self.shader.prepare(world, &self.color_hits);
        self.shader
            .shade(world, grid.rays(), &self.color_hits, &mut self.colors);
        let c = &self.core.config;
        let (w, h) = (c.width, c.height);
        let image = encode_image(&self.colors, w, h, c.format, &mut self.noise);
        if let Some(saver) = &mut self.saver {
            saver.save(&image).map_err(|e| {
                PluginError::runtime(format!("{}: {}", self.core.scoped_name, e.message))
            })?;
        }
        let colors = &self.colors;
        let cloud = point_cloud(
            grid.directions(),
            &self.depths,
            |k| packed_rgb(colors[k]),
            w,
            h,
            &self.fields,
        );
        out.publish(&self.topics[0], Payload::Image(RBox::new(image)));
        out.publish(
            &self.topics[1],
            Payload::Image(RBox::new(depth_image(&self.depths, w, h))),
        );
        out.publish(&self.topics[2], Payload::PointCloud(RBox::new(cloud)));
        out.publish(
            &self.topics[3],
            Payload::CameraInfo(RBox::new(self.core.camera_info())),
        );
        Ok(())
    }

    fn forget(&mut self) {
        self.shader.reset();
    }
}

camera_sensor!(RgbdCameraSensor);
