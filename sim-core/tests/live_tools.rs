//! The live tools (`simcore topic`, `simcore service`, `simcore sim`) against a running
//! `simcore run`, both reaching each other only through a Zenoh router (started here, on a
//! loopback port of its own; the tools are Zenoh clients, so every message and call goes
//! through it): the graph listed, a paused world stepped exactly as asked, a Twist published
//! that drives the robot, odometry echoed in `--echo`'s form, `/clock`'s rate, reset, play,
//! and the shell completions.

use crate::common;

use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use zenoh::Wait;

/// A free loopback port's endpoint.
fn loopback() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port();
    format!("tcp/127.0.0.1:{port}")
}

/// A Zenoh router listening on `endpoint` (until dropped).
fn router(endpoint: &str) -> zenoh::Session {
    let mut c = zenoh::Config::default();
    c.insert_json5("mode", "\"router\"").unwrap();
    c.insert_json5("scouting/multicast/enabled", "false")
        .unwrap();
    c.insert_json5("listen/endpoints", &format!("[\"{endpoint}\"]"))
        .unwrap();
    zenoh::open(c).wait().expect("the router opens")
}

/// `simcore ARGS --zenoh-connect ENDPOINT`.
fn tool(endpoint: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(args)
        .args(["--zenoh-connect", endpoint])
        .env_remove("ROS_DOMAIN_ID")
        .env_remove("SIMCORE_LOG")
        .output()
        .expect("simcore runs")
}

/// [`tool`], which must succeed; its stdout.
fn ok(endpoint: &str, args: &[&str]) -> String {
    let o = tool(endpoint, args);
    assert!(
        o.status.success(),
        "simcore {args:?}: {:?}\n{}{}",
        o.status,
        stdout(&o),
        stderr(&o)
    );
    stdout(&o)
}

/// The robot's state as `/get_entity_state` answers: sim time (ns) and x.
fn robot(endpoint: &str) -> (i64, f64) {
    let out = ok(
        endpoint,
        &[
            "service",
            "call",
            "/get_entity_state",
            r#"{"entity": "robot"}"#,
        ],
    );
    let v: Value = serde_json::from_str(out.trim()).expect("a JSON reply");
    assert_eq!(v["result"]["result"], 1, "{v}");
    let stamp = &v["state"]["header"]["stamp"];
    let ns = stamp["sec"].as_i64().unwrap() * 1_000_000_000 + stamp["nanosec"].as_i64().unwrap();
    (ns, v["state"]["pose"]["position"]["x"].as_f64().unwrap())
}

/// A `simcore run` of `worlds/diff_drive.sdf`, paused, joined to the router.
struct Run(Child);

impl Drop for Run {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_live_tools_drive_a_running_world_through_a_router() {
    let endpoint = loopback();
    let _router = router(&endpoint);
    let plugins = stage(&["simcore_plugin_diff_drive", "simcore_plugin_truth"]);
    let _run = Run(Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args([
            "run",
            "worlds/diff_drive.sdf",
            "--paused",
            "--duration",
            "300",
        ])
        .args(["--zenoh-connect", &endpoint, "--plugin-path"])
        .arg(plugins.path())
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env_remove("ROS_DOMAIN_ID")
        .env("SIMCORE_LOG", "warn")
        .current_dir(workspace())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("simcore runs"));

