//! sim-core's integration tests, one test binary: each module is one concept's tests (a
//! plugin, the CLI, the transport, untrusted input, ...), run against the real `simcore`
//! binary, real plugin libraries and real SDF worlds. One binary instead of one per file:
//! each would link the whole engine again (some 90 MB and a few seconds apiece).
//!
//! A new test file `tests/NAME.rs` is added here as `mod NAME;`; it reaches the shared
//! helpers as `crate::common` and the hostile files as `crate::hostile`. Run one module's
//! tests with `cargo test -p sim-core --test integration NAME::`.

mod common;
mod hostile;

mod abi_epoch;
mod ackermann_steering;
mod air_speed;
mod batch;
mod battery;
mod boundingbox_camera;
mod camera;
mod check_warnings;
mod cli;
mod diff_drive;
mod docs_commands;
mod factory;
mod fiducial;
mod guards;
mod gz_body_systems;
mod gz_sim_worlds;
mod imu;
mod joint_and_contact;
mod joint_controller;
mod joint_position_controller;
mod lidar;
mod lift_drag;
mod live_tools;
mod loader;
mod logical_camera;
mod mecanum_drive;
mod new_plugin;
mod physics_fed;
mod pioneer;
mod ptz;
mod record;
mod render;
mod ros_messages;
mod ros_types;
mod run_control;
mod run_io;
mod sdf_audit;
mod sdf_corpus;
mod sdf_mutations;
mod sensor_manager;
mod served;
mod thermal_camera;
mod triggered_publisher;
mod truth;
mod untrusted_input;
mod untrusted_output;
mod untrusted_runtime;
mod velocity_control;
mod wide_angle_camera;
mod workloads;
mod zenoh;

/// Every file of `tests/` is a module here: with `autotests = false`, a file left out would
/// never be built nor run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = std::fs::read_to_string(dir.join("integration.rs")).unwrap();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let is_module =
            path.extension().is_some_and(|e| e == "rs") || path.join("mod.rs").is_file();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap()
            .to_owned();
        if is_module && stem != "integration" {
            files.push(stem);
        }
    }
    assert!(files.len() > 40, "{files:?}");
    let missing: Vec<&String> = files
        .iter()
        .filter(|m| !this.lines().any(|l| l == format!("mod {m};")))
        .collect();
    assert!(
        missing.is_empty(),
        "add `mod NAME;` to tests/integration.rs for {missing:?}"
    );
}
