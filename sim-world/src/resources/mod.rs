//! Where the files a world refers to are found: `model://` URIs, plain model names, relative
//! and `file://` paths, and model directories described by a `model.config`.
//!
//! The resource search path is, in order:
//!
//! 1. directories given by the caller (`--resource-path`, [`ResourcePath::new`]'s `first`);
//! 2. the colon-separated directories of `SIMCORE_RESOURCE_PATH`, then `GZ_SIM_RESOURCE_PATH`,
//!    then `SDF_PATH` (the variables Gazebo and libsdformat read);
//! 3. every directory named `models` in the directory of the file that refers to the resource
//!    or in one of its ancestors, nearest first;
//! 4. the run manifest's `resource_paths`.
//!
//! A `model://NAME/rest` URI is looked up as `DIR/NAME/rest` in each directory of that path. A
//! `package://NAME/rest` URI (ROS packages: the ros_gz demos and project templates write them)
//! is read as Gazebo reads it, as `model://NAME/rest`, and then, as ROS 2 finds a package's
//! installed files, as `PREFIX/share/NAME/rest` for each `PREFIX` of `AMENT_PREFIX_PATH` (see
//! [`ResourcePath::with_packages`]); those `share` directories are then part of the search
//! path, for reading as for confinement. A
//! plain or `file://` relative path is looked up first beside the file that names it, then in
//! each directory of the path; an absolute path is used as it is. `http://` and `https://`
//! URIs (Gazebo Fuel) are never fetched: they are refused with a message saying how to
//! download the model and where to put it.
//!
//! [`ResourcePath::resolve`] finds any resource (the SDF reader uses it for `<include>`, and it
//! serves meshes and height maps just as well); [`model_file`] (in `model_config`) turns a
//! model directory into the SDF file its `model.config` names.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

mod model_config;

pub use model_config::{ModelConfigError, ModelConfigWarning, ModelFile, model_file};

/// The environment variables read for resource directories, in search order.
pub const ENV_VARS: [&str; 3] = ["SIMCORE_RESOURCE_PATH", "GZ_SIM_RESOURCE_PATH", "SDF_PATH"];

/// The environment variable listing the install prefixes of ROS 2 packages (`package://`
/// URIs are also looked up in `PREFIX/share`).
pub const PACKAGE_ENV_VAR: &str = "AMENT_PREFIX_PATH";

/// The directories searched for resources (see the [module documentation](self)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourcePath {
    /// Searched first: the caller's directories, then those of the environment variables.
    first: Vec<PathBuf>,
    /// Whether `models/` directories at or above the referring file are searched.
    models_dirs: bool,
    /// Searched last (the manifest's `resource_paths`).
    last: Vec<PathBuf>,
    /// The `share` directories of the ROS 2 install prefixes, for `package://` URIs.
    packages: Vec<PathBuf>,
}

impl ResourcePath {
    /// A search path of `first` (e.g. `--resource-path`), the directories listed in `env` (the
    /// values of [`ENV_VARS`], in that order; None for an unset variable), the `models/`
    /// directories near the referring file, then `last` (e.g. the manifest's).
    pub fn new(first: &[PathBuf], env: &[Option<&OsStr>], last: &[PathBuf]) -> ResourcePath {
        let mut dirs = first.to_vec();
        for value in env.iter().flatten() {
            dirs.extend(std::env::split_paths(value).filter(|p| !p.as_os_str().is_empty()));
        }
        ResourcePath {
            first: dirs,
            models_dirs: true,
            last: last.to_vec(),
            packages: Vec::new(),
        }
    }

    /// This search path, where `package://NAME/rest` is also looked up as
    /// `PREFIX/share/NAME/rest` for each install prefix in `prefixes` (the colon-separated value
    /// of [`PACKAGE_ENV_VAR`]), after the directories of the path.
    pub fn with_packages(mut self, prefixes: Option<&OsStr>) -> ResourcePath {
        self.packages = prefixes
            .map(|v| {
                std::env::split_paths(v)
                    .filter(|p| !p.as_os_str().is_empty())
                    .map(|p| p.join("share"))
                    .collect()
            })
            .unwrap_or_default();
        self
    }

