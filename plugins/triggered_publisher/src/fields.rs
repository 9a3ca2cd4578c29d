//! The gz-msgs types a triggered publisher reads and writes, as flat lists of fields, and the
//! conversions between them and the engine's messages.

use crate::text::{Entries, Value};
use sim_plugin_api::{
    abi_stable::std_types::{RBox, RString},
    msgs::NamedPose,
    prelude::*,
};

/// A gz-msgs message type the plugin knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageType {
    /// `gz.msgs.Empty`.
    Empty,
    /// `gz.msgs.Boolean`: `data`.
    Boolean,
    /// `gz.msgs.Double` and `gz.msgs.Float`: `data`.
    Double,
    /// `gz.msgs.Int32`, `Int64`, `UInt32`, `UInt64`: `data`.
    Int,
    /// `gz.msgs.StringMsg`: `data`.
    Text,
    /// `gz.msgs.Vector3d`: `x`, `y`, `z`.
    Vector3d,
    /// `gz.msgs.Twist`: `linear.{x,y,z}`, `angular.{x,y,z}`.
    Twist,
    /// `gz.msgs.Pose`: `name`, `position.{x,y,z}`, `orientation.{x,y,z,w}`.
    Pose,
}

/// A message as its fields: every field of its type with its value (proto3 defaults for the
/// ones not set).
pub type Fields = Vec<(&'static str, Value)>;

impl MessageType {
    /// The type a gz type name (`gz.msgs.Boolean`, also `ignition.msgs.*`) names.
    pub fn from_gz(name: &str) -> Option<MessageType> {
        let short = name
            .trim()
            .strip_prefix("gz.msgs.")
            .or_else(|| name.trim().strip_prefix("ignition.msgs."))?;
        Some(match short {
            "Empty" => MessageType::Empty,
            "Boolean" => MessageType::Boolean,
            "Double" | "Float" => MessageType::Double,
            "Int32" | "Int64" | "UInt32" | "UInt64" => MessageType::Int,
            "StringMsg" => MessageType::Text,
            "Vector3d" => MessageType::Vector3d,
            "Twist" => MessageType::Twist,
            "Pose" => MessageType::Pose,
            _ => return None,
        })
    }

    /// The gz type names served.
    pub const SUPPORTED: &'static str = "gz.msgs.Empty, Boolean, Double, Float, Int32, Int64, \
        UInt32, UInt64, StringMsg, Vector3d, Twist, Pose";

    /// The fields of this type, with their default values.
    pub fn defaults(self) -> Fields {
        let n = |name| (name, Value::Number(0.0));
        match self {
            MessageType::Empty => vec![],
            MessageType::Boolean => vec![("data", Value::Bool(false))],
            MessageType::Double | MessageType::Int => vec![n("data")],
            MessageType::Text => vec![("data", Value::Text(String::new()))],
            MessageType::Vector3d => vec![n("x"), n("y"), n("z")],
            MessageType::Twist => vec![
                n("linear.x"),
                n("linear.y"),
                n("linear.z"),
                n("angular.x"),
                n("angular.y"),
                n("angular.z"),
            ],
            MessageType::Pose => vec![
                ("name", Value::Text(String::new())),
                n("position.x"),
                n("position.y"),
                n("position.z"),
                n("orientation.x"),
                n("orientation.y"),
                n("orientation.z"),
                n("orientation.w"),
            ],
        }
    }

    /// The message text `entries` describe, as fields of this type; an error names a field
    /// the type lacks or a value of the wrong kind.
    pub fn fields_from(self, entries: &Entries) -> Result<Fields, String> {
        let mut fields = self.defaults();
        for (path, value) in entries {
            let Some(slot) = fields.iter_mut().find(|(n, _)| n == path) else {
                return Err(format!("the type has no field `{path}`"));
            };
            if std::mem::discriminant(&slot.1) != std::mem::discriminant(value) {
                return Err(format!("`{path}` cannot hold {value:?}"));
            }
            slot.1 = value.clone();
        }
        Ok(fields)
    }

    /// The fields of `payload` when it is a message of this type.
    pub fn fields_of(self, payload: &Payload) -> Option<Fields> {
        let n = Value::Number;
        let v3 = |p: &'static [&'static str; 3], v: Vec3| {
            vec![(p[0], n(v.x)), (p[1], n(v.y)), (p[2], n(v.z))]
        };
        Some(match (self, payload) {
            (MessageType::Empty, Payload::Empty) => vec![],
            (MessageType::Boolean, Payload::Boolean(b)) => vec![("data", Value::Bool(*b))],
            (MessageType::Double, Payload::Double(d)) => vec![("data", n(*d))],
            (MessageType::Int, Payload::Int64(i)) => vec![("data", n(*i as f64))],
            (MessageType::Text, Payload::Text(s)) => {
                vec![("data", Value::Text(s.to_string()))]
            }
            (MessageType::Vector3d, Payload::Vector3(v)) => v3(&["x", "y", "z"], *v),
            (MessageType::Twist, Payload::Twist(t)) => {
                let mut f = v3(&["linear.x", "linear.y", "linear.z"], t.linear);
                f.extend(v3(&["angular.x", "angular.y", "angular.z"], t.angular));
                f
            }
            (MessageType::Pose, Payload::Pose(p)) => {
                let q = p.pose.orientation;
                let mut f = vec![("name", Value::Text(p.name.as_str().to_string()))];
                f.extend(v3(
                    &["position.x", "position.y", "position.z"],
                    p.pose.position,
                ));
                f.extend([
                    ("orientation.x", n(q.x)),
                    ("orientation.y", n(q.y)),
                    ("orientation.z", n(q.z)),
                    ("orientation.w", n(q.w)),
                ]);
                f
            }
            _ => return None,
        })
    }

    /// The engine message with these fields (as made by [`MessageType::fields_from`]).
    pub fn payload(self, fields: &Fields) -> Payload {
        let num = |name: &str| match fields.iter().find(|(n, _)| *n == name) {
            Some((_, Value::Number(x))) => *x,
            _ => 0.0,
        };
        let text = |name: &str| match fields.iter().find(|(n, _)| *n == name) {
            Some((_, Value::Text(s))) => s.clone(),
            _ => String::new(),
        };
        let v3 = |p: &str| {
            Vec3::new(
                num(&format!("{p}x")),
                num(&format!("{p}y")),
                num(&format!("{p}z")),
            )
        };
        match self {
            MessageType::Empty => Payload::Empty,
            MessageType::Boolean => {
                Payload::Boolean(matches!(fields.first(), Some((_, Value::Bool(true)))))
            }
            MessageType::Double => Payload::Double(num("data")),
            MessageType::Int => Payload::Int64(num("data") as i64),
            MessageType::Text => Payload::Text(RString::from(text("data"))),
            MessageType::Vector3d => Payload::Vector3(v3("")),
            MessageType::Twist => Payload::Twist(Twist {
                linear: v3("linear."),
                angular: v3("angular."),
            }),
            MessageType::Pose => {
                let q = Quat::new(
                    num("orientation.x"),
                    num("orientation.y"),
                    num("orientation.z"),
                    num("orientation.w"),
                );
                // An orientation left unset (all zero) is no rotation.
                let q = if q == Quat::new(0.0, 0.0, 0.0, 0.0) {
                    Quat::default()
                } else {
                    q
                };
                Payload::Pose(RBox::new(NamedPose {
                    name: SharedStr::new(&text("name")),
                    pose: Pose::new(v3("position."), q),
                }))
            }
        }
    }
}

