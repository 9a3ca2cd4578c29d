//! The altimeter: what it measures and how.
//!
//! From the sensor frame's world height `z` and vertical velocity `v_z` (its link's motion
//! carried to the sensor's `<pose>`, see [`simcore_plugin_common::frame`]):
//!
//! - `vertical_reference` = the sensor's world height when it was created (the world's
//!   initial state), or at its first update if its link could not be read then;
//! - `vertical_position` = `z − vertical_reference`, plus `<vertical_position>` noise;
//! - `vertical_velocity` = `v_z` (world frame), plus `<vertical_velocity>` noise.

use crate::config::AltimeterConfig;
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{abi_stable::std_types::RBox, msgs::Altimeter, prelude::*};
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::{NoiseChannel, SensorMount};

/// Noise stream number (with the sensor's seed) of the vertical position.
pub const VERTICAL_POSITION_STREAM: u64 = 0;
/// Noise stream number of the vertical velocity.
pub const VERTICAL_VELOCITY_STREAM: u64 = 1;

/// An altimeter (SDF `<sensor type="altimeter">`).
#[derive(Clone, Debug)]
pub struct AltimeterSensor {
    mount: SensorMount,
    /// The initial world height of the sensor, once known.
    reference: Option<f64>,
    position_noise: NoiseChannel,
    velocity_noise: NoiseChannel,
}

impl SdfSensor for AltimeterSensor {
    /// Reads `<altimeter>` and takes the sensor's reference height from the world.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let altimeter = AltimeterConfig::read(sdf)?;
        let mut sensor = AltimeterSensor::new(&altimeter, SensorMount::of(config), config.seed);
        // None while its link is not in the world (the first update takes it then).
        sensor.reference = sensor.mount.pose(world).ok().map(|p| p.position.z);
        Ok(sensor)
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(String::new(), "Altimeter")]
    }
}

impl AltimeterSensor {
    /// Builds the sensor from a parsed configuration: `mount` is where it sits and `seed` the
    /// seed of its noise streams. The reference height is taken at the first measurement.
    pub fn new(altimeter: &AltimeterConfig, mount: SensorMount, seed: u64) -> Self {
        AltimeterSensor {
            mount,
            reference: None,
            position_noise: NoiseChannel::new(
                altimeter.vertical_position_noise,
                seed,
                VERTICAL_POSITION_STREAM,
            ),
            velocity_noise: NoiseChannel::new(
                altimeter.vertical_velocity_noise,
                seed,
                VERTICAL_VELOCITY_STREAM,
            ),
        }
    }

    /// The reference height (the sensor's initial world height), once known.
    pub fn reference(&self) -> Option<f64> {
        self.reference
    }

    /// One reading for a sensor frame moving as `state` (world frame); `dt` (s) is the time
    /// since the previous reading (0 for the first; it drives the dynamic bias of the noise).
    #[inline]
    pub fn measure(&mut self, state: &KinematicState, dt: f64) -> Altimeter {
        let z = state.pose.position.z;
        let reference = *self.reference.get_or_insert(z);
        Altimeter {
            vertical_position: self.position_noise.apply(z - reference, dt),
            vertical_velocity: self.velocity_noise.apply(state.linear_velocity.z, dt),
            vertical_reference: reference,
        }
    }
}

impl Sensor for AltimeterSensor {
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let state = self.mount.state(world)?;
        let reading = self.measure(&state, ctx.dt.as_secs_f64());
        out.publish("", Payload::Altimeter(RBox::new(reading)));
        Ok(())
    }
}
