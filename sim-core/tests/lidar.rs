//! The lidar plugin loaded from its real library into a real rapier world: analytic ranges to
//! a box and to the ground, REP-117 values at both ends of the range, its own model ignored,
//! intensities from `<laser_retro>`, noise statistics, the scan and point cloud in agreement,
//! Gazebo's default topics, and visibility masks on lidars seeing visuals.

use crate::common;

use common::*;
use sim_plugin_api::{LaserScan, Payload, PointCloudPacked};

const LIBS: &[&str] = &["simcore_plugin_lidar"];

/// A static model `scanner` at `(0, 0, z)` whose link `body` has a 0.2 m collision box around
/// its origin (which its own lidars must not see) and carries `sensors`.
fn scanner(z: f64, sensors: &str) -> String {
    format!(
        r#"<model name="scanner">
      <static>true</static>
      <pose>0 0 {z} 0 0 0</pose>
      <link name="body">
        <collision name="housing"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>
        {sensors}
      </link>
    </model>"#
    )
}

/// A static 1 m cube centred at `(x, 0, 0.5)` with `<laser_retro>` 42: its near face is the
/// plane `x - 0.5`, for |y| <= 0.5 and 0 <= z <= 1.
fn target(x: f64) -> String {
    format!(
        r#"<model name="target">
      <static>true</static>
      <pose>{x} 0 0.5 0 0 0</pose>
      <link name="l">
        <collision name="c"><laser_retro>42</laser_retro><geometry><box><size>1 1 1</size></box></geometry></collision>
      </link>
    </model>"#
    )
}

/// A lidar sensor element; `body` goes inside `<lidar>` (or `<ray>` for `type="ray"`).
fn lidar(name: &str, kind: &str, scan: &str, range: (f64, f64), extra: &str) -> String {
    let element = if kind.contains("ray") { "ray" } else { "lidar" };
    format!(
        r#"<sensor name="{name}" type="{kind}"><update_rate>0</update_rate>
        <{element}><scan>{scan}</scan><range><min>{}</min><max>{}</max></range>{extra}</{element}>
        </sensor>"#,
        range.0, range.1
    )
}

fn horizontal(samples: u32, min: f64, max: f64) -> String {
    format!(
        "<horizontal><samples>{samples}</samples><min_angle>{min}</min_angle><max_angle>{max}</max_angle></horizontal>"
    )
}

fn vertical(samples: u32, min: f64, max: f64) -> String {
    format!(
        "<vertical><samples>{samples}</samples><min_angle>{min}</min_angle><max_angle>{max}</max_angle></vertical>"
    )
}

/// The default topic of sensor `sensor` of `kind`, as gz-sim names them: `.../scan` for the
/// GPU lidar (`gpu_lidar`, `gpu_ray`), `.../lidar` for the CPU one (`lidar`, `ray`).
fn topic_of(sensor: &str, kind: &str) -> String {
    let suffix = if kind.starts_with("gpu") {
        "scan"
    } else {
        "lidar"
    };
    format!("/world/test/model/scanner/link/body/sensor/{sensor}/{suffix}")
}

fn scan(p: &Payload) -> LaserScan {
    match p {
        Payload::LaserScan(s) => (**s).clone(),
        other => panic!("not a LaserScan: {other:?}"),
    }
}

fn cloud(p: &Payload) -> PointCloudPacked {
    match p {
        Payload::PointCloud(c) => (**c).clone(),
        other => panic!("not a point cloud: {other:?}"),
    }
}

/// (x, y, z, intensity, ring) per point, decoded through the field table.
fn decode(c: &PointCloudPacked) -> Vec<([f32; 4], u16)> {
    let offset = |name: &str| {
        c.fields
            .iter()
            .find(|f| f.name.as_str() == name)
            .unwrap_or_else(|| panic!("no field {name}"))
            .offset as usize
    };
    let (x, y, z, i, ring) = (
        offset("x"),
        offset("y"),
        offset("z"),
        offset("intensity"),
        offset("ring"),
    );
    assert!(!c.is_bigendian);
    assert_eq!(c.data.len(), (c.point_step * c.width * c.height) as usize);
    c.data
        .chunks(c.point_step as usize)
        .map(|p| {
            let f = |o: usize| f32::from_le_bytes(p[o..o + 4].try_into().unwrap());
            (
                [f(x), f(y), f(z), f(i)],
                u16::from_le_bytes([p[ring], p[ring + 1]]),
            )
        })
        .collect()
}

