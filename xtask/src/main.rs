//! Project tasks, run as `cargo xtask <task>`:
//!
//! - `run WORLD [simcore run options]`: build the engine and the plugins, then run a world
//!   (real-time paced unless `--rtf` says otherwise);
//! - `test`: run every test (the tests build the plugin libraries they load), with the
//!   Python clients of `python/requirements.txt` installed into `target/python` first; then
//!   build the Python package (`sim-python`, with `maturin develop` into that environment)
//!   and run its tests with pytest;
//! - `test-python`: only the Python package's part of `test` (the environment, the build,
//!   pytest);
//! - `bench [criterion filter]`: build the plugins in release mode and run the benchmarks,
//!   then (with no filter, or `many_runs`) `benches/python/many_runs.py` on the release Python
//!   package: Python stepping, reads without copies, a vector of worlds, a batch on Ray;
//!   the results table is written to `target/bench-results.md` and `.json` (the transport
//!   benchmarks' Zenoh client runs in the Python of `test`, or `SIMCORE_PYTHON`);
//! - `install [--root DIR]`: `cargo install --path sim-core --locked --root DIR` (cargo's
//!   default root unless named) and the in-tree plugins, built in release mode, copied to
//!   `DIR/lib/simcore/plugins`, where the installed `simcore` finds them (see [`install`]);
//! - `fuzz [--seconds N] [TARGET...]`: run the cargo-fuzz targets of `fuzz/` for N seconds
//!   each (60 by default; all of them unless named), seeded from `fuzz/seeds`, and fail
//!   naming the input of any crash (needs a nightly toolchain and cargo-fuzz; not part of
//!   `ci`; see [`fuzz`]);
//! - `ci`: what CI runs: the documented `sim-plugin-api` versions against the crate's (see
//!   [`documented_api_versions`]), the crate table of `docs/architecture.md` against the
//!   workspace's graph ([`crates`]), formatting, clippy and rustdoc with warnings denied,
//!   `test`, and a one-second unpaced run of the example world.

mod crates;
mod fuzz;
mod help;
mod install;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (task, rest) = match args.split_first() {
        Some((t, r)) => (t.as_str(), r),
        None => {
            eprintln!(
                "usage: cargo xtask <run WORLD [options] | test | test-python | bench [filter] | \
                 install [--root DIR] | fuzz [--seconds N] [TARGET...] | ci>"
            );
            return ExitCode::from(2);
        }
    };
    // Any task's --help answers at once, before anything is built.
    let asks_help =
        matches!(task, "--help" | "-h" | "help") || rest.iter().any(|a| a == "--help" || a == "-h");
    if asks_help && let Some(text) = help::text(task) {
        println!("{text}");
        return ExitCode::SUCCESS;
    }
    let result = match task {
        "run" => run(rest),
        "test" => test(),
        "test-python" => python_env().and_then(|python| {
            build_plugins()?;
            python_package_tests(&python)
        }),
        "bench" => bench(rest),
        "install" => std::env::current_dir()
            .map_err(|e| format!("cannot read the working directory: {e}"))
            .and_then(|cwd| install::parse_args(rest, &cwd))
            .and_then(|plan| install::run(&plan)),
        "fuzz" => fuzz::parse_args(rest).and_then(|plan| fuzz::run(&root(), &plan)),
        "ci" => ci(),
        other => Err(format!(
            "unknown task `{other}` (run, test, test-python, bench, install, fuzz, ci)"
        )),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::from(1)
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is inside the workspace")
        .to_path_buf()
}

/// `cargo` in the workspace root, without incremental compilation unless CARGO_INCREMENTAL
/// says otherwise: the tasks build once from scratch (a fresh clone, CI), where incremental
/// state only costs time and gigabytes of disk.
fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    not_incremental(&mut c);
    c
}

/// Sets CARGO_INCREMENTAL=0 for `c` unless the caller chose.
fn not_incremental(c: &mut Command) {
    if std::env::var_os("CARGO_INCREMENTAL").is_none() {
        c.env("CARGO_INCREMENTAL", "0");
    }
}

