//! CDR to payload: what ROS 2 clients send in, and every type [`encode`](fn@crate::encode)
//! writes (the table is [`decode`]'s).

use super::cdr::{CdrReader, DecodeError};
use super::encode::ENCODINGS;
use sim_plugin_api::abi_stable::std_types::{RBox, RVec};
use sim_plugin_api::{
    Altimeter, BatteryState, CameraInfo, ContactPoint, EntityFactory, EntityId, Fiducial, Header,
    Image, Imu, LaserScan, LogicalCameraFrustum, LogicalCameraImage, Message, NamedPose, NavSat,
    Odometry, Payload, Payload_NE, PointCloudPacked, PointField, PointFieldType, Pose, Quat,
    SensorMetrics, SimTime, Twist, Vec3, Wrench,
};

/// Decodes the CDR bytes (encapsulation header included) of a message of ROS 2 type
/// `type_name` into a payload.
///
/// | ROS 2 type | payload |
/// |---|---|
/// | `std_msgs/msg/Empty`, `Bool`, `Float64`, `Int64`, `String` | `Empty`, `Boolean`, `Double`, `Int64`, `Text` |
/// | `geometry_msgs/msg/Vector3Stamped` | `Vector3` |
/// | `geometry_msgs/msg/Twist`, `TwistStamped` | `Twist` |
/// | `geometry_msgs/msg/PoseStamped` | `Pose` with an empty name |
/// | `geometry_msgs/msg/TransformStamped` | `Pose` named by `child_frame_id` |
/// | `geometry_msgs/msg/WrenchStamped` | `Wrench` |
/// | `tf2_msgs/msg/TFMessage` | `PoseList` named by `child_frame_id` (per-transform headers dropped) |
/// | `sensor_msgs/msg/Imu` | `Imu` (`has_orientation` unless `orientation_covariance[0]` is -1) |
/// | `sensor_msgs/msg/LaserScan` | `LaserScan` of one row, `frame` = the header's frame |
/// | `sensor_msgs/msg/PointCloud2` | `PointCloud` |
/// | `sensor_msgs/msg/Image` | `Image` (the encodings [`encode`](fn@crate::encode) writes) |
/// | `sensor_msgs/msg/CameraInfo` | `CameraInfo` (binning and ROI dropped) |
/// | `sensor_msgs/msg/NavSatFix` | `NavSat` (no velocity; status and covariance dropped) |
/// | `sensor_msgs/msg/MagneticField`, `FluidPressure`, `BatteryState` | `Magnetometer`, `FluidPressure`, `BatteryState` |
/// | `nav_msgs/msg/Odometry` | `Odometry` (covariances and `child_frame_id` dropped) |
/// | `simcore_msgs/msg/*` | the payload of the same name |
///
/// A type name is `pkg/msg/Type`, `pkg/Type` or the DDS name `pkg::msg::dds_::Type_`. Both
/// byte orders are read. Poses must hold a rotation (a quaternion of finite, non-zero norm;
/// one not of unit norm is normalised); other values are taken as they are, infinities and
/// NaN included.
pub fn decode(type_name: &str, bytes: &[u8]) -> Result<Payload, DecodeError> {
    decode_parts(type_name, bytes).map(|(_, p)| p)
}

/// As [`decode`], into a message whose header holds the stamp and frame of the ROS
/// message's `header` (zero and empty for types without one); the topic is empty.
pub fn decode_message(type_name: &str, bytes: &[u8]) -> Result<Message, DecodeError> {
    let (header, payload) = decode_parts(type_name, bytes)?;
    Ok(Message {
        topic: Default::default(),
        header,
        payload: Payload_NE::new(payload),
    })
}

