//! The real lidar plugin's messages in their ROS 2 form: a multi-row scan encodes to the
//! same PointCloud2 as the plugin's own point cloud, and rosbags (an independent CDR reader)
//! reads what the encoder wrote.

use crate::common;

use common::*;
use sim_core::ros::{self, catalog};
use sim_plugin_api::{Message, Payload, PointCloudPacked};

/// A 1.2 m high static scanner with a 3 x 4 fan ahead and down, and a wall at x = 3.
fn lidar_world() -> String {
    let sensor = r#"<sensor name="fan" type="gpu_lidar"><update_rate>0</update_rate>
        <lidar><scan>
          <horizontal><samples>3</samples><min_angle>-0.4</min_angle><max_angle>0.4</max_angle></horizontal>
          <vertical><samples>4</samples><min_angle>-0.6</min_angle><max_angle>0.3</max_angle></vertical>
        </scan><range><min>0.1</min><max>20</max></range></lidar></sensor>"#;
    world(&format!(
        r#"<model name="scanner"><static>true</static><pose>0 0 1.2 0 0 0</pose>
      <link name="body">{sensor}</link></model>
    <model name="wall"><static>true</static><pose>3.5 0 1 0 0 0</pose>
      <link name="l"><collision name="c"><geometry><box><size>1 10 0.5</size></box></geometry></collision></link>
    </model>"#
    ))
}

fn points(c: &PointCloudPacked) -> Vec<([f32; 4], u16)> {
    assert_eq!(c.point_step, 18);
    c.data
        .chunks(18)
        .map(|p| {
            let f = |o: usize| f32::from_le_bytes(p[o..o + 4].try_into().unwrap());
            (
                [f(0), f(4), f(8), f(12)],
                u16::from_le_bytes([p[16], p[17]]),
            )
        })
        .collect()
}

fn cloud_of(bytes: &[u8]) -> PointCloudPacked {
    match ros::decode(catalog::POINT_CLOUD2.name, bytes).unwrap() {
        Payload::PointCloud(c) => (*c).clone(),
        other => panic!("{other:?}"),
    }
}