fn status(mut c: Command) -> Result<u8, String> {
    let s = c.status().map_err(|e| format!("cannot start {c:?}: {e}"))?;
    Ok(s.code().map_or(1, |c| c as u8))
}

fn check(c: Command) -> Result<(), String> {
    match status(c)? {
        0 => Ok(()),
        code => Err(format!("a step failed (exit code {code})")),
    }
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

fn run(args: &[String]) -> Result<u8, String> {
    if args.is_empty() {
        return Err("usage: cargo xtask run WORLD [simcore run options]".into());
    }
    // The dev profile optimises the physics dependencies, so it runs worlds at full speed
    // and shares its build with the tests. Only the executable and the plugins it loads are
    // built (not the Python package's crate nor the tools), with cargo's progress shown.
    eprintln!("xtask: building simcore and its plugins (the first build takes minutes)");
    build_simcore_and_plugins()?;
    let exe = target_dir()
        .join("debug")
        .join(format!("simcore{}", std::env::consts::EXE_SUFFIX));
    let mut c = Command::new(exe);
    c.arg("run").args(args);
    status(c)
}

fn test() -> Result<u8, String> {
    let python = python_env()?;
    // The plugin libraries, built once into target/debug (where `cargo xtask run` builds
    // them too): the Rust tests take them from there (their fixtures they build into their
    // own target directory, so that fixtures never land beside the real plugins), and so do
    // the Python package's tests.
    build_plugins()?;
    let mut t = cargo();
    t.args(["test", "--workspace"]);
    // The tests that drive simcore with independent clients fail rather than skip here.
    t.env("SIMCORE_PYTHON", &python)
        .env("SIMCORE_REQUIRE_PYTHON", "1")
        .env(TEST_PLUGIN_DIR, target_dir().join("debug"));
    let rust = status(t)?;
    let py = python_package_tests(&python)?;
    Ok(if rust != 0 { rust } else { py })
}

/// Tells the Rust and the Python tests where the plugin libraries were built
/// ([`build_plugins`]), so that they load those.
const TEST_PLUGIN_DIR: &str = "SIMCORE_TEST_PLUGIN_DIR";

/// Builds the plugin libraries into target/debug, with cargo's progress shown.
fn build_plugins() -> Result<(), String> {
    eprintln!("xtask: building the plugin libraries the tests load");
    build_simcore_and_plugins()
}

/// `cargo build` of simcore and its plugins into target/debug. Always the same packages
/// together: cargo unifies dependencies' features over the packages one build selects, so
/// another selection would build many dependencies again, beside the first.
fn build_simcore_and_plugins() -> Result<(), String> {
    let mut build = cargo();
    build.args(["build", "-p", "sim-core"]);
    for p in plugin_packages()? {
        build.args(["-p", &p]);
    }
    check(build)
}

/// Builds the Python package into the environment of `python` (`maturin develop`, dev
/// profile), then runs `sim-python/tests` with pytest against the plugin libraries in
/// target/debug ([`build_plugins`] first). Returns pytest's exit code.
fn python_package_tests(python: &Path) -> Result<u8, String> {
    maturin_develop(python, false)?;
    eprintln!("xtask: running the Python package's tests (pytest sim-python/tests)");
    let mut pytest = Command::new(python);
    pytest
        .args(["-m", "pytest", "-q", "sim-python/tests"])
        .current_dir(root())
        .env(TEST_PLUGIN_DIR, target_dir().join("debug"));
    status(pytest)
}

/// Builds the Python package into the environment of `python` with `maturin develop` (the
/// release profile when `release`).
fn maturin_develop(python: &Path, release: bool) -> Result<(), String> {
    eprintln!("xtask: building the Python package (maturin develop) into target/python");
    let venv = python
        .parent()
        .and_then(Path::parent)
        .ok_or("the Python environment has no directory")?;
    let bin = python
        .parent()
        .ok_or("the Python interpreter has no directory")?;
    let path = std::env::join_paths(
        std::iter::once(bin.to_path_buf()).chain(
            std::env::var_os("PATH")
                .iter()
                .flat_map(std::env::split_paths),
        ),
    )
    .map_err(|e| format!("cannot extend PATH: {e}"))?;
    let mut develop = Command::new(python);
    develop.args(["-m", "maturin", "develop"]);
    if release {
        develop.arg("--release");
    }
    not_incremental(&mut develop);
    develop
        .current_dir(root().join("sim-python"))
        .env("VIRTUAL_ENV", venv)
        .env("PATH", &path)
        .env("CARGO_TARGET_DIR", target_dir());
    check(develop).map_err(|e| format!("{e}: maturin could not build the Python package"))?;
    // maturin leaves the extension module's library in target/debug too, where the plugin
    // loader (simcore's own directory is on its search path) would look at it and refuse it.
    let stray = target_dir()
        .join(if release { "release" } else { "debug" })
        .join(format!(
            "{}_simcore.{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_EXTENSION
        ));
    let _ = std::fs::remove_file(stray);
    Ok(())
}

/// The requirement files `target/python` is made from: the clients the Rust tests drive
/// simcore with, and what the Python package needs to build and test.
const REQUIREMENTS: [&str; 2] = [
    "python/requirements.txt",
    "sim-python/requirements-test.txt",
];

/// The Python interpreter of `target/python`, a virtual environment with the packages of
/// [`REQUIREMENTS`] (created, or brought up to date when a list changed).
fn python_env() -> Result<PathBuf, String> {
    let venv = target_dir().join("python");
    let python = venv.join(if cfg!(windows) {
        "Scripts/python.exe"
    } else {
        "bin/python"
    });
    let mut wanted = String::new();
    for file in REQUIREMENTS {
        wanted += &std::fs::read_to_string(root().join(file))
            .map_err(|e| format!("cannot read {file}: {e}"))?;
    }
    let stamp = venv.join("requirements.txt");
    if python.exists() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) {
        return Ok(python);
    }
    let system = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let mut v = Command::new(&system);
    v.args(["-m", "venv"]).arg(&venv);
    check(v).map_err(|e| {
        format!("{e}: the tests need Python 3.10 or newer with venv (set PYTHON to use another)")
    })?;
    let mut pip = Command::new(&python);
    // pip's own progress shows (the first install downloads about 1.2 GB).
    pip.args(["-m", "pip", "install", "--disable-pip-version-check"]);
    for file in REQUIREMENTS {
        pip.arg("-r").arg(root().join(file));
    }
    check(pip).map_err(|e| format!("{e}: pip could not install {}", REQUIREMENTS.join(" and ")))?;
    std::fs::write(&stamp, wanted).map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    Ok(python)
}

