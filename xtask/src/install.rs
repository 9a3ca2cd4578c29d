//! `cargo xtask install [--root DIR]`: `simcore` on the PATH with its plugins.
//!
//! `cargo install --path sim-core` alone puts the executable in `ROOT/bin` and nothing
//! beside it, so an installed simcore would find no plugin libraries. This task runs that
//! install (`--locked`, release), builds the in-tree plugins (every `cdylib` under `plugins/`,
//! release) and copies their libraries to `ROOT/lib/simcore/plugins`, which simcore searches
//! right after its own directory (`sim_engine::plugins::INSTALLED_PLUGINS`).
//!
//! The root is `--root DIR`, else cargo's own default (`CARGO_INSTALL_ROOT`, else
//! `CARGO_HOME`, else `~/.cargo`; an `install.root` of cargo's configuration files is not
//! read). The task passes it to `cargo install` explicitly, so the executable and the
//! plugins always land under the same root.

use std::path::{Path, PathBuf};

/// Where the plugins go under the root; the same relative path as the engine's
/// `sim_engine::plugins::INSTALLED_PLUGINS` (xtask does not depend on the engine).
const PLUGIN_DIR: &str = "lib/simcore/plugins";

/// What `install` was asked for.
#[derive(Debug, PartialEq, Eq)]
pub struct Plan {
    /// The install root (absolute).
    pub root: PathBuf,
}

/// Reads `[--root DIR]`; a relative `DIR` is taken from the working directory `cwd`.
pub fn parse_args(args: &[String], cwd: &Path) -> Result<Plan, String> {
    const USAGE: &str = "usage: cargo xtask install [--root DIR]";
    let mut root = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = match a.as_str() {
            "--root" => it
                .next()
                .cloned()
                .ok_or_else(|| format!("--root needs a directory; {USAGE}"))?,
            other => match other.strip_prefix("--root=") {
                Some(v) => v.to_string(),
                None => return Err(format!("unknown argument `{other}`; {USAGE}")),
            },
        };
        if value.is_empty() {
            return Err(format!("--root needs a directory; {USAGE}"));
        }
        root = Some(cwd.join(value));
    }
    let root = match root {
        Some(r) => r,
        None => default_root(
            std::env::var_os("CARGO_INSTALL_ROOT"),
            std::env::var_os("CARGO_HOME"),
            std::env::var_os("HOME"),
            cwd,
        )?,
    };
    Ok(Plan { root })
}

/// cargo's default install root: `CARGO_INSTALL_ROOT`, else `CARGO_HOME`, else
/// `HOME/.cargo` (relative values taken from `cwd`).
fn default_root(
    install_root: Option<std::ffi::OsString>,
    cargo_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
    cwd: &Path,
) -> Result<PathBuf, String> {
    let set = |v: Option<std::ffi::OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    set(install_root)
        .or_else(|| set(cargo_home))
        .or_else(|| set(home).map(|h| h.join(".cargo")))
        .map(|r| cwd.join(r))
        .ok_or_else(|| {
            "no install root: none of CARGO_INSTALL_ROOT, CARGO_HOME and HOME is set; \
             name one with --root DIR"
                .to_string()
        })
}

/// The file name of the shared library of package `package` on this platform
/// (`simcore-plugin-imu` -> `libsimcore_plugin_imu.so`).
fn library_file(package: &str) -> String {
    format!(
        "{}{}.{}",
        std::env::consts::DLL_PREFIX,
        package.replace('-', "_"),
        std::env::consts::DLL_EXTENSION
    )
}

/// Whether `name` is the file name of an in-tree plugin's library (`libsimcore_plugin_*.so`):
/// what an earlier install put in the plugin directory. Others (a third party's plugins put
/// there by hand) are left alone.
fn is_installed_plugin(name: &str) -> bool {
    name.strip_prefix(std::env::consts::DLL_PREFIX)
        .and_then(|n| n.strip_prefix("simcore_plugin_"))
        .and_then(|n| n.strip_suffix(std::env::consts::DLL_EXTENSION))
        .is_some_and(|n| n.ends_with('.') && n.len() > 1)
}

/// Copies `src` to `dir/name` through a hidden temporary file renamed into place: a simcore
/// running from the old library keeps its (unlinked) file, where a copy over it would
/// truncate the mapped library under that process.
fn copy_into(src: &Path, dir: &Path, name: &str) -> Result<(), String> {
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::copy(src, &tmp)
        .map_err(|e| format!("cannot copy {} to {}: {e}", src.display(), tmp.display()))?;
    std::fs::rename(&tmp, dir.join(name)).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot move {} into place: {e}", tmp.display())
    })
}

