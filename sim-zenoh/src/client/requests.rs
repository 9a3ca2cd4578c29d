//! The `simulation_interfaces` services from the caller's side: a request written from JSON
//! into the CDR the server reads ([`request_cdr`]), and a reply's CDR read back into JSON
//! ([`reply_json`]).
//!
//! The JSON has the services' own field names, as `ros2 service call` takes them in YAML:
//! `{"steps": 10}` for StepSimulation, `{"state": {"state": 2}}` for SetSimulationState
//! (`{"state": 2}` too), `{"entity": "box"}`, `{"scope": 0}`, SpawnEntity's `name`,
//! `allow_renaming`, `uri`, `resource_string` (or 2.x's `entity_resource` holding those two),
//! `entity_namespace` and `initial_pose` (`header.frame_id`, `pose`), GetEntities' `filters`
//! (`filter`, `categories`, `tags` {`tags`, `filter_mode`}, `bounds` {`type`, `points`}),
//! SetEntityState's `entity` and `state` (`header.frame_id`, `pose`, `twist`, `acceleration`;
//! 2.x adds `set_pose`, `set_twist`, `set_acceleration`). A field left out is zero, false or
//! empty (an orientation left out is the identity), as in a ROS message; a field the request
//! does not have is an error naming it.

use crate::control::Service;
use crate::entity::{EntityFilters, EntityState, MAX_BOUND_POINTS};
use serde_json::{Map, Value, json};
use sim_codec::json::{pose, pose_from, vec3, vec3_from};
use sim_codec::{CdrReader, CdrWriter, DecodeError};
use sim_plugin_api::{Pose, SimTime, Vec3};

/// A JSON object's fields, read one by one; a field not read is an error naming it.
struct Fields<'a> {
    map: Option<&'a Map<String, Value>>,
    path: String,
}

impl<'a> Fields<'a> {
    fn of(v: Option<&'a Value>, path: &str) -> Result<Fields<'a>, String> {
        let map = match v {
            None | Some(Value::Null) => None,
            Some(Value::Object(o)) => Some(o),
            Some(other) => {
                return Err(format!(
                    "{} must be an object, got {other}",
                    at(path, "the request")
                ));
            }
        };
        Ok(Fields {
            map,
            path: path.to_string(),
        })
    }

    fn name(&self, k: &str) -> String {
        if self.path.is_empty() {
            k.to_string()
        } else {
            format!("{}.{k}", self.path)
        }
    }

    /// Refuses a field not in `known`.
    fn only(&self, known: &[&str]) -> Result<(), String> {
        let Some(m) = self.map else { return Ok(()) };
        match m.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => Err(format!(
                "{} has no field `{k}` (it has {})",
                at(&self.path, "the request"),
                known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    fn get(&self, k: &str) -> Option<&'a Value> {
        self.map.and_then(|m| m.get(k)).filter(|v| !v.is_null())
    }

    fn sub(&self, k: &str) -> Result<Fields<'a>, String> {
        Fields::of(self.get(k), &self.name(k))
    }

    fn text(&self, k: &str) -> Result<&'a str, String> {
        match self.get(k) {
            None => Ok(""),
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(format!("`{}` must be a string, got {other}", self.name(k))),
        }
    }

    fn flag(&self, k: &str) -> Result<bool, String> {
        match self.get(k) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format!(
                "`{}` must be true or false, got {other}",
                self.name(k)
            )),
        }
    }

    /// An unsigned integer of at most `max`.
    fn uint(&self, k: &str, max: u64) -> Result<u64, String> {
        match self.get(k) {
            None => Ok(0),
            Some(v) => v.as_u64().filter(|n| *n <= max).ok_or_else(|| {
                format!(
                    "`{}` must be a whole number from 0 to {max}, got {v}",
                    self.name(k)
                )
            }),
        }
    }

    fn vec3(&self, k: &str) -> Result<Vec3, String> {
        match self.get(k) {
            None => Ok(Vec3::ZERO),
            Some(v) => vec3_from(v, &self.name(k)).map_err(|e| e.to_string()),
        }
    }

    fn pose(&self, k: &str) -> Result<Pose, String> {
        pose_from(self.get(k), &self.name(k)).map_err(|e| e.to_string())
    }
}

fn at(path: &str, whole: &str) -> String {
    if path.is_empty() {
        whole.to_string()
    } else {
        format!("`{path}`")
    }
}