fn decode_parts(type_name: &str, bytes: &[u8]) -> Result<(Header, Payload), DecodeError> {
    let unknown = || DecodeError::UnknownType(type_name.to_string());
    let short = short_name(type_name).ok_or_else(unknown)?;
    let mut reader = CdrReader::new(bytes)?;
    let r = &mut reader;
    let (h, p) = if let Some(read) = stamped(short) {
        let h = header(r)?;
        let p = read(r, &h)?;
        (h, p)
    } else {
        let mut h = Header::default();
        let p = match short {
            ("std_msgs", "Empty") => Payload::Empty,
            ("std_msgs", "Bool") => Payload::Boolean(r.bool("data")?),
            ("std_msgs", "Float64") => Payload::Double(r.f64("data")?),
            ("std_msgs", "Int64") => Payload::Int64(r.read("data")?),
            ("std_msgs", "String") => Payload::Text(r.string("data")?.into()),
            ("geometry_msgs", "Twist") => Payload::Twist(twist(r)?),
            ("geometry_msgs", "TransformStamped") => {
                let (th, p) = transform_stamped(r)?;
                h = th;
                Payload::Pose(RBox::new(p))
            }
            ("tf2_msgs", "TFMessage") => {
                // header (8 + 4) + child_frame_id (4) + transform (56)
                let n = r.sequence_len(72, "transforms")?;
                let mut poses = RVec::with_capacity(n);
                for i in 0..n {
                    let (th, p) = transform_stamped(r)?;
                    if i == 0 {
                        h = th;
                    }
                    poses.push(p);
                }
                Payload::PoseList(RBox::new(poses))
            }
            ("simcore_msgs", "EntityFactory") => entity_factory(r)?,
            _ => return Err(unknown()),
        };
        (h, p)
    };
    reader.finish()?;
    Ok((h, p))
}

/// Reads the fields after the `header` of a stamped type.
type Stamped = fn(&mut CdrReader<'_>, &Header) -> Result<Payload, DecodeError>;

/// The reader of a type that starts with a `std_msgs/Header`.
fn stamped(short: (&str, &str)) -> Option<Stamped> {
    Some(match short {
        ("geometry_msgs", "Vector3Stamped") => |r, _| Ok(Payload::Vector3(vector3(r, "vector")?)),
        ("geometry_msgs", "TwistStamped") => |r, _| Ok(Payload::Twist(twist(r)?)),
        ("geometry_msgs", "PoseStamped") => |r, _| {
            Ok(Payload::Pose(RBox::new(NamedPose {
                name: Default::default(),
                pose: pose(r)?,
            })))
        },
        ("geometry_msgs", "WrenchStamped") => |r, _| {
            Ok(Payload::Wrench(RBox::new(Wrench {
                force: vector3(r, "wrench.force")?,
                torque: vector3(r, "wrench.torque")?,
            })))
        },
        ("sensor_msgs", "Imu") => |r, _| Ok(Payload::Imu(RBox::new(imu(r)?))),
        ("sensor_msgs", "LaserScan") => |r, h| Ok(Payload::LaserScan(RBox::new(laser_scan(r, h)?))),
        ("sensor_msgs", "PointCloud2") => {
            |r, _| Ok(Payload::PointCloud(RBox::new(point_cloud(r)?)))
        }
        ("sensor_msgs", "Image") => |r, _| Ok(Payload::Image(RBox::new(image(r)?))),
        ("sensor_msgs", "CameraInfo") => |r, _| Ok(Payload::CameraInfo(RBox::new(camera_info(r)?))),
        ("sensor_msgs", "NavSatFix") => |r, h| Ok(Payload::NavSat(RBox::new(nav_sat(r, h)?))),
        ("sensor_msgs", "MagneticField") => |r, _| {
            let field = vector3(r, "magnetic_field")?;
            r.array::<f64, 9>("magnetic_field_covariance")?;
            Ok(Payload::Magnetometer(field))
        },
        ("sensor_msgs", "FluidPressure") => |r, _| {
            Ok(Payload::FluidPressure {
                pressure: r.f64("fluid_pressure")?,
                variance: r.f64("variance")?,
            })
        },
        ("sensor_msgs", "BatteryState") => |r, _| Ok(Payload::BatteryState(RBox::new(battery(r)?))),
        ("nav_msgs", "Odometry") => |r, _| Ok(Payload::Odometry(RBox::new(odometry(r)?))),
        ("simcore_msgs", "Altimeter") => |r, _| altimeter(r),
        ("simcore_msgs", "LogicalCameraFrustum") => |r, _| frustum(r),
        ("simcore_msgs", "LogicalCameraImage") => |r, _| logical_camera_image(r),
        ("simcore_msgs", "FiducialArray") => |r, _| fiducials(r),
        ("simcore_msgs", "Contacts") => |r, _| contacts(r),
        ("simcore_msgs", "SensorMetrics") => |r, _| sensor_metrics(r),
        _ => return None,
    })
}

/// `(package, Type)` of `pkg/msg/Type`, `pkg/Type` or `pkg::msg::dds_::Type_`.
fn short_name(name: &str) -> Option<(&str, &str)> {
    if let Some((pkg, rest)) = name.split_once("::msg::dds_::") {
        return Some((pkg, rest.strip_suffix('_')?));
    }
    let mut parts = name.split('/');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(pkg), Some("msg"), Some(t), None) | (Some(pkg), Some(t), None, None) => {
            Some((pkg, t))
        }
        _ => None,
    }
}

