//! Plugin libraries: the search path, loading with abi_stable's checks, and the registry
//! that maps SDF sensor types and `<plugin filename name>` to factories.
//!
//! Every shared library (`.so`, `.dylib`, `.dll`) directly inside a search directory, hidden
//! files aside, is checked and opened: on ELF platforms it must first be a complete ELF shared
//! object exporting abi_stable's root module (read from its headers, before it is opened, so
//! that an unrelated library's constructors never run and a truncated copy cannot kill the
//! process, see `elf`); then it must export a simcore root module, built against a
//! `sim-plugin-api` of the 1.x ABI epoch no newer than the engine's ([`epoch`]), with layouts
//! abi_stable accepts. A library that fails is
//! *refused* with a one-line reason (the full abi_stable report goes to the debug log); it
//! never stops the others from loading. When two directories hold a library of the same file
//! name, the first on the path wins and the other is reported as shadowed, unless the first
//! is refused: a refused library shadows nothing, the next of its name serves. Libraries are
//! never unloaded. A search directory that others may write to (world-writable) is reported
//! ([`Registry::writable_by_others`]) with a warning.

//!
//! Loading a world's plugins: each planned sensor and `<plugin>` is resolved to a factory
//! ([`Registry::resolve_sensor`], [`Registry::resolve_system`]) and created from it
//! ([`Resolved::create_sensor`], [`Resolved::create_system`]); what goes wrong on the way is a
//! [`PluginProblem`]. Under Gazebo's rules ([`Registry::serve_plugin`]) a `<plugin>` may also
//! be served by a library whatever its file name says, or by the engine itself (gz-sim's
//! built-in systems), and what nothing serves may be skipped ([`Unserved`]).

mod candidate;
mod create;
mod elf;
pub mod epoch;
mod gazebo;
mod library;
mod listing;
mod registry;
mod route;
mod search_path;
mod serve;

pub use create::{PluginProblem, sensor_subject, system_subject};
pub use gazebo::{
    BUILT_IN, DEFAULT_SYSTEMS, GzSystem, apply_sensors_system, gz_system, not_applicable,
    silently_skipped,
};
pub use library::{FactoryDesc, PluginLibrary, Refusal, Refused, env_api_version, load_library};
pub use registry::{LookupError, Registry, Resolved};
pub use route::PluginRoute;
pub use search_path::{
    INSTALLED_PLUGINS, PluginPathError, SearchPath, check_library_name, normalize_library_name,
};
pub use serve::{Served, Unserved, refused_file_names};

#[cfg(test)]
mod routes_tests;
