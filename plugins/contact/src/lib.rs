//! # simcore-plugin-contact: the contact sensor of simcore
//!
//! Serves SDF `<sensor type="contact">` in a link. Every update publishes one `Contacts`
//! message: the contact points of the last step that involve the collisions named in
//! `<contact><collision>` (each with the other collision, position, normal, depth and the
//! force on the named collision), an empty list when nothing touches them.
//!
//! The logic is plain Rust: [`ContactSensor`] (in [`sensor`]), configured by
//! [`ContactConfig`] (in [`config`]). This file only exports it to the engine.

pub mod config;
pub mod sensor;

pub use config::ContactConfig;
pub use sensor::ContactSensor;

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "contact" {
        serves: ["contact" => "contact"],
        enabled_by: ["gz::sim::systems::Contact"],
        description: "Contact sensor: the contact points and forces of chosen collisions of a link",
        create: ContactSensor::create,
    }
}