    /// [`ResourcePath::new`] with the environment variables of this process, ROS 2's install
    /// prefixes included ([`ResourcePath::with_packages`]).
    pub fn standard(first: &[PathBuf], last: &[PathBuf]) -> ResourcePath {
        let values: Vec<Option<std::ffi::OsString>> =
            ENV_VARS.iter().map(std::env::var_os).collect();
        let env: Vec<Option<&OsStr>> = values.iter().map(|v| v.as_deref()).collect();
        ResourcePath::new(first, &env, last)
            .with_packages(std::env::var_os(PACKAGE_ENV_VAR).as_deref())
    }

    /// The directories a world may read resources from, for a reference made in a file in
    /// directory `base`: [`ResourcePath::dirs`], then the `share` directories of the ROS 2
    /// install prefixes.
    pub fn roots(&self, base: Option<&Path>) -> Vec<PathBuf> {
        let mut out = self.dirs(base);
        for p in &self.packages {
            if !out.contains(p) {
                out.push(p.clone());
            }
        }
        out
    }

    /// The directories searched for a resource named in a file in directory `base` (None for
    /// text that is not in a file), in order, without repeats.
    pub fn dirs(&self, base: Option<&Path>) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        let mut push = |p: PathBuf| {
            if !out.contains(&p) {
                out.push(p);
            }
        };
        for d in &self.first {
            push(d.clone());
        }
        if self.models_dirs
            && let Some(base) = base
        {
            let absolute = absolute(base);
            for dir in absolute.ancestors() {
                let models = dir.join("models");
                if models.is_dir() {
                    push(models);
                }
            }
        }
        for d in &self.last {
            push(d.clone());
        }
        out
    }

    /// Finds the file or directory `uri` names, for a reference made in a file in directory
    /// `base` (None: the current directory, and no `models/` directories are searched).
    pub fn resolve(&self, uri: &str, base: Option<&Path>) -> Result<PathBuf, ResolveError> {
        let uri = uri.trim();
        if uri.is_empty() {
            return Err(ResolveError::Empty);
        }
        let lower = uri.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            return Err(ResolveError::Remote {
                uri: uri.to_string(),
                search: self.dirs(base),
            });
        }
        let mut package = false;
        let (rest, beside_file) = if let Some(rest) = strip_scheme(uri, "model://") {
            (rest, false)
        } else if let Some(rest) = strip_scheme(uri, "package://") {
            package = true;
            (rest, false)
        } else if let Some(rest) = strip_scheme(uri, "file://") {
            (rest, true)
        } else if let Some((scheme, _)) = uri.split_once("://") {
            return Err(ResolveError::Scheme {
                uri: uri.to_string(),
                scheme: scheme.to_string(),
            });
        } else {
            (uri, true)
        };
        let rest = rest.trim_end_matches('/');
        if rest.is_empty() {
            return Err(ResolveError::Empty);
        }
        let path = Path::new(rest);
        if path.is_absolute() {
            return if path.exists() {
                Ok(path.to_path_buf())
            } else {
                Err(ResolveError::NotFound {
                    uri: uri.to_string(),
                    searched: None,
                })
            };
        }
        let mut searched = Vec::new();
        if beside_file {
            let dir = base.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            let candidate = dir.join(path);
            if candidate.exists() {
                return Ok(candidate);
            }
            searched.push(dir);
        }
        let dirs = if package {
            self.roots(base)
        } else {
            self.dirs(base)
        };
        for dir in dirs {
            let candidate = dir.join(path);
            if candidate.exists() {
                return Ok(candidate);
            }
            if !searched.contains(&dir) {
                searched.push(dir);
            }
        }
        Err(ResolveError::NotFound {
            uri: uri.to_string(),
            searched: Some(searched),
        })
    }
}

/// `uri` without `scheme` (compared ignoring ASCII case), if it starts with it.
fn strip_scheme<'a>(uri: &'a str, scheme: &str) -> Option<&'a str> {
    let head = uri.get(..scheme.len())?;
    head.eq_ignore_ascii_case(scheme)
        .then(|| &uri[scheme.len()..])
}

/// `p` made absolute against the current directory (without touching the file system
/// otherwise).
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Why a resource URI could not be resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolveError {
    /// The URI is empty.
    Empty,
    /// An `http(s)://` URI (e.g. a Gazebo Fuel model): never downloaded.
    Remote {
        /// The URI.
        uri: String,
        /// The directories a downloaded copy could be put in.
        search: Vec<PathBuf>,
    },
    /// A scheme other than `model://`, `package://` and `file://`.
    Scheme {
        /// The URI.
        uri: String,
        /// Its scheme.
        scheme: String,
    },
    /// Nothing of that name in any directory searched.
    NotFound {
        /// The URI.
        uri: String,
        /// Every directory searched, in order (None for an absolute path).
        searched: Option<Vec<PathBuf>>,
    },
}

