//! # simcore-plugin-force-torque: the force-torque sensor of simcore
//!
//! Serves SDF `<sensor type="force_torque">` inside a `<joint>`. Every update publishes one
//! [`Wrench`](sim_plugin_api::Wrench) message: the force and torque the joint transmits between
//! its links over the last step, as the child applies it on the parent (default) or the parent
//! on the child, with the torque about the sensor's origin, expressed in the child link, parent
//! link or sensor frame, with the Gazebo noise model.
//!
//! The logic is plain Rust: [`ForceTorqueSensor`] (in [`sensor`]), configured by
//! [`ForceTorqueConfig`] (in [`config`]). This file only exports it to the engine.

pub mod config;
pub mod sensor;

pub use config::{ForceTorqueConfig, Frame, MeasureDirection};
pub use sensor::ForceTorqueSensor;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "force_torque" {
        serves: ["force_torque" => "forcetorque"],
        enabled_by: ["gz::sim::systems::ForceTorque"],
        description: "Force-torque sensor on a joint: the wrench the joint transmits between its links, with Gazebo-style noise",
        create: ForceTorqueSensor::create,
    }
}
