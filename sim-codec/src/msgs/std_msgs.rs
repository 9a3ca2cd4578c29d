//! `std_msgs`: `Empty`, `Boolean`, `Double`, `Int64` and `StringMsg`, each a `data` field
//! (but `Empty`), written and read from JSON.

use crate::catalog as t;
use crate::json::values::{field, num, number, text};
use crate::kinds::entry::{JsonReader, Kind, Reader};
use crate::read::bare;
use crate::write::cdr;
use serde_json::json;
use sim_plugin_api::Payload;

/// The fields of a JSON message of one `data` field.
const DATA: &[&str] = &["data"];

/// `std_msgs/msg/Empty` (one byte, 0).
pub(crate) const EMPTY: Kind = Kind {
    name: "Empty",
    ros: &[&t::EMPTY],
    read_from: Some(&t::EMPTY),
    reads: &[Reader {
        ty: &t::EMPTY,
        read: |_| bare(Payload::Empty),
    }],
    encode: |p, _, _, out| match p {
        Payload::Empty => cdr(out, &t::EMPTY, |w| w.u8(0)),
        _ => None,
    },
    json: |p| match p {
        Payload::Empty => Some(json!({})),
        _ => None,
    },
    from_json: Some(JsonReader {
        fields: &[],
        read: |_| Ok(Payload::Empty),
    }),
};

/// `std_msgs/msg/Bool`.
pub(crate) const BOOLEAN: Kind = Kind {
    name: "Boolean",
    ros: &[&t::BOOL],
    read_from: Some(&t::BOOL),
    reads: &[Reader {
        ty: &t::BOOL,
        read: |r| bare(Payload::Boolean(r.bool("data")?)),
    }],
    encode: |p, _, _, out| match p {
        Payload::Boolean(b) => cdr(out, &t::BOOL, |w| w.bool(*b)),
        _ => None,
    },
    json: |p| match p {
        Payload::Boolean(b) => Some(json!({"data": b})),
        _ => None,
    },
    from_json: Some(JsonReader {
        fields: DATA,
        read: |o| {
            Ok(Payload::Boolean(
                field(o, "data")
                    .map(|d| d.as_bool().ok_or("`data` must be true or false"))
                    .transpose()?
                    .unwrap_or(false),
            ))
        },
    }),
};

/// `std_msgs/msg/Float64`.
pub(crate) const DOUBLE: Kind = Kind {
    name: "Double",
    ros: &[&t::FLOAT64],
    read_from: Some(&t::FLOAT64),
    reads: &[Reader {
        ty: &t::FLOAT64,
        read: |r| bare(Payload::Double(r.f64("data")?)),
    }],
    encode: |p, _, _, out| match p {
        Payload::Double(x) => cdr(out, &t::FLOAT64, |w| w.f64(*x)),
        _ => None,
    },
    json: |p| match p {
        Payload::Double(d) => Some(json!({"data": num(*d)})),
        _ => None,
    },
    from_json: Some(JsonReader {
        fields: DATA,
        read: |o| Ok(Payload::Double(number(o, "data")?)),
    }),
};

/// `std_msgs/msg/Int64`.
pub(crate) const INT64: Kind = Kind {
    name: "Int64",
    ros: &[&t::INT64],
    read_from: Some(&t::INT64),
    reads: &[Reader {
        ty: &t::INT64,
        read: |r| bare(Payload::Int64(r.read("data")?)),
    }],
    encode: |p, _, _, out| match p {
        Payload::Int64(x) => cdr(out, &t::INT64, |w| w.i64(*x)),
        _ => None,
    },
    json: |p| match p {
        Payload::Int64(i) => Some(json!({"data": i})),
        _ => None,
    },
    from_json: Some(JsonReader {
        fields: DATA,
        read: |o| {
            Ok(Payload::Int64(match field(o, "data") {
                Some(d) => d.as_i64().ok_or("`data` must be an integer")?,
                None => 0,
            }))
        },
    }),
};

/// `std_msgs/msg/String` (the payload `Text`).
pub(crate) const STRING: Kind = Kind {
    name: "StringMsg",
    ros: &[&t::STRING],
    read_from: Some(&t::STRING),
    reads: &[Reader {
        ty: &t::STRING,
        read: |r| bare(Payload::Text(r.string("data")?.into())),
    }],
    encode: |p, _, _, out| match p {
        Payload::Text(s) => cdr(out, &t::STRING, |w| w.string(s)),
        _ => None,
    },
    json: |p| match p {
        Payload::Text(s) => Some(json!({"data": s.as_str()})),
        _ => None,
    },
    from_json: Some(JsonReader {
        fields: DATA,
        read: |o| Ok(Payload::Text(text(o, "data")?.into())),
    }),
};
