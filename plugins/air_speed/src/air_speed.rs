//! The air speed sensor: what it measures and how, as gz-sensors' `AirSpeedSensor`.
//!
//! From the sensor frame's motion (its link's, at the sensor's `<pose>`): the air velocity
//! in the sensor frame `u = R⁻¹·(v − w)`, with `v` the world velocity of the sensor's origin,
//! `R` its world orientation and `w` the wind (zero: the API does not expose the world's
//! `<wind>`), and the air at the sensor's world height `z` from [`atmosphere`]. The
//! differential (pitot) pressure along the sensor's x axis is
//! `Δp = sgn(uₓ)·½·ρ(z)·uₓ²` Pa. As in Gazebo, the `<air_speed><pressure><noise>` is applied
//! to that pressure in hectopascals (its parameters are hPa), before the conversion to Pa.

use crate::atmosphere;
use crate::message::air_speed_message;
use sim_plugin_api::noise::{NoiseKind, NoiseParams};
use sim_plugin_api::prelude::*;
use sim_plugin_api::sdf::Element;
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::{NoiseChannel, SensorMount};

/// Noise stream number (with the sensor's seed) of the pressure.
pub const PRESSURE_STREAM: u64 = 0;

/// Pascals per hectopascal, the unit Gazebo applies the pressure noise in.
pub const PA_PER_HPA: f64 = 100.0;

/// An air speed sensor (SDF `<sensor type="air_speed">`).
#[derive(Clone, Debug)]
pub struct AirSpeedSensor {
    mount: SensorMount,
    frame: String,
    noise_params: NoiseParams,
    noise: NoiseChannel,
}

/// One reading of the sensor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AirSpeedReading {
    /// Differential pressure, Pa, with noise.
    pub diff_pressure: f64,
    /// Temperature of the air at the sensor, K.
    pub temperature: f64,
}

impl SdfSensor for AirSpeedSensor {
    /// Reads `<air_speed><pressure><noise>` (hPa).
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        _world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let noise = sdf.noise("air_speed/pressure")?;
        Ok(AirSpeedSensor::new(
            noise,
            SensorMount::of(config),
            config.frame_id.as_str(),
            config.seed,
        ))
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(String::new(), "Custom")]
    }
}

impl AirSpeedSensor {
    /// Builds the sensor: `noise` is the pressure noise (hPa), `mount` where it sits, `frame`
    /// the frame id of its messages and `seed` the seed of its noise.
    pub fn new(noise: NoiseParams, mount: SensorMount, frame: &str, seed: u64) -> Self {
        AirSpeedSensor {
            mount,
            frame: frame.to_string(),
            noise_params: noise,
            noise: NoiseChannel::new(noise, seed, PRESSURE_STREAM),
        }
    }

    /// The reading of a sensor frame with world pose `pose` whose origin moves at `velocity`
    /// (world frame, m/s); `dt` (s) is the time since the previous reading (0 for the first;
    /// it drives the dynamic bias of the noise).
    pub fn measure(&mut self, pose: Pose, velocity: Vec3, dt: f64) -> AirSpeedReading {
        let z = pose.position.z;
        let air = pose.orientation.inverse().rotate(velocity);
        let ideal = air.x.signum() * 0.5 * atmosphere::density(z) * air.x * air.x;
        let ideal = if ideal.is_finite() { ideal } else { 0.0 };
        AirSpeedReading {
            diff_pressure: self.noise.apply(ideal / PA_PER_HPA, dt) * PA_PER_HPA,
            temperature: atmosphere::temperature(z),
        }
    }
}

impl Sensor for AirSpeedSensor {
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let state = self.mount.state(world)?;
        let r = self.measure(state.pose, state.linear_velocity, ctx.dt.as_secs_f64());
        let noise = (self.noise_params.kind == NoiseKind::Gaussian).then_some(&self.noise_params);
        out.publish(
            "",
            air_speed_message(ctx.now, &self.frame, r.diff_pressure, r.temperature, noise),
        );
        Ok(())
    }
}
