//! `simcore batch SWEEP.toml`: every run of a sweep in a worker process of its own, on a
//! local pool (default) or as Ray tasks, each run's folder under `OUT/runs/`, and the
//! summary (`OUT/summary.csv`, `OUT/summary.parquet`) of the runs that finished. A run that
//! fails is a row with its error; a worker that dies is started again (`retries`), then
//! reported. Ctrl-C stops the batch: the finished runs' folders and their summary stay.
//!
//! `simcore batch-worker` is the worker: it reads one run (JSON) on stdin and writes its
//! folder ([`sim_core::batch::run_one`]); both executors start it, so a run writes the same
//! files on either.

use super::{Failure, Outcome};
use clap::{Args, ValueEnum};
use sim_core::batch::run::{METRICS_FILE, folder, is_partial, write_error};
use sim_core::batch::{Metrics, RunSpec, Status, Sweep, run_one, summary, sweep};
use std::collections::VecDeque;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The largest run description a worker reads on stdin.
const MAX_SPEC_BYTES: u64 = 16 << 20;
/// The most of a dead worker's stderr kept for its report.
const STDERR_TAIL: usize = 4096;
/// How often a waiting batch looks at its stop flag.
const POLL: Duration = Duration::from_millis(20);

/// Where the runs run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Executor {
    /// Worker processes on this machine.
    Local,
    /// Ray tasks on a Ray cluster (`--address`), through a Python with `ray` installed.
    Ray,
}

/// `simcore batch`.
#[derive(Debug, Args, Clone)]
pub struct BatchArgs {
    /// The sweep file (TOML; see docs/batch.md).
    #[arg(value_name = "SWEEP")]
    pub sweep: PathBuf,
    /// The folder the results go to (default: `batch-<name>` here); it must not exist, or be
    /// empty.
    #[arg(long, short, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Runs at once (default: the number of CPUs).
    #[arg(long, short, value_name = "N")]
    pub jobs: Option<usize>,
    /// Where the runs run.
    #[arg(long, value_enum, default_value = "local")]
    pub executor: Executor,
    /// The Ray cluster's address (`ray start --head` prints it; `auto` finds a local one).
    #[arg(long, value_name = "ADDRESS", default_value = "auto")]
    pub address: String,
    /// The Python that has `ray` (default: SIMCORE_PYTHON, else `python3`).
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
    /// List the runs and check the sweep, without running anything.
    #[arg(long)]
    pub dry_run: bool,
}

/// `simcore batch-worker` (started by `simcore batch`).
#[derive(Debug, Args, Clone)]
pub struct WorkerArgs {
    /// The folder the run's folder is written in.
    #[arg(long, value_name = "DIR")]
    pub runs: PathBuf,
    /// Which attempt at the run this is (from 1).
    #[arg(long, default_value_t = 1)]
    pub attempt: u32,
}

/// Runs one run read from stdin.
pub fn worker(args: WorkerArgs) -> Result<Outcome, Failure> {
    let mut text = String::new();
    std::io::stdin()
        .take(MAX_SPEC_BYTES)
        .read_to_string(&mut text)
        .map_err(|e| Failure::Error(format!("cannot read the run on stdin: {e}")))?;
    let spec: RunSpec = serde_json::from_str(&text)
        .map_err(|e| Failure::Error(format!("the run on stdin is not one: {e}")))?;
    run_one(&spec, &args.runs, args.attempt).map_err(|e| Failure::Error(e.to_string()))?;
    Ok(Outcome::Success)
}

