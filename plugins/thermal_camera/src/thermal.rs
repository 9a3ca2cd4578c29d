//! The thermal camera sensor.
//!
//! Per update, one batched ray cast from the near clip plane (one ray per pixel, against
//! visuals, ignoring the camera's own model; hits beyond the far clip are misses), then per
//! pixel the temperature of what it sees, from the engine's `simcore.visual_temperatures.v1`
//! extension ([`WorldRef::visual_temperatures`]): a visual's Thermal temperature, else (other
//! visuals, `<heat_signature>` textures, which are not simulated, and misses) the world's
//! ambient temperature. That temperature becomes a count with [`ThermalParams::count`].
//! Without the extension (an older engine) everything reads 288.15 K, with a warning.
//!
//! Outputs: on the sensor's topic (default `.../sensor/<s>/image`) an `L_INT16` image (two
//! bytes per pixel, little-endian) or, for `<format>L8</format>`, `L_INT8`; `camera_info`
//! beside it. With `<save enabled="true"><path>` each image is also written as a PNG file,
//! `<model>_<link>_<sensor>_<n>.png`.

use crate::params::ThermalParams;
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{
    DEFAULT_AMBIENT_TEMPERATURE, VISUAL_TEMPERATURES_EXTENSION, abi_stable::std_types::RVec,
    prelude::*,
};
use simcore_plugin_camera_common::{
    CameraCore, CameraPlugin, RayStart, camera_sensor, image::ImageOutputs,
};
use simcore_plugin_common::SdfSensor;
use std::collections::HashMap;

/// A thermal camera (SDF `<sensor type="thermal_camera">` or `thermal`).
#[derive(Clone, Debug)]
pub struct ThermalCameraSensor {
    core: CameraCore,
    params: ThermalParams,
    /// The world's ambient temperature, K.
    ambient: f64,
    outputs: ImageOutputs,
    /// Temperature of each visual seen so far (`None`: ambient).
    known: HashMap<EntityId, Option<f64>>,
}

impl SdfSensor for ThermalCameraSensor {
    /// Reads `<camera>` and the thermal settings, and takes the ambient temperature from the
    /// engine (logging, once, what is accepted but not honoured).
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let core = CameraCore::new(config, sdf, RayStart::NearPlane)?;
        let mut params = ThermalParams::read(sdf, core.config.format)?;
        let ambient = match world.visual_temperatures() {
            Some(t) => t.ambient(),
            None => {
                params.warnings.push(format!(
                    "{}: the engine offers no {VISUAL_TEMPERATURES_EXTENSION}; everything reads {DEFAULT_AMBIENT_TEMPERATURE} K",
                    core.mount.scoped_name
                ));
                DEFAULT_AMBIENT_TEMPERATURE
            }
        };
        for w in params.warnings.drain(..) {
            world.log_message(LogLevel::WARN, &w);
        }
        Ok(ThermalCameraSensor {
            outputs: core.image_outputs()?,
            params,
            ambient,
            known: HashMap::new(),
            core,
        })
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        self.outputs.outputs()
    }
}

impl ThermalCameraSensor {
    /// The parameters counts are made with.
    pub fn params(&self) -> &ThermalParams {
        &self.params
    }

    /// The world's ambient temperature, K (what misses and visuals without a Thermal
    /// temperature read).
    pub fn ambient(&self) -> f64 {
        self.ambient
    }

    /// The Thermal temperature of `visual` (`None`: it reads the ambient temperature),
    /// warning once about temperatures below 0 K and heat signatures.
    fn temperature_of(&self, world: &WorldRef<'_>, visual: EntityId) -> Option<f64> {
        let t = world
            .visual_temperatures()?
            .temperature_of(visual)
            .into_option()?;
        let name = || world.scoped_name_of(visual).unwrap_or_default();
        if t.heat_signature {
            world.log_message(
                LogLevel::WARN,
                &format!(
                    "{}: visual {}: Thermal <heat_signature> textures are not simulated; it reads the ambient temperature",
                    self.core.mount.scoped_name,
                    name()
                ),
            );
            return None;
        }
        if t.temperature < 0.0 {
            world.log_message(
                LogLevel::WARN,
                &format!(
                    "{}: visual {}: Thermal <temperature> {} K is below absolute zero; it reads as 0 K",
                    self.core.mount.scoped_name,
                    name(),
                    t.temperature
                ),
            );
        }
        Some(t.temperature)
    }

    /// One frame: the thermal image from the camera's current pose.
    pub fn render(&mut self, world: &WorldRef<'_>) -> Result<Image, PluginError> {
        self.core.cast(world)?;
        let (w, h) = (self.core.model.width, self.core.model.height);
        let bytes = if self.params.eight_bit { 1 } else { 2 };
        let mut data = RVec::with_capacity((w * h) as usize * bytes);
        let ambient = self.params.count(self.ambient);
        let mut last = (EntityId::NONE, ambient);
        for hit in self.core.grid.hits() {
            let count = if hit.entity.is_none() {
                ambient
            } else if hit.entity == last.0 {
                last.1
            } else {
                let t = match self.known.get(&hit.entity) {
                    Some(t) => *t,
                    None => {
                        let t = self.temperature_of(world, hit.entity);
                        self.known.insert(hit.entity, t);
                        t
                    }
                };
                let c = t.map_or(ambient, |t| self.params.count(t));
                last = (hit.entity, c);
                c
            };
            if self.params.eight_bit {
                data.push(count as u8);
            } else {
                data.extend_from_slice(&count.to_le_bytes());
            }
        }
        Ok(Image {
            width: w,
            height: h,
            step: w * bytes as u32,
            pixel_format: if self.params.eight_bit {
                PixelFormat::L_INT8
            } else {
                PixelFormat::L_INT16
            },
            data,
        })
    }
}

impl CameraPlugin for ThermalCameraSensor {
    fn publish_frame(
        &mut self,
        _ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let image = self.render(world)?;
        let info = self.core.camera_info();
        self.outputs
            .publish(out, image, info, &self.core.mount.scoped_name)
    }

    fn forget(&mut self) {
        self.known.clear();
    }
}

camera_sensor!(ThermalCameraSensor, core);
