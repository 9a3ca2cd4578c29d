//! The wrenches of ApplyLinkWrench: `gz.msgs.EntityWrench` and `gz.msgs.Entity` messages
//! (JSON with gz-msgs' field names) and the SDF's `<persistent>` elements.

use serde_json::Value;
use sim_plugin_api::sdf::{Element, SdfError};
use sim_plugin_api::{Message, Payload, Vec3};

/// The schema of a wrench message: gz-msgs' `EntityWrench`, as JSON.
pub const ENTITY_WRENCH_SCHEMA: &str = "gz.msgs.EntityWrench";
/// The schema of a clear message: gz-msgs' `Entity`, as JSON.
pub const ENTITY_SCHEMA: &str = "gz.msgs.Entity";
/// The largest force or torque component taken from a message, N or N m.
pub const MAX_MAGNITUDE: f64 = 1e9;

/// What an entity reference names (gz-msgs' `Entity.Type`, of which only these two take a
/// wrench).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// Any kind (the message did not say).
    Any,
    /// `LINK` (2).
    Link,
    /// `MODEL` (3).
    Model,
}

/// An entity as a message names it: by id when non-zero, else by scoped name.
#[derive(Clone, Debug, PartialEq)]
pub struct EntityRef {
    /// `id` (0: none).
    pub id: u64,
    /// `name`, a scoped name such as `box::body`.
    pub name: String,
    /// `type`.
    pub kind: TargetKind,
}

/// A wrench for an entity: world-frame force and torque, the force applied at `offset` from
/// the link's centre of mass (link frame).
#[derive(Clone, Debug, PartialEq)]
pub struct EntityWrench {
    /// Its target.
    pub entity: EntityRef,
    /// Force, world frame, N.
    pub force: Vec3,
    /// Torque, world frame, N m.
    pub torque: Vec3,
    /// `force_offset`: where the force acts, from the centre of mass, link frame, m.
    pub offset: Vec3,
}

/// The JSON document of a `Custom` message of `schema`, if that is what `m` is.
fn document(m: &Message, schema: &str) -> Option<Result<Value, String>> {
    let Ok(Payload::Custom(c)) = m.payload.as_enum() else {
        return None;
    };
    if c.schema.as_str() != schema && c.schema.as_str() != schema.replacen("gz.", "ignition.", 1) {
        return None;
    }
    if c.encoding.as_str() != "json" {
        return Some(Err(format!(
            "a {schema} must be JSON, not `{}`",
            c.encoding.as_str()
        )));
    }
    Some(serde_json::from_slice(&c.data).map_err(|e| format!("a {schema} that is not JSON: {e}")))
}

/// A vector `{x, y, z}` (missing components are 0); an error for anything not a finite
/// number within [`MAX_MAGNITUDE`].
fn vector(v: Option<&Value>, what: &str) -> Result<Vec3, String> {
    let Some(v) = v else { return Ok(Vec3::ZERO) };
    let c = |k: &str| -> Result<f64, String> {
        match v.get(k) {
            None | Some(Value::Null) => Ok(0.0),
            Some(x) => x
                .as_f64()
                .filter(|x| x.is_finite() && x.abs() <= MAX_MAGNITUDE)
                .ok_or_else(|| format!("`{what}.{k}` is not a number within ±{MAX_MAGNITUDE:e}")),
        }
    };
    Ok(Vec3::new(c("x")?, c("y")?, c("z")?))
}

/// The entity reference of a `gz.msgs.Entity` document.
fn entity(v: &Value) -> Result<EntityRef, String> {
    let id = v.get("id").and_then(Value::as_u64).unwrap_or(0);
    let name = v
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let kind = match v.get("type") {
        None | Some(Value::Null) => TargetKind::Any,
        Some(t) => match (t.as_str(), t.as_u64()) {
            (Some("LINK" | "link"), _) | (_, Some(2)) => TargetKind::Link,
            (Some("MODEL" | "model"), _) | (_, Some(3)) => TargetKind::Model,
            _ => return Err(format!("entity type {t} takes no wrench (LINK or MODEL)")),
        },
    };
    if id == 0 && name.is_empty() {
        return Err("the entity has neither an id nor a name".into());
    }
    Ok(EntityRef { id, name, kind })
}

