//! Messages as JSON, both ways: printed by `simcore run --echo` and `--call`, read by
//! `--pub` and `--call`.
//!
//! One object per message: `topic`, `type`, `header` (`stamp` {`sec`, `nsec`}, `frame_id`,
//! `seq`) and the message's fields. `--echo` prints them bounded ([`echo_json`]): an array of
//! more than [`ECHO_MAX_ITEMS`] items keeps its first ones, a string of more than
//! [`ECHO_MAX_STRING`] bytes its start, and the object's `truncated` field maps each field
//! cut (`"ranges"`, `"pose[3].name"`) to its full length; images and point clouds print only
//! their `data_bytes`. JSON has no infinities or NaN, so non-finite numbers are
//! written as the strings `"inf"`, `"-inf"` and `"nan"` (and read back from them). The
//! enumerations of images and point clouds keep their gz-msgs numbers and have their names
//! beside them: `"pixel_format_type": 13, "pixel_format_name": "R_FLOAT32"`, and each point
//! field's `"datatype": 7, "datatype_name": "FLOAT32"` (`"UNKNOWN"` for a number without a
//! name).
//!
//! To publish, give the `type` and the fields; missing fields are zero, false or empty:
//! `{"type": "Twist", "linear": {"x": 0.5}, "angular": {"z": 0.2}}`. A field the type does
//! not have (`"linaer"`, or a Pose's `position` outside its `pose`) is an error naming it. Types that can be
//! written: `Empty`, `Boolean`, `Double`, `Int64`, `StringMsg`, `Vector3d`, `Twist`, `Pose`,
//! `Pose_V`, `EntityFactory` and `Custom` (with `schema`, and `data` any JSON, sent with
//! encoding `json`).

pub(crate) mod values;

pub use values::{PayloadError, num, number_value, pose, pose_from, quat, vec3, vec3_from};

use crate::kinds::kind_named;
use serde_json::{Map, Value, json};
use sim_plugin_api::{CustomMessage, Message, Payload, abi_stable::std_types::RBox};
use values::only;

/// The most items of an array `--echo` prints.
pub const ECHO_MAX_ITEMS: usize = 1000;

/// The most bytes of a string (or of a custom message's data) `--echo` prints.
pub const ECHO_MAX_STRING: usize = 64 << 10;

/// [`message_json`] bounded as `--echo` prints it (see the module docs): a line stays within
/// a few megabytes whatever the message holds.
pub fn echo_json(topic: &str, m: &Message) -> Value {
    let mut truncated = Map::new();
    let mut v = match m.payload.as_enum() {
        Ok(Payload::Custom(c)) if c.data.len() > ECHO_MAX_STRING / 2 => {
            // Cut before it is written out (as hex it doubles).
            truncated.insert("data".into(), json!(c.data.len()));
            let cut = CustomMessage {
                data: c.data[..ECHO_MAX_STRING / 2].to_vec().into(),
                ..(**c).clone()
            };
            let mut short = Message::new("", Payload::Custom(RBox::new(cut)));
            short.header = m.header.clone();
            message_json(topic, &short)
        }
        _ => message_json(topic, m),
    };
    if let Value::Object(o) = &mut v {
        for (k, field) in o.iter_mut() {
            bound(field, k, &mut truncated);
        }
        if !truncated.is_empty() {
            o.insert("truncated".into(), Value::Object(truncated));
        }
    }
    v
}

/// Cuts long arrays and strings in `v` (at `path`), noting their full lengths.
fn bound(v: &mut Value, path: &str, truncated: &mut Map<String, Value>) {
    match v {
        Value::Array(a) => {
            if a.len() > ECHO_MAX_ITEMS {
                truncated.insert(path.to_string(), json!(a.len()));
                a.truncate(ECHO_MAX_ITEMS);
            }
            for (i, item) in a.iter_mut().enumerate() {
                bound(item, &format!("{path}[{i}]"), truncated);
            }
        }
        Value::Object(o) => {
            for (k, field) in o.iter_mut() {
                bound(field, &format!("{path}.{k}"), truncated);
            }
        }
        Value::String(s) if s.len() > ECHO_MAX_STRING => {
            truncated.insert(path.to_string(), json!(s.len()));
            let mut end = ECHO_MAX_STRING;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            s.truncate(end);
        }
        _ => {}
    }
}

/// The JSON form of a message published on `topic`.
pub fn message_json(topic: &str, m: &Message) -> Value {
    let (sec, nsec) = m.header.stamp.to_sec_nsec();
    let mut o = Map::new();
    o.insert("topic".into(), json!(topic));
    let (ty, data) = match m.payload.as_enum() {
        Ok(p) => (p.type_name(), payload_json(p)),
        Err(_) => (
            "Unknown",
            json!({"note": "a message type this engine version does not know"}),
        ),
    };
    o.insert("type".into(), json!(ty));
    o.insert(
        "header".into(),
        json!({"stamp": {"sec": sec, "nsec": nsec}, "frame_id": m.header.frame_id.as_str(), "seq": m.header.seq}),
    );
    match data {
        Value::Object(fields) => o.extend(fields),
        other => {
            o.insert("data".into(), other);
        }
    }
    Value::Object(o)
}

