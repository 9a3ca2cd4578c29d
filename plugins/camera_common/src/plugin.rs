//! The skeleton of a camera plugin: what differs from one camera to another is the frame it
//! renders and publishes and the caches it forgets on reset ([`CameraPlugin`]);
//! [`camera_sensor!`](crate::camera_sensor) implements the plugin API's `Sensor` on top, with
//! the run-time parameters handled by the plugin's [`CameraCore`](crate::CameraCore).

use sim_plugin_api::{Outputs, PluginError, UpdateContext, WorldRef};

/// What a camera plugin provides; [`camera_sensor!`](crate::camera_sensor) makes it a sensor.
pub trait CameraPlugin: Send + 'static {
    /// Renders one frame from the camera's current pose and publishes it (the sensor's
    /// update at `ctx`).
    fn publish_frame(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError>;
    /// Forgets what is kept between frames (sim time went backwards).
    fn forget(&mut self);
}

/// Makes a [`CameraPlugin`] whose [`CameraCore`](crate::CameraCore) is the field `$core` a
/// sensor: implements `sim_plugin_api::Sensor` (an update publishes a frame,
/// `set_parameter` goes to [`CameraCore::set_parameter`](crate::CameraCore::set_parameter), a
/// reset forgets the caches) and gives the type a `core()` accessor.
#[macro_export]
macro_rules! camera_sensor {
    ($sensor:ty, $core:ident) => {
        impl $sensor {
            /// The shared camera state (configuration, model, rays).
            pub fn core(&self) -> &$crate::CameraCore {
                &self.$core
            }
        }

        impl $crate::__api::Sensor for $sensor {
            fn update(
                &mut self,
                ctx: &$crate::__api::UpdateContext,
                world: &$crate::__api::WorldRef<'_>,
                out: &mut $crate::__api::Outputs<'_>,
            ) -> Result<(), $crate::__api::PluginError> {
                $crate::CameraPlugin::publish_frame(self, ctx, world, out)
            }

            fn set_parameter(
                &mut self,
                key: &str,
                value: &str,
                _world: &$crate::__api::WorldRef<'_>,
            ) -> Result<(), $crate::__api::PluginError> {
                self.$core.set_parameter(key, value)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CameraConfig, CameraCore, RayStart};
    use sim_plugin_api::testing::{StaticWorld, run_update, sensor_config};
    use sim_plugin_api::{EntityId, ErrorCode, Sensor};

    /// A camera that counts its frames and resets.
    struct Counting {
        core: CameraCore,
        frames: u32,
        forgotten: u32,
    }

    impl CameraPlugin for Counting {
        fn publish_frame(
            &mut self,
            _ctx: &UpdateContext,
            _world: &WorldRef<'_>,
            _out: &mut Outputs<'_>,
        ) -> Result<(), PluginError> {
            self.frames += 1;
            Ok(())
        }

        fn forget(&mut self) {
            self.forgotten += 1;
        }
    }

    crate::camera_sensor!(Counting, core);

    #[test]
    fn the_sensor_publishes_frames_forgets_on_reset_and_zooms_its_core() {
        let config = sensor_config("m::l::cam", "camera", EntityId(2), "");
        let mut c = Counting {
            core: CameraCore::from_config(CameraConfig::default(), &config, RayStart::NearPlane),
            frames: 0,
            forgotten: 0,
        };
        let w = StaticWorld::default();
        w.with(|v| {
            run_update(&mut c, &v);
            run_update(&mut c, &v);
            c.reset(&v).unwrap();
            c.set_parameter("horizontal_fov", "0.5", &v).unwrap();
            let e = c.set_parameter("zoom", "2", &v).unwrap_err();
            assert_eq!(e.code, ErrorCode::UNSUPPORTED);
        });
        assert_eq!((c.frames, c.forgotten), (2, 1));
        assert_eq!(c.core().config.horizontal_fov, 0.5);
        assert_eq!(c.core().mount.scoped_name, "m::l::cam");
    }
}
