//! The TOML run manifest: which world to run and how.
//!
//! ```toml
//! world = "worlds/imu_drop.sdf"     # relative to this file
//! seed = 7                          # run seed (default 0)
//! real_time_factor = 0              # 0: as fast as possible (default: the world's)
//! threads = 2                       # sensor worker threads (default 1)
//! strict = true                     # a sensor or plugin no library serves is an error
//! plugin_paths = ["plugins"]        # extra plugin directories, relative to this file
//! resource_paths = ["models"]       # where included models are searched last
//! record = "run.mcap"               # record the run to MCAP (relative to this file)
//! record_topics = ["/scan"]         # only these bus topics (default: every topic)
//! plugin_budget = 0.5               # seconds one plugin hook may take before a warning (1)
//! max_message_size = 1048576        # the largest message a plugin may publish (64 MiB)
//!
//! [sensors]                         # SDF sensor type -> the plugin library serving it
//! lidar = "simcore_plugin_lidar"    #   (default: the first library on the path that does)
//!
//! [plugins]                         # <plugin name="..."> -> the library (and factory)
//! "gz::sim::systems::DiffDrive" = "simcore_plugin_diff_drive"
//! "my::Odometry" = { library = "simcore_plugin_diff_drive", name = "simcore::DiffDrive" }
//!
//! [[ros.remap]]                     # the ROS name a topic has outside (default: the rule
//! from = "/world/w/model/r/link/base/sensor/lidar/scan"   # of `ros::names`)
//! to = "/scan"
//! ```
//!
//! Unknown keys are errors (a typo must not be silently ignored).

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use crate::plugins::PluginRoute;
use crate::plugins::check_library_name;

/// A manifest as written.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The world file.
    pub world: Option<PathBuf>,
    /// Run seed.
    pub seed: Option<u64>,
    /// Real-time factor.
    pub real_time_factor: Option<f64>,
    /// Sensor worker threads.
    pub threads: Option<usize>,
    /// Whether a sensor or plugin no library serves stops the load (as `--strict`) instead
    /// of being skipped with a warning.
    #[serde(default)]
    pub strict: bool,
    /// Plugin directories.
    #[serde(default)]
    pub plugin_paths: Vec<PathBuf>,
    /// Resource directories (`model://` URIs, included models), searched after the command
    /// line, the environment and the `models/` directories near the world file.
    #[serde(default)]
    pub resource_paths: Vec<PathBuf>,
    /// The MCAP file to record the run to (as `--record`).
    pub record: Option<PathBuf>,
    /// The bus topics to record (as `--record-topic`; empty: every topic).
    #[serde(default)]
    pub record_topics: Vec<String>,
    /// The wall time one plugin hook may take before it is named in a warning, in seconds
    /// (as `--plugin-budget`).
    pub plugin_budget: Option<f64>,
    /// The largest message a plugin may publish, in bytes (as `--max-message-size`).
    pub max_message_size: Option<u64>,
    /// `[sensors]`: SDF sensor type -> the plugin library that serves it (by bare name).
    #[serde(default)]
    pub sensors: BTreeMap<String, String>,
    /// `[plugins]`: `<plugin name>` -> the plugin library (and factory) that serves it,
    /// whatever the plugin's `filename` says.
    #[serde(default)]
    pub plugins: BTreeMap<String, PluginRoute>,
    /// `[ros]`: how the run looks to ROS 2 clients.
    #[serde(default)]
    pub ros: RosSettings,
}

/// The `[ros]` table of a manifest.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RosSettings {
    /// `[[ros.remap]]`: simcore topic -> ROS name, in order.
    #[serde(default)]
    pub remap: Vec<Remap>,
}

/// One `[[ros.remap]]` entry.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Remap {
    /// The simcore topic.
    pub from: String,
    /// Its ROS name.
    pub to: String,
}

/// A manifest that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file could not be read.
    #[error("{path}: cannot read the manifest: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The TOML is invalid.
    #[error("{path}:{line}:{column}: invalid manifest: {message}")]
    Toml {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A value is out of range.
    #[error("{path}: invalid manifest: {message}")]
    Value {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl Manifest {
    /// Reads a manifest; relative paths in it are resolved against its directory.
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut m: Manifest = toml::from_str(&text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|s| {
                    let before = &text[..s.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                    (line, column)
                })
                .unwrap_or((1, 1));
            ManifestError::Toml {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().to_string(),
            }
        })?;
        if let Some(r) = m.real_time_factor
            && !(r.is_finite() && r >= 0.0)
        {
            return Err(ManifestError::Value {
                path: path.to_path_buf(),
                message: format!("real_time_factor must be >= 0, got {r}"),
            });
        }
        if let Some(b) = m.plugin_budget
            && !(b.is_finite() && b > 0.0)
        {
            return Err(ManifestError::Value {
                path: path.to_path_buf(),
                message: format!("plugin_budget must be a positive number of seconds, got {b}"),
            });
        }
        if m.max_message_size == Some(0) {
            return Err(ManifestError::Value {
                path: path.to_path_buf(),
                message: "max_message_size must be at least 1 byte".into(),
            });
        }
        if m.threads == Some(0) {
            return Err(ManifestError::Value {
                path: path.to_path_buf(),
                message: "threads must be at least 1".into(),
            });
        }
        let libraries = m
            .sensors
            .iter()
            .map(|(k, l)| (format!("[sensors] {k}"), l.as_str()))
            .chain(
                m.plugins
                    .iter()
                    .map(|(k, r)| (format!("[plugins] \"{k}\""), r.library())),
            );
        for (key, library) in libraries {
            if let Err(e) = check_library_name(library) {
                return Err(ManifestError::Value {
                    path: path.to_path_buf(),
                    message: format!(
                        "{key}: library `{library}` is not allowed: {}; name it by bare name \
                         (e.g. `simcore_plugin_lidar`) and put its directory in plugin_paths",
                        e.reason
                    ),
                });
            }
        }
        let base = path.parent().unwrap_or(Path::new("."));
        m.world = m.world.map(|w| base.join(w));
        m.record = m.record.map(|r| base.join(r));
        m.plugin_paths = m.plugin_paths.iter().map(|p| base.join(p)).collect();
        m.resource_paths = m.resource_paths.iter().map(|p| base.join(p)).collect();
        Ok(m)
    }
}

#[cfg(test)]
mod routes_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_resolves_paths() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.toml");
        std::fs::write(
            &p,
            "world = \"w.sdf\"\nseed = 3\nplugin_paths = [\"libs\"]\nresource_paths = [\"models\", \"/abs\"]\nrecord = \"out/run.mcap\"\nrecord_topics = [\"/scan\"]\n",
        )
        .unwrap();
        let m = Manifest::load(&p).unwrap();
        assert_eq!(m.world, Some(dir.path().join("w.sdf")));
        assert_eq!(m.seed, Some(3));
        assert_eq!(m.plugin_paths, vec![dir.path().join("libs")]);
        assert_eq!(m.record, Some(dir.path().join("out/run.mcap")));
        assert_eq!(m.record_topics, vec!["/scan".to_string()]);
        assert_eq!(
            m.resource_paths,
            vec![dir.path().join("models"), PathBuf::from("/abs")]
        );
    }

    #[test]
    fn unknown_key_names_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.toml");
        std::fs::write(&p, "seed = 3\nwrold = \"w.sdf\"\n").unwrap();
        let e = Manifest::load(&p).unwrap_err().to_string();
        assert!(e.contains(":2:1:") && e.contains("wrold"), "{e}");
    }
}
