//! Running a sweep's runs: each in a worker process ([`Worker`]) that reads its
//! [`RunSpec`] on stdin and writes its folder with [`run_one`](super::run_one), on a local pool or as Ray
//! tasks; a worker that dies is started again up to the sweep's `retries`; a stop flag ends
//! the batch, keeping what finished. The command line (`simcore batch`) and the Python
//! package (`simcore.batch`) both call [`execute`], each with its own worker program, so a
//! run writes the same files whichever started it.

use super::run::{METRICS_FILE, folder, is_partial, write_error};
use super::{Metrics, RunSpec, Status, Sweep, summary};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The most of a dead worker's stderr kept for its report.
const STDERR_TAIL: usize = 4096;
/// How often a waiting batch looks at its stop flag.
const POLL: Duration = Duration::from_millis(20);

/// The program that runs one run: it reads the run (JSON) on stdin, and takes
/// `--runs DIR --attempt N` after its own arguments (`simcore batch-worker`,
/// `python -m simcore._worker`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worker {
    /// The program.
    pub program: PathBuf,
    /// Its arguments before `--runs`.
    pub args: Vec<String>,
}

/// Where the runs run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Executor {
    /// Worker processes on this machine.
    Local,
    /// Ray tasks on the cluster at `address`, through the Python `python` (which has `ray`).
    Ray {
        /// The cluster's address (`auto`: one started on this machine).
        address: String,
        /// The Python with `ray`.
        python: PathBuf,
    },
}

/// What a batch did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The metrics of every finished run, in run order.
    pub rows: Vec<Metrics>,
    /// Whether the stop flag ended it before every run finished.
    pub interrupted: bool,
}

/// Why a batch could not run.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The output folder cannot be used.
    #[error("{0}")]
    Out(String),
    /// The Ray driver could not start or ended early.
    #[error("{0}")]
    Ray(String),
    /// The summary could not be written.
    #[error("{0}")]
    Summary(String),
}