fn time(r: &mut CdrReader<'_>) -> Result<SimTime, DecodeError> {
    let sec: i32 = r.read("header.stamp.sec")?;
    let nsec: u32 = r.read("header.stamp.nanosec")?;
    Ok(SimTime::from_nanos(
        i64::from(sec) * 1_000_000_000 + i64::from(nsec),
    ))
}

fn header(r: &mut CdrReader<'_>) -> Result<Header, DecodeError> {
    Ok(Header {
        stamp: time(r)?,
        frame_id: r.string("header.frame_id")?.into(),
        seq: 0,
    })
}

fn vector3(r: &mut CdrReader<'_>, field: &'static str) -> Result<Vec3, DecodeError> {
    Ok(Vec3::new(r.f64(field)?, r.f64(field)?, r.f64(field)?))
}

fn quaternion(r: &mut CdrReader<'_>, field: &'static str) -> Result<Quat, DecodeError> {
    Ok(Quat::new(
        r.f64(field)?,
        r.f64(field)?,
        r.f64(field)?,
        r.f64(field)?,
    ))
}

/// A rotation: finite non-zero norm, normalised unless already of unit norm.
fn rotation(q: Quat, field: &str) -> Result<Quat, DecodeError> {
    let n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if !n2.is_normal() {
        return Err(DecodeError::Invalid(format!("`{field}` is not a rotation")));
    }
    Ok(if (n2 - 1.0).abs() > 1e-9 {
        q.normalized()
    } else {
        q
    })
}

fn pose(r: &mut CdrReader<'_>) -> Result<Pose, DecodeError> {
    let position = vector3(r, "pose.position")?;
    let orientation = rotation(quaternion(r, "pose.orientation")?, "pose.orientation")?;
    Ok(Pose::new(position, orientation))
}

fn twist(r: &mut CdrReader<'_>) -> Result<Twist, DecodeError> {
    Ok(Twist {
        linear: vector3(r, "twist.linear")?,
        angular: vector3(r, "twist.angular")?,
    })
}

fn transform_stamped(r: &mut CdrReader<'_>) -> Result<(Header, NamedPose), DecodeError> {
    let h = header(r)?;
    let name = r.string("child_frame_id")?.into();
    let position = vector3(r, "transform.translation")?;
    let orientation = rotation(quaternion(r, "transform.rotation")?, "transform.rotation")?;
    Ok((
        h,
        NamedPose {
            name,
            pose: Pose::new(position, orientation),
        },
    ))
}

fn imu(r: &mut CdrReader<'_>) -> Result<Imu, DecodeError> {
    let orientation = quaternion(r, "orientation")?;
    let orientation_covariance = r.array("orientation_covariance")?;
    let angular_velocity = vector3(r, "angular_velocity")?;
    let angular_velocity_covariance = r.array("angular_velocity_covariance")?;
    let linear_acceleration = vector3(r, "linear_acceleration")?;
    let linear_acceleration_covariance = r.array("linear_acceleration_covariance")?;
    Ok(Imu {
        entity_name: Default::default(),
        has_orientation: orientation_covariance[0] != -1.0,
        orientation,
        orientation_covariance,
        angular_velocity,
        angular_velocity_covariance,
        linear_acceleration,
        linear_acceleration_covariance,
    })
}

fn f64s(v: Vec<f32>) -> RVec<f64> {
    v.into_iter().map(f64::from).collect()
}

