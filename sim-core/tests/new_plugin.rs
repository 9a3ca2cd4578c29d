//! `simcore new-plugin`: the crates it writes build on their own (offline, by default
//! against this checkout's plugin API), pass their unit tests, and their libraries load into
//! the real `simcore` and publish in the worlds written with them, run as their READMEs say.

use crate::common;

use common::*;
use std::path::Path;
use std::process::Command;

/// Writes the crate `name` with `simcore new-plugin`, with `extra` arguments; whatever they
/// say, it depends on this checkout's plugin API, by path.
fn generate(dir: &Path, name: &str, kind: &str, extra: &[&str]) -> std::path::PathBuf {
    let mut args = vec!["new-plugin", name, kind, "--dir", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = simcore(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "no warning");
    let root = dir.join(name);
    for f in ["Cargo.toml", "src/lib.rs", "README.md"] {
        assert!(root.join(f).is_file(), "{f} missing:\n{}", stdout(&o));
    }
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let api = std::fs::canonicalize(workspace().join("sim-plugin-api")).unwrap();
    assert!(
        manifest.contains(&format!(
            "\nsim-plugin-api = {{ path = \"{}\" }}\n",
            api.display()
        )),
        "{manifest}"
    );
    root
}

/// Runs the shell commands of the crate's README in its root, as written but for the
/// `cargo` lines (the test has built the library elsewhere: it is put where `cargo build
/// --release` would have put it) and `--no-transport` (parallel tests must not join one
/// another); returns what they printed on stdout.
fn run_readme(root: &Path, lib: &str, libs: &Path) -> String {
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap_or_else(|| panic!("no sh block:\n{readme}"));
    let script: String = block
        .lines()
        .filter(|l| !l.starts_with("cargo "))
        .map(|l| l.replace("\"$SIMCORE\" run ", "\"$SIMCORE\" run --no-transport ") + "\n")
        .collect();
    assert!(
        script.contains("\"$SIMCORE\" run --no-transport "),
        "{script}"
    );
    let release = root.join("target/release");
    std::fs::create_dir_all(&release).unwrap();
    std::fs::copy(libs.join(lib_file(lib)), release.join(lib_file(lib))).unwrap();
    let out = Command::new("bash")
        .args(["-euc", &script])
        .current_dir(root)
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env("SIMCORE_LOG", "warn")
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the README's commands failed:\n{script}\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(&lib_file(lib)),
        "`simcore plugins` lists the library:\n{text}"
    );
    text
}

/// Runs `cargo ARGS` in the generated crate (its own workspace) with a shared target dir, and
/// the engine's lock file so that it builds offline with the same dependency versions.
fn cargo(root: &Path, args: &[&str]) -> String {
    std::fs::copy(workspace().join("Cargo.lock"), root.join("Cargo.lock")).expect("lock file");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .args(args)
        .args(["--offline", "--target-dir"])
        .arg(workspace().join("target").join("test-plugins-new"))
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "cargo {args:?} failed:\n{text}");
    text
}

/// Builds the crate, runs its tests (`unit_test` among them), and stages its library alone
/// in a directory.
fn build_and_stage(root: &Path, lib: &str, unit_test: &str) -> tempfile::TempDir {
    let tests = cargo(root, &["test"]);
    assert!(
        tests.contains(&format!("test tests::{unit_test} ... ok")),
        "its unit test ran:\n{tests}"
    );
    cargo(root, &["build"]);
    let built = workspace()
        .join("target/test-plugins-new/debug")
        .join(lib_file(lib));
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&built, dir.path().join(lib_file(lib))).expect("the library was built");
    dir
}

