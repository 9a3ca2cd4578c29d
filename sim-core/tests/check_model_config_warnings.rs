//! `simcore check` prints a model directory's `model.config` warnings with the load's other
//! warnings: file, line, the offending line, and what to do.

use std::process::Command;

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
    // The log shows errors only, so what is printed is the check's own report.
    let o = Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(["check", world.to_str().unwrap()])
        .env("SIMCORE_LOG", "error")
        .output()
        .expect("simcore runs");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(0), "{err}");
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
