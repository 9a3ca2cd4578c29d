//! # simcore-plugin-thermal-camera: the thermal camera of simcore
//!
//! Serves SDF `<sensor type="thermal_camera">` and `thermal`. Every update casts one ray per
//! pixel (one batch) from the near clip plane against the world's visuals; a pixel reads the
//! temperature of the visual hit (a `gz::sim::systems::Thermal` plugin's `<temperature>` on
//! it, from the engine's `simcore.visual_temperatures.v1` extension) or the ambient
//! temperature (the world's `<atmosphere><temperature>`), clamped to the
//! sensor's range and divided by its linear resolution, as a 16-bit (`L_INT16`) or 8-bit
//! (`L_INT8`) image. `camera_info` is published beside the image.
//!
//! - [`params`]: the sensor's `gz::sim::systems::ThermalSensor` parameters and bit depth;
//! - [`thermal`]: the sensor, [`ThermalCameraSensor`];
//! - [`sensor_system`]: the `gz::sim::systems::ThermalSensor` system, served so that the
//!   element inside a `<sensor>` loads and is checked (the camera reads it itself).
//!
//! The Thermal system on visuals needs no library: the engine reads it with the world, for
//! visuals of any source (world file, included and created models).

pub mod params;
pub mod sensor_system;
pub mod thermal;

#[cfg(test)]
mod tests;

pub use params::ThermalParams;
pub use sensor_system::ThermalSensorSystem;
pub use thermal::ThermalCameraSensor;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "thermal_camera" {
        serves: ["thermal_camera" => "image", "thermal" => "image"],
        description: "Thermal camera: 16- or 8-bit temperature images from per-pixel ray casts of visuals with Thermal temperatures",
        create: ThermalCameraSensor::create,
    }
    system "thermal_sensor" {
        serves: ["gz::sim::systems::ThermalSensor", "ignition::gazebo::systems::ThermalSensor"],
        description: "ThermalSensor: checks a thermal camera's <min_temp>, <max_temp> and <resolution> (the camera reads them)",
        create: simcore_plugin_common::gz::create::<ThermalSensorSystem>,
    }
}
