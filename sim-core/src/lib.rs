//! # sim-core: the simcore engine
#![allow(missing_docs)]

pub mod sdf;
pub mod world;
