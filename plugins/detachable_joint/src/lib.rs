//! # simcore-plugin-detachable-joint: gz-sim's DetachableJoint
//!
//! A model system serving `gz::sim::systems::DetachableJoint` (file name
//! `gz-sim-detachable-joint-system`): it holds `<child_model>`'s `<child_link>` to this
//! model's `<parent_link>` by a fixed joint made at run time (the engine extension
//! `simcore.runtime_joints.v1`), releases it on `/model/<model>/detachable_joint/detach` and
//! makes it again on `.../attach`, publishing `attached` or `detached` on `.../state`. See
//! the README.
//!
//! The logic is plain Rust: [`DetachableJoint`] (in [`system`]). This file only exports it to
//! the engine.

pub mod system;

pub use system::DetachableJoint;

sim_plugin_api::export_plugin! {
    system "detachable_joint" {
        serves: ["gz::sim::systems::DetachableJoint"],
        description: "A fixed joint to another model's link, detached and attached again on topics",
        create: simcore_plugin_common::gz::create::<DetachableJoint>,
    }
}