/// The CDR request of `service` written from its JSON form (see the module docs); `null`
/// is the request with every field left out. The error names the field.
pub fn request_cdr(service: Service, v: &Value) -> Result<Vec<u8>, String> {
    let f = Fields::of(Some(v).filter(|v| !v.is_null()), "")?;
    let mut out = Vec::with_capacity(64);
    let mut w = CdrWriter::new(&mut out);
    match service {
        Service::Features | Service::GetState => f.only(&[])?,
        Service::SetState => {
            f.only(&["state"])?;
            let state = match f.get("state") {
                Some(Value::Object(_)) => {
                    let s = f.sub("state")?;
                    s.only(&["state"])?;
                    s.uint("state", u64::from(u8::MAX))?
                }
                _ => f.uint("state", u64::from(u8::MAX))?,
            };
            w.u8(state as u8);
        }
        Service::Step => {
            f.only(&["steps"])?;
            w.u64(f.uint("steps", u64::MAX)?);
        }
        Service::Spawn | Service::SpawnV2 => {
            f.only(&[
                "name",
                "allow_renaming",
                "uri",
                "resource_string",
                "entity_resource",
                "entity_namespace",
                "initial_pose",
            ])?;
            let resource = f.sub("entity_resource")?;
            resource.only(&["uri", "resource_string"])?;
            let pick = |k: &str| -> Result<&str, String> {
                match (f.text(k)?, resource.text(k)?) {
                    (a, "") => Ok(a),
                    ("", b) => Ok(b),
                    _ => Err(format!("`{k}` is given twice (and in `entity_resource`)")),
                }
            };
            w.string(f.text("name")?);
            w.bool(f.flag("allow_renaming")?);
            w.string(pick("uri")?);
            w.string(pick("resource_string")?);
            w.string(f.text("entity_namespace")?);
            let p = f.sub("initial_pose")?;
            p.only(&["header", "pose"])?;
            let h = p.sub("header")?;
            h.only(&["frame_id", "stamp"])?;
            w.i32(0);
            w.u32(0);
            w.string(h.text("frame_id")?);
            write_pose(&mut w, &p.pose("pose")?);
        }
        Service::Delete | Service::GetEntityState => {
            f.only(&["entity"])?;
            w.string(f.text("entity")?);
        }
        Service::Entities => {
            f.only(&["filters"])?;
            filters(&f.sub("filters")?)?.write(&mut w);
        }
        Service::SetEntityState | Service::SetEntityStateV2 => {
            let v2 = service == Service::SetEntityStateV2;
            let parts = ["set_pose", "set_twist", "set_acceleration"];
            let mut known = vec!["entity", "state"];
            if v2 {
                known.extend(parts);
            }
            f.only(&known)?;
            w.string(f.text("entity")?);
            entity_state(&f.sub("state")?)?.write(&mut w);
            if v2 {
                for p in parts {
                    w.bool(f.flag(p)?);
                }
            }
        }
        Service::Reset => {
            f.only(&["scope"])?;
            w.u8(f.uint("scope", u64::from(u8::MAX))? as u8);
        }
    }
    Ok(out)
}

fn write_pose(w: &mut CdrWriter<'_>, p: &Pose) {
    let (a, q) = (p.position, p.orientation);
    for v in [a.x, a.y, a.z, q.x, q.y, q.z, q.w] {
        w.f64(v);
    }
}

fn filters(f: &Fields<'_>) -> Result<EntityFilters, String> {
    f.only(&["filter", "categories", "tags", "bounds"])?;
    let categories = match f.get("categories") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|c| {
                let n = c.get("category").unwrap_or(c);
                n.as_u64()
                    .and_then(|n| u8::try_from(n).ok())
                    .ok_or_else(|| format!("`filters.categories` holds {c}, not a category"))
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(format!("`filters.categories` must be a list, got {other}")),
    };
    let t = f.sub("tags")?;
    t.only(&["tags", "filter_mode"])?;
    let tags = match t.get("tags") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("`filters.tags.tags` holds {s}, not a string"))
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(format!("`filters.tags.tags` must be a list, got {other}")),
    };
    let b = f.sub("bounds")?;
    b.only(&["type", "points"])?;
    let bounds_points = match b.get("points") {
        None => Vec::new(),
        Some(Value::Array(a)) if a.len() <= MAX_BOUND_POINTS => a
            .iter()
            .map(|p| vec3_from(p, "filters.bounds.points[]").map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?,
        Some(Value::Array(a)) => {
            return Err(format!(
                "`filters.bounds.points` holds {} points (at most {MAX_BOUND_POINTS})",
                a.len()
            ));
        }
        Some(other) => {
            return Err(format!(
                "`filters.bounds.points` must be a list, got {other}"
            ));
        }
    };
    Ok(EntityFilters {
        filter: f.text("filter")?.to_string(),
        categories,
        tags,
        tags_mode: t.uint("filter_mode", u64::from(u8::MAX))? as u8,
        bounds_type: b.uint("type", u64::from(u8::MAX))? as u8,
        bounds_points,
    })
}

