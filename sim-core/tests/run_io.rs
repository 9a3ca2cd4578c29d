//! `simcore run` against its surroundings (see `docs/cli.md`): a stdout closed by its reader,
//! a reader that never reads, SIGTERM and SIGHUP, and run-time input (`--pub`, `--call`)
//! checked against the world. Every test runs the real binary with the real plugins.

use crate::common;

use common::{isolated, json_lines, simcore, stage, stderr, stdout, workspace};
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const IMU_TOPIC: &str = "/world/imu_drop/model/box/link/body/sensor/imu/imu";

/// Starts the real `simcore` with `args`, stdout and stderr piped.
fn start(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(isolated(args))
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env("SIMCORE_LOG", "warn")
        .current_dir(workspace())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("simcore starts")
}

/// Waits for `child` to end, killing it (and failing) if it has not after two minutes: a
/// run that should end by itself hangs.
fn wait_or_kill(child: &mut Child, what: &str) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}: simcore did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `signal` (`TERM`, `HUP`, `INT`) to `child`.
fn signal(child: &Child, signal: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
}

/// The rest of a pipe, read on a thread (so that a full stderr never stalls the child).
fn read_all(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = r.read_to_string(&mut s);
        s
    })
}

/// An endless imu_drop run echoing the IMU, as fast as possible.
fn endless_echo(plugins: &std::path::Path, extra: &[&str]) -> Child {
    let mut args = vec![
        "run",
        "worlds/imu_drop.sdf",
        "--rtf",
        "0",
        "--echo",
        IMU_TOPIC,
        "--plugin-path",
        plugins.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    start(&args)
}

#[test]
fn a_stdout_closed_after_one_line_ends_the_run_with_its_summary() {
    let dir = stage(&["simcore_plugin_imu"]);
    // No --duration: only the closed pipe can end it (as `| head -1`).
    let mut child = endless_echo(dir.path(), &[]);
    let err = read_all(child.stderr.take().unwrap());
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let line: serde_json::Value = serde_json::from_str(&first).expect("a JSON line");
    assert_eq!(line["topic"], IMU_TOPIC);
    drop(out);
    let status = wait_or_kill(&mut child, "stdout closed");
    let err = err.join().unwrap();
    assert!(
        status.success(),
        "exit 0 when stdout closes: {status:?}\n{err}"
    );
    assert!(err.contains("(interrupted)"), "{err}");
    assert!(err.contains("stdout was closed"), "{err}");
    assert!(err.contains("box::body::imu"), "the sensor table: {err}");
}

#[test]
fn a_reader_that_never_reads_does_not_hold_up_the_steps() {
    let dir = stage(&["simcore_plugin_imu"]);
    // 50 000 IMU lines (about 40 MB) into a pipe nobody reads (64 KiB): the writer blocks
    // at once, the queue fills and the rest is dropped, and the run still takes its steps.
    let mut child = endless_echo(dir.path(), &["--steps", "500000"]);
    let out = child.stdout.take().unwrap();
    // stderr line by line on a thread: a run that blocks on stdout never prints its summary,
    // and the test fails at the deadline instead of waiting with it.
    let (lines, got) = std::sync::mpsc::channel();
    let err = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for l in err.lines().map_while(Result::ok) {
            if lines.send(l).is_err() {
                return;
            }
        }
    });
    let mut text = String::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    while !text.contains("500000 steps") {
        let left = deadline.saturating_duration_since(Instant::now());
        match got.recv_timeout(left) {
            Ok(l) => text.push_str(&(l + "\n")),
            Err(_) => {
                let _ = child.kill();
                panic!("no summary while stdout is full: {text}");
            }
        }
    }
    assert!(text.contains("imu_drop.sdf: 500000 steps"), "{text}");
    // The run now waits for its reader; SIGTERM ends the wait, and says what was dropped.
    signal(&child, "TERM");
    let status = wait_or_kill(&mut child, "SIGTERM while stdout is full");
    let rest: String = got.iter().map(|l| l + "\n").collect();
    assert!(status.success(), "{status:?}\n{text}{rest}");
    let dropped: u64 = rest
        .lines()
        .find(|l| l.contains("line(s) for stdout dropped"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a count of dropped lines: {rest}"));
    // All but the few the pipe took: those the full queue refused, and those queued when
    // the signal came.
    assert!(
        dropped > 45_000 && dropped <= 50_000,
        "most lines dropped: {rest}"
    );
    drop(out);
}

#[test]
fn sigterm_and_sighup_end_a_run_with_its_summary_and_a_valid_recording() {
    let dir = stage(&["simcore_plugin_imu"]);
    for sig in ["TERM", "HUP"] {
        let file = dir.path().join(format!("{sig}.mcap"));
        let mut child = endless_echo(dir.path(), &["--record", file.to_str().unwrap()]);
        let err = read_all(child.stderr.take().unwrap());
        let mut out = BufReader::new(child.stdout.take().unwrap());
        // Running: its first message is out.
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        assert!(first.contains(IMU_TOPIC), "{first}");
        signal(&child, sig);
        let rest = read_all(out);
        let status = wait_or_kill(&mut child, sig);
        let (err, rest) = (err.join().unwrap(), rest.join().unwrap());
        assert!(status.success(), "SIG{sig}: {status:?}\n{err}");
        assert!(err.contains("(interrupted)"), "SIG{sig}: {err}");
        assert!(err.contains("box::body::imu"), "SIG{sig}: {err}");
        // Every line written is whole.
        json_lines(&rest);
        let summary = mcap_summary(&file);
        assert!(summary.contains(IMU_TOPIC), "SIG{sig}: {summary}");
    }
}

/// The channels of an MCAP file as the `mcap` Python reader lists them (it reads the
/// summary section, so the file must have been finished).
fn mcap_summary(file: &std::path::Path) -> String {
    let Some(py) = common::python() else {
        // Without the Python reader: a finished file ends with the MCAP magic.
        let bytes = std::fs::read(file).unwrap();
        assert!(bytes.ends_with(b"\x89MCAP0\r\n"), "an unfinished MCAP file");
        return IMU_TOPIC.to_string();
    };
    let script = "import sys\nfrom mcap.reader import make_reader\n\
                  s = make_reader(open(sys.argv[1], 'rb')).get_summary()\n\
                  assert s is not None, 'no summary section'\n\
                  print('\\n'.join(c.topic for c in s.channels.values()))\n";
    let o = Command::new(py)
        .args(["-c", script, file.to_str().unwrap()])
        .output()
        .expect("python runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn list_into_a_closed_pipe_ends_cleanly() {
    let dir = stage(&["simcore_plugin_imu"]);
    let plugins = dir.path().to_str().unwrap();
    let mut child = start(&[
        "run",
        "worlds/imu_drop.sdf",
        "--list",
        "--plugin-path",
        plugins,
    ]);
    drop(child.stdout.take());
    let err = read_all(child.stderr.take().unwrap());
    let status = wait_or_kill(&mut child, "--list into a closed pipe");
    let err = err.join().unwrap();
    assert!(status.success(), "{status:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// `simcore run worlds/pioneer.sdf` for one step with `extra`, as the real binary runs it.
fn pioneer_with(extra: &[&str]) -> std::process::Output {
    let dir = stage(common::PIONEER_LIBS);
    let mut args = vec![
        "run",
        "worlds/pioneer.sdf",
        "--rtf",
        "0",
        "--steps",
        "1",
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    simcore(&args)
}

const SCAN: &str = "/world/pioneer/model/pioneer/link/chassis/sensor/lidar/scan";

#[test]
fn pub_and_call_input_the_world_cannot_take_is_refused_by_name() {
    let refused = |extra: &[&str], says: &[&str]| {
        let o = pioneer_with(extra);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        for s in says {
            assert!(err.contains(s), "{extra:?}: `{s}` not in:\n{err}");
        }
        assert!(stdout(&o).is_empty(), "nothing ran: {}", stdout(&o));
    };
    // A misspelt field is not a zero.
    refused(
        &[
            "--pub",
            r#"/model/pioneer/cmd_vel={"type":"Twist","linaer":{"x":0.4}}"#,
        ],
        &[
            "unknown field `linaer` in a Twist message",
            "linear, angular",
        ],
    );
    // A topic nothing listens to, with the ones it does.
    refused(
        &["--pub", r#"/model/pioneer/cmd_vle={"type":"Twist"}"#],
        &[
            "nothing in this world listens to `/model/pioneer/cmd_vle`",
            "/model/pioneer/cmd_vel",
        ],
    );
    // A sensor's output.
    refused(
        &["--pub", &format!(r#"{SCAN}={{"type":"Double","data":1}}"#)],
        &["is the output of sensor `pioneer::chassis::lidar`"],
    );
    // Two types on one topic.
    refused(
        &[
            "--pub",
            r#"/model/pioneer/cmd_vel={"type":"Twist"}@0"#,
            "--pub",
            r#"/model/pioneer/cmd_vel={"type":"Double","data":1}@0.5"#,
        ],
        &["a Double message, where an earlier --pub to `/model/pioneer/cmd_vel` is a Twist"],
    );
    // A type other than the one the listening system reads, named with the system and the
    // type it reads (a Twist there runs: `pub_any_topic_and_well_formed_requests_still_run`).
    refused(
        &[
            "--pub",
            r#"/model/pioneer/cmd_vel={"type":"Double","data":1}"#,
        ],
        &[
            "--pub `/model/pioneer/cmd_vel`: a Double message",
            "plugin `gz::sim::systems::DiffDrive` (on `pioneer`) reads a Twist",
        ],
    );
    // set_pose with the position beside the pose: refused, never the origin.
    refused(
        &[
            "--call",
            r#"/world/pioneer/set_pose={"type":"Pose","name":"pioneer","position":{"x":3}}"#,
        ],
        &["unknown field `position` in a Pose message (its fields: name, pose)"],
    );
}

#[test]
fn pub_any_topic_and_well_formed_requests_still_run() {
    let o = pioneer_with(&[
        "--pub",
        r#"/model/pioneer/cmd_vel={"type":"Twist","linear":{"x":0.4}}"#,
        "--pub",
        r#"/acme/thing={"type":"Custom","schema":"acme/Thing","data":[1]}"#,
        "--pub-any-topic",
        "--call",
        r#"/world/pioneer/set_pose={"type":"Pose","name":"pioneer","pose":{"position":{"x":3}}}"#,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["response"]["data"], true, "{lines:?}");
}