/// Runs every run of `sweep` into `out` (a new or empty folder: `out/runs/<id>/` each, then
/// `summary.csv` and `summary.parquet`), `jobs` at a time, with `worker` on `executor`.
/// `progress` is told each run's end as it comes; `stop` ends the batch early (the workers
/// are stopped, what they had half written removed, and the summary lists what finished).
pub fn execute(
    sweep: &Sweep,
    out: &Path,
    jobs: usize,
    worker: &Worker,
    executor: &Executor,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&RunSpec, &Result<Status, String>),
) -> Result<Outcome, BatchError> {
    let runs = prepare_out(out)?;
    let jobs = jobs.clamp(1, 1024);
    match executor {
        Executor::Local => local(sweep, worker, &runs, jobs, stop, progress),
        Executor::Ray { address, python } => {
            ray(sweep, worker, &runs, jobs, address, python, stop, progress)?
        }
    }
    // What did not finish leaves nothing behind.
    if let Ok(entries) = std::fs::read_dir(&runs) {
        for e in entries.flatten() {
            if is_partial(&e.file_name().to_string_lossy()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let rows = read_rows(sweep, &runs);
    let refs: Vec<&Metrics> = rows.iter().collect();
    summary::write(out, &refs, &sweep.override_paths, &sweep.check_names)
        .map_err(BatchError::Summary)?;
    Ok(Outcome {
        interrupted: stop.load(Ordering::Relaxed) && rows.len() < sweep.runs.len(),
        rows,
    })
}

/// Runs one run read from `input` (at most 16 MiB of JSON) into `runs`: what a worker
/// program does.
pub fn work(input: &mut dyn Read, runs: &Path, attempt: u32) -> Result<Metrics, String> {
    let mut text = String::new();
    input
        .take(16 << 20)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read the run on stdin: {e}"))?;
    let spec: RunSpec =
        serde_json::from_str(&text).map_err(|e| format!("the run on stdin is not one: {e}"))?;
    super::run_one(&spec, runs, attempt).map_err(|e| e.to_string())
}

/// A name safe as part of a folder name (the default output folder is `batch-<name>`).
pub fn safe_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if s.is_empty() { "sweep".into() } else { s }
}

/// Creates `out` and `out/runs` (refusing a link, a file, or a folder with something in it).
fn prepare_out(out: &Path) -> Result<PathBuf, BatchError> {
    sim_files::create_dirs(out).map_err(|e| BatchError::Out(e.to_string()))?;
    let empty = std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_none());
    if !empty {
        return Err(BatchError::Out(format!(
            "{} is not empty: give --out a new folder, or remove it",
            out.display()
        )));
    }
    let runs = out.join("runs");
    std::fs::create_dir(&runs)
        .map_err(|e| BatchError::Out(format!("cannot create {}: {e}", runs.display())))?;
    Ok(runs)
}

/// The metrics of every finished run, in run order.
fn read_rows(sweep: &Sweep, runs: &Path) -> Vec<Metrics> {
    sweep
        .runs
        .iter()
        .filter_map(|r| {
            let text = std::fs::read_to_string(folder(runs, &r.id).join(METRICS_FILE)).ok()?;
            serde_json::from_str(&text).ok()
        })
        .collect()
}

/// How a worker ended.
enum Ended {
    /// Its run's folder is written.
    Done,
    /// It died or failed: why (exit status, the end of its stderr).
    Died(String),
    /// The batch was stopped.
    Stopped,
}

/// Runs `spec` (attempt `attempt`) in a worker process; returns when it ended or the batch
/// stopped (the worker is then killed).
fn run_worker(
    worker: &Worker,
    runs: &Path,
    spec: &RunSpec,
    attempt: u32,
    stop: &AtomicBool,
) -> Ended {
    let mut child = match Command::new(&worker.program)
        .args(&worker.args)
        .arg("--runs")
        .arg(runs)
        .arg("--attempt")
        .arg(attempt.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return Ended::Died(format!("cannot start a worker: {e}")),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(serde_json::to_string(spec).unwrap_or_default().as_bytes());
    }
    let tail = child.stderr.take().map(|mut e| {
        std::thread::spawn(move || {
            let mut kept: VecDeque<u8> = VecDeque::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = e.read(&mut buf) {
                if n == 0 {
                    break;
                }
                kept.extend(&buf[..n]);
                while kept.len() > STDERR_TAIL {
                    kept.pop_front();
                }
            }
            String::from_utf8_lossy(&kept.into_iter().collect::<Vec<u8>>()).into_owned()
        })
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if stop.load(Ordering::Relaxed) => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(POLL),
            Err(e) => return Ended::Died(format!("cannot wait for the worker: {e}")),
        }
    };
    let err = tail.and_then(|t| t.join().ok()).unwrap_or_default();
    match status {
        None => Ended::Stopped,
        Some(s) if s.success() => Ended::Done,
        Some(_) if stop.load(Ordering::Relaxed) => Ended::Stopped,
        Some(s) => Ended::Died(format!("the worker ended with {s}: {}", err.trim())),
    }
}

/// The local pool: `jobs` worker threads, each running one worker process at a time.
fn local(
    sweep: &Sweep,
    worker: &Worker,
    runs: &Path,
    jobs: usize,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&RunSpec, &Result<Status, String>),
) {
    let queue = std::sync::Mutex::new(sweep.runs.iter());
    let (tx, rx) = crossbeam_channel::unbounded::<(usize, Result<Status, String>)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(sweep.runs.len()) {
            let tx = tx.clone();
            let queue = &queue;
            scope.spawn(move || {
                loop {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let Some(spec) = queue.lock().ok().and_then(|mut q| q.next()) else {
                        return;
                    };
                    let outcome = attempt_run(sweep, worker, runs, spec, stop);
                    if let Some(o) = outcome {
                        let _ = tx.send((spec.index, o));
                    }
                }
            });
        }
        drop(tx);
        for (index, o) in rx.iter() {
            progress(&sweep.runs[index], &o);
        }
    });
}