fn entity_state(s: &Fields<'_>) -> Result<EntityState, String> {
    s.only(&["header", "pose", "twist", "acceleration"])?;
    let h = s.sub("header")?;
    h.only(&["frame_id", "stamp"])?;
    let twist = s.sub("twist")?;
    twist.only(&["linear", "angular"])?;
    let acc = s.sub("acceleration")?;
    acc.only(&["linear", "angular"])?;
    Ok(EntityState {
        stamp: SimTime::ZERO,
        frame: h.text("frame_id")?.to_string(),
        pose: s.pose("pose")?,
        linear_velocity: twist.vec3("linear")?,
        angular_velocity: twist.vec3("angular")?,
        linear_acceleration: acc.vec3("linear")?,
        angular_acceleration: acc.vec3("angular")?,
    })
}

/// The JSON form of `service`'s CDR reply `bytes` (the services' field names, as the module
/// docs say; `result` is `{result, error_message}`), or why it could not be read.
pub fn reply_json(service: Service, bytes: &[u8]) -> Result<Value, DecodeError> {
    let mut r = CdrReader::new(bytes)?;
    let mut o = Map::new();
    match service {
        Service::Features => {
            let n = r.sequence_len(2, "features.features")?;
            let features = (0..n)
                .map(|_| r.read::<u16>("features.features"))
                .collect::<Result<Vec<_>, _>>()?;
            let n = r.sequence_len(4, "features.spawn_formats")?;
            let formats = (0..n)
                .map(|_| r.string("features.spawn_formats").map(str::to_string))
                .collect::<Result<Vec<_>, _>>()?;
            let info = r.string("features.custom_info")?;
            o.insert(
                "features".into(),
                json!({"features": features, "spawn_formats": formats, "custom_info": info}),
            );
        }
        Service::GetState => {
            let state = r.read::<u8>("state.state")?;
            o.insert("state".into(), json!({ "state": state }));
            result(&mut r, &mut o)?;
        }
        Service::Spawn | Service::SpawnV2 => {
            result(&mut r, &mut o)?;
            o.insert("entity_name".into(), json!(r.string("entity_name")?));
        }
        Service::Entities => {
            result(&mut r, &mut o)?;
            let n = r.sequence_len(4, "entities")?;
            let names = (0..n)
                .map(|_| r.string("entities").map(str::to_string))
                .collect::<Result<Vec<_>, _>>()?;
            o.insert("entities".into(), json!(names));
        }
        Service::GetEntityState => {
            result(&mut r, &mut o)?;
            let s = EntityState::read(&mut r)?;
            o.insert("state".into(), state_json(&s));
        }
        Service::SetState
        | Service::Step
        | Service::Delete
        | Service::SetEntityState
        | Service::SetEntityStateV2
        | Service::Reset => result(&mut r, &mut o)?,
    }
    Ok(Value::Object(o))
}

fn result(r: &mut CdrReader<'_>, o: &mut Map<String, Value>) -> Result<(), DecodeError> {
    let code = r.read::<u8>("result.result")?;
    let message = r.string("result.error_message")?;
    o.insert(
        "result".into(),
        json!({"result": code, "error_message": message}),
    );
    Ok(())
}

fn state_json(s: &EntityState) -> Value {
    let (sec, nanosec) = s.stamp.to_sec_nsec();
    json!({
        "header": {"stamp": {"sec": sec, "nanosec": nanosec}, "frame_id": s.frame},
        "pose": pose(s.pose),
        "twist": {"linear": vec3(s.linear_velocity), "angular": vec3(s.angular_velocity)},
        "acceleration": {
            "linear": vec3(s.linear_acceleration),
            "angular": vec3(s.angular_acceleration),
        },
    })
}

