//! The `simcore._simcore` extension module: simcore's engine stepped from Python.
//!
//! The Python package `simcore` (in `python/simcore`) re-exports it and adds the gymnasium
//! environments (`simcore.gym`); `python/simcore/_simcore.pyi` documents every class and
//! function, and `docs/python.md` the whole package. The engine's errors become the
//! package's exceptions ([`errors`]), a panic in the engine never reaches Python, and the
//! GIL is released while the engine steps or loads.
//!
//! Modules: [`errors`] (exceptions), [`convert`] (JSON values and Python objects),
//! [`message`] (messages and their NumPy arrays without copies: the only `unsafe` code),
//! [`engine`] (the engine with its latest messages, `play()`'s thread, stepping several
//! simulations across threads), [`entity`] (entity state, spawn, delete), [`sim`] (the
//! `Simulation` class), [`batch`] (sweeps through the engine's executors).

pub mod batch;
pub mod convert;
pub mod engine;
pub mod entity;
pub mod errors;
pub mod message;
pub mod sim;

use pyo3::prelude::*;

/// The engine's allocations come from mimalloc, as in the `simcore` binary: with the system
/// allocator, the small blocks rapier gives each body (its list of colliders) land wherever
/// the build's freed memory left a block of their size, scattered over the heap, and a large
/// world's step misses the cache and the TLB on every body (docs/benchmarks.md, *The physics
/// step*). Python's own objects keep Python's allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use pyo3::types::PyDict;
use sim::{PySimulation, Source};

/// Steps every simulation of `sims` `steps` times, on up to `threads` threads (GIL released).
/// Each simulation steps as it would alone, so the results do not depend on `threads`.
#[pyfunction]
#[pyo3(signature = (sims, steps=1, threads=1))]
fn step_all(
    py: Python<'_>,
    sims: Vec<PyRef<'_, PySimulation>>,
    steps: u64,
    threads: usize,
) -> PyResult<()> {
    for s in &sims {
        if s.shared.playing() {
            return Err(errors::ControlError::new_err(
                "cannot step a simulation while it plays; call pause() first",
            ));
        }
    }
    let shared: Vec<_> = sims.iter().map(|s| s.shared.clone()).collect();
    drop(sims);
    let results = py.detach(move || engine::step_all(&shared, steps, threads));
    let failed: Vec<String> = results
        .into_iter()
        .enumerate()
        .filter_map(|(i, r)| r.err().map(|e| format!("simulation {i}: {e}")))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(errors::SimError::new_err(failed.join("\n")))
    }
}

/// Checks a world (a path, or SDF text) as `simcore check` does: every error and warning, as
/// dicts with `file`, `line`, `column`, `severity` ("error" or "warning"), `message`,
/// `element`, `hint` and `report` (the rendered text). An empty list: the world is valid.
#[pyfunction]
fn check<'py>(py: Python<'py>, world: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let source = Source::from_py(world)?;
    let found = py
        .detach(move || {
            errors_no_panic(|| {
                let options = sim_sdf::LoadOptions::default();
                let (loaded, warnings) = match &source {
                    Source::File(p) => sim_sdf::load_document_with_warnings(p, &options),
                    Source::Text(t) => (sim_sdf::parse_document(t, None), Vec::new()),
                };
                let mut out: Vec<Diagnostic> = warnings
                    .iter()
                    .map(|w| Diagnostic::sdf(w, "warning", w.render_warning()))
                    .collect();
                match loaded.and_then(|doc| doc.into_worlds()) {
                    Err(e) => out.extend(e.all().map(|one| {
                        let mut alone = one.clone();
                        *alone.others = Vec::new();
                        Diagnostic::sdf(one, "error", alone.render(None))
                    })),
                    Ok(worlds) => {
                        for w in &worlds {
                            if let Err(b) = sim_physics::Physics::build(w) {
                                out.push(Diagnostic {
                                    file: b.span.file.as_ref().map(|f| f.display().to_string()),
                                    line: b.span.line,
                                    column: b.span.column,
                                    severity: "error",
                                    message: format!("the world cannot be built: {}", b.message),
                                    element: String::new(),
                                    hint: String::new(),
                                    report: format!(
                                        "error: world \"{}\" cannot be built: {}\n  --> {}\n",
                                        w.name, b.message, b.span
                                    ),
                                });
                            }
                        }
                    }
                }
                out
            })
        })
        .map_err(errors::SimError::new_err)?;
    found
        .into_iter()
        .map(|d| {
            let o = PyDict::new(py);
            o.set_item("file", d.file)?;
            o.set_item("line", d.line)?;
            o.set_item("column", d.column)?;
            o.set_item("severity", d.severity)?;
            o.set_item("message", d.message)?;
            o.set_item("element", d.element)?;
            o.set_item("hint", d.hint)?;
            o.set_item("report", d.report)?;
            Ok(o)
        })
        .collect()
}

/// Runs `f`, a panic as an error text.
fn errors_no_panic<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|p| format!("internal error: {}", errors::panic_text(&p)))
}

/// One problem `check` found.
struct Diagnostic {
    file: Option<String>,
    line: u32,
    column: u32,
    severity: &'static str,
    message: String,
    element: String,
    hint: String,
    report: String,
}

impl Diagnostic {
    fn sdf(e: &sim_sdf::SdfError, severity: &'static str, report: String) -> Diagnostic {
        Diagnostic {
            file: e.file.as_ref().map(|f| f.display().to_string()),
            line: e.line,
            column: e.column,
            severity,
            message: e.message.clone(),
            element: e.element.clone(),
            hint: e.hint.clone(),
            report,
        }
    }
}

/// The module.
#[pymodule]
fn _simcore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<PySimulation>()?;
    m.add_class::<sim::Subscription>()?;
    m.add_class::<message::Message>()?;
    m.add_class::<message::MessageBuffer>()?;
    m.add_function(wrap_pyfunction!(step_all, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(batch::run_batch, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch_work, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
