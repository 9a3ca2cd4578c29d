//! The depth camera sensor.
//!
//! Per update:
//!
//! 1. the camera's world pose;
//! 2. a ray cast per pixel from the camera's origin (not from the near plane, so that
//!    geometry nearer than the near clip is detected) against visuals, ignoring the
//!    camera's own model (for a pinhole camera without distortion, the same hits rasterised
//!    by the engine's `simcore.raster.v1` extension where it has one, from a plane
//!    [`ORIGIN_NEAR`](simcore_plugin_camera_common::ORIGIN_NEAR) in front of the origin;
//!    the run-time parameter `primary_visibility` = `rays` casts instead);
//! 3. per pixel the z-depth `t · (d · axis)` of the hit at distance `t` along unit direction
//!    `d`, with the tests of gz-rendering's depth shaders (`depth_camera_fs.glsl`): `+inf`
//!    for no hit or a hit whose ray length `t` is beyond the far clip, `-inf` where the
//!    z-depth is nearer than the near clip; Gaussian `<noise>` (mean, stddev, in metres) is
//!    added to finite depths;
//! 4. the depth image (`R_FLOAT32`) on the sensor topic, `camera_info` beside it, and the
//!    point cloud (`x, y, z, rgb`; the sensor frame; `rgb` the unlit diffuse colour of what
//!    was hit; `±inf` in all three coordinates where the depth is) on `points` below it.
//!
//! Steps 2 to 4 run in chunks of pixels on the engine's sensor threads (see
//! `simcore_plugin_common::passes`), in three passes: the cast, the depths (on the
//! calling thread when noisy: the noise runs through the pixels in order) and the depth
//! image with the point cloud; the frame is the same at every thread count.
//!
//! The depth range is `<camera><clip>`: gz-sensors' `DepthCameraSensor` does not read
//! `<depth_camera><clip>` (only the RGB-D camera does).

use sim_plugin_api::sdf::Element;
use sim_plugin_api::{
    abi_stable::std_types::{RBox, RVec},
    msgs::PointField,
    prelude::*,
};
use simcore_plugin_camera_common::{
    CameraCore, CameraPlugin, DEPTH_STREAM, Passes, RayStart, SurfaceCache, camera_sensor,
    image::{ImageAndCloud, measured_image_and_cloud, packed_rgb, pixel_noise, point_fields},
};
use simcore_plugin_common::{NoiseChannel, SdfSensor};
use std::sync::atomic::AtomicBool;

/// The relative topic of the point cloud.
pub const POINTS_TOPIC: &str = "points";

/// A depth camera sensor (SDF `<sensor type="depth_camera">` or `depth`).
#[derive(Clone, Debug)]
pub struct DepthCameraSensor {
    core: CameraCore,
    info_topic: SharedStr,
    points_topic: SharedStr,
    depths: Vec<f32>,
    surfaces: SurfaceCache,
    noise: NoiseChannel,
    fields: RVec<PointField>,
}

impl SdfSensor for DepthCameraSensor {
    /// Reads `<camera>` (a `<save>` is logged as ignored).
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let mut core = CameraCore::new(config, sdf, RayStart::Origin)?;
        // Primary visibility is rasterised where the engine can.
        core.grid.set_raster(true);
        if core.config.save.is_some() {
            world.log_message(
                LogLevel::WARN,
                &format!(
                    "{}: <save> is ignored: depth images are float32 and are not saved as PNG",
                    core.mount.scoped_name
                ),
            );
        }
        Ok(DepthCameraSensor {
            info_topic: SharedStr::new(&core.camera_info_topic()),
            points_topic: SharedStr::new(POINTS_TOPIC),
            noise: pixel_noise(&core.config.noise, config.seed, DEPTH_STREAM),
            depths: Vec::new(),
            surfaces: SurfaceCache::default(),
            fields: point_fields(),
            core,
        })
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![
            (String::new(), "Image"),
            (self.info_topic.to_string(), "CameraInfo"),
            (self.points_topic.to_string(), "PointCloudPacked"),
        ]
    }
}

impl DepthCameraSensor {
    /// Measures one frame: the depths (row-major, metres) of the camera's current view.
    /// Without noise they are computed in chunks on the engine's sensor threads; noise, whose
    /// state runs through the pixels in order, keeps them on this thread.
    pub fn measure(&mut self, world: &WorldRef<'_>) -> Result<&[f32], PluginError> {
        let passes = Passes::new(world);
        self.measure_in(&passes)
    }

    /// [`DepthCameraSensor::measure`] in the chunks of pixels of `passes`.
    fn measure_in(&mut self, passes: &Passes<'_, '_>) -> Result<&[f32], PluginError> {
        self.core.cast_in(passes)?;
        let grid = &self.core.grid;
        let (near, far) = grid.clip();
        let (hits, dirs) = (grid.hits(), grid.directions());
        self.depths.clear();
        self.depths.resize(hits.len(), 0.0);
        if self.noise.is_active() {
            let noise = &mut self.noise;
            for ((out, hit), d) in self.depths.iter_mut().zip(hits).zip(dirs) {
                *out = depth(hit, *d, near, far, |z| noise.apply(z, 0.0));
            }
        } else {
            let chunk = passes.even_chunk_len(hits.len());
            let chunks: Vec<_> = self
                .depths
                .chunks_mut(chunk)
                .zip(hits.chunks(chunk))
                .zip(dirs.chunks(chunk))
                .collect();
            passes.run(chunks, |((out, hits), dirs)| {
                depths_into(hits, dirs, (near, far), out)
            });
        }
        Ok(&self.depths)
    }
}

