//! Opening one plugin library: abi_stable's checks, its factories, and the one-line reason
//! a library is refused.

use super::epoch;
use abi_stable::library::RootModule;
use abi_stable::library::{LibraryError, lib_header_from_path};
use abi_stable::sabi_types::VersionNumber;
use sim_plugin_api::{FactoryInfo, PluginKind, PluginModule_Ref};
use std::path::{Path, PathBuf};

/// One factory of a loaded library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactoryDesc {
    /// Factory name.
    pub name: String,
    /// Sensor or system.
    pub kind: PluginKind,
    /// SDF sensor types or plugin names served.
    pub serves: Vec<String>,
    /// Factory version.
    pub version: String,
    /// One-line description.
    pub description: String,
}

impl FactoryDesc {
    pub(super) fn from_info(info: &FactoryInfo) -> Self {
        FactoryDesc {
            name: info.name.to_string(),
            kind: info.kind,
            serves: info.serves.iter().map(|s| s.to_string()).collect(),
            version: info.version.to_string(),
            description: info.description.to_string(),
        }
    }
}

/// A library that loaded.
pub struct PluginLibrary {
    /// Where it is.
    pub path: PathBuf,
    /// Its file name.
    pub file_name: String,
    /// The exact `sim-plugin-api` version it was built against, as its library header
    /// records it (`1.2.0`).
    pub abi_version: String,
    /// Its factories.
    pub factories: Vec<FactoryDesc>,
    /// The root module.
    pub module: PluginModule_Ref,
}

impl std::fmt::Debug for PluginLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginLibrary")
            .field("path", &self.path)
            .field("abi_version", &self.abi_version)
            .field("factories", &self.factories)
            .finish()
    }
}

/// A library that was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// Where it is.
    pub path: PathBuf,
    /// One line: why.
    pub reason: String,
}

/// Why a library was refused: one line for the user.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

/// What the factories of `kind` in `library` serve, comma-separated ("none" if nothing).
pub(super) fn list(library: &PluginLibrary, kind: PluginKind) -> String {
    let served: Vec<&str> = library
        .factories
        .iter()
        .filter(|f| f.kind == kind)
        .flat_map(|f| f.serves.iter().map(String::as_str))
        .collect();
    if served.is_empty() {
        "none".to_string()
    } else {
        served.join(", ")
    }
}

/// Whether `p` names a shared library to consider: its extension is this platform's, and
/// it is not hidden (a name starting with `.` is never opened).
pub(super) fn is_shared_library(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e == std::env::consts::DLL_EXTENSION)
        && p.file_name()
            .is_some_and(|n| !n.to_string_lossy().starts_with('.'))
}

/// Opens one library and checks it. The error is a one-line reason.
///
/// The version it was built against is checked first (a newer minor version than the
/// engine's is refused, see [`super::epoch`]), then abi_stable's major version and layout
/// checks run. Before any of that, on ELF platforms, the file must be a complete ELF shared
/// object exporting abi_stable's root module: any other file (a truncated copy, an
/// unrelated library) is refused without being opened, so none of its code runs.
pub fn load_library(path: &Path) -> Result<PluginLibrary, Refusal> {
    let listed = super::elf::examine(path).map_err(Refusal)?;
    open_library(path, listed.as_ref().map(|l| l.factories.as_slice()))
}

/// Opens a library that [`super::elf::examine`] let through, which listed `listed` in its
/// file (refused when what it reports differs).
pub(super) fn open_library(
    path: &Path,
    listed: Option<&[FactoryDesc]>,
) -> Result<PluginLibrary, Refusal> {
    let header = lib_header_from_path(path).map_err(|e| Refusal(describe(&e, None)))?;
    let abi_version = header.version_strings().to_string();
    let built = epoch::parse(header.version_strings());
    if let Some(reason) = built.and_then(|v| epoch::newer_than_engine(v, epoch::engine_version())) {
        return Err(Refusal(reason));
    }
    let module = header
        .init_root_module::<PluginModule_Ref>()
        .map_err(|e| Refusal(describe(&e, built)))?;
    let factories: Vec<FactoryDesc> = (module.factories())()
        .iter()
        .map(FactoryDesc::from_info)
        .collect();
    if let Some(reason) = listed.and_then(|l| super::listing::mismatch(l, &factories)) {
        return Err(Refusal(reason));
    }
    Ok(PluginLibrary {
        file_name: path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
        path: path.to_path_buf(),
        abi_version,
        factories,
        module,
    })
}

/// One line for the user; the full report (abi_stable's layout errors run to thousands of
/// lines) goes to the debug log. `built` is the version the library says it was built
/// against, when its header could be read.
fn describe(e: &LibraryError, built: Option<VersionNumber>) -> String {
    let engine = env_api_version();
    let line = match e {
        LibraryError::OpenError { err, .. } => {
            let text = err.to_string();
            format!("cannot be opened: {}", text.lines().next().unwrap_or("unknown error"))
        }
        LibraryError::GetSymbolError { .. } => "not a simcore plugin: it exports no abi_stable root module \
             (plugins are built with sim_plugin_api::export_plugin!)"
            .to_string(),
        LibraryError::InvalidAbiHeader(_) => {
            "built with an incompatible version of abi_stable; rebuild it against this engine's sim-plugin-api"
                .to_string()
        }
        LibraryError::IncompatibleVersionNumber { actual_version, .. } => format!(
            "built against sim-plugin-api {actual_version}, but this engine speaks ABI {}.x \
             (sim-plugin-api {engine}); rebuild the plugin against sim-plugin-api {}.x",
            sim_plugin_api::ABI_MAJOR,
            sim_plugin_api::ABI_MAJOR
        ),
        LibraryError::AbiInstability(report) => layout_mismatch(&report.to_string(), built, &engine),
        LibraryError::RootModule { err, .. } => format!("its root module failed while loading: {err}"),
        LibraryError::ParseVersionError(err) => format!("its version string is unreadable: {err}"),
        other => other.to_string().lines().next().unwrap_or("refused").to_string(),
    };
    tracing::debug!(target: "simcore::plugins", "library refused: {line}\n{e}");
    line
}

/// The reason for a library whose layouts abi_stable refused, from its report.
fn layout_mismatch(report: &str, built: Option<VersionNumber>, engine: &str) -> String {
    let full = "run with SIMCORE_LOG=debug for abi_stable's full report";
    let (sy, sm) = epoch::EPOCH_START;
    match built {
        Some(v) if epoch::before_epoch(v) => format!(
            "built against sim-plugin-api {v}, from before the 1.x ABI epoch (which begins at \
             {sy}.{sm}.0), and its layouts differ from this engine's ({engine}): rebuild it \
             against sim-plugin-api {sy}.{sm} or later ({full})"
        ),
        _ if report.contains("too many variants") => format!(
            "built against sim-plugin-api {}, but it knows fewer message types (Payload \
             variants) than this engine ({engine}); message types are never added within 1.x, \
             so one of the two was built against a modified sim-plugin-api: rebuild it \
             against a released one ({full})",
            built.map_or_else(|| "?".to_string(), |v| v.to_string())
        ),
        _ => format!(
            "built against sim-plugin-api {}, but its plugin ABI layout does not match this \
             engine's ({engine}): it was built against a modified sim-plugin-api; rebuild it \
             against a released one ({full})",
            built.map_or_else(|| "?".to_string(), |v| v.to_string())
        ),
    }
}

/// The `sim-plugin-api` version this engine was built with.
pub fn env_api_version() -> String {
    let v = <PluginModule_Ref as RootModule>::VERSION_STRINGS;
    v.version.to_string()
}
