//! The `simcore` binary end to end: example worlds, echo, plugin listing, exit codes.

use crate::common;

use common::*;

#[test]
fn every_example_world_runs() {
    let mut libs = PIONEER_LIBS.to_vec();
    libs.extend(["simcore_plugin_camera", "simcore_plugin_depth_camera"]);
    let dir = stage(&libs);
    // Worlds may write files (camera frames) relative to the working directory.
    let cwd = tempfile::tempdir().unwrap();
    let worlds = std::fs::read_dir(workspace().join("worlds")).unwrap();
    let mut n = 0;
    for w in worlds {
        let p = w.unwrap().path();
        if p.extension().is_none_or(|e| e != "sdf") {
            continue;
        }
        let o = simcore_in(
            cwd.path(),
            &[
                "run",
                p.to_str().unwrap(),
                "--rtf",
                "0",
                "--duration",
                "1",
                "--plugin-path",
                dir.path().to_str().unwrap(),
            ],
        );
        assert!(o.status.success(), "{} failed: {}", p.display(), stderr(&o));
        assert!(stderr(&o).contains("1000 steps"), "{}", stderr(&o));
        n += 1;
    }
    assert!(n >= 1);
}

#[test]
fn the_sensors_demo_echoes_camera_info_and_saves_frames() {
    let dir = stage(&[
        "simcore_plugin_lidar",
        "simcore_plugin_camera",
        "simcore_plugin_depth_camera",
    ]);
    let cwd = tempfile::tempdir().unwrap();
    let world = workspace().join("worlds/sensors_demo.sdf");
    let topic = "/world/sensors_demo/model/mast/link/head/sensor/camera/camera_info";
    let o = simcore_in(
        cwd.path(),
        &[
            "run",
            world.to_str().unwrap(),
            "--rtf",
            "0",
            "--duration",
            "1",
            "--echo",
            topic,
            "--plugin-path",
            dir.path().to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    assert_eq!(
        lines.len(),
        6,
        "a 5 Hz camera over 1 s: at 1 ms, then every 0.2 s"
    );
    assert_eq!(lines[0]["type"], "CameraInfo");
    assert_eq!(lines[0]["width"], 640);
    let err = stderr(&o);
    // The camera declared its camera_info topic: no warning before the first frame.
    assert!(!err.contains("publishes or listens on"), "{err}");
    for s in [
        "mast::head::lidar",
        "mast::head::camera",
        "mast::head::depth",
    ] {
        assert!(err.contains(s), "{err}");
    }
    // One PNG per frame in the relative directory the world names.
    let frames = cwd.path().join("camera_frames");
    for n in 0..5 {
        let f = frames.join(format!("mast_head_camera_{n:06}.png"));
        let bytes = std::fs::read(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    }
}

#[test]
fn echo_prints_imu_json_lines() {
    let dir = stage(&["simcore_plugin_imu"]);
    let topic = "/world/imu_drop/model/box/link/body/sensor/imu/imu";
    let o = simcore(&[
        "run",
        "worlds/imu_drop.sdf",
        "--rtf",
        "0",
        "--duration",
        "2",
        "--echo",
        topic,
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    // At the first step (due at 0), then every 10 ms to 2 s.
    let stamps = update_stamps(10_000_000, 1_000_000, 2000);
    assert_eq!(lines.len(), 201, "a 100 Hz IMU over 2 s");
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["topic"], topic);
        assert_eq!(l["type"], "IMU");
        assert_eq!(l["header"]["seq"], i as u64);
        assert_eq!(l["header"]["frame_id"], "box::body::imu");
        let ns = l["header"]["stamp"]["sec"].as_i64().unwrap() * 1_000_000_000
            + l["header"]["stamp"]["nsec"].as_i64().unwrap();
        assert_eq!(ns, stamps[i]);
    }
    // Falling at first (about 0), resting at the end (about +9.8 on z).
    let z = |l: &serde_json::Value| l["linear_acceleration"]["z"].as_f64().unwrap();
    assert!(z(&lines[20]).abs() < 0.2, "{}", z(&lines[20]));
    assert!((z(&lines[200]) - 9.8).abs() < 0.2, "{}", z(&lines[200]));
    // The summary goes to stderr, not into the JSON stream.
    let e = stderr(&o);
    assert!(e.contains("box::body::imu") && e.contains("201"), "{e}");
}

#[test]
fn plugins_lists_libraries_factories_and_refusals() {
    let dir = stage(&[
        "simcore_plugin_imu",
        "simcore_fixture_foreign",
        "simcore_fixture_testkit",
    ]);
    let o = simcore(&["plugins", "--plugin-path", dir.path().to_str().unwrap()]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains(&lib_file("simcore_plugin_imu")), "{out}");
    assert!(
        out.contains("sensor imu") && out.contains("sensor types imu"),
        "{out}"
    );
    assert!(
        out.contains("system pusher") && out.contains("simcore::fixtures::Pusher"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "(built against sim-plugin-api {})",
            sim_core::plugins::env_api_version()
        )),
        "{out}"
    );
    assert!(
        out.contains("refused:") && out.contains("not a simcore plugin"),
        "{out}"
    );
}

/// `ROOT/bin/simcore`, as `cargo install --root ROOT` lays it out (the real binary, hard-linked
/// so that it knows itself by that path, or copied), with `libs` installed beside it in
/// `ROOT/lib/simcore/plugins` as `cargo xtask install` puts them.
fn installed(libs: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let bin = root.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let exe = bin.join(format!("simcore{}", std::env::consts::EXE_SUFFIX));
    let built = env!("CARGO_BIN_EXE_simcore");
    if std::fs::hard_link(built, &exe).is_err() {
        std::fs::copy(built, &exe).unwrap();
    }
    let plugins = root.path().join(sim_core::plugins::INSTALLED_PLUGINS);
    std::fs::create_dir_all(&plugins).unwrap();
    for l in libs {
        std::fs::copy(
            plugin_build_dir().join(lib_file(l)),
            plugins.join(lib_file(l)),
        )
        .unwrap();
    }
    (root, exe)
}

#[test]
fn an_installed_simcore_finds_its_plugins_in_lib_simcore_plugins() {
    let run = |exe: &std::path::Path| {
        std::process::Command::new(exe)
            .args(["run", "worlds/imu_drop.sdf", "--no-transport", "--rtf", "0"])
            .args(["--duration", "0.5"])
            .env_remove("SIMCORE_PLUGIN_PATH")
            .env("SIMCORE_LOG", "warn")
            .current_dir(workspace())
            .output()
            .unwrap()
    };
    let (root, exe) = installed(&["simcore_plugin_imu"]);
    let o = run(&exe);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(!e.contains("no plugin library serves"), "{e}");
    assert!(
        e.lines()
            .any(|l| l.trim_start().starts_with("box::body::imu") && l.contains("/imu/imu")),
        "{e}"
    );
    let listed = std::process::Command::new(&exe)
        .arg("plugins")
        .env_remove("SIMCORE_PLUGIN_PATH")
        .output()
        .unwrap();
    let installed_lib = root
        .path()
        .join("lib/simcore/plugins")
        .join(lib_file("simcore_plugin_imu"));
    assert!(
        stdout(&listed).contains(&installed_lib.display().to_string()),
        "{}",
        stdout(&listed)
    );

    // With nothing in that directory, the same layout finds no IMU plugin.
    let (_bare, exe) = installed(&[]);
    let e = stderr(&run(&exe));
    assert!(
        e.contains("no plugin library serves sensor type `imu`"),
        "{e}"
    );
}

#[test]
fn bad_input_exits_2_naming_the_file() {
    let o = simcore(&["run", "worlds/no_such_world.sdf", "--duration", "0.1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no_such_world.sdf"), "{}", stderr(&o));

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.sdf");
    std::fs::write(
        &bad,
        "<sdf version=\"1.9\">\n  <world name=\"w\">\n    <model name=\"m\">\n  </world>\n</sdf>\n",
    )
    .unwrap();
    let o = simcore(&["run", bad.to_str().unwrap(), "--duration", "0.1"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("broken.sdf:"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn unserved_sensor_type_exits_2_when_strict() {
    let dir = stage(&["simcore_plugin_imu"]);
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path().join("w.sdf");
    std::fs::write(
        &w,
        world(&box_model(
            "box",
            1.0,
            r#"<sensor name="x" type="sonar_x"/>"#,
        )),
    )
    .unwrap();
    let o = simcore(&[
        "run",
        w.to_str().unwrap(),
        "--duration",
        "0.1",
        "--strict",
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("w.sdf:") && e.contains("sonar_x"), "{e}");
    // The manifest's `strict = true` does the same.
    let m = tmp.path().join("run.toml");
    std::fs::write(&m, "world = \"w.sdf\"\nstrict = true\n").unwrap();
    let o = simcore(&[
        "run",
        m.to_str().unwrap(),
        "--duration",
        "0.1",
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// An undeclared namespace prefix in a sensor's element is a warning at its line in `check`
/// and in `run` (the world still runs); declared on `<sdf>`, it is no warning.
#[test]
fn undeclared_prefix_in_a_sensor_is_a_warning_at_its_line_in_check_and_run() {
    let dir = stage(&["simcore_plugin_imu"]);
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path().join("w.sdf");
    let sensor =
        "<sensor name=\"i\" type=\"imu\">\n          <acme:fail>1</acme:fail>\n        </sensor>";
    let sdf = world(&box_model("box", 1.0, sensor));
    let line = sdf.lines().position(|l| l.contains("<acme:fail>")).unwrap() + 1;
    std::fs::write(&w, &sdf).unwrap();
    let at = format!("w.sdf:{line}:");
    let words = "the namespace prefix `acme` of `acme:fail` is not declared";

    let o = simcore(&["check", w.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains(words) && e.contains(&at), "{e}");

    let run = |file: &std::path::Path| {
        simcore(&[
            "run",
            file.to_str().unwrap(),
            "--duration",
            "0.01",
            "--plugin-path",
            dir.path().to_str().unwrap(),
        ])
    };
    let o = run(&w);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.lines().any(|l| l.contains(words) && l.contains(&at)),
        "{e}"
    );

    let declared = tmp.path().join("declared.sdf");
    let sdf = sdf.replace(
        "<sdf version=\"1.9\">",
        "<sdf version=\"1.9\" xmlns:acme=\"https://acme.example/sim\">",
    );
    std::fs::write(&declared, sdf).unwrap();
    let o = simcore(&["check", declared.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("namespace prefix"), "{}", stderr(&o));
    let o = run(&declared);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("namespace prefix"), "{}", stderr(&o));
}

/// Gazebo's policy: an unserved sensor type and an unserved `<plugin>` are one warning each
/// and the world runs; the summary lists them; gz-sim's built-in systems need no library.
#[test]
fn unserved_sensor_and_plugin_are_skipped_with_one_warning_each() {
    let dir = stage(&["simcore_plugin_imu"]);
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path().join("w.sdf");
    let sdf = world(&box_model(
        "box",
        1.0,
        r#"<sensor name="x" type="sonar_x"/>"#,
    ))
    .replace(
        "<model name=\"ground\">",
        r#"<plugin filename="gz-sim-physics-system" name="gz::sim::systems::Physics"/>
    <plugin filename="libignition-gazebo6-imu-system.so" name="ignition::gazebo::systems::Imu"/>
    <plugin filename="dummy" name="gz::sim"/>
    <plugin filename="gz-sim-elevator-system" name="gz::sim::systems::Elevator"/>
    <model name="ground">"#,
    );
    std::fs::write(&w, sdf).unwrap();
    let o = simcore(&[
        "run",
        w.to_str().unwrap(),
        "--duration",
        "0.1",
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    let warnings: Vec<&str> = e.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 3, "{e}");
    assert!(
        warnings[0].contains("ignition") && warnings[0].contains("deprecated"),
        "{e}"
    );
    assert!(
        warnings.iter().any(|l| l.contains("w.sdf:")
            && l.contains("Elevator")
            && l.contains("runs without it")),
        "{e}"
    );
    assert!(warnings.iter().any(|l| l.contains("sonar_x")), "{e}");
    assert!(e.contains("skipped (2"), "{e}");
}

#[test]
fn a_panicking_plugin_exits_1_after_completing_the_run() {
    let dir = stage(&["simcore_fixture_testkit", "simcore_plugin_imu"]);
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path().join("w.sdf");
    let sensors = format!(
        "{}{}",
        r#"<sensor name="bad" type="fixture_panic"><update_rate>10</update_rate><panic_after>2</panic_after></sensor>"#,
        imu("s", 10.0, "")
    );
    std::fs::write(&w, world(&box_model("box", 0.1, &sensors))).unwrap();
    let o = simcore(&[
        "run",
        w.to_str().unwrap(),
        "--rtf",
        "0",
        "--duration",
        "1",
        "--echo",
        "/world/test/model/box/link/body/sensor/s/imu",
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        json_lines(&stdout(&o)).len(),
        11,
        "the IMU published through the whole run (at 1 ms, then 0.1 s to 1 s)"
    );
    let e = stderr(&o);
    assert!(
        e.contains("1000 steps") && e.contains("disabled") && e.contains("fixture panic"),
        "{e}"
    );
}

#[test]
fn manifest_runs_a_world() {
    let dir = stage(&["simcore_plugin_imu"]);
    let tmp = tempfile::tempdir().unwrap();
    let m = tmp.path().join("run.toml");
    std::fs::write(
        &m,
        format!(
            "world = \"{}\"\nseed = 5\nreal_time_factor = 0\nthreads = 2\nplugin_paths = [\"{}\"]\n",
            workspace().join("worlds/imu_drop.sdf").display(),
            dir.path().display()
        ),
    )
    .unwrap();
    let o = simcore(&["run", m.to_str().unwrap(), "--steps", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("100 steps"));
}

#[test]
fn pub_and_call_reach_plugins_at_their_sim_times() {
    let dir = stage(&["simcore_fixture_testkit", "simcore_plugin_imu"]);
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path().join("w.sdf");
    let models = format!(
        "{}{}{}",
        box_model("a", 0.1, &imu("s", 10.0, "")),
        box_model("b", 3.0, ""),
        r#"<plugin filename="simcore_fixture_testkit" name="simcore::fixtures::Remover"/>"#
    );
    std::fs::write(&w, world(&models)).unwrap();
    let o = simcore(&[
        "run",
        w.to_str().unwrap(),
        "--rtf",
        "0",
        "--duration",
        "1",
        "--plugin-path",
        dir.path().to_str().unwrap(),
        "--echo",
        "/world/test/model/a/link/body/sensor/s/imu",
        "--call",
        r#"/fixture/count_models={"type":"Empty"}@0.2"#,
        "--pub",
        r#"/fixture/remove={"type":"StringMsg","data":"a"}@0.45"#,
        "--call",
        r#"/fixture/count_models={"type":"Empty"}@0.8"#,
        "--call",
        r#"/fixture/count_models={"type":"Double","data":1}@0.9"#,
        "--call",
        r#"/no/such/service={"type":"Empty"}"#,
        // Answers after 600 ms, past the 100 ms the calls wait; then one at once.
        "--call",
        r#"/fixture/slow={"type":"Int64","data":600}@0.95"#,
        "--call",
        r#"/fixture/slow={"type":"Int64","data":0}@0.96"#,
        "--call-timeout",
        "0.1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    let calls: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l.get("service").is_some())
        .collect();
    assert_eq!(calls.len(), 6, "{lines:?}");
    assert!(
        calls[4]["error"]
            .as_str()
            .unwrap()
            .contains("did not answer within 0.100 s"),
        "{:?}",
        calls[4]
    );
    assert_eq!(calls[5]["response"]["data"], 0, "{:?}", calls[5]);
    assert!(
        calls[0]["error"]
            .as_str()
            .unwrap()
            .contains("no service `/no/such/service`")
    );
    assert_eq!(calls[1]["response"]["data"], 3, "ground, a and b");
    assert_eq!(calls[1]["time"]["nsec"], 200_000_000);
    assert_eq!(calls[2]["response"]["data"], 2, "a was removed at 0.45 s");
    assert!(
        calls[3]["error"]
            .as_str()
            .unwrap()
            .contains("takes an Empty request")
    );
    // a's IMU published at 1 ms, 0.1, ..., 0.4 s and stopped with its model.
    let imu = lines.iter().filter(|l| l.get("topic").is_some()).count();
    assert_eq!(imu, 5);

    let bad = simcore(&[
        "run",
        w.to_str().unwrap(),
        "--pub",
        "/x={\"linear\":1}",
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("no \"type\""), "{}", stderr(&bad));
    let list = simcore(&[
        "run",
        w.to_str().unwrap(),
        "--list",
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ]);
    let listed = stdout(&list);
    let columns = |name: &str| -> Vec<String> {
        listed
            .lines()
            .map(|l| l.split_whitespace().map(String::from).collect::<Vec<_>>())
            .find(|c| c.get(2).is_some_and(|n| n == name))
            .unwrap_or_else(|| panic!("{name} not listed:\n{listed}"))
    };
    assert_eq!(columns("/fixture/count_models")[..2], ["service", "-"]);
    assert_eq!(
        columns("/world/test/model/a/link/body/sensor/s/imu")[..5],
        [
            "topic",
            "out",
            "/world/test/model/a/link/body/sensor/s/imu",
            "IMU",
            "sensor_msgs/msg/Imu"
        ]
    );
}

/// Runs `simcore` with `env` set and the resource variables of this process removed.
fn simcore_env(args: &[&str], env: &[(&str, &std::path::Path)]) -> std::process::Output {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_simcore"));
    c.args(isolated(args))
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env("SIMCORE_LOG", "warn")
        .current_dir(workspace());
    for v in sim_core::resources::ENV_VARS {
        c.env_remove(v);
    }
    c.env_remove(sim_core::resources::PACKAGE_ENV_VAR);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("simcore runs")
}

/// A model directory `lib/NAME` (model.config + model.sdf with one box link) under `root`.
fn model_dir(root: &std::path::Path, name: &str, mass: &str) {
    let dir = root.join("lib").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("model.config"),
        "<model><sdf version=\"1.9\">model.sdf</sdf></model>",
    )
    .unwrap();
    std::fs::write(
        dir.join("model.sdf"),
        format!(
            "<sdf version=\"1.9\">\n<model name=\"{name}\">\n  <link name=\"body\">\n    \
             <inertial><mass>{mass}</mass></inertial>\n    <collision name=\"c\"><geometry>\
             <box><size>1 1 1</size></box></geometry></collision>\n  </link>\n</model>\n</sdf>\n"
        ),
    )
    .unwrap();
}

/// A world including `uri` at height 2.
fn including_world(uri: &str) -> String {
    format!(
        "<sdf version=\"1.9\">\n<world name=\"w\">\n  <include>\n    <uri>{uri}</uri>\n    \
         <pose>0 0 2 0 0 0</pose>\n  </include>\n</world>\n</sdf>\n"
    )
}

#[test]
fn check_reports_each_file_and_exits_2_on_any_problem() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    model_dir(root, "good", "1");
    model_dir(root, "bad", "-1");
    let good = root.join("good.sdf");
    let bad = root.join("bad.sdf");
    let missing = root.join("missing.sdf");
    std::fs::write(&good, including_world("model://good")).unwrap();
    std::fs::write(&bad, including_world("model://bad")).unwrap();
    std::fs::write(&missing, including_world("model://elsewhere")).unwrap();
    let lib = root.join("lib");
    let lib_arg = lib.to_str().unwrap();

    let o = simcore_env(
        &["check", good.to_str().unwrap(), "--resource-path", lib_arg],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), format!("{}: OK", good.display()));

    let o = simcore_env(
        &[
            "check",
            good.to_str().unwrap(),
            bad.to_str().unwrap(),
            missing.to_str().unwrap(),
            "--resource-path",
            lib_arg,
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(out.trim(), format!("{}: OK", good.display()), "{err}");
    // The error inside the included model: its file, its source line, and the include site.
    let model_sdf = lib.join("bad/model.sdf");
    assert!(
        err.contains(&format!("--> {}:4:", model_sdf.display())),
        "{err}"
    );
    assert!(err.contains("<inertial><mass>-1</mass>"), "{err}");
    assert!(
        err.contains(&format!("= included from {}:3:3", bad.display())),
        "{err}"
    );
    assert!(
        err.contains(&format!("{}: invalid", bad.display())),
        "{err}"
    );
    // The missing model: the directories searched.
    assert!(err.contains("cannot find \"model://elsewhere\""), "{err}");
    assert!(err.contains(&format!("searched: {lib_arg}")), "{err}");
    assert!(err.contains("checked 3 files: 1 valid, 2 invalid"), "{err}");
}

/// `package://NAME/...` (ROS packages, the ros_gz templates): as Gazebo, `model://NAME/...` on
/// the resource path; as ROS 2, `PREFIX/share/NAME/...` for each prefix of AMENT_PREFIX_PATH,
/// whose share directories the world may then read from.
#[test]
fn package_uris_resolve_on_the_resource_path_and_in_ros_install_prefixes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let pkg = root.join("install/share/rover");
    std::fs::create_dir_all(pkg.join("meshes")).unwrap();
    std::fs::write(pkg.join("package.xml"), "<package format=\"3\"/>").unwrap();
    std::fs::write(
        pkg.join("model.config"),
        "<model><sdf version=\"1.9\">model.sdf</sdf></model>",
    )
    .unwrap();
    std::fs::write(
        pkg.join("model.sdf"),
        "<sdf version=\"1.9\">\n<model name=\"rover\">\n  <link name=\"body\">\n    \
         <inertial><mass>1</mass></inertial>\n    <collision name=\"c\"><geometry><mesh>\
         <uri>package://rover/meshes/body.stl</uri></mesh></geometry></collision>\n  </link>\n\
         </model>\n</sdf>\n",
    )
    .unwrap();
    std::fs::write(
        pkg.join("meshes/body.stl"),
        "solid t\nfacet normal 0 0 -1\nouter loop\nvertex 0 0 0\nvertex 0 1 0\nvertex 1 0 0\nendloop\nendfacet\n\
         facet normal 0 -1 0\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 0 1\nendloop\nendfacet\n\
         facet normal -1 0 0\nouter loop\nvertex 0 0 0\nvertex 0 0 1\nvertex 0 1 0\nendloop\nendfacet\n\
         facet normal 1 1 1\nouter loop\nvertex 1 0 0\nvertex 0 1 0\nvertex 0 0 1\nendloop\nendfacet\nendsolid t\n",
    )
    .unwrap();
    let w = root.join("worlds/w.sdf");
    std::fs::create_dir_all(w.parent().unwrap()).unwrap();
    std::fs::write(&w, including_world("package://rover")).unwrap();
    let w = w.to_str().unwrap();

    // Not on any path: the message says where package:// URIs are looked for.
    let o = simcore_env(&["check", w], &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("package://rover"), "{err}");
    assert!(err.contains("AMENT_PREFIX_PATH"), "{err}");

    // A ROS install prefix: the package's share directory, the mesh inside it included.
    let prefixes = std::env::join_paths([root.join("elsewhere"), root.join("install")]).unwrap();
    let o = simcore_env(
        &["check", w],
        &[("AMENT_PREFIX_PATH", std::path::Path::new(&prefixes))],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // Gazebo's reading: the package's parent directory on the resource path.
    let share = root.join("install/share");
    let o = simcore_env(&["check", w], &[("GZ_SIM_RESOURCE_PATH", &share)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn resources_come_from_the_environment_the_manifest_and_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    model_dir(root, "crate", "1");
    let w = root.join("w.sdf");
    std::fs::write(&w, including_world("model://crate")).unwrap();
    let lib = root.join("lib");

    // Nowhere to look: an error naming the URI.
    let o = simcore_env(&["check", w.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("model://crate"), "{}", stderr(&o));

    for var in sim_core::resources::ENV_VARS {
        let o = simcore_env(&["check", w.to_str().unwrap()], &[(var, &lib)]);
        assert_eq!(o.status.code(), Some(0), "{var}: {}", stderr(&o));
    }

    let manifest = root.join("run.toml");
    std::fs::write(
        &manifest,
        "world = \"w.sdf\"\nresource_paths = [\"lib\"]\nreal_time_factor = 0\n",
    )
    .unwrap();
    let o = simcore_env(
        &[
            "check",
            w.to_str().unwrap(),
            "--manifest",
            manifest.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // `run` reads the same: the manifest alone, and the command line.
    let o = simcore_env(&["run", manifest.to_str().unwrap(), "--steps", "10"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("10 steps"), "{}", stderr(&o));
    let o = simcore_env(
        &[
            "run",
            w.to_str().unwrap(),
            "--rtf",
            "0",
            "--steps",
            "10",
            "--resource-path",
            lib.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn every_example_world_checks_ok() {
    let mut args = vec!["check".to_string()];
    for w in std::fs::read_dir(workspace().join("worlds")).unwrap() {
        let p = w.unwrap().path();
        if p.extension().is_some_and(|e| e == "sdf") {
            args.push(p.to_string_lossy().into_owned());
        }
    }
    assert!(args.len() >= 4, "{args:?}");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = simcore_env(&args, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), args.len() - 1, "{}", stdout(&o));
    // The example with includes finds its models beside it, in worlds/models.
    assert!(stdout(&o).contains("crates.sdf: OK"), "{}", stdout(&o));
}

/// A model file (root `<model>`) with a placement frame, a nested model, frames and a joint
/// to the nested model's link: `inspect --json` prints every frame resolved in the world,
/// in the oracle's schema; `inspect` prints a tree; `run` refuses a model file.
#[test]
fn inspect_prints_the_resolved_model() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("arm.sdf");
    std::fs::write(
        &file,
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <model name="arm" placement_frame="tip">
    <pose>0 0 1 0 0 0</pose>
    <link name="base"/>
    <frame name="tip" attached_to="base"><pose>0 0 0.5 0 0 0</pose></frame>
    <model name="hand">
      <pose relative_to="tip">1 0 0 0 0 1.5707963267948966</pose>
      <link name="palm"/>
    </model>
    <joint name="wrist" type="revolute">
      <parent>base</parent><child>hand</child>
      <axis><xyz expressed_in="__model__">1 0 0</xyz></axis>
    </joint>
  </model>
</sdf>"#,
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let o = simcore(&["inspect", path, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["ok"], true);
    assert_eq!(j["root_type"], "model");
    let m = &j["model"];
    assert_eq!(m["placement_frame"], "tip");
    assert_eq!(m["canonical_link"], "base");
    // The tip frame is placed at z = 1, so the model frame is at z = 0.5.
    assert_eq!(m["pose_in_world"], serde_json::json!([0, 0, 0.5, 0, 0, 0]));
    assert_eq!(m["frames"][0]["attached_to_body"], "base");
    assert_eq!(
        m["frames"][0]["pose_in_world"],
        serde_json::json!([0, 0, 1, 0, 0, 0])
    );
    let hand = &m["models"][0];
    assert_eq!(hand["scoped_name"], "arm::hand");
    assert_eq!(hand["relative_to"], "tip");
    let palm: Vec<f64> = hand["links"][0]["pose_in_world"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(palm[..3], [1.0, 0.0, 1.0], "{palm:?}");
    let wrist = &m["joints"][0];
    assert_eq!(wrist["child_link"], "hand::palm");
    assert_eq!(wrist["axis"]["expressed_in"], "__model__");
    let in_joint: Vec<f64> = wrist["axis"]["xyz_in_joint"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(
        in_joint[0].abs() < 1e-9 && (in_joint[1] + 1.0).abs() < 1e-9,
        "the model's x in the joint frame, which is turned a quarter: {in_joint:?}"
    );

    let o = simcore(&["inspect", path]);
    assert!(o.status.success(), "{}", stderr(&o));
    let tree = stdout(&o);
    assert!(tree.contains("model arm at [0 0 0.5 | 0 0 0]"), "{tree}");
    assert!(
        tree.contains("joint wrist (revolute) base -> hand::palm"),
        "{tree}"
    );

    let o = simcore(&["run", path, "--steps", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("describes a model"), "{}", stderr(&o));

    // An unknown frame and a value that is not a number: exit 2, both reports on stderr,
    // `"ok": false` and both errors on stdout.
    let bad = tmp.path().join("bad.sdf");
    std::fs::write(
        &bad,
        "<sdf version='1.9'><model name='m'><link name='l'><pose relative_to='nowhere'/>\n<velocity_decay><linear>fast</linear></velocity_decay></link></model></sdf>",
    )
    .unwrap();
    let o = simcore(&["inspect", bad.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("relative_to \"nowhere\" is not a frame in model \"m\""),
        "{}",
        stderr(&o)
    );
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["ok"], false);
    assert_eq!(j["errors"][0]["code"], "UnknownReference");
    assert_eq!(j["errors"][0]["file"], "bad.sdf");
    assert_eq!(j["errors"].as_array().map(Vec::len), Some(2), "{j}");
    assert_eq!(j["errors"][1]["code"], "Invalid");
    assert_eq!(j["errors"][1]["line"], 2);
    assert_eq!(
        j["errors"][1]["message"],
        "<linear> expects a number, found \"fast\""
    );

    // `check` reports both, each with its source line, and fails.
    let o = simcore(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let report = stderr(&o);
    assert_eq!(report.matches("error: ").count(), 2, "{report}");
    assert!(
        report.contains("2 | <velocity_decay><linear>fast</linear>"),
        "{report}"
    );
    assert!(report.contains("2 errors\n"), "{report}");
    assert!(report.ends_with("bad.sdf: invalid\n"), "{report}");

    // A warning is printed and the file stays valid.
    let odd = tmp.path().join("odd.sdf");
    std::fs::write(
        &odd,
        "<sdf version='1.9'><model name='m'><static>true</static>\n<link name='l'><colour>red</colour></link></model></sdf>",
    )
    .unwrap();
    let o = simcore(&["check", odd.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: <colour> is not an element of <link> in SDF"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains(":2:"), "{}", stderr(&o));
    assert!(stdout(&o).contains("odd.sdf: OK"), "{}", stdout(&o));
}

#[test]
fn every_world_of_a_file_is_checked_and_inspected_and_the_first_is_run() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("junk.stl"), "not a mesh").unwrap();
    let world = |name: &str, geometry: &str| {
        format!(
            "<world name=\"{name}\"><model name=\"m\"><static>true</static><link name=\"l\">\
             <collision name=\"c\"><geometry>{geometry}</geometry></collision></link></model>\
             </world>"
        )
    };
    let file = tmp.path().join("two.sdf");
    std::fs::write(
        &file,
        format!(
            "<sdf version=\"1.9\">\n{}\n{}\n</sdf>\n",
            world("first", "<box><size>1 1 1</size></box>"),
            world("second", "<mesh><uri>junk.stl</uri></mesh>")
        ),
    )
    .unwrap();
    let path = file.to_str().unwrap();

    // `check` builds both worlds: the second one's mesh is not a mesh.
    let o = simcore(&["check", path]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("world \"second\" cannot be built"),
        "{}",
        stderr(&o)
    );
    // `inspect` prints both.
    let o = simcore(&["inspect", "--json", path]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let names: Vec<&str> = json["worlds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["first", "second"]);
    // `run` simulates the first and says that the second is ignored.
    let o = simcore(&["run", path, "--steps", "2", "--rtf", "0"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("simulates the first, \"first\", and ignores \"second\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn input_limits_are_set_by_flags_and_named_in_the_error() {
    // worlds/crates.sdf includes one model three times.
    let o = simcore(&["check", "worlds/crates.sdf", "--max-models", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("expand to more than 2 models"), "{err}");
    assert!(
        err.contains("--max-models"),
        "the hint names the flag: {err}"
    );
    let o = simcore(&["check", "worlds/crates.sdf", "--max-models", "10"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = simcore(&["check", "worlds/crates.sdf", "--max-file-size", "100"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a 100-byte cap refuses the world file"
    );
}

/// Log lines written into a pipe or a file carry no colour codes (they are for a terminal).
#[test]
fn log_lines_into_a_pipe_have_no_colour_codes() {
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("two.sdf");
    let one = |name: &str| {
        format!(
            "<world name=\"{name}\"><model name=\"m\"><static>true</static><link name=\"l\"/>\
             </model></world>"
        )
    };
    std::fs::write(
        &world,
        format!("<sdf version=\"1.9\">{}{}</sdf>", one("a"), one("b")),
    )
    .unwrap();
    let o = simcore(&["run", world.to_str().unwrap(), "--steps", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    // The warning the load logs about the second world, through the log.
    assert!(err.contains("the file has 2 worlds"), "{err}");
    assert!(!err.contains('\u{1b}'), "escape codes in a pipe: {err:?}");
}
