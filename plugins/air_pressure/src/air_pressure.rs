//! The air pressure sensor: what it measures and how.
//!
//! From the sensor frame's world height `z` (its link's pose composed with the sensor's
//! `<pose>`): altitude `h = reference_altitude + z`, pressure
//! [`atmosphere::pressure(h)`](crate::atmosphere::pressure) in pascals, plus `<pressure>`
//! noise. The reported variance is `stddev²` of that noise (0 without Gaussian noise).

use crate::atmosphere;
use crate::config::AirPressureConfig;
use sim_plugin_api::prelude::*;
use sim_plugin_api::sdf::Element;
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::{NoiseChannel, SensorMount, gaussian_variance};

/// Noise stream number (with the sensor's seed) of the pressure.
pub const PRESSURE_STREAM: u64 = 0;

/// An air pressure sensor (SDF `<sensor type="air_pressure">`).
#[derive(Clone, Debug)]
pub struct AirPressureSensor {
    mount: SensorMount,
    reference_altitude: f64,
    noise: NoiseChannel,
    variance: f64,
}

impl SdfSensor for AirPressureSensor {
    /// Reads `<air_pressure>`.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        _world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let air_pressure = AirPressureConfig::read(sdf)?;
        Ok(AirPressureSensor::new(
            &air_pressure,
            SensorMount::of(config),
            config.seed,
        ))
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(String::new(), "FluidPressure")]
    }
}

impl AirPressureSensor {
    /// Builds the sensor from a parsed configuration: `mount` is where it sits and `seed` the
    /// seed of its noise stream.
    pub fn new(air_pressure: &AirPressureConfig, mount: SensorMount, seed: u64) -> Self {
        AirPressureSensor {
            mount,
            reference_altitude: air_pressure.reference_altitude,
            noise: NoiseChannel::new(air_pressure.pressure_noise, seed, PRESSURE_STREAM),
            variance: gaussian_variance(&air_pressure.pressure_noise),
        }
    }

    /// The variance reported with every reading, Pa².
    pub fn variance(&self) -> f64 {
        self.variance
    }

    /// The pressure, Pa, for a sensor at world height `z`; `dt` (s) is the time since the
    /// previous reading (0 for the first; it drives the dynamic bias of the noise).
    #[inline]
    pub fn measure(&mut self, z: f64, dt: f64) -> f64 {
        self.noise
            .apply(atmosphere::pressure(self.reference_altitude + z), dt)
    }
}

impl Sensor for AirPressureSensor {
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let state = self.mount.state(world)?;
        let pressure = self.measure(state.pose.position.z, ctx.dt.as_secs_f64());
        out.publish(
            "",
            Payload::FluidPressure {
                pressure,
                variance: self.variance,
            },
        );
        Ok(())
    }
}
