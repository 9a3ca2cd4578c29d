//! The registry of the libraries on the search path: which factory serves an SDF sensor
//! type or a `<plugin filename name>`, by the manifest's routes or search order.

use super::candidate::Candidate;
use super::library::{PluginLibrary, Refused, is_shared_library, list};
use super::search_path::PluginPathError;
use super::{FactoryDesc, PluginRoute, SearchPath, check_library_name, normalize_library_name};
use sim_plugin_api::PluginKind;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Everything found on the search path. Libraries are opened (their code run) only when a
/// lookup needs one: see [`Registry::discover`].
#[derive(Debug, Default)]
pub struct Registry {
    /// The directories searched, in order.
    pub search_path: SearchPath,
    /// The libraries that passed the checks made without opening them, in search order.
    candidates: Vec<Candidate>,
    /// Libraries refused without being opened, with reasons.
    refused_unopened: Vec<Refused>,
    /// Search directories that any user may write to (world-writable): whoever can write
    /// there chooses the code a run loads.
    pub writable_by_others: Vec<PathBuf>,
    /// Libraries behind one of the same name in an earlier directory: (skipped, the one
    /// used); one is used only when every earlier one of its name is refused once opened.
    pub shadowed: Vec<(PathBuf, PathBuf)>,
    /// Sensor type -> the library that serves it (the manifest's `[sensors]`).
    pub sensor_routes: BTreeMap<String, String>,
    /// `<plugin name>` -> the library (and factory) that serves it (the manifest's
    /// `[plugins]`).
    pub plugin_routes: BTreeMap<String, PluginRoute>,
}

/// Why no factory was found for a sensor type or a `<plugin>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// The library name is not a bare name.
    #[error(transparent)]
    BadName(#[from] PluginPathError),
    /// No loaded library has that name.
    #[error("no plugin library `{filename}` on the plugin search path [{search_path}]{refused}")]
    NoLibrary {
        /// The name looked for.
        filename: String,
        /// The search path, as shown.
        search_path: String,
        /// ` (a library of that name was refused: PATH: REASON)` (each one refused), or empty.
        refused: String,
    },
    /// The library the manifest routes a sensor type to does not serve it.
    #[error(
        "library `{library}` does not serve sensor type `{sensor_type}` (its sensor types: \
         {served}); {why}: name a library that does, or remove the entry"
    )]
    NotServed {
        /// The library.
        library: String,
        /// The sensor type.
        sensor_type: String,
        /// The sensor types it serves.
        served: String,
        /// Which manifest entry routes it there.
        why: String,
    },
    /// The library has no system factory of that name.
    #[error("library `{library}` has no system plugin named `{wanted}` (it provides: {provides})")]
    NoSystem {
        /// The library.
        library: String,
        /// The name wanted.
        wanted: String,
        /// The plugin names it serves.
        provides: String,
    },
    /// A lookup the manifest asked for failed (`why` names the manifest entry).
    #[error("{error}; {why}")]
    Routed {
        /// What went wrong.
        error: Box<LookupError>,
        /// Which manifest entry asked for it.
        why: String,
    },
}

impl LookupError {
    fn routed(self, why: String) -> Self {
        LookupError::Routed {
            error: Box::new(self),
            why,
        }
    }
}

/// Whether any user may add files to `dir`: it is world-writable (the sticky bit, as on
/// `/tmp`, keeps others from replacing a file, not from adding one).
fn writable_by_others(dir: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(dir).is_ok_and(|m| m.permissions().mode() & 0o002 != 0)
}

/// The factory chosen for a sensor or system.
#[derive(Clone, Copy, Debug)]
pub struct Resolved<'a> {
    /// Its library.
    pub library: &'a PluginLibrary,
    /// The factory.
    pub factory: &'a FactoryDesc,
}

