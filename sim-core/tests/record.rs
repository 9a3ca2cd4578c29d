//! `simcore run --record`: recordings of the real binary read back by independent readers
//! (the Python `mcap` reader with `mcap-ros2-support`, and `rosbags`' AnyReader, through
//! `tests/python/read_mcap.py`), compared with what `--echo` prints for the same run.

use crate::common;

use common::*;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};

const SCAN: &str = "/world/pioneer/model/pioneer/link/chassis/sensor/lidar/scan";
const IMU: &str = "/world/pioneer/model/pioneer/link/chassis/sensor/imu/imu";

/// What `read_mcap.py` says of a recording (None without the Python clients).
fn read(file: &Path, topics: &[&str]) -> Option<Value> {
    let python = python()?;
    let script = workspace().join("sim-core/tests/python/read_mcap.py");
    let o = Command::new(python)
        .arg(script)
        .arg(file)
        .args(topics)
        .output()
        .expect("python runs");
    assert!(o.status.success(), "read_mcap.py failed:\n{}", stderr(&o));
    Some(serde_json::from_slice(&o.stdout).expect("read_mcap.py prints JSON"))
}

/// Runs `worlds/pioneer.sdf` as fast as possible with the libraries of `libs`, recording to
/// `file`, with `extra` arguments.
fn run_pioneer(libs: &Path, file: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "run",
        "worlds/pioneer.sdf",
        "--rtf",
        "0",
        "--plugin-path",
        libs.to_str().unwrap(),
        "--record",
        file.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    simcore(&args)
}

/// The stamp of an `--echo` line, in nanoseconds.
fn ns_of(line: &Value) -> i64 {
    line["header"]["stamp"]["sec"].as_i64().unwrap() * 1_000_000_000
        + line["header"]["stamp"]["nsec"].as_i64().unwrap()
}

/// Starts the real `simcore` binary with `args` (stderr piped, stdout dropped), as
/// [`simcore`] runs it.
fn start(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(isolated(args))
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env("SIMCORE_LOG", "warn")
        .current_dir(workspace())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("simcore starts")
}

/// Sends SIGINT (what Ctrl-C sends) to a running `simcore`.
fn interrupt(child: &std::process::Child) {
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
}

fn f(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        v => v.as_f64().unwrap_or_else(|| panic!("not a number: {v}")),
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    a == b || (a - b).abs() <= tol * b.abs().max(1.0)
}

fn vec3(v: &Value) -> [f64; 3] {
    [f(&v["x"]), f(&v["y"]), f(&v["z"])]
}

fn assert_vec_close(a: [f64; 3], b: [f64; 3], tol: f64, what: &str) {
    for k in 0..3 {
        assert!(close(a[k], b[k], tol), "{what}: {a:?} != {b:?}");
    }
}

