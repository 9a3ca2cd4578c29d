//! The Zenoh transport through the real `simcore` binary and an independent ROS 2 client
//! (`tests/python/ros_client.py`: eclipse-zenoh and rosbags from PyPI, no simcore code) on
//! loopback ports of their own: discovery through liveliness tokens, keys, hashes and
//! attachments, messages equal to `--echo`'s, a Twist that drives the robot, and the same
//! through a Zenoh router (the multi-host path).

use crate::common;

use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SCAN: &str = "/world/pioneer/model/pioneer/link/chassis/sensor/lidar/scan";
const ODOM: &str = "/model/pioneer/odometry";
const IMU: &str = "/world/imu_drop/model/box/link/body/sensor/imu/imu";

/// The plugin libraries `worlds/imu_drop.sdf` needs.
const IMU_DROP_PLUGINS: &[&str] = &[
    "simcore_plugin_imu",
    "simcore_plugin_truth",
    "simcore_plugin_factory",
];

/// A Zenoh endpoint on a free loopback port.
fn loopback() -> String {
    format!("tcp/127.0.0.1:{}", free_port())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

fn client() -> PathBuf {
    workspace().join("sim-core/tests/python/ros_client.py")
}

/// A `simcore run` in the background (at real time unless its arguments give `--rtf`, until
/// interrupted).
struct Run {
    child: Option<Child>,
    /// Holds its stdout and stderr (a pipe nobody reads would stall the run once full).
    out: tempfile::TempDir,
}

impl Run {
    fn start(world: &str, plugins: &Path, args: &[&str]) -> Run {
        let out = tempfile::tempdir().expect("temp dir");
        let file = |name: &str| std::fs::File::create(out.path().join(name)).expect("file");
        let rtf: &[&str] = if args.contains(&"--rtf") {
            &[]
        } else {
            &["--rtf", "1"]
        };
        let child = Command::new(env!("CARGO_BIN_EXE_simcore"))
            .args(["run", world, "--duration", "300", "--seed", "7"])
            .args(rtf)
            .arg("--plugin-path")
            .arg(plugins)
            .args(args)
            .env_remove("SIMCORE_PLUGIN_PATH")
            .env_remove("ROS_DOMAIN_ID")
            .env("SIMCORE_LOG", "warn")
            .current_dir(workspace())
            .stdout(file("stdout"))
            .stderr(file("stderr"))
            .spawn()
            .expect("simcore starts");
        Run {
            child: Some(child),
            out,
        }
    }

    /// Stops the run as Ctrl-C does and returns its stdout and stderr.
    fn stop(self) -> (String, String) {
        self.end(true)
    }

    /// Waits for the run to end by itself (at most a minute) and returns its stdout and
    /// stderr.
    fn wait(self) -> (String, String) {
        self.end(false)
    }

    fn end(mut self, interrupt: bool) -> (String, String) {
        let mut child = self.child.take().expect("running");
        if interrupt {
            let pid = child.id().to_string();
            let _ = Command::new("kill").args(["-INT", &pid]).status();
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        while child.try_wait().expect("wait").is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.wait();
        let read = |name: &str| std::fs::read_to_string(self.out.path().join(name)).unwrap();
        (read("stdout"), read("stderr"))
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
        }
    }
}

/// Starts the client in a `mode` that listens on `endpoint` until its stdin closes, and waits
/// for its "ready"; the process and the rest of its stdout.
fn listening_client(
    python: &Path,
    endpoint: &str,
    mode: &str,
) -> (Child, BufReader<std::process::ChildStdout>) {
    let mut child = Command::new(python)
        .arg(client())
        .args([endpoint, mode, "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the client starts");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut ready = String::new();
    out.read_line(&mut ready).expect("the client's first line");
    assert_eq!(ready.trim(), "ready", "{mode}");
    (child, out)
}

/// Runs the client; its JSON answer.
fn ros_client(python: &Path, endpoint: &str, args: &[&str]) -> Value {
    let o = Command::new(python)
        .arg(client())
        .arg(endpoint)
        .args(args)
        .output()
        .expect("python runs");
    assert!(
        o.status.success(),
        "client {args:?} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("the client's JSON")
}

/// A float of the client's JSON (`"inf"`, `"-inf"`, `"nan"` spelled out) as `f32`.
fn f32_of(v: &Value) -> f32 {
    match v.as_str() {
        Some("inf") => f32::INFINITY,
        Some("-inf") => f32::NEG_INFINITY,
        Some(_) => f32::NAN,
        None => v.as_f64().expect("a number") as f32,
    }
}

/// A float of `--echo`'s JSON (`null` for a non-finite value).
fn echo_f32(v: &Value) -> f32 {
    v.as_f64().map_or(f32::INFINITY, |x| x as f32)
}

fn stamp_ns(sec: &Value, nsec: &Value) -> i64 {
    sec.as_i64().unwrap() * 1_000_000_000 + nsec.as_i64().unwrap()
}

/// The echoed message of `topic` stamped `ns`.
fn echoed<'a>(lines: &'a [Value], topic: &str, ns: i64) -> &'a Value {
    lines
        .iter()
        .find(|l| {
            l["topic"] == topic
                && stamp_ns(&l["header"]["stamp"]["sec"], &l["header"]["stamp"]["nsec"]) == ns
        })
        .unwrap_or_else(|| panic!("no echoed {topic} at {ns} ns"))
}

/// Checks the client's messages (attachments, encoding) and returns them.
fn checked_messages(answer: &Value, count: usize) -> &Vec<Value> {
    let messages = answer["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), count, "{answer}");
    let gid = &messages[0]["gid"];
    for pair in messages.windows(2) {
        assert_eq!(
            pair[1]["seq"].as_i64().unwrap(),
            pair[0]["seq"].as_i64().unwrap() + 1,
            "consecutive sequence numbers: {answer}"
        );
    }
    for m in messages {
        assert!(m["seq"].as_i64().unwrap() >= 1, "{m}");
        assert_eq!(&m["gid"], gid, "one GID per publisher");
        assert_eq!(m["header"], "00010000", "little-endian plain CDR");
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as i64;
        let source = m["source_ns"].as_i64().unwrap();
        assert!(
            (wall - source).abs() < 3_600_000_000_000,
            "wall-clock source time"
        );
    }
    messages
}

fn compare_scans(messages: &[Value], echo: &[Value]) {
    for m in messages {
        let msg = &m["message"];
        let ns = stamp_ns(
            &msg["header"]["stamp"]["sec"],
            &msg["header"]["stamp"]["nanosec"],
        );
        let e = echoed(echo, SCAN, ns);
        assert_eq!(msg["header"]["frame_id"], e["header"]["frame_id"]);
        for (ros, ours) in [
            ("angle_min", "angle_min"),
            ("angle_max", "angle_max"),
            ("angle_increment", "angle_step"),
            ("range_min", "range_min"),
            ("range_max", "range_max"),
        ] {
            assert_eq!(f32_of(&msg[ros]), echo_f32(&e[ours]), "{ros}");
        }
        // The scan period: the pioneer's lidar updates at 10 Hz.
        assert_eq!(f32_of(&msg["scan_time"]), 0.1, "scan_time");
        let ranges: Vec<f32> = msg["ranges"]
            .as_array()
            .unwrap()
            .iter()
            .map(f32_of)
            .collect();
        let theirs: Vec<f32> = e["ranges"]
            .as_array()
            .unwrap()
            .iter()
            .map(echo_f32)
            .collect();
        assert_eq!(ranges.len(), 360);
        assert_eq!(ranges, theirs, "scan at {ns} ns");
    }
}

fn last_odometry_x(echo: &[Value]) -> f64 {
    echo.iter()
        .rev()
        .find(|l| l["topic"] == ODOM)
        .and_then(|l| l["pose"]["position"]["x"].as_f64())
        .expect("odometry was echoed")
}

/// The pioneer scenario against a run at `simcore_args`, the client joining at `endpoint`.
fn scan_and_drive(python: &Path, plugins: &Path, simcore_args: &[&str], endpoint: &str) {
    let run = Run::start(
        "worlds/pioneer.sdf",
        plugins,
        &[simcore_args, &["--echo", SCAN, "--echo", ODOM]].concat(),
    );
    let scans = ros_client(
        python,
        endpoint,
        &["topic", "sensor_msgs/msg/LaserScan", "3"],
    );
    assert_eq!(scans["topic"], SCAN, "{scans}");
    assert_eq!(scans["qos"], "2::,5:,:,:,,", "sensor-data QoS");
    let drive = ros_client(python, endpoint, &["drive", "1.5", "0.5"]);
    assert_eq!(drive["topic"], "/model/pioneer/cmd_vel", "{drive}");
    // Odometry at 20 Hz shows the motion a little later.
    std::thread::sleep(Duration::from_millis(1500));
    let (out, err) = run.stop();
    let echo = json_lines(&out);
    compare_scans(checked_messages(&scans, 3), &echo);
    let x = last_odometry_x(&echo);
    assert!(
        x > 0.2,
        "the Twist from Zenoh drove the robot forward: x = {x}\n{err}"
    );
    assert!(
        err.contains("cmd_vel: dropped an undecodable geometry_msgs/msg/Twist"),
        "garbage is dropped with a warning:\n{err}"
    );
    let row = err
        .lines()
        .find(|l| l.trim_start().starts_with(SCAN) && l.contains("sensor_msgs/msg/LaserScan"))
        .unwrap_or_else(|| panic!("a transport row for the scan:\n{err}"));
    let sent: u64 = row.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(sent >= 3, "{row}");
}

#[test]
fn a_ros_client_reads_the_pioneers_scan_and_drives_it() {
    let Some(python) = python() else { return };
    let dir = stage(PIONEER_LIBS);
    let endpoint = loopback();
    scan_and_drive(
        &python,
        dir.path(),
        &["--zenoh-listen", &endpoint],
        &endpoint,
    );
}

#[test]
fn the_same_through_a_zenoh_router() {
    let Some(python) = python() else { return };
    let dir = stage(PIONEER_LIBS);
    let endpoint = loopback();
    let (mut router, _) = listening_client(&python, &endpoint, "router");
    scan_and_drive(
        &python,
        dir.path(),
        &["--zenoh-connect", &endpoint],
        &endpoint,
    );
    drop(router.stdin.take());
    let _ = router.wait();
}

#[test]
fn a_ros_client_reads_the_imu_as_echo_prints_it() {
    let Some(python) = python() else { return };
    let dir = stage(IMU_DROP_PLUGINS);
    let endpoint = loopback();
    // The IMU under the ROS name a manifest gives it.
    let manifest = dir.path().join("run.toml");
    std::fs::write(
        &manifest,
        format!("[[ros.remap]]\nfrom = \"{IMU}\"\nto = \"box/imu\"\n"),
    )
    .unwrap();
    let run = Run::start(
        "worlds/imu_drop.sdf",
        dir.path(),
        &[
            "--zenoh-listen",
            &endpoint,
            "--echo",
            IMU,
            "--manifest",
            manifest.to_str().unwrap(),
        ],
    );
    let answer = ros_client(&python, &endpoint, &["topic", "sensor_msgs/msg/Imu", "5"]);
    let (out, _) = run.stop();
    let echo = json_lines(&out);
    assert_eq!(answer["topic"], "/box/imu", "{answer}");
    for m in checked_messages(&answer, 5) {
        let msg = &m["message"];
        let ns = stamp_ns(
            &msg["header"]["stamp"]["sec"],
            &msg["header"]["stamp"]["nanosec"],
        );
        let e = echoed(&echo, IMU, ns);
        assert_eq!(msg["header"]["frame_id"], e["header"]["frame_id"]);
        for v in ["angular_velocity", "linear_acceleration"] {
            for c in ["x", "y", "z"] {
                assert_eq!(msg[v][c], e[v][c], "{v}.{c} at {ns} ns");
            }
            assert_eq!(msg[format!("{v}_covariance")], e[format!("{v}_covariance")]);
        }
        for c in ["x", "y", "z", "w"] {
            assert_eq!(msg["orientation"][c], e["orientation"][c]);
        }
        if e["has_orientation"] == false {
            assert_eq!(msg["orientation_covariance"][0], -1.0);
        }
    }
}

#[test]
fn clock_carries_sim_time_at_its_rate() {
    let Some(python) = python() else { return };
    let dir = stage(&["simcore_plugin_truth", "simcore_plugin_factory"]);
    let endpoint = loopback();
    let run = Run::start(
        "worlds/imu_drop.sdf",
        dir.path(),
        &["--zenoh-listen", &endpoint, "--clock-rate", "50"],
    );
    let answer = ros_client(
        &python,
        &endpoint,
        &["topic", "rosgraph_msgs/msg/Clock", "4"],
    );
    let (_, err) = run.stop();
    assert_eq!(answer["topic"], "/clock", "{answer}");
    assert_eq!(
        answer["qos"], "::,10:,:,:,,",
        "reliable, as ROS's clock publishers"
    );
    let ns: Vec<i64> = checked_messages(&answer, 4)
        .iter()
        .map(|m| {
            stamp_ns(
                &m["message"]["clock"]["sec"],
                &m["message"]["clock"]["nanosec"],
            )
        })
        .collect();
    // The first may fall between two ticks (when the client started listening); the others
    // are every 20 ms of sim time.
    for w in ns[1..].windows(2) {
        assert_eq!(w[1] - w[0], 20_000_000, "{ns:?}");
    }
    assert_eq!(ns[1] % 20_000_000, 0, "{ns:?}");
    assert!(err.contains("rosgraph_msgs/msg/Clock"), "{err}");
}

#[test]
fn an_invalid_remap_is_a_clear_error() {
    let dir = stage(IMU_DROP_PLUGINS);
    let manifest = dir.path().join("run.toml");
    std::fs::write(
        &manifest,
        "[[ros.remap]]\nfrom = \"/a\"\nto = \"/2d-scan\"\n",
    )
    .unwrap();
    let endpoint = loopback();
    let o = simcore(&[
        "run",
        "worlds/imu_drop.sdf",
        "--steps",
        "1",
        "--zenoh-listen",
        &endpoint,
        "--manifest",
        manifest.to_str().unwrap(),
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("[[ros.remap]]") && err.contains("`/2d-scan` is not a ROS 2 topic name"),
        "{err}"
    );
}

/// With nobody outside listening, the transport holds no bus subscription once each topic's
/// first message has told its type (sensors that build their messages only for subscribers
/// build none), and sends nothing.
#[test]
fn an_unobserved_run_leaves_the_bus_alone() {
    use sim_core::zenoh::{Bridge, ZenohOptions};
    let dir = stage(&["simcore_plugin_imu"]);
    let mut sim = sim_from(
        &world(&box_model("box", 0.1, &imu("imu", 100.0, ""))),
        dir.path(),
        0,
        1,
    );
    let topic = "/world/test/model/box/link/body/sensor/imu/imu";
    let options = ZenohOptions {
        listen: vec![loopback()],
        ..ZenohOptions::default()
    };
    let mut bridge = Bridge::start(&options, &mut sim).expect("the session opens");
    assert_eq!(sim.bus().stats(topic).subscribers, 1, "the type probe");
    // The Zenoh thread lets go of the subscription once it has the type; the bus forgets a
    // subscription at the first message after it is dropped.
    for _ in 0..2000 {
        sim.step();
        bridge.after_step(&mut sim);
        let stats = sim.bus().stats(topic);
        if stats.subscribers == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let stats = sim.bus().stats(topic);
    assert_eq!(stats.subscribers, 0, "{stats:?}");
    assert_eq!(stats.dropped, 0, "{stats:?}");
    let published = stats.published;
    for _ in 0..100 {
        sim.step();
        bridge.after_step(&mut sim);
    }
    assert_eq!(sim.bus().stats(topic).subscribers, 0, "and stays so");
    assert_eq!(sim.bus().stats(topic).published, published + 10);
    let reports = bridge.finish();
    let imu = reports.iter().find(|r| r.topic == topic).expect("declared");
    assert_eq!(
        (imu.ros_type.as_str(), imu.sent, imu.lost),
        ("sensor_msgs/msg/Imu", 0, 0)
    );
}

/// Lockstep: a paused world advances exactly the steps a client asks for, and everything those
/// steps publish reaches the client before the reply; the state services play, pause and quit.
#[test]
fn a_paused_world_steps_exactly_as_asked() {
    let Some(python) = python() else { return };
    let dir = stage(IMU_DROP_PLUGINS);
    let endpoint = loopback();
    let run = Run::start(
        "worlds/imu_drop.sdf",
        dir.path(),
        &[
            "--zenoh-listen",
            &endpoint,
            "--paused",
            "--clock-rate",
            "0",
            "--echo",
            IMU,
        ],
    );
    let a = ros_client(&python, &endpoint, &["lockstep", IMU, "50"]);
    // SetSimulationState(QUITTING) ended the run.
    let (out, err) = run.wait();
    // What the IMU published before a sim time, as --echo saw it.
    let echo = json_lines(&out);
    let imu_until = |ns: i64| -> Vec<i64> {
        let v: Vec<i64> = echo
            .iter()
            .map(|l| stamp_ns(&l["header"]["stamp"]["sec"], &l["header"]["stamp"]["nsec"]))
            .filter(|t| *t <= ns)
            .collect();
        assert!(!v.is_empty(), "the IMU published in the stepped time");
        v
    };
    let ok = serde_json::json!({"result": 1, "error_message": ""});
    assert_eq!(a["state"]["state"]["state"], 2, "--paused: {a}");
    let features = a["features"]["features"]["features"].as_array().unwrap();
    for f in [24, 25, 26, 31, 32] {
        assert!(features.contains(&f.into()), "{a}");
    }
    let ms = |r: std::ops::Range<i64>, every: i64| -> Vec<i64> {
        r.filter(|t| t % every == 0)
            .map(|t| t * 1_000_000)
            .collect()
    };
    let steps = a["steps"].as_array().unwrap();
    let nums = |v: &Value| -> Vec<i64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect()
    };
    // 1 ms steps: after steps 1..=50 the clock reads 1..=50 ms (every step, --clock-rate 0);
    // the IMU's samples are those it published up to 50 ms, the one stamped 50 ms included
    // (sensors update after the step, as gz-sim's): all of it sent before the reply.
    assert_eq!(steps[0]["reply"]["result"], ok, "{a}");
    assert_eq!(nums(&steps[0]["clock"]), ms(1..51, 1));
    assert_eq!(nums(&steps[0]["imu"]), imu_until(50_000_000));
    assert_eq!(steps[1]["reply"]["result"], ok, "{a}");
    assert_eq!(nums(&steps[1]["clock"]), ms(1..101, 1));
    assert_eq!(nums(&steps[1]["imu"]), imu_until(100_000_000));
    assert_eq!(
        a["later"],
        serde_json::json!({"clock": 100, "imu": imu_until(100_000_000).len()}),
        "nothing more while paused"
    );
    assert_eq!(a["play"]["result"], ok);
    assert_eq!(a["play_again"]["result"]["result"], 101, "already playing");
    assert_eq!(
        a["step_playing"]["result"]["result"], 4,
        "stepping needs a pause: {a}"
    );
    assert_eq!(a["state_playing"]["state"]["state"], 1);
    assert_eq!(a["pause"]["result"], ok);
    assert_eq!(a["quit"]["result"], ok);
    assert!(err.contains("(interrupted)"), "{err}");
}

/// `worlds/imu_drop.sdf` run paused on a loopback Zenoh endpoint, driven by `ros_client.py`
/// with `args` until it ends: the client's JSON and the run's stderr.
fn paused_imu_drop(python: &Path, args: &[&str]) -> (Value, String) {
    let dir = stage(IMU_DROP_PLUGINS);
    let endpoint = loopback();
    let run = Run::start(
        "worlds/imu_drop.sdf",
        dir.path(),
        &["--zenoh-listen", &endpoint, "--paused"],
    );
    let a = ros_client(python, &endpoint, args);
    let (_, err) = run.wait();
    (a, err)
}

/// A StepSimulation of more steps than anyone waits for does not hold the run: another
/// client's SetSimulationState(QUITTING) ends it while they are taken, and the step call is
/// refused (INCORRECT_STATE).
#[test]
fn quitting_ends_a_run_taking_a_huge_step_call() {
    let Some(python) = python() else { return };
    let (a, err) = paused_imu_drop(&python, &["quit_stepping", "-", "-"]);
    assert_eq!(a["state"]["state"]["state"], 2, "paused: {a}");
    assert_eq!(a["quit"]["result"]["result"], 1, "quit: {a}");
    assert_eq!(a["huge_step"]["result"]["result"], 3, "refused: {a}");
    assert_eq!(
        a["huge_step"]["result"]["error_message"],
        "the simulation is quitting"
    );
    assert!(err.contains("(interrupted)"), "{err}");
}

/// Lockstep at the default `/clock` rate (100 Hz, steps of 1 ms): the last step of every
/// StepSimulation publishes `/clock` at the time the world reached, before the reply, even
/// when that time is not one of the rate's; a node on sim time never sees a stale clock.
#[test]
fn stepping_leaves_clock_at_the_world_time() {
    let Some(python) = python() else { return };
    let (a, err) = paused_imu_drop(&python, &["lockstep", IMU, "7"]);
    let steps = a["steps"].as_array().unwrap();
    for (call, reached_ms) in [(0, 7), (1, 14)] {
        let clock: Vec<i64> = steps[call]["clock"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        assert_eq!(
            clock.last(),
            Some(&(reached_ms * 1_000_000)),
            "call {call}: /clock before the reply {clock:?} ({a})"
        );
        // The rate's own ticks are still there, each once.
        let mut sorted = clock.clone();
        sorted.dedup();
        assert_eq!(sorted, clock, "no tick twice: {clock:?}");
    }
    assert!(
        steps[1]["clock"]
            .as_array()
            .unwrap()
            .contains(&10_000_000.into()),
        "the 100 Hz tick at 10 ms: {a}"
    );
    assert!(err.contains("(interrupted)"), "{err}");
}

/// The service hashes, both forms of SpawnEntity and SetEntityState included, are what
/// rosbags computes with ROS's method (checked by the script against published std_srvs
/// hashes too), and a wrong one is caught.
#[test]
fn service_hashes_are_rosbags_with_ros_method() {
    let Some(python) = python() else { return };
    let check = |entries: &Value| {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("services.json");
        std::fs::write(&file, entries.to_string()).unwrap();
        let o = Command::new(&python)
            .arg("tools/ros_types.py")
            .arg("--check")
            .arg(&file)
            .current_dir(workspace())
            .output()
            .expect("python runs");
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    let mut entries: Vec<Value> = sim_core::ros::catalog::SERVICES
        .iter()
        .map(|t| serde_json::json!({"name": t.name, "hash": t.hash, "definition": t.definition}))
        .collect();
    let (ok, text) = check(&Value::from(entries.clone()));
    let expected = format!("{} entries checked, 0 differ", entries.len());
    assert!(ok && text.contains(&expected), "{text}");
    entries[3]["hash"] = sim_core::ros::catalog::GET_SIMULATION_STATE.hash.into();
    // The 2.x SpawnEntity with the 1.x hash: the forms are told apart.
    let v2 = entries
        .iter()
        .position(|e| e["hash"] == sim_core::ros::catalog::SPAWN_ENTITY_V2.hash)
        .unwrap();
    entries[v2]["hash"] = sim_core::ros::catalog::SPAWN_ENTITY.hash.into();
    let (ok, text) = check(&Value::from(entries));
    assert!(!ok && text.contains("2 differ"), "{text}");
}

/// SpawnEntity creates the model in the engine (a clash, renaming and a broken SDF with its
/// diagnostic in the reply), and DeleteEntity removes what it made: in a world with the
/// factory plugin and in one without.
#[test]
fn a_client_spawns_and_deletes_a_model() {
    spawns_and_deletes("worlds/pioneer.sdf", PIONEER_LIBS);
    spawns_and_deletes("worlds/imu_drop.sdf", IMU_DROP_PLUGINS);
}

fn spawns_and_deletes(world: &str, libs: &[&str]) {
    let Some(python) = python() else { return };
    let dir = stage(libs);
    let endpoint = loopback();
    let run = Run::start(world, dir.path(), &["--zenoh-listen", &endpoint]);
    let sdf = workspace().join("worlds/models/crate.sdf");
    let a = ros_client(&python, &endpoint, &["spawn", sdf.to_str().unwrap(), "-"]);
    let (_, err) = run.stop();
    let features = a["features"]["features"]["features"].as_array().unwrap();
    for f in [0, 1, 9] {
        assert!(
            features.contains(&f.into()),
            "spawning, deleting, SDF text in {world}: {a}"
        );
    }
    assert_eq!(
        a["features"]["features"]["spawn_formats"],
        serde_json::json!(["sdf"])
    );
    assert_eq!(a["first"]["result"]["result"], 1, "{world}: {a}");
    assert_eq!(a["first"]["entity_name"], "box_a");
    assert_eq!(a["clash"]["result"]["result"], 4);
    let clash = a["clash"]["result"]["error_message"].as_str().unwrap();
    assert!(clash.contains("`box_a` already exists"), "{clash}");
    assert_eq!(a["renamed"]["entity_name"], "box_a_1", "{a}");
    assert_eq!(a["broken"]["result"]["result"], 4);
    let diagnostic = a["broken"]["result"]["error_message"].as_str().unwrap();
    assert!(
        diagnostic.contains("not well-formed XML") && diagnostic.contains("<inline>:1:"),
        "the engine's diagnostic: {diagnostic}"
    );
    assert_eq!(a["delete"]["result"]["result"], 1, "{a}");
    assert_eq!(
        a["delete_again"]["result"]["result"], 2,
        "not found once deleted: {a}"
    );
    assert!(err.contains(world), "{err}");
}

#[test]
fn malformed_service_calls_give_a_bounded_number_of_warnings() {
    let Some(python) = python() else { return };
    let dir = stage(IMU_DROP_PLUGINS);
    let endpoint = loopback();
    let run = Run::start(
        "worlds/imu_drop.sdf",
        dir.path(),
        &["--zenoh-listen", &endpoint],
    );
    let n = 10_000;
    let a = ros_client(
        &python,
        &endpoint,
        &["malformed", "SpawnEntity", &n.to_string()],
    );
    let (_, err) = run.stop();
    assert_eq!(a["sent"], n, "{a}");
    assert_eq!(
        a["errors"], n,
        "every malformed call is refused in its reply: {a}"
    );
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("/spawn_entity"))
        .collect();
    assert!(
        (1..=20).contains(&lines.len()),
        "a bounded number of warnings: {} lines\n{err}",
        lines.len()
    );
    // Each line is one call; the calls held back are counted in the next line or in the
    // last one: every call is accounted for.
    let held: u64 = lines
        .iter()
        .filter_map(|l| {
            let at = l
                .find(" more like it since the last")
                .or_else(|| l.find(" more refused calls were not warned about"))?;
            let head = &l[..at];
            let start = head
                .rfind(|c: char| !c.is_ascii_digit())
                .map_or(0, |i| i + 1);
            head[start..].parse::<u64>().ok()
        })
        .sum();
    let warned = lines
        .iter()
        .filter(|l| l.contains("refused a call"))
        .count() as u64;
    assert_eq!(warned + held, n, "{lines:?}");
    assert!(held > 0, "{lines:?}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A run of `worlds/pioneer.sdf` listening on a loopback endpoint of its own, with `extra`
/// arguments: its plugin directory (kept while it runs), the endpoint and the run.
fn pioneer_run(extra: &[&str]) -> (tempfile::TempDir, String, Run) {
    let dir = stage(PIONEER_LIBS);
    let endpoint = loopback();
    let mut args = vec!["--zenoh-listen", endpoint.as_str()];
    args.extend_from_slice(extra);
    let run = Run::start("worlds/pioneer.sdf", dir.path(), &args);
    (dir, endpoint, run)
}

/// The pioneer IMU (100 Hz).
const PIONEER_IMU: &str = "/world/pioneer/model/pioneer/link/chassis/sensor/imu/imu";

/// A position of a GetEntityState reply.
fn position(reply: &Value) -> [f64; 3] {
    let p = &reply["state"]["pose"]["position"];
    ["x", "y", "z"].map(|k| p[k].as_f64().unwrap())
}

/// Equal within the engine's single precision.
fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-6)
}

/// GetEntities with its filters, GetEntityState and SetEntityState (the truth path, bad
/// values refused with the package's codes), ResetSimulation's scopes and STATE_STOPPED:
/// after a reset the world publishes what it published from the start, byte for byte.
#[test]
fn a_client_lists_moves_and_resets_entities() {
    let Some(python) = python() else { return };
    let (_dir, endpoint, run) = pioneer_run(&["--paused"]);
    let sdf = workspace().join("worlds/models/crate.sdf");
    let a = ros_client(
        &python,
        &endpoint,
        &["entities", PIONEER_IMU, sdf.to_str().unwrap()],
    );
    let (_, err) = run.wait();
    let code = |k: &str| a[k]["result"]["result"].as_u64().unwrap();
    let names = |k: &str| a[k]["entities"].clone();
    let features = a["features"]["features"]["features"].as_array().unwrap();
    for f in [0, 1, 6, 9, 10, 11, 20, 23, 24, 25, 26, 31, 32] {
        assert!(features.contains(&f.into()), "feature {f}: {a}");
    }
    for f in [21, 22] {
        assert!(!features.contains(&f.into()), "feature {f}: {a}");
    }
    let world = serde_json::json!(["ground", "beacon_1", "beacon_2", "beacon_3", "pioneer"]);
    assert_eq!((code("all"), names("all")), (1, world.clone()), "{a}");
    assert_eq!(
        names("beacons_12"),
        serde_json::json!(["beacon_1", "beacon_2"])
    );
    assert_eq!(code("bad_regex"), 4);
    assert!(
        a["bad_regex"]["result"]["error_message"]
            .as_str()
            .unwrap()
            .contains("regular expression"),
        "{a}"
    );
    assert_eq!((code("categories"), code("tags"), code("hull")), (0, 0, 0));
    assert_eq!(
        names("sphere"),
        serde_json::json!(["ground", "pioneer"]),
        "{a}"
    );
    assert_eq!(names("box_far"), serde_json::json!(["ground"]), "{a}");
    assert_eq!(code("bad_sphere"), 4);

    // Get and set.
    assert_eq!((code("pioneer"), code("missing")), (1, 2));
    assert_eq!(a["pioneer"]["state"]["header"]["frame_id"], "world");
    assert_eq!(
        a["pioneer"]["state"]["header"]["stamp"]["nanosec"],
        100_000_000
    );
    assert_eq!(code("set"), 1, "{a}");
    let set = [1.5, -2.0, 0.2];
    assert!(close(position(&a["after_set"]), set), "{a}");
    let twist = &a["after_set"]["state"]["twist"];
    assert!(
        (twist["linear"]["x"].as_f64().unwrap() - 0.25).abs() < 1e-9,
        "{a}"
    );
    assert!(
        (twist["angular"]["z"].as_f64().unwrap() - 0.5).abs() < 1e-9,
        "{a}"
    );
    for (k, c) in [
        ("set_nan", 101),
        ("set_far", 101),
        ("set_zero_quat", 101),
        ("set_inf_twist", 4),
        ("set_frame", 4),
        ("set_static_moving", 4),
        ("set_static", 1),
        ("set_missing", 2),
    ] {
        assert_eq!(code(k), c, "{k}: {a}");
        if c != 1 {
            assert!(
                !a[k]["result"]["error_message"].as_str().unwrap().is_empty(),
                "{k} says why"
            );
        }
    }
    assert!(
        close(position(&a["after_refused"]), set),
        "refused calls change nothing"
    );

    // Reset.
    assert_eq!(code("spawn"), 1, "{a}");
    assert_eq!(names("with_spawned")[5], "crate_x");
    assert_eq!((code("reset_time"), code("reset_bad")), (0, 4), "{a}");
    assert_eq!(code("reset_spawned"), 1);
    assert_eq!(
        names("after_reset_spawned"),
        world,
        "the spawned crate is gone"
    );
    assert!(
        close(position(&a["pioneer_after_reset_spawned"]), set),
        "SCOPE_SPAWNED leaves the rest as it is"
    );
    assert_eq!((code("spawn_again"), code("reset_all")), (1, 1), "{a}");
    assert_eq!(names("after_reset_all"), world);
    let back = &a["pioneer_after_reset"]["state"];
    assert_eq!(
        back["header"]["stamp"],
        serde_json::json!({"sec": 0, "nanosec": 0})
    );
    assert!(close(position(&a["pioneer_after_reset"]), [0.0; 3]), "{a}");
    let first = a["first_run"].as_array().unwrap();
    assert_eq!(
        first.len(),
        11,
        "100 steps of a 100 Hz IMU (at 1 ms, then every 10 ms to 100 ms): {a}"
    );
    assert_eq!(
        a["second_run"], a["first_run"],
        "a reset world steps as a fresh one"
    );
    assert_eq!(code("stop"), 1);
    assert_eq!(a["state_stopped"]["state"]["state"], 0);
    assert_eq!(a["third_run"], a["first_run"], "STATE_STOPPED resets too");
    assert_eq!(
        a["state_after_step"]["state"]["state"], 2,
        "stepped: paused"
    );
    assert_eq!(code("quit"), 1);
    assert!(!err.contains("panicked"), "{err}");
}

/// A client built with simulation_interfaces 2.x (Rolling) finds SpawnEntity and
/// SetEntityState under their 2.x type hashes beside the 1.x ones: it spawns from a
/// `Resource`, and `set_pose` / `set_twist` set one part and leave the other as it was.
#[test]
fn a_rolling_client_spawns_and_sets_parts_of_a_state() {
    let Some(python) = python() else { return };
    let (_dir, endpoint, run) = pioneer_run(&["--paused"]);
    let sdf = workspace().join("worlds/models/crate.sdf");
    let a = ros_client(&python, &endpoint, &["rolling", sdf.to_str().unwrap(), "-"]);
    let (_, err) = run.wait();
    let code = |k: &str| a[k]["result"]["result"].as_u64().unwrap();
    let twist =
        |k: &str, part: &str, axis: &str| a[k]["state"]["twist"][part][axis].as_f64().unwrap();
    assert_eq!(code("spawn"), 1, "{a}");
    assert_eq!(a["spawn"]["entity_name"], "crate_r");
    assert_eq!(code("clash"), 4, "a 2.x spawn is the factory's too: {a}");
    assert_eq!(
        a["entities"]["entities"],
        serde_json::json!([
            "ground", "beacon_1", "beacon_2", "beacon_3", "pioneer", "crate_r"
        ]),
        "{a}"
    );
    assert!(close(position(&a["crate"]), [4.0, 4.0, 0.5]), "{a}");

    assert_eq!(code("set_old"), 1, "{a}");
    assert!(close(position(&a["after_old"]), [1.5, -2.0, 0.2]), "{a}");
    assert_eq!(code("set_pose"), 1, "{a}");
    assert!(close(position(&a["after_pose"]), [-1.0, 3.0, 0.2]), "{a}");
    assert!(
        (twist("after_pose", "linear", "x") - 0.25).abs() < 1e-9
            && (twist("after_pose", "angular", "z") - 0.5).abs() < 1e-9,
        "set_twist false leaves the twist: {a}"
    );
    assert_eq!(code("set_twist"), 1, "an unset pose is not checked: {a}");
    assert!(
        close(position(&a["after_twist"]), [-1.0, 3.0, 0.2]),
        "set_pose false leaves the pose: {a}"
    );
    assert!(
        (twist("after_twist", "linear", "x") - 0.75).abs() < 1e-9
            && twist("after_twist", "angular", "z").abs() < 1e-9,
        "{a}"
    );
    for (k, c) in [
        ("set_accel_unset", 1),
        ("set_inf_accel", 4),
        ("set_nan_pose", 101),
        ("set_inf_twist", 4),
        ("set_static_moving", 4),
        ("set_static_pose", 1),
    ] {
        assert_eq!(code(k), c, "{k}: {a}");
    }
    assert!(
        close(position(&a["after_refused"]), [-1.0, 3.0, 0.2]),
        "refused calls change nothing: {a}"
    );
    assert_eq!(code("quit"), 1);
    assert!(!err.contains("panicked"), "{err}");
}

/// `/tf_static` is latched as rmw_zenoh makes TRANSIENT_LOCAL topics: a subscriber that joins
/// long after it was published still gets the sensor frames from the publisher's cache; a
/// plain (volatile) one gets nothing.
#[test]
fn a_late_subscriber_gets_tf_static() {
    let Some(python) = python() else { return };
    let (_dir, endpoint, run) = pioneer_run(&[]);
    let a = ros_client(&python, &endpoint, &["latched", "2", "-"]);
    let (_, err) = run.stop();
    assert_eq!(
        a["qos"], ":1:,1:,:,:,,",
        "reliable, transient local, depth 1: {a}"
    );
    assert_eq!(a["plain"], 0, "published once, long before: {a}");
    let late = a["transient_local"].as_array().unwrap();
    assert_eq!(late.len(), 1, "{a}");
    let frames: Vec<(&str, &str)> = late[0]["transforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["header"]["frame_id"].as_str().unwrap(),
                t["child_frame_id"].as_str().unwrap(),
            )
        })
        .collect();
    let sensor = |link: &'static str, s: &'static str| (link, s);
    assert_eq!(
        frames,
        [
            sensor("pioneer::chassis", "pioneer::chassis::lidar"),
            sensor("pioneer::chassis", "pioneer::chassis::fiducials"),
            sensor("pioneer::chassis", "pioneer::chassis::imu"),
            sensor("pioneer::tilt_link", "pioneer::tilt_link::camera"),
        ],
        "every sensor frame in its link's"
    );
    assert!(err.contains("/tf_static"), "{err}");
}

/// `/tf` carries every model and link frame in the world frame from the engine's truth,
/// all of them in the first message a listener gets, reliable as tf2 listeners expect.
#[test]
fn tf_gives_every_frame_to_a_new_listener() {
    let Some(python) = python() else { return };
    let (_dir, endpoint, run) = pioneer_run(&[]);
    let a = ros_client(
        &python,
        &endpoint,
        &["topic", "tf2_msgs/msg/TFMessage@/tf", "1"],
    );
    let (_, err) = run.stop();
    assert_eq!(a["topic"], "/tf", "{a}");
    assert_eq!(a["qos"], "::,10:,:,:,,", "reliable, keep last 10: {a}");
    let transforms = a["messages"][0]["message"]["transforms"]
        .as_array()
        .unwrap();
    let children: Vec<&str> = transforms
        .iter()
        .map(|t| {
            assert_eq!(t["header"]["frame_id"], "world", "{t}");
            t["child_frame_id"].as_str().unwrap()
        })
        .collect();
    for frame in ["pioneer", "pioneer::chassis", "pioneer::tilt_link"] {
        assert!(
            children.contains(&frame),
            "{frame} missing from {children:?}"
        );
    }
    let chassis = transforms
        .iter()
        .find(|t| t["child_frame_id"] == "pioneer::chassis")
        .unwrap();
    let z = chassis["transform"]["translation"]["z"].as_f64().unwrap();
    assert!(
        z > 0.0 && z < 1.0,
        "the chassis stands on the ground: {chassis}"
    );
    let q = &chassis["transform"]["rotation"];
    let norm: f64 = ["x", "y", "z", "w"]
        .iter()
        .map(|k| q[*k].as_f64().unwrap().powi(2))
        .sum();
    assert!((norm - 1.0).abs() < 1e-6, "a unit quaternion: {q}");
    assert!(err.contains("/tf "), "the summary counts /tf: {err}");
}

/// The topic and type of each `MS` token of the client's `subscriptions` answer, each
/// checked to have rosbags' hash for its type and the QoS of an input.
fn announced_inputs(answer: &Value) -> Vec<(&str, &str)> {
    answer
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            assert_eq!(s["hash_ok"], true, "{s}");
            assert_eq!(s["qos"], "::,10:,:,:,,", "reliable, keep last 10: {s}");
            (s["topic"].as_str().unwrap(), s["type"].as_str().unwrap())
        })
        .collect()
}