impl ResolveError {
    /// What to do about it.
    pub fn hint(&self) -> String {
        match self {
            ResolveError::Empty => {
                "give the model's URI, e.g. model://NAME or a path to its directory".to_string()
            }
            ResolveError::Remote { uri, search } => format!(
                "download the model once (e.g. `gz fuel download -u \"{uri}\"`), copy its \
                 directory (the one with model.config) into a directory on the resource path \
                 ({}), and include it as model://NAME",
                describe_search(search)
            ),
            ResolveError::Scheme { .. } => {
                "use model://NAME, package://NAME, a file:// path, or a path relative to this file"
                    .to_string()
            }
            ResolveError::NotFound { searched: None, .. } => "check the path".to_string(),
            ResolveError::NotFound {
                uri,
                searched: Some(searched),
            } if searched.is_empty() => format!(
                "add the directory that holds the model with --resource-path, {} or the \
                 manifest's resource_paths{}",
                ENV_VARS.join(", "),
                package_note(uri)
            ),
            ResolveError::NotFound { uri, .. } => format!(
                "put the model's directory in one of these, or add the directory that holds it \
                 with --resource-path, {} or the manifest's resource_paths{}",
                ENV_VARS.join(", "),
                package_note(uri)
            ),
        }
    }
}

/// For a `package://` URI, where else it is looked for; else nothing.
fn package_note(uri: &str) -> String {
    if strip_scheme(uri, "package://").is_some() {
        format!(
            " (a package:// URI is also looked for in PREFIX/share for each PREFIX of \
             {PACKAGE_ENV_VAR}, as ROS 2 installs packages)"
        )
    } else {
        String::new()
    }
}

/// The search path in words, for messages.
fn describe_search(dirs: &[PathBuf]) -> String {
    if dirs.is_empty() {
        format!(
            "none is set: use --resource-path, {} or the manifest's resource_paths",
            ENV_VARS.join(", ")
        )
    } else {
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::Empty => write!(f, "the URI is empty"),
            ResolveError::Remote { uri, .. } => write!(
                f,
                "\"{uri}\" is on the network (a Gazebo Fuel model?); simcore does not download models"
            ),
            ResolveError::Scheme { uri, scheme } => write!(
                f,
                "\"{uri}\": the scheme `{scheme}://` is not supported (model://, package:// and file:// are)"
            ),
            ResolveError::NotFound {
                uri,
                searched: None,
            } => write!(f, "\"{uri}\" does not exist"),
            ResolveError::NotFound {
                uri,
                searched: Some(searched),
            } if searched.is_empty() => write!(
                f,
                "cannot find \"{uri}\": the resource search path is empty"
            ),
            ResolveError::NotFound {
                uri,
                searched: Some(searched),
            } => write!(
                f,
                "cannot find \"{uri}\"; searched: {}",
                describe_search(searched)
            ),
        }
    }
}

