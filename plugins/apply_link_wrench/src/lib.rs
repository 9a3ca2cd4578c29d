//! # simcore-plugin-apply-link-wrench: gz-sim's ApplyLinkWrench
//!
//! A world system serving `gz::sim::systems::ApplyLinkWrench` (file name
//! `gz-sim-apply-link-wrench-system`): wrenches on links (or a model's canonical link), for one
//! step from `/world/<world>/wrench` or every step from the SDF's `<persistent>` elements and
//! `/world/<world>/wrench/persistent`, until `/world/<world>/wrench/clear` names the entity.
//! Messages are `gz.msgs.EntityWrench` and `gz.msgs.Entity` in JSON ([`wrench`]). See the
//! README.
//!
//! The logic is plain Rust: [`ApplyLinkWrench`] (in [`system`]), the messages and the SDF in
//! [`wrench`]. This file only exports it to the engine.

pub mod system;
pub mod wrench;

pub use system::ApplyLinkWrench;
pub use wrench::{ENTITY_SCHEMA, ENTITY_WRENCH_SCHEMA, EntityRef, EntityWrench, TargetKind};

sim_plugin_api::export_plugin! {
    system "apply_link_wrench" {
        serves: ["gz::sim::systems::ApplyLinkWrench"],
        description: "One-step and persistent wrenches on links and models, from the SDF and from topics",
        create: simcore_plugin_common::gz::create::<ApplyLinkWrench>,
    }
}