#[test]
fn a_recorded_pioneer_run_reads_back_in_both_readers_as_echo_printed_it() {
    let dir = stage(PIONEER_LIBS);
    let file = dir.path().join("run.mcap");
    let o = run_pioneer(
        dir.path(),
        &file,
        &[
            "--duration",
            "1",
            "--pub",
            r#"/model/pioneer/cmd_vel={"type":"Twist","linear":{"x":0.4},"angular":{"z":0.5}}@0"#,
            "--pub",
            r#"/acme/thing={"type":"Custom","schema":"acme/Thing","data":{"a":[1,2]}}@0.2"#,
            // Nothing in the world listens to /acme/thing: only the recording takes it.
            "--pub-any-topic",
            "--call",
            r#"/world/pioneer/create={"type":"EntityFactory","sdf_filename":"models/crate.sdf","pose":{"position":{"x":2,"y":-0.5,"z":0.2}},"allow_renaming":true}@0.5"#,
            "--echo",
            SCAN,
            "--echo",
            IMU,
        ],
    );
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("recorded "))
        .unwrap_or_else(|| panic!("no recording summary:\n{err}"));
    assert!(line.contains(" 0 dropped"), "{line}");
    let Some(r) = read(&file, &[SCAN, IMU, "/acme/thing"]) else {
        return;
    };
    assert!(
        line.contains(&format!("{} messages", r["statistics"]["message_count"])),
        "{line}"
    );

    // The ROS 2 profile as rosbag2 reads it: every CDR channel has its schema, QoS and hash.
    assert_eq!(r["header"]["profile"], "ros2");
    let channels = r["channels"].as_array().unwrap();
    for c in channels {
        if c["encoding"] == "cdr" {
            assert_eq!(c["schema_encoding"], "ros2msg", "{c}");
            let hash = c["metadata"]["topic_type_hash"]
                .as_str()
                .unwrap_or_default();
            assert!(hash.starts_with("RIHS01_"), "{c}");
            assert!(c["metadata"]["offered_qos_profiles"].is_string(), "{c}");
        } else {
            assert_eq!(c["encoding"], "json", "{c}");
        }
    }
    let schema_of = |topic: &str| -> &Value {
        &channels
            .iter()
            .find(|c| c["topic"] == topic)
            .unwrap_or_else(|| panic!("no channel {topic}: {channels:?}"))["schema"]
    };
    assert_eq!(schema_of(SCAN), "sensor_msgs/msg/LaserScan");
    assert_eq!(schema_of(IMU), "sensor_msgs/msg/Imu");
    assert_eq!(schema_of("/tf"), "tf2_msgs/msg/TFMessage");
    assert_eq!(schema_of("/tf_static"), "tf2_msgs/msg/TFMessage");
    assert_eq!(schema_of("/scene"), "visualization_msgs/msg/MarkerArray");
    assert_eq!(schema_of("/clock"), "rosgraph_msgs/msg/Clock");
    assert_eq!(
        schema_of("/model/pioneer/cmd_vel"),
        "geometry_msgs/msg/Twist"
    );
    let tf_static = channels
        .iter()
        .find(|c| c["topic"] == "/tf_static")
        .unwrap();
    assert!(
        tf_static["metadata"]["offered_qos_profiles"]
            .as_str()
            .unwrap()
            .contains("durability: 1"),
        "/tf_static is latched (transient local): {tf_static}"
    );
    // The QoS the live transport offers (tests/zenoh.rs reads its tokens): sensor data is
    // best effort, keep last 5; /clock and /tf reliable, keep last 10.
    let qos_of = |topic: &str| {
        channels
            .iter()
            .find(|c| c["topic"] == topic)
            .and_then(|c| c["metadata"]["offered_qos_profiles"].as_str())
            .unwrap_or_else(|| panic!("no QoS for {topic}: {channels:?}"))
            .to_string()
    };
    for sensor in [SCAN, IMU] {
        let q = qos_of(sensor);
        assert!(
            q.contains("depth: 5\n") && q.contains("reliability: 2\n"),
            "{sensor}: {q}"
        );
    }
    for reliable in ["/clock", "/tf"] {
        let q = qos_of(reliable);
        assert!(
            q.contains("depth: 10\n") && q.contains("reliability: 1\n"),
            "{reliable}: {q}"
        );
    }

    // Every message decodes in the mcap reader, and every CDR one in rosbags too.
    let per_topic = r["statistics"]["per_topic"].as_object().unwrap();
    let total: u64 = per_topic.values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(total, r["statistics"]["message_count"].as_u64().unwrap());
    assert_eq!(&r["decoded"], &r["statistics"]["per_topic"]);
    for c in channels.iter().filter(|c| c["encoding"] == "cdr") {
        let t = c["topic"].as_str().unwrap();
        assert_eq!(
            r["rosbags"][t], per_topic[t],
            "rosbags decodes every message of {t}"
        );
    }
    assert_eq!(
        per_topic["/clock"], 101,
        "/clock at 100 Hz over 1 s, both ends"
    );
    assert_eq!(per_topic["/tf"], 1001, "the robot moves every step");
    assert!(
        per_topic.contains_key("/model/pioneer/odometry"),
        "plugin topics are recorded"
    );

    // The scan and IMU values equal --echo's.
    let echo = json_lines(&stdout(&o));
    // Every sensor at the first step, then every period: 10 Hz and 100 Hz over 1 s.
    for (topic, n) in [(SCAN, 11), (IMU, 101)] {
        let printed: Vec<&Value> = echo.iter().filter(|l| l["topic"] == topic).collect();
        let recorded = r["messages"][topic].as_array().unwrap();
        assert_eq!(printed.len(), n, "{topic}");
        assert_eq!(recorded.len(), n, "{topic}");
        for (p, m) in printed.iter().zip(recorded) {
            assert_eq!(
                m["log_time"].as_i64(),
                Some(ns_of(p)),
                "log time = the stamp"
            );
            assert_eq!(m["sequence"], p["header"]["seq"]);
            let m = &m["value"];
            assert_eq!(m["header"]["frame_id"], p["header"]["frame_id"]);
            if topic == SCAN {
                let (a, b) = (
                    p["ranges"].as_array().unwrap(),
                    m["ranges"].as_array().unwrap(),
                );
                assert_eq!(a.len(), 360);
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(b) {
                    assert!(close(f(x), f(y), 1e-6), "range {x} recorded as {y}");
                }
                assert!(close(f(&p["range_max"]), f(&m["range_max"]), 1e-6));
                // scan_time is the scan period: the lidar's <update_rate> is 10 Hz.
                assert!(close(f(&m["scan_time"]), 0.1, 1e-7), "{}", m["scan_time"]);
            } else {
                for k in ["angular_velocity", "linear_acceleration", "orientation"] {
                    assert_vec_close(vec3(&p[k]), vec3(&m[k]), 1e-12, k);
                }
                assert!(close(
                    f(&p["orientation"]["w"]),
                    f(&m["orientation"]["w"]),
                    1e-12
                ));
            }
        }
    }

    // TF: the scan's frame resolves from the world through /tf and /tf_static to the pose
    // the lidar reports for each sample; the IMU's frame resolves too.
    let printed: Vec<&Value> = echo.iter().filter(|l| l["topic"] == SCAN).collect();
    let poses = r["world_poses"][SCAN].as_array().unwrap();
    for (p, w) in printed.iter().zip(poses) {
        assert!(w.is_object(), "the scan frame resolves to the world: {w}");
        let wp = &p["world_pose"];
        let at = w["position"].as_array().unwrap();
        assert_vec_close(
            [f(&at[0]), f(&at[1]), f(&at[2])],
            vec3(&wp["position"]),
            1e-9,
            "lidar position",
        );
        let q = w["orientation"].as_array().unwrap();
        let e = &wp["orientation"];
        let dot = f(&q[0]) * f(&e["x"])
            + f(&q[1]) * f(&e["y"])
            + f(&q[2]) * f(&e["z"])
            + f(&q[3]) * f(&e["w"]);
        assert!(
            (dot.abs() - 1.0).abs() < 1e-9,
            "lidar orientation {q:?} vs {e}"
        );
    }
    let moved = poses.last().unwrap()["position"][0].as_f64().unwrap();
    assert!(moved > 0.2, "the robot drove, and TF followed: x = {moved}");
    for w in r["world_poses"][IMU].as_array().unwrap() {
        assert!(w.is_object(), "the IMU frame resolves to the world");
    }

    // The scene: one marker per visual of the world, in its link's frame, with its shape and
    // colour; again with the crate once it is created.
    let scenes = r["scene"].as_array().unwrap();
    assert_eq!(scenes.len(), 2, "at the start and when the crate came");
    let marker = |scene: &Value, frame: &str| -> Value {
        scene["markers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["header"]["frame_id"] == frame)
            .unwrap_or_else(|| panic!("no marker in frame {frame}: {scene}"))
            .clone()
    };
    let first = &scenes[0];
    assert_eq!(
        first["markers"][0]["action"], 3,
        "a scene starts by clearing the last"
    );
    let visuals = first["markers"].as_array().unwrap().len() - 1;
    let sdf = std::fs::read_to_string(workspace().join("worlds/pioneer.sdf")).unwrap();
    assert_eq!(
        visuals,
        sdf.matches("<visual ").count(),
        "one marker per visual"
    );
    let chassis = marker(first, "pioneer::chassis");
    assert_eq!(chassis["type"], 1, "a box");
    assert_vec_close(
        vec3(&chassis["scale"]),
        [0.4, 0.3, 0.1],
        1e-12,
        "chassis size",
    );
    let c = &chassis["color"];
    assert_vec_close(
        [f(&c["r"]), f(&c["g"]), f(&c["b"])],
        [0.8, 0.2, 0.1],
        1e-6,
        "colour",
    );
    assert_eq!(chassis["frame_locked"], true);
    let wheel = marker(first, "pioneer::left_wheel");
    assert_eq!(wheel["type"], 3, "a cylinder");
    assert_vec_close(vec3(&wheel["scale"]), [0.2, 0.2, 0.04], 1e-12, "wheel size");
    let caster = marker(first, "pioneer::caster");
    assert_eq!(caster["type"], 2, "a sphere");
    assert_vec_close(
        vec3(&caster["scale"]),
        [0.1, 0.1, 0.1],
        1e-12,
        "caster size",
    );
    let ground = marker(first, "ground::plane");
    assert_vec_close(
        vec3(&ground["scale"]),
        [50.0, 50.0, 0.001],
        1e-12,
        "ground size",
    );
    let second = &scenes[1];
    assert_eq!(
        second["log_time"], 500_000_000,
        "when the --call at 0.5 s created it"
    );
    let crate_marker = marker(second, "crate::body");
    assert_vec_close(
        vec3(&crate_marker["scale"]),
        [0.3, 0.3, 0.3],
        1e-12,
        "crate size",
    );
    assert_eq!(second["markers"].as_array().unwrap().len(), visuals + 2);

    // A custom payload keeps its encoding and schema name.
    assert_eq!(schema_of("/acme/thing"), "acme/Thing");
    let custom = &r["messages"]["/acme/thing"][0];
    assert_eq!(
        custom["value"],
        serde_json::json!({"a": [1, 2]}),
        "{custom}"
    );
    assert_eq!(custom["log_time"], 200_000_000);

    let meta = &r["metadata"]["simcore"];
    assert_eq!(meta["world"], "worlds/pioneer.sdf");
    assert_eq!(meta["seed"], "0");
    assert_eq!(meta["simcore_version"], env!("CARGO_PKG_VERSION"));
    assert!(
        meta["plugins"]
            .as_str()
            .unwrap()
            .contains("simcore_plugin_lidar"),
        "{meta}"
    );
}

