//! # sim-core: the simcore engine
#![allow(missing_docs)]

pub mod echo;
pub mod manifest;
pub mod physics;
pub mod plugins;
pub mod runner;
pub mod sdf;
pub mod sensors;
pub mod systems;
pub mod transport;
pub mod world;
