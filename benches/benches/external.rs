//! What the transport and recording benchmarks run outside the bench process: the release
//! `simcore` binary, the out-of-process Zenoh client (`benches/python/zenoh_probe.py`), the
//! bench worlds derived from `worlds/pioneer.sdf`, and the criterion-style filter.

use super::{plugin_dir, target_dir};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Instant;

pub use sim_benches::selected;

/// The interpreter of the Zenoh client: `SIMCORE_PYTHON`, else `target/python` (the venv
/// `cargo xtask test` makes), if present.
pub fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SIMCORE_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let venv = target_dir().join("python/bin/python");
    venv.exists().then_some(venv)
}

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn simcore() -> PathBuf {
    plugin_dir().join(format!("simcore{}", std::env::consts::EXE_SUFFIX))
}

/// Whether the release `simcore` binary is there (`cargo xtask bench` builds it).
pub fn have_simcore() -> bool {
    simcore().exists()
}

/// `worlds/pioneer.sdf` with `sensor` (SDF text) added to the chassis link after its IMU,
/// written to `target/bench-worlds/NAME.sdf`.
pub fn pioneer_with(name: &str, sensor: &str) -> Result<PathBuf, String> {
    let src = workspace().join("worlds/pioneer.sdf");
    let text = std::fs::read_to_string(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    let imu = text
        .find("<sensor name=\"imu\"")
        .ok_or("worlds/pioneer.sdf has no IMU sensor")?;
    let end = text[imu..]
        .find("</sensor>")
        .map(|k| imu + k + "</sensor>".len())
        .ok_or("worlds/pioneer.sdf: the IMU sensor is not closed")?;
    let dir = target_dir().join("bench-worlds");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = dir.join(format!("{name}.sdf"));
    let world = format!("{}\n{sensor}{}", &text[..end], &text[end..]);
    std::fs::write(&out, world).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out)
}

/// `worlds/pioneer.sdf` itself.
pub fn pioneer() -> PathBuf {
    workspace().join("worlds/pioneer.sdf")
}

/// What a `simcore run` reported.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOut {
    /// Simulated seconds.
    pub sim_s: f64,
    /// Wall seconds of the step loop (the run summary's).
    pub loop_s: f64,
    /// Wall seconds of the whole process (start-up and closing included).
    pub process_s: f64,
    /// CPU seconds of the whole process, user and system, every thread (0 where the
    /// platform does not tell).
    pub cpu_s: f64,
}

impl RunOut {
    /// Simulated seconds per wall second of the step loop.
    pub fn rtf(&self) -> f64 {
        self.sim_s / self.loop_s.max(1e-9)
    }
}

/// CPU seconds (user and system) of the children of this process that have ended and been
/// waited for.
#[cfg(unix)]
fn children_cpu_s() -> f64 {
    use nix::sys::resource::{UsageWho, getrusage};
    use nix::sys::time::TimeValLike;
    getrusage(UsageWho::RUSAGE_CHILDREN)
        .map(|u| (u.user_time() + u.system_time()).num_microseconds() as f64 * 1e-6)
        .unwrap_or(0.0)
}

#[cfg(not(unix))]
fn children_cpu_s() -> f64 {
    0.0
}

/// Runs `simcore run WORLD ARGS` with the release plugins; the summary's times and stderr.
/// No other child of this process may end while it runs (its CPU time is the children's
/// before and after).
pub fn simcore_run(world: &Path, args: &[&str]) -> Result<(RunOut, String), String> {
    let cpu_before = children_cpu_s();
    let start = Instant::now();
    let out = Command::new(simcore())
        .arg("run")
        .arg(world)
        .args(args)
        .arg("--plugin-path")
        .arg(plugin_dir())
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env_remove("ROS_DOMAIN_ID")
        .env("SIMCORE_LOG", "warn")
        .current_dir(workspace())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", simcore().display()))?;
    let process_s = start.elapsed().as_secs_f64();
    let cpu_s = children_cpu_s() - cpu_before;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(format!("simcore run {} failed:\n{err}", world.display()));
    }
    let number_after = |line: &str, tag: &str| {
        let rest = &line[line.find(tag)? + tag.len()..];
        rest.split_whitespace().next()?.parse::<f64>().ok()
    };
    let summary = err
        .lines()
        .find(|l| l.contains(" steps, sim time "))
        .ok_or_else(|| format!("no run summary in:\n{err}"))?;
    let run = RunOut {
        sim_s: number_after(summary, "sim time ").ok_or("no sim time in the summary")?,
        loop_s: number_after(summary, "wall time ").ok_or("no wall time in the summary")?,
        process_s,
        cpu_s,
    };
    Ok((run, err))
}

