//! `simcore check` warns about the physics parameters the engine does not honour, naming the
//! file and line and what the engine does instead, and still accepts the world.

use std::process::Command;

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
