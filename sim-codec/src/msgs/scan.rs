//! Ranges and points: `LaserScan` (`sensor_msgs/LaserScan`, or `PointCloud2` for several
//! rows) and `PointCloudPacked` (`sensor_msgs/PointCloud2`).

use crate::catalog as t;
use crate::json::values::{self as json, datatype_name, num, nums};
use crate::kinds::entry::{Kind, Reader};
use crate::options::EncodeOptions;
use crate::read::stamped;
use crate::write::{cdr, header};
use crate::{CdrReader, CdrWriter, DecodeError};
use serde_json::json;
use sim_plugin_api::abi_stable::std_types::{RBox, RVec};
use sim_plugin_api::{Header, LaserScan, Payload, PointCloudPacked, PointField, PointFieldType};

/// `sensor_msgs/msg/LaserScan` for one row: `float32` fields, `time_increment` 0 (all rays at
/// once), `scan_time` from the options; read back as a scan of one row, `frame` = the header's
/// frame. Several rows: `sensor_msgs/msg/PointCloud2` (`write_scan_points`).
pub(crate) const LASER_SCAN: Kind = Kind {
    name: "LaserScan",
    ros: &[&t::LASER_SCAN, &t::POINT_CLOUD2],
    read_from: Some(&t::LASER_SCAN),
    reads: &[Reader {
        ty: &t::LASER_SCAN,
        read: |r| {
            stamped(r, |r, h| {
                Ok(Payload::LaserScan(RBox::new(read_scan(r, h)?)))
            })
        },
    }],
    encode: |p, h, options, out| match p {
        Payload::LaserScan(m) if m.vertical_count <= 1 => {
            cdr(out, &t::LASER_SCAN, |w| write_scan(w, h, m, options))
        }
        Payload::LaserScan(m) => cdr(out, &t::POINT_CLOUD2, |w| write_scan_points(w, h, m)),
        _ => None,
    },
    json: |p| match p {
        Payload::LaserScan(s) => Some(json!({
            "frame": s.frame.as_str(), "world_pose": json::pose(s.world_pose),
            "angle_min": num(s.angle_min), "angle_max": num(s.angle_max), "angle_step": num(s.angle_step),
            "range_min": num(s.range_min), "range_max": num(s.range_max), "count": s.count,
            "vertical_angle_min": num(s.vertical_angle_min), "vertical_angle_max": num(s.vertical_angle_max),
            "vertical_angle_step": num(s.vertical_angle_step), "vertical_count": s.vertical_count,
            "ranges": nums(&s.ranges), "intensities": nums(&s.intensities),
        })),
        _ => None,
    },
    from_json: None,
};

/// `sensor_msgs/msg/PointCloud2` (the same layout; datatypes 1 to 8 are ROS's).
pub(crate) const POINT_CLOUD_PACKED: Kind = Kind {
    name: "PointCloudPacked",
    ros: &[&t::POINT_CLOUD2],
    read_from: Some(&t::POINT_CLOUD2),
    reads: &[Reader {
        ty: &t::POINT_CLOUD2,
        read: |r| {
            stamped(r, |r, _| {
                Ok(Payload::PointCloud(RBox::new(read_point_cloud(r)?)))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::PointCloud(m) => cdr(out, &t::POINT_CLOUD2, |w| {
            header(w, h);
            w.u32(m.height);
            w.u32(m.width);
            write_fields(
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
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::PointCloud(c) => Some(json!({
            "width": c.width, "height": c.height,
            "fields": c.fields.iter().map(|f| json!({"name": f.name.as_str(), "offset": f.offset, "datatype": f.datatype.0, "datatype_name": datatype_name(f.datatype), "count": f.count})).collect::<Vec<_>>(),
            "is_bigendian": c.is_bigendian, "point_step": c.point_step, "row_step": c.row_step,
            "data_bytes": c.data.len(), "is_dense": c.is_dense,
        })),
        _ => None,
    },
    from_json: None,
};

fn write_scan(w: &mut CdrWriter<'_>, h: &Header, m: &LaserScan, options: &EncodeOptions<'_>) {
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
}

/// `fields` of a `PointCloud2`: `(name, offset, datatype, count)`.
fn write_fields<'a>(
    w: &mut CdrWriter<'_>,
    f: impl ExactSizeIterator<Item = (&'a str, u32, u32, u32)>,
) {
    w.sequence_len(f.len());
    for (name, offset, datatype, count) in f {
        w.string(name);
        w.u32(offset);
        w.u8(u8::try_from(datatype).unwrap_or(0));
        w.u32(count);
    }
}

/// Bytes per point of `write_scan_points`: `x, y, z, intensity` (float32) and `ring`
/// (uint16), packed as the lidar plugin packs its `points`.
const SCAN_POINT_STEP: usize = 18;

/// A scan of several rows as the points gz's gpu_lidar publishes on `/points` (and the lidar
/// plugin on `points`): `x`, `y`, `z`, `intensity` as `float32` in the sensor frame and
/// `ring` (the row) as `uint16`, a row per vertical angle, `x = r cos(v) cos(h)`,
/// `y = r cos(v) sin(h)`, `z = r sin(v)`; non-finite ranges give non-finite points and
/// `is_dense` false. A scan whose ranges do not fill `count` x `vertical_count` is written as
/// one row of its ranges.
fn write_scan_points(w: &mut CdrWriter<'_>, h: &Header, m: &LaserScan) {
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
    write_fields(
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
}

fn cdr_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn f64s(v: Vec<f32>) -> RVec<f64> {
    v.into_iter().map(f64::from).collect()
}

fn read_scan(r: &mut CdrReader<'_>, h: &Header) -> Result<LaserScan, DecodeError> {
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

fn read_point_cloud(r: &mut CdrReader<'_>) -> Result<PointCloudPacked, DecodeError> {
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