/// Every input of the pioneer's systems is announced with an `MS` token of the type its
/// system reads there (hashes checked by the client against rosbags).
#[test]
fn every_input_is_announced_with_its_type() {
    let Some(python) = python() else { return };
    let (_dir, endpoint, run) = pioneer_run(&[]);
    let a = ros_client(&python, &endpoint, &["subscriptions", "1", "-"]);
    run.stop();
    let found = announced_inputs(&a);
    assert_eq!(
        found,
        [
            ("/model/pioneer/cmd_vel", "geometry_msgs/msg/Twist"),
            ("/model/pioneer/power/enabled", "std_msgs/msg/Bool"),
            ("/model/pioneer/ptz/cmd", "geometry_msgs/msg/Vector3Stamped"),
        ]
    );
}

/// A world with one model, `rover`, carrying the fixture system `TypedInputs`: inputs
/// `cmd` (declared Twist), `/acme/level` (declared Double), `raw` (undeclared) and `odd`
/// (declared of a kind simcore does not read), and a declaration for `elsewhere`, which it
/// does not subscribe to. Written into `dir`; its path.
fn typed_inputs_world(dir: &Path) -> PathBuf {
    let plugin = r#"<plugin filename="simcore_fixture_testkit" name="simcore::fixtures::TypedInputs">
        <input kind="Twist">cmd</input>
        <input kind="Double">/acme/level</input>
        <input>raw</input>
        <input kind="Quaternion">odd</input>
        <declare kind="Boolean">elsewhere</declare>
      </plugin>"#;
    let path = dir.join("typed_inputs.sdf");
    std::fs::write(&path, world(&floating_model("rover", plugin))).expect("world written");
    path
}