/// The workspace's packages, as `cargo metadata --no-deps` lists them.
fn metadata() -> Result<serde_json::Value, String> {
    let mut c = cargo();
    c.args(["metadata", "--format-version", "1", "--no-deps"]);
    let out = c.output().map_err(|e| format!("cannot start {c:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("cannot read cargo metadata: {e}"))
}

/// The plugin packages: every `cdylib` package of the workspace under `plugins/`, read from
/// `cargo metadata`, so that a new plugin needs no entry here. The benchmarks load their
/// libraries, built in release mode first.
fn plugin_packages() -> Result<Vec<String>, String> {
    let meta = metadata()?;
    let plugins = root().join("plugins");
    let is_cdylib = |t: &serde_json::Value| {
        t["crate_types"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c == "cdylib"))
    };
    Ok(meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| {
            Path::new(p["manifest_path"].as_str().unwrap_or_default()).starts_with(&plugins)
                && p["targets"].as_array().into_iter().flatten().any(is_cdylib)
        })
        .filter_map(|p| p["name"].as_str().map(String::from))
        .collect())
}

fn bench(args: &[String]) -> Result<u8, String> {
    let mut build = cargo();
    build.args(["build", "--release"]);
    for p in plugin_packages()? {
        build.args(["-p", &p]);
    }
    check(build)?;
    // `simcore inspect` is timed beside libsdformat by the sdf bench. (A build of its own:
    // `--bin` would select only that target of every package named.)
    let mut simcore = cargo();
    simcore.args(["build", "--release", "-p", "sim-core", "--bin", "simcore"]);
    check(simcore)?;
    let mut b = cargo();
    b.args([
        "bench",
        "-p",
        "sim-benches",
        "--bench",
        "engine",
        "--bench",
        "sdf",
        "--",
    ])
    .args(args);
    b.env("SIMCORE_BENCH_PLUGIN_DIR", target_dir().join("release"));
    // The transport benchmarks' client in another process (eclipse-zenoh).
    if std::env::var_os("SIMCORE_PYTHON").is_none() {
        match python_env() {
            Ok(python) => {
                b.env("SIMCORE_PYTHON", python);
            }
            Err(e) => eprintln!("xtask: {e}; the transport benchmarks are skipped"),
        }
    }
    b.env("SIMCORE_BENCH_OUT", target_dir());
    let code = status(b)?;
    // Many runs (Python, vector env, batch on the pool and on Ray): with no filter, or one
    // naming them.
    let wanted = args.iter().all(|a| a.starts_with('-')) || args.iter().any(|a| a == "many_runs");
    if code != 0 || !wanted {
        return Ok(code);
    }
    let python = python_env()?;
    maturin_develop(&python, true)?;
    let release = target_dir().join("release");
    let mut many = Command::new(&python);
    many.arg(root().join("benches/python/many_runs.py"))
        .arg("--root")
        .arg(root())
        .arg("--plugins")
        .arg(&release)
        .arg("--simcore")
        .arg(release.join(format!("simcore{}", std::env::consts::EXE_SUFFIX)))
        .arg("--out")
        .arg(target_dir().join("bench-results.md"));
    status(many)
}

