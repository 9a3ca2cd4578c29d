//! The skeleton of a camera plugin: what differs from one camera to another is the frame it
//! renders and publishes and the caches it forgets on reset ([`CameraPlugin`]);
//! [`camera_sensor!`](crate::camera_sensor) implements the plugin API's `Sensor` on top, with
//! the `horizontal_fov` run-time parameter handled by the [`CameraCore`].

use crate::core::CameraCore;
use sim_plugin_api::{Outputs, PluginError, WorldRef};

/// What a camera plugin provides; [`camera_sensor!`](crate::camera_sensor) makes it a sensor.
pub trait CameraPlugin: Send + 'static {
    /// The shared camera state (its `horizontal_fov` is the run-time parameter).
    fn core_mut(&mut self) -> &mut CameraCore;
    /// Renders one frame from the camera's current pose and publishes it (the sensor's
    /// update).
    fn publish_frame(
        &mut self,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError>;
    /// Forgets what is kept between frames (sim time went backwards).
    fn forget(&mut self);
}

/// Implements `sim_plugin_api::Sensor` for a [`CameraPlugin`]: an update publishes a frame,
/// `set_parameter` goes to [`CameraCore::set_parameter`], a reset forgets the caches.
#[macro_export]
macro_rules! camera_sensor {
    ($sensor:ty) => {
        impl $crate::__api::Sensor for $sensor {
            fn update(
                &mut self,
                _ctx: &$crate::__api::UpdateContext,
                world: &$crate::__api::WorldRef<'_>,
                out: &mut $crate::__api::Outputs<'_>,
            ) -> Result<(), $crate::__api::PluginError> {
                $crate::CameraPlugin::publish_frame(self, world, out)
            }

            fn set_parameter(
                &mut self,
                key: &str,
                value: &str,
                _world: &$crate::__api::WorldRef<'_>,
            ) -> Result<(), $crate::__api::PluginError> {
                $crate::CameraPlugin::core_mut(self).set_parameter(key, value)
            }

            fn reset(
                &mut self,
                _world: &$crate::__api::WorldRef<'_>,
            ) -> Result<(), $crate::__api::PluginError> {
                $crate::CameraPlugin::forget(self);
                Ok(())
            }
        }
    };
}