/// The horizontal angle of sample `i` and vertical angle of row `j` of a scan.
fn angles(s: &LaserScan, k: usize) -> (f64, f64) {
    let (i, j) = (k % s.count as usize, k / s.count as usize);
    (
        s.angle_min + i as f64 * s.angle_step,
        s.vertical_angle_min + j as f64 * s.vertical_angle_step,
    )
}

/// Checks that the point cloud holds the scan's ranges along its angles.
fn assert_agree(s: &LaserScan, c: &PointCloudPacked) {
    assert_eq!((c.width, c.height), (s.count, s.vertical_count));
    assert_eq!(c.is_dense, s.ranges.iter().all(|r| r.is_finite()));
    let pts = decode(c);
    assert_eq!(pts.len(), s.ranges.len());
    for (k, (p, ring)) in pts.iter().enumerate() {
        let (h, v) = angles(s, k);
        let r = s.ranges[k];
        assert_eq!(*ring as usize, k / s.count as usize);
        assert_eq!(p[3] as f64, s.intensities[k] as f32 as f64);
        if r.is_finite() {
            let e = [r * v.cos() * h.cos(), r * v.cos() * h.sin(), r * v.sin()];
            for (got, want) in p[..3].iter().zip(e) {
                assert!(
                    (*got as f64 - want).abs() < 1e-4,
                    "point {k}: {p:?} vs {e:?}"
                );
            }
        } else {
            // Non-finite ranges give non-finite coordinates (as in Gazebo).
            assert!(p[0].is_infinite() && p[0].signum() as f64 == (r * h.cos()).signum());
        }
    }
}

#[test]
fn box_ranges_rep117_own_model_and_intensities() {
    let dir = stage(LIBS);
    // 21 rays from -0.6 to 0.6 rad (step 0.06): the face x = 2.5, |y| <= 0.5 is hit for
    // |h| <= atan(0.2) = 0.197, i.e. the 7 rays from -0.18 to 0.18.
    let fan = horizontal(21, -0.6, 0.6);
    let sensors = [
        lidar("main", "lidar", &fan, (0.05, 10.0), ""),
        lidar("short", "gpu_lidar", &fan, (0.05, 2.0), ""),
        lidar("blind", "ray", &fan, (3.8, 20.0), ""),
    ]
    .concat();
    // A backstop whose face x = 11.5 only the long-range `blind` reaches.
    let backstop = r#"<model name="backstop"><static>true</static><pose>12 0 0.5 0 0 0</pose>
      <link name="l"><collision name="c"><geometry><box><size>1 30 4</size></box></geometry>
      </collision></link></model>"#;
    let mut sim = sim_from(
        &world(&[scanner(0.5, &sensors), target(3.0), backstop.to_string()].concat()),
        dir.path(),
        0,
        1,
    );
    let names = ["main", "short", "blind"];
    let kinds = ["lidar", "gpu_lidar", "ray"];
    let topic = |n: &str| {
        let k = names.iter().position(|x| *x == n).unwrap();
        topic_of(n, kinds[k])
    };
    let subs: Vec<_> = names
        .iter()
        .flat_map(|n| [topic(n), format!("{}/points", topic(n))])
        .map(|t| sim.bus_mut().subscribe(&t, 100))
        .collect();
    for _ in 0..3 {
        sim.step();
    }
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    let listed = sim.topics();
    // gz-sim's names: the CPU lidar (`lidar`, `ray`) on `.../lidar`, the GPU lidar on
    // `.../scan`, each with its `/points` below.
    for t in [
        "/world/test/model/scanner/link/body/sensor/main/lidar",
        "/world/test/model/scanner/link/body/sensor/main/lidar/points",
        "/world/test/model/scanner/link/body/sensor/short/scan",
        "/world/test/model/scanner/link/body/sensor/short/scan/points",
        "/world/test/model/scanner/link/body/sensor/blind/lidar",
    ] {
        assert!(listed.iter().any(|x| x == t), "{t} not in {listed:?}");
    }
    assert!(!listed.iter().any(|x| x.ends_with("main/scan")));
    for n in names {
        for t in [topic(n), format!("{}/points", topic(n))] {
            assert!(listed.contains(&t), "{t} not in {listed:?}");
        }
    }
    let msgs: Vec<_> = subs.iter().map(collect).collect();
    assert!(
        msgs.iter().all(|m| m.len() == 3),
        "one message per step on every topic"
    );

    let main = scan(&msgs[0][2].2);
    assert_eq!(main.frame.as_str(), "scanner::body::main");
    assert_eq!((main.count, main.vertical_count), (21, 1));
    assert_eq!((main.range_min, main.range_max), (0.05, 10.0));
    assert!((main.angle_step - 0.06).abs() < 1e-12);
    assert!((main.world_pose.position.z - 0.5).abs() < 1e-9);
    for (k, &r) in main.ranges.iter().enumerate() {
        let (h, _) = angles(&main, k);
        if h.abs() <= 0.19 {
            let expected = 2.5 / h.cos();
            assert!(
                (r - expected).abs() < 1e-4,
                "ray {k} at {h}: {r} vs {expected}"
            );
            assert_eq!(main.intensities[k], 42.0);
        } else {
            // Past the box nothing is in range (the housing around the sensor is its own).
            assert_eq!(r, f64::INFINITY, "ray {k} at {h}");
            assert_eq!(main.intensities[k], 0.0);
        }
    }
    assert_agree(&main, &cloud(&msgs[1][2].2));

    // Beyond the maximum range: +inf. Nearer than the minimum: seen through, as gz-sim's
    // lidars (the CPU one casts from the minimum range, the GPU one clips there): `blind`
    // (minimum 3.8) sees the backstop behind the target box.
    let short = scan(&msgs[2][2].2);
    assert!(
        short.ranges.iter().all(|&r| r == f64::INFINITY),
        "{:?}",
        short.ranges
    );
    let blind = scan(&msgs[4][2].2);
    for (k, &r) in blind.ranges.iter().enumerate() {
        let (h, _) = angles(&blind, k);
        let expected = 11.5 / h.cos();
        assert!(
            (r - expected).abs() < 1e-4,
            "ray {k} at {h}: {r} vs {expected}"
        );
    }
    let blind_cloud = cloud(&msgs[5][2].2);
    assert!(blind_cloud.is_dense);
    assert_agree(&blind, &blind_cloud);
}

