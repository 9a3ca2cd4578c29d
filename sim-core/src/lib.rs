//! # sim-core: the simcore engine
#![allow(missing_docs)]

pub mod sdf;
pub mod world;
pub mod physics;
pub mod transport;
pub mod plugins;
pub mod sensors;
pub mod systems;
pub mod runner;
pub mod manifest;
pub mod echo;