/// The fields of payload `p`, by its kind's JSON writer.
fn payload_json(p: &Payload) -> Value {
    kind_named(p.type_name())
        .and_then(|k| (k.json)(p))
        .unwrap_or_else(|| json!({"note": "a message type this engine version cannot print"}))
}

/// Reads a payload from its JSON form (see the module docs). The error names the field.
pub fn payload_from_json(v: &Value) -> Result<Payload, PayloadError> {
    let o = v.as_object().ok_or(PayloadError::NotAnObject)?;
    let ty = o
        .get("type")
        .and_then(Value::as_str)
        .ok_or(PayloadError::NoType)?;
    let reader = kind_named(ty)
        .and_then(|k| k.from_json)
        .ok_or_else(|| PayloadError::UnknownType(ty.to_string()))?;
    only(o, reader.fields, &["type"], "", &format!("a {ty} message"))?;
    (reader.read)(o)
}

#[cfg(test)]
mod tests {
    use super::values::{datatype_name, pixel_format_name};
    use super::*;
    use sim_plugin_api::{PixelFormat, PointFieldType, SimTime, Vec3};

    #[test]
    fn image_and_point_field_enumerations_have_their_names_beside_the_numbers() {
        let image = Message::new(
            "",
            Payload::Image(RBox::new(sim_plugin_api::Image {
                width: 2,
                height: 1,
                step: 8,
                pixel_format: PixelFormat::R_FLOAT32,
                data: vec![0; 8].into(),
            })),
        );
        let v = message_json("/depth", &image);
        assert_eq!(v["pixel_format_type"], 13, "{v}");
        assert_eq!(v["pixel_format_name"], "R_FLOAT32", "{v}");
        let cloud = Message::new(
            "",
            Payload::PointCloud(RBox::new(sim_plugin_api::msgs::PointCloudPacked {
                fields: vec![sim_plugin_api::msgs::PointField {
                    name: "x".into(),
                    offset: 0,
                    datatype: PointFieldType::FLOAT32,
                    count: 1,
                }]
                .into(),
                ..Default::default()
            })),
        );
        let v = message_json("/points", &cloud);
        assert_eq!(v["fields"][0]["datatype"], 7, "{v}");
        assert_eq!(v["fields"][0]["datatype_name"], "FLOAT32", "{v}");
        assert_eq!(pixel_format_name(PixelFormat(99)), "UNKNOWN");
        assert_eq!(datatype_name(PointFieldType(0)), "UNKNOWN");
    }

    #[test]
    fn non_finite_numbers_are_strings() {
        let mut m = Message::new(
            "",
            Payload::LaserScan(RBox::new(sim_plugin_api::LaserScan {
                ranges: vec![1.5, f64::INFINITY, f64::NEG_INFINITY, f64::NAN].into(),
                ..Default::default()
            })),
        );
        m.header.stamp = SimTime::from_nanos(2_500_000_000);
        m.header.seq = 4;
        let v = message_json("/scan", &m);
        assert_eq!(v["topic"], "/scan");
        assert_eq!(v["type"], "LaserScan");
        assert_eq!(v["header"]["stamp"]["sec"], 2);
        assert_eq!(v["header"]["stamp"]["nsec"], 500_000_000);
        assert_eq!(v["header"]["seq"], 4);
        assert_eq!(v["ranges"], json!([1.5, "inf", "-inf", "nan"]));
        // The line is valid JSON.
        let line = serde_json::to_string(&v).unwrap();
        assert!(serde_json::from_str::<Value>(&line).is_ok());
    }

    #[test]
    fn payloads_read_back_what_echo_writes() {
        let cases = [
            json!({"type": "Twist", "linear": {"x": 0.5}, "angular": {"z": "-inf"}}),
            json!({"type": "Double", "data": 2.5}),
            json!({"type": "Boolean", "data": true}),
            json!({"type": "Int64", "data": -3}),
            json!({"type": "StringMsg", "data": "hi"}),
            json!({"type": "Vector3d", "x": 1, "y": 2, "z": 3}),
            json!({"type": "Pose", "name": "m", "pose": {"position": {"x": 1}, "orientation": {"z": 1, "w": 0}}}),
            json!({"type": "Pose_V", "pose": [{"name": "a", "pose": {"position": {"y": 2}}}]}),
            json!({"type": "EntityFactory", "sdf": "<sdf/>", "name": "n", "allow_renaming": true}),
            json!({"type": "Empty"}),
        ];
        for c in cases {
            let p = payload_from_json(&c).unwrap_or_else(|e| panic!("{c}: {e}"));
            let back = message_json("/t", &Message::new("", p));
            for (k, v) in c.as_object().unwrap() {
                if k == "type" {
                    continue;
                }
                // Every given field comes back (numbers as floats).
                let got = &back[k];
                assert!(
                    got.is_object() || got.is_array() || got == v || got.as_f64() == v.as_f64(),
                    "{k}: {v} vs {got}"
                );
            }
        }
        let t = payload_from_json(&json!({"type": "Twist", "linear": {"x": 0.5}})).unwrap();
        assert!(matches!(t, Payload::Twist(t) if t.linear.x == 0.5 && t.angular == Vec3::ZERO));
    }

