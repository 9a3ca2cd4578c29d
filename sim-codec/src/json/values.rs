//! The JSON values the kinds' forms are made of (numbers, vectors, rotations, poses, gz-msgs
//! enumeration names) and read from (fields, numbers, texts, vectors, poses), with the error
//! a JSON message is refused with ([`PayloadError`]).

use serde_json::{Map, Value, json};
use sim_plugin_api::{NamedPose, PixelFormat, PointFieldType, Pose, Quat, Vec3};

/// The gz-msgs name of a pixel format (`Image.pixel_format_type`), `"UNKNOWN"` for a number
/// without one.
pub(crate) fn pixel_format_name(f: PixelFormat) -> &'static str {
    match f {
        PixelFormat::L_INT8 => "L_INT8",
        PixelFormat::L_INT16 => "L_INT16",
        PixelFormat::RGB_INT8 => "RGB_INT8",
        PixelFormat::RGBA_INT8 => "RGBA_INT8",
        PixelFormat::BGRA_INT8 => "BGRA_INT8",
        PixelFormat::BGR_INT8 => "BGR_INT8",
        PixelFormat::R_FLOAT32 => "R_FLOAT32",
        PixelFormat::RGB_FLOAT32 => "RGB_FLOAT32",
        _ => "UNKNOWN",
    }
}

/// The gz-msgs name of a point field's data type (`PointCloudPacked.Field.DataType`),
/// `"UNKNOWN"` for a number without one.
pub(crate) fn datatype_name(t: PointFieldType) -> &'static str {
    match t {
        PointFieldType::INT8 => "INT8",
        PointFieldType::UINT8 => "UINT8",
        PointFieldType::INT16 => "INT16",
        PointFieldType::UINT16 => "UINT16",
        PointFieldType::INT32 => "INT32",
        PointFieldType::UINT32 => "UINT32",
        PointFieldType::FLOAT32 => "FLOAT32",
        PointFieldType::FLOAT64 => "FLOAT64",
        _ => "UNKNOWN",
    }
}

/// A number, or its name when it is not finite.
pub fn num(x: f64) -> Value {
    if x.is_nan() {
        Value::from("nan")
    } else if x == f64::INFINITY {
        Value::from("inf")
    } else if x == f64::NEG_INFINITY {
        Value::from("-inf")
    } else {
        json!(x)
    }
}

/// Numbers as an array of [`num`]s.
pub(crate) fn nums(xs: &[f64]) -> Value {
    Value::Array(xs.iter().map(|x| num(*x)).collect())
}

/// A vector as `{x, y, z}` (ROS 2's and gz-msgs' field names).
pub fn vec3(v: Vec3) -> Value {
    json!({"x": num(v.x), "y": num(v.y), "z": num(v.z)})
}

/// A quaternion as `{x, y, z, w}`.
pub fn quat(q: Quat) -> Value {
    json!({"x": num(q.x), "y": num(q.y), "z": num(q.z), "w": num(q.w)})
}

/// A pose as `{position, orientation}`.
pub fn pose(p: Pose) -> Value {
    json!({"position": vec3(p.position), "orientation": quat(p.orientation)})
}

/// A named pose: `{"name", "pose"}`.
pub(crate) fn named_pose(p: &NamedPose) -> Value {
    json!({"name": p.name.as_str(), "pose": pose(p.pose)})
}

/// Why a JSON value is not a message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    /// Not a JSON object.
    #[error("a message is a JSON object with a \"type\"")]
    NotAnObject,
    /// The object has no `"type"`.
    #[error(
        "the message has no \"type\" (e.g. {{\"type\": \"Twist\", \"linear\": {{\"x\": 0.5}}}})"
    )]
    NoType,
    /// A type that cannot be written from JSON.
    #[error(
        "messages of type `{0}` cannot be written from JSON; use Empty, Boolean, Double, Int64, StringMsg, Vector3d, Twist, Pose, Pose_V, EntityFactory or Custom"
    )]
    UnknownType(String),
    /// A field of the wrong form (the message names it).
    #[error("{0}")]
    Field(String),
    /// A field the message does not have (misspelt, or in the wrong place).
    #[error("unknown field `{field}` in {within} (its fields: {known})")]
    UnknownField {
        /// The field as written, with its path (`linear.w`).
        field: String,
        /// Where it was (`a Twist message`, `linear`).
        within: String,
        /// The fields allowed there, comma-separated.
        known: String,
    },
}

/// Refuses a key of `o` that is neither in `known` nor in `also` (`path`: where `o` is, empty
/// at the top; `within`: how the error names it).
pub(crate) fn only(
    o: &Map<String, Value>,
    known: &[&str],
    also: &[&str],
    path: &str,
    within: &str,
) -> Result<(), PayloadError> {
    match o
        .keys()
        .find(|k| !known.contains(&k.as_str()) && !also.contains(&k.as_str()))
    {
        None => Ok(()),
        Some(k) => Err(PayloadError::UnknownField {
            field: if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            },
            within: within.to_string(),
            known: if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            },
        }),
    }
}

