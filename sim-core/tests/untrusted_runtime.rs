//! Untrusted input at run time (see `docs/untrusted-input.md`): sensor sizes and rates a world
//! asks for, what the factory builds, numbers in commands, plugin directories, and what
//! create/remove pairs keep. Each test runs real worlds through the real `simcore` binary or
//! the real `Simulation`, with the real plugin libraries.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{json_lines, simcore, stage, stderr, stdout};

/// Runs the real `simcore` binary with `args`, killing it if it has not ended after two
/// minutes (a run of a few steps takes well under a second): the input made it hang.
fn simcore_or_hang(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(args)
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env("SIMCORE_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("simcore runs");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("simcore {args:?} hangs");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Writes `world.sdf` with one model carrying `sensors` into `dir`.
fn sensor_world(dir: &Path, sensors: &str) -> PathBuf {
    let path = dir.join("world.sdf");
    std::fs::write(
        &path,
        format!(
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"w\">\n\
             <model name=\"m\"><static>true</static><link name=\"l\">\n{sensors}\n</link></model>\n\
             </world>\n</sdf>\n"
        ),
    )
    .unwrap();
    path
}

fn camera(width: u64, height: u64) -> String {
    format!(
        "<sensor name=\"cam\" type=\"camera\">\n<camera><image>\n<width>{width}</width>\n\
         <height>{height}</height>\n</image></camera></sensor>"
    )
}

fn lidar(horizontal: u64, vertical: u64) -> String {
    format!(
        "<sensor name=\"scan\" type=\"gpu_lidar\"><lidar><scan>\n\
         <horizontal><samples>{horizontal}</samples><min_angle>-1</min_angle><max_angle>1</max_angle></horizontal>\n\
         <vertical><samples>{vertical}</samples></vertical>\n\
         </scan><range><min>0.1</min><max>10</max></range></lidar></sensor>"
    )
}

#[test]
fn sensor_sizes_are_bounded_when_the_world_is_read() {
    let t = tempfile::tempdir().unwrap();
    let cases = [
        // A 10000 x 10000 camera: 4.8 GB in one allocation before the bound.
        (camera(10_000, 10_000), "world.sdf:7:", "--max-camera-pixels"),
        // A tall image is placed at its height.
        (camera(2, 10_000_000), "world.sdf:8:", "--max-camera-pixels"),
        // 10^9 lidar samples had no upper bound at all.
        (lidar(1_000_000_000, 1), "world.sdf:6:", "--max-lidar-rays"),
        (lidar(2048, 4096), "world.sdf:7:", "--max-lidar-rays"),
    ];
    for (sensor, place, flag) in cases {
        let world = sensor_world(t.path(), &sensor);
        let w = world.to_str().unwrap();
        for args in [vec!["check", w], vec!["run", w, "--steps", "1"]] {
            let out = simcore(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(place), "{args:?}: no {place} in {err}");
            assert!(err.contains(flag), "{args:?}: no {flag} in {err}");
        }
    }
    // The flags move the limits both ways.
    let world = sensor_world(t.path(), &camera(100, 100));
    let w = world.to_str().unwrap();
    assert!(simcore(&["check", w]).status.success());
    let out = simcore(&["check", w, "--max-camera-pixels", "9999"]);
    assert!(
        stderr(&out).contains("10000 pixels"),
        "{}",
        stderr(&out)
    );
    let world = sensor_world(t.path(), &lidar(2048, 1024));
    let w = world.to_str().unwrap();
    assert!(!simcore(&["check", w]).status.success());
    let out = simcore(&["check", w, "--max-lidar-rays", "2097152"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn extreme_update_rates_end_and_check_says_what_they_do() {
    let t = tempfile::tempdir().unwrap();
    let world = sensor_world(
        t.path(),
        "<sensor name=\"fast\" type=\"imu\"><update_rate>1e18</update_rate></sensor>\n\
         <sensor name=\"slow\" type=\"imu\"><update_rate>1e-300</update_rate></sensor>",
    );
    let w = world.to_str().unwrap();
    let out = simcore(&["check", w]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("world.sdf:5:") && err.contains("updates at every step"),
        "{err}"
    );
    assert!(
        err.contains("world.sdf:6:") && err.contains("updates once, at the start"),
        "{err}"
    );
    // The catch-up of a 1e18 Hz sensor ran forever before; now each step costs one update.
    let plugins = stage(&["simcore_plugin_imu"]);
    let topic = |s: &str| format!("/world/w/model/m/link/l/sensor/{s}/imu");
    let (fast, slow) = (topic("fast"), topic("slow"));
    let out = simcore_or_hang(&[
        "run",
        w,
        "--steps",
        "10",
        "--rtf",
        "0",
        "--echo",
        &fast,
        "--echo",
        &slow,
        "--plugin-path",
        plugins.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let on = |t: &str| lines.iter().filter(|l| l["topic"] == t).count();
    assert_eq!(on(&fast), 10, "at every step");
    assert_eq!(on(&slow), 1, "once, at the start");
}
