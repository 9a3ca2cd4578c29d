//! # simcore-plugin-triggered-publisher: gz-sim's TriggeredPublisher
//!
//! A world or model system serving `gz::sim::systems::TriggeredPublisher` (file name
//! `gz-sim-triggered-publisher-system`): when a message on its `<input>` topic matches its
//! `<match>` criteria (the whole message, or single fields, written in protobuf text format as
//! `gz topic` takes them), it publishes each `<output>` message, after `<delay_ms>` of sim
//! time. See the README.
//!
//! The logic is plain Rust: messages as flat field lists ([`fields`]), protobuf text format
//! ([`text`]) and the system ([`trigger`]). This file only exports it to the engine.

pub mod fields;
pub mod text;
pub mod trigger;

pub use fields::{Fields, MessageType};
pub use trigger::TriggeredPublisher;

sim_plugin_api::export_plugin! {
    system "triggered_publisher" {
        serves: ["gz::sim::systems::TriggeredPublisher"],
        description: "Publishes <output> messages when a message on the <input> topic matches",
        create: simcore_plugin_common::gz::create::<TriggeredPublisher>,
    }
}
