//! What one load shares: the [`LoadOptions`] it was asked for, and the [`Loader`] that the
//! readers of all its files share (the resource search path, the included files already read
//! and those being read, the warnings, the mesh solids computed for automatic inertia).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::error::SdfError;
use sim_world::input::Limits;
use sim_world::resources::ResourcePath;
use sim_world::{Light, Model, World};

/// How a document is loaded: where its includes are searched for.
///
/// The search path is `resource_paths`, then (unless `ignore_env`) `SIMCORE_RESOURCE_PATH`,
/// `GZ_SIM_RESOURCE_PATH` and `SDF_PATH`, then every `models/` directory at or above the
/// including file, then `fallback_resource_paths` (see [`sim_world::resources`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Directories searched first (the command line's `--resource-path`).
    pub resource_paths: Vec<PathBuf>,
    /// Directories searched last (the run manifest's `resource_paths`).
    pub fallback_resource_paths: Vec<PathBuf>,
    /// Leave the environment variables out of the search path.
    pub ignore_env: bool,
    /// The bounds on what the load may read and build (see [`Limits`]).
    pub limits: Limits,
}

impl LoadOptions {
    /// Options searching `dirs` first (and then the usual places).
    pub fn with_resource_paths(dirs: impl IntoIterator<Item = impl Into<PathBuf>>) -> LoadOptions {
        LoadOptions {
            resource_paths: dirs.into_iter().map(Into::into).collect(),
            ..LoadOptions::default()
        }
    }

    /// The resource search path these options describe.
    pub fn resource_path(&self) -> ResourcePath {
        if self.ignore_env {
            ResourcePath::new(&self.resource_paths, &[], &self.fallback_resource_paths)
        } else {
            ResourcePath::standard(&self.resource_paths, &self.fallback_resource_paths)
        }
    }
}

/// What one load shares between the readers of all its files: the search path, the files
/// already read (by canonical path), and the files being read (to detect cycles).
pub(crate) struct Loader {
    /// Where resources are searched for.
    pub resources: ResourcePath,
    /// Included files already read.
    pub cache: RefCell<HashMap<PathBuf, Rc<Cached>>>,
    /// The file each include URI resolved to, by (including directory, URI).
    pub resolved: RefCell<HashMap<(Option<PathBuf>, String), PathBuf>>,
    /// The canonical path of each included file (the key of `cache`).
    pub canonical: RefCell<HashMap<PathBuf, PathBuf>>,
    /// Canonical paths of the files being read, outermost first.
    pub stack: RefCell<Vec<PathBuf>>,
    /// How many included files were read from disk.
    pub reads: Cell<usize>,
    /// How many models includes expanded (every copy of a model and its nested models).
    pub expanded: Cell<usize>,
    /// How many links and collisions the copies includes made hold.
    pub copied: Cell<(usize, usize)>,
    /// The bounds of this load.
    pub limits: Limits,
    /// The directory of the file loaded (the working directory for text), or the source tree
    /// holding it ([`Limits::read_project`]), canonical: with the resource search path, where
    /// the world may read files from.
    pub world_dir: Option<PathBuf>,
    /// Whether `world_dir` is the source tree holding the world's directory.
    pub in_tree: bool,
    /// The names of the meshes in each mesh file whose `<submesh>` was checked (None: the file
    /// could not be read, which the world's build reports).
    pub mesh_names: RefCell<HashMap<PathBuf, Option<Vec<Vec<String>>>>>,
    /// The warnings of the load (problems that do not stop it), in the order found.
    pub warnings: RefCell<Vec<SdfError>>,
    /// The solid of each mesh shape used for automatic inertia (by file, submesh, centring
    /// and scale), so that a mesh many links use is read once per load.
    pub solids: RefCell<HashMap<String, sim_world::Solid>>,
}

impl Loader {
    /// A loader for `options`.
    pub fn new(options: &LoadOptions) -> Loader {
        Loader::with(options.resource_path(), options.limits.clone())
    }

    /// A loader for a model created in `world`: the world's resource search path and limits,
    /// and its directory (the working directory for a world read from text), so that the
    /// model reads files from where the world may.
    pub fn in_world(world: &World) -> Loader {
        let loader = Loader::with(world.resources.clone(), world.limits.clone());
        match world.span.file.as_deref() {
            Some(file) => loader.in_dir_of(file),
            None => loader,
        }
    }

    /// A loader searching `resources`, within `limits`, from the working directory.
    fn with(resources: ResourcePath, limits: Limits) -> Loader {
        Loader {
            resources,
            cache: RefCell::default(),
            resolved: RefCell::default(),
            canonical: RefCell::default(),
            stack: RefCell::default(),
            reads: Cell::new(0),
            expanded: Cell::new(0),
            copied: Cell::new((0, 0)),
            limits,
            world_dir: std::fs::canonicalize(".").ok(),
            in_tree: false,
            warnings: RefCell::default(),
            solids: RefCell::default(),
            mesh_names: RefCell::default(),
        }
    }