/// Runs a Python script with one path argument; its output, after checking it succeeded.
fn run_python(python: &std::path::Path, script: &str, arg: &std::path::Path) -> String {
    let out = std::process::Command::new(python)
        .args(["-c", script, arg.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

fn one(sub: &sim_core::transport::Subscription) -> Message {
    let got = sub.drain();
    assert_eq!(got.len(), 1);
    got[0].message.clone()
}

#[test]
fn a_multi_row_scan_is_the_plugins_point_cloud_in_ros() {
    let dir = stage(&["simcore_plugin_lidar"]);
    let mut sim = sim_from(&lidar_world(), dir.path(), 0, 1);
    let topic = "/world/test/model/scanner/link/body/sensor/fan/scan";
    let scans = sim.bus_mut().subscribe(topic, 10);
    let clouds = sim.bus_mut().subscribe(&format!("{topic}/points"), 10);
    sim.step();
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    let (scan, cloud) = (one(&scans), one(&clouds));

    let (mut from_scan, mut from_cloud) = (Vec::new(), Vec::new());
    assert_eq!(
        ros::encode(&scan, &mut from_scan),
        Some(&catalog::POINT_CLOUD2)
    );
    assert_eq!(
        ros::encode(&cloud, &mut from_cloud),
        Some(&catalog::POINT_CLOUD2)
    );
    let (a, b) = (cloud_of(&from_scan), cloud_of(&from_cloud));
    assert_eq!((a.width, a.height), (3, 4));
    assert_eq!(
        (&a.fields, a.point_step, a.row_step, a.is_dense),
        (&b.fields, b.point_step, b.row_step, b.is_dense)
    );
    // Some rays see the wall or the ground, the upper ones see nothing.
    assert!(!a.is_dense);
    let (pa, pb) = (points(&a), points(&b));
    assert_eq!(pa.len(), 12);
    let mut hits = 0;
    for (k, ((p, ring), (q, ring_b))) in pa.iter().zip(&pb).enumerate() {
        assert_eq!(ring, ring_b, "point {k}");
        assert_eq!(*ring as usize, k / 3);
        for (x, y) in p.iter().zip(q) {
            if x.is_finite() {
                hits += 1;
                assert!((x - y).abs() < 1e-5, "point {k}: {p:?} vs {q:?}");
            } else {
                assert!(
                    !y.is_finite() && (x.is_nan() || x == y),
                    "point {k}: {p:?} vs {q:?}"
                );
            }
        }
    }
    assert!(hits > 12, "{hits}");

    // rosbags reads both, and its reading of the scan's cloud is the plugin's points.
    let Some(python) = python() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("scan.cdr"), &from_scan).unwrap();
    std::fs::write(tmp.path().join("cloud.cdr"), &from_cloud).unwrap();
    let script = r#"
import sys
from pathlib import Path
import numpy
from rosbags.typesys import Stores, get_typestore
ts = get_typestore(Stores.ROS2_JAZZY)
for name in ["scan", "cloud"]:
    data = (Path(sys.argv[1]) / f"{name}.cdr").read_bytes()
    m = ts.deserialize_cdr(data, "sensor_msgs/msg/PointCloud2")
    assert bytes(ts.serialize_cdr(m, "sensor_msgs/msg/PointCloud2")) == data, name
    dt = numpy.dtype({"names": [f.name for f in m.fields],
                      "formats": ["<f4" if f.datatype == 7 else "<u2" for f in m.fields],
                      "offsets": [f.offset for f in m.fields], "itemsize": m.point_step})
    pts = numpy.frombuffer(m.data.tobytes(), dtype=dt)
    print(name, m.header.frame_id, m.width, m.height, m.is_dense,
          " ".join(f"{p['x']:.4f},{p['z']:.4f},{p['ring']}" for p in pts))
"#;
    let text = run_python(&python, script, tmp.path());
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let frame = scan.header.frame_id.as_str();
    assert!(!frame.is_empty());
    assert!(
        lines[0].starts_with(&format!("scan {frame} 3 4 False ")),
        "{text}"
    );
    assert_eq!(
        lines[0].strip_prefix("scan"),
        lines[1].strip_prefix("cloud"),
        "{text}"
    );
}

#[test]
fn a_one_row_scan_is_a_laser_scan_rosbags_reads() {
    let Some(python) = python() else {
        return;
    };
    let dir = stage(&["simcore_plugin_lidar"]);
    let sensor = r#"<sensor name="ring" type="gpu_lidar"><update_rate>0</update_rate>
        <lidar><scan><horizontal><samples>5</samples><min_angle>-0.2</min_angle><max_angle>0.2</max_angle></horizontal></scan>
        <range><min>0.1</min><max>20</max></range></lidar></sensor>"#;
    let sdf = world(&format!(
        r#"<model name="scanner"><static>true</static><pose>0 0 0.5 0 0 0</pose>
      <link name="body">{sensor}</link></model>
    <model name="wall"><static>true</static><pose>2.5 0 0.5 0 0 0</pose>
      <link name="l"><collision name="c"><geometry><box><size>1 10 1</size></box></geometry></collision></link>
    </model>"#
    ));
    let mut sim = sim_from(&sdf, dir.path(), 0, 1);
    let scans = sim
        .bus_mut()
        .subscribe("/world/test/model/scanner/link/body/sensor/ring/scan", 10);
    sim.step();
    let scan = one(&scans);
    let mut bytes = Vec::new();
    let options = ros::EncodeOptions {
        scan_time: 0.1,
        ..Default::default()
    };
    assert_eq!(
        ros::encode_with(&scan, &options, &mut bytes),
        Some(&catalog::LASER_SCAN)
    );
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("scan.cdr");
    std::fs::write(&file, &bytes).unwrap();
    let script = r#"
import sys
from rosbags.typesys import Stores, get_typestore
ts = get_typestore(Stores.ROS2_JAZZY)
m = ts.deserialize_cdr(open(sys.argv[1], "rb").read(), "sensor_msgs/msg/LaserScan")
print(m.header.stamp.sec, m.header.stamp.nanosec, m.header.frame_id, f"{m.scan_time:.3f}",
      " ".join(f"{r:.4f}" for r in m.ranges))
"#;
    let text = run_python(&python, script, &file);
    let (sec, nsec) = scan.header.stamp.to_sec_nsec();
    let Payload::LaserScan(s) = scan.payload.as_enum().unwrap() else {
        panic!("not a scan")
    };
    // The wall's face is at x = 2: every ray hits it at 2 / cos(angle).
    let ranges: Vec<String> = (0..5)
        .map(|i| {
            let a = -0.2 + 0.1 * i as f64;
            assert!((s.ranges[i] - 2.0 / a.cos()).abs() < 1e-4);
            format!("{:.4}", s.ranges[i] as f32)
        })
        .collect();
    assert_eq!(
        text.trim(),
        format!(
            "{sec} {nsec} {} 0.100 {}",
            scan.header.frame_id,
            ranges.join(" ")
        )
    );
}
