//! `simcore_msgs` (the package under `ros/simcore_msgs`): `Altimeter`, `LogicalCameraImage`,
//! `LogicalCameraSensor`, `Fiducials`, `Contacts`, `PerformanceSensorMetrics` and
//! `EntityFactory`, each the type of the same name; and `Custom`, which has no ROS form.

use crate::catalog as t;
use crate::json::values::{self as json, field, num, pose_from, text};
use crate::kinds::entry::{JsonReader, Kind, Reader};
use crate::read::{self as de, bare, stamped};
use crate::write::{self as en, cdr};
use crate::{CdrReader, DecodeError};
use serde_json::{Value, json};
use sim_plugin_api::abi_stable::std_types::{RBox, RVec};
use sim_plugin_api::{
    Altimeter, ContactPoint, CustomMessage, EntityFactory, EntityId, Fiducial,
    LogicalCameraFrustum, LogicalCameraImage, NamedPose, Payload, SensorMetrics,
};

/// `simcore_msgs/msg/Altimeter`.
pub(crate) const ALTIMETER: Kind = Kind {
    name: "Altimeter",
    ros: &[&t::ALTIMETER],
    read_from: Some(&t::ALTIMETER),
    reads: &[Reader {
        ty: &t::ALTIMETER,
        read: |r| {
            stamped(r, |r, _| {
                Ok(Payload::Altimeter(RBox::new(Altimeter {
                    vertical_position: r.f64("vertical_position")?,
                    vertical_velocity: r.f64("vertical_velocity")?,
                    vertical_reference: r.f64("vertical_reference")?,
                })))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::Altimeter(m) => cdr(out, &t::ALTIMETER, |w| {
            en::header(w, h);
            w.f64(m.vertical_position);
            w.f64(m.vertical_velocity);
            w.f64(m.vertical_reference);
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::Altimeter(a) => Some(json!({
            "vertical_position": num(a.vertical_position), "vertical_velocity": num(a.vertical_velocity),
            "vertical_reference": num(a.vertical_reference),
        })),
        _ => None,
    },
    from_json: None,
};

/// `simcore_msgs/msg/LogicalCameraImage`.
pub(crate) const LOGICAL_CAMERA_IMAGE: Kind = Kind {
    name: "LogicalCameraImage",
    ros: &[&t::LOGICAL_CAMERA_IMAGE],
    read_from: Some(&t::LOGICAL_CAMERA_IMAGE),
    reads: &[Reader {
        ty: &t::LOGICAL_CAMERA_IMAGE,
        read: |r| {
            stamped(r, |r, _| {
                let pose = de::pose(r)?;
                // name (4) + pose (56)
                let n = r.sequence_len(60, "models")?;
                let models = (0..n)
                    .map(|_| read_named_pose(r))
                    .collect::<Result<_, _>>()?;
                Ok(Payload::LogicalCameraImage(RBox::new(LogicalCameraImage {
                    pose,
                    models,
                })))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::LogicalCameraImage(m) => cdr(out, &t::LOGICAL_CAMERA_IMAGE, |w| {
            en::header(w, h);
            en::pose(w, &m.pose);
            w.sequence_len(m.models.len());
            for model in &m.models {
                w.string(model.name.as_str());
                en::pose(w, &model.pose);
            }
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::LogicalCameraImage(l) => Some(json!({
            "pose": json::pose(l.pose),
            "model": l.models.iter().map(json::named_pose).collect::<Vec<_>>(),
        })),
        _ => None,
    },
    from_json: None,
};

/// `simcore_msgs/msg/LogicalCameraFrustum` (the payload `LogicalCameraFrustum`).
pub(crate) const LOGICAL_CAMERA_SENSOR: Kind = Kind {
    name: "LogicalCameraSensor",
    ros: &[&t::LOGICAL_CAMERA_FRUSTUM],
    read_from: Some(&t::LOGICAL_CAMERA_FRUSTUM),
    reads: &[Reader {
        ty: &t::LOGICAL_CAMERA_FRUSTUM,
        read: |r| {
            stamped(r, |r, _| {
                Ok(Payload::LogicalCameraFrustum(RBox::new(
                    LogicalCameraFrustum {
                        near_clip: r.f64("near_clip")?,
                        far_clip: r.f64("far_clip")?,
                        horizontal_fov: r.f64("horizontal_fov")?,
                        aspect_ratio: r.f64("aspect_ratio")?,
                    },
                )))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::LogicalCameraFrustum(m) => cdr(out, &t::LOGICAL_CAMERA_FRUSTUM, |w| {
            en::header(w, h);
            w.f64(m.near_clip);
            w.f64(m.far_clip);
            w.f64(m.horizontal_fov);
            w.f64(m.aspect_ratio);
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::LogicalCameraFrustum(f) => Some(json!({
            "near_clip": num(f.near_clip), "far_clip": num(f.far_clip),
            "horizontal_fov": num(f.horizontal_fov), "aspect_ratio": num(f.aspect_ratio),
        })),
        _ => None,
    },
    from_json: None,
};

/// `simcore_msgs/msg/FiducialArray`.
pub(crate) const FIDUCIALS: Kind = Kind {
    name: "Fiducials",
    ros: &[&t::FIDUCIAL_ARRAY],
    read_from: Some(&t::FIDUCIAL_ARRAY),
    reads: &[Reader {
        ty: &t::FIDUCIAL_ARRAY,
        read: |r| {
            stamped(r, |r, _| {
                // id (8) + name (4) + 3 floats (24) + pose (56)
                let n = r.sequence_len(92, "fiducials")?;
                let mut v = RVec::with_capacity(n);
                for _ in 0..n {
                    v.push(Fiducial {
                        id: r.read("fiducials.id")?,
                        name: r.string("fiducials.name")?.into(),
                        range: r.f64("fiducials.range")?,
                        bearing: r.f64("fiducials.bearing")?,
                        elevation: r.f64("fiducials.elevation")?,
                        pose: de::pose(r)?,
                    });
                }
                Ok(Payload::Fiducials(RBox::new(v)))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::Fiducials(v) => cdr(out, &t::FIDUCIAL_ARRAY, |w| {
            en::header(w, h);
            w.sequence_len(v.len());
            for f in v.iter() {
                w.i64(f.id);
                w.string(f.name.as_str());
                w.f64(f.range);
                w.f64(f.bearing);
                w.f64(f.elevation);
                en::pose(w, &f.pose);
            }
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::Fiducials(f) => Some(json!({"fiducial": f.iter().map(|f| json!({
            "id": f.id, "name": f.name.as_str(), "range": num(f.range),
            "bearing": num(f.bearing), "elevation": num(f.elevation), "pose": json::pose(f.pose),
        })).collect::<Vec<_>>()})),
        _ => None,
    },
    from_json: None,
};

/// `simcore_msgs/msg/Contacts`.
pub(crate) const CONTACTS: Kind = Kind {
    name: "Contacts",
    ros: &[&t::CONTACTS],
    read_from: Some(&t::CONTACTS),
    reads: &[Reader {
        ty: &t::CONTACTS,
        read: |r| {
            stamped(r, |r, _| {
                // 2 ids (16) + 3 vectors (72) + depth (8)
                let n = r.sequence_len(96, "contacts")?;
                let mut v = RVec::with_capacity(n);
                for _ in 0..n {
                    v.push(ContactPoint {
                        collision1: EntityId(r.read("contacts.collision1")?),
                        collision2: EntityId(r.read("contacts.collision2")?),
                        position: de::vector3(r, "contacts.position")?,
                        normal: de::vector3(r, "contacts.normal")?,
                        depth: r.f64("contacts.depth")?,
                        force: de::vector3(r, "contacts.force")?,
                    });
                }
                Ok(Payload::Contacts(RBox::new(v)))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::Contacts(v) => cdr(out, &t::CONTACTS, |w| {
            en::header(w, h);
            w.sequence_len(v.len());
            for c in v.iter() {
                w.u64(c.collision1.0);
                w.u64(c.collision2.0);
                en::vector3(w, &c.position);
                en::vector3(w, &c.normal);
                w.f64(c.depth);
                en::vector3(w, &c.force);
            }
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::Contacts(c) => Some(json!({"contact": c.iter().map(|c| json!({
            "collision1": c.collision1.0, "collision2": c.collision2.0,
            "position": json::vec3(c.position), "normal": json::vec3(c.normal),
            "depth": num(c.depth), "force": json::vec3(c.force),
        })).collect::<Vec<_>>()})),
        _ => None,
    },
    from_json: None,
};

/// `simcore_msgs/msg/SensorMetrics` (the payload `SensorMetrics`).
pub(crate) const PERFORMANCE_SENSOR_METRICS: Kind = Kind {
    name: "PerformanceSensorMetrics",
    ros: &[&t::SENSOR_METRICS],
    read_from: Some(&t::SENSOR_METRICS),
    reads: &[Reader {
        ty: &t::SENSOR_METRICS,
        read: |r| {
            stamped(r, |r, _| {
                Ok(Payload::SensorMetrics(RBox::new(SensorMetrics {
                    name: r.string("name")?.into(),
                    real_update_rate: r.f64("real_update_rate")?,
                    sim_update_rate: r.f64("sim_update_rate")?,
                    nominal_update_rate: r.f64("nominal_update_rate")?,
                })))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::SensorMetrics(m) => cdr(out, &t::SENSOR_METRICS, |w| {
            en::header(w, h);
            w.string(m.name.as_str());
            w.f64(m.real_update_rate);
            w.f64(m.sim_update_rate);
            w.f64(m.nominal_update_rate);
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::SensorMetrics(m) => Some(json!({
            "name": m.name.as_str(), "real_update_rate": num(m.real_update_rate),
            "sim_update_rate": num(m.sim_update_rate), "nominal_update_rate": num(m.nominal_update_rate),
        })),
        _ => None,
    },
    from_json: None,
};

/// `simcore_msgs/msg/EntityFactory` (no header), written and read from JSON.
pub(crate) const ENTITY_FACTORY: Kind = Kind {
    name: "EntityFactory",
    ros: &[&t::ENTITY_FACTORY],
    read_from: Some(&t::ENTITY_FACTORY),
    reads: &[Reader {
        ty: &t::ENTITY_FACTORY,
        read: |r| {
            bare(Payload::EntityFactory(RBox::new(EntityFactory {
                sdf: r.string("sdf")?.into(),
                sdf_filename: r.string("sdf_filename")?.into(),
                name: r.string("name")?.into(),
                pose: de::pose(r)?,
                relative_to: r.string("relative_to")?.into(),
                allow_renaming: r.bool("allow_renaming")?,
            })))
        },
    }],
    encode: |p, _, _, out| match p {
        Payload::EntityFactory(m) => cdr(out, &t::ENTITY_FACTORY, |w| {
            w.string(m.sdf.as_str());
            w.string(m.sdf_filename.as_str());
            w.string(m.name.as_str());
            en::pose(w, &m.pose);
            w.string(m.relative_to.as_str());
            w.bool(m.allow_renaming);
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::EntityFactory(e) => Some(json!({
            "sdf": e.sdf.as_str(), "sdf_filename": e.sdf_filename.as_str(), "name": e.name.as_str(),
            "pose": json::pose(e.pose), "relative_to": e.relative_to.as_str(), "allow_renaming": e.allow_renaming,
        })),
        _ => None,
    },
    from_json: Some(JsonReader {
        fields: &[
            "sdf",
            "sdf_filename",
            "name",
            "pose",
            "relative_to",
            "allow_renaming",
        ],
        read: |o| {
            Ok(Payload::EntityFactory(RBox::new(EntityFactory {
                sdf: text(o, "sdf")?.into(),
                sdf_filename: text(o, "sdf_filename")?.into(),
                name: text(o, "name")?.into(),
                pose: pose_from(o.get("pose"), "pose")?,
                relative_to: text(o, "relative_to")?.into(),
                allow_renaming: field(o, "allow_renaming")
                    .map(|d| d.as_bool().ok_or("`allow_renaming` must be true or false"))
                    .transpose()?
                    .unwrap_or(false),
            })))
        },
    }),
};

/// A plugin's own message: no ROS form; in JSON its `schema`, `encoding` and `data` (JSON
/// data as itself, other data as hex), written from JSON as `schema` and `data` (any JSON,
/// sent with encoding `json`).
pub(crate) const CUSTOM: Kind = Kind {
    name: "Custom",
    ros: &[],
    read_from: None,
    reads: &[],
    encode: |_, _, _, _| None,
    json: |p| match p {
        Payload::Custom(c) => {
            let data = if c.encoding.as_str() == "json" {
                serde_json::from_slice(&c.data).unwrap_or_else(|_| json!(hex(&c.data)))
            } else {
                json!(hex(&c.data))
            };
            Some(
                json!({"schema": c.schema.as_str(), "encoding": c.encoding.as_str(), "data": data}),
            )
        }
        _ => None,
    },
    from_json: Some(JsonReader {
        fields: &["schema", "data"],
        read: |o| {
            Ok(Payload::Custom(RBox::new(CustomMessage {
                schema: text(o, "schema")?.into(),
                encoding: "json".into(),
                data: serde_json::to_vec(o.get("data").unwrap_or(&Value::Null))
                    .unwrap_or_default()
                    .into(),
            })))
        },
    }),
};

fn read_named_pose(r: &mut CdrReader<'_>) -> Result<NamedPose, DecodeError> {
    Ok(NamedPose {
        name: r.string("name")?.into(),
        pose: de::pose(r)?,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
