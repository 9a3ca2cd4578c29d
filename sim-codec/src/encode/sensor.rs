//! `sensor_msgs` forms.

use super::{EncodeOptions, header, quaternion, t, vector3};
use crate::{CdrWriter, RosType};
use sim_plugin_api::{
    BatteryState, CameraInfo, Header, Image, Imu, LaserScan, NavSat, PixelFormat, PointCloudPacked,
    PointFieldType, Vec3,
};

pub(super) fn imu(h: &Header, m: &Imu, w: &mut CdrWriter<'_>) -> &'static RosType {
    header(w, h);
    quaternion(w, &m.orientation);
    if m.has_orientation {
        w.f64_array(&m.orientation_covariance);
    } else {
        // REP-145 / sensor_msgs: element 0 is -1 when the orientation is not estimated.
        let mut c = [0.0; 9];
        c[0] = -1.0;
        w.f64_array(&c);
    }
    vector3(w, &m.angular_velocity);
    w.f64_array(&m.angular_velocity_covariance);
    vector3(w, &m.linear_acceleration);
    w.f64_array(&m.linear_acceleration_covariance);
    &t::IMU
}

pub(super) fn laser_scan(
    h: &Header,
    m: &LaserScan,
    options: &EncodeOptions<'_>,
    w: &mut CdrWriter<'_>,
) -> &'static RosType {
    header(w, h);
    w.f32(m.angle_min as f32);
    w.f32(m.angle_max as f32);
    w.f32(m.angle_step as f32);
    w.f32(0.0); // time_increment: every ray of a scan is cast at the same instant
    w.f32(options.scan_time);
    w.f32(m.range_min as f32);
    w.f32(m.range_max as f32);
    w.f32_seq(m.ranges.iter().map(|&r| r as f32));
    w.f32_seq(m.intensities.iter().map(|&r| r as f32));
    &t::LASER_SCAN
}

/// `fields` of a `PointCloud2`: `(name, offset, datatype, count)`.
fn fields<'a>(w: &mut CdrWriter<'_>, f: impl ExactSizeIterator<Item = (&'a str, u32, u32, u32)>) {
    w.sequence_len(f.len());
    for (name, offset, datatype, count) in f {
        w.string(name);
        w.u32(offset);
        w.u8(u8::try_from(datatype).unwrap_or(0));
        w.u32(count);
    }
}

/// Bytes per point of [`scan_points`]: `x, y, z, intensity` (float32) and `ring` (uint16),
/// packed as the lidar plugin packs its `points`.
const SCAN_POINT_STEP: usize = 18;

/// A scan of several rows as the points gz's gpu_lidar publishes on `/points` (and the lidar
/// plugin on `points`): `x`, `y`, `z`, `intensity` as `float32` in the sensor frame and
/// `ring` (the row) as `uint16`, a row per vertical angle. A scan whose ranges do not fill
/// `count` x `vertical_count` is written as one row of its ranges.
pub(super) fn scan_points(h: &Header, m: &LaserScan, w: &mut CdrWriter<'_>) -> &'static RosType {
    let n = m.ranges.len();
    let count = (m.count as usize).max(1);
    let (height, width) = if count * m.vertical_count as usize == n {
        (m.vertical_count as usize, count)
    } else {
        (1, n)
    };
    header(w, h);
    w.u32(cdr_u32(height));
    w.u32(cdr_u32(width));
    let (float32, uint16) = (PointFieldType::FLOAT32.0, PointFieldType::UINT16.0);
    fields(
        w,
        [
            ("x", 0, float32, 1),
            ("y", 4, float32, 1),
            ("z", 8, float32, 1),
            ("intensity", 12, float32, 1),
            ("ring", 16, uint16, 1),
        ]
        .into_iter(),
    );
    w.bool(false);
    w.u32(cdr_u32(SCAN_POINT_STEP));
    w.u32(cdr_u32(SCAN_POINT_STEP * width));
    w.sequence_len(SCAN_POINT_STEP * n);
    for (k, &r) in m.ranges.iter().enumerate() {
        let (row, col) = if height == 1 {
            (0, k)
        } else {
            (k / count, k % count)
        };
        let v = m.vertical_angle_min + row as f64 * m.vertical_angle_step;
        let a = m.angle_min + col as f64 * m.angle_step;
        let intensity = m.intensities.get(k).copied().unwrap_or(0.0);
        for x in [
            r * v.cos() * a.cos(),
            r * v.cos() * a.sin(),
            r * v.sin(),
            intensity,
        ] {
            // Unaligned inside `data`: the bytes, not `w.f32`.
            w.raw(&(x as f32).to_le_bytes());
        }
        w.raw(&u16::try_from(row).unwrap_or(u16::MAX).to_le_bytes());
    }
    w.bool(m.ranges.iter().all(|r| r.is_finite()));
    &t::POINT_CLOUD2
}

pub(super) fn point_cloud(
    h: &Header,
    m: &PointCloudPacked,
    w: &mut CdrWriter<'_>,
) -> &'static RosType {
    header(w, h);
    w.u32(m.height);
    w.u32(m.width);
    fields(
        w,
        m.fields
            .iter()
            .map(|f| (f.name.as_str(), f.offset, f.datatype.0, f.count)),
    );
    w.bool(m.is_bigendian);
    w.u32(m.point_step);
    w.u32(m.row_step);
    w.bytes(&m.data);
    w.bool(m.is_dense);
    &t::POINT_CLOUD2
}