fn laser_scan(r: &mut CdrReader<'_>, h: &Header) -> Result<LaserScan, DecodeError> {
    let angle_min: f32 = r.read("angle_min")?;
    let angle_max: f32 = r.read("angle_max")?;
    let angle_step: f32 = r.read("angle_increment")?;
    let _time_increment: f32 = r.read("time_increment")?;
    let _scan_time: f32 = r.read("scan_time")?;
    let range_min: f32 = r.read("range_min")?;
    let range_max: f32 = r.read("range_max")?;
    let ranges = f64s(r.seq::<f32>("ranges")?);
    let intensities = f64s(r.seq::<f32>("intensities")?);
    Ok(LaserScan {
        frame: h.frame_id.clone(),
        angle_min: angle_min.into(),
        angle_max: angle_max.into(),
        angle_step: angle_step.into(),
        range_min: range_min.into(),
        range_max: range_max.into(),
        count: u32::try_from(ranges.len()).unwrap_or(u32::MAX),
        vertical_count: 1,
        ranges,
        intensities,
        ..Default::default()
    })
}

fn point_cloud(r: &mut CdrReader<'_>) -> Result<PointCloudPacked, DecodeError> {
    let height = r.read("height")?;
    let width = r.read("width")?;
    // name (4) + offset (4) + datatype (1) + count (4)
    let n = r.sequence_len(13, "fields")?;
    let mut fields = RVec::with_capacity(n);
    for _ in 0..n {
        fields.push(PointField {
            name: r.string("fields.name")?.into(),
            offset: r.read("fields.offset")?,
            datatype: PointFieldType(r.read::<u8>("fields.datatype")?.into()),
            count: r.read("fields.count")?,
        });
    }
    Ok(PointCloudPacked {
        height,
        width,
        fields,
        is_bigendian: r.bool("is_bigendian")?,
        point_step: r.read("point_step")?,
        row_step: r.read("row_step")?,
        data: r.bytes("data")?.into(),
        is_dense: r.bool("is_dense")?,
    })
}

fn image(r: &mut CdrReader<'_>) -> Result<Image, DecodeError> {
    let height = r.read("height")?;
    let width = r.read("width")?;
    let encoding = r.string("encoding")?;
    let pixel_format = ENCODINGS
        .iter()
        .find(|(_, e)| *e == encoding)
        .map(|(f, _)| *f)
        .ok_or_else(|| {
            DecodeError::Invalid(format!("image encoding `{encoding}` has no simcore form"))
        })?;
    let big_endian: u8 = r.read("is_bigendian")?;
    if big_endian != 0 && !matches!(encoding, "mono8" | "rgb8" | "rgba8" | "bgra8" | "bgr8") {
        return Err(DecodeError::Invalid(format!(
            "big-endian `{encoding}` images have no simcore form"
        )));
    }
    Ok(Image {
        height,
        width,
        step: r.read("step")?,
        pixel_format,
        data: r.bytes("data")?.into(),
    })
}

fn camera_info(r: &mut CdrReader<'_>) -> Result<CameraInfo, DecodeError> {
    let height = r.read("height")?;
    let width = r.read("width")?;
    let distortion_model = r.string("distortion_model")?.into();
    let distortion = r.seq::<f64>("d")?.into();
    let intrinsics = r.array("k")?;
    let rectification = r.array("r")?;
    let projection = r.array("p")?;
    r.array::<u32, 2>("binning")?;
    r.array::<u32, 4>("roi")?;
    r.bool("roi.do_rectify")?;
    Ok(CameraInfo {
        width,
        height,
        distortion_model,
        distortion,
        intrinsics,
        rectification,
        projection,
    })
}

fn nav_sat(r: &mut CdrReader<'_>, h: &Header) -> Result<NavSat, DecodeError> {
    let _status: i8 = r.read("status.status")?;
    let _service: u16 = r.read("status.service")?;
    let latitude_deg = r.f64("latitude")?;
    let longitude_deg = r.f64("longitude")?;
    let altitude = r.f64("altitude")?;
    r.array::<f64, 9>("position_covariance")?;
    let _covariance_type: u8 = r.read("position_covariance_type")?;
    Ok(NavSat {
        latitude_deg,
        longitude_deg,
        altitude,
        frame_id: h.frame_id.clone(),
        ..Default::default()
    })
}