#[test]
fn vertical_fan_meets_the_ground() {
    let dir = stage(LIBS);
    // Sensor 1.2 m up; rows from -0.8 to 0.4 rad (step 0.2): the four downward rows meet the
    // ground at 1.2 / sin(-v), the level and upward rows see nothing.
    let h = 1.2;
    let s = lidar(
        "fan",
        "gpu_ray",
        &[horizontal(3, -0.5, 0.5), vertical(7, -0.8, 0.4)].concat(),
        (0.1, 20.0),
        "",
    );
    let mut sim = sim_from(&world(&scanner(h, &s)), dir.path(), 0, 1);
    let scans = sim.bus_mut().subscribe(&topic_of("fan", "gpu_ray"), 10);
    let points = sim
        .bus_mut()
        .subscribe(&format!("{}/points", topic_of("fan", "gpu_ray")), 10);
    sim.step();
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    let s = scan(&collect(&scans)[0].2);
    assert_eq!((s.count, s.vertical_count), (3, 7));
    assert!((s.vertical_angle_step - 0.2).abs() < 1e-12);
    assert_eq!((s.vertical_angle_min, s.vertical_angle_max), (-0.8, 0.4));
    for (k, &r) in s.ranges.iter().enumerate() {
        let (_, v) = angles(&s, k);
        if v < -0.1 {
            let expected = h / (-v).sin();
            assert!(
                (r - expected).abs() < 1e-4,
                "ray {k} at v={v}: {r} vs {expected}"
            );
        } else {
            assert_eq!(r, f64::INFINITY, "ray {k} at v={v}");
        }
    }
    let c = cloud(&collect(&points)[0].2);
    assert_agree(&s, &c);
    // Every ground point lies 1.2 m below the sensor.
    for (k, (p, _)) in decode(&c).iter().enumerate() {
        if s.ranges[k].is_finite() {
            assert!((p[2] as f64 + h).abs() < 1e-4, "{p:?}");
        }
    }
}

