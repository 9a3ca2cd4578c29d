//! Shared helpers of the integration tests: building the real plugin libraries the tests
//! load, staging them in per-test directories, and running the real `simcore` binary.
#![allow(dead_code)]

pub mod capture;
pub mod images;
pub mod joints;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("sim-core is in the workspace")
        .to_path_buf()
}

/// The real plugins the tests load: every `cdylib` package of the workspace under `plugins/`,
/// read from `cargo metadata`, so that a new plugin needs no entry here. Each is its package
/// name and its library's name.
fn plugin_packages(cargo: &str) -> Vec<(String, String)> {
    let out = Command::new(cargo)
        .current_dir(workspace())
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo metadata failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("cargo metadata");
    let root = workspace().join("plugins");
    let packages = meta["packages"].as_array().expect("packages");
    let names: Vec<(String, String)> = packages
        .iter()
        .filter(|p| Path::new(p["manifest_path"].as_str().unwrap_or_default()).starts_with(&root))
        .filter_map(|p| {
            let cdylib = p["targets"].as_array().into_iter().flatten().find(|t| {
                t["crate_types"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|c| c == "cdylib")
            })?;
            Some((
                p["name"].as_str()?.to_owned(),
                cdylib["name"].as_str()?.to_owned(),
            ))
        })
        .collect();
    assert!(!names.is_empty(), "no plugin packages in the workspace");
    names
}

/// Runs `cargo build --quiet --target-dir TARGET -p P...` with `extra` arguments before the
/// target dir (a `--manifest-path`, `--locked`), without the flags meant for the test build
/// itself (coverage, sanitizers); `what` names the libraries in the failure.
fn build_libraries(extra: &[&std::ffi::OsStr], target: &Path, packages: &[&str], what: &str) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut c = Command::new(cargo);
    c.current_dir(workspace())
        .args(["build", "--quiet"])
        .args(extra)
        .arg("--target-dir")
        .arg(target);
    for p in packages {
        c.args(["-p", p]);
    }
    c.env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    let out = c.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "building {what} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The test fixture plugins (`tests/fixtures/plugins`, a workspace of its own, so that no
/// build of simcore's workspace puts them beside the real plugins).
const FIXTURE_PACKAGES: [&str; 3] = [
    "simcore-fixture-foreign",
    "simcore-fixture-testkit",
    "simcore-fixture-wrong-major",
];

/// Where `cargo xtask test` says it built the real plugin libraries (target/debug) before the
/// tests: they are linked from there instead of built again.
pub const PREBUILT_PLUGINS: &str = "SIMCORE_TEST_PLUGIN_DIR";

/// Builds the plugin libraries and the test fixtures (once per test process) into their own
/// target directory, so that this works while `cargo test` holds the lock of the main one,
/// and so that test fixtures never land beside the real plugins. Returns the directory
/// holding them. With [`PREBUILT_PLUGINS`] set, the real plugins are linked from there
/// instead of built (the fixtures are always built here).
pub fn plugin_build_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let target = workspace().join("target").join("test-plugins");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let plugins = plugin_packages(&cargo);
        match std::env::var_os(PREBUILT_PLUGINS) {
            Some(built) => {
                let dir = target.join("debug");
                std::fs::create_dir_all(&dir).expect("the test plugins' directory");
                for (_, lib) in &plugins {
                    let f = lib_file(lib);
                    let (from, to) = (Path::new(&built).join(&f), dir.join(&f));
                    let _ = std::fs::remove_file(&to);
                    if std::fs::hard_link(&from, &to).is_err() {
                        std::fs::copy(&from, &to).unwrap_or_else(|e| {
                            panic!("{PREBUILT_PLUGINS}: cannot take {}: {e}", from.display())
                        });
                    }
                }
            }
            None => {
                let packages: Vec<&str> = plugins.iter().map(|(p, _)| p.as_str()).collect();
                build_libraries(&[], &target, &packages, "the plugin libraries");
            }
        }
        let manifest = workspace().join("sim-core/tests/fixtures/plugins/Cargo.toml");
        let extra = [
            "--locked".as_ref(),
            "--manifest-path".as_ref(),
            manifest.as_os_str(),
        ];
        build_libraries(
            &extra,
            &target,
            &FIXTURE_PACKAGES,
            "the test fixture plugins",
        );
        target.join("debug")
    })
}

