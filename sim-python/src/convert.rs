//! JSON values (the engine's message form, `sim_codec::json`) to Python objects and back.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// How deep a Python value may nest to be read as a message.
const MAX_DEPTH: usize = 64;

/// A JSON value as a Python object: objects as dicts, arrays as lists, and the strings
/// `"inf"`, `"-inf"` and `"nan"` (how `echo` writes non-finite numbers) as floats.
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any(),
        },
        Value::String(s) => match s.as_str() {
            "inf" => PyFloat::new(py, f64::INFINITY).into_any(),
            "-inf" => PyFloat::new(py, f64::NEG_INFINITY).into_any(),
            "nan" => PyFloat::new(py, f64::NAN).into_any(),
            s => PyString::new(py, s).into_any(),
        },
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(o) => dict(py, o)?.into_any(),
    })
}

/// A JSON object as a dict.
pub fn dict<'py>(py: Python<'py>, o: &Map<String, Value>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in o {
        d.set_item(k, to_py(py, v)?)?;
    }
    Ok(d)
}

/// A Python value (dicts, lists, tuples, strings, numbers, booleans, None) as JSON. Non-finite
/// floats become `"inf"`, `"-inf"` and `"nan"`, as the engine reads them.
pub fn from_py(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    from_py_at(v, 0)
}

fn from_py_at(v: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyTypeError::new_err(format!(
            "the message nests deeper than {MAX_DEPTH} levels"
        )));
    }
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(Value::from(i));
        }
        return Ok(Value::from(v.extract::<f64>()?));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_string()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut o = Map::new();
        for (k, x) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!("a message's keys are strings, got {k:?}"))
            })?;
            o.insert(key.to_str()?.to_string(), from_py_at(&x, depth + 1)?);
        }
        return Ok(Value::Object(o));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut a = Vec::new();
        for x in v.try_iter()? {
            a.push(from_py_at(&x?, depth + 1)?);
        }
        return Ok(Value::Array(a));
    }
    // Floats, NumPy scalars and anything else that reads as a number.
    if let Ok(f) = v.extract::<f64>() {
        return Ok(number(f));
    }
    Err(PyTypeError::new_err(format!(
        "cannot put a {} into a message (dicts, lists, strings, numbers, booleans and None)",
        v.get_type().name()?
    )))
}

/// A float as JSON (non-finite ones by name).
pub fn number(f: f64) -> Value {
    match Number::from_f64(f) {
        Some(n) => Value::Number(n),
        None if f.is_nan() => Value::from("nan"),
        None if f > 0.0 => Value::from("inf"),
        None => Value::from("-inf"),
    }
}
