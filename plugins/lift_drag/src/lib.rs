//! # simcore-plugin-lift-drag: gz-sim's lift and drag
//!
//! A model system serving `gz::sim::systems::LiftDrag` (file name `gz-sim-lift-drag-system`):
//! every step it applies to one link the lift, drag and pitching moment of a flat wing or blade
//! from the air's velocity at its centre of pressure, with gz-sim's angle-of-attack, stall and
//! sweep model and an optional control surface joint. See the README.
//!
//! The logic is plain Rust: [`LiftDrag`] (in [`system`]), configured by [`LiftDragConfig`]
//! (in [`config`]), with the aerodynamics in [`aero`]. This file only exports it to the
//! engine.

pub mod aero;
pub mod config;
pub mod system;

pub use aero::{Coefficients, wrench};
pub use config::LiftDragConfig;
pub use system::LiftDrag;

sim_plugin_api::export_plugin! {
    system "lift_drag" {
        serves: ["gz::sim::systems::LiftDrag"],
        description: "Lift, drag and pitching moment on a wing link from its velocity at the centre of pressure",
        create: simcore_plugin_common::gz::create::<LiftDrag>,
    }
}