/// Builds the plugins of the frozen ABI fixture, `tests/fixtures/abi_epoch` (plugins built
/// against a copy of sim-plugin-api 1.2.0, a workspace of its own), once per test process,
/// into their own target directory. Returns the directory holding them.
pub fn epoch_build_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let manifest = workspace().join("sim-core/tests/fixtures/abi_epoch/Cargo.toml");
        let target = workspace().join("target").join("test-plugins-epoch");
        let extra = [
            "--locked".as_ref(),
            "--manifest-path".as_ref(),
            manifest.as_os_str(),
        ];
        // Two builds: `simcore-epoch-older` turns on a feature of the frozen copy that must
        // not reach the others (features unify within one build).
        let sensor_system_newer = [
            "simcore-epoch-sensor",
            "simcore-epoch-system",
            "simcore-epoch-newer",
        ];
        for packages in [&sensor_system_newer[..], &["simcore-epoch-older"]] {
            build_libraries(&extra, &target, packages, "the frozen-ABI fixture plugins");
        }
        target.join("debug")
    })
}

/// A ball of 1 kg, 5 m up without gravity, carrying `plugin` (a `<plugin>` element).
pub fn floating_model(name: &str, plugin: &str) -> String {
    format!(
        r#"<model name="{name}">
      <pose>0 0 5 0 0 0</pose>
      <link name="body">
        <gravity>false</gravity>
        <inertial><mass>1</mass></inertial>
        <collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry></collision>
      </link>
      {plugin}
    </model>"#
    )
}

/// The file name of a library on this platform (`libname.so`).
pub fn lib_file(crate_name: &str) -> String {
    format!(
        "{}{crate_name}.{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_EXTENSION
    )
}

/// A fresh directory holding copies of the named libraries (crate names, e.g.
/// `simcore_plugin_imu`).
pub fn stage(libs: &[&str]) -> tempfile::TempDir {
    stage_from(plugin_build_dir(), libs)
}

/// [`stage`] from the libraries in `src`.
pub fn stage_from(src: &Path, libs: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for l in libs {
        let f = lib_file(l);
        std::fs::copy(src.join(&f), dir.path().join(&f))
            .unwrap_or_else(|e| panic!("copy {f}: {e}"));
    }
    dir
}

/// The plugin libraries `worlds/pioneer.sdf` uses.
pub const PIONEER_LIBS: &[&str] = &[
    "simcore_plugin_diff_drive",
    "simcore_plugin_truth",
    "simcore_plugin_factory",
    "simcore_plugin_battery",
    "simcore_plugin_ptz",
    "simcore_plugin_lidar",
    "simcore_plugin_imu",
    "simcore_plugin_fiducial",
    "simcore_plugin_logical_camera",
];

/// `args` of a `simcore run` with `--no-transport` added unless they choose Zenoh endpoints
/// themselves: runs of parallel tests must not join one another over the default endpoint
/// (the transport's own tests give each run a free port).
pub fn isolated<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut v = args.to_vec();
    if args.first() == Some(&"run")
        && !args
            .iter()
            .any(|a| a.starts_with("--zenoh") || *a == "--no-transport")
    {
        v.insert(1, "--no-transport");
    }
    v
}

/// Runs the real `simcore` binary with `args` (a `run` [`isolated`]), only `plugin_dir` on
/// the plugin path (the environment variable is cleared so the developer's setting cannot
/// interfere).
pub fn simcore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(isolated(args))
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env("SIMCORE_LOG", "warn")
        .current_dir(workspace())
        .output()
        .expect("simcore runs")
}

/// [`simcore`] with `cwd` as the working directory (for runs that write files, such as
/// cameras saving frames to relative paths).
pub fn simcore_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(isolated(args))
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env("SIMCORE_LOG", "warn")
        .current_dir(cwd)
        .output()
        .expect("simcore runs")
}

/// Stdout of a run as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr of a run as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Parses JSON lines.
pub fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

use sim_core::plugins::{Registry, SearchPath};
use sim_core::runner::{SimOptions, Simulation};
use sim_core::transport::Subscription;
use sim_plugin_api::{Payload, Vec3};

/// A registry over exactly `dir` (no environment, no executable directory).
pub fn registry_in(dir: &Path) -> Registry {
    Registry::discover(SearchPath::new(&[dir.to_path_buf()], None, &[], None))
}