fn battery(r: &mut CdrReader<'_>) -> Result<BatteryState, DecodeError> {
    let mut f = |field| r.read::<f32>(field).map(f64::from);
    let voltage = f("voltage")?;
    let _temperature = f("temperature")?;
    let current = f("current")?;
    let charge = f("charge")?;
    let capacity = f("capacity")?;
    let _design_capacity = f("design_capacity")?;
    let percentage = f("percentage")?;
    let power_supply_status = r.read::<u8>("power_supply_status")?.into();
    let _health: u8 = r.read("power_supply_health")?;
    let _technology: u8 = r.read("power_supply_technology")?;
    r.bool("present")?;
    r.seq::<f32>("cell_voltage")?;
    r.seq::<f32>("cell_temperature")?;
    r.string("location")?;
    r.string("serial_number")?;
    Ok(BatteryState {
        voltage,
        current,
        charge,
        capacity,
        percentage,
        power_supply_status,
    })
}

fn odometry(r: &mut CdrReader<'_>) -> Result<Odometry, DecodeError> {
    r.string("child_frame_id")?;
    let pose = pose(r)?;
    r.array::<f64, 36>("pose.covariance")?;
    let twist = twist(r)?;
    r.array::<f64, 36>("twist.covariance")?;
    Ok(Odometry { pose, twist })
}

fn named_pose(r: &mut CdrReader<'_>) -> Result<NamedPose, DecodeError> {
    Ok(NamedPose {
        name: r.string("name")?.into(),
        pose: pose(r)?,
    })
}

fn altimeter(r: &mut CdrReader<'_>) -> Result<Payload, DecodeError> {
    Ok(Payload::Altimeter(RBox::new(Altimeter {
        vertical_position: r.f64("vertical_position")?,
        vertical_velocity: r.f64("vertical_velocity")?,
        vertical_reference: r.f64("vertical_reference")?,
    })))
}

fn frustum(r: &mut CdrReader<'_>) -> Result<Payload, DecodeError> {
    Ok(Payload::LogicalCameraFrustum(RBox::new(
        LogicalCameraFrustum {
            near_clip: r.f64("near_clip")?,
            far_clip: r.f64("far_clip")?,
            horizontal_fov: r.f64("horizontal_fov")?,
            aspect_ratio: r.f64("aspect_ratio")?,
        },
    )))
}

fn logical_camera_image(r: &mut CdrReader<'_>) -> Result<Payload, DecodeError> {
    let pose = pose(r)?;
    // name (4) + pose (56)
    let n = r.sequence_len(60, "models")?;
    let models = (0..n).map(|_| named_pose(r)).collect::<Result<_, _>>()?;
    Ok(Payload::LogicalCameraImage(RBox::new(LogicalCameraImage {
        pose,
        models,
    })))
}

fn fiducials(r: &mut CdrReader<'_>) -> Result<Payload, DecodeError> {
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
            pose: pose(r)?,
        });
    }
    Ok(Payload::Fiducials(RBox::new(v)))
}

fn contacts(r: &mut CdrReader<'_>) -> Result<Payload, DecodeError> {
    // 2 ids (16) + 3 vectors (72) + depth (8)
    let n = r.sequence_len(96, "contacts")?;
    let mut v = RVec::with_capacity(n);
    for _ in 0..n {
        v.push(ContactPoint {
            collision1: EntityId(r.read("contacts.collision1")?),
            collision2: EntityId(r.read("contacts.collision2")?),
            position: vector3(r, "contacts.position")?,
            normal: vector3(r, "contacts.normal")?,
            depth: r.f64("contacts.depth")?,
            force: vector3(r, "contacts.force")?,
        });
    }
    Ok(Payload::Contacts(RBox::new(v)))
}

fn sensor_metrics(r: &mut CdrReader<'_>) -> Result<Payload, DecodeError> {
    Ok(Payload::SensorMetrics(RBox::new(SensorMetrics {
        name: r.string("name")?.into(),
        real_update_rate: r.f64("real_update_rate")?,
        sim_update_rate: r.f64("sim_update_rate")?,
        nominal_update_rate: r.f64("nominal_update_rate")?,
    })))
}

fn entity_factory(r: &mut CdrReader<'_>) -> Result<Payload, DecodeError> {
    Ok(Payload::EntityFactory(RBox::new(EntityFactory {
        sdf: r.string("sdf")?.into(),
        sdf_filename: r.string("sdf_filename")?.into(),
        name: r.string("name")?.into(),
        pose: pose(r)?,
        relative_to: r.string("relative_to")?.into(),
        allow_renaming: r.bool("allow_renaming")?,
    })))
}
