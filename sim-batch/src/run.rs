//! One run of a sweep, in this process: load the world with the run's overrides, step it
//! for the run's length as fast as possible, watch its checks, record it on request, and
//! write its folder. What a run writes depends only on its [`RunSpec`] (no wall time, no
//! machine names): the same run gives the same files on any worker.

use super::checks::{Verdict, Watch};
use super::sweep::{Length, RunSpec};
use serde::{Deserialize, Serialize};
use sim_engine::plugins::{Registry, SearchPath};
use sim_engine::runner::{PluginPolicy, SimOptions, Simulation};
use sim_record::{RecordOptions, Recorder};
use sim_sdf::LoadOptions;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The name of a run's metrics file in its folder.
pub const METRICS_FILE: &str = "metrics.json";
/// The name of a run's recording in its folder.
pub const RECORDING_FILE: &str = "run.mcap";

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// It ran its length and every check passed.
    Passed,
    /// It ran its length and a check failed, or a plugin was disabled (see `error`).
    Failed,
    /// It did not run: the world was refused, or its worker died.
    Error,
}

impl Status {
    /// Its name (`passed`, `failed`, `error`).
    pub fn name(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Error => "error",
        }
    }
}

/// A plugin disabled during a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Disabled {
    /// Sim seconds.
    pub time: f64,
    /// The sensor or plugin.
    pub subject: String,
    /// Its error.
    pub error: String,
}

/// What a run did: its `metrics.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// The run's id.
    pub run: String,
    /// Its position in the sweep.
    pub index: usize,
    /// The world, as the sweep names it.
    pub world: String,
    /// The seed.
    pub seed: u64,
    /// The overrides, path to value.
    pub overrides: BTreeMap<String, String>,
    /// How it ended.
    pub status: Status,
    /// Why it did not run (status `error`), or the plugins disabled while it ran.
    pub error: Option<String>,
    /// How often its worker was started (more than 1: an earlier one died).
    pub attempts: u32,
    /// Steps taken.
    pub steps: u64,
    /// Sim seconds reached.
    pub sim_time: f64,
    /// The checks' verdicts, in the sweep's order.
    pub checks: Vec<Verdict>,
    /// Messages published per topic.
    pub topics: BTreeMap<String, u64>,
    /// Plugins disabled during the run.
    pub failures: Vec<Disabled>,
    /// The recording's file name in the run's folder, when recorded.
    pub recording: Option<String>,
}

impl Metrics {
    /// The metrics of a run that did not run: `error` says why.
    pub fn error(spec: &RunSpec, error: String, attempts: u32) -> Metrics {
        Metrics {
            status: Status::Error,
            error: Some(error),
            ..Metrics::of(spec, attempts)
        }
    }

    /// The run's identity (id, world, seed, overrides, attempts) with nothing done yet.
    fn of(spec: &RunSpec, attempts: u32) -> Metrics {
        Metrics {
            run: spec.id.clone(),
            index: spec.index,
            world: spec.world.clone(),
            seed: spec.seed,
            overrides: spec.overrides.iter().cloned().collect(),
            status: Status::Passed,
            error: None,
            attempts,
            steps: 0,
            sim_time: 0.0,
            checks: Vec::new(),
            topics: BTreeMap::new(),
            failures: Vec::new(),
            recording: None,
        }
    }
}

impl std::fmt::Display for Disabled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} disabled at {:.3} s: {}",
            self.subject, self.time, self.error
        )
    }
}