#[test]
fn record_topic_limits_the_bus_topics_and_the_manifest_can_ask_for_a_recording() {
    let dir = stage(PIONEER_LIBS);
    let manifest = dir.path().join("run.toml");
    std::fs::write(
        &manifest,
        format!(
            "world = \"{}\"\nrecord = \"out.mcap\"\nrecord_topics = [\"{IMU}\"]\nplugin_paths = [\".\"]\nreal_time_factor = 0\n",
            workspace().join("worlds/pioneer.sdf").display()
        ),
    )
    .unwrap();
    let o = simcore(&["run", manifest.to_str().unwrap(), "--steps", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let file = dir.path().join("out.mcap");
    assert!(file.exists(), "the manifest's path is relative to it");
    let Some(r) = read(&file, &[]) else { return };
    let mut topics: Vec<&str> = r["statistics"]["per_topic"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    topics.sort();
    assert_eq!(topics, ["/clock", "/scene", "/tf", "/tf_static", IMU]);
}

/// Whether `name` is a ROS 2 topic name by rcl's rules: `/`-separated tokens of
/// `[A-Za-z0-9_]`, none empty or starting with a digit, no `__`.
fn valid_ros_name(name: &str) -> bool {
    name.starts_with('/')
        && !name.contains("__")
        && name[1..].split('/').all(|t| {
            !t.is_empty()
                && !t.starts_with(|c: char| c.is_ascii_digit())
                && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

#[test]
fn a_recording_names_its_channels_as_the_transport_names_the_topics() {
    let dir = stage(&["simcore_plugin_imu"]);
    // Names ROS 2 refuses in topics (`-`, `.`), as Gazebo worlds write them.
    let sdf = world(&format!(
        "{}\n{}",
        box_model("rover-1", 1.0, &imu("imu-1", 50.0, "")),
        box_model("rover.2", 2.0, &imu("imu-2", 50.0, "")),
    ));
    let file = dir.path().join("w.sdf");
    std::fs::write(&file, sdf).unwrap();
    let second = "/world/test/model/rover.2/link/body/sensor/imu-2/imu";
    let manifest = dir.path().join("run.toml");
    std::fs::write(
        &manifest,
        format!("[[ros.remap]]\nfrom = \"{second}\"\nto = \"rover2/imu\"\n"),
    )
    .unwrap();
    let mcap = dir.path().join("run.mcap");
    let o = simcore(&[
        "run",
        file.to_str().unwrap(),
        "--rtf",
        "0",
        "--duration",
        "0.2",
        "--plugin-path",
        dir.path().to_str().unwrap(),
        "--manifest",
        manifest.to_str().unwrap(),
        "--record",
        mcap.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let first = "/world/test/model/rover_1/link/body/sensor/imu_1/imu";
    let Some(r) = read(&mcap, &[first, "/rover2/imu"]) else {
        return;
    };
    let topics: Vec<&str> = r["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["topic"].as_str().unwrap())
        .collect();
    for t in &topics {
        assert!(valid_ros_name(t), "{t} is no ROS 2 name: {topics:?}");
    }
    // The rule's name for the first IMU, the manifest's for the second, as over Zenoh.
    assert!(
        topics.contains(&first) && topics.contains(&"/rover2/imu"),
        "{topics:?}"
    );
    // rosbag2's reader takes every CDR channel under those names.
    for t in [first, "/rover2/imu"] {
        assert_eq!(r["rosbags"][t], r["statistics"]["per_topic"][t], "{t}");
        assert!(
            r["rosbags"][t].as_u64().unwrap() >= 9,
            "{t}: {}",
            r["rosbags"]
        );
    }
    // Frame ids stay as the world writes them.
    let frame = &r["messages"][first][0]["value"]["header"]["frame_id"];
    assert!(frame.as_str().unwrap().contains("rover-1"), "{frame}");
}

#[test]
fn an_unwritable_path_is_one_clear_error_before_the_run() {
    let dir = stage(PIONEER_LIBS);
    let file = dir.path().join("no/such/dir/run.mcap");
    let o = run_pioneer(dir.path(), &file, &["--steps", "10"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("error: cannot record to") && err.contains("run.mcap"),
        "{err}"
    );
    assert!(!err.contains("steps, sim time"), "nothing ran: {err}");
}

#[test]
fn a_full_disk_stops_the_recording_once_and_the_run_goes_on() {
    let dir = stage(PIONEER_LIBS);
    let file = dir.path().join("run.mcap");
    // The file may not grow past 200 blocks (SIGXFSZ ignored, so writes past the limit
    // fail as on a full disk); the 3 s run writes about ten times more.
    let o = Command::new("sh")
        .args(["-c", r#"trap "" XFSZ; ulimit -f 200; exec "$0" "$@""#])
        .arg(env!("CARGO_BIN_EXE_simcore"))
        .args(isolated(&[
            "run",
            "worlds/pioneer.sdf",
            "--rtf",
            "0",
            "--duration",
            "3",
            "--plugin-path",
        ]))
        .arg(dir.path())
        .arg("--record")
        .arg(&file)
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env("SIMCORE_LOG", "warn")
        .current_dir(workspace())
        .output()
        .expect("sh runs");
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        err.matches("error: writing ").count(),
        1,
        "said once: {err}"
    );
    assert!(err.contains("3000 steps"), "the run went on: {err}");
    assert!(
        err.contains("recorded ") && err.contains("incomplete"),
        "{err}"
    );
}

#[test]
fn a_plugin_failure_and_ctrl_c_leave_a_complete_file() {
    let dir = stage(&["simcore_fixture_testkit", "simcore_plugin_imu"]);
    let world = dir.path().join("w.sdf");
    let panicker = r#"<plugin filename="simcore_fixture_testkit" name="simcore::fixtures::Panicker"><panic_at>20</panic_at></plugin>"#;
    let models = format!("{panicker}{}", box_model("box", 0.5, &imu("s", 100.0, "")));
    std::fs::write(
        &world,
        common::world(&models).replace("<real_time_factor>0<", "<real_time_factor>1<"),
    )
    .unwrap();
    let file = dir.path().join("run.mcap");
    let mut child = start(&[
        "run",
        world.to_str().unwrap(),
        "--plugin-path",
        dir.path().to_str().unwrap(),
        "--record",
        file.to_str().unwrap(),
    ]);
    // Runs in real time with no end: stop it once the panicking plugin has been disabled (at
    // step 20) and the run has gone on for a while after it, however long start-up took.
    let lines = std::io::BufRead::lines(std::io::BufReader::new(child.stderr.take().unwrap()));
    let (disabled, seen) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in lines.map_while(Result::ok) {
            if line.contains("disabled") {
                let _ = disabled.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let told = seen.recv_timeout(std::time::Duration::from_secs(120));
    std::thread::sleep(std::time::Duration::from_millis(1500));
    interrupt(&child);
    let status = child.wait().expect("simcore ends");
    let err = reader.join().expect("stderr read");
    assert!(
        told.is_ok(),
        "the failing plugin is reported while the run goes on: {err}"
    );
    assert_eq!(status.code(), Some(1), "a plugin was disabled: {err}");
    assert!(err.contains("(interrupted)"), "{err}");
    assert!(
        err.contains("Panicker") && err.contains("disabled"),
        "{err}"
    );
    let Some(r) = read(&file, &["/world/test/model/box/link/body/sensor/s/imu"]) else {
        return;
    };
    let n = r["statistics"]["message_count"].as_u64().unwrap();
    assert!(n > 100, "the summary counts what was written: {n}");
    assert_eq!(&r["decoded"], &r["statistics"]["per_topic"]);
    let panicker_steps = r["statistics"]["per_topic"]["/fixture/panicker"].as_u64();
    assert_eq!(panicker_steps, Some(20), "its steps until it was disabled");
    assert!(
        !r["messages"]["/world/test/model/box/link/body/sensor/s/imu"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn what_the_writer_cannot_take_is_dropped_and_counted_never_waited_for() {
    let dir = stage(&[]);
    let sdf = world(&box_model("box", 0.5, ""));
    let steps = 200;
    // Per run: /tf_static, /scene, /tf before the first step and after each (the box falls),
    // /clock at 0, 10 ms, ..., 200 ms.
    let expected = 2 + (steps + 1) + (steps / 10 + 1);
    for queue in [1, 0] {
        let mut sim = sim_from(&sdf, dir.path(), 0, 1);
        let path = dir.path().join(format!("q{queue}.mcap"));
        let options = sim_core::record::RecordOptions {
            path: Some(path.clone()),
            queue,
            ..Default::default()
        };
        let mut rec = sim_core::record::Recorder::start(&mut sim, options).expect("starts");
        for _ in 0..steps {
            sim.step();
            rec.after_step(&sim);
        }
        let s = rec.finish().expect("a file was written");
        assert_eq!(s.error, None);
        assert_eq!(s.messages + s.dropped, expected, "queue {queue}: {s:?}");
        if queue == 0 {
            assert_eq!(s.dropped, 0, "the default queue keeps up: {s:?}");
        }
        assert_eq!(s.bytes, std::fs::metadata(&path).unwrap().len());
    }
}

#[test]
fn foxglove_serves_the_channels_live_to_a_websocket_client() {
    let Some(python) = python() else { return };
    let dir = stage(PIONEER_LIBS);
    let (child, url, rx, reader) = live("worlds/pioneer.sdf", dir.path(), &[]);
    assert!(url.starts_with("ws://127.0.0.1:"), "{url}");
    let script = workspace().join("sim-core/tests/python/foxglove_client.py");
    let client = Command::new(&python)
        .arg(&script)
        .args([url.as_str(), "/clock", "3"])
        .output()
        .expect("python runs");
    // A client that connects late still gets the scene: it is sent again every second.
    let late = Command::new(&python)
        .arg(&script)
        .args([url.as_str(), "/scene", "1"])
        .output()
        .expect("python runs");
    interrupt(&child);
    let rest = ended(child, reader, rx, &client);
    assert!(
        !rest.iter().any(|l| l.contains("recorded ")),
        "no file without --record"
    );

    let r: Value = serde_json::from_slice(&client.stdout).expect("the client prints JSON");
    assert_eq!(r["subprotocol"], "foxglove.sdk.v1");
    assert!(r["server"].as_str().unwrap().starts_with("simcore"), "{r}");
    let channels: Vec<&str> = r["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    for t in ["/clock", "/tf", "/tf_static", "/scene", SCAN, IMU] {
        assert!(channels.contains(&t), "{t} advertised: {channels:?}");
    }
    let messages = r["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    let mut last = 0;
    for m in messages {
        assert_eq!(m["subscription"], 1);
        let clock = &m["value"]["clock"];
        let ns =
            clock["sec"].as_u64().unwrap() * 1_000_000_000 + clock["nanosec"].as_u64().unwrap();
        assert_eq!(m["log_time"].as_u64(), Some(ns), "log time = sim time: {m}");
        assert!(ns > last || last == 0, "sim time advances: {messages:?}");
        last = ns;
    }
    assert!(
        !r["times"].as_array().unwrap().is_empty(),
        "the server broadcasts sim time"
    );

    assert!(late.status.success(), "client failed:\n{}", stderr(&late));
    let r: Value = serde_json::from_slice(&late.stdout).expect("the client prints JSON");
    let markers = r["messages"][0]["value"]["markers"].as_array().unwrap();
    let sdf = std::fs::read_to_string(workspace().join("worlds/pioneer.sdf")).unwrap();
    assert_eq!(
        markers.len(),
        1 + sdf.matches("<visual ").count(),
        "the whole scene"
    );
}

/// A Foxglove client drives a paused run through the run-control services (the engine's run
/// control, as the Zenoh services are): state, steps answered once taken, a refused request
/// naming its field, play and pause, a reset, and quitting ends the run, even while it takes
/// more steps than anyone would wait for.
#[test]
fn a_foxglove_client_pauses_steps_plays_resets_and_ends_the_run() {
    let Some(python) = python() else { return };
    let dir = stage(PIONEER_LIBS);
    let args = ["--no-transport", "--paused"];
    let (child, url, rx, reader) = live("worlds/pioneer.sdf", dir.path(), &args);
    let script = workspace().join("sim-core/tests/python/foxglove_control.py");
    let client = Command::new(&python)
        .arg(&script)
        .arg(url.as_str())
        .output()
        .expect("python runs");
    // Quitting ends the run, whose summary says so.
    ended(child, reader, rx, &client);
    let r: Value = serde_json::from_slice(&client.stdout).expect("the client prints JSON");
    assert!(
        r["capabilities"]
            .as_array()
            .unwrap()
            .contains(&json!("services")),
        "{r}"
    );
    assert_eq!(
        r["services"],
        json!([
            "/get_simulation_state",
            "/reset_simulation",
            "/set_simulation_state",
            "/step_simulation"
        ])
    );
    assert_eq!(r["request_schemas"]["/step_simulation"], "jsonschema");
    let replies = r["replies"].as_array().unwrap();
    let ok = |i: usize| &replies[i]["ok"];
    let iteration = |i: usize| ok(i)["iteration"].as_u64().unwrap();
    // Paused from the start.
    assert_eq!(ok(0)["state"], "paused", "{r}");
    assert_eq!(iteration(0), 0);
    // 25 steps, answered once taken.
    assert_eq!(ok(1)["state"], "paused");
    assert_eq!(iteration(1), 25);
    assert!(
        (ok(1)["sim_time"].as_f64().unwrap() - 0.025).abs() < 1e-9,
        "{r}"
    );
    // A bad request is refused, naming its field; nothing is taken.
    assert_eq!(
        replies[2]["error"],
        "`steps` must be a whole number, 0 or more, found -1"
    );
    // Playing: steps are refused (the engine's check), and the run goes on by itself.
    assert_eq!(ok(3)["state"], "playing");
    assert_eq!(
        replies[4]["error"],
        "the simulation is not paused (pause it first)"
    );
    assert_eq!(ok(5)["state"], "paused");
    let paused_at = iteration(5);
    assert!(paused_at > 25, "it played: {r}");
    assert_eq!(iteration(6), paused_at, "paused, it stays: {r}");
    // A reset takes the world back to the start, still paused.
    assert_eq!(ok(7)["state"], "paused");
    assert_eq!(iteration(7), 0);
    assert_eq!(ok(7)["sim_time"], 0.0);
    // Quitting ends steps being taken; their call is refused.
    assert_eq!(ok(8)["state"], "quitting");
    assert!(iteration(8) > 0, "the long grant was being taken: {r}");
    assert_eq!(replies[9]["error"], "the simulation is quitting");
}

/// Waits for the run `child` to end after its client did, both with success, the run's
/// summary saying it was interrupted; returns the run's stderr lines after the address.
fn ended(
    mut child: std::process::Child,
    reader: std::thread::JoinHandle<()>,
    rx: std::sync::mpsc::Receiver<String>,
    client: &std::process::Output,
) -> Vec<String> {
    let status = child.wait().expect("simcore ends");
    reader.join().unwrap();
    let rest: Vec<String> = rx.try_iter().collect();
    assert!(
        client.status.success(),
        "client failed:\n{}",
        stderr(client)
    );
    assert!(status.success(), "{rest:?}");
    assert!(
        rest.iter().any(|l| l.contains("(interrupted)")),
        "the run's summary follows: {rest:?}"
    );
    rest
}

/// `simcore run WORLD --plugin-path DIR --foxglove 127.0.0.1:0 ARGS...` started, with the
/// address it serves on and its other stderr lines ([`served_at`]).
fn live(
    world: &str,
    dir: &Path,
    args: &[&str],
) -> (
    std::process::Child,
    String,
    std::sync::mpsc::Receiver<String>,
    std::thread::JoinHandle<()>,
) {
    let dir = dir.to_str().unwrap();
    let mut all = vec![
        "run",
        world,
        "--plugin-path",
        dir,
        "--foxglove",
        "127.0.0.1:0",
    ];
    all.extend_from_slice(args);
    let mut child = start(&all);
    let (url, rx, reader) = served_at(&mut child);
    (child, url, rx, reader)
}

/// The address a `simcore run --foxglove` serves on (the first line of its stderr that names
/// it), and its other stderr lines as [`stderr_lines`] reads them.
fn served_at(
    child: &mut std::process::Child,
) -> (
    String,
    std::sync::mpsc::Receiver<String>,
    std::thread::JoinHandle<()>,
) {
    let (rx, reader) = stderr_lines(child);
    let mut seen = Vec::new();
    loop {
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(l) => match l.strip_prefix("serving Foxglove on ") {
                Some(u) => return (u.to_string(), rx, reader),
                None => seen.push(l),
            },
            Err(_) => {
                let _ = child.kill();
                panic!("no server address on stderr: {seen:?}");
            }
        }
    }
}

/// Reads lines of `child`'s stderr on a thread, sending each on the returned channel.
fn stderr_lines(
    child: &mut std::process::Child,
) -> (
    std::sync::mpsc::Receiver<String>,
    std::thread::JoinHandle<()>,
) {
    let (lines, rx) = std::sync::mpsc::channel();
    let err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        for l in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            let _ = lines.send(l);
        }
    });
    (rx, reader)
}

#[test]
fn foxglove_clients_that_stop_reading_cost_only_their_own_messages() {
    let Some(python) = python() else { return };
    let dir = stage(PIONEER_LIBS);
    let file = dir.path().join("stuck.mcap");
    let args = [
        "--rtf",
        "0",
        // Small enough that the clients' largest channels are refused, and sent again to
        // the second when the first leaves (as the run ends).
        "--foxglove-memory",
        "1",
        "--record",
        file.to_str().unwrap(),
    ];
    let (mut child, url, rx, reader) = live("worlds/pioneer.sdf", dir.path(), &args);
    // Clients that stop reading: two subscribed to every channel, one that never sends its
    // handshake, one that sends half of it. Each says when it is in place.
    let script = workspace().join("sim-core/tests/python/foxglove_stuck_client.py");
    let mut clients: Vec<std::process::Child> = ["subscribe", "subscribe", "silent", "half"]
        .iter()
        .map(|mode| {
            Command::new(&python)
                .arg(&script)
                .args([url.as_str(), mode])
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("python runs")
        })
        .collect();
    for c in &mut clients {
        use std::io::BufRead;
        let mut line = String::new();
        std::io::BufReader::new(c.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(!line.is_empty(), "a client failed to get in place");
        if let Some(n) = line.strip_prefix("subscribed ") {
            let n: usize = n.trim().parse().unwrap();
            assert!(n >= 5, "every channel subscribed: {line}");
        }
    }
    // Long enough for the subscribed client's socket buffers to fill at full speed.
    std::thread::sleep(std::time::Duration::from_secs(3));
    interrupt(&child);
    // A watchdog, not a timing assertion: a run that hangs is killed and the test fails.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    for c in &mut clients {
        let _ = c.kill();
        let _ = c.wait();
    }
    reader.join().unwrap();
    let rest: Vec<String> = rx.try_iter().collect();
    let status = status.unwrap_or_else(|| panic!("no end 30 s after SIGINT: {rest:?}"));
    assert!(status.success(), "{rest:?}");
    assert!(
        !rest.iter().any(|l| l.contains("panicked")),
        "no thread panics: {rest:?}"
    );
    assert!(
        rest.iter()
            .any(|l| l.contains("is not sent to this client")),
        "the bound refused channels: {rest:?}"
    );
    assert!(
        rest.iter().any(|l| l.contains("(interrupted)")),
        "the run's summary follows: {rest:?}"
    );
    assert!(
        rest.iter().any(|l| l.contains("recorded ")),
        "the recording is summed up: {rest:?}"
    );
    // The recording is complete: both readers read it to its end.
    let Some(r) = read(&file, &[]) else { return };
    assert!(
        r["decoded"]["/clock"].as_u64().unwrap_or(0) > 100,
        "the run went on at full speed: {}",
        r["decoded"]
    );
}

#[test]
fn foxglove_clients_share_one_memory_bound_and_the_first_to_subscribe_keep_their_channels() {
    let Some(python) = python() else { return };
    let dir = stage(&["simcore_plugin_camera"]);
    // A 320 x 240 RGB image is 230,400 bytes: a client's queue of 256 can hold 59 MB of them.
    // The bound, 100 MiB, leaves room for one client subscribed to it and not two.
    let world = dir.path().join("camera.sdf");
    std::fs::write(
        &world,
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="budget">
    <model name="cam">
      <static>true</static>
      <link name="l">
        <sensor name="c" type="camera">
          <update_rate>30</update_rate>
          <camera><image><width>320</width><height>240</height></image></camera>
        </sensor>
      </link>
    </model>
  </world>
</sdf>
"#,
    )
    .unwrap();
    let args = ["--rtf", "0", "--foxglove-memory", "100"];
    let (mut child, url, rx, reader) = live(world.to_str().unwrap(), dir.path(), &args);
    let script = workspace().join("sim-core/tests/python/foxglove_clients_budget.py");
    let out = Command::new(&python)
        .arg(&script)
        .args([url.as_str(), "sensor/c/image"])
        .output()
        .expect("python runs");
    interrupt(&child);
    let status = child.wait().expect("simcore ends");
    reader.join().unwrap();
    let rest: Vec<String> = rx.try_iter().collect();
    assert!(out.status.success(), "clients failed:\n{}", stderr(&out));
    assert!(status.success(), "{rest:?}");
    assert!(
        !rest.iter().any(|l| l.contains("panicked")),
        "no thread panics: {rest:?}"
    );
    let clients: Value = serde_json::from_slice(&out.stdout).expect("the clients print JSON");
    let [first, second, third] = [&clients[0], &clients[1], &clients[2]];
    // The first to subscribe is served (hundreds of images) and told nothing.
    assert!(first["before"].as_u64().unwrap() > 20, "{first}");
    assert_eq!(first["statuses"], serde_json::json!([]), "{first}");
    // The others are refused the images, told why, and the run says so (rate-limited). The
    // `foxglove` crate routes a channel to a client before telling simcore of the
    // subscription, so an image published in that moment may still reach a refused client:
    // a message or two, where the first, served, gets hundreds.
    for c in [second, third] {
        let early = c["before"].as_u64().unwrap();
        assert!(early <= 2, "refused while the first is there: {c}");
        let statuses = c["statuses"].as_array().unwrap();
        assert_eq!(statuses.len(), 1, "{c}");
        let m = statuses[0]["message"].as_str().unwrap();
        assert!(
            m.contains("sensor/c/image is not sent to this client")
                && m.contains("59.0 MB")
                && m.contains("104.9 MB")
                && m.contains("--foxglove-memory"),
            "{m}"
        );
    }
    assert!(
        rest.iter()
            .any(|l| l.contains("WARN") && l.contains("is not sent to this client")),
        "{rest:?}"
    );
    // When the first leaves, the second (the next to have subscribed) gets the images; the
    // third still does not.
    assert!(second["after"].as_u64().unwrap() > 0, "{clients}");
    assert_eq!(third["after"], 0, "{third}");
}

#[test]
fn height_maps_and_polylines_are_triangle_list_markers_of_their_geometry() {
    let dir = tempfile::tempdir().unwrap();
    // A 5 x 5 height map brightening along its columns: 0 at the left edge, 255 at the right.
    let mut image = Vec::new();
    {
        let mut e = png::Encoder::new(&mut image, 5, 5);
        e.set_color(png::ColorType::Grayscale);
        e.set_depth(png::BitDepth::Eight);
        let mut w = e.write_header().unwrap();
        let rows: Vec<u8> = (0..25u32).map(|k| ((k % 5) * 255 / 4) as u8).collect();
        w.write_image_data(&rows).unwrap();
    }
    std::fs::write(dir.path().join("terrain.png"), image).unwrap();
    let world = r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="shapes">
    <model name="terrain">
      <static>true</static>
      <link name="l">
        <visual name="v">
          <geometry><heightmap><uri>terrain.png</uri><size>10 10 2</size><pos>0 0 0</pos></heightmap></geometry>
          <material><diffuse>0.3 0.6 0.2 1</diffuse></material>
        </visual>
      </link>
    </model>
    <model name="wall">
      <static>true</static>
      <pose>3 0 0 0 0 0</pose>
      <link name="l">
        <visual name="v">
          <geometry><polyline><point>0 0</point><point>1 0</point><point>1 1</point><point>0 1</point><height>0.5</height></polyline></geometry>
          <material><diffuse>0.7 0.7 0.1 1</diffuse></material>
        </visual>
      </link>
    </model>
  </world>
</sdf>"#;
    let sdf = dir.path().join("shapes.sdf");
    std::fs::write(&sdf, world).unwrap();
    let file = dir.path().join("shapes.mcap");
    let o = simcore_in(
        dir.path(),
        &[
            "run",
            sdf.to_str().unwrap(),
            "--rtf",
            "0",
            "--steps",
            "2",
            "--record",
            file.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let Some(r) = read(&file, &[]) else {
        return;
    };
    let markers = r["scene"][0]["markers"].as_array().unwrap().clone();
    let marker = |frame: &str| {
        markers
            .iter()
            .find(|m| m["header"]["frame_id"] == frame)
            .unwrap_or_else(|| panic!("no marker in frame {frame}: {markers:?}"))
            .clone()
    };
    let points = |m: &Value| -> Vec<[f64; 3]> {
        m["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| [f(&p["x"]), f(&p["y"]), f(&p["z"])])
            .collect()
    };

    // The terrain: 4 x 4 cells of two triangles, 10 m square, 0 to 2 m high, highest along
    // the +x edge (the image's brightest column is its right one).
    let t = marker("terrain::l");
    assert_eq!(t["type"], 11, "TRIANGLE_LIST");
    let c = &t["color"];
    assert_vec_close(
        [f(&c["r"]), f(&c["g"]), f(&c["b"])],
        [0.3, 0.6, 0.2],
        1e-6,
        "colour",
    );
    let p = points(&t);
    assert_eq!(p.len(), 4 * 4 * 2 * 3);
    assert!(
        p.iter()
            .all(|q| q[0].abs() <= 5.0 + 1e-5 && q[1].abs() <= 5.0 + 1e-5),
        "{p:?}"
    );
    let (lo, hi) = p
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), q| (a.min(q[2]), b.max(q[2])));
    assert!(close(lo, 0.0, 1e-5) && close(hi, 2.0, 1e-5), "{lo} {hi}");
    for q in &p {
        // The height is that of the image column at x (columns 2.5 m apart), scaled so
        // that the brightest (255) is 2 m.
        let column = ((q[0] + 5.0) / 2.5).round() as u32;
        let value = f64::from(column * 255 / 4);
        assert!(close(q[2], value / 255.0 * 2.0, 1e-4), "{q:?}");
    }

    // The polyline: a unit square extruded to 0.5 m, top, bottom and four walls.
    let w = marker("wall::l");
    assert_eq!(w["type"], 11, "TRIANGLE_LIST");
    let p = points(&w);
    assert_eq!(p.len(), (2 + 2 + 4 * 2) * 3);
    assert!(p.iter().all(|q| (-1e-6..=1.0 + 1e-6).contains(&q[0])
        && (-1e-6..=1.0 + 1e-6).contains(&q[1])
        && (close(q[2], 0.0, 1e-6) || close(q[2], 0.5, 1e-6))));
    let area_top: f64 = p
        .chunks(3)
        .filter(|t| t.iter().all(|q| close(q[2], 0.5, 1e-6)))
        .map(|t| {
            let (a, b) = (
                [t[1][0] - t[0][0], t[1][1] - t[0][1]],
                [t[2][0] - t[0][0], t[2][1] - t[0][1]],
            );
            (a[0] * b[1] - a[1] * b[0]).abs() / 2.0
        })
        .sum();
    assert!(
        close(area_top, 1.0, 1e-6),
        "the top covers the square: {area_top}"
    );
}

/// The rows of `entity`'s chunks in `rerun rrd print`'s listing whose data columns include
/// `column`.
fn rerun_rows(listing: &str, entity: &str, column: &str) -> u64 {
    listing
        .lines()
        .filter(|l| l.contains(&format!(" - {entity} - ")) && l.contains(column))
        .map(|l| {
            let rows = l.split(" with ").nth(1).and_then(|r| r.split(' ').next());
            rows.and_then(|n| n.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("no row count in {l}"))
        })
        .sum()
}

/// A recording opens in Rerun: its own `rerun mcap convert` decodes the ROS 2 messages into
/// Rerun's types (IMU readings as scalars, the lidar's point cloud as 3-D points, `/tf` and
/// `/tf_static` as transforms), one row per recorded message, and `rerun rrd verify` accepts
/// the result.
#[test]
fn a_recording_opens_in_rerun() {
    let Some(python) = python() else { return };
    let rerun = python.with_file_name("rerun");
    assert!(
        rerun.exists(),
        "{} is missing: install python/requirements.txt",
        rerun.display()
    );
    let dir = stage(PIONEER_LIBS);
    let file = dir.path().join("run.mcap");
    let o = run_pioneer(dir.path(), &file, &["--duration", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let points = format!("{SCAN}/points");
    let Some(r) = read(&file, &[IMU, "/tf", "/tf_static", points.as_str()]) else {
        return;
    };
    let rrd = dir.path().join("run.rrd");
    let converted = Command::new(&rerun)
        .args(["mcap", "convert"])
        .arg(&file)
        .arg("-o")
        .arg(&rrd)
        .output()
        .expect("rerun runs");
    assert!(converted.status.success(), "{}", stderr(&converted));
    let verified = Command::new(&rerun)
        .args(["rrd", "verify"])
        .arg(&rrd)
        .output()
        .expect("rerun runs");
    assert!(verified.status.success(), "{}", stderr(&verified));
    let printed = Command::new(&rerun)
        .args(["rrd", "print"])
        .arg(&rrd)
        .output()
        .expect("rerun runs");
    assert!(printed.status.success(), "{}", stderr(&printed));
    let listing = String::from_utf8_lossy(&printed.stdout).into_owned()
        + &String::from_utf8_lossy(&printed.stderr);
    // One row per message, and one per transform of a TFMessage.
    let count = |topic: &str| r["statistics"]["per_topic"][topic].as_u64().unwrap();
    let transforms = |topic: &str| {
        r["messages"][topic]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["value"]["transforms"].as_array().unwrap().len() as u64)
            .sum::<u64>()
    };
    for (entity, column, n) in [
        (IMU, "Scalars:scalars", count(IMU)),
        (points.as_str(), "Points3D:positions", count(&points)),
        ("/tf", "Transform3D:translation", transforms("/tf")),
        (
            "/tf_static",
            "Transform3D:translation",
            transforms("/tf_static"),
        ),
    ] {
        assert!(n > 0, "{entity} recorded");
        assert_eq!(
            rerun_rows(&listing, entity, column),
            n,
            "{entity}: {column} rows\n{listing}"
        );
    }
}
