//! The magnetometer: what it measures and how.
//!
//! From the sensor frame's world orientation `R_ws` (its link's orientation composed with the
//! sensor's `<pose>`) and the world magnetic field `B` (world frame, tesla, read again at
//! every update): `field = R_wsᵀ · B`, then per-axis noise, each axis with its own stream.

use crate::config::MagnetometerConfig;
use sim_plugin_api::prelude::*;
use sim_plugin_api::sdf::Element;
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::{NoiseChannel, SensorMount, axis_channels};

/// Noise stream numbers (with the sensor's seed) of the x, y and z components.
pub const FIELD_STREAMS: [u64; 3] = [0, 1, 2];

/// A magnetometer (SDF `<sensor type="magnetometer">`).
#[derive(Clone, Debug)]
pub struct MagnetometerSensor {
    mount: SensorMount,
    noise: [NoiseChannel; 3],
}

impl SdfSensor for MagnetometerSensor {
    /// Reads `<magnetometer>`.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        _world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let magnetometer = MagnetometerConfig::read(sdf)?;
        Ok(MagnetometerSensor::new(
            &magnetometer,
            SensorMount::of(config),
            config.seed,
        ))
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(String::new(), "Magnetometer")]
    }
}

impl MagnetometerSensor {
    /// Builds the sensor from a parsed configuration: `mount` is where it sits and `seed` the
    /// seed of its noise streams.
    pub fn new(magnetometer: &MagnetometerConfig, mount: SensorMount, seed: u64) -> Self {
        MagnetometerSensor {
            mount,
            noise: axis_channels(&magnetometer.noise, seed, FIELD_STREAMS),
        }
    }

    /// One reading for a sensor frame with world orientation `orientation` in the world field
    /// `field` (tesla); `dt` (s) is the time since the previous reading (0 for the first; it
    /// drives the dynamic bias of the noise).
    #[inline]
    pub fn measure(&mut self, orientation: Quat, field: Vec3, dt: f64) -> Vec3 {
        let b = orientation.normalized().inverse().rotate(field);
        let [nx, ny, nz] = &mut self.noise;
        Vec3::new(nx.apply(b.x, dt), ny.apply(b.y, dt), nz.apply(b.z, dt))
    }
}

impl Sensor for MagnetometerSensor {
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let state = self.mount.state(world)?;
        let field = self.measure(
            state.pose.orientation,
            world.magnetic_field(),
            ctx.dt.as_secs_f64(),
        );
        out.publish("", Payload::Magnetometer(field));
        Ok(())
    }
}
