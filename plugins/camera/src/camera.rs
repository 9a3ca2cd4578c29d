//! The camera sensor.
//!
//! Per update:
//!
//! 1. the camera's world pose (its link's pose composed with the sensor's `<pose>`);
//! 2. a ray cast per pixel from the near clip plane against visuals, ignoring the camera's
//!    own model; hits beyond the far clip are misses (for a pinhole camera without
//!    distortion, the same hits rasterised by the engine's `simcore.raster.v1` extension
//!    where it has one; the run-time parameter `primary_visibility` = `rays` casts instead);
//! 3. shading (see `simcore_plugin_camera_common::shading`): background colour for misses,
//!    else the diffuse colour lit by ambient light and the world's lights, with shadows
//!    (those of directional lights looked up first in shadow maps where step 2 rasterises);
//!    each chunk of pixels is shaded as soon as it is cast, but for a frame whose shadow
//!    maps need its own points (the first), shaded after;
//! 4. encoding to the configured format with Gaussian noise per pixel and channel;
//! 5. an `Image` on the sensor topic, a `CameraInfo` on `camera_info` beside it, and, with
//!    `<save>`, a PNG file.
//!
//! Steps 2 to 4 run in chunks of pixels on the engine's sensor threads (see
//! `simcore_plugin_common::passes`; the encoding only without noise), and the image
//! is the same at every thread count.

use sim_plugin_api::prelude::*;
use sim_plugin_api::sdf::Element;
use simcore_plugin_camera_common::{
    COLOR_STREAM, CameraConfig, CameraCore, CameraPlugin, Passes, RayStart, Shader, camera_sensor,
    image::{ImageOutputs, encode_image, pixel_noise},
};
use simcore_plugin_common::{NoiseChannel, SdfSensor};

/// A camera sensor (SDF `<sensor type="camera">`).
#[derive(Clone, Debug)]
pub struct CameraSensor {
    core: CameraCore,
    outputs: ImageOutputs,
    shader: Shader,
    colors: Vec<[f32; 3]>,
    noise: NoiseChannel,
}

impl SdfSensor for CameraSensor {
    /// Reads `<camera>`.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        _world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let camera = CameraConfig::read(sdf)?;
        CameraSensor::new(camera, config)
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        self.outputs.outputs()
    }
}

impl CameraSensor {
    /// Builds the sensor from a parsed configuration (see [`CameraCore::from_config`]).
    pub fn new(camera: CameraConfig, config: &SensorConfig<'_>) -> Result<Self, PluginError> {
        let mut core = CameraCore::from_config(camera, config, RayStart::NearPlane);
        // Shading needs the normals; primary visibility is rasterised where the engine can.
        core.grid.set_normals(true);
        core.grid.set_raster(true);
        Ok(CameraSensor {
            outputs: core.image_outputs()?,
            noise: pixel_noise(&core.config.noise, config.seed, COLOR_STREAM),
            shader: Shader::default(),
            colors: Vec::new(),
            core,
        })
    }

    /// Renders one frame from the camera's current pose: the image and that pose.
    pub fn render(&mut self, world: &WorldRef<'_>) -> Result<(Image, Pose), PluginError> {
        let passes = Passes::new(world);
        // Where primary visibility is rasterised, so are the shadow maps.
        self.shader
            .set_shadow_maps(self.core.grid.rasterises_in(world));
        self.shader.prepare(world);
        // The shadow maps' bounds are found chunk by chunk as the frame is cast.
        let grid = &self.core.grid;
        let (n, chunk) = (grid.directions().len(), grid.chunk_len_in(&passes));
        let chunks = n.div_ceil(chunk);
        let mut bounds = self.shader.frame_bounds(world, chunks);
        let pose = if let Some(shading) = self.shader.as_cast(&passes, n, chunks) {
            // Each chunk shaded as soon as it is cast, its maps over the last frame's points.
            self.colors.resize(n, [0.0; 3]);
            let items = bounds
                .slots()
                .into_iter()
                .zip(self.colors.chunks_mut(chunk));
            let pose = self.core.cast_in_then(
                &passes,
                items.enumerate(),
                |first, rays, hits, _, (k, (slot, out))| {
                    shading.shade(world, k, first, rays, hits, out, slot);
                },
            )?;
            let unknown = shading.unknown();
            let grid = &self.core.grid;
            self.shader.finish_as_cast(
                &passes,
                grid.rays(),
                grid.hits(),
                &mut self.colors,
                &bounds,
                unknown,
            );
            pose
        } else {
            let pose =
                self.core
                    .cast_in_then(&passes, bounds.slots(), |first, rays, hits, _, slot| {
                        slot.add(first, rays, hits)
                    })?;
            let grid = &self.core.grid;
            self.shader
                .shade_bounded(&passes, grid.rays(), grid.hits(), &mut self.colors, &bounds);
            pose
        };
        let c = &self.core.config;
        let (w, h) = (c.width, c.height);
        let image = encode_image(&passes, &self.colors, w, h, c.format, &mut self.noise);
        Ok((image, pose))
    }
}

impl CameraPlugin for CameraSensor {
    fn publish_frame(
        &mut self,
        _ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let (image, _) = self.render(world)?;
        let info = self.core.camera_info();
        self.outputs
            .publish(out, image, info, &self.core.mount.scoped_name)
    }

    fn forget(&mut self) {
        self.shader.reset();
    }
}

camera_sensor!(CameraSensor, core);