/// The depth of `hit` along unit sensor-frame direction `d` for the clip range
/// `near..far`, with `noise` added to finite depths (see the [module docs](self)).
#[inline]
fn depth(hit: &RayHit, d: Vec3, near: f64, far: f64, noise: impl FnOnce(f64) -> f64) -> f32 {
    let z = hit.distance * d.x;
    let z = if !z.is_finite() || hit.distance > far {
        f64::INFINITY
    } else if z < near {
        f64::NEG_INFINITY
    } else {
        noise(z)
    };
    z as f32
}

/// The depths without noise of `hits` along their unit sensor-frame directions `dirs` into
/// `out`, for the clip range `(near, far)` (see [`depth`]).
fn depths_into(hits: &[RayHit], dirs: &[Vec3], (near, far): (f64, f64), out: &mut [f32]) {
    for (o, (hit, d)) in out.iter_mut().zip(hits.iter().zip(dirs)) {
        *o = depth(hit, *d, near, far, |z| z);
    }
}

/// The packed colour (see [`packed_rgb`]) of the surface pixel `k` of `hits` sees, from
/// `surfaces` (`unknown` set for a surface not looked up yet): neighbouring pixels mostly
/// hit the same entity, whose colour is kept. Called for pixels in order, one per chunk.
fn colours<'a>(
    hits: &'a [RayHit],
    surfaces: &'a SurfaceCache,
    unknown: &'a AtomicBool,
) -> impl FnMut(usize) -> f32 + 'a {
    let mut last = (EntityId::NONE, 0.0f32);
    move |k| {
        let e = hits[k].entity;
        if e != last.0 {
            let c = surfaces.looked_up(e, unknown);
            last = (e, packed_rgb([c[0], c[1], c[2]]));
        }
        last.1
    }
}

impl DepthCameraSensor {
    /// The depth image and the coloured point cloud of the frame cast (its depths measured
    /// before when `measured`, else as they are packed), and whether a pixel hit a surface
    /// whose colour was not looked up (black in the cloud).
    fn pack(
        &self,
        passes: &Passes<'_, '_>,
        measured: bool,
    ) -> (Image, sim_plugin_api::PointCloudPacked, bool) {
        let grid = &self.core.grid;
        let (hits, dirs) = (grid.hits(), grid.directions());
        let clip = grid.clip();
        let surfaces = &self.surfaces;
        let unknown = AtomicBool::new(false);
        let rgb = || colours(hits, surfaces, &unknown);
        let depths = &self.depths;
        let measure = |first: usize, out: &mut [f32]| {
            if measured {
                out.copy_from_slice(&depths[first..first + out.len()]);
            } else {
                depths_into(&hits[first..], &dirs[first..], clip, out);
            }
        };
        let size = (self.core.model.width, self.core.model.height);
        let count = hits.len();
        let (image, cloud) =
            measured_image_and_cloud(passes, dirs, count, measure, rgb, size, &self.fields);
        (image, cloud, unknown.into_inner())
    }

    /// The frame cast and, chunk by chunk as each is cast (its hits still in the cache),
    /// its depths measured and packed: [`DepthCameraSensor::pack`] without noise, in the
    /// cast's own pass.
    fn cast_and_pack(
        &mut self,
        passes: &Passes<'_, '_>,
    ) -> Result<(Image, sim_plugin_api::PointCloudPacked, bool), PluginError> {
        let grid = &self.core.grid;
        let clip = grid.clip();
        let count = grid.directions().len();
        let mut made = ImageAndCloud::new(count, count, grid.chunk_len_in(passes));
        let surfaces = &self.surfaces;
        let unknown = AtomicBool::new(false);
        self.core
            .cast_in_then(passes, made.parts(), |_, _, hits, dirs, part| {
                part.pack(
                    dirs,
                    |k, out| depths_into(&hits[k..], &dirs[k..], clip, out),
                    colours(hits, surfaces, &unknown),
                );
            })?;
        let size = (self.core.model.width, self.core.model.height);
        let (image, cloud) = made.finish(size, &self.fields);
        Ok((image, cloud, unknown.into_inner()))
    }
}

impl CameraPlugin for DepthCameraSensor {
    fn publish_frame(
        &mut self,
        _ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let passes = Passes::new(world);
        // Without noise the depths are measured as they are packed; noise, whose state runs
        // through the pixels in order, measures them first on this thread.
        let measured = self.noise.is_active();
        let mut packed = if measured {
            self.measure_in(&passes)?;
            self.pack(&passes, measured)
        } else {
            self.cast_and_pack(&passes)?
        };
        // The colours of the surfaces hit are looked up when the frame meets one not seen
        // before (its first frames, new models), and the frame packed again.
        if packed.2 {
            self.surfaces.fill(self.core.grid.hits(), world);
            packed = self.pack(&passes, measured);
        }
        let (image, cloud, _) = packed;
        out.publish("", Payload::Image(RBox::new(image)));
        out.publish(
            &self.info_topic,
            Payload::CameraInfo(RBox::new(self.core.camera_info())),
        );
        out.publish(&self.points_topic, Payload::PointCloud(RBox::new(cloud)));
        Ok(())
    }

    fn forget(&mut self) {
        self.surfaces.clear();
    }
}

camera_sensor!(DepthCameraSensor, core);

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::sensor_error;

    #[test]
    fn a_bad_value_is_refused_with_its_place() {
        let sdf = "<sensor name=\"d\" type=\"depth_camera\">\n  <camera>\n    <image><height>x</height></image>\n  </camera>\n</sensor>";
        let e = sensor_error::<DepthCameraSensor>("m::l::d", "depth_camera", EntityId(2), sdf, 20);
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "m::l::d: <camera><image><height> must be a whole number of pixels from 1 to 16384, found \"x\" at world.sdf:22"
        );
    }
}
