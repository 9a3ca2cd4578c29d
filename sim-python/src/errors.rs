//! The exceptions of the package and the mapping of the engine's errors onto them (by their
//! types, never by their text), and the guard that keeps a Rust panic from reaching Python.

use pyo3::exceptions::{PyException, PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

pyo3::create_exception!(
    simcore,
    SimError,
    PyException,
    "The base of every error simcore raises."
);
pyo3::create_exception!(
    simcore,
    WorldError,
    SimError,
    "A world that cannot be read or built; the message carries simcore's `file:line:col` report."
);
pyo3::create_exception!(
    simcore,
    OverrideError,
    WorldError,
    "An override that cannot be applied; the message names its path and the step that failed."
);
pyo3::create_exception!(
    simcore,
    PluginError,
    SimError,
    "Plugins that cannot be served or created (every problem, one per line)."
);
pyo3::create_exception!(
    simcore,
    ControlError,
    SimError,
    "A request the run's state does not allow (stepping while playing, a closed simulation)."
);
pyo3::create_exception!(
    simcore,
    SpawnError,
    SimError,
    "A model that cannot be created (the full diagnostic)."
);
pyo3::create_exception!(
    simcore,
    EntityError,
    SimError,
    "An entity request the engine refused: an invalid or out-of-range value, a velocity for a \
     static model, a change the physics refused."
);
pyo3::create_exception!(
    simcore,
    ServiceError,
    SimError,
    "A service call that failed: unknown service, disabled or failing plugin, timeout."
);
pyo3::create_exception!(
    simcore,
    BatchError,
    SimError,
    "A sweep file or batch option that is refused (the file and line), or a batch that could \
     not run."
);

/// Exceptions with two bases (`type(name, (EntityError, KeyError), {})`), made once.
static ENTITY_NOT_FOUND: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static MESSAGE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn two_bases<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
    bases: [Bound<'py, PyType>; 2],
    doc: &str,
) -> PyResult<&'static Py<PyType>> {
    cell.get_or_try_init(py, || {
        let bases = PyTuple::new(py, bases)?;
        let dict = PyDict::new(py);
        dict.set_item("__doc__", doc)?;
        dict.set_item("__module__", "simcore")?;
        let ty = py
            .get_type::<PyType>()
            .call1((name, bases, dict))?
            .cast_into::<PyType>()?;
        Ok(ty.unbind())
    })
}

/// `EntityNotFound`: an `EntityError` and a `KeyError`.
pub fn entity_not_found_type(py: Python<'_>) -> PyResult<&'static Py<PyType>> {
    two_bases(
        py,
        &ENTITY_NOT_FOUND,
        "EntityNotFound",
        [py.get_type::<EntityError>(), py.get_type::<PyKeyError>()],
        "No model, link or entity of that name (also a KeyError).",
    )
}

/// `MessageError`: a `SimError` and a `ValueError`.
pub fn message_error_type(py: Python<'_>) -> PyResult<&'static Py<PyType>> {
    two_bases(
        py,
        &MESSAGE_ERROR,
        "MessageError",
        [py.get_type::<SimError>(), py.get_type::<PyValueError>()],
        "A message (dict) that is not one simcore can publish (also a ValueError).",
    )
}

/// An `EntityNotFound` with `message`.
pub fn entity_not_found(message: impl Into<String>) -> PyErr {
    let message = message.into();
    Python::attach(|py| match entity_not_found_type(py) {
        Ok(ty) => PyErr::from_type(ty.bind(py).clone(), message),
        Err(e) => e,
    })
}

/// A `MessageError` with `message`.
pub fn message_error(message: impl Into<String>) -> PyErr {
    let message = message.into();
    Python::attach(|py| match message_error_type(py) {
        Ok(ty) => PyErr::from_type(ty.bind(py).clone(), message),
        Err(e) => e,
    })
}

/// Adds the exceptions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("SimError", py.get_type::<SimError>())?;
    m.add("WorldError", py.get_type::<WorldError>())?;
    m.add("OverrideError", py.get_type::<OverrideError>())?;
    m.add("PluginError", py.get_type::<PluginError>())?;
    m.add("ControlError", py.get_type::<ControlError>())?;
    m.add("SpawnError", py.get_type::<SpawnError>())?;
    m.add("ServiceError", py.get_type::<ServiceError>())?;
    m.add("EntityError", py.get_type::<EntityError>())?;
    m.add("BatchError", py.get_type::<BatchError>())?;
    m.add("EntityNotFound", entity_not_found_type(py)?.bind(py))?;
    m.add("MessageError", message_error_type(py)?.bind(py))?;
    Ok(())
}

/// Runs `f`, turning a panic into a `SimError` (a panic never crosses into Python).
pub fn no_panic<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(panic) => Err(SimError::new_err(format!(
            "internal error in {what}: {}",
            panic_text(&panic)
        ))),
    }
}

/// The text of a caught panic.
pub fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}