    #[test]
    fn bad_json_messages_are_explained() {
        let err = |v: Value| payload_from_json(&v).unwrap_err().to_string();
        assert!(err(json!([1])).contains("JSON object"));
        assert!(err(json!({"linear": {}})).contains("no \"type\""));
        assert!(err(json!({"type": "LaserScan"})).contains("cannot be written"));
        assert!(err(json!({"type": "Twist", "linear": {"x": "fast"}})).contains("linear.x"));
        assert!(err(json!({"type": "Double", "data": [1]})).contains("`data` must be a number"));
        assert!(
            err(json!({"type": "Pose", "pose": {"orientation": {"x": 0, "y": 0, "z": 0, "w": 0}}}))
                .contains("not a rotation")
        );
    }

    #[test]
    fn echo_bounds_long_arrays_strings_and_data() {
        let scan = Message::new(
            "",
            Payload::LaserScan(RBox::new(sim_plugin_api::LaserScan {
                ranges: vec![1.0; 200_000].into(),
                intensities: vec![0.5; 10].into(),
                ..Default::default()
            })),
        );
        let v = echo_json("/scan", &scan);
        assert_eq!(v["ranges"].as_array().unwrap().len(), ECHO_MAX_ITEMS);
        assert_eq!(v["intensities"].as_array().unwrap().len(), 10);
        assert_eq!(v["truncated"], json!({"ranges": 200_000}));
        // The recording's form is whole.
        assert_eq!(
            message_json("/scan", &scan)["ranges"]
                .as_array()
                .unwrap()
                .len(),
            200_000
        );
        let text = Message::new("", Payload::Text("é".repeat(100_000).into()));
        let v = echo_json("/t", &text);
        assert!(v["data"].as_str().unwrap().len() <= ECHO_MAX_STRING);
        assert_eq!(v["truncated"]["data"], 200_000);
        let big = Message::new(
            "",
            Payload::Custom(RBox::new(CustomMessage {
                schema: "s".into(),
                encoding: "raw".into(),
                data: vec![1u8; 10 << 20].into(),
            })),
        );
        let line = echo_json("/c", &big).to_string();
        assert!(line.len() < 2 * ECHO_MAX_STRING, "{}", line.len());
        assert!(line.contains(&format!("\"truncated\":{{\"data\":{}}}", 10 << 20)));
        // Small messages print as before, without `truncated`.
        let small = Message::new("", Payload::Double(1.0));
        assert_eq!(echo_json("/d", &small), message_json("/d", &small));
    }

    #[test]
    fn misspelt_and_misplaced_fields_are_refused_by_name() {
        let err = |v: Value| payload_from_json(&v).unwrap_err().to_string();
        let e = err(json!({"type": "Twist", "linaer": {"x": 0.5}}));
        assert!(
            e.contains("unknown field `linaer` in a Twist message"),
            "{e}"
        );
        assert!(e.contains("linear, angular"), "{e}");
        let e = err(json!({"type": "Twist", "linear": {"x": 0.5, "w": 1}}));
        assert!(e.contains("`linear.w`"), "{e}");
        // set_pose's position beside the pose instead of in it: never the origin.
        let e = err(json!({"type": "Pose", "name": "box", "position": {"x": 3}}));
        assert!(
            e.contains("unknown field `position` in a Pose message"),
            "{e}"
        );
        let e = err(json!({"type": "Pose", "name": "box", "pose": {"x": 3}}));
        assert!(e.contains("`pose.x`"), "{e}");
        let e = err(json!({"type": "Pose", "name": "b", "pose": {"position": {"X": 3}}}));
        assert!(e.contains("`pose.position.X`"), "{e}");
        let e = err(json!({"type": "Pose", "name": "b", "pose": {"position": 3}}));
        assert!(e.contains("`pose.position` must be an object"), "{e}");
        let e = err(json!({"type": "Pose", "pose": {"orientation": {"yaw": 1}}}));
        assert!(e.contains("`pose.orientation.yaw`"), "{e}");
        let e = err(json!({"type": "Pose_V", "pose": [{"name": "a", "position": {}}]}));
        assert!(e.contains("`pose[0].position`"), "{e}");
        let e = err(json!({"type": "Double", "value": 1}));
        assert!(
            e.contains("`value`") && e.contains("its fields: data"),
            "{e}"
        );
        let e = err(json!({"type": "Empty", "data": 1}));
        assert!(e.contains("its fields: none"), "{e}");
        let e = err(json!({"type": "EntityFactory", "sdf": "<sdf/>", "rename": true}));
        assert!(e.contains("`rename`"), "{e}");
        // The fields a type has stay accepted, `type` among them.
        payload_from_json(&json!({"type": "Custom", "schema": "s", "data": {"any": 1}})).unwrap();
    }
}
