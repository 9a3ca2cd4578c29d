//! The example world `worlds/pioneer.sdf` through the real `simcore` binary: one second of
//! driving with `--pub`, a model created with `--call` from a file beside the world, and the
//! battery, odometry, head and fiducial outputs on `--echo`.

use crate::common;

use common::*;

#[test]
fn the_pioneer_world_drives_creates_and_reports_for_one_second() {
    let dir = stage(PIONEER_LIBS);
    let o = simcore(&[
        "run",
        "worlds/pioneer.sdf",
        "--rtf",
        "0",
        "--duration",
        "1",
        "--plugin-path",
        dir.path().to_str().unwrap(),
        "--pub",
        r#"/model/pioneer/cmd_vel={"type":"Twist","linear":{"x":0.4}}@0"#,
        "--pub",
        r#"/model/pioneer/ptz/cmd={"type":"Vector3d","x":0.5,"y":0,"z":0.6}@0"#,
        "--call",
        r#"/world/pioneer/create={"type":"EntityFactory","sdf_filename":"models/crate.sdf","pose":{"position":{"x":2,"y":-0.5,"z":0.2}},"allow_renaming":true}@0.5"#,
        "--echo",
        "/model/pioneer/battery/main/state",
        "--echo",
        "/model/pioneer/odometry",
        "--echo",
        "/model/pioneer/ptz/state",
        "--echo",
        "/world/pioneer/model/pioneer/link/chassis/sensor/fiducials/fiducial",
    ]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("1000 steps"), "{err}");
    // The battery, the drive, PTZ and the fiducial sensor declared what they publish.
    assert!(!err.contains("publishes or listens on"), "{err}");
    let lines = json_lines(&stdout(&o));
    let on = |topic: &str| -> Vec<&serde_json::Value> {
        lines.iter().filter(|l| l["topic"] == topic).collect()
    };

    let reply = lines
        .iter()
        .find(|l| l["service"] == "/world/pioneer/create")
        .expect("the create reply");
    assert_eq!(reply["response"]["name"], "crate", "{reply}");

    let battery = on("/model/pioneer/battery/main/state");
    assert_eq!(battery.len(), 10, "10 Hz for 1 s");
    let first = battery[0]["voltage"].as_f64().unwrap();
    let last = battery[9]["voltage"].as_f64().unwrap();
    assert!(last < first && last > 12.0, "{first} -> {last}");

    let odom = on("/model/pioneer/odometry");
    let x = odom.last().unwrap()["pose"]["position"]["x"]
        .as_f64()
        .unwrap();
    assert!(x > 0.25 && x < 0.45, "drove forward: {x} m");

    let head = on("/model/pioneer/ptz/state");
    let pan = head.last().unwrap()["x"].as_f64().unwrap();
    assert!((pan - 0.5).abs() < 0.02, "the head panned: {pan}");
    assert_eq!(head.last().unwrap()["z"].as_f64(), Some(0.6));

    let fiducials = on("/world/pioneer/model/pioneer/link/chassis/sensor/fiducials/fiducial");
    let ids = |m: &serde_json::Value| -> Vec<i64> {
        m["fiducial"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].as_i64().unwrap())
            .collect()
    };
    assert!(
        ids(fiducials[0]).contains(&1),
        "beacon 1 ahead: {}",
        fiducials[0]
    );
    assert!(
        ids(fiducials.last().unwrap()).contains(&10),
        "the created crate carries fiducial 10: {}",
        fiducials.last().unwrap()
    );
}
