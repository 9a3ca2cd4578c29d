//! The plugin search path and the rules for library names written in world files.

use std::fmt;
use std::path::{Path, PathBuf};

/// Where an installed `simcore`'s plugin libraries are, relative to the parent of the
/// executable's directory: `ROOT/bin/simcore` looks in `ROOT/lib/simcore/plugins` after
/// `ROOT/bin`. `cargo install` puts the executable in `ROOT/bin` and nothing beside it;
/// `cargo xtask install` copies the plugins here.
pub const INSTALLED_PLUGINS: &str = "lib/simcore/plugins";

/// Directories searched for plugin libraries, in order: `--plugin-path`, the
/// `SIMCORE_PLUGIN_PATH` environment variable, the run manifest, the directory of the
/// `simcore` executable, then [`INSTALLED_PLUGINS`] beside that directory (for an executable
/// in `ROOT/bin`, `ROOT/lib/simcore/plugins`, where `cargo xtask install` puts the plugins).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchPath {
    dirs: Vec<PathBuf>,
}

impl SearchPath {
    /// Builds the path from its sources (duplicates removed, order kept).
    pub fn new(
        cli: &[PathBuf],
        env: Option<&std::ffi::OsStr>,
        manifest: &[PathBuf],
        exe_dir: Option<&Path>,
    ) -> Self {
        let mut dirs: Vec<PathBuf> = Vec::new();
        let mut push = |p: PathBuf| {
            if !p.as_os_str().is_empty() && !dirs.contains(&p) {
                dirs.push(p);
            }
        };
        cli.iter().cloned().for_each(&mut push);
        if let Some(env) = env {
            std::env::split_paths(env).for_each(&mut push);
        }
        manifest.iter().cloned().for_each(&mut push);
        if let Some(d) = exe_dir {
            push(d.to_path_buf());
            if let Some(root) = d.parent() {
                push(root.join(INSTALLED_PLUGINS));
            }
        }
        SearchPath { dirs }
    }

    /// The standard path: CLI directories, `SIMCORE_PLUGIN_PATH`, manifest directories, the
    /// executable's directory and the installed plugins beside it ([`INSTALLED_PLUGINS`]).
    pub fn standard(cli: &[PathBuf], manifest: &[PathBuf]) -> Self {
        let env = std::env::var_os("SIMCORE_PLUGIN_PATH");
        let exe_dir = std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf));
        Self::new(cli, env.as_deref(), manifest, exe_dir.as_deref())
    }

    /// The directories.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }
}

impl fmt::Display for SearchPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v: Vec<String> = self.dirs.iter().map(|d| d.display().to_string()).collect();
        f.write_str(&v.join(", "))
    }
}

/// A library name in a world file that could load code from outside the search path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "plugin filename `{name}` is not allowed: {reason}; world files name libraries by bare \
     name (e.g. `simcore_plugin_imu`), and the library must be in a directory on the plugin \
     search path (--plugin-path, SIMCORE_PLUGIN_PATH, the manifest, simcore's own directory \
     or lib/simcore/plugins beside it)"
)]
pub struct PluginPathError {
    /// The name as written.
    pub name: String,
    /// Why it is refused.
    pub reason: &'static str,
}

/// Refuses absolute paths, directory components and `..`.
pub fn check_library_name(name: &str) -> Result<(), PluginPathError> {
    let err = |reason| {
        Err(PluginPathError {
            name: name.to_string(),
            reason,
        })
    };
    if name.trim().is_empty() {
        return err("it is empty");
    }
    if Path::new(name).is_absolute() || name.starts_with('/') || name.starts_with('\\') {
        return err("it is an absolute path");
    }
    if name.contains("..") {
        return err("it contains `..`");
    }
    if name.contains('/') || name.contains('\\') || name.contains(':') {
        return err("it contains a directory");
    }
    Ok(())
}

/// The comparable form of a library name: without a `lib` prefix and a shared-library
/// extension, with `-` as `_`. `libsimcore_plugin_imu.so`, `simcore_plugin_imu` and
/// `simcore-plugin-imu` are the same library.
pub fn normalize_library_name(name: &str) -> String {
    let mut n = name.trim();
    for ext in [".so", ".dylib", ".dll"] {
        if let Some(s) = n.strip_suffix(ext) {
            n = s;
        }
    }
    let n = n.strip_prefix("lib").unwrap_or(n);
    n.replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_dedup() {
        let env = std::ffi::OsString::from("/e1:/e2");
        let p = SearchPath::new(
            &[PathBuf::from("/cli")],
            Some(&env),
            &[PathBuf::from("/e1"), PathBuf::from("/m")],
            Some(Path::new("/opt/simcore/bin")),
        );
        let d: Vec<&str> = p.dirs().iter().map(|d| d.to_str().unwrap()).collect();
        assert_eq!(
            d,
            [
                "/cli",
                "/e1",
                "/e2",
                "/m",
                "/opt/simcore/bin",
                "/opt/simcore/lib/simcore/plugins"
            ]
        );
    }

    #[test]
    fn installed_plugins_follow_the_executables_directory() {
        // `cargo install --root R` puts simcore in R/bin; `cargo xtask install` its plugins in
        // R/lib/simcore/plugins, searched right after R/bin.
        let p = SearchPath::new(&[], None, &[], Some(Path::new("/home/u/.cargo/bin")));
        assert_eq!(
            p.dirs(),
            [
                PathBuf::from("/home/u/.cargo/bin"),
                PathBuf::from("/home/u/.cargo/lib/simcore/plugins")
            ]
        );
        // Named earlier (here by SIMCORE_PLUGIN_PATH), it keeps its earlier place.
        let env = std::ffi::OsString::from("/home/u/.cargo/lib/simcore/plugins");
        let p = SearchPath::new(&[], Some(&env), &[], Some(Path::new("/home/u/.cargo/bin")));
        assert_eq!(
            p.dirs(),
            [
                PathBuf::from("/home/u/.cargo/lib/simcore/plugins"),
                PathBuf::from("/home/u/.cargo/bin")
            ]
        );
        // An executable at the file system's root has no directory above its own.
        let p = SearchPath::new(&[], None, &[], Some(Path::new("/")));
        assert_eq!(p.dirs(), [PathBuf::from("/")]);
        // Without an executable's directory there is nothing beside it either.
        assert!(SearchPath::new(&[], None, &[], None).dirs().is_empty());
    }

    #[test]
    fn names() {
        assert!(check_library_name("simcore_plugin_imu").is_ok());
        assert!(check_library_name("libfoo.so").is_ok());
        assert!(check_library_name("../evil").is_err());
        assert!(check_library_name("/usr/lib/libevil.so").is_err());
        assert!(check_library_name("sub/lib.so").is_err());
        assert!(check_library_name("").is_err());
        assert_eq!(
            normalize_library_name("libsimcore_plugin_imu.so"),
            "simcore_plugin_imu"
        );
        assert_eq!(
            normalize_library_name("simcore-plugin-imu"),
            "simcore_plugin_imu"
        );
    }
}
