//! The thermal camera sensor.
//!
//! Per update, one batched ray cast from the near clip plane (one ray per pixel, against
//! visuals, ignoring the camera's own model; hits beyond the far clip are misses), then per
//! pixel the temperature of what it sees ([`WorldTemperatures`]): a visual's Thermal
//! temperature, else (other visuals and misses) the ambient temperature. That temperature
//! becomes a count with [`ThermalParams::count`].
//!
//! Outputs: on the sensor's topic (default `.../sensor/<s>/image`) an `L_INT16` image (two
//! bytes per pixel, little-endian) or, for `<format>L8</format>`, `L_INT8`; `camera_info`
//! beside it. With `<save enabled="true"><path>` each image is also written as a PNG file,
//! `<model>_<link>_<sensor>_<n>.png`.

use crate::params::ThermalParams;
use crate::temperatures::WorldTemperatures;
use sim_plugin_api::{
    abi_stable::std_types::{RBox, RVec},
    prelude::*,
};
use simcore_plugin_camera_common::{
    CameraCore, CameraPlugin, RayStart, camera_sensor, image::FrameSaver,
};
use std::collections::HashMap;

/// A thermal camera (SDF `<sensor type="thermal_camera">` or `thermal`).
#[derive(Clone, Debug)]
pub struct ThermalCameraSensor {
    core: CameraCore,
    params: ThermalParams,
    temperatures: WorldTemperatures,
    info_topic: SharedStr,
    /// Temperature of each visual seen so far (`None`: ambient).
    known: HashMap<EntityId, Option<f64>>,
    saver: Option<FrameSaver>,
}

impl ThermalCameraSensor {
    /// Creates the sensor from its configuration (the factory the plugin exports); warnings
    /// about ignored values go to the world's log.
    pub fn create(config: &SensorConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let core = CameraCore::new(config, RayStart::NearPlane, |c| (c.near, c.far))?;
        let mut params = ThermalParams::parse(config, core.config.format)?;
        let mut temperatures =
            WorldTemperatures::from_file(config.source.file.as_str(), &core.scoped_name)?;
        for w in params
            .warnings
            .drain(..)
            .chain(temperatures.warnings.drain(..))
        {
            world.log_message(LogLevel::WARN, &w);
        }
        let saver = match &core.config.save {
            Some(s) => Some(FrameSaver::new(&s.path, &core.scoped_name)?),
            None => None,
        };
        Ok(ThermalCameraSensor {
            info_topic: SharedStr::new(&core.camera_info_topic(&core.topic)),
            params,
            temperatures,
            known: HashMap::new(),
            saver,
            core,
        })
    }

    /// The shared camera state (configuration, model, rays).
    pub fn core(&self) -> &CameraCore {
        &self.core
    }

    /// The parameters counts are made with.
    pub fn params(&self) -> &ThermalParams {
        &self.params
    }

    /// The temperatures the camera knows.
    pub fn temperatures(&self) -> &WorldTemperatures {
        &self.temperatures
    }

    /// One frame: the thermal image from the camera's current pose.
    pub fn render(&mut self, world: &WorldRef<'_>) -> Result<Image, PluginError> {
        self.core.cast(world)?;
        let (w, h) = (self.core.model.width, self.core.model.height);
        let bytes = if self.params.eight_bit { 1 } else { 2 };
        let mut data = RVec::with_capacity((w * h) as usize * bytes);
        let ambient = self.params.count(self.temperatures.ambient);
        let mut last = (EntityId::NONE, ambient);
        for hit in self.core.grid.hits() {
            let count = if hit.entity.is_none() {
                ambient
            } else if hit.entity == last.0 {
                last.1
            } else {
                let temps = &self.temperatures;
                let t = *self
                    .known
                    .entry(hit.entity)
                    .or_insert_with(|| world.scoped_name_of(hit.entity).and_then(|n| temps.of(&n)));
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
    fn core_mut(&mut self) -> &mut CameraCore {
        &mut self.core
    }

    fn publish_frame(
        &mut self,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let image = self.render(world)?;
        if let Some(saver) = &mut self.saver {
            saver.save(&image).map_err(|e| {
                PluginError::runtime(format!("{}: {}", self.core.scoped_name, e.message))
            })?;
        }
        out.publish("", Payload::Image(RBox::new(image)));
        out.publish(
            &self.info_topic,
            Payload::CameraInfo(RBox::new(self.core.camera_info())),
        );
        Ok(())
    }

    fn forget(&mut self) {
        self.known.clear();
    }
}

camera_sensor!(ThermalCameraSensor);