impl From<String> for PayloadError {
    fn from(m: String) -> Self {
        PayloadError::Field(m)
    }
}

impl From<&str> for PayloadError {
    fn from(m: &str) -> Self {
        PayloadError::Field(m.to_string())
    }
}

/// The field `k` of `o`, if it is there and not null.
pub(crate) fn field<'a>(o: &'a Map<String, Value>, k: &str) -> Option<&'a Value> {
    o.get(k).filter(|v| !v.is_null())
}

/// A number of a JSON value named `name` (missing or null: 0; `"inf"`, `"-inf"`, `"nan"`
/// read as such); the error names it.
pub fn number_value(v: Option<&Value>, name: &str) -> Result<f64, String> {
    match v {
        None | Some(Value::Null) => Ok(0.0),
        Some(Value::Number(n)) => n
            .as_f64()
            .ok_or_else(|| format!("`{name}` is not a number")),
        Some(Value::String(s)) => match s.as_str() {
            "inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            "nan" => Ok(f64::NAN),
            _ => Err(format!(
                "`{name}` must be a number (or \"inf\", \"-inf\", \"nan\"), got \"{s}\""
            )),
        },
        Some(other) => Err(format!("`{name}` must be a number, got {other}")),
    }
}

/// The number `k` of `o`, as [`number_value`].
pub(crate) fn number(o: &Map<String, Value>, k: &str) -> Result<f64, String> {
    number_value(o.get(k), k)
}

/// The string `k` of `o` (missing or null: empty).
pub(crate) fn text<'a>(o: &'a Map<String, Value>, k: &str) -> Result<&'a str, String> {
    match field(o, k) {
        None => Ok(""),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("`{k}` must be a string, got {other}")),
    }
}

/// A vector read from `{x, y, z}` (missing components 0) at `prefix`, which names it in
/// errors; another field is an error.
pub fn vec3_from(v: &Value, prefix: &str) -> Result<Vec3, PayloadError> {
    if !prefix.is_empty() {
        let o = v
            .as_object()
            .ok_or(format!("`{prefix}` must be an object {{x, y, z}}, got {v}"))?;
        only(o, &["x", "y", "z"], &[], prefix, &format!("`{prefix}`"))?;
    }
    let name = |c: &str| {
        if prefix.is_empty() {
            c.to_string()
        } else {
            format!("{prefix}.{c}")
        }
    };
    Ok(Vec3::new(
        number_value(v.get("x"), &name("x"))?,
        number_value(v.get("y"), &name("y"))?,
        number_value(v.get("z"), &name("z"))?,
    ))
}

/// The vector `k` of `o` (missing or null: zero), as [`vec3_from`].
pub(crate) fn sub_vec(o: &Map<String, Value>, k: &str) -> Result<Vec3, PayloadError> {
    match field(o, k) {
        None => Ok(Vec3::ZERO),
        Some(v @ Value::Object(_)) => vec3_from(v, k),
        Some(other) => Err(format!("`{k}` must be an object {{x, y, z}}, got {other}").into()),
    }
}

/// A pose read from `{position, orientation}` named `name` (missing: the identity; a
/// missing `w` is 1); the orientation must be a rotation and is normalised.
pub fn pose_from(v: Option<&Value>, name: &str) -> Result<Pose, PayloadError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Pose::IDENTITY);
    };
    let o = v.as_object().ok_or(format!(
        "`{name}` must be an object {{position, orientation}}"
    ))?;
    only(
        o,
        &["position", "orientation"],
        &[],
        name,
        &format!("`{name}`"),
    )?;
    let position = match field(o, "position") {
        None => Vec3::ZERO,
        Some(p) => vec3_from(p, &format!("{name}.position"))?,
    };
    let orientation = match field(o, "orientation") {
        None => Quat::IDENTITY,
        Some(q) => {
            let at = format!("{name}.orientation");
            if let Some(qo) = q.as_object() {
                only(qo, &["x", "y", "z", "w"], &[], &at, &format!("`{at}`"))?;
            } else {
                return Err(format!("`{at}` must be an object {{x, y, z, w}}").into());
            }
            let n = |c: &str| number_value(q.get(c), &format!("{name}.orientation.{c}"));
            let q = Quat::new(
                n("x")?,
                n("y")?,
                n("z")?,
                if q.get("w").is_some() { n("w")? } else { 1.0 },
            );
            if !(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).is_normal() {
                return Err(format!("`{name}.orientation` is not a rotation").into());
            }
            q.normalized()
        }
    };
    Ok(Pose::new(position, orientation))
}