    /// A loader for `options` that has entered `file`, the file loaded (see
    /// [`Loader::enter`]), when there is one.
    pub fn entered(options: &LoadOptions, file: Option<&Path>) -> Loader {
        let mut loader = Loader::new(options);
        if let Some(f) = file {
            loader = loader.in_dir_of(f);
        }
        if let Some(f) = file {
            loader.enter(f);
        }
        loader
    }

    /// This loader, reading the world file at `path`: its directory is where the world may
    /// read files from (with the resource search path).
    pub fn in_dir_of(mut self, path: &Path) -> Loader {
        if let Some(dir) = world_dir(path) {
            let home = std::env::var_os("HOME").and_then(|h| std::fs::canonicalize(h).ok());
            let project = self
                .limits
                .read_project
                .then(|| project_root(&dir, home.as_deref()))
                .flatten();
            self.in_tree = project.is_some();
            self.world_dir = Some(project.unwrap_or(dir));
        }
        self
    }

    /// `path` (a file a world names, resolved) when the world may read it: it lies, symbolic
    /// links followed, in the world's directory (or the source tree holding it, see
    /// [`Limits::read_project`]) or in a directory of the resource search path seen from
    /// `base` (or [`Limits::read_anywhere`] is set); else why not.
    pub fn confine(&self, path: PathBuf, base: Option<&Path>) -> Result<PathBuf, String> {
        if self.limits.read_anywhere {
            return Ok(path);
        }
        let real = std::fs::canonicalize(&path).map_err(|e| e.to_string())?;
        let inside = self
            .world_dir
            .iter()
            .cloned()
            .chain(
                self.resources
                    .roots(base)
                    .iter()
                    .filter_map(|d| std::fs::canonicalize(d).ok()),
            )
            .any(|root| real.starts_with(&root));
        if inside {
            Ok(path)
        } else {
            Err(format!(
                "{} is outside the world's {} and the resource search path; a world \
                 reads files only from those",
                path.display(),
                match (&self.world_dir, self.in_tree) {
                    (Some(tree), true) => format!("directory, its source tree {}", tree.display()),
                    _ => "directory".to_string(),
                }
            ))
        }
    }

    /// Records a warning, once however often the same place is read.
    pub fn warn(&self, w: SdfError) {
        let mut warnings = self.warnings.borrow_mut();
        if !warnings
            .iter()
            .any(|o| o.file == w.file && o.line == w.line && o.message == w.message)
        {
            warnings.push(w);
        }
    }

    /// Marks the file at `path` (the loaded one) as being read, for cycle detection.
    pub fn enter(&self, path: &Path) {
        if let Ok(canonical) = std::fs::canonicalize(path) {
            self.stack.borrow_mut().push(canonical);
        }
    }

    /// How many included files were read from disk so far.
    #[cfg(test)]
    pub fn reads(&self) -> usize {
        self.reads.get()
    }
}

/// `path` when `world` may read it (its directory, its resource search path, its limits):
/// the confinement rules of `docs/untrusted-input.md` that a load applies to the files it reads.
pub fn confine_to_world(path: PathBuf, world: &World) -> Result<PathBuf, String> {
    let base = world.span.file.as_deref().and_then(|f| f.parent());
    Loader::in_world(world).confine(path, base)
}

/// The files that mark the top of a source tree: a version-control checkout or a ROS package.
pub(crate) const PROJECT_MARKERS: [&str; 4] = [".git", ".hg", ".svn", "package.xml"];

/// The source tree holding the (canonical) directory `dir`: the nearest directory at or above
/// it holding one of [`PROJECT_MARKERS`], short of the file system's root and of `home` (the
/// user's home directory, which a dotfiles repository can make a checkout).
pub(crate) fn project_root(dir: &Path, home: Option<&Path>) -> Option<PathBuf> {
    dir.ancestors()
        .take_while(|d| d.parent().is_some() && Some(*d) != home)
        .find(|d| {
            PROJECT_MARKERS
                .iter()
                .any(|m| std::fs::symlink_metadata(d.join(m)).is_ok())
        })
        .map(Path::to_path_buf)
}

/// The canonical directory of the file at `path`.
fn world_dir(path: &Path) -> Option<PathBuf> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::canonicalize(dir).ok()
}

/// An included file's text with SDF overrides written into it (see `overrides`), for one
/// `<include>`: read by that include instead of the file, and never cached.
pub(crate) struct Rewritten {
    /// The file's text, the overrides written.
    pub text: String,
    /// The rewritten texts of the includes inside it.
    pub includes: Rc<Rewrites>,
}

/// Rewritten included files, by the byte offset of their `<include>` in the including text.
pub(crate) type Rewrites = HashMap<usize, Rc<Rewritten>>;

/// An included file, as read (before the include's overrides). Kept in an `Rc`, so the size
/// of the variants does not matter.
#[allow(clippy::large_enum_variant)]
pub(super) enum Cached {
    /// A `<model>`.
    Model {
        /// The model (its own pose's `relative_to` is resolved in the including scope).
        model: Model,
    },
    /// A `<light>` or `<actor>` (the engine does not simulate actors).
    Other {
        /// `light` or `actor`.
        kind: &'static str,
        /// The light, posed as its file says.
        light: Option<Light>,
        /// The actor's name, for an actor.
        actor: Option<String>,
    },
}