/// Runs the crate's world `worlds/<lib>.sdf` for 1 s of sim time, unpaced, with only `libs`
/// on the plugin path and `args`; returns the JSON lines it echoed.
fn run_for_a_second(root: &Path, lib: &str, libs: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let world = root.join("worlds").join(format!("{lib}.sdf"));
    let mut all = vec![
        "run",
        world.to_str().unwrap(),
        "--rtf",
        "0",
        "--duration",
        "1",
    ];
    all.extend_from_slice(args);
    all.extend(["--plugin-path", libs.to_str().unwrap()]);
    let o = simcore(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    json_lines(&stdout(&o))
}

#[test]
fn a_new_sensor_plugin_builds_tests_loads_and_publishes() {
    let dir = tempfile::tempdir().unwrap();
    // The default (no --api-path): the API of the checkout this simcore was built from.
    let root = generate(dir.path(), "acme-height", "--sensor", &[]);
    let libs = build_and_stage(
        &root,
        "acme_height",
        "publishes_the_height_of_its_link_plus_the_offset",
    );
    let topic = "/world/acme_height/model/probe_box/link/body/sensor/probe/acme_height";
    let lines = run_for_a_second(&root, "acme_height", libs.path(), &["--echo", topic]);
    assert_eq!(
        lines.len(),
        11,
        "a 10 Hz sensor over 1 s: at 1 ms, then every 0.1 s"
    );
    for l in &lines {
        assert_eq!(l["type"], "Double", "{l}");
        assert_eq!(l["data"], 1.5, "1 m up plus the 0.5 offset: {l}");
    }
    let echoed = run_readme(&root, "acme_height", libs.path());
    assert_eq!(
        echoed.matches(r#""data":1.5"#).count(),
        11,
        "the README's run:\n{echoed}"
    );

    // A parameter only the plugin reads: `check` loads no plugin and passes the world, `run
    // --list` creates the sensor and reports it (docs/cli.md says which does what).
    let text = std::fs::read_to_string(root.join("worlds/acme_height.sdf")).unwrap();
    let bad = root.join("worlds/bad_offset.sdf");
    std::fs::write(
        &bad,
        text.replace("<offset>0.5</offset>", "<offset>high</offset>"),
    )
    .unwrap();
    let checked = simcore(&["check", bad.to_str().unwrap()]);
    assert!(checked.status.success(), "{}", stderr(&checked));
    assert!(stdout(&checked).contains("bad_offset.sdf: OK"));
    let listed = simcore(&[
        "run",
        bad.to_str().unwrap(),
        "--list",
        "--plugin-path",
        libs.path().to_str().unwrap(),
    ]);
    assert_eq!(listed.status.code(), Some(2), "{}", stderr(&listed));
    assert!(
        stderr(&listed).contains("<offset> must be a finite number in metres, found \"high\""),
        "{}",
        stderr(&listed)
    );
}

#[test]
fn a_new_system_plugin_builds_tests_loads_commands_and_publishes() {
    let dir = tempfile::tempdir().unwrap();
    let api = workspace().join("sim-plugin-api");
    let root = generate(
        dir.path(),
        "acme-mover",
        "--system",
        &["--api-path", api.to_str().unwrap()],
    );
    let libs = build_and_stage(&root, "acme_mover", "publishes_the_pose_of_its_model");
    let lines = run_for_a_second(
        &root,
        "acme_mover",
        libs.path(),
        &[
            "--pub",
            r#"/model/ball/cmd_vel={"type":"Twist","linear":{"x":0.5}}@0"#,
            "--echo",
            "/model/ball/pose",
        ],
    );
    assert_eq!(lines.len(), 1000, "a pose after every step");
    let last = lines.last().unwrap();
    assert_eq!(last["name"], "ball");
    let x = last["pose"]["position"]["x"].as_f64().unwrap();
    assert!((x - 0.5).abs() < 0.01, "moved by cmd_vel to x = {x}");
    let echoed = run_readme(&root, "acme_mover", libs.path());
    assert_eq!(
        echoed.matches(r#""name":"ball""#).count(),
        1000,
        "the README's run:\n{echoed}"
    );
}

#[test]
fn new_plugin_refuses_bad_names_and_existing_directories() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let bad = simcore(&["new-plugin", "../escape", "--sensor", "--dir", d]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("not a plugin crate name"),
        "{}",
        stderr(&bad)
    );
    std::fs::create_dir(dir.path().join("taken")).unwrap();
    let taken = simcore(&["new-plugin", "taken", "--system", "--dir", d]);
    assert_eq!(taken.status.code(), Some(2));
    assert!(
        stderr(&taken).contains("already exists"),
        "{}",
        stderr(&taken)
    );
    assert_eq!(
        std::fs::read_dir(dir.path().join("taken")).unwrap().count(),
        0,
        "nothing written into it"
    );
    let neither = simcore(&["new-plugin", "acme", "--dir", d]);
    assert_eq!(neither.status.code(), Some(2));
}