/// A third-party system's inputs are announced with the types it declared through
/// `simcore.input_types.v1` (MS tokens whose type and RIHS01 hash the client checks against
/// rosbags), a Twist the client publishes there reaches it (it echoes it on the bus), an
/// input it did not declare stays untyped, and each refused declaration is a warning naming
/// the plugin and the topic (and, when made, an error the plugin got back).
#[test]
fn a_plugins_declared_inputs_are_announced_and_read() {
    let Some(python) = python() else { return };
    let dir = stage(&["simcore_fixture_testkit"]);
    let world = typed_inputs_world(dir.path());
    let endpoint = loopback();
    let run = Run::start(
        world.to_str().unwrap(),
        dir.path(),
        &[
            "--zenoh-listen",
            &endpoint,
            "--echo",
            "/model/rover/cmd/echo",
            "--echo",
            "/model/rover/refused",
        ],
    );
    let subs = ros_client(&python, &endpoint, &["subscriptions", "1", "-"]);
    let drive = ros_client(&python, &endpoint, &["drive", "1.0", "0.75"]);
    assert_eq!(drive["topic"], "/model/rover/cmd", "{drive}");
    std::thread::sleep(Duration::from_millis(500));
    let (out, err) = run.stop();
    let found = announced_inputs(&subs);
    assert_eq!(
        found,
        [
            ("/acme/level", "std_msgs/msg/Float64"),
            ("/model/rover/cmd", "geometry_msgs/msg/Twist"),
        ],
        "the declared inputs, typed; `raw` and `odd` untyped\n{err}"
    );
    let echo = json_lines(&out);
    let echoed: Vec<f64> = echo
        .iter()
        .filter(|l| l["topic"] == "/model/rover/cmd/echo")
        .map(|l| l["linear"]["x"].as_f64().expect("a Twist"))
        .collect();
    assert!(
        !echoed.is_empty() && echoed.iter().all(|x| *x == 0.75),
        "the plugin got the client's Twists: {echoed:?}\n{err}"
    );
    let refused: Vec<&str> = echo
        .iter()
        .filter(|l| l["topic"] == "/model/rover/refused")
        .filter_map(|l| l["data"].as_str())
        .collect();
    assert!(
        refused
            .iter()
            .any(|r| r.starts_with("odd: ") && r.contains("no payload kind `Quaternion`")),
        "the plugin got the refusal back: {refused:?}"
    );
    assert!(
        refused.iter().all(|r| r.starts_with("odd: ")),
        "only `odd` was refused during the call: {refused:?}"
    );
    let who = "plugin simcore::fixtures::TypedInputs (on rover)";
    assert!(
        err.lines().any(|l| l.contains(who)
            && l.contains("`/model/rover/odd`")
            && l.contains("Quaternion")),
        "a warning names the plugin, the topic and the kind:\n{err}"
    );
    assert!(
        err.lines().any(|l| l.contains(who)
            && l.contains("`/model/rover/elsewhere`")
            && l.contains("does not subscribe")),
        "a declaration for a topic it does not read is a warning:\n{err}"
    );
}

