//! Messages as Python objects: a [`Message`] with the header's fields as attributes and the
//! payload's fields by key, the bulk data of images, depth images, laser scans and point
//! clouds as NumPy arrays over the engine's own memory.
//!
//! A message on the bus is an `Arc<Envelope>` that nobody changes again. Each array made
//! here borrows its bytes from it: its base object is a [`MessageBuffer`] holding the `Arc`,
//! so the memory lives as long as any array of it, and the arrays are read-only. Stepping on
//! never touches them: the engine publishes each update in a new message (the buffers the
//! sensors reuse are only those nobody received), so an array read at one step still shows
//! that step's data after the next.

// The one place of the crate that needs `unsafe`: NumPy arrays borrowing the engine's
// memory (see `borrowed`).
#![allow(unsafe_code)]

use numpy::ndarray::{ArrayView, Dimension, Ix1, Ix2, Ix3, ShapeBuilder};
use numpy::{PyArray, PyArrayMethods};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};
use serde_json::{Value, json};
use sim_codec::json as echo;
use sim_plugin_api::{Image, LaserScan, Payload, PixelFormat, PointCloudPacked};
use sim_transport::Envelope;
use std::sync::Arc;

/// Keeps a bus message alive for the NumPy arrays that show its data (their base object).
#[pyclass(module = "simcore._simcore", frozen)]
pub struct MessageBuffer {
    envelope: Arc<Envelope>,
}

#[pymethods]
impl MessageBuffer {
    fn __repr__(&self) -> String {
        format!("<MessageBuffer of {}>", self.envelope.topic)
    }
}

/// A message read from a topic: the header as attributes (`topic`, `type`, `stamp`,
/// `stamp_ns`, `frame_id`, `seq`), the payload's fields by key (`msg["linear_acceleration"]`),
/// and for images, depth images, laser scans and point clouds the data as a read-only NumPy
/// array over the engine's memory (`msg.array`).
///
/// It holds the bus's message itself; the fields' dict and the array are made on first use
/// and kept, so that a read costs one object whatever the message's size.
#[pyclass(module = "simcore._simcore", name = "Message", frozen)]
pub struct Message {
    envelope: Arc<Envelope>,
    /// The base object of the arrays.
    owner: PyOnceLock<Py<MessageBuffer>>,
    array: PyOnceLock<Option<Py<PyAny>>>,
    fields: PyOnceLock<Py<PyDict>>,
}

impl Message {
    fn owner<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, MessageBuffer>> {
        self.owner
            .get_or_try_init(py, || {
                Py::new(
                    py,
                    MessageBuffer {
                        envelope: self.envelope.clone(),
                    },
                )
            })
            .map(|o| o.bind(py))
    }

    fn fields<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyDict>> {
        self.fields
            .get_or_try_init(py, || fields(self, py).map(Bound::unbind))
            .map(|f| f.bind(py))
    }
}

#[pymethods]
impl Message {
    /// The topic it was published on.
    #[getter]
    fn topic(&self) -> &str {
        &self.envelope.topic
    }