/// The ROS `encoding` of each pixel format with one.
pub(crate) const ENCODINGS: [(PixelFormat, &str); 8] = [
    (PixelFormat::L_INT8, "mono8"),
    (PixelFormat::L_INT16, "mono16"),
    (PixelFormat::RGB_INT8, "rgb8"),
    (PixelFormat::RGBA_INT8, "rgba8"),
    (PixelFormat::BGRA_INT8, "bgra8"),
    (PixelFormat::BGR_INT8, "bgr8"),
    (PixelFormat::R_FLOAT32, "32FC1"),
    (PixelFormat::RGB_FLOAT32, "32FC3"),
];

/// The ROS `encoding` of `f`, if it has one.
pub(super) fn encoding(f: PixelFormat) -> Option<&'static str> {
    ENCODINGS.iter().find(|(p, _)| *p == f).map(|(_, e)| *e)
}

pub(super) fn image(
    h: &Header,
    m: &Image,
    encoding: &str,
    w: &mut CdrWriter<'_>,
) -> &'static RosType {
    header(w, h);
    w.u32(m.height);
    w.u32(m.width);
    w.string(encoding);
    w.u8(0); // is_bigendian: simcore's multi-byte pixels are little-endian
    w.u32(m.step);
    w.bytes(&m.data);
    &t::IMAGE
}

pub(super) fn camera_info(h: &Header, m: &CameraInfo, w: &mut CdrWriter<'_>) -> &'static RosType {
    header(w, h);
    w.u32(m.height);
    w.u32(m.width);
    w.string(m.distortion_model.as_str());
    w.f64_seq(&m.distortion);
    w.f64_array(&m.intrinsics);
    w.f64_array(&m.rectification);
    w.f64_array(&m.projection);
    w.u32(0); // binning_x
    w.u32(0); // binning_y
    for _ in 0..4 {
        w.u32(0); // roi: x_offset, y_offset, height, width (0: the full image)
    }
    w.bool(false); // roi.do_rectify
    &t::CAMERA_INFO
}

pub(super) fn nav_sat_fix(h: &Header, m: &NavSat, w: &mut CdrWriter<'_>) -> &'static RosType {
    if h.frame_id.is_empty() {
        header(
            w,
            &Header {
                frame_id: m.frame_id.clone(),
                ..h.clone()
            },
        );
    } else {
        header(w, h);
    }
    w.i8(0); // status.status: STATUS_FIX
    w.u16(1); // status.service: SERVICE_GPS
    w.f64(m.latitude_deg);
    w.f64(m.longitude_deg);
    w.f64(m.altitude);
    w.f64_array(&[0.0; 9]);
    w.u8(0); // position_covariance_type: COVARIANCE_TYPE_UNKNOWN
    &t::NAV_SAT_FIX
}

pub(super) fn magnetic_field(h: &Header, v: &Vec3, w: &mut CdrWriter<'_>) -> &'static RosType {
    header(w, h);
    vector3(w, v);
    w.f64_array(&[0.0; 9]); // 0: covariance unknown
    &t::MAGNETIC_FIELD
}

pub(super) fn fluid_pressure(
    h: &Header,
    pressure: f64,
    variance: f64,
    w: &mut CdrWriter<'_>,
) -> &'static RosType {
    header(w, h);
    w.f64(pressure);
    w.f64(variance);
    &t::FLUID_PRESSURE
}

pub(super) fn battery_state(
    h: &Header,
    m: &BatteryState,
    w: &mut CdrWriter<'_>,
) -> &'static RosType {
    header(w, h);
    w.f32(m.voltage as f32);
    w.f32(f32::NAN); // temperature: not measured
    w.f32(m.current as f32);
    w.f32(m.charge as f32);
    w.f32(m.capacity as f32);
    w.f32(m.capacity as f32); // design_capacity
    w.f32(m.percentage as f32);
    // The payload's status values are ROS's POWER_SUPPLY_STATUS_* (0 to 4).
    w.u8(u8::try_from(m.power_supply_status).map_or(0, |s| if s <= 4 { s } else { 0 }));
    w.u8(0); // power_supply_health: UNKNOWN
    w.u8(0); // power_supply_technology: UNKNOWN
    w.bool(true); // present
    w.sequence_len(0); // cell_voltage
    w.sequence_len(0); // cell_temperature
    w.string(""); // location
    w.string(""); // serial_number
    &t::BATTERY_STATE
}

fn cdr_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
