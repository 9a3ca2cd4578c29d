//! # sim-engine: the simcore engine
//!
//! Loads the plugins a world names ([`plugins`], with the run manifest of [`manifest`]) and
//! runs the world ([`runner`]): each iteration updates the due sensors ([`sensors`]) in
//! parallel against the read-only world, publishes their outputs on the topic bus
//! (`sim-transport`) in a deterministic order, runs the system plugins' hooks ([`systems`])
//! and steps the physics (`sim-physics`); what each plugin declares it publishes ([`outputs`])
//! makes the list of what a run serves ([`runner::Served`]). Every call into plugin code is guarded
//! ([`guard`]): a time budget, a size limit, warnings that do not flood. The run is driven
//! through one run control ([`runner::Simulation`]): play, pause, step, reset, entity state,
//! spawn and delete, for the command line, the Zenoh services and in-process callers alike.

pub mod guard;
pub mod manifest;
pub mod outputs;
pub mod plugins;
pub mod runner;
pub mod sensors;
pub mod systems;
