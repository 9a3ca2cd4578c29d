//! The 1.x ABI epoch: which `sim-plugin-api` versions this engine loads, and the words for
//! those it does not.
//!
//! The epoch begins at sim-plugin-api 1.2.0: from that release on, every type that crosses
//! the boundary keeps its layout and `Payload` keeps its variants for all of 1.x, so an engine
//! built with 1.y loads every plugin built against 1.x for 1.2 <= x <= y (any patch). A plugin
//! built against a newer minor version than the engine's is refused: it may rely on what that
//! version added. Builds of 1.0 and 1.1 whose layouts happen to match still load (1.1.0 and
//! the late 1.0.0 builds do); the early 1.0.0 builds fail abi_stable's layout check and are
//! named as being from before the epoch.

use abi_stable::library::RootModule;
use abi_stable::sabi_types::{VersionNumber, VersionStrings};
use sim_plugin_api::PluginModule_Ref;

/// The first release of the 1.x ABI epoch, `(major, minor)`.
pub const EPOCH_START: (u32, u32) = (1, 2);

/// The `sim-plugin-api` version this engine was built with, as abi_stable records it.
pub fn engine_version() -> VersionNumber {
    let fallback = VersionNumber {
        major: sim_plugin_api::ABI_MAJOR,
        minor: 0,
        patch: 0,
    };
    VersionNumber::new(<PluginModule_Ref as RootModule>::VERSION_STRINGS).unwrap_or(fallback)
}

/// A library's recorded version, parsed (`None`: unreadable, left to abi_stable to report).
pub fn parse(v: VersionStrings) -> Option<VersionNumber> {
    VersionNumber::new(v).ok()
}

/// Whether a library of `version` is from before the epoch.
pub fn before_epoch(version: VersionNumber) -> bool {
    version.major == EPOCH_START.0 && version.minor < EPOCH_START.1
}

/// The refusal of a library built against a newer minor version than the engine's, or
/// `None` when its version may load (other majors are left to abi_stable's own check).
pub fn newer_than_engine(library: VersionNumber, engine: VersionNumber) -> Option<String> {
    (library.major == engine.major && library.minor > engine.minor).then(|| {
        format!(
            "built against sim-plugin-api {library}, newer than this engine's {engine}: it may \
             rely on what {}.{} added; use a simcore built with sim-plugin-api {}.{} or later, \
             or build the plugin against sim-plugin-api {}.{}",
            library.major, library.minor, library.major, library.minor, engine.major, engine.minor
        )
    })
}

/// The versions this engine promises to load: `1.2.0 to 1.5.x`.
pub fn loadable_range(engine: VersionNumber) -> String {
    format!(
        "{}.{}.0 to {}.{}.x",
        EPOCH_START.0, EPOCH_START.1, engine.major, engine.minor
    )
}

/// What this engine loads, for `simcore plugins`: the epoch's range, and the builds from
/// before it that load when their layouts match (no version refuses them, only abi_stable's
/// layout check): `1.2.0 to 1.5.x, and builds of 1.0 and 1.1 whose layouts match (1.1.0's
/// do)`.
pub fn loadable(engine: VersionNumber) -> String {
    let range = loadable_range(engine);
    if engine.major == EPOCH_START.0 {
        format!("{range}, and builds of 1.0 and 1.1 whose layouts match (1.1.0's do)")
    } else {
        range
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(major: u32, minor: u32, patch: u32) -> VersionNumber {
        VersionNumber {
            major,
            minor,
            patch,
        }
    }

    #[test]
    fn newer_minor_versions_are_refused_patches_and_older_ones_load() {
        let engine = v(1, 2, 0);
        assert!(newer_than_engine(v(1, 2, 7), engine).is_none());
        assert!(newer_than_engine(v(1, 1, 0), engine).is_none());
        assert!(
            newer_than_engine(v(2, 0, 0), engine).is_none(),
            "abi_stable's"
        );
        let r = newer_than_engine(v(1, 3, 0), engine).unwrap();
        assert!(
            r.contains("1.3.0") && r.contains("newer than this engine's 1.2.0"),
            "{r}"
        );
        assert!(r.contains("sim-plugin-api 1.2"), "{r}");
    }

    #[test]
    fn the_epoch_begins_at_1_2() {
        assert!(before_epoch(v(1, 0, 0)) && before_epoch(v(1, 1, 3)));
        assert!(!before_epoch(v(1, 2, 0)) && !before_epoch(v(1, 9, 0)));
        assert_eq!(loadable_range(v(1, 5, 2)), "1.2.0 to 1.5.x");
        // 1.0 and 1.1 are refused by their layouts, never by their version.
        assert!(newer_than_engine(v(1, 1, 0), v(1, 6, 0)).is_none());
        assert_eq!(
            loadable(v(1, 6, 0)),
            "1.2.0 to 1.6.x, and builds of 1.0 and 1.1 whose layouts match (1.1.0's do)"
        );
    }

    #[test]
    fn the_engine_version_is_the_plugin_api_it_links() {
        let e = engine_version();
        assert_eq!(e.to_string(), super::super::library::env_api_version());
        assert!(!before_epoch(e));
    }
}
