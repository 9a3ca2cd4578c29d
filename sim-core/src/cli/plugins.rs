//! `simcore plugins`: the plugin search path, the libraries found and what they serve.

use super::settings::{registry, settings};
use super::{Failure, Outcome, PathArgs};
use sim_plugin_api::PluginKind;
use std::io::Write;

/// Lists the plugin search path, the libraries on it with their factories, and the refused
/// and shadowed libraries.
pub fn plugins(paths: PathArgs) -> Result<Outcome, Failure> {
    let s = settings(None, &paths)?;
    let reg = registry(&paths, &s.manifest);
    let mut o = std::io::stdout().lock();
    let engine = sim_core::plugins::epoch::engine_version();
    let _ = writeln!(
        o,
        "plugin search path (engine: sim-plugin-api {engine}; loads plugins built against {}):",
        sim_core::plugins::epoch::loadable(engine)
    );
    for d in reg.search_path.dirs() {
        let _ = writeln!(
            o,
            "  {}{}",
            d.display(),
            if d.is_dir() { "" } else { "  (missing)" }
        );
    }
    let _ = writeln!(o);
    // Listing them opens every library (runs its code): a run opens only those it needs.
    let libraries = reg.libraries();
    if libraries.is_empty() {
        let _ = writeln!(o, "no plugin libraries found");
    }
    for l in libraries {
        let _ = writeln!(
            o,
            "{}  (built against sim-plugin-api {})",
            l.path.display(),
            l.abi_version
        );
        for f in &l.factories {
            let serves = if f.kind == PluginKind::SENSOR {
                "sensor types"
            } else {
                "plugin names"
            };
            let _ = writeln!(
                o,
                "  {} {} {}: {} {} — {}",
                f.kind.name(),
                f.name,
                f.version,
                serves,
                f.serves.join(", "),
                f.description
            );
        }
    }
    let refused = reg.refused();
    if !refused.is_empty() {
        let _ = writeln!(o, "\nrefused:");
        for r in &refused {
            let _ = writeln!(o, "  {}: {}", r.path.display(), r.reason);
        }
    }
    // A library refused once opened shadows nothing: those behind it were tried in its
    // place, and are not listed as shadowed by it.
    let shadowed: Vec<_> = reg
        .shadowed
        .iter()
        .filter(|(_, used)| !refused.iter().any(|r| r.path == *used))
        .collect();
    if !shadowed.is_empty() {
        let _ = writeln!(
            o,
            "\nshadowed (an earlier directory has a library of the same name):"
        );
        for (skipped, used) in shadowed {
            let _ = writeln!(o, "  {} (using {})", skipped.display(), used.display());
        }
    }
    Ok(Outcome::Success)
}
