//! # simcore-plugin-joint-state-publisher: gz-sim's JointStatePublisher
//!
//! A model system serving `gz::sim::systems::JointStatePublisher` (file name
//! `gz-sim-joint-state-publisher-system`): after every step it publishes the state of the
//! model's joints (all those declared in it, or the `<joint_name>`s listed) on
//! `/world/<world>/model/<model>/joint_state` (or `<topic>`), as a `gz.msgs.Model` message in
//! JSON ([`message`]). See the README.
//!
//! The logic is plain Rust: [`JointStatePublisher`] (in [`system`]), the message in
//! [`message`]. This file only exports it to the engine.

pub mod message;
pub mod system;

pub use message::{JOINT_STATE_SCHEMA, JointEntry, model_message};
pub use system::JointStatePublisher;

sim_plugin_api::export_plugin! {
    system "joint_state_publisher" {
        serves: ["gz::sim::systems::JointStatePublisher"],
        description: "Publishes the position, velocity and force of a model's joints every step",
        create: simcore_plugin_common::gz::create::<JointStatePublisher>,
    }
}