/// What CI runs (`.ci/run` calls this task): formatting, clippy and rustdoc with warnings
/// denied, packaging the plugin API on its own, every test, then the README's run command,
/// shortened and unpaced.
fn ci() -> Result<u8, String> {
    documented_api_versions(&root())?;
    crates::check(&root(), &metadata()?)?;
    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--", "--check"]);
    check(fmt)?;
    let mut clippy = cargo();
    clippy.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]);
    check(clippy)?;
    let mut doc = cargo();
    doc.args(["doc", "--workspace", "--no-deps"]);
    doc.env("RUSTDOCFLAGS", "-D warnings");
    check(doc)?;
    // The plugin API packages on its own (no verify build: the tests build it).
    let mut package = cargo();
    package.args([
        "package",
        "-p",
        "sim-plugin-api",
        "--allow-dirty",
        "--no-verify",
    ]);
    check(package)?;
    // The README's test command.
    match test()? {
        0 => {}
        code => return Ok(code),
    }
    run(&[
        "worlds/imu_drop.sdf".into(),
        "--duration".into(),
        "1".into(),
        "--rtf".into(),
        "0".into(),
    ])
}

/// The files where a dependency on the plugin API is shown to plugin authors: the READMEs,
/// `docs/*.md`, the crate's own sources and guide (`sim-plugin-api/src/**/*.rs` and `.md`)
/// and the templates of `simcore new-plugin`.
fn api_doc_files(root: &Path) -> Result<Vec<PathBuf>, String> {
    fn walk(
        dir: &Path,
        keep: &dyn Fn(&Path) -> bool,
        out: &mut Vec<PathBuf>,
    ) -> Result<(), String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, keep, out)?;
            } else if keep(&p) {
                out.push(p);
            }
        }
        Ok(())
    }
    let ext = |p: &Path, wanted: &[&str]| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| wanted.contains(&e))
    };
    let mut files = vec![
        root.join("README.md"),
        root.join("sim-plugin-api/README.md"),
    ];
    let mut docs = Vec::new();
    let top = |p: &Path| ext(p, &["md"]) && p.parent() == Some(&root.join("docs"));
    walk(&root.join("docs"), &top, &mut docs)?;
    files.extend(docs);
    walk(
        &root.join("sim-plugin-api/src"),
        &|p| ext(p, &["rs", "md"]),
        &mut files,
    )?;
    walk(
        &root.join("sim-core/src/cli/templates"),
        &|_| true,
        &mut files,
    )?;
    Ok(files)
}