/// A Zenoh endpoint on a free loopback port.
pub fn loopback() -> Result<String, String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("no free loopback port: {e}"))?
        .port();
    Ok(format!("tcp/127.0.0.1:{port}"))
}

fn probe() -> PathBuf {
    workspace().join("benches/python/zenoh_probe.py")
}

/// The samples one key received.
#[derive(Clone, Debug, Default)]
pub struct Stream {
    /// Receive wall time minus the attachment's source time, per sample, ns.
    pub lat_ns: Vec<i64>,
    /// The header stamp (sim time) of each sample, ns.
    pub stamps_ns: Vec<i64>,
    /// The payload size of the last sample.
    pub bytes: usize,
    /// Samples received (a counting subscriber records nothing else).
    pub count: usize,
}

/// What the subscriber process does with each sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Records its latency, header stamp and size ([`Stream`]), per sample key.
    Record,
    /// Only counts it, per key expression subscribed (the least a client that keeps up
    /// does).
    Count,
}

/// The subscriber process: listens on its endpoint, subscribed to its keys.
pub struct Sub {
    child: Option<Child>,
    stdout: Option<BufReader<ChildStdout>>,
    /// Where it listens (simcore and the baseline publisher connect there).
    pub endpoint: String,
}

impl Sub {
    /// Starts the subscriber ([`Mode::Record`]) and waits until its subscriptions are
    /// declared.
    pub fn start(python: &Path, keys: &[&str]) -> Result<Sub, String> {
        Self::start_with(python, Mode::Record, keys)
    }

    /// Starts the subscriber in `mode` and waits until its subscriptions are declared.
    pub fn start_with(python: &Path, mode: Mode, keys: &[&str]) -> Result<Sub, String> {
        let endpoint = loopback()?;
        let mut child = Command::new(python)
            .arg(probe())
            .arg(match mode {
                Mode::Record => "sub",
                Mode::Count => "count",
            })
            .arg(&endpoint)
            .args(keys)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
        let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut sub = Sub {
            child: Some(child),
            stdout: None,
            endpoint,
        };
        let mut line = String::new();
        stdout
            .read_line(&mut line)
            .map_err(|e| format!("subscriber: {e}"))?;
        if line.trim() != "ready" {
            return Err(format!("the subscriber did not start: {line:?}"));
        }
        sub.stdout = Some(stdout);
        Ok(sub)
    }

    /// Closes its stdin and reads what it received, per sample key.
    pub fn finish(mut self) -> Result<HashMap<String, Stream>, String> {
        let mut child = self.child.take().ok_or("subscriber gone")?;
        drop(child.stdin.take());
        let mut text = String::new();
        if let Some(mut out) = self.stdout.take() {
            out.read_to_string(&mut text)
                .map_err(|e| format!("subscriber: {e}"))?;
        }
        let status = child.wait().map_err(|e| format!("subscriber: {e}"))?;
        if !status.success() {
            return Err(format!("the subscriber failed ({status})"));
        }
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("subscriber output: {e}"))?;
        let ints = |v: &serde_json::Value| -> Vec<i64> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_i64())
                .collect()
        };
        Ok(v.as_object()
            .into_iter()
            .flatten()
            .map(|(k, s)| {
                let lat_ns = ints(&s["lat_ns"]);
                let count = s["count"].as_u64().map_or(lat_ns.len(), |n| n as usize);
                let stream = Stream {
                    lat_ns,
                    stamps_ns: ints(&s["stamps_ns"]),
                    bytes: s["bytes"].as_u64().unwrap_or(0) as usize,
                    count,
                };
                (k.clone(), stream)
            })
            .collect())
    }
}

impl Drop for Sub {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Puts `specs` (`KEY:BYTES:HZ:N`) from a publisher process connected to `endpoint`, and
/// waits until it is done.
pub fn publish(python: &Path, endpoint: &str, specs: &[String]) -> Result<(), String> {
    let out = Command::new(python)
        .arg(probe())
        .arg("pub")
        .arg(endpoint)
        .args(specs)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "the publisher failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// The `q` quantile (0..=1) of `v`, ns (nearest rank).
pub fn quantile(v: &[i64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_unstable();
    if s.is_empty() {
        return f64::NAN;
    }
    s[((s.len() - 1) as f64 * q).round() as usize] as f64
}
