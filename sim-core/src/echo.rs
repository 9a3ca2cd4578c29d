//! Messages as JSON, for `simcore run --echo`.
//!
//! One object per message: `topic`, `type`, `header` (`stamp` {`sec`, `nsec`}, `frame_id`,
//! `seq`) and the message's fields. JSON has no infinities or NaN, so non-finite numbers are
//! written as the strings `"inf"`, `"-inf"` and `"nan"`.

use serde_json::{Map, Value, json};
use sim_plugin_api::{Message, Payload, Pose, Quat, Twist, Vec3};

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

fn nums(xs: &[f64]) -> Value {
    Value::Array(xs.iter().map(|x| num(*x)).collect())
}

fn vec3(v: Vec3) -> Value {
    json!({"x": num(v.x), "y": num(v.y), "z": num(v.z)})
}

fn quat(q: Quat) -> Value {
    json!({"x": num(q.x), "y": num(q.y), "z": num(q.z), "w": num(q.w)})
}

fn pose(p: Pose) -> Value {
    json!({"position": vec3(p.position), "orientation": quat(p.orientation)})
}

fn twist(t: Twist) -> Value {
    json!({"linear": vec3(t.linear), "angular": vec3(t.angular)})
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

fn payload_json(p: &Payload) -> Value {
    match p {
        Payload::Empty => json!({}),
        Payload::Boolean(b) => json!({"data": b}),
        Payload::Double(d) => json!({"data": num(*d)}),
        Payload::Int64(i) => json!({"data": i}),
        Payload::Text(s) => json!({"data": s.as_str()}),
        Payload::Vector3(v) => vec3(*v),
        Payload::Twist(t) => twist(*t),
        Payload::Pose(p) => json!({"name": p.name.as_str(), "pose": pose(p.pose)}),
        Payload::PoseList(v) => {
            json!({"pose": v.iter().map(|p| json!({"name": p.name.as_str(), "pose": pose(p.pose)})).collect::<Vec<_>>()})
        }
        Payload::Imu(i) => {
            let mut o = json!({
                "entity_name": i.entity_name.as_str(),
                "angular_velocity": vec3(i.angular_velocity),
                "angular_velocity_covariance": nums(&i.angular_velocity_covariance),
                "linear_acceleration": vec3(i.linear_acceleration),
                "linear_acceleration_covariance": nums(&i.linear_acceleration_covariance),
            });
            if i.has_orientation {
                o["orientation"] = quat(i.orientation);
                o["orientation_covariance"] = nums(&i.orientation_covariance);
            }
            o
        }
        Payload::LaserScan(s) => json!({
            "frame": s.frame.as_str(), "world_pose": pose(s.world_pose),
            "angle_min": num(s.angle_min), "angle_max": num(s.angle_max), "angle_step": num(s.angle_step),
            "range_min": num(s.range_min), "range_max": num(s.range_max), "count": s.count,
            "vertical_angle_min": num(s.vertical_angle_min), "vertical_angle_max": num(s.vertical_angle_max),
            "vertical_angle_step": num(s.vertical_angle_step), "vertical_count": s.vertical_count,
            "ranges": nums(&s.ranges), "intensities": nums(&s.intensities),
        }),
        Payload::PointCloud(c) => json!({
            "width": c.width, "height": c.height,
            "fields": c.fields.iter().map(|f| json!({"name": f.name.as_str(), "offset": f.offset, "datatype": f.datatype.0, "count": f.count})).collect::<Vec<_>>(),
            "is_bigendian": c.is_bigendian, "point_step": c.point_step, "row_step": c.row_step,
            "data_bytes": c.data.len(), "is_dense": c.is_dense,
        }),
        Payload::Image(i) => json!({
            "width": i.width, "height": i.height, "step": i.step,
            "pixel_format_type": i.pixel_format.0, "data_bytes": i.data.len(),
        }),
        Payload::CameraInfo(c) => json!({
            "width": c.width, "height": c.height, "distortion_model": c.distortion_model.as_str(),
            "distortion": nums(&c.distortion), "intrinsics": nums(&c.intrinsics),
            "rectification": nums(&c.rectification), "projection": nums(&c.projection),
        }),
        Payload::NavSat(n) => json!({
            "latitude_deg": num(n.latitude_deg), "longitude_deg": num(n.longitude_deg), "altitude": num(n.altitude),
            "velocity_east": num(n.velocity_east), "velocity_north": num(n.velocity_north), "velocity_up": num(n.velocity_up),
            "frame_id": n.frame_id.as_str(),
        }),
        Payload::LogicalCameraImage(l) => json!({
            "pose": pose(l.pose),
            "model": l.models.iter().map(|m| json!({"name": m.name.as_str(), "pose": pose(m.pose)})).collect::<Vec<_>>(),
        }),
        Payload::LogicalCameraFrustum(f) => json!({
            "near_clip": num(f.near_clip), "far_clip": num(f.far_clip),
            "horizontal_fov": num(f.horizontal_fov), "aspect_ratio": num(f.aspect_ratio),
        }),
        Payload::Altimeter(a) => json!({
            "vertical_position": num(a.vertical_position), "vertical_velocity": num(a.vertical_velocity),
            "vertical_reference": num(a.vertical_reference),
        }),
        Payload::Magnetometer(f) => json!({"field_tesla": vec3(*f)}),
        Payload::FluidPressure { pressure, variance } => {
            json!({"pressure": num(*pressure), "variance": num(*variance)})
        }
        Payload::Odometry(o) => json!({"pose": pose(o.pose), "twist": twist(o.twist)}),
        Payload::BatteryState(b) => json!({
            "voltage": num(b.voltage), "current": num(b.current), "charge": num(b.charge),
            "capacity": num(b.capacity), "percentage": num(b.percentage), "power_supply_status": b.power_supply_status,
        }),
        Payload::EntityFactory(e) => json!({
            "sdf": e.sdf.as_str(), "sdf_filename": e.sdf_filename.as_str(), "name": e.name.as_str(),
            "pose": pose(e.pose), "relative_to": e.relative_to.as_str(), "allow_renaming": e.allow_renaming,
        }),
        Payload::SensorMetrics(m) => json!({
            "name": m.name.as_str(), "real_update_rate": num(m.real_update_rate),
            "sim_update_rate": num(m.sim_update_rate), "nominal_update_rate": num(m.nominal_update_rate),
        }),
        Payload::Custom(c) => {
            let data = if c.encoding.as_str() == "json" {
                serde_json::from_slice(&c.data).unwrap_or_else(|_| json!(hex(&c.data)))
            } else {
                json!(hex(&c.data))
            };
            json!({"schema": c.schema.as_str(), "encoding": c.encoding.as_str(), "data": data})
        }
        _ => json!({"note": "a message type this engine version cannot print"}),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{SimTime, abi_stable::std_types::RBox};

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
}
