//! Where a command's settings come from: the command line, the run manifest, the environment.

use super::{Failure, PathArgs, ResourceArgs};
use sim_core::manifest::Manifest;
use sim_core::plugins::{Registry, SearchPath};
use std::path::{Path, PathBuf};

/// What to run, and the manifest that says how.
pub struct Settings {
    /// The world file.
    pub world: PathBuf,
    /// The merged manifest (the run manifest's settings win over `--manifest`'s).
    pub manifest: Manifest,
}

/// The world to run (a world file, a run manifest naming one, or `--manifest`'s) and the
/// merged manifest.
pub fn settings(world_arg: Option<&Path>, paths: &PathArgs) -> Result<Settings, Failure> {
    let mut manifest = match &paths.manifest {
        Some(p) => Manifest::load(p).map_err(|e| Failure::Error(e.to_string()))?,
        None => Manifest::default(),
    };
    let world = match world_arg {
        Some(w) if w.extension().is_some_and(|e| e == "toml") => {
            let m = Manifest::load(w).map_err(|e| Failure::Error(e.to_string()))?;
            let world = m.world.clone().ok_or_else(|| {
                Failure::Error(format!(
                    "{}: the manifest names no world (add `world = \"path/to/world.sdf\"`)",
                    w.display()
                ))
            })?;
            manifest.seed = m.seed.or(manifest.seed);
            manifest.real_time_factor = m.real_time_factor.or(manifest.real_time_factor);
            manifest.threads = m.threads.or(manifest.threads);
            manifest.plugin_budget = m.plugin_budget.or(manifest.plugin_budget);
            manifest.max_message_size = m.max_message_size.or(manifest.max_message_size);
            manifest.strict |= m.strict;
            manifest.record = m.record.or(manifest.record);
            if !m.record_topics.is_empty() {
                manifest.record_topics = m.record_topics;
            }
            manifest.plugin_paths.extend(m.plugin_paths);
            manifest.resource_paths.extend(m.resource_paths);
            // As its other settings, the run manifest's routes win over the --manifest's.
            manifest.sensors.extend(m.sensors);
            manifest.plugins.extend(m.plugins);
            manifest.ros.remap.extend(m.ros.remap);
            world
        }
        Some(w) => w.to_path_buf(),
        None => manifest.world.clone().unwrap_or_default(),
    };
    Ok(Settings { world, manifest })
}

/// The load options of `check` and `inspect`: the command line's resource paths and those of
/// the manifest, if one is given (which must read).
pub fn file_options(
    resources: &ResourceArgs,
    manifest: Option<&Path>,
) -> Result<sim_core::sdf::LoadOptions, Failure> {
    let manifest = match manifest {
        Some(p) => Manifest::load(p).map_err(|e| Failure::Error(e.to_string()))?,
        None => Manifest::default(),
    };
    Ok(load_options(resources, &manifest))
}

/// How SDF files are loaded: `--resource-path`, the environment, then the manifest's paths.
pub fn load_options(resources: &ResourceArgs, manifest: &Manifest) -> sim_core::sdf::LoadOptions {
    sim_core::sdf::LoadOptions {
        resource_paths: resources.resource_path.clone(),
        fallback_resource_paths: manifest.resource_paths.clone(),
        ignore_env: false,
        limits: resources.limits(),
    }
}

/// The plugin libraries on the search path, routed by the manifest.
pub fn registry(paths: &PathArgs, manifest: &Manifest) -> Registry {
    Registry::discover(SearchPath::standard(
        &paths.plugin_path,
        &manifest.plugin_paths,
    ))
    .with_routes(manifest.sensors.clone(), manifest.plugins.clone())
}