/// Builds a simulation from inline SDF with the libraries in `dir`.
pub fn sim_from(sdf: &str, dir: &Path, seed: u64, threads: usize) -> Simulation {
    let world =
        sim_core::sdf::parse_str(sdf, None).unwrap_or_else(|e| panic!("{}", e.render(None)));
    Simulation::new(world, registry_in(dir), &SimOptions { seed, threads })
        .unwrap_or_else(|e| panic!("simulation does not load: {e}"))
}

/// The error of building a simulation from inline SDF (which must read) with the libraries
/// in `dir`; panics if it loads.
pub fn load_error(sdf: &str, dir: &Path) -> String {
    let world =
        sim_core::sdf::parse_str(sdf, None).unwrap_or_else(|e| panic!("{}", e.render(None)));
    match Simulation::new(world, registry_in(dir), &SimOptions::default()) {
        Ok(_) => panic!("the world loads, where it must be refused:\n{sdf}"),
        Err(e) => e.to_string(),
    }
}

/// A world named `test` with a ground plane and the given models.
pub fn world(models: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="test">
    <physics type="ode"><max_step_size>0.001</max_step_size><real_time_factor>0</real_time_factor></physics>
    <model name="ground">
      <static>true</static>
      <link name="link">
        <collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision>
      </link>
    </model>
    {models}
  </world>
</sdf>"#
    )
}

/// A 0.2 m box model `name` at height `z` whose link `body` carries `sensors`.
pub fn box_model(name: &str, z: f64, sensors: &str) -> String {
    format!(
        r#"<model name="{name}">
      <pose>0 0 {z} 0 0 0</pose>
      <link name="body">
        <inertial><mass>1</mass><inertia><ixx>0.0067</ixx><iyy>0.0067</iyy><izz>0.0067</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>
        {sensors}
      </link>
    </model>"#
    )
}

/// An IMU sensor element.
pub fn imu(name: &str, rate: f64, extra: &str) -> String {
    format!(r#"<sensor name="{name}" type="imu"><update_rate>{rate}</update_rate>{extra}</sensor>"#)
}

/// The IMU's linear acceleration in a message.
pub fn imu_accel(p: &Payload) -> Vec3 {
    match p {
        Payload::Imu(i) => i.linear_acceleration,
        other => panic!("not an IMU message: {other:?}"),
    }
}

/// Drains a subscription into (stamp ns, seq, payload) triples.
pub fn collect(sub: &Subscription) -> Vec<(i64, u64, Payload)> {
    sub.drain()
        .iter()
        .map(|e| {
            let p = e.message.payload.as_enum().expect("known payload").clone();
            (e.message.header.stamp.nanos, e.message.header.seq, p)
        })
        .collect()
}

/// The Python interpreter with the independent clients of `python/requirements.txt`
/// (`SIMCORE_PYTHON`, else `target/python` as `cargo xtask test` makes it). `None` when there
/// is none, after a notice; under `SIMCORE_REQUIRE_PYTHON=1` (as `cargo xtask test` sets) a
/// missing interpreter fails the test instead.
pub fn python() -> Option<PathBuf> {
    let found = std::env::var_os("SIMCORE_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            let p = workspace().join("target/python/bin/python");
            p.exists().then_some(p)
        });
    if found.is_none() {
        assert!(
            std::env::var_os("SIMCORE_REQUIRE_PYTHON").is_none(),
            "SIMCORE_REQUIRE_PYTHON is set but no Python with python/requirements.txt was found"
        );
        eprintln!(
            "notice: no Python clients (run `cargo xtask test`, or set SIMCORE_PYTHON); \
             the test that needs them does nothing"
        );
    }
    found
}

/// The stamps (ns) of a sensor updating every `period` ns in a run of `steps` steps of `step`
/// ns, by gz-sensors' rule as the engine applies it: sensors update after each step, stamped
/// with its end time; the next update time starts at 0 (so the first update is at the first
/// step) and then advances by whole periods past the update's time.
pub fn update_stamps(period: i64, step: i64, steps: i64) -> Vec<i64> {
    let mut next = 0;
    let mut out = Vec::new();
    for k in 1..=steps {
        let now = k * step;
        if now >= next {
            out.push(now);
            while next <= now {
                next += period;
            }
        }
    }
    out
}
