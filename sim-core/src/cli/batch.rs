//! `simcore batch SWEEP.toml`: every run of a sweep in a worker process of its own, on a
//! local pool (default) or as Ray tasks, each run's folder under `OUT/runs/`, and the
//! summary (`OUT/summary.csv`, `OUT/summary.parquet`) of the runs that finished. A run that
//! fails is a row with its error; a worker that dies is started again (`retries`), then
//! reported. Ctrl-C stops the batch: the finished runs' folders and their summary stay.
//!
//! `simcore batch-worker` is the worker: it reads one run (JSON) on stdin and writes its
//! folder ([`sim_core::batch::run_one`]); both executors ([`sim_core::batch::execute`])
//! start it, so a run writes the same files on either.

use super::{Failure, Outcome};
use clap::{Args, ValueEnum};
use sim_core::batch::execute::{self, Worker, safe_name};
use sim_core::batch::{RunSpec, Status, sweep};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

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
    execute::work(&mut std::io::stdin(), &args.runs, args.attempt).map_err(Failure::Error)?;
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
            say!("{}  {}  seed {}  {}", r.id, r.world, r.seed, o.join("  "));
        }
        note!("{} run(s); nothing was run (--dry-run)", sweep.runs.len());
        return Ok(Outcome::Success);
    }
    let jobs = match args.jobs {
        Some(0) => return Err(Failure::Error("--jobs must be at least 1".into())),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("batch-{}", safe_name(&sweep.name))));
    let stop = Arc::new(AtomicBool::new(false));
    super::run::install_ctrl_c(stop.clone(), None);
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Error(format!("cannot find the simcore executable: {e}")))?;
    let worker = Worker {
        program: exe,
        args: vec!["batch-worker".into()],
    };
    let executor = match args.executor {
        Executor::Local => execute::Executor::Local,
        Executor::Ray => execute::Executor::Ray {
            address: args.address.clone(),
            python: args
                .python
                .clone()
                .or_else(|| std::env::var_os("SIMCORE_PYTHON").map(PathBuf::from))
                .unwrap_or_else(|| PathBuf::from("python3")),
        },
    };
    let mut progress = Progress::new(sweep.runs.len());
    let outcome = execute::execute(
        &sweep,
        &out,
        jobs,
        &worker,
        &executor,
        &stop,
        &mut |spec, o| progress.done(spec, o),
    )
    .map_err(|e| Failure::Error(e.to_string()))?;
    progress.finish();
    let rows = &outcome.rows;
    let count = |s| rows.iter().filter(|m| m.status == s).count();
    note!(
        "{} of {} run(s) finished{}: {} passed, {} failed, {} error(s); summary in {}",
        rows.len(),
        sweep.runs.len(),
        if outcome.interrupted {
            " (interrupted)"
        } else {
            ""
        },
        count(Status::Passed),
        count(Status::Failed),
        count(Status::Error),
        out.join("summary.csv").display()
    );
    Ok(
        if !outcome.interrupted
            && rows.len() == sweep.runs.len()
            && count(Status::Passed) == rows.len()
        {
            Outcome::Success
        } else {
            Outcome::PluginDisabled
        },
    )
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

    fn done(&mut self, spec: &RunSpec, outcome: &Result<Status, String>) {
        self.done += 1;
        let word = match outcome {
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
