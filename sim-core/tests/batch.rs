//! `simcore batch` as a user runs it: the real binary, real worlds and plugin libraries,
//! worker processes on a local pool and Ray tasks on a local Ray cluster, the summary read
//! back by pyarrow.

use crate::common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The IMU of `worlds/imu_drop.sdf`.
const IMU: &str = "/world/imu_drop/model/box/link/body/sensor/imu/imu";

/// Runs `simcore batch` with `args` in `cwd`.
fn batch(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simcore"))
        .arg("batch")
        .args(args)
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env("SIMCORE_LOG", "warn")
        .current_dir(cwd)
        .output()
        .expect("simcore runs")
}

/// A sweep file in a new folder, with the folder of plugin libraries `libs` beside it.
fn sweep_dir(sweep: &str, libs: &[&str]) -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let plugins = stage(libs);
    let text = sweep
        .replace("{workspace}", workspace().to_str().unwrap())
        .replace("{plugins}", plugins.path().to_str().unwrap());
    std::fs::write(dir.path().join("sweep.toml"), text).unwrap();
    (dir, plugins)
}

fn metrics(out: &Path, run: &str) -> Value {
    let text = std::fs::read_to_string(out.join("runs").join(run).join("metrics.json"))
        .unwrap_or_else(|e| panic!("{run}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// The rows of `summary.csv` (RFC 4180: quoted fields may hold commas, quotes and line
/// breaks).
fn csv_rows(out: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let (mut rows, mut row, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    rows
}

const DROP_SWEEP: &str = r#"
name = "drop"
worlds = ["{workspace}/worlds/imu_drop.sdf"]
seeds = { first = 7, count = 2 }
duration = 1.0
plugin_path = ["{plugins}"]

[[override]]
path = "world/model[box]/pose"
values = ["0 0 1 0 0 0", [0, 0, 6, 0, 0, 0]]

[[check]]
name = "landed"
model = "box"
within = 0.06
of = [0, 0, 0.1]
by = 0.8

[[check]]
name = "imu_published"
topic = "/world/imu_drop/model/box/link/body/sensor/imu/imu"
at_least = 90
"#;

/// Worlds × seeds × override values, each run in its folder with its checks; a box dropped
/// from 1 m lands by 0.8 s, one dropped from 6 m does not; the summary lists them all, in
/// CSV and in Parquet (read back by pyarrow).
#[test]
fn a_sweep_runs_every_combination_and_checks_each() {
    let (dir, _plugins) = sweep_dir(DROP_SWEEP, &["simcore_plugin_imu"]);
    let o = batch(dir.path(), &["sweep.toml", "--out", "out", "--jobs", "2"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "two runs fail their check: {err}");
    assert!(
        err.contains("4 of 4 run(s) finished: 2 passed, 2 failed"),
        "{err}"
    );
    let out = dir.path().join("out");
    let rows = csv_rows(&out);
    assert_eq!(
        rows[0],
        [
            "run",
            "index",
            "world",
            "seed",
            "world/model[box]/pose",
            "status",
            "steps",
            "sim_time",
            "landed",
            "imu_published",
            "failures",
            "attempts",
            "error"
        ]
    );
    let expect = [
        ("r00000", "7", "0 0 1 0 0 0", "passed", "true"),
        ("r00001", "7", "0 0 6 0 0 0", "failed", "false"),
        ("r00002", "8", "0 0 1 0 0 0", "passed", "true"),
        ("r00003", "8", "0 0 6 0 0 0", "failed", "false"),
    ];
    for (row, (run, seed, pose, status, landed)) in rows[1..].iter().zip(expect) {
        assert_eq!(
            (&*row[0], &*row[3], &*row[4], &*row[5], &*row[8], &*row[9]),
            (run, seed, pose, status, landed, "true"),
            "{row:?}"
        );
        let m = metrics(&out, run);
        assert_eq!(m["steps"], 1000);
        assert_eq!(m["overrides"]["world/model[box]/pose"], pose);
        assert!(m["topics"][IMU].as_u64().unwrap() >= 90, "{m}");
    }
    assert!(
        metrics(&out, "r00001")["checks"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("came no nearer than"),
    );
    // Same seed, same world: the same files whatever ran them (a worker of its own each).
    let again = tempfile::tempdir().unwrap();
    let o = batch(
        dir.path(),
        &[
            "sweep.toml",
            "--out",
            again.path().join("o").to_str().unwrap(),
            "--jobs",
            "1",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_same_runs(&out, &again.path().join("o"));

    let Some(python) = python() else { return };
    let script = r#"
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
print(t.num_rows, ",".join(t.column_names), ",".join(t.column("status").to_pylist()),
      ",".join(str(x) for x in t.column("landed").to_pylist()), t.column("seed").to_pylist()[3])
"#;
    let p = Command::new(&python)
        .args(["-c", script])
        .arg(out.join("summary.parquet"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&p.stdout);
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    assert_eq!(
        text.trim(),
        "4 run,index,world,seed,world/model[box]/pose,status,steps,sim_time,landed,imu_published,failures,attempts,error \
         passed,failed,passed,failed True,False,True,False 8"
    );
}

/// Every run folder of `a` has the same files with the same bytes in `b`.
fn assert_same_runs(a: &Path, b: &Path) {
    let list = |p: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = walk(&p.join("runs"))
            .into_iter()
            .map(|f| f.strip_prefix(p).unwrap().to_path_buf())
            .collect();
        v.sort();
        v
    };
    let (fa, fb) = (list(a), list(b));
    assert_eq!(fa, fb, "the same files");
    for f in &fa {
        assert!(
            std::fs::read(a.join(f)).unwrap() == std::fs::read(b.join(f)).unwrap(),
            "{} differs",
            f.display()
        );
    }
    assert_eq!(
        std::fs::read(a.join("summary.csv")).unwrap(),
        std::fs::read(b.join("summary.csv")).unwrap()
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

/// A world with one fixture sensor, configured by `extra`.
fn fixture_world(extra: &str) -> String {
    world(&box_model(
        "m",
        0.1,
        &format!(
            r#"<sensor name="s" type="fixture_panic"><update_rate>100</update_rate>{extra}</sensor>"#
        ),
    ))
}

/// A run whose plugin panics, one whose world is refused and one whose worker aborts are
/// each a row with its error; the aborting one is started again `retries` times first; the
/// good run beside them passes.
#[test]
fn a_failing_run_is_a_row_and_the_batch_goes_on() {
    let sweep = r#"
worlds = ["good.sdf", "panics.sdf", "refused.sdf", "aborts.sdf"]
steps = 200
retries = 2
plugin_path = ["{plugins}"]

[[check]]
name = "clean"
no_failures = true
"#;
    let (dir, _plugins) = sweep_dir(sweep, &["simcore_fixture_testkit"]);
    let d = dir.path();
    std::fs::write(d.join("good.sdf"), world(&box_model("m", 0.1, ""))).unwrap();
    std::fs::write(
        d.join("panics.sdf"),
        fixture_world("<panic_after>5</panic_after>"),
    )
    .unwrap();
    std::fs::write(
        d.join("refused.sdf"),
        fixture_world("<panic_after>x</panic_after>"),
    )
    .unwrap();
    std::fs::write(
        d.join("aborts.sdf"),
        fixture_world("<panic_after>5</panic_after><abort>true</abort>"),
    )
    .unwrap();
    let o = batch(d, &["sweep.toml", "--out", "out"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("4 of 4 run(s) finished: 1 passed, 1 failed, 2 error(s)"),
        "{err}"
    );
    let out = d.join("out");
    let good = metrics(&out, "r00000");
    assert_eq!(
        (good["status"].as_str(), good["steps"].as_u64()),
        (Some("passed"), Some(200))
    );
    let panics = metrics(&out, "r00001");
    assert_eq!(panics["status"], "failed");
    assert_eq!(panics["steps"], 200, "the run goes on without the plugin");
    assert!(
        panics["error"]
            .as_str()
            .unwrap()
            .contains("fixture panic at update 5"),
        "{panics}"
    );
    assert_eq!(panics["checks"][0]["passed"], false);
    let refused = metrics(&out, "r00002");
    assert_eq!(refused["status"], "error");
    assert!(
        refused["error"].as_str().unwrap().contains("refused.sdf")
            && refused["error"].as_str().unwrap().contains("panic_after"),
        "{refused}"
    );
    let aborts = metrics(&out, "r00003");
    assert_eq!(aborts["status"], "error");
    assert_eq!(aborts["attempts"], 3, "started again twice: {aborts}");
    assert!(
        aborts["error"]
            .as_str()
            .unwrap()
            .contains("the worker ended with"),
        "{aborts}"
    );
    let rows = csv_rows(&out);
    assert_eq!(rows.len(), 5);
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    assert_eq!(
        rows[4][col("attempts")],
        "3",
        "attempts in the summary: {:?}",
        rows[4]
    );
    assert_eq!(rows[2][col("clean")], "false");
    assert_eq!(
        rows[3][col("clean")],
        "",
        "no verdict for a run that did not run"
    );
    assert!(
        rows[3][col("error")].contains("panic_after"),
        "{:?}",
        rows[3]
    );
    let left: Vec<_> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(left.is_empty(), "no partial folders left: {left:?}");
}

/// A bad sweep file is refused before anything runs, naming the file, the line and what to
/// do; no output folder is made.
#[test]
fn a_bad_sweep_is_refused_with_its_line() {
    let good = format!(
        "worlds = [\"{}/worlds/imu_drop.sdf\"]\nduration = 1.0\n",
        workspace().display()
    );
    let cases: Vec<(String, &str, &str)> = vec![
        (format!("{good}colour = 3\n"), ":3:", "colour"),
        (
            "worlds = [\"nowhere.sdf\"]\nduration = 1.0\n".into(),
            ":1:",
            "nowhere.sdf",
        ),
        (format!("{good}steps = 5\n"), ":2:", "not both"),
        (
            format!(
                "{good}[[override]]\npath = \"world/model[crate]/pose\"\nvalues = [\"0 0 1 0 0 0\"]\n"
            ),
            ":3:",
            "model[crate]",
        ),
        (
            format!("{good}seeds = {{ first = 0, count = 20000 }}\n"),
            ":3:",
            "seeds",
        ),
        (
            format!(
                "{good}[[check]]\nname = \"x\"\nmodel = \"box\"\nwithin = 1.0\nof = [0, 0, 0]\nby = 9.0\n"
            ),
            ":3:",
            "`by`",
        ),
        (
            format!("{good}[[check]]\nname = \"x\"\ntopic = \"/a\"\n"),
            ":3:",
            "a check is one of",
        ),
        (
            format!(
                "{good}seeds = {{ first = 0, count = 1000 }}\n[[override]]\npath = \"world/model[box]/pose\"\nvalues = [{}]\n",
                vec!["\"0 0 1 0 0 0\""; 200].join(",")
            ),
            ":1:",
            "more than 100000 runs",
        ),
        ("duration = 1.0\n".into(), ":1:", "worlds"),
        ("worlds = [\n".into(), ":1:", "unclosed array"),
    ];
    for (text, line, what) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sweep.toml"), &text).unwrap();
        let o = batch(dir.path(), &["sweep.toml", "--out", "out"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{text}\n{err}");
        assert!(
            err.contains(&format!("sweep.toml{line}")) && err.contains(what),
            "{text}\n-> {err}"
        );
        assert!(!dir.path().join("out").exists(), "nothing made for {text}");
    }
}

/// Ctrl-C stops a batch: the runs that finished keep their folders whole, the summary lists
/// exactly them, and nothing half-written is left.
#[test]
fn an_interrupted_batch_keeps_what_finished() {
    let sweep = r#"
worlds = ["{workspace}/worlds/imu_drop.sdf"]
seeds = { first = 0, count = 50 }
duration = 2.0
plugin_path = ["{plugins}"]
"#;
    let (dir, _plugins) = sweep_dir(sweep, &["simcore_plugin_imu"]);
    let child = Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(["batch", "sweep.toml", "--out", "out", "--jobs", "1"])
        .env_remove("SIMCORE_PLUGIN_PATH")
        .current_dir(dir.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first = dir.path().join("out/runs/r00001/metrics.json");
    let start = Instant::now();
    while !first.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no run finished"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("(interrupted)"), "{err}");
    let out = dir.path().join("out");
    let names: Vec<String> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("partial")), "{names:?}");
    assert!(names.len() >= 2 && names.len() < 50, "{names:?}");
    let rows = csv_rows(&out);
    assert_eq!(rows.len() - 1, names.len(), "a row per finished run");
    for n in &names {
        assert_eq!(metrics(&out, n)["steps"], 2000, "{n} is whole");
    }
}

/// A local Ray cluster on loopback (a head and a second node): started in `dir`, stopped
/// when dropped.
struct RayCluster {
    ray: PathBuf,
    address: String,
}

impl RayCluster {
    fn start(python: &Path) -> Option<RayCluster> {
        let ray = python.parent()?.join("ray");
        if !ray.exists() {
            assert!(
                std::env::var_os("SIMCORE_REQUIRE_PYTHON").is_none(),
                "the test Python has no `ray`"
            );
            return None;
        }
        let port = free_port();
        let address = format!("127.0.0.1:{port}");
        let common = [
            "--num-cpus=1",
            "--disable-usage-stats",
            "--node-ip-address=127.0.0.1",
        ];
        let head = Command::new(&ray)
            .args([
                "start",
                "--head",
                &format!("--port={port}"),
                "--include-dashboard=false",
            ])
            .args(common)
            .output()
            .unwrap();
        assert!(head.status.success(), "ray start --head: {}", stderr(&head));
        let node = Command::new(&ray)
            .args(["start", &format!("--address={address}")])
            .args(common)
            .output()
            .unwrap();
        assert!(
            node.status.success(),
            "ray start (second node): {}",
            stderr(&node)
        );
        Some(RayCluster { ray, address })
    }
}

impl Drop for RayCluster {
    fn drop(&mut self) {
        let _ = Command::new(&self.ray).args(["stop", "--force"]).output();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The same sweep as Ray tasks on a two-node cluster on loopback gives the local pool's
/// files, byte for byte; a Ray worker killed while it runs a run has its run started again,
/// and the run reports the second attempt.
#[test]
fn ray_runs_give_the_local_pools_files_and_survive_a_killed_worker() {
    let Some(python) = python() else { return };
    let Some(cluster) = RayCluster::start(&python) else {
        return;
    };
    let (dir, _plugins) = sweep_dir(DROP_SWEEP, &["simcore_plugin_imu"]);
    let d = dir.path();
    let local = batch(d, &["sweep.toml", "--out", "local", "--jobs", "2"]);
    assert_eq!(local.status.code(), Some(1), "{}", stderr(&local));
    let python_arg = python.to_str().unwrap();
    let ray = batch(
        d,
        &[
            "sweep.toml",
            "--out",
            "ray",
            "--executor",
            "ray",
            "--address",
            &cluster.address,
            "--python",
            python_arg,
            "--jobs",
            "2",
        ],
    );
    let err = stderr(&ray);
    assert_eq!(ray.status.code(), Some(1), "{err}");
    assert!(
        err.contains("4 of 4 run(s) finished: 2 passed, 2 failed"),
        "{err}"
    );
    assert_same_runs(&d.join("local"), &d.join("ray"));

    // A long run; its Ray worker is killed as soon as it runs simcore.
    let long = r#"
worlds = ["{workspace}/worlds/imu_drop.sdf"]
seeds = [3]
duration = 20.0
plugin_path = ["{plugins}"]
"#;
    let (dir, _plugins) = sweep_dir(long, &["simcore_plugin_imu"]);
    let d = dir.path();
    let child = Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args([
            "batch",
            "sweep.toml",
            "--out",
            "ray",
            "--executor",
            "ray",
            "--address",
            &cluster.address,
            "--python",
            python_arg,
        ])
        .env_remove("SIMCORE_PLUGIN_PATH")
        .current_dir(d)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let killed = loop {
        assert!(start.elapsed() < Duration::from_secs(120), "no worker seen");
        // The simcore worker (not the driver, whose program text names it too).
        let p = Command::new("pgrep")
            .args(["-f", "simcore batch-worker --runs"])
            .output()
            .unwrap();
        let pids = String::from_utf8_lossy(&p.stdout).to_string();
        if let Some(pid) = pids.split_whitespace().next() {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // The parent of the simcore worker: the Ray worker running the task.
            if let Some(ppid) = stat
                .rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().nth(1))
            {
                let k = Command::new("kill").args(["-9", ppid]).status().unwrap();
                let _ = Command::new("kill").args(["-9", pid]).status();
                break k.success();
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(killed);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("attempt 1 failed"),
        "the death is reported: {err}"
    );
    let m = metrics(&d.join("ray"), "r00000");
    assert_eq!(
        (m["status"].as_str(), m["attempts"].as_u64()),
        (Some("passed"), Some(2)),
        "{m}"
    );
    assert_eq!(m["steps"], 20_000);
}

/// The output folder is new or empty, and never a link: a batch does not write into another
/// folder through a link, nor over earlier results.
#[test]
fn the_output_folder_is_never_a_link_nor_full() {
    let (dir, _plugins) = sweep_dir(DROP_SWEEP, &["simcore_plugin_imu"]);
    let d = dir.path();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), d.join("linked")).unwrap();
    let o = batch(d, &["sweep.toml", "--out", "linked"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("linked"), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    std::fs::create_dir(d.join("full")).unwrap();
    std::fs::write(d.join("full/keep.txt"), "mine").unwrap();
    let o = batch(d, &["sweep.toml", "--out", "full"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not empty"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.join("full/keep.txt")).unwrap(),
        "mine"
    );
}

/// The sweep of `examples/sweep.toml`, run as README.md runs it: every combination, the drops
/// from 14 m failing `landed` as the file says, the others passing.
#[test]
fn the_example_sweep_runs_as_the_readme_says() {
    let out = tempfile::tempdir().unwrap();
    // The plugins as an installed simcore finds them (`cargo test` does not build them into
    // target/debug, the file's `plugin_path`).
    let o = Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(["batch", "examples/sweep.toml", "--out"])
        .arg(out.path())
        .env("SIMCORE_PLUGIN_PATH", plugin_build_dir())
        .env("SIMCORE_LOG", "warn")
        .current_dir(workspace())
        .output()
        .expect("simcore runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(1),
        "some runs fail on purpose:\n{err}"
    );
    assert!(
        err.contains("12 of 12 run(s) finished: 8 passed, 4 failed, 0 error(s)"),
        "{err}"
    );
    let rows = csv_rows(out.path());
    let header = &rows[0];
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    for row in &rows[1..] {
        let from_14_m = row[col("world/model[box]/pose")] == "0 0 14 0 0 0";
        assert_eq!(
            row[col("landed")],
            if from_14_m { "false" } else { "true" },
            "{row:?}"
        );
        assert_eq!(row[col("imu_rate")], "true", "{row:?}");
    }
}