/// Runs the install of `plan`: `cargo install`, the plugins' release build, and their copy.
pub fn run(plan: &Plan) -> Result<u8, String> {
    let root = &plan.root;
    eprintln!(
        "xtask: installing simcore into {}",
        root.join("bin").display()
    );
    let mut install = super::cargo();
    install
        .args(["install", "--path", "sim-core", "--locked", "--root"])
        .arg(root);
    super::check(install).map_err(|e| format!("{e}: cargo install could not install simcore"))?;

    let packages = super::plugin_packages()?;
    if packages.is_empty() {
        return Err("no plugin packages under plugins/".into());
    }
    eprintln!("xtask: building the {} plugins (release)", packages.len());
    let mut build = super::cargo();
    build.args(["build", "--release", "--locked"]);
    for p in &packages {
        build.args(["-p", p]);
    }
    super::check(build).map_err(|e| format!("{e}: the plugins did not build"))?;

    let dest = root.join(PLUGIN_DIR);
    std::fs::create_dir_all(&dest).map_err(|e| format!("cannot create {}: {e}", dest.display()))?;
    // Libraries of in-tree plugins an earlier install left (a plugin since removed or
    // renamed would otherwise still be loaded).
    let wanted: Vec<String> = packages.iter().map(|p| library_file(p)).collect();
    let entries =
        std::fs::read_dir(&dest).map_err(|e| format!("cannot read {}: {e}", dest.display()))?;
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_installed_plugin(&name) && !wanted.contains(&name) {
            std::fs::remove_file(entry.path())
                .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
            eprintln!("xtask: removed {name}, which no in-tree plugin builds any more");
        }
    }
    let release = super::target_dir().join("release");
    for file in &wanted {
        copy_into(&release.join(file), &dest, file)?;
    }
    eprintln!(
        "xtask: installed simcore in {} and {} plugin libraries in {}",
        root.join("bin").display(),
        wanted.len(),
        dest.display()
    );
    let bin = root.join("bin");
    let on_path =
        std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d == bin));
    if !on_path {
        eprintln!(
            "xtask: {} is not on your PATH: add it to run `simcore` by name",
            bin.display()
        );
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn root_is_the_option_taken_from_the_working_directory() {
        let cwd = Path::new("/home/u/src");
        let plan = parse_args(&args(&["--root", "/opt/simcore"]), cwd).unwrap();
        assert_eq!(plan.root, Path::new("/opt/simcore"));
        let plan = parse_args(&args(&["--root=inst"]), cwd).unwrap();
        assert_eq!(plan.root, Path::new("/home/u/src/inst"));
        for bad in [&["--root"][..], &["--root="], &["--prefix", "/x"], &["/x"]] {
            assert!(parse_args(&args(bad), cwd).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn default_root_is_cargos() {
        let cwd = Path::new("/w");
        let os = |s: &str| Some(std::ffi::OsString::from(s));
        assert_eq!(
            default_root(os("/i"), os("/c"), os("/h"), cwd).unwrap(),
            Path::new("/i")
        );
        assert_eq!(
            default_root(None, os("/c"), os("/h"), cwd).unwrap(),
            Path::new("/c")
        );
        assert_eq!(
            default_root(os(""), None, os("/h"), cwd).unwrap(),
            Path::new("/h/.cargo")
        );
        assert!(default_root(None, None, None, cwd).is_err());
    }

    #[test]
    fn only_in_tree_plugin_libraries_count_as_installed() {
        assert!(is_installed_plugin(&library_file("simcore-plugin-imu")));
        assert!(!is_installed_plugin(&library_file("acme-sonar")));
        assert!(!is_installed_plugin(&library_file("simcore-plugin-")));
        assert!(!is_installed_plugin(".libsimcore_plugin_imu.so.tmp"));
    }

    #[test]
    fn the_plugin_directory_is_the_engines() {
        // xtask does not depend on the engine; the two spellings must agree.
        let engine = std::fs::read_to_string(
            super::super::root().join("sim-engine/src/plugins/search_path.rs"),
        )
        .unwrap();
        assert!(
            engine.contains(&format!(
                "pub const INSTALLED_PLUGINS: &str = \"{PLUGIN_DIR}\";"
            )),
            "sim-engine's INSTALLED_PLUGINS is not {PLUGIN_DIR}"
        );
    }

    #[test]
    fn a_copy_replaces_the_file_through_a_rename() {
        let dir = std::env::temp_dir().join(format!("xtask-install-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("src.so");
        std::fs::write(&src, b"new").unwrap();
        std::fs::write(dir.join("lib.so"), b"old").unwrap();
        copy_into(&src, &dir, "lib.so").unwrap();
        assert_eq!(std::fs::read(dir.join("lib.so")).unwrap(), b"new");
        assert!(!dir.join(".lib.so.tmp").exists());
        assert!(copy_into(&dir.join("missing.so"), &dir, "x.so").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
