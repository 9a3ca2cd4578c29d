//! The wide-angle camera sensor.
//!
//! Per update:
//!
//! 1. the camera's world pose (its link's pose composed with the sensor's `<pose>`);
//! 2. one batched ray cast against visuals, ignoring the camera's own model, one ray per
//!    pixel the lens maps (see [`crate::lens`]); the other pixels are black;
//! 3. clipping as on the six faces of Gazebo's cube map: a ray whose largest direction
//!    component (in the sensor frame) is `c` starts at distance `near / c` and sees up to
//!    `far / c`;
//! 4. shading as the pinhole camera's (`simcore_plugin_camera_common::shading`), encoding
//!    with Gaussian pixel noise;
//! 5. an `Image` on the sensor topic, a `CameraInfo` (the pinhole calibration of the field
//!    of view, as gz-sensors' `CameraSensor` publishes it) on `camera_info` beside it, and,
//!    with `<save>`, a PNG file.

use crate::lens::Lens;
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{CameraInfo, Ray, RayCastOptions, RayHit, RayTarget, Vec3, prelude::*};
use simcore_plugin_camera_common::{
    COLOR_STREAM, CameraConfig, Passes, Shader,
    image::{ImageOutputs, encode_image, pixel_noise},
};
use simcore_plugin_common::{MaskedCast, NoiseChannel, SdfSensor, SensorMount};

/// One pixel the lens maps: its index, direction in the sensor frame and clip range along
/// its ray.
#[derive(Copy, Clone, Debug)]
struct PixelRay {
    pixel: u32,
    dir: Vec3,
    start: f64,
    end: f64,
}

/// A wide-angle camera (SDF `<sensor type="wideanglecamera">` or `"wide_angle_camera"`).
#[derive(Clone, Debug)]
pub struct WideAngleCameraSensor {
    mount: SensorMount,
    config: CameraConfig,
    lens: Lens,
    focal_length: f64,
    pixels: Vec<PixelRay>,
    rays: Vec<Ray>,
    hits: Vec<RayHit>,
    options: RayCastOptions,
    visibility: MaskedCast,
    shader: Shader,
    lit: Vec<[f32; 3]>,
    colors: Vec<[f32; 3]>,
    noise: NoiseChannel,
    outputs: ImageOutputs,
    info: CameraInfo,
}

impl SdfSensor for WideAngleCameraSensor {
    /// Reads `<camera>` and its `<lens>`.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        _world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let camera = CameraConfig::read(sdf)?;
        let lens = Lens::read(sdf)?;
        WideAngleCameraSensor::new(camera, lens, config)
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        self.outputs.outputs()
    }
}

impl WideAngleCameraSensor {
    /// Builds the sensor from a parsed `<camera>` and `<lens>`; an error when the lens
    /// cannot map the field of view.
    pub fn new(
        camera: CameraConfig,
        lens: Lens,
        config: &SensorConfig<'_>,
    ) -> Result<Self, PluginError> {
        let mount = SensorMount::of(config);
        let scoped_name = mount.scoped_name.as_str();
        let focal_length = lens
            .focal_length(camera.horizontal_fov)
            .map_err(|m| PluginError::config(format!("{scoped_name}: <camera><lens>: {m}")))?;
        let (near, far) = (camera.near, camera.far);
        let pixels: Vec<PixelRay> = lens
            .pixel_directions(camera.width, camera.height, focal_length)
            .into_iter()
            .enumerate()
            .filter_map(|(k, d)| {
                let dir = d?;
                let c = dir.x.abs().max(dir.y.abs()).max(dir.z.abs());
                Some(PixelRay {
                    pixel: k as u32,
                    dir,
                    start: near / c,
                    end: far / c,
                })
            })
            .collect();
        let max_distance = pixels.iter().map(|p| p.end).fold(0.0, f64::max);
        let info = camera.camera_info();
        let outputs = ImageOutputs::new(&camera, config.topic.as_str(), scoped_name)?;
        let n = pixels.len();
        Ok(WideAngleCameraSensor {
            lens,
            focal_length,
            pixels,
            rays: vec![Ray::default(); n],
            hits: vec![RayHit::MISS; n],
            options: RayCastOptions {
                max_distance,
                target: RayTarget::VISUAL,
                exclude_model: config.model,
            },
            visibility: MaskedCast::new(camera.visibility_mask, scoped_name),
            shader: Shader::default(),
            lit: Vec::new(),
            colors: Vec::new(),
            noise: pixel_noise(&camera.noise, config.seed, COLOR_STREAM),
            outputs,
            info,
            config: camera,
            mount,
        })
    }

    /// The parsed `<camera>`.
    pub fn config(&self) -> &CameraConfig {
        &self.config
    }

    /// The lens in use.
    pub fn lens(&self) -> &Lens {
        &self.lens
    }

    /// The focal length in image units the lens maps with (see [`Lens::focal_length`]).
    pub fn focal_length(&self) -> f64 {
        self.focal_length
    }

    /// The published `camera_info`.
    pub fn camera_info(&self) -> &CameraInfo {
        &self.info
    }

    /// Renders one frame from the camera's current pose: the image and that pose.
    pub fn render(&mut self, world: &WorldRef<'_>) -> Result<(Image, Pose), PluginError> {
        let pose = self.mount.pose(world)?;
        let (q, o) = (pose.orientation, pose.position);
        for (ray, p) in self.rays.iter_mut().zip(&self.pixels) {
            let d = q.rotate(p.dir);
            *ray = Ray {
                origin: o + d.scale(p.start),
                direction: d,
            };
        }
        self.visibility
            .cast(world, &self.rays, &self.options, &mut self.hits);
        for ((h, p), ray) in self.hits.iter_mut().zip(&self.pixels).zip(&mut self.rays) {
            // Distances from the sensor origin, for the shader.
            ray.origin = o;
            h.distance += p.start;
            if h.distance > p.end {
                *h = RayHit::MISS;
            }
        }
        self.shader.prepare(world);
        let passes = Passes::new(world);
        self.shader
            .shade(&passes, &self.rays, &self.hits, &mut self.lit);
        let c = &self.config;
        self.colors.clear();
        self.colors
            .resize(c.width as usize * c.height as usize, [0.0; 3]);
        for (p, colour) in self.pixels.iter().zip(&self.lit) {
            self.colors[p.pixel as usize] = *colour;
        }
        let (w, h) = (c.width, c.height);
        let image = encode_image(&passes, &self.colors, w, h, c.format, &mut self.noise);
        Ok((image, pose))
    }
}

impl Sensor for WideAngleCameraSensor {
    fn update(
        &mut self,
        _ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let (image, _) = self.render(world)?;
        self.outputs
            .publish(out, image, self.info.clone(), &self.mount.scoped_name)
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.shader.reset();
        Ok(())
    }
}