/// `simcore run` checks a `--pub` against the type a plugin declared for its input.
#[test]
fn a_pub_of_another_type_to_a_declared_input_is_refused() {
    let dir = stage(&["simcore_fixture_testkit"]);
    let world = typed_inputs_world(dir.path());
    let plugins = dir.path().to_str().unwrap();
    let run = |publication: &str| {
        simcore(&[
            "run",
            world.to_str().unwrap(),
            "--plugin-path",
            plugins,
            "--rtf",
            "0",
            "--duration",
            "0.01",
            "--pub",
            publication,
        ])
    };
    let o = run(r#"/model/rover/cmd={"type":"Double","data":1}@0"#);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("reads a Twist on `/model/rover/cmd`"),
        "{}",
        stderr(&o)
    );
    let o = run(r#"/model/rover/cmd={"type":"Twist","linear":{"x":1}}@0"#);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(r#"/model/rover/raw={"type":"Double","data":1}@0"#);
    assert!(
        o.status.success(),
        "an undeclared input reads anything: {}",
        stderr(&o)
    );
}

/// Lockstep is deterministic at any thread count: the same seed (the runs' 7) and the same
/// StepSimulation give the same scan and IMU bytes with one sensor thread and with three.
#[test]
fn lockstep_gives_the_same_bytes_at_any_thread_count() {
    let Some(python) = python() else { return };
    let dir = stage(PIONEER_LIBS);
    let stepped = |threads: &str| -> Value {
        let endpoint = loopback();
        let run = Run::start(
            "worlds/pioneer.sdf",
            dir.path(),
            &[
                "--zenoh-listen",
                &endpoint,
                "--paused",
                "--threads",
                threads,
            ],
        );
        let a = ros_client(&python, &endpoint, &["stepped", "300", "-"]);
        run.wait();
        a
    };
    let one = stepped("1");
    let three = stepped("3");
    let topics = one.as_object().unwrap();
    assert_eq!(topics.len(), 2, "the IMU and the scan: {:?}", topics.keys());
    // 300 steps of 1 ms: the 100 Hz IMU 31 times and the 10 Hz lidar 4 times (each at the
    // first step, then every period to 300 ms).
    let counts: Vec<usize> = topics
        .values()
        .map(|v| v.as_array().unwrap().len())
        .collect();
    assert!(counts.contains(&31) && counts.contains(&4), "{counts:?}");
    assert_eq!(one, three, "one thread and three publish the same bytes");
}

/// The `/tf` summary line's (steps, messages).
fn tf_summary(err: &str) -> (u64, u64) {
    let line = err
        .lines()
        .find(|l| l.trim_start().starts_with("/tf: "))
        .unwrap_or_else(|| panic!("no /tf steps line in the summary: {err}"));
    let n: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    (n[0], n[1])
}

/// Lockstep `/tf`: everything StepSimulation's steps moved reaches a `/tf` subscriber before
/// the reply, every step's transforms stamped with that step's time, in step order, however
/// many steps a message holds (unpaced steps: many); the chassis's poses are those the
/// recording of the same run gives for the same steps.
#[test]
fn stepped_tf_holds_every_step_before_the_reply_as_recorded() {
    let Some(python) = python() else { return };
    let rec = tempfile::tempdir().expect("temp dir");
    let file = rec.path().join("stepped.mcap");
    let (_dir, endpoint, run) =
        pioneer_run(&["--paused", "--rtf", "0", "--record", file.to_str().unwrap()]);
    let a = ros_client(&python, &endpoint, &["tf_stepped", "150", "-"]);
    let (_, err) = run.wait();
    let ok = serde_json::json!({"result": 1, "error_message": ""});
    let mut received = Vec::new();
    let mut messages = 0;
    for (call, steps) in a["steps"].as_array().unwrap().iter().enumerate() {
        assert_eq!(steps["reply"]["result"], ok, "{a}");
        let mut stamps: Vec<i64> = Vec::new();
        for m in steps["messages"].as_array().unwrap() {
            messages += 1;
            for t in m["transforms"].as_array().unwrap() {
                assert_eq!(t[1], "world", "{t}");
                let stamp = t[0].as_i64().unwrap();
                if stamps.last() != Some(&stamp) {
                    stamps.push(stamp);
                }
                received.push(t.clone());
            }
        }
        // Steps of 1 ms; the first frames are those of the first step after subscribing.
        let first = 150 * call as i64 + 1;
        let expected: Vec<i64> = (first..first + 150).map(|ms| ms * 1_000_000).collect();
        assert_eq!(
            stamps, expected,
            "call {call}: every step's stamp, in step order, before the reply"
        );
    }
    let children: Vec<&str> = received
        .iter()
        .take_while(|t| t[0] == received[0][0])
        .map(|t| t[2].as_str().unwrap())
        .collect();
    for frame in ["pioneer", "pioneer::chassis", "pioneer::tilt_link"] {
        assert!(
            children.contains(&frame),
            "the first step holds every frame: {children:?}"
        );
    }
    // The recording's chassis, by stamp.
    let o = Command::new(&python)
        .arg(workspace().join("sim-core/tests/python/read_mcap.py"))
        .arg(&file)
        .arg("/tf")
        .output()
        .expect("python runs");
    assert!(o.status.success(), "read_mcap.py: {}", stderr(&o));
    let recorded: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let mut chassis_recorded = Vec::new();
    for m in recorded["messages"]["/tf"].as_array().unwrap() {
        for t in m["value"]["transforms"].as_array().unwrap() {
            let s = &t["header"]["stamp"];
            let ns = stamp_ns(&s["sec"], &s["nanosec"]);
            if t["child_frame_id"] == "pioneer::chassis" && ns > 0 && ns <= 300_000_000 {
                let (p, r) = (&t["transform"]["translation"], &t["transform"]["rotation"]);
                let v = [
                    &p["x"], &p["y"], &p["z"], &r["x"], &r["y"], &r["z"], &r["w"],
                ];
                chassis_recorded.push((ns, v.map(|x| x.as_f64().unwrap())));
            }
        }
    }
    let chassis_sent: Vec<(i64, [f64; 7])> = received
        .iter()
        .filter(|t| t[2] == "pioneer::chassis")
        .map(|t| {
            let v: Vec<f64> = (3..10).map(|i| t[i].as_f64().unwrap()).collect();
            (t[0].as_i64().unwrap(), v.try_into().unwrap())
        })
        .collect();
    assert_eq!(chassis_sent.len(), 300, "the chassis moves every step");
    assert_eq!(
        chassis_sent.iter().map(|c| c.0).collect::<Vec<_>>(),
        chassis_recorded.iter().map(|c| c.0).collect::<Vec<_>>(),
        "the same steps as the recording's"
    );
    for ((ns, sent), (_, rec)) in chassis_sent.iter().zip(&chassis_recorded) {
        assert!(
            sent.iter().zip(rec).all(|(a, b)| (a - b).abs() <= 1e-12),
            "the chassis at {ns} ns: {sent:?} sent, {rec:?} recorded"
        );
    }
    assert_eq!(
        tf_summary(&err),
        (300, messages),
        "the summary counts the steps and the messages: {err}"
    );
}

/// An unpaced run's `/tf` messages, read by a subscriber that keeps up, hold every step's
/// stamp from the first step after it matched to the run's last, in step order: every step
/// but those the summary counts lost (none while the Zenoh thread gets the CPU in time), and
/// the summary counts the steps and messages sent.
#[test]
fn an_unpaced_runs_tf_messages_hold_every_step() {
    let Some(python) = python() else { return };
    let dir = stage(PIONEER_LIBS);
    let endpoint = loopback();
    let (mut client, mut out) = listening_client(&python, &endpoint, "tf_listen");
    let run = simcore(&[
        "run",
        "worlds/pioneer.sdf",
        "--rtf",
        "0",
        "--duration",
        "8",
        "--plugin-path",
        dir.path().to_str().unwrap(),
        "--zenoh-connect",
        &endpoint,
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    std::thread::sleep(Duration::from_millis(500));
    drop(client.stdin.take());
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut out, &mut answer).expect("the client's answer");
    assert!(client.wait().expect("client ends").success());
    let a: Value = serde_json::from_str(&answer).expect("the client's JSON");
    let err = stderr(&run);
    let msgs = a["messages"].as_array().unwrap();
    assert!(!msgs.is_empty(), "{err}");
    let stamps: Vec<i64> = msgs
        .iter()
        .flat_map(|m| m["stamps"].as_array().unwrap())
        .map(|s| s.as_i64().unwrap())
        .collect();
    assert!(
        stamps.windows(2).all(|w| w[0] < w[1]),
        "every step once, in step order"
    );
    let tf = err
        .lines()
        .find(|l| l.trim_start().starts_with("/tf ") && l.contains("TFMessage"))
        .unwrap_or_else(|| panic!("no /tf row: {err}"));
    let lost: u64 = tf.split_whitespace().nth(2).unwrap().parse().unwrap();
    let (steps, sent) = tf_summary(&err);
    let seqs: Vec<u64> = msgs.iter().map(|m| m["seq"].as_u64().unwrap()).collect();
    // Steps of 1 ms from the first step after the subscriber matched to the run's last:
    // each one is in a message unless the summary counts it lost (the Zenoh thread did not
    // get the CPU in time).
    let span = (8_000_000_000 - stamps[0]) as u64 / 1_000_000 + 1;
    assert!(stamps.len() as u64 <= steps, "{tf}");
    if seqs[0] == 1 {
        assert_eq!(steps + lost, span, "every step sent or counted lost: {tf}");
    }
    if seqs == (1..=sent).collect::<Vec<_>>() {
        // Zenoh delivered every message (it drops rather than waits when its queue to the
        // subscriber is full, as under a machine's load).
        assert_eq!(stamps.len() as u64, steps, "every step sent is received");
        assert_eq!(
            stamps.last(),
            Some(&8_000_000_000),
            "to the run's last step"
        );
    } else {
        eprintln!(
            "notice: Zenoh dropped /tf messages: {} of {sent} received",
            seqs.len()
        );
    }
}

/// `simcore topic echo` (in a process of its own) against the independent client: the scans
/// it prints are those rosbags decodes from the same samples, and the Twists it prints are
/// those the client publishes (with garbage on the same key, skipped with a warning).
#[test]
fn the_live_echo_agrees_with_an_independent_client() {
    let Some(python) = python() else { return };
    let dir = stage(PIONEER_LIBS);
    let endpoint = loopback();
    let run = Run::start(
        "worlds/pioneer.sdf",
        dir.path(),
        &["--zenoh-listen", &endpoint],
    );
    let echo = |topic: &str, count: &str| {
        Command::new(env!("CARGO_BIN_EXE_simcore"))
            .args(["topic", "echo", topic, "--count", count, "--duration", "60"])
            .args(["--zenoh-connect", &endpoint])
            .env_remove("ROS_DOMAIN_ID")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("simcore topic echo starts")
    };
    // Once the run has published its first scan (the tools need someone to connect to).
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let list = Command::new(env!("CARGO_BIN_EXE_simcore"))
            .args(["topic", "list", "--zenoh-connect", &endpoint])
            .output()
            .expect("simcore topic list");
        if String::from_utf8_lossy(&list.stdout).contains(SCAN) {
            break;
        }
        assert!(Instant::now() < deadline, "the run never served its scan");
        std::thread::sleep(Duration::from_millis(300));
    }
    let scans_echo = echo(SCAN, "30");
    let twists_echo = echo("/model/pioneer/cmd_vel", "3");
    // Both listen before the client reads and writes (each waits for the graph first).
    std::thread::sleep(Duration::from_secs(2));
    let scans = ros_client(
        &python,
        &endpoint,
        &["topic", "sensor_msgs/msg/LaserScan", "3"],
    );
    let drive = ros_client(&python, &endpoint, &["drive", "1.5", "0.25"]);
    let out = scans_echo.wait_with_output().expect("echo ends");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    compare_scans(
        checked_messages(&scans, 3),
        &json_lines(&String::from_utf8_lossy(&out.stdout)),
    );
    let out = twists_echo.wait_with_output().expect("echo ends");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let twists = json_lines(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(twists.len(), 3, "{drive}");
    for t in &twists {
        assert_eq!(t["topic"], "/model/pioneer/cmd_vel");
        assert_eq!(t["type"], "Twist");
        assert_eq!(t["linear"]["x"], 0.25, "{t}");
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("could not be read"),
        "the client's garbage is skipped with a warning:\n{err}"
    );
    run.stop();
}
