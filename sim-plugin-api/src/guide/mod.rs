//! # The plugin author's guide
//!
//! A plugin is a `cdylib` crate that depends on `sim-plugin-api` only and exports its
//! factories with [`export_plugin!`](crate::export_plugin). These pages take a plugin from
//! the first line to a release; every example on them is compiled and run by the crate's
//! tests.
//!
//! 1. [`sensor`]: a sensor plugin (a one-ray sonar), from `Cargo.toml` to the world that runs it;
//! 2. [`system`]: a system plugin (a model plugin that follows a command and reports);
//! 3. [`topics`]: where messages go: the topic rules of sensors and systems, and XML namespaces
//!    in a plugin's element;
//! 4. [`parameters`]: reading the element with the typed API ([`crate::sdf`]): paths, types,
//!    defaults, units, errors with file and line;
//! 5. [`noise`]: the `<noise>` element and the Gazebo noise model;
//! 6. [`testing`]: testing a plugin without the engine, against
//!    [`testing::StaticWorld`](crate::testing::StaticWorld);
//! 7. [`versioning`]: which engines load a plugin, and what a new release of this crate may
//!    change.
//!
//! `simcore new-plugin NAME --sensor|--system [--dir DIR]` writes a crate that follows these
//! pages (a plugin, its unit tests, a world that runs it and a README).

pub mod sensor {
    #![doc = include_str!("sensor.md")]
}

pub mod system {
    #![doc = include_str!("system.md")]
}

pub mod topics {
    #![doc = include_str!("topics.md")]
}

pub mod parameters {
    #![doc = include_str!("parameters.md")]
}

pub mod noise {
    #![doc = include_str!("noise.md")]
}

pub mod testing {
    #![doc = include_str!("testing.md")]
}

pub mod versioning {
    #![doc = include_str!("versioning.md")]
}
