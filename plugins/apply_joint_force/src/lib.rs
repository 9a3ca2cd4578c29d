//! # simcore-plugin-apply-joint-force: gz-sim's ApplyJointForce
//!
//! A model system serving `gz::sim::systems::ApplyJointForce` (file name
//! `gz-sim-apply-joint-force-system`): the force or torque last received as a `Double` on
//! `/model/<m>/joint/<j>/cmd_force` is applied to the joint's first axis every step. See the
//! README.
//!
//! The logic is plain Rust in [`apply`]; this file only exports it to the engine.

pub mod apply;

pub use apply::ApplyJointForce;

sim_plugin_api::export_plugin! {
    system "apply_joint_force" {
        serves: ["gz::sim::systems::ApplyJointForce"],
        description: "Applies the Double on /model/<m>/joint/<j>/cmd_force to the joint every step",
        create: simcore_plugin_common::gz::create::<ApplyJointForce>,
    }
}
