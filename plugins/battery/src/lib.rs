//! # simcore-plugin-battery: a linear battery model
//!
//! A model system serving `<plugin name="simcore::LinearBattery">` and Gazebo's
//! `gz::sim::systems::LinearBatteryPlugin`. Every step it draws a constant power load plus the
//! mechanical power of the model's motor joints (|effort x velocity| over an efficiency),
//! integrates the charge with a low-pass filtered current, and computes the voltage as
//! `e0 + e1 (1 - q/c) - r i_smooth`; it publishes `BatteryState` on
//! `/model/<m>/battery/<name>/state`. When the charge reaches zero it tells the model's motor
//! systems to stop (a `Boolean(false)` on `/model/<m>/power/enabled`, which the diff drive
//! obeys) and can pause the model's sensors. See the README.
//!
//! The logic is plain Rust: the battery arithmetic in [`model`], the system in [`battery`],
//! the configuration in [`config`]. This file only exports it.

pub mod battery;
pub mod config;
pub mod model;

pub use battery::Battery;
pub use config::BatteryConfig;
pub use model::LinearBattery;

sim_plugin_api::export_plugin! {
    system "battery" {
        serves: ["simcore::LinearBattery", "gz::sim::systems::LinearBatteryPlugin"],
        description: "Linear battery: voltage from charge and smoothed current; constant load plus motor joint power; BatteryState on battery/<name>/state; stops motors when drained",
        create: simcore_plugin_common::gz::create::<Battery>,
    }
}
