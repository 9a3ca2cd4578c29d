//! The RGB-D camera sensor.
//!
//! Per update, one batched ray cast from the camera's origin (one ray per pixel, against
//! visuals, ignoring the camera's own model; for a pinhole camera without distortion the
//! same hits rasterised by the engine's `simcore.raster.v1` extension where it has one, as
//! the depth camera does, with shadow maps for the sun; the run-time parameter
//! `primary_visibility` = `rays` casts instead), then from the same hits, as gz-sensors'
//! `RgbdCameraSensor` makes them from one gz-rendering depth camera clipped at `<clip>`:
//!
//! - **colour** (`image`, the configured format): hits inside `<clip>` (ray length up to far,
//!   z-depth from near, the tests of `depth_camera_fs.glsl`) are shaded as by the camera
//!   plugin (Lambert, ambient, shadows); everything else, nearer geometry too, shows the
//!   background colour;
//! - **depth** (`depth_image`, `R_FLOAT32`): the z-depth in metres, `+inf` for no hit or
//!   beyond `<clip>`'s far (by ray length), `-inf` nearer than its near (by z-depth); then,
//!   where `<depth_camera><clip>` is given, `+inf` beyond its far and `-inf` nearer than its
//!   near (by z-depth, as `RgbdCameraSensor::Update` masks the depth buffer);
//! - **noise**: one draw `n ~ N(mean, stddev)` per pixel, as gz-rendering's RGB-D noise shader
//!   draws it: added to the finite depth in metres, and `sign(n)·|n|^2.1` added to each colour
//!   channel;
//! - **points** (`points`): the organised cloud of the depths in the sensor frame (`±inf`
//!   where the depth is), with each pixel's colour in `rgb`;
//! - `camera_info`.
//!
//! With `<save>` the colour frames are written as PNG files.

use sim_plugin_api::sdf::Element;
use sim_plugin_api::{
    abi_stable::std_types::{RBox, RVec},
    msgs::PointField,
    prelude::*,
};
use simcore_plugin_camera_common::{
    COLOR_STREAM, CameraCore, CameraPlugin, Passes, RayStart, Shader, camera_sensor,
    image::{
        FrameSaver, depth_image_and_cloud, encode_image, packed_rgb, pixel_noise, point_fields,
        save_failed,
    },
};
use simcore_plugin_common::{NoiseChannel, SdfSensor};

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
    /// This frame's noise draw per pixel (empty without noise).
    draws: Vec<f64>,
    saver: Option<FrameSaver>,
    fields: RVec<PointField>,
}

impl SdfSensor for RgbdCameraSensor {
    /// Reads `<camera>`; the render range is `<clip>`, which the depth range can only narrow.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        _world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let mut core = CameraCore::new(config, sdf, RayStart::Origin)?;
        // Shading needs the normals; primary visibility is rasterised where the engine can.
        core.grid.set_normals(true);
        core.grid.set_raster(true);
        let saver = FrameSaver::of(&core.config, &core.mount.scoped_name)?;
        let mut topics = TOPICS.map(SharedStr::new);
        topics[3] = SharedStr::new(&core.camera_info_topic_below());
        Ok(RgbdCameraSensor {
            topics,
            noise: pixel_noise(&core.config.noise, config.seed, COLOR_STREAM),
            draws: Vec::new(),
            shader: Shader::default(),
            color_hits: Vec::new(),
            colors: Vec::new(),
            depths: Vec::new(),
            saver,
            fields: point_fields(),
            core,
        })
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        let [image, depth, points, info] = self.topics.each_ref().map(|t| t.to_string());
        vec![
            (image, "Image"),
            (depth, "Image"),
            (points, "PointCloudPacked"),
            (info, "CameraInfo"),
        ]
    }
}

impl RgbdCameraSensor {}

impl CameraPlugin for RgbdCameraSensor {
    fn publish_frame(
        &mut self,
        _ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let passes = Passes::new(world);
        self.core.cast_in(&passes)?;
        let grid = &self.core.grid;
        let (near, far) = grid.clip();
        let depth_clip = self.core.config.depth_clip;
        self.draws.clear();
        if self.noise.is_active() {
            let noise = &mut self.noise;
            self.draws
                .extend((0..grid.hits().len()).map(|_| noise.apply(0.0, 0.0)));
        }
        self.depths.clear();
        self.color_hits.clear();
        for (k, h) in grid.hits().iter().enumerate() {
            let z = grid.depth(k);
            let mut d = if !z.is_finite() || h.distance > far {
                f64::INFINITY
            } else if z < near {
                f64::NEG_INFINITY
            } else {
                z + self.draws.get(k).copied().unwrap_or(0.0)
            };
            self.color_hits
                .push(if d.is_finite() { *h } else { RayHit::MISS });
            if let Some((dn, df)) = depth_clip
                && d.is_finite()
            {
                if d > df {
                    d = f64::INFINITY;
                } else if d < dn {
                    d = f64::NEG_INFINITY;
                }
            }
            self.depths.push(d as f32);
        }
        // Where primary visibility is rasterised, so are the shadow maps.
        self.shader.set_shadow_maps(grid.rasterises_in(world));
        self.shader.prepare(world);
        self.shader
            .shade(&passes, grid.rays(), &self.color_hits, &mut self.colors);
        for (c, n) in self.colors.iter_mut().zip(&self.draws) {
            let shaped = (n.abs().powf(2.1) * n.signum()) as f32;
            for ch in c.iter_mut() {
                *ch = (*ch + shaped).clamp(0.0, 1.0);
            }
        }
        let c = &self.core.config;
        let (w, h) = (c.width, c.height);
        // The colour noise was added above, with the depth's draws.
        let mut added = NoiseChannel::NONE;
        let image = encode_image(&passes, &self.colors, w, h, c.format, &mut added);
        if let Some(saver) = &mut self.saver {
            saver
                .save(&image)
                .map_err(|e| save_failed(&self.core.mount.scoped_name, e))?;
        }
        let colors = &self.colors;
        let (depth_image, cloud) = depth_image_and_cloud(
            &passes,
            grid.directions(),
            &self.depths,
            || |k| packed_rgb(colors[k]),
            w,
            h,
            &self.fields,
        );
        out.publish(&self.topics[0], Payload::Image(RBox::new(image)));
        out.publish(&self.topics[1], Payload::Image(RBox::new(depth_image)));
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

camera_sensor!(RgbdCameraSensor, core);

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::sensor_error;

    #[test]
    fn a_bad_value_is_refused_with_its_place() {
        let sdf = "<sensor name=\"d\" type=\"rgbd_camera\">\n  <camera>\n    <image><height>x</height></image>\n  </camera>\n</sensor>";
        let e = sensor_error::<RgbdCameraSensor>("m::l::d", "rgbd_camera", EntityId(2), sdf, 20);
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "m::l::d: <camera><image><height> must be a whole number of pixels from 1 to 16384, found \"x\" at world.sdf:22"
        );
    }
}
