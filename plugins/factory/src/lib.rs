//! # simcore-plugin-factory: create and remove models while a world runs
//!
//! A world system serving `<plugin name="simcore::Factory">`. It offers the services
//! `/world/<w>/create` (an `EntityFactory` request: SDF text or a file, a name, a pose
//! relative to an entity, `allow_renaming`) and `/world/<w>/remove` (a model by scoped name or
//! by id). Creation is checked during the call through the engine's
//! [`ModelFactory`](sim_plugin_api::ModelFactory) extension, so the reply says at once
//! whether the model will exist (with its final name and pose) or why not (the SDF reader's
//! full diagnostic). See the README for the details and the differences from Gazebo.
//!
//! The logic is plain Rust: [`Factory`] (in [`factory`]). This file only exports it.

pub mod factory;

pub use factory::Factory;

sim_plugin_api::export_plugin! {
    system "factory" {
        serves: ["simcore::Factory"],
        description: "Services /world/<w>/create (EntityFactory -> Pose of the new model) and /world/<w>/remove (model name or id)",
        create: Factory::create,
    }
}