    /// The message type (`IMU`, `Image`, `LaserScan`, `Twist`...).
    #[getter(r#type)]
    fn kind(&self) -> &'static str {
        match self.envelope.message.payload.as_enum() {
            Ok(p) => p.type_name(),
            Err(_) => "Unknown",
        }
    }

    /// The header's stamp, ns of sim time.
    #[getter]
    fn stamp_ns(&self) -> i64 {
        self.envelope.message.header.stamp.nanos
    }

    /// The header's frame.
    #[getter]
    fn frame_id(&self) -> &str {
        self.envelope.message.header.frame_id.as_str()
    }

    /// The header's sequence number.
    #[getter]
    fn seq(&self) -> u64 {
        self.envelope.message.header.seq
    }

    /// The header's stamp in seconds of sim time.
    #[getter]
    fn stamp(&self) -> f64 {
        self.stamp_ns() as f64 * 1e-9
    }

    /// The message's bulk data as a NumPy array (images `(h, w)` or `(h, w, c)`, depth images
    /// `(h, w)` float32, laser scans' ranges `(count,)` or `(rows, count)`, point clouds a
    /// structured array of their fields), or None for other types.
    #[getter]
    fn array(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let a = self.array.get_or_try_init(py, || {
            let owner = self.owner(py)?;
            let a = match self.envelope.message.payload.as_enum() {
                Ok(Payload::Image(i)) => image_array(owner, i)?,
                Ok(Payload::PointCloud(c)) => cloud_array(owner, c)?,
                Ok(Payload::LaserScan(s)) => Some(scan_array(owner, s)?),
                _ => None,
            };
            Ok::<_, PyErr>(a.map(Bound::unbind))
        })?;
        Ok(a.as_ref().map(|a| a.clone_ref(py)))
    }

    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        self.fields(py)?
            .get_item(key)?
            .ok_or_else(|| PyKeyError::new_err(key.to_string()))
    }

    /// The field `key`, or `default`.
    #[pyo3(signature = (key, default=None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &str,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(self.fields(py)?.get_item(key)?.or(default))
    }

    fn __contains__(&self, py: Python<'_>, key: &str) -> PyResult<bool> {
        self.fields(py)?.contains(key)
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.fields(py)?.len())
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.fields(py)?
            .keys()
            .into_any()
            .try_iter()
            .map(Bound::into_any)
    }

    /// The payload's field names.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        Ok(self.fields(py)?.keys())
    }

    /// The payload's fields as (name, value) pairs.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        Ok(self.fields(py)?.items())
    }

    /// Everything as one dict: `topic`, `type`, `stamp`, `frame_id`, `seq` and the fields.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("topic", self.topic())?;
        d.set_item("type", self.kind())?;
        d.set_item("stamp", self.stamp())?;
        d.set_item("frame_id", self.frame_id())?;
        d.set_item("seq", self.seq())?;
        d.update(self.fields(py)?.as_mapping())?;
        Ok(d)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let keys: Vec<String> = self
            .fields(py)?
            .keys()
            .iter()
            .map(|k| k.to_string())
            .collect();
        Ok(format!(
            "<Message {} on {} at {:.6} s: {}>",
            self.kind(),
            self.topic(),
            self.stamp(),
            keys.join(", ")
        ))
    }
}

/// `data` (which lives inside `owner`'s message) as a read-only NumPy array of `shape` and
/// `strides` (in elements), `owner` as its base.
fn borrowed<'py, T: numpy::Element, D: Dimension>(
    owner: &Bound<'py, MessageBuffer>,
    data: &[T],
    shape: D,
    strides: D,
) -> PyResult<Bound<'py, PyAny>> {
    let view = ArrayView::from_shape(shape.strides(strides), data)
        .map_err(|e| crate::errors::SimError::new_err(format!("message data: {e}")))?;
    // SAFETY: `data` lies in the message inside `owner`'s `Arc<Envelope>`, which no one
    // changes after it was published (the bus hands out shared references only, and the
    // payload has no interior mutability); NumPy keeps `owner` as the array's base object, so
    // the memory outlives the array, and the array is made read-only before Python sees it.
    let array = unsafe { PyArray::<T, D>::borrow_from_array(&view, owner.clone().into_any()) };
    array
        .try_readwrite()
        .map_err(|e| crate::errors::SimError::new_err(format!("message data: {e}")))?
        .make_nonwriteable();
    Ok(array.into_any())
}

