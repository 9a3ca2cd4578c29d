//! `simcore check` prints warnings with the file, line, the offending line, and what to do:
//! a model directory's `model.config` warnings with the load's other warnings, and the physics
//! parameters the engine does not honour, with what it does instead.

use std::path::Path;
use std::process::Command;

/// `simcore ARGS` with the log at `log` (at "error", what is printed is the command's own
/// report): the exit code, stdout and stderr.
fn simcore(args: &[&str], log: &str) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(args)
        .env("SIMCORE_LOG", log)
        .output()
        .expect("simcore runs");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `simcore check world`, with the log showing errors only.
fn check(world: &Path) -> (Option<i32>, String, String) {
    simcore(&["check", world.to_str().unwrap()], "error")
}

#[test]
fn check_prints_a_model_config_warning_with_its_line() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("models/arm");
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("model.config");
    std::fs::write(
        &config,
        "<?xml version=\"1.0\"?>\n<model>\n  <name>arm</name>\n  \
         <sdf version=\"1.99\">future.sdf</sdf>\n  <sdf version=\"1.9\">model.sdf</sdf>\n</model>\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("model.sdf"),
        "<sdf version=\"1.9\"><model name=\"arm\"><static>true</static><link name=\"l\"/></model></sdf>",
    )
    .unwrap();
    let world = t.path().join("world.sdf");
    std::fs::write(
        &world,
        "<sdf version=\"1.9\">\n<world name=\"w\">\n  <include>\n    <uri>models/arm</uri>\n  \
         </include>\n</world>\n</sdf>\n",
    )
    .unwrap();
    let (code, out, err) = check(&world);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("world.sdf: OK"), "{out}");
    assert!(err.contains("warning:"), "{err}");
    assert!(err.contains("future.sdf"), "{err}");
    assert!(
        err.contains(&format!("--> {}:4:17", config.display())),
        "{err}"
    );
    assert!(
        err.contains("<sdf version=\"1.99\">future.sdf</sdf>"),
        "{err}"
    );
    assert!(
        err.contains(&format!("included from {}:3:3", world.display())),
        "{err}"
    );
}

#[test]
fn check_warns_about_unhonoured_physics_parameters() {
    let t = tempfile::tempdir().unwrap();
    let world = t.path().join("world.sdf");
    std::fs::write(
        &world,
        "<sdf version=\"1.9\">\n<world name=\"w\">\n<model name=\"m\">\n<link name=\"l\">\n\
         <collision name=\"c\"><geometry><box><size>1 1 1</size></box></geometry>\n\
         <surface><friction><torsional><coefficient>0.5</coefficient></torsional></friction>\n\
         <contact><ode><soft_erp>0.2</soft_erp></ode></contact></surface>\n\
         </collision>\n</link>\n</model>\n</world>\n</sdf>\n",
    )
    .unwrap();
    let (code, out, err) = check(&world);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("world.sdf: OK"), "{out}");
    for (what, instead, line) in [
        (
            "<surface><friction><torsional><coefficient> is not honoured",
            "no torsional friction",
            6,
        ),
        (
            "<surface><contact><ode><soft_erp> is not honoured",
            "contacts are rigid",
            7,
        ),
    ] {
        assert!(err.contains(what), "{err}");
        assert!(err.contains(instead), "{err}");
        assert!(
            err.contains(&format!("--> {}:{line}:", world.display())),
            "{err}"
        );
    }
}

#[test]
fn run_logs_the_unhonoured_physics_parameters() {
    let t = tempfile::tempdir().unwrap();
    let world = t.path().join("world.sdf");
    std::fs::write(
        &world,
        "<sdf version=\"1.9\">\n<world name=\"w\">\n<physics type=\"ode\">\n\
         <ode><solver><type>quick</type><iters>10</iters></solver></ode>\n</physics>\n\
         </world>\n</sdf>\n",
    )
    .unwrap();
    let (code, _, err) = simcore(
        &[
            "run",
            "--no-transport",
            world.to_str().unwrap(),
            "--steps",
            "10",
            "--rtf",
            "0",
        ],
        "warn",
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("<physics><ode><solver><type> is not honoured"),
        "{err}"
    );
    assert!(err.contains(&format!("{}:4:", world.display())), "{err}");
    assert!(
        !err.contains("<solver><iters> is not honoured"),
        "the iterations are honoured: {err}"
    );
}
