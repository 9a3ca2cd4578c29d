//! `geometry_msgs`, `tf2_msgs` and `nav_msgs`: `Vector3d`, `Twist`, `Pose`, `Pose_V`,
//! `Wrench` and `Odometry`.

use crate::catalog as t;
use crate::json::values::{self as json, PayloadError, number, only, pose_from, sub_vec, text};
use crate::kinds::entry::{JsonReader, Kind, Reader};
use crate::read::{self as de, bare, stamped};
use crate::write::{self as en, cdr};
use crate::{CdrReader, CdrWriter, DecodeError};
use serde_json::{Map, Value, json};
use sim_plugin_api::abi_stable::std_types::{RBox, RVec};
use sim_plugin_api::{Header, NamedPose, Odometry, Payload, Pose, Twist, Vec3, Wrench};

/// `geometry_msgs/msg/Vector3Stamped`.
pub(crate) const VECTOR3D: Kind = Kind {
    name: "Vector3d",
    ros: &[&t::VECTOR3_STAMPED],
    read_from: Some(&t::VECTOR3_STAMPED),
    reads: &[Reader {
        ty: &t::VECTOR3_STAMPED,
        read: |r| stamped(r, |r, _| Ok(Payload::Vector3(de::vector3(r, "vector")?))),
    }],
    encode: |p, h, _, out| match p {
        Payload::Vector3(v) => cdr(out, &t::VECTOR3_STAMPED, |w| {
            en::header(w, h);
            en::vector3(w, v);
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::Vector3(v) => Some(json::vec3(*v)),
        _ => None,
    },
    from_json: Some(JsonReader {
        fields: &["x", "y", "z"],
        read: |o| {
            Ok(Payload::Vector3(Vec3::new(
                number(o, "x")?,
                number(o, "y")?,
                number(o, "z")?,
            )))
        },
    }),
};

/// `geometry_msgs/msg/Twist`, also read from a `TwistStamped`.
pub(crate) const TWIST: Kind = Kind {
    name: "Twist",
    ros: &[&t::TWIST],
    read_from: Some(&t::TWIST),
    reads: &[
        Reader {
            ty: &t::TWIST,
            read: |r| bare(Payload::Twist(read_twist(r)?)),
        },
        Reader {
            ty: &t::TWIST_STAMPED,
            read: |r| stamped(r, |r, _| Ok(Payload::Twist(read_twist(r)?))),
        },
    ],
    encode: |p, _, _, out| match p {
        Payload::Twist(m) => cdr(out, &t::TWIST, |w| write_twist(w, m)),
        _ => None,
    },
    json: |p| match p {
        Payload::Twist(m) => Some(twist_json(*m)),
        _ => None,
    },
    from_json: Some(JsonReader {
        fields: &["linear", "angular"],
        read: |o| {
            Ok(Payload::Twist(Twist {
                linear: sub_vec(o, "linear")?,
                angular: sub_vec(o, "angular")?,
            }))
        },
    }),
};

/// `geometry_msgs/msg/TransformStamped`: `child_frame_id` = the pose's name, parent = the
/// header's frame (`world` when empty); read from a `PoseStamped` (with an empty name) and
/// from a `TransformStamped`.
pub(crate) const POSE: Kind = Kind {
    name: "Pose",
    ros: &[&t::TRANSFORM_STAMPED],
    read_from: Some(&t::POSE_STAMPED),
    reads: &[
        Reader {
            ty: &t::POSE_STAMPED,
            read: |r| {
                stamped(r, |r, _| {
                    Ok(Payload::Pose(RBox::new(NamedPose {
                        name: Default::default(),
                        pose: de::pose(r)?,
                    })))
                })
            },
        },
        Reader {
            ty: &t::TRANSFORM_STAMPED,
            read: |r| {
                let (h, p) = read_transform_stamped(r)?;
                Ok((h, Payload::Pose(RBox::new(p))))
            },
        },
    ],
    encode: |p, h, _, out| match p {
        Payload::Pose(p) => cdr(out, &t::TRANSFORM_STAMPED, |w| write_transform(w, h, p)),
        _ => None,
    },
    json: |p| match p {
        Payload::Pose(p) => Some(json::named_pose(p)),
        _ => None,
    },
    from_json: Some(JsonReader {
        fields: &["name", "pose"],
        read: |o| Ok(Payload::Pose(RBox::new(named_pose_from_json(o, "pose")?))),
    }),
};

/// `tf2_msgs/msg/TFMessage`: one `TransformStamped` per pose, as for `Pose` (read back with
/// the first transform's header; the others' dropped).
pub(crate) const POSE_V: Kind = Kind {
    name: "Pose_V",
    ros: &[&t::TF_MESSAGE],
    read_from: Some(&t::TF_MESSAGE),
    reads: &[Reader {
        ty: &t::TF_MESSAGE,
        read: read_tf_message,
    }],
    encode: |p, h, _, out| match p {
        Payload::PoseList(v) => cdr(out, &t::TF_MESSAGE, |w| {
            w.sequence_len(v.len());
            for p in v.iter() {
                write_transform(w, h, p);
            }
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::PoseList(v) => {
            Some(json!({"pose": v.iter().map(json::named_pose).collect::<Vec<_>>()}))
        }
        _ => None,
    },
    from_json: Some(JsonReader {
        fields: &["pose"],
        read: pose_list_from_json,
    }),
};

/// `geometry_msgs/msg/WrenchStamped`.
pub(crate) const WRENCH: Kind = Kind {
    name: "Wrench",
    ros: &[&t::WRENCH_STAMPED],
    read_from: Some(&t::WRENCH_STAMPED),
    reads: &[Reader {
        ty: &t::WRENCH_STAMPED,
        read: |r| {
            stamped(r, |r, _| {
                Ok(Payload::Wrench(RBox::new(Wrench {
                    force: de::vector3(r, "wrench.force")?,
                    torque: de::vector3(r, "wrench.torque")?,
                })))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::Wrench(m) => cdr(out, &t::WRENCH_STAMPED, |w| {
            en::header(w, h);
            en::vector3(w, &m.force);
            en::vector3(w, &m.torque);
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::Wrench(w) => {
            Some(json!({"force": json::vec3(w.force), "torque": json::vec3(w.torque)}))
        }
        _ => None,
    },
    from_json: None,
};

/// `nav_msgs/msg/Odometry`: `child_frame_id` from the options, covariances 0 (unknown); read
/// back without them.
pub(crate) const ODOMETRY: Kind = Kind {
    name: "Odometry",
    ros: &[&t::ODOMETRY],
    read_from: Some(&t::ODOMETRY),
    reads: &[Reader {
        ty: &t::ODOMETRY,
        read: |r| {
            stamped(r, |r, _| {
                r.string("child_frame_id")?;
                let pose = de::pose(r)?;
                r.array::<f64, 36>("pose.covariance")?;
                let twist = read_twist(r)?;
                r.array::<f64, 36>("twist.covariance")?;
                Ok(Payload::Odometry(RBox::new(Odometry { pose, twist })))
            })
        },
    }],
    encode: |p, h, options, out| match p {
        Payload::Odometry(m) => cdr(out, &t::ODOMETRY, |w| {
            en::header(w, h);
            w.string(options.child_frame_id);
            en::pose(w, &m.pose);
            w.f64_array(&[0.0; 36]);
            write_twist(w, &m.twist);
            w.f64_array(&[0.0; 36]);
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::Odometry(o) => {
            Some(json!({"pose": json::pose(o.pose), "twist": twist_json(o.twist)}))
        }
        _ => None,
    },
    from_json: None,
};

/// `geometry_msgs/Twist`.
fn write_twist(w: &mut CdrWriter<'_>, m: &Twist) {
    en::vector3(w, &m.linear);
    en::vector3(w, &m.angular);
}

fn read_twist(r: &mut CdrReader<'_>) -> Result<Twist, DecodeError> {
    Ok(Twist {
        linear: de::vector3(r, "twist.linear")?,
        angular: de::vector3(r, "twist.angular")?,
    })
}

fn twist_json(t: Twist) -> Value {
    json!({"linear": json::vec3(t.linear), "angular": json::vec3(t.angular)})
}

/// The parent frame of a transform: the header's, `world` when it has none (world poses).
fn parent_frame(h: &Header) -> &str {
    if h.frame_id.is_empty() {
        "world"
    } else {
        h.frame_id.as_str()
    }
}

/// `geometry_msgs/TransformStamped` of pose `p` in the frame of `h`.
fn write_transform(w: &mut CdrWriter<'_>, h: &Header, p: &NamedPose) {
    en::time(w, h.stamp);
    w.string(parent_frame(h));
    w.string(p.name.as_str());
    en::pose(w, &p.pose);
}

fn read_transform_stamped(r: &mut CdrReader<'_>) -> Result<(Header, NamedPose), DecodeError> {
    let h = de::header(r)?;
    let name = r.string("child_frame_id")?.into();
    let position = de::vector3(r, "transform.translation")?;
    let orientation = de::rotation(
        de::quaternion(r, "transform.rotation")?,
        "transform.rotation",
    )?;
    Ok((
        h,
        NamedPose {
            name,
            pose: Pose::new(position, orientation),
        },
    ))
}

fn read_tf_message(r: &mut CdrReader<'_>) -> Result<(Header, Payload), DecodeError> {
    // header (8 + 4) + child_frame_id (4) + transform (56)
    let n = r.sequence_len(72, "transforms")?;
    let mut h = Header::default();
    let mut poses = RVec::with_capacity(n);
    for i in 0..n {
        let (th, p) = read_transform_stamped(r)?;
        if i == 0 {
            h = th;
        }
        poses.push(p);
    }
    Ok((h, Payload::PoseList(RBox::new(poses))))
}

/// A `{name, pose}` object; `at` names its pose in errors.
fn named_pose_from_json(o: &Map<String, Value>, at: &str) -> Result<NamedPose, PayloadError> {
    Ok(NamedPose {
        name: text(o, "name")?.into(),
        pose: pose_from(o.get("pose"), at)?,
    })
}

fn pose_list_from_json(o: &Map<String, Value>) -> Result<Payload, PayloadError> {
    let list = match o.get("pose") {
        Some(Value::Array(a)) => a,
        None => &Vec::new(),
        Some(_) => return Err("`pose` must be a list of {name, pose}".into()),
    };
    let mut poses = RVec::new();
    for (i, p) in list.iter().enumerate() {
        let po = p
            .as_object()
            .ok_or(format!("`pose[{i}]` must be an object"))?;
        let at = format!("pose[{i}]");
        only(po, &["name", "pose"], &[], &at, &format!("`{at}`"))?;
        poses.push(named_pose_from_json(po, &format!("pose[{i}].pose"))?);
    }
    Ok(Payload::PoseList(RBox::new(poses)))
}