/// The wrench of an `EntityWrench` message; `None` for a message of another type, an error
/// naming what is wrong for a malformed one.
pub fn parse_wrench(m: &Message) -> Option<Result<EntityWrench, String>> {
    let doc = document(m, ENTITY_WRENCH_SCHEMA)?;
    Some(doc.and_then(|v| {
        let (Some(e), Some(w)) = (v.get("entity"), v.get("wrench")) else {
            return Err("missing entity or wrench in the message".into());
        };
        Ok(EntityWrench {
            entity: entity(e)?,
            force: vector(w.get("force"), "force")?,
            torque: vector(w.get("torque"), "torque")?,
            offset: vector(w.get("force_offset"), "force_offset")?,
        })
    }))
}

/// The entity of an `Entity` message (a clear request).
pub fn parse_entity(m: &Message) -> Option<Result<EntityRef, String>> {
    Some(document(m, ENTITY_SCHEMA)?.and_then(|v| entity(&v)))
}

/// The wrench of one SDF `<persistent>` element: `<entity_name>`, `<entity_type>` (`link` or
/// `model`), `<force>`, `<torque>`; `Ok(None)` (gz-sim skips it with an error message) when
/// the name or the type is missing or the type is another.
pub fn persistent(e: &Element<'_, '_>) -> Result<Option<EntityWrench>, SdfError> {
    let text = |tag: &str| e.child(tag).map(|c| c.text());
    let (Some(name), Some(kind)) = (text("entity_name"), text("entity_type")) else {
        return Ok(None);
    };
    let kind = match kind {
        "link" => TargetKind::Link,
        "model" => TargetKind::Model,
        _ => return Ok(None),
    };
    Ok(Some(EntityWrench {
        entity: EntityRef {
            id: 0,
            name: name.to_string(),
            kind,
        },
        force: e.get_or("force", Vec3::ZERO)?,
        torque: e.get_or("torque", Vec3::ZERO)?,
        offset: Vec3::ZERO,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::gz::json_message;

    fn custom(schema: &str, json: &str) -> Message {
        Message::new("", json_message(schema, json.to_string()))
    }

    #[test]
    fn messages_as_gz_msgs() {
        let m = custom(
            ENTITY_WRENCH_SCHEMA,
            r#"{"entity": {"name": "box", "type": "MODEL"}, "wrench": {"force": {"x": 1}, "force_offset": {"z": 0.5}}}"#,
        );
        let w = parse_wrench(&m).unwrap().unwrap();
        assert_eq!(
            w.entity,
            EntityRef {
                id: 0,
                name: "box".into(),
                kind: TargetKind::Model
            }
        );
        assert_eq!(
            (w.force, w.torque, w.offset),
            (
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::ZERO,
                Vec3::new(0.0, 0.0, 0.5)
            )
        );
        let bad = |json: &str| {
            parse_wrench(&custom(ENTITY_WRENCH_SCHEMA, json))
                .unwrap()
                .unwrap_err()
        };
        assert!(bad(r#"{"entity": {"name": "b"}}"#).contains("missing"));
        assert!(
            bad(r#"{"entity": {"name": "b"}, "wrench": {"force": {"x": 1e300}}}"#)
                .contains("force.x")
        );
        assert!(bad(r#"{"entity": {"name": "b", "type": 4}, "wrench": {}}"#).contains("no wrench"));
        assert!(bad(r#"{"entity": {}, "wrench": {}}"#).contains("neither"));
        assert!(bad("nope").contains("not JSON"));
        assert!(parse_wrench(&Message::new("", Payload::Double(1.0))).is_none());
        let e = parse_entity(&custom("ignition.msgs.Entity", r#"{"id": 7}"#))
            .unwrap()
            .unwrap();
        assert_eq!((e.id, e.kind), (7, TargetKind::Any));
    }
}