/// Runs `spec` in workers until one writes its folder, or `retries` more have died (then the
/// batch writes its folder, with the error); None when the batch stopped first.
fn attempt_run(
    sweep: &Sweep,
    worker: &Worker,
    runs: &Path,
    spec: &RunSpec,
    stop: &AtomicBool,
) -> Option<Result<Status, String>> {
    let mut attempt = 1;
    loop {
        match run_worker(worker, runs, spec, attempt, stop) {
            Ended::Stopped => return None,
            Ended::Done => return Some(status_of(runs, spec)),
            Ended::Died(why) if attempt > sweep.retries => {
                return Some(
                    write_error(spec, runs, why, attempt)
                        .map(|m| m.status)
                        .map_err(|e| e.to_string()),
                );
            }
            Ended::Died(why) => {
                tracing::warn!(
                    "{}: attempt {attempt} died ({why}); starting it again",
                    spec.id
                );
                attempt += 1;
            }
        }
    }
}

/// The status a run's folder records.
fn status_of(runs: &Path, spec: &RunSpec) -> Result<Status, String> {
    let file = folder(runs, &spec.id).join(METRICS_FILE);
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let m: Metrics = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(m.status)
}

/// The Ray driver: a Python program (run with `python -c`) that submits one Ray task per
/// run and writes each run's folder from the files its task returns.
const RAY_DRIVER: &str = include_str!("ray_driver.py");

/// The Ray executor: the runs go to the driver on its stdin, and their ends come back as
/// JSON lines on its stdout.
#[allow(clippy::too_many_arguments)]
fn ray(
    sweep: &Sweep,
    worker: &Worker,
    runs: &Path,
    jobs: usize,
    address: &str,
    python: &Path,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&RunSpec, &Result<Status, String>),
) -> Result<(), BatchError> {
    let worker_json = serde_json::json!([worker.program, worker.args]).to_string();
    let mut child = Command::new(python)
        .arg("-c")
        .arg(RAY_DRIVER)
        .arg("--address")
        .arg(address)
        .arg("--worker")
        .arg(worker_json)
        .arg("--runs")
        .arg(runs)
        .arg("--retries")
        .arg(sweep.retries.to_string())
        .arg("--jobs")
        .arg(jobs.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| {
            BatchError::Out(format!(
                "cannot start {} for the Ray executor: {e} (give --python a Python with `ray`)",
                python.display()
            ))
        })?;
    let specs: String = sweep
        .runs
        .iter()
        .map(|r| serde_json::to_string(r).unwrap_or_default() + "\n")
        .collect();
    let mut stdin = child.stdin.take();
    let feeder = std::thread::spawn(move || {
        if let Some(s) = &mut stdin {
            let _ = s.write_all(specs.as_bytes());
        }
        drop(stdin);
    });
    let (tx, rx) = crossbeam_channel::unbounded::<String>();
    let stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        if let Some(out) = stdout {
            let r = std::io::BufReader::new(out.take(1 << 30));
            for line in std::io::BufRead::lines(r).map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        }
    });
    let mut finished = 0;
    loop {
        match rx.recv_timeout(POLL) {
            Ok(line) => {
                let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
                    continue;
                };
                let Some(spec) = v["index"].as_u64().and_then(|i| sweep.runs.get(i as usize))
                else {
                    continue;
                };
                let o = if v["ok"].as_bool() == Some(true) {
                    status_of(runs, spec)
                } else {
                    let attempts = v["attempts"].as_u64().unwrap_or(1) as u32;
                    let why = v["error"]
                        .as_str()
                        .unwrap_or("the Ray task failed")
                        .to_string();
                    write_error(spec, runs, why, attempts)
                        .map(|m| m.status)
                        .map_err(|e| e.to_string())
                };
                finished += 1;
                progress(spec, &o);
            }
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                if stop.load(Ordering::Relaxed) {
                    let _ = child.kill();
                    break;
                }
            }
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
        }
    }
    let status = child.wait();
    let _ = feeder.join();
    let _ = reader.join();
    match status {
        Ok(s) if !s.success() && !stop.load(Ordering::Relaxed) && finished < sweep.runs.len() => {
            Err(BatchError::Out(format!(
                "the Ray driver ended with {s} after {finished} of {} run(s) (see its messages above)",
                sweep.runs.len()
            )))
        }
        _ => Ok(()),
    }
}