/// A `result` field's code of a [`reply_json`] answer, and its message.
pub fn result_of(reply: &Value) -> Option<(u64, &str)> {
    let r = reply.get("result")?;
    Some((
        r.get("result")?.as_u64()?,
        r.get("error_message")?.as_str()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::{Control, Reply, StateParts, result, state};
    use sim_plugin_api::Quat;

    fn read(service: Service, v: Value) -> Control {
        let b = request_cdr(service, &v).unwrap_or_else(|e| panic!("{v}: {e}"));
        service.decode(&b).expect("the server reads it")
    }

    #[test]
    fn requests_are_what_the_server_reads() {
        assert_eq!(read(Service::Step, json!({"steps": 25})), Control::Step(25));
        assert_eq!(read(Service::Step, Value::Null), Control::Step(0));
        assert_eq!(
            read(Service::SetState, json!({"state": {"state": 2}})),
            Control::SetState(state::PAUSED)
        );
        assert_eq!(
            read(Service::SetState, json!({"state": 1})),
            Control::SetState(state::PLAYING)
        );
        assert_eq!(read(Service::Reset, json!({})), Control::Reset(0));
        assert_eq!(
            read(Service::Delete, json!({"entity": "box"})),
            Control::Delete("box".into())
        );
        assert_eq!(read(Service::GetState, json!({})), Control::GetState);
    }

    #[test]
    fn a_spawn_is_read_whole_in_either_form() {
        for (service, v) in [
            (
                Service::Spawn,
                json!({"name": "b", "allow_renaming": true, "resource_string": "<sdf/>",
                       "initial_pose": {"header": {"frame_id": "world"},
                                        "pose": {"position": {"z": 2.0}}}}),
            ),
            (
                Service::SpawnV2,
                json!({"name": "b", "allow_renaming": true,
                       "entity_resource": {"resource_string": "<sdf/>"},
                       "initial_pose": {"header": {"frame_id": "world"},
                                        "pose": {"position": {"z": 2.0}}}}),
            ),
        ] {
            let Control::Spawn(s) = read(service, v) else {
                panic!("not a spawn")
            };
            assert_eq!((s.name.as_str(), s.allow_renaming), ("b", true));
            assert_eq!(s.resource_string, "<sdf/>");
            assert_eq!(s.frame, "world");
            assert_eq!(s.pose.position.z, 2.0);
            assert_eq!(s.pose.orientation, Quat::IDENTITY);
        }
    }

    #[test]
    fn entity_filters_and_states_are_read() {
        let Control::Entities(f) = read(
            Service::Entities,
            json!({"filters": {"filter": "^b", "categories": [{"category": 1}, 2],
                   "bounds": {"type": 3, "points": [{"x": 1.0}, {"x": 0.5}]}}}),
        ) else {
            panic!("not GetEntities")
        };
        assert_eq!(
            (f.filter.as_str(), f.categories.as_slice()),
            ("^b", &[1, 2][..])
        );
        assert_eq!((f.bounds_type, f.bounds_points.len()), (3, 2));
        let Control::SetEntityState(name, s, parts) = read(
            Service::SetEntityStateV2,
            json!({"entity": "box", "state": {"twist": {"linear": {"x": 0.5}}}, "set_twist": true}),
        ) else {
            panic!("not SetEntityState")
        };
        assert_eq!(name, "box");
        assert_eq!(s.linear_velocity.x, 0.5);
        assert_eq!(
            parts,
            StateParts {
                pose: false,
                twist: true,
                acceleration: false
            }
        );
    }

    #[test]
    fn a_field_a_request_lacks_or_of_the_wrong_kind_is_named() {
        let e = request_cdr(Service::Step, &json!({"step": 3})).unwrap_err();
        assert!(
            e.contains("no field `step`") && e.contains("`steps`"),
            "{e}"
        );
        let e = request_cdr(Service::Step, &json!({"steps": -1})).unwrap_err();
        assert!(e.contains("`steps` must be a whole number"), "{e}");
        let e = request_cdr(Service::Reset, &json!({"scope": 256})).unwrap_err();
        assert!(e.contains("0 to 255"), "{e}");
        let e = request_cdr(Service::SetEntityState, &json!({"set_pose": true})).unwrap_err();
        assert!(e.contains("`set_pose`"), "1.x has no parts: {e}");
        let e = request_cdr(
            Service::Spawn,
            &json!({"initial_pose": {"pose": {"orientation": {"w": 0.0}}}}),
        )
        .unwrap_err();
        assert!(e.contains("not a rotation"), "{e}");
        assert!(request_cdr(Service::Delete, &json!([1])).is_err());
    }

    #[test]
    fn replies_read_back_what_the_server_writes() {
        let mut r = Reply::error(state::PAUSED, result::NOT_FOUND, "no `x`");
        r.entities = vec!["a".into(), "b".into()];
        r.entity_name = "box_1".into();
        r.entity_state.pose.position.x = 3.0;
        r.features = vec![0, 31];
        let v = reply_json(Service::GetState, &r.encode(Service::GetState)).unwrap();
        assert_eq!(v["state"]["state"], 2);
        assert_eq!(result_of(&v), Some((2, "no `x`")));
        let v = reply_json(Service::Entities, &r.encode(Service::Entities)).unwrap();
        assert_eq!(v["entities"], json!(["a", "b"]));
        let v = reply_json(Service::Spawn, &r.encode(Service::Spawn)).unwrap();
        assert_eq!(v["entity_name"], "box_1");
        let v = reply_json(Service::GetEntityState, &r.encode(Service::GetEntityState)).unwrap();
        assert_eq!(v["state"]["pose"]["position"]["x"], 3.0);
        let v = reply_json(Service::Features, &r.encode(Service::Features)).unwrap();
        assert_eq!(v["features"]["features"], json!([0, 31]));
        assert_eq!(v["features"]["spawn_formats"], json!(["sdf"]));
        assert!(
            reply_json(Service::GetState, &[0, 1, 0, 0]).is_err(),
            "cut short"
        );
    }
}