/// The `major.minor` of the plugin API, from the `version` of `sim-plugin-api/Cargo.toml`'s
/// `[package]`.
fn api_minor_version(root: &Path) -> Result<String, String> {
    let path = root.join("sim-plugin-api/Cargo.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut section = "";
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        } else if section == "[package]"
            && let Some(v) = line.strip_prefix("version = \"")
            && let Some(v) = v.strip_suffix('"')
            && let [major, minor, ..] = v.split('.').collect::<Vec<_>>()[..]
        {
            return Ok(format!("{major}.{minor}"));
        }
    }
    Err(format!(
        "{}: no `version = \"X.Y.Z\"` in [package]",
        path.display()
    ))
}

/// Each `sim-plugin-api = "X.Y"` (or `"X.Y.Z"`) in `text` whose `X.Y` is not `want`, with
/// its line number (from 1) and the version written. Requirements with an operator
/// (`"~1.2"`, `"=1.2.0"`) say something else on purpose and are not compared.
fn stale_api_versions(text: &str, want: &str) -> Vec<(usize, String)> {
    const KEY: &str = "sim-plugin-api = \"";
    let mut stale = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices(KEY) {
            let rest = &line[at + KEY.len()..];
            let Some(version) = rest.split('"').next().filter(|_| rest.contains('"')) else {
                continue;
            };
            let parts: Vec<&str> = version.split('.').collect();
            let plain = (2..=3).contains(&parts.len())
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
            if plain && format!("{}.{}", parts[0], parts[1]) != want {
                stale.push((i + 1, version.to_string()));
            }
        }
    }
    stale
}

/// Checks that every `sim-plugin-api = "X.Y"` shown to plugin authors ([`api_doc_files`])
/// names the crate's own `major.minor`; the error names each file and line that does not.
fn documented_api_versions(root: &Path) -> Result<(), String> {
    let want = api_minor_version(root)?;
    let mut problems = Vec::new();
    for file in api_doc_files(root)? {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let shown = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (line, found) in stale_api_versions(&text, &want) {
            problems.push(format!(
                "{shown}:{line}: `sim-plugin-api = \"{found}\"`, but sim-plugin-api/Cargo.toml \
                 is {want}: write \"{want}\""
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "documented plugin API versions are out of date:\n{}",
            problems.join("\n")
        ))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn stale_api_versions_are_found_with_their_line() {
        let text = "intro\nsim-plugin-api = \"1.5\"\n//! sim-plugin-api = \"1.6\"\n\
                    a `sim-plugin-api = \"1.4.2\"` and `sim-plugin-api = \"1.6.1\"`\n\
                    sim-plugin-api = \"~1.2\"\nsim-plugin-api = { git = \"x\" }\n\
                    sim-plugin-api = \"1\"\nsim-plugin-api = \"1.5";
        assert_eq!(
            super::stale_api_versions(text, "1.6"),
            [(2, "1.5".to_string()), (4, "1.4.2".to_string())]
        );
    }

    #[test]
    fn the_documented_api_versions_are_the_crates() {
        let root = super::root();
        let files = super::api_doc_files(&root).unwrap();
        for f in [
            "README.md",
            "docs/plugins.md",
            "sim-plugin-api/src/lib.rs",
            "sim-plugin-api/src/guide/sensor.md",
            "sim-core/src/cli/templates/Cargo.toml.tmpl",
        ] {
            assert!(files.contains(&root.join(f)), "{f} is not checked");
        }
        super::documented_api_versions(&root).unwrap();
    }

    #[test]
    fn plugin_packages_are_the_cdylibs_under_plugins() {
        let packages = super::plugin_packages().unwrap();
        for p in [
            "simcore-plugin-imu",
            "simcore-plugin-camera",
            "simcore-plugin-ptz",
        ] {
            assert!(packages.iter().any(|n| n == p), "{p} missing: {packages:?}");
        }
        // The shared rlibs and the test fixtures are not plugins to build.
        for p in ["simcore-plugin-common", "simcore-plugin-camera-common"] {
            assert!(!packages.iter().any(|n| n == p), "{p} listed");
        }
        assert!(!packages.iter().any(|n| n.starts_with("simcore-fixture")));
    }
}