impl std::error::Error for ResolveError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn search_order_is_first_env_models_dirs_then_last() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        let (a, b, c, m) = (
            root.join("a"),
            root.join("b"),
            root.join("c"),
            root.join("m"),
        );
        let env_b = b.as_os_str().to_owned();
        let env_c = std::env::join_paths([&c, &a]).unwrap();
        std::fs::create_dir_all(root.join("w/sub/models")).unwrap();
        std::fs::create_dir_all(root.join("models")).unwrap();
        let path = ResourcePath::new(
            std::slice::from_ref(&a),
            &[Some(&env_b), None, Some(&env_c)],
            std::slice::from_ref(&m),
        );
        let dirs = path.dirs(Some(&root.join("w/sub")));
        assert_eq!(
            dirs,
            vec![
                a.clone(),
                b.clone(),
                c.clone(),
                root.join("w/sub/models"),
                root.join("models"),
                m.clone()
            ]
        );
        // The same model in several places: the first directory wins.
        for d in [&b, &c, &m] {
            touch(&d.join("thing/model.config"), "<model/>");
        }
        assert_eq!(
            path.resolve("model://thing", None).unwrap(),
            b.join("thing")
        );
        assert_eq!(
            path.resolve("model://thing/model.config", None).unwrap(),
            b.join("thing/model.config")
        );
    }

    #[test]
    fn every_uri_form_resolves() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        touch(&root.join("lib/robot/model.config"), "<model/>");
        touch(&root.join("world/parts/arm.sdf"), "<sdf/>");
        let path = ResourcePath::new(&[root.join("lib")], &[], &[]);
        let base = root.join("world");
        let base = Some(base.as_path());
        assert_eq!(
            path.resolve("model://robot", base).unwrap(),
            root.join("lib/robot")
        );
        assert_eq!(path.resolve("robot", base).unwrap(), root.join("lib/robot"));
        assert_eq!(
            path.resolve("parts/arm.sdf", base).unwrap(),
            root.join("world/parts/arm.sdf")
        );
        assert_eq!(
            path.resolve("file://parts/arm.sdf", base).unwrap(),
            root.join("world/parts/arm.sdf")
        );
        let abs = root.join("world/parts/arm.sdf");
        let file_uri = format!("file://{}", abs.display());
        assert_eq!(path.resolve(&file_uri, base).unwrap(), abs);
        assert_eq!(path.resolve(abs.to_str().unwrap(), None).unwrap(), abs);
        assert_eq!(
            path.resolve("  model://robot/  ", base).unwrap(),
            root.join("lib/robot")
        );
        // model:// never looks beside the file.
        assert!(matches!(
            path.resolve("model://parts", base),
            Err(ResolveError::NotFound { .. })
        ));
    }

    #[test]
    fn package_uris_resolve_on_the_resource_path_then_in_ament_share_directories() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        touch(&root.join("lib/robot/meshes/base.stl"), "solid");
        touch(&root.join("ros/a/share/robot/meshes/base.stl"), "solid");
        touch(&root.join("ros/b/share/arm/urdf/arm.sdf"), "<sdf/>");
        let prefixes = std::env::join_paths([root.join("ros/a"), root.join("ros/b")]).unwrap();
        let path = ResourcePath::new(&[root.join("lib")], &[], &[]).with_packages(Some(&prefixes));
        // As Gazebo reads it (model://NAME on the resource path) first...
        assert_eq!(
            path.resolve("package://robot/meshes/base.stl", None)
                .unwrap(),
            root.join("lib/robot/meshes/base.stl")
        );
        // ...then in each prefix's share directory, in the variable's order.
        assert_eq!(
            path.resolve("package://arm/urdf/arm.sdf", None).unwrap(),
            root.join("ros/b/share/arm/urdf/arm.sdf")
        );
        // Only package:// looks in the share directories.
        assert!(matches!(
            path.resolve("model://arm/urdf/arm.sdf", None),
            Err(ResolveError::NotFound { .. })
        ));
        assert_eq!(
            path.roots(None),
            [
                root.join("lib"),
                root.join("ros/a/share"),
                root.join("ros/b/share")
            ]
        );
        // Not found: the message names the share directories searched.
        let e = path.resolve("package://nothing/x.stl", None).unwrap_err();
        assert!(e.to_string().contains("share"), "{e}");
        assert!(e.hint().contains(PACKAGE_ENV_VAR), "{}", e.hint());
    }

    #[test]
    fn failures_say_what_was_searched() {
        let t = tempfile::tempdir().unwrap();
        let path = ResourcePath::new(&[t.path().join("x")], &[], &[t.path().join("y")]);
        match path.resolve("model://nothing", None) {
            Err(e @ ResolveError::NotFound { .. }) => {
                let s = e.to_string();
                assert!(s.contains("x") && s.contains("y"), "{s}");
            }
            other => panic!("{other:?}"),
        }
        let e = path
            .resolve(
                "https://fuel.gazebosim.org/1.0/openrobotics/models/coke can",
                None,
            )
            .unwrap_err();
        assert!(matches!(e, ResolveError::Remote { .. }), "{e:?}");
        assert!(e.hint().contains("gz fuel download"), "{}", e.hint());
        assert!(matches!(
            path.resolve("ros://robot/model.sdf", None),
            Err(ResolveError::Scheme { .. })
        ));
        assert!(matches!(
            path.resolve("package://robot/model.sdf", None),
            Err(ResolveError::NotFound { .. })
        ));
        assert_eq!(path.resolve(" ", None), Err(ResolveError::Empty));
        assert_eq!(path.resolve("model://", None), Err(ResolveError::Empty));
    }
}