    // The graph, as JSON lines, once the run has joined.
    let deadline = Instant::now() + Duration::from_secs(60);
    let topics = loop {
        let lines = json_lines(&ok(&endpoint, &["topic", "list", "--json"]));
        if lines.iter().any(|t| t["name"] == "/model/robot/cmd_vel") {
            break lines;
        }
        assert!(Instant::now() < deadline, "the run never joined: {lines:?}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let topic = |name: &str| topics.iter().find(|t| t["name"] == name).unwrap().clone();
    assert_eq!(
        topic("/clock")["types"],
        serde_json::json!(["rosgraph_msgs/msg/Clock"])
    );
    assert_eq!(
        topic("/model/robot/cmd_vel")["subscribers"],
        serde_json::json!(["/simcore"])
    );
    let services = ok(&endpoint, &["service", "list"]);
    assert!(
        services.contains("/step_simulation") && services.contains("StepSimulation"),
        "{services}"
    );

    // Paused: `sim step N` advances exactly N steps of 1 ms.
    assert_eq!(ok(&endpoint, &["sim", "state"]).trim(), "paused");
    let (t0, x0) = robot(&endpoint);
    ok(&endpoint, &["sim", "step", "25"]);
    let (t1, _) = robot(&endpoint);
    assert_eq!(t1 - t0, 25_000_000, "25 steps of 1 ms");

    // A Twist published on the robot's input drives it while stepped.
    let o = ok(
        &endpoint,
        &[
            "topic",
            "pub",
            "/model/robot/cmd_vel",
            r#"{"type": "Twist", "linear": {"x": 1.0}}"#,
            "--once",
        ],
    );
    assert!(o.is_empty(), "pub prints on stderr only: {o}");
    // The message reaches the world between steps: step until it moves (at most 2 s).
    let mut x = x0;
    for _ in 0..20 {
        ok(&endpoint, &["sim", "step", "100"]);
        x = robot(&endpoint).1;
        if x > x0 + 0.05 {
            break;
        }
    }
    assert!(x > x0 + 0.05, "the robot did not drive: x {x0} -> {x}");

    // Echo in `--echo`'s form, while stepping in the background.
    let mut echo = Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(["topic", "echo", "/model/robot/odometry", "--count", "2"])
        .args(["--zenoh-connect", &endpoint])
        .env_remove("ROS_DOMAIN_ID")
        .stdout(Stdio::piped())
        .spawn()
        .expect("echo starts");
    let (tx, rx) = mpsc::channel();
    let out = echo.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while lines.len() < 2 && Instant::now() < deadline {
        ok(&endpoint, &["sim", "step", "50"]);
        lines.extend(rx.try_iter());
    }
    assert!(echo.wait().expect("echo ends").success());
    lines.extend(rx.try_iter());
    let lines = json_lines(&lines.join("\n"));
    assert_eq!(lines.len(), 2, "{lines:?}");
    for l in &lines {
        assert_eq!(l["topic"], "/model/robot/odometry");
        assert_eq!(l["type"], "Odometry");
        assert_eq!(l["header"]["frame_id"], "robot/odom");
        assert!(l["twist"]["linear"]["x"].as_f64().unwrap() > 0.1, "{l}");
    }

    // A call the simulation refuses exits 1 with its reply; a malformed one 2, named.
    let o = tool(
        &endpoint,
        &[
            "service",
            "call",
            "/delete_entity",
            r#"{"entity": "nothing"}"#,
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\"result\":2"),
        "NOT_FOUND: {}",
        stdout(&o)
    );
    let o = tool(
        &endpoint,
        &["service", "call", "/step_simulation", r#"{"step": 1}"#],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no field `step`"), "{}", stderr(&o));
    let o = tool(&endpoint, &["sim", "step", "1", "--discovery", "0.2"]);
    assert!(o.status.success());

    // A world service (the truth plugin's set_pose), called with `--call`'s JSON.
    let listed = ok(&endpoint, &["service", "list"]);
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("/world/diff_drive/set_pose") && l.contains("world service")),
        "{listed}"
    );
    let reply = ok(
        &endpoint,
        &[
            "service",
            "call",
            "/world/diff_drive/set_pose",
            r#"{"type": "Pose", "name": "robot", "pose": {"position": {"x": 5, "z": 0.3}}}"#,
        ],
    );
    let reply: Value = serde_json::from_str(reply.trim()).unwrap();
    assert_eq!(
        (&reply["type"], &reply["data"]),
        (&"Boolean".into(), &true.into()),
        "{reply}"
    );
    assert_eq!(robot(&endpoint).1, 5.0);
    let o = tool(
        &endpoint,
        &[
            "service",
            "call",
            "/world/diff_drive/set_pose",
            r#"{"type": "Pose", "name": "nobody"}"#,
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no model `nobody`"), "{}", stderr(&o));

    // Reset: time back to the start.
    ok(&endpoint, &["sim", "reset"]);
    assert_eq!(robot(&endpoint).0, 0);

    // Playing, /clock ticks at its rate of 100 per second of sim time (about real time).
    ok(&endpoint, &["sim", "play"]);
    assert_eq!(ok(&endpoint, &["sim", "state"]).trim(), "playing");
    let clocks = json_lines(&ok(&endpoint, &["topic", "echo", "/clock", "--count", "2"]));
    assert_eq!(clocks.len(), 2, "{clocks:?}");
    let ns = |c: &Value| {
        c["clock"]["sec"].as_i64().unwrap() * 1_000_000_000 + c["clock"]["nsec"].as_i64().unwrap()
    };
    assert_eq!(clocks[0]["type"], "Clock");
    assert!(ns(&clocks[1]) > ns(&clocks[0]), "{clocks:?}");
    let hz = ok(&endpoint, &["topic", "hz", "/clock", "--count", "60"]);
    let rate: f64 = hz
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("average rate: "))
        .unwrap_or_else(|| panic!("{hz}"))
        .parse()
        .unwrap();
    assert!(rate > 20.0 && rate < 500.0, "{hz}");
    ok(&endpoint, &["sim", "pause"]);
}

#[test]
fn a_tool_without_a_simulation_says_where_it_looked() {
    let endpoint = loopback();
    let o = tool(&endpoint, &["sim", "state"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("cannot open the Zenoh session")
            && e.contains(&endpoint)
            && !e.contains(" at /"),
        "{e}"
    );
    // Reached through a router with nothing behind it: nothing answers, said at once.
    let _router = router(&endpoint);
    let started = Instant::now();
    let o = tool(&endpoint, &["sim", "state", "--timeout", "30"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no server answered"), "{}", stderr(&o));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "waited for the timeout"
    );
}

#[test]
fn completions_cover_the_live_tools() {
    for shell in ["bash", "zsh"] {
        let o = simcore(&["completions", shell]);
        assert!(o.status.success(), "{}", stderr(&o));
        let script = stdout(&o);
        for word in ["topic", "service", "sim", "echo", "step"] {
            assert!(script.contains(word), "{shell}: no `{word}`");
        }
    }
}