/// An image's pixels: `(h, w)` or `(h, w, channels)` of the pixel format's type, rows `step`
/// bytes apart; raw bytes `(h, step)` for formats without a NumPy equivalent.
fn image_array<'py>(
    owner: &Bound<'py, MessageBuffer>,
    image: &Image,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = owner.py();
    let (dtype, channels, size) = match image.pixel_format {
        PixelFormat::L_INT8 => ("u1", 1, 1),
        PixelFormat::L_INT16 => ("=u2", 1, 2),
        PixelFormat::RGB_INT8 | PixelFormat::BGR_INT8 => ("u1", 3, 1),
        PixelFormat::RGBA_INT8 | PixelFormat::BGRA_INT8 => ("u1", 4, 1),
        PixelFormat::R_FLOAT32 => ("=f4", 1, 4),
        PixelFormat::RGB_FLOAT32 => ("=f4", 3, 4),
        _ => ("u1", 0, 1),
    };
    let (h, w, step) = (
        image.height as usize,
        image.width as usize,
        image.step as usize,
    );
    let data = image.data.as_slice();
    if h == 0 || w == 0 || step == 0 {
        return Ok(None);
    }
    if channels == 0 {
        let rows = data.len().min(h * step) / step;
        let bytes = borrowed(owner, data, Ix2(rows, step), Ix2(step, 1))?;
        return Ok(Some(bytes));
    }
    let pixel = channels * size;
    if step < w * pixel || data.len() < (h - 1) * step + w * pixel {
        return Ok(None);
    }
    // Bytes: the array at once, without NumPy's `view`.
    if size == 1 {
        return Ok(Some(if channels == 1 {
            borrowed(owner, data, Ix2(h, w), Ix2(step, 1))?
        } else {
            borrowed(owner, data, Ix3(h, w, channels), Ix3(step, channels, 1))?
        }));
    }
    let bytes = borrowed(owner, data, Ix3(h, w, pixel), Ix3(step, pixel, 1))?;
    let typed = bytes.call_method1("view", (numpy_dtype(py, dtype)?,))?;
    Ok(Some(if channels == 1 {
        typed.call_method1("squeeze", (-1,))?
    } else {
        typed
    }))
}

/// `numpy.dtype(spec)`.
fn numpy_dtype<'py>(py: Python<'py>, spec: impl IntoPyObject<'py>) -> PyResult<Bound<'py, PyAny>> {
    py.import("numpy")?.getattr("dtype")?.call1((spec,))
}

/// A point cloud as a structured array of its fields, `(width,)` for one row, else
/// `(height, width)`.
fn cloud_array<'py>(
    owner: &Bound<'py, MessageBuffer>,
    cloud: &PointCloudPacked,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = owner.py();
    let (h, w, point, row) = (
        cloud.height as usize,
        cloud.width as usize,
        cloud.point_step as usize,
        cloud.row_step as usize,
    );
    let data = cloud.data.as_slice();
    if h == 0 || w == 0 || point == 0 || row < w * point || data.len() < (h - 1) * row + w * point {
        return Ok(None);
    }
    let order = if cloud.is_bigendian { ">" } else { "<" };
    let (mut names, mut formats, mut offsets) = (Vec::new(), Vec::new(), Vec::new());
    for f in cloud.fields.iter() {
        let t = match f.datatype.0 {
            1 => "i1",
            2 => "u1",
            3 => "i2",
            4 => "u2",
            5 => "i4",
            6 => "u4",
            7 => "f4",
            8 => "f8",
            _ => continue,
        };
        let base = format!("{order}{t}");
        let fmt = if f.count > 1 {
            format!("({},){base}", f.count)
        } else {
            base
        };
        if f.offset as usize >= point || names.contains(&f.name.to_string()) {
            continue;
        }
        names.push(f.name.to_string());
        formats.push(fmt);
        offsets.push(f.offset);
    }
    let spec = PyDict::new(py);
    spec.set_item("names", names)?;
    spec.set_item("formats", formats)?;
    spec.set_item("offsets", offsets)?;
    spec.set_item("itemsize", point)?;
    let dtype = match numpy_dtype(py, spec) {
        Ok(d) => d,
        // Fields that overlap or do not fit: the bytes alone.
        Err(_) => numpy_dtype(py, format!("V{point}"))?,
    };
    let bytes = borrowed(owner, data, Ix2(h, w * point), Ix2(row, 1))?;
    let typed = bytes.call_method1("view", (dtype,))?;
    Ok(Some(if h == 1 {
        typed.call_method1("squeeze", (0,))?
    } else {
        typed
    }))
}