#[test]
fn noise_statistics_with_a_fixed_seed() {
    let dir = stage(LIBS);
    let noise = r#"<noise type="gaussian"><mean>0.02</mean><stddev>0.05</stddev></noise>"#;
    let s = lidar(
        "noisy",
        "lidar",
        &horizontal(3, -0.5, 0.5),
        (0.05, 10.0),
        noise,
    );
    let sdf = world(&[scanner(0.5, &s), target(3.0)].concat());
    let run = |seed: u64| {
        let mut sim = sim_from(&sdf, dir.path(), seed, 1);
        let sub = sim.bus_mut().subscribe(&topic_of("noisy", "lidar"), 1000);
        for _ in 0..500 {
            sim.step();
        }
        assert!(sim.failures().is_empty(), "{:?}", sim.failures());
        collect(&sub)
            .iter()
            .map(|m| scan(&m.2).ranges.to_vec())
            .collect::<Vec<_>>()
    };
    let a = run(7);
    assert_eq!(a.len(), 500);
    assert_eq!(a, run(7), "the same seed gives the same noise");
    assert_ne!(a[0], run(8)[0]);
    // The side rays miss the box: still +inf. The middle one reads 2.5 + N(0.02, 0.05).
    assert!(
        a.iter()
            .all(|r| r[0] == f64::INFINITY && r[2] == f64::INFINITY)
    );
    let mid: Vec<f64> = a.iter().map(|r| r[1]).collect();
    let n = mid.len() as f64;
    let mean = mid.iter().sum::<f64>() / n;
    let sd = (mid.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    assert!((mean - 2.52).abs() < 0.01, "mean {mean}");
    assert!((sd - 0.05).abs() < 0.006, "stddev {sd}");
}

/// A lidar seeing visuals sees those whose `<visibility_flags>` share a bit with its
/// `<visibility_mask>`, as Gazebo's GPU lidar; one seeing collisions (as gz-sim's CPU lidar)
/// is not masked.
#[test]
fn a_lidar_seeing_visuals_is_masked_and_one_seeing_collisions_is_not() {
    let dir = stage(LIBS);
    // Two 1 m boxes with collisions and visuals whose near faces are at x = 3.5, centred at
    // y = -1 (`plain`, default flags) and y = +1 (`tagged`, flags 2), at the scanner's height.
    let block = |name: &str, y: f64, flags: &str| {
        format!(
            r#"<model name="{name}"><static>true</static><pose>4 {y} 1 0 0 0</pose><link name="l">
            <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
            <visual name="v">{flags}<geometry><box><size>1 1 1</size></box></geometry></visual>
            </link></model>"#
        )
    };
    // Rays at -0.25, 0 and 0.25 rad: towards `plain`, between the boxes, towards `tagged`.
    let fan = horizontal(3, -0.25, 0.25);
    let visual = "<simcore:visibility>visual</simcore:visibility>";
    let mask = "<visibility_mask>1</visibility_mask>";
    let sensors = [
        lidar("visual_all", "gpu_lidar", &fan, (0.05, 10.0), visual),
        lidar(
            "visual_one",
            "gpu_lidar",
            &fan,
            (0.05, 10.0),
            &format!("{visual}{mask}"),
        ),
        lidar("collision_one", "gpu_lidar", &fan, (0.05, 10.0), mask),
    ]
    .concat();
    let models = [
        scanner(1.0, &sensors),
        block("plain", -1.0, ""),
        block("tagged", 1.0, "<visibility_flags>2</visibility_flags>"),
    ];
    let mut sim = sim_from(&world(&models.concat()), dir.path(), 0, 1);
    let names = ["visual_all", "visual_one", "collision_one"];
    let subs: Vec<_> = names
        .iter()
        .map(|n| sim.bus_mut().subscribe(&topic_of(n, "gpu_lidar"), 10))
        .collect();
    sim.step();
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    let ranges: Vec<Vec<f64>> = subs
        .iter()
        .map(|s| {
            let m = collect(s);
            assert_eq!(m.len(), 1);
            scan(&m[0].2).ranges.to_vec()
        })
        .collect();
    let expected = 3.5 / 0.25f64.cos();
    let near = |r: f64| (r - expected).abs() < 1e-6;
    let (all, one, collisions) = (&ranges[0], &ranges[1], &ranges[2]);
    for r in [all, collisions] {
        assert!(near(r[0]) && near(r[2]), "{r:?}");
    }
    assert!(near(one[0]), "{one:?}");
    assert_eq!(
        one[2],
        f64::INFINITY,
        "the tagged visual is hidden: {one:?}"
    );
    assert!(ranges.iter().all(|r| r[1] == f64::INFINITY), "{ranges:?}");
}