/// Whether two field values are equal, numbers to within gz-sim's approximate comparison
/// (a relative and absolute tolerance of 32 float epsilons).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let tol = 32.0 * f64::from(f32::EPSILON);
            x == y || (x - y).abs() <= tol * x.abs().max(y.abs()).max(1.0)
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse;

    #[test]
    fn text_to_payload_and_back() {
        let t = MessageType::from_gz("gz.msgs.Twist").unwrap();
        let f = t
            .fields_from(&parse("linear: {x: 1.0}, angular: {z: 0.5}").unwrap())
            .unwrap();
        let p = t.payload(&f);
        assert!(
            matches!(&p, Payload::Twist(tw) if tw.linear.x == 1.0 && tw.angular.z == 0.5),
            "{p:?}"
        );
        assert_eq!(t.fields_of(&p).unwrap(), f);
        assert_eq!(
            MessageType::from_gz("ignition.msgs.Int32"),
            Some(MessageType::Int)
        );
        assert_eq!(MessageType::from_gz("gz.msgs.Vector2d"), None);
        assert!(
            MessageType::Boolean
                .fields_from(&parse("value: 1").unwrap())
                .is_err()
        );
        assert!(
            MessageType::Boolean
                .fields_from(&parse("data: 1").unwrap())
                .is_err()
        );
        assert!(
            MessageType::Double
                .fields_of(&Payload::Boolean(true))
                .is_none()
        );
        let pose = MessageType::Pose.payload(&MessageType::Pose.defaults());
        assert!(matches!(&pose, Payload::Pose(p) if p.pose.orientation == Quat::default()));
        assert!(same(&Value::Number(1.0), &Value::Number(1.0 + 1e-9)));
        assert!(!same(&Value::Number(1.0), &Value::Number(1.001)));
    }
}