/// Runs a sweep.
pub fn batch(args: BatchArgs) -> Result<Outcome, Failure> {
    let sweep = sweep::read(&args.sweep).map_err(|e| Failure::Error(e.to_string()))?;
    if args.dry_run {
        for r in &sweep.runs {
            let o: Vec<String> = r
                .overrides
                .iter()
                .map(|(p, v)| format!("{p}={v}"))
                .collect();
            println!("{}  {}  seed {}  {}", r.id, r.world, r.seed, o.join("  "));
        }
        eprintln!("{} run(s); nothing was run (--dry-run)", sweep.runs.len());
        return Ok(Outcome::Success);
    }
    let jobs = match args.jobs {
        Some(0) => return Err(Failure::Error("--jobs must be at least 1".into())),
        Some(n) => n.min(1024),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("batch-{}", safe_name(&sweep.name))));
    let runs = prepare_out(&out)?;
    let stop = Arc::new(AtomicBool::new(false));
    super::run::install_ctrl_c(stop.clone(), None);
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Error(format!("cannot find the simcore executable: {e}")))?;
    let mut progress = Progress::new(sweep.runs.len());
    let finished = match args.executor {
        Executor::Local => local(&sweep, &exe, &runs, jobs, &stop, &mut progress),
        Executor::Ray => ray(&sweep, &exe, &runs, jobs, &args, &stop, &mut progress)?,
    };
    progress.finish();
    // What did not finish leaves nothing behind.
    if let Ok(entries) = std::fs::read_dir(&runs) {
        for e in entries.flatten() {
            if is_partial(&e.file_name().to_string_lossy()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let rows = read_rows(&sweep, &runs);
    let refs: Vec<&Metrics> = rows.iter().collect();
    summary::write(&out, &refs, &sweep.override_paths, &sweep.check_names)
        .map_err(Failure::Error)?;
    let count = |s| rows.iter().filter(|m| m.status == s).count();
    let interrupted = stop.load(Ordering::Relaxed);
    eprintln!(
        "{} of {} run(s) finished{}: {} passed, {} failed, {} error(s); summary in {}",
        rows.len(),
        sweep.runs.len(),
        if interrupted { " (interrupted)" } else { "" },
        count(Status::Passed),
        count(Status::Failed),
        count(Status::Error),
        out.join("summary.csv").display()
    );
    let _ = finished;
    Ok(
        if !interrupted && rows.len() == sweep.runs.len() && count(Status::Passed) == rows.len() {
            Outcome::Success
        } else {
            Outcome::PluginDisabled
        },
    )
}

/// A name safe as part of a folder name.
fn safe_name(name: &str) -> String {
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
fn prepare_out(out: &Path) -> Result<PathBuf, Failure> {
    match out.symlink_metadata() {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(Failure::Error(format!(
                "{} is a symbolic link: give --out a folder of its own",
                out.display()
            )));
        }
        Ok(m) if !m.is_dir() => {
            return Err(Failure::Error(format!("{} is not a folder", out.display())));
        }
        Ok(_) => {
            let empty = std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_none());
            if !empty {
                return Err(Failure::Error(format!(
                    "{} is not empty: give --out a new folder, or remove it",
                    out.display()
                )));
            }
        }
        Err(_) => std::fs::create_dir_all(out)
            .map_err(|e| Failure::Error(format!("cannot create {}: {e}", out.display())))?,
    }
    let runs = out.join("runs");
    std::fs::create_dir(&runs)
        .map_err(|e| Failure::Error(format!("cannot create {}: {e}", runs.display())))?;
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
fn run_worker(exe: &Path, runs: &Path, spec: &RunSpec, attempt: u32, stop: &AtomicBool) -> Ended {
    let mut child = match Command::new(exe)
        .arg("batch-worker")
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
    exe: &Path,
    runs: &Path,
    jobs: usize,
    stop: &AtomicBool,
    progress: &mut Progress,
) -> usize {
    let queue = std::sync::Mutex::new(sweep.runs.iter());
    let (tx, rx) = crossbeam_channel::unbounded::<(usize, Result<Status, String>)>();
    let mut finished = 0;
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
                    let outcome = attempt_run(sweep, exe, runs, spec, stop);
                    if let Some(o) = outcome {
                        let _ = tx.send((spec.index, o));
                    }
                }
            });
        }
        drop(tx);
        for (index, o) in rx.iter() {
            finished += 1;
            progress.done(&sweep.runs[index], o);
        }
    });
    finished
}

/// Runs `spec` in workers until one writes its folder, or `retries` more have died (then the
/// batch writes its folder, with the error); None when the batch stopped first.
fn attempt_run(
    sweep: &Sweep,
    exe: &Path,
    runs: &Path,
    spec: &RunSpec,
    stop: &AtomicBool,
) -> Option<Result<Status, String>> {
    let mut attempt = 1;
    loop {
        match run_worker(exe, runs, spec, attempt, stop) {
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
const RAY_DRIVER: &str = include_str!("batch_ray.py");

/// The Ray executor: the runs go to the driver on its stdin, and their ends come back as
/// JSON lines on its stdout.
fn ray(
    sweep: &Sweep,
    exe: &Path,
    runs: &Path,
    jobs: usize,
    args: &BatchArgs,
    stop: &AtomicBool,
    progress: &mut Progress,
) -> Result<usize, Failure> {
    let python = args
        .python
        .clone()
        .or_else(|| std::env::var_os("SIMCORE_PYTHON").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("python3"));
    let mut child = Command::new(&python)
        .arg("-c")
        .arg(RAY_DRIVER)
        .arg("--address")
        .arg(&args.address)
        .arg("--simcore")
        .arg(exe)
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
            Failure::Error(format!(
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
                progress.done(spec, o);
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
            Err(Failure::Error(format!(
                "the Ray driver ended with {s} after {finished} of {} run(s) (see its messages above)",
                sweep.runs.len()
            )))
        }
        _ => Ok(finished),
    }
}

/// The progress of a batch on stderr: a bar on a terminal, a line per run elsewhere.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: usize,
    done: usize,
    counts: [usize; 3],
}

impl Progress {
    fn new(total: usize) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let b = indicatif::ProgressBar::new(total as u64);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} runs  {msg}  [{elapsed_precise}, {eta} left]",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            b
        });
        Progress {
            bar,
            total,
            done: 0,
            counts: [0; 3],
        }
    }

    fn done(&mut self, spec: &RunSpec, outcome: Result<Status, String>) {
        self.done += 1;
        let word = match &outcome {
            Ok(s) => {
                self.counts[*s as usize] += 1;
                s.name().to_string()
            }
            Err(e) => {
                self.counts[Status::Error as usize] += 1;
                format!("error: {e}")
            }
        };
        let msg = format!(
            "{} passed, {} failed, {} error(s)",
            self.counts[0], self.counts[1], self.counts[2]
        );
        match &self.bar {
            Some(b) => {
                b.set_message(msg);
                b.inc(1);
            }
            None => {
                let _ = writeln!(
                    std::io::stderr(),
                    "[{}/{}] {} {} seed {}: {word}",
                    self.done,
                    self.total,
                    spec.id,
                    spec.world,
                    spec.seed
                );
            }
        }
    }

    fn finish(&mut self) {
        if let Some(b) = &self.bar {
            b.finish();
        }
    }
}
