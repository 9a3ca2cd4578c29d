//! `simcore.batch`: sweeps run from Python through the engine's executors
//! ([`sim_batch::execute`]), with `python -m simcore._worker` as the worker program, so
//! a run writes the same files as under `simcore batch`. Ctrl-C (KeyboardInterrupt) stops the
//! batch, keeping what finished, and is raised again once the summary is written.

use crate::convert::to_py;
use crate::errors::{BatchError, no_panic};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sim_batch::execute::{self, Executor, Worker, safe_name};
use sim_batch::{RunSpec, Status, sweep};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Runs a sweep file; returns the metrics of every finished run (dicts, in run order).
#[pyfunction]
#[pyo3(signature = (sweep, out=None, *, jobs=None, executor="local", address="auto", python=None, progress=true))]
#[allow(clippy::too_many_arguments)]
pub fn run_batch<'py>(
    py: Python<'py>,
    sweep: PathBuf,
    out: Option<PathBuf>,
    jobs: Option<usize>,
    executor: &str,
    address: &str,
    python: Option<PathBuf>,
    progress: bool,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let sw = sweep::read(&sweep).map_err(|e| BatchError::new_err(e.to_string()))?;
    let out = out.unwrap_or_else(|| PathBuf::from(format!("batch-{}", safe_name(&sw.name))));
    let jobs = match jobs {
        Some(0) => return Err(BatchError::new_err("jobs must be at least 1")),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let sys = py.import("sys")?;
    let interpreter: PathBuf = sys.getattr("executable")?.extract()?;
    let executor = match executor {
        "local" => Executor::Local,
        "ray" => Executor::Ray {
            address: address.to_string(),
            python: python.unwrap_or_else(|| interpreter.clone()),
        },
        other => {
            return Err(BatchError::new_err(format!(
                "executor `{other}`: simcore runs batches on `local` or `ray`"
            )));
        }
    };
    let worker = Worker {
        program: interpreter,
        args: vec!["-m".into(), "simcore._worker".into()],
    };
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = crossbeam_channel::bounded(1);
    let total = sw.runs.len();
    let thread = {
        let stop = stop.clone();
        let out = out.clone();
        std::thread::spawn(move || {
            let mut done = 0;
            let mut report = |spec: &RunSpec, o: &Result<Status, String>| {
                done += 1;
                if progress {
                    let word = match o {
                        Ok(s) => s.name().to_string(),
                        Err(e) => format!("error: {e}"),
                    };
                    // A closed stderr costs the progress lines, never the batch.
                    let _ = writeln!(
                        std::io::stderr(),
                        "[{done}/{total}] {} {} seed {}: {word}",
                        spec.id,
                        spec.world,
                        spec.seed
                    );
                }
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                execute::execute(&sw, &out, jobs, &worker, &executor, &stop, &mut report)
            }));
            let _ = tx.send(r);
        })
    };
    // Wait with the GIL released in slices, looking for Ctrl-C between them.
    let mut interrupted = None;
    let result = loop {
        match py.detach(|| rx.recv_timeout(Duration::from_millis(50))) {
            Ok(r) => break r,
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    interrupted.get_or_insert(e);
                }
            }
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                return Err(BatchError::new_err(
                    "the batch thread ended without a result",
                ));
            }
        }
    };
    let _ = thread.join();
    let outcome = match result {
        Ok(Ok(o)) => o,
        Ok(Err(e)) => return Err(BatchError::new_err(e.to_string())),
        Err(p) => {
            return Err(BatchError::new_err(format!(
                "the batch failed: {}",
                crate::errors::panic_text(&p)
            )));
        }
    };
    if let Some(e) = interrupted {
        return Err(e);
    }
    outcome
        .rows
        .iter()
        .map(|m| {
            let v = serde_json::to_value(m).unwrap_or_default();
            to_py(py, &v)?.cast_into::<PyDict>().map_err(Into::into)
        })
        .collect()
}

/// The worker of `python -m simcore._worker`: one run read on stdin, written under `runs`.
#[pyfunction]
pub fn batch_work(py: Python<'_>, runs: PathBuf, attempt: u32) -> PyResult<()> {
    py.detach(|| {
        no_panic("the batch worker", || {
            execute::work(&mut std::io::stdin(), &runs, attempt)
                .map(|_| ())
                .map_err(BatchError::new_err)
        })
    })
}