/// Why a run's folder could not be written.
#[derive(Debug, thiserror::Error)]
#[error("run {run}: cannot write {}: {source}", path.display())]
pub struct WriteError {
    /// The run.
    pub run: String,
    /// The file or folder.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// The folder of run `id` under `runs`.
pub fn folder(runs: &Path, id: &str) -> PathBuf {
    runs.join(id)
}

/// Whether `name` is a run folder still being written (`<id>.partial-<pid>`).
pub fn is_partial(name: &str) -> bool {
    name.contains(".partial-")
}

/// Runs `spec` and writes its folder under `runs` (`runs/<id>/`: `metrics.json`, and
/// `run.mcap` when recorded). The folder is written as `<id>.partial-<pid>` and renamed when
/// complete, so a folder without the suffix is always a whole run (when two attempts of a
/// run both finish, the first stays: their files are the same). A world that is refused is a
/// run with status `error`, not an error of this function; only a folder that cannot be
/// written is.
pub fn run_one(spec: &RunSpec, runs: &Path, attempts: u32) -> Result<Metrics, WriteError> {
    write_folder(spec, runs, |partial| simulate(spec, partial, attempts))
}

/// Writes the folder of a run that did not run (its worker died, say): `metrics.json` with
/// status `error` and `error`.
pub fn write_error(
    spec: &RunSpec,
    runs: &Path,
    error: String,
    attempts: u32,
) -> Result<Metrics, WriteError> {
    write_folder(spec, runs, |_| Metrics::error(spec, error, attempts))
}

fn write_folder(
    spec: &RunSpec,
    runs: &Path,
    fill: impl FnOnce(&Path) -> Metrics,
) -> Result<Metrics, WriteError> {
    let done = folder(runs, &spec.id);
    let partial = runs.join(format!("{}.partial-{}", spec.id, std::process::id()));
    let werr = |path: &Path, source| WriteError {
        run: spec.id.clone(),
        path: path.to_path_buf(),
        source,
    };
    if partial.symlink_metadata().is_ok() {
        std::fs::remove_dir_all(&partial).map_err(|e| werr(&partial, e))?;
    }
    // A new folder of ours: its files are created in it, never opened through a link.
    std::fs::create_dir(&partial).map_err(|e| werr(&partial, e))?;
    let metrics = fill(&partial);
    let file = partial.join(METRICS_FILE);
    let mut text = serde_json::to_string_pretty(&metrics).unwrap_or_default();
    text.push('\n');
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        .map_err(|e| werr(&file, e))?;
    if let Err(e) = std::fs::rename(&partial, &done) {
        if done.join(METRICS_FILE).is_file() {
            // Another attempt finished first.
            let _ = std::fs::remove_dir_all(&partial);
        } else {
            return Err(werr(&done, e));
        }
    }
    Ok(metrics)
}

/// Loads and steps the run; what it did.
fn simulate(spec: &RunSpec, folder: &Path, attempts: u32) -> Metrics {
    let mut sim = match load(spec) {
        Ok(sim) => sim,
        Err(e) => return Metrics::error(spec, e, attempts),
    };
    let mut recorder = None;
    if spec.record {
        let options = RecordOptions::for_run(
            &sim,
            Path::new(&spec.world),
            spec.seed,
            Some(folder.join(RECORDING_FILE)),
            None,
            spec.record_topics.clone(),
        );
        match Recorder::start(&mut sim, options) {
            Ok(r) => recorder = Some(r),
            Err(e) => return Metrics::error(spec, format!("cannot record: {e}"), attempts),
        }
    }
    let mut watches: Vec<Watch> = spec.checks.iter().map(Watch::new).collect();
    let step = sim.physics().step_size();
    let steps = match spec.length {
        Length::Steps(n) => n,
        Length::Duration(d) => {
            let n = (d * 1e9 / step.nanos.max(1) as f64).round();
            n.clamp(1.0, 1e12) as u64
        }
    };
    for w in &mut watches {
        w.after_step(&sim);
    }
    for _ in 0..steps {
        sim.step();
        for w in &mut watches {
            w.after_step(&sim);
        }
        if let Some(r) = &mut recorder {
            r.after_step(&sim);
        }
    }
    let recording = recorder.and_then(|r| r.finish()).map(|s| match s.error {
        None => Ok(RECORDING_FILE.to_string()),
        Some(e) => Err(e),
    });
    let checks: Vec<Verdict> = watches.iter().map(|w| w.verdict(&sim)).collect();
    let failures: Vec<Disabled> = sim
        .failures()
        .iter()
        .map(|f| Disabled {
            time: f.time.as_secs_f64(),
            subject: f.subject.clone(),
            error: f.error.clone(),
        })
        .collect();
    let topics = sim
        .topics()
        .into_iter()
        .map(|t| {
            let n = sim.bus().stats(&t).published;
            (t, n)
        })
        .collect();
    let (status, error, recording) = match recording {
        Some(Err(e)) => (
            Status::Error,
            Some(format!("the recording failed: {e}")),
            None,
        ),
        // A plugin disabled: the run did not run as the world says.
        r if !failures.is_empty() => {
            let disabled: Vec<String> = failures.iter().map(Disabled::to_string).collect();
            (
                Status::Failed,
                Some(disabled.join("; ")),
                r.and_then(Result::ok),
            )
        }
        r => (
            if checks.iter().all(|c| c.passed) {
                Status::Passed
            } else {
                Status::Failed
            },
            None,
            r.and_then(Result::ok),
        ),
    };
    Metrics {
        status,
        error,
        steps,
        sim_time: sim.time().as_secs_f64(),
        checks,
        topics,
        failures,
        recording,
        ..Metrics::of(spec, attempts)
    }
}

/// The run's simulation: its world with its overrides, the plugins on its search path
/// (Gazebo's policy, as `simcore run`), its seed and threads.
fn load(spec: &RunSpec) -> Result<Simulation, String> {
    let world = sim_sdf::overrides::load_with(
        &spec.world_path,
        &LoadOptions::default(),
        &spec.sdf_overrides(),
    )
    .map_err(|e| e.to_string())?;
    let registry = Registry::discover(SearchPath::standard(&spec.plugin_path, &[]));
    let options = SimOptions {
        seed: spec.seed,
        threads: spec.threads,
    };
    Simulation::with_policy(world, registry, &options, PluginPolicy::Gazebo)
        .map_err(|e| format!("{}: {e}", spec.world))
}