impl Registry {
    /// Finds the libraries on `search_path`, opening none: each file's headers are checked
    /// and its factory list read (see `elf` and `listing`); a file that fails is refused
    /// without being opened. A library is opened when a lookup needs a factory it lists, or,
    /// when its file lists none, when a lookup in search order reaches it.
    pub fn discover(search_path: SearchPath) -> Registry {
        let mut reg = Registry {
            search_path,
            ..Default::default()
        };
        let mut seen: Vec<(String, PathBuf)> = Vec::new();
        let dirs = reg.search_path.dirs().to_vec();
        for dir in dirs {
            let Ok(read) = std::fs::read_dir(&dir) else {
                continue;
            };
            if writable_by_others(&dir) {
                tracing::warn!(
                    "plugin directory {} is writable by every user: anyone on this machine can                      choose the code simcore loads from it (chmod o-w it)",
                    dir.display()
                );
                reg.writable_by_others.push(dir.clone());
            }
            let mut files: Vec<PathBuf> = read
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && is_shared_library(p))
                .collect();
            files.sort();
            for path in files {
                let file_name = path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                // A file refused here shadows nothing: the next of its name is a candidate.
                // One that passes stays behind an earlier one of its name, used only when all
                // of those are refused once opened (e.g. built for another ABI major).
                match super::elf::examine(&path) {
                    Ok(listed) => {
                        match seen.iter().find(|(n, _)| *n == file_name) {
                            Some((_, first)) => reg.shadowed.push((path.clone(), first.clone())),
                            None => seen.push((file_name, path.clone())),
                        }
                        reg.candidates.push(Candidate::new(path, listed));
                    }
                    Err(reason) => reg.refused_unopened.push(Refused { path, reason }),
                }
            }
        }
        reg
    }

    /// Every library on the search path, opened (running its code) if it was not yet, in
    /// search order: what `simcore plugins` lists.
    pub fn libraries(&self) -> Vec<&PluginLibrary> {
        self.usable().filter_map(|c| c.open().ok()).collect()
    }

    /// Whether the candidate at `i` stands behind an earlier one of its file name that is not
    /// refused (so far: one not opened yet is not refused).
    fn behind(&self, i: usize) -> bool {
        let name = &self.candidates[i].file_name;
        self.candidates[..i]
            .iter()
            .any(|c| c.file_name == *name && c.refusal().is_none())
    }

    /// The candidates in search order, each skipped when it stands behind an earlier one of
    /// its name not refused; evaluated lazily, so that one refused on the way lets the next
    /// of its name through.
    fn usable(&self) -> impl Iterator<Item = &Candidate> {
        self.candidates
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.behind(*i))
            .map(|(_, c)| c)
    }

    /// The paths of the libraries the registry has refused so far, with reasons, as one
    /// clause for an error (`; refused libraries: PATH (REASON); ...`), or empty; those
    /// called `except` (already named) left out.
    pub fn refused_note(&self, except: Option<&str>) -> String {
        let except = except.map(normalize_library_name);
        let refused: Vec<String> = self
            .refused()
            .iter()
            .filter(|r| {
                except.as_ref().is_none_or(|e| {
                    r.path
                        .file_name()
                        .is_none_or(|f| normalize_library_name(&f.to_string_lossy()) != *e)
                })
            })
            .map(|r| format!("{} ({})", r.path.display(), r.reason))
            .collect();
        if refused.is_empty() {
            return String::new();
        }
        format!("; refused libraries: {}", refused.join("; "))
    }

    /// The libraries opened so far (by lookups, or [`Registry::libraries`]).
    pub fn opened(&self) -> Vec<&PluginLibrary> {
        self.candidates
            .iter()
            .filter_map(Candidate::loaded)
            .collect()
    }

    /// The libraries refused so far, with reasons: those refused without being opened, then
    /// those refused once opened.
    pub fn refused(&self) -> Vec<Refused> {
        let opened = self.candidates.iter().filter_map(|c| {
            c.refusal().map(|r| Refused {
                path: c.path.clone(),
                reason: r.0.clone(),
            })
        });
        self.refused_unopened
            .iter()
            .cloned()
            .chain(opened)
            .collect()
    }

    /// The first factory, in search order, for which `wanted` holds, opening the libraries
    /// that may have it on the way.
    pub(super) fn first_serving(
        &self,
        wanted: impl Fn(&FactoryDesc) -> bool + Copy,
    ) -> Option<Resolved<'_>> {
        self.usable().filter(|c| c.may_serve(wanted)).find_map(|c| {
            let library = c.open().ok()?;
            let factory = library.factories.iter().find(|f| wanted(f))?;
            Some(Resolved { library, factory })
        })
    }

    /// Sets which library serves a sensor type or a `<plugin name>` (the run manifest's
    /// `[sensors]` and `[plugins]` tables), instead of the first on the search path.
    pub fn with_routes(
        mut self,
        sensors: BTreeMap<String, String>,
        plugins: BTreeMap<String, PluginRoute>,
    ) -> Registry {
        self.sensor_routes = sensors;
        self.plugin_routes = plugins;
        self
    }

    /// The factory serving SDF sensor type `sensor_type`: the routed library's, else the first
    /// on the search path.
    pub fn sensor_factory(&self, sensor_type: &str) -> Option<Resolved<'_>> {
        self.routed_sensor_factory(sensor_type).ok().flatten()
    }

    /// As [`Registry::sensor_factory`], with an error when the manifest routes the type to a
    /// library that is not loaded or does not serve it (`Ok(None)`: no library serves it).
    pub fn routed_sensor_factory(
        &self,
        sensor_type: &str,
    ) -> Result<Option<Resolved<'_>>, LookupError> {
        let serves = |f: &FactoryDesc| {
            f.kind == PluginKind::SENSOR && f.serves.iter().any(|s| s == sensor_type)
        };
        if let Some(name) = self.sensor_routes.get(sensor_type) {
            let why = format!("the manifest's [sensors] names it for sensor type `{sensor_type}`");
            let library = self
                .library_named(name)
                .map_err(|e| e.routed(why.clone()))?;
            return match library.factories.iter().find(|f| serves(f)) {
                Some(factory) => Ok(Some(Resolved { library, factory })),
                None => Err(LookupError::NotServed {
                    library: library.file_name.clone(),
                    sensor_type: sensor_type.to_string(),
                    served: list(library, PluginKind::SENSOR),
                    why,
                }),
            };
        }
        Ok(self.first_serving(serves))
    }

    /// The library called `filename` (`foo`, `libfoo.so` and `foo-bar` for `libfoo_bar.so`
    /// all work), opened, or why there is none.
    fn library_named(&self, filename: &str) -> Result<&PluginLibrary, LookupError> {
        check_library_name(filename)?;
        let wanted = normalize_library_name(filename);
        // The first of that name that opens: one refused lets the next of its name through.
        self.candidates_named(filename)
            .find_map(|c| c.open().ok())
            .ok_or_else(|| {
                let refused: Vec<String> = self
                    .refused()
                    .iter()
                    .filter(|r| {
                        r.path
                            .file_name()
                            .is_some_and(|f| normalize_library_name(&f.to_string_lossy()) == wanted)
                    })
                    .map(|r| format!("{}: {}", r.path.display(), r.reason))
                    .collect();
                let refused = match refused.len() {
                    0 => String::new(),
                    1 => format!(" (a library of that name was refused: {})", refused[0]),
                    _ => format!(
                        " (the libraries of that name were refused: {})",
                        refused.join("; ")
                    ),
                };
                LookupError::NoLibrary {
                    filename: filename.to_string(),
                    search_path: self.search_path.to_string(),
                    refused,
                }
            })
    }

    /// The libraries on the search path called `filename` (`foo`, `libfoo.so` and `foo-bar`
    /// for `libfoo_bar.so` all match), in search order, none opened.
    fn candidates_named(&self, filename: &str) -> impl Iterator<Item = &Candidate> {
        let wanted = normalize_library_name(filename);
        self.candidates
            .iter()
            .filter(move |c| normalize_library_name(&c.file_name) == wanted)
    }

    /// The factory for `<plugin filename name>`: the library the manifest's `[plugins]` routes
    /// `name` to, else the one called `filename` on the search path (`foo`, `libfoo.so` and
    /// `foo-bar` for `libfoo_bar.so` all work); in it, the system factory that serves `name`
    /// (or its first system factory when `name` is empty or routed to the library alone).
    pub fn system_factory(&self, filename: &str, name: &str) -> Result<Resolved<'_>, LookupError> {
        let route = self.plugin_routes.get(name);
        let why = |e: LookupError| match route {
            Some(_) => e.routed(format!(
                "the manifest's [plugins] names it for plugin `{name}`"
            )),
            None => e,
        };
        let library = self
            .library_named(route.map_or(filename, |r| r.library()))
            .map_err(why)?;
        let systems = || {
            library
                .factories
                .iter()
                .filter(|f| f.kind == PluginKind::SYSTEM)
        };
        let wanted = route.and_then(PluginRoute::factory).unwrap_or(name);
        let by_name =
            || systems().find(|f| f.serves.iter().any(|s| s == wanted) || f.name == wanted);
        let factory = match route {
            _ if wanted.is_empty() => systems().next(),
            Some(PluginRoute::Library(_)) => by_name().or_else(|| systems().next()),
            _ => by_name(),
        };
        factory
            .map(|factory| Resolved { library, factory })
            .ok_or_else(|| {
                why(LookupError::NoSystem {
                    library: library.file_name.clone(),
                    wanted: wanted.to_string(),
                    provides: list(library, PluginKind::SYSTEM),
                })
            })
    }

    /// The suffix of the default topic of a sensor of type `sensor_type` (`/world/<w>/model/
    /// <m>/link/<l>/sensor/<s>/<suffix>`): the one the file of the library that serves the
    /// type declares (the library the manifest routes it to, else the first on the search path
    /// whose list serves it; read from the file, nothing opened), else Gazebo's for the type
    /// ([`sim_transport::sensor_topic_suffix`]: a library built before libraries declared
    /// theirs, or a type no library serves). Each part is made a valid topic part.
    pub fn sensor_topic_suffix(&self, sensor_type: &str) -> String {
        let serves = |f: &FactoryDesc| {
            f.kind == PluginKind::SENSOR && f.serves.iter().any(|s| s == sensor_type)
        };
        let routed = self
            .sensor_routes
            .get(sensor_type)
            .map(|name| self.candidates_named(name).next());
        let serving = match routed {
            Some(c) => c,
            None => self.usable().find(|c| c.may_serve(serves)),
        };
        let declared = serving.and_then(|c| {
            c.topics
                .iter()
                .find(|(t, _)| t == sensor_type)
                .map(|(_, s)| s.as_str())
        });
        match declared {
            Some(suffix) => suffix
                .split('/')
                .filter(|p| !p.is_empty())
                .map(sim_transport::sanitize_topic_part)
                .collect::<Vec<_>>()
                .join("/"),
            None => sim_transport::sensor_topic_suffix(sensor_type).to_string(),
        }
    }

    /// The file name of the first usable library on the search path whose sensors stand for
    /// the gz-sim system `class` (`gz::sim::systems::Imu`), as its file declares
    /// (`enabled_by` in `export_plugin!`; read from the file, nothing opened).
    pub fn enabling_library(&self, class: &str) -> Option<&str> {
        self.usable()
            .find(|c| c.enablers.iter().any(|e| e == class))
            .map(|c| c.file_name.as_str())
    }

    /// Every SDF sensor type some library serves, sorted: by the factories of the libraries
    /// opened, and the lists in the files of those not opened.
    pub fn served_sensor_types(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .usable()
            .flat_map(|c| match (c.loaded(), c.refusal()) {
                (Some(l), _) => l.factories.as_slice(),
                (None, Some(_)) => &[],
                (None, None) => c.listed.as_deref().unwrap_or(&[]),
            })
            .filter(|f| f.kind == PluginKind::SENSOR)
            .flat_map(|f| f.serves.iter().cloned())
            .collect();
        v.sort();
        v.dedup();
        v
    }
}