/// A laser scan's fields (as `echo` names them), ranges and intensities as flat arrays.
fn scan_fields<'py>(
    owner: &Bound<'py, MessageBuffer>,
    s: &LaserScan,
    fields: &Bound<'py, PyDict>,
) -> PyResult<()> {
    let py = owner.py();
    let v = json!({
        "frame": s.frame.as_str(), "world_pose": pose_json(s.world_pose),
        "angle_min": echo::num(s.angle_min), "angle_max": echo::num(s.angle_max),
        "angle_step": echo::num(s.angle_step), "range_min": echo::num(s.range_min),
        "range_max": echo::num(s.range_max), "count": s.count,
        "vertical_angle_min": echo::num(s.vertical_angle_min),
        "vertical_angle_max": echo::num(s.vertical_angle_max),
        "vertical_angle_step": echo::num(s.vertical_angle_step),
        "vertical_count": s.vertical_count,
    });
    if let Value::Object(o) = v {
        fields.update(crate::convert::dict(py, &o)?.as_mapping())?;
    }
    let ranges = borrowed(owner, s.ranges.as_slice(), Ix1(s.ranges.len()), Ix1(1))?;
    let intensities = borrowed(
        owner,
        s.intensities.as_slice(),
        Ix1(s.intensities.len()),
        Ix1(1),
    )?;
    fields.set_item("ranges", &ranges)?;
    fields.set_item("intensities", &intensities)
}

/// A laser scan's ranges, `(vertical_count, count)` where they fill that, else flat.
fn scan_array<'py>(
    owner: &Bound<'py, MessageBuffer>,
    s: &LaserScan,
) -> PyResult<Bound<'py, PyAny>> {
    let ranges = s.ranges.as_slice();
    let (rows, count) = (s.vertical_count as usize, s.count as usize);
    if rows > 1 && rows * count == ranges.len() {
        borrowed(owner, ranges, Ix2(rows, count), Ix2(count, 1))
    } else {
        borrowed(owner, ranges, Ix1(ranges.len()), Ix1(1))
    }
}

fn pose_json(p: sim_plugin_api::Pose) -> Value {
    json!({
        "position": {"x": echo::num(p.position.x), "y": echo::num(p.position.y), "z": echo::num(p.position.z)},
        "orientation": {"x": echo::num(p.orientation.x), "y": echo::num(p.orientation.y),
                        "z": echo::num(p.orientation.z), "w": echo::num(p.orientation.w)},
    })
}

/// The Python form of a message from the bus.
pub fn message(envelope: &Arc<Envelope>) -> Message {
    Message {
        envelope: envelope.clone(),
        owner: PyOnceLock::new(),
        array: PyOnceLock::new(),
        fields: PyOnceLock::new(),
    }
}

/// The payload's fields of `m` as a dict, with the bulk data as arrays (`data` of images and
/// point clouds, `ranges` and `intensities` of scans, flat).
fn fields<'py>(m: &Message, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let fields = PyDict::new(py);
    let envelope = &m.envelope;
    match envelope.message.payload.as_enum() {
        Ok(Payload::LaserScan(s)) => scan_fields(m.owner(py)?, s, &fields)?,
        Ok(p) => {
            let v = echo::message_json(&envelope.topic, &envelope.message);
            if let Value::Object(o) = v {
                for (k, x) in o
                    .iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "topic" | "type" | "header"))
                {
                    fields.set_item(k, crate::convert::to_py(py, x)?)?;
                }
            }
            if matches!(p, Payload::Image(_) | Payload::PointCloud(_))
                && let Some(a) = m.array(py)?
            {
                fields.set_item("data", a)?;
            }
        }
        Err(_) => {}
    }
    Ok(fields)
}

/// A message's payload fields as a dict (service replies).
pub fn reply_dict<'py>(
    py: Python<'py>,
    service: &str,
    m: &sim_plugin_api::Message,
) -> PyResult<Bound<'py, PyDict>> {
    let v = echo::message_json(service, m);
    let d = PyDict::new(py);
    if let Value::Object(o) = v {
        for (k, x) in o
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "topic" | "header"))
        {
            d.set_item(k, crate::convert::to_py(py, x)?)?;
        }
    }
    Ok(d)
}
