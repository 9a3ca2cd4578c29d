//! `simcore new-plugin`: the crates it writes build on their own, pass their unit tests, and
//! their libraries load into the real `simcore` and publish in the worlds written with them.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

/// Writes the crate `name` with `simcore new-plugin`, depending on this checkout's plugin API.
fn generate(dir: &Path, name: &str, kind: &str) -> std::path::PathBuf {
    let api = workspace().join("sim-plugin-api");
    let o = simcore(&[
        "new-plugin",
        name,
        kind,
        "--dir",
        dir.to_str().unwrap(),
        "--api-path",
        api.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let root = dir.join(name);
    for f in ["Cargo.toml", "src/lib.rs", "README.md"] {
        assert!(root.join(f).is_file(), "{f} missing:\n{}", stdout(&o));
    }
    root
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
    let root = generate(dir.path(), "acme-height", "--sensor");
    let libs = build_and_stage(
        &root,
        "acme_height",
        "publishes_the_height_of_its_link_plus_the_offset",
    );
    let topic = "/world/acme_height/model/probe_box/link/body/sensor/probe/acme_height";
    let lines = run_for_a_second(&root, "acme_height", libs.path(), &["--echo", topic]);
    assert_eq!(lines.len(), 10, "a 10 Hz sensor over 1 s");
    for l in &lines {
        assert_eq!(l["type"], "Double", "{l}");
        assert_eq!(l["data"], 1.5, "1 m up plus the 0.5 offset: {l}");
    }
}

#[test]
fn a_new_system_plugin_builds_tests_loads_commands_and_publishes() {
    let dir = tempfile::tempdir().unwrap();
    let root = generate(dir.path(), "acme-mover", "--system");
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
