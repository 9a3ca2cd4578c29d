//! The four physics-fed scalar sensor plugins (navsat, altimeter, magnetometer, air pressure)
//! loaded from their real libraries into one real rapier world: readings at rest and in free
//! fall, Gazebo's default topics, noise statistics, and a world without spherical coordinates.

use crate::common;

use common::*;
use sim_plugin_api::{Altimeter, NavSat, Payload, Vec3};

const LIBS: &[&str] = &[
    "simcore_plugin_navsat",
    "simcore_plugin_altimeter",
    "simcore_plugin_magnetometer",
    "simcore_plugin_air_pressure",
];
const G: f64 = 9.8;
const DT: f64 = 0.001;
const FIELD: Vec3 = Vec3::new(6.0e-6, 23.0e-6, -42.0e-6);

/// A world named `test` with spherical coordinates (37.5° N, 122.3° W, 10 m, heading 0), a
/// magnetic field, a ground plane and `models`.
fn geo_world(models: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="test">
    <physics type="ode"><max_step_size>0.001</max_step_size><real_time_factor>0</real_time_factor></physics>
    <gravity>0 0 -9.8</gravity>
    <magnetic_field>{} {} {}</magnetic_field>
    <spherical_coordinates>
      <surface_model>EARTH_WGS84</surface_model>
      <world_frame_orientation>ENU</world_frame_orientation>
      <latitude_deg>37.5</latitude_deg>
      <longitude_deg>-122.3</longitude_deg>
      <elevation>10</elevation>
      <heading_deg>0</heading_deg>
    </spherical_coordinates>
    <model name="ground">
      <static>true</static>
      <link name="link">
        <collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision>
      </link>
    </model>
    {models}
  </world>
</sdf>"#,
        FIELD.x, FIELD.y, FIELD.z
    )
}

fn sensor(name: &str, kind: &str, rate: f64, body: &str) -> String {
    format!(
        r#"<sensor name="{name}" type="{kind}"><update_rate>{rate}</update_rate>{body}</sensor>"#
    )
}

fn topic(model: &str, sensor: &str, suffix: &str) -> String {
    format!("/world/test/model/{model}/link/body/sensor/{sensor}/{suffix}")
}

fn navsat(p: &Payload) -> NavSat {
    match p {
        Payload::NavSat(n) => (**n).clone(),
        other => panic!("not a NavSat message: {other:?}"),
    }
}

fn altimeter(p: &Payload) -> Altimeter {
    match p {
        Payload::Altimeter(a) => (**a).clone(),
        other => panic!("not an Altimeter message: {other:?}"),
    }
}

fn magnetometer(p: &Payload) -> Vec3 {
    match p {
        Payload::Magnetometer(b) => *b,
        other => panic!("not a Magnetometer message: {other:?}"),
    }
}

fn fluid_pressure(p: &Payload) -> (f64, f64) {
    match p {
        Payload::FluidPressure { pressure, variance } => (*pressure, *variance),
        other => panic!("not a FluidPressure message: {other:?}"),
    }
}

/// Standard-atmosphere pressure (Pa) at `h` m, written independently of the plugin: the
/// barometric law `P0 (T/T0)^(g0 M / (R L))` over the geopotential height.
fn standard_pressure(h: f64) -> f64 {
    let hg = 6_356_766.0 * h / (6_356_766.0 + h);
    let t = 288.15 - 0.0065 * hg;
    101_325.0 * (t / 288.15).powf(9.80665 * 28.9644 / (8314.32 * 0.0065))
}

#[test]
fn all_four_at_rest_on_their_default_topics() {
    let dir = stage(LIBS);
    let sensors = [
        sensor("gps", "gps", 50.0, ""),
        sensor("alt", "altimeter", 0.0, ""),
        sensor("mag", "magnetometer", 100.0, ""),
        sensor(
            "baro",
            "air_pressure",
            0.0,
            "<air_pressure><reference_altitude>100</reference_altitude></air_pressure>",
        ),
    ]
    .concat();
    let mut sim = sim_from(
        &geo_world(&box_model("rest", 0.1, &sensors)),
        dir.path(),
        0,
        1,
    );
    let topics = [
        topic("rest", "gps", "navsat"),
        topic("rest", "alt", "altimeter"),
        topic("rest", "mag", "magnetometer"),
        topic("rest", "baro", "air_pressure"),
    ];
    let listed = sim.topics();
    for t in &topics {
        assert!(listed.contains(t), "{t} not in {listed:?}");
    }
    let subs: Vec<_> = topics
        .iter()
        .map(|t| sim.bus_mut().subscribe(t, 10_000))
        .collect();
    for _ in 0..1000 {
        sim.step();
    }
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    let [gps, alt, mag, baro] = [0, 1, 2, 3].map(|i| collect(&subs[i]));
    assert_eq!(
        [gps.len(), alt.len(), mag.len(), baro.len()],
        [51, 1000, 101, 1000]
    );
    for series in [&gps, &alt, &mag, &baro] {
        let seqs: Vec<u64> = series.iter().map(|m| m.1).collect();
        assert_eq!(seqs, (0..series.len() as u64).collect::<Vec<_>>());
    }

    // The box rests at z = 0.1 (it may settle by a fraction of a millimetre).
    let fix = navsat(&gps.last().unwrap().2);
    assert!((fix.latitude_deg - 37.5).abs() < 1e-9, "{fix:?}");
    assert!((fix.longitude_deg + 122.3).abs() < 1e-9, "{fix:?}");
    assert!((fix.altitude - 10.1).abs() < 1e-3, "{fix:?}");
    assert!(
        fix.velocity_east.abs() < 1e-3
            && fix.velocity_north.abs() < 1e-3
            && fix.velocity_up.abs() < 1e-2,
        "{fix:?}"
    );
    assert_eq!(fix.frame_id.as_str(), "rest::body::gps");

    let first = altimeter(&alt[0].2);
    assert!((first.vertical_reference - 0.1).abs() < 1e-6, "{first:?}");
    // The reference is the pose at creation; the first sample, after one step, has the box
    // settled by a hair.
    assert!(first.vertical_position.abs() < 1e-6, "{first:?}");
    for (t, _, p) in &alt {
        let a = altimeter(p);
        assert_eq!(a.vertical_reference, first.vertical_reference);
        assert!(a.vertical_position.abs() < 1e-3, "t={t}: {a:?}");
    }
    assert!(altimeter(&alt.last().unwrap().2).vertical_velocity.abs() < 1e-2);

    for (t, _, p) in &mag {
        let b = magnetometer(p);
        assert!((b - FIELD).length() < 1e-9, "t={t}: {b:?}");
    }

    for (t, _, p) in baro.iter().filter(|m| m.0 >= 500_000_000) {
        let (pressure, variance) = fluid_pressure(p);
        assert!(
            (pressure - standard_pressure(100.1)).abs() < 0.02,
            "t={t}: {pressure} Pa"
        );
        assert_eq!(variance, 0.0);
    }
}

#[test]
fn falling_body() {
    let dir = stage(LIBS);
    let sensors = [
        sensor("gps", "navsat", 0.0, ""),
        sensor("alt", "altimeter", 0.0, ""),
        sensor("baro", "air_pressure", 0.0, ""),
    ]
    .concat();
    let mut sim = sim_from(
        &geo_world(&box_model("drop", 5.0, &sensors)),
        dir.path(),
        0,
        1,
    );
    let gps_sub = sim
        .bus_mut()
        .subscribe(&topic("drop", "gps", "navsat"), 10_000);
    let alt_sub = sim
        .bus_mut()
        .subscribe(&topic("drop", "alt", "altimeter"), 10_000);
    let baro_sub = sim
        .bus_mut()
        .subscribe(&topic("drop", "baro", "air_pressure"), 10_000);
    for _ in 0..500 {
        sim.step();
    }
    let (gps, alt, baro) = (collect(&gps_sub), collect(&alt_sub), collect(&baro_sub));
    assert_eq!((gps.len(), alt.len(), baro.len()), (500, 500, 500));
    for ((g, a), b) in gps.iter().zip(&alt).zip(&baro) {
        assert_eq!((g.0, g.0), (a.0, b.0));
        let t = a.0 as f64 * 1e-9;
        let n = (t / DT).round();
        let (fix, reading, (pressure, _)) = (navsat(&g.2), altimeter(&a.2), fluid_pressure(&b.2));
        // Sampled at the start of the iteration, after n steps: v = -g n dt = -g t. The drop
        // lies between the exact -g t²/2 and semi-implicit Euler's -g dt² n (n + 1) / 2 (the
        // physics integrates in substeps, which puts it in between; f32 positions).
        assert!(
            (reading.vertical_velocity + G * t).abs() < 1e-4,
            "t={t}: {reading:?}"
        );
        let (exact, euler) = (-G * t * t / 2.0, -G * DT * DT * n * (n + 1.0) / 2.0);
        assert!(
            reading.vertical_position <= exact + 2e-5 && reading.vertical_position >= euler - 2e-5,
            "t={t}: {reading:?}, expected between {euler} and {exact}"
        );
        assert_eq!(reading.vertical_reference, 5.0);
        // The navsat sees the same fall: its altitude drops with the altimeter's height,
        // its up velocity is the vertical velocity, and it stays above the origin.
        assert!(
            (fix.altitude - (15.0 + reading.vertical_position)).abs() < 1e-6,
            "t={t}: {fix:?}"
        );
        assert_eq!(fix.velocity_up, reading.vertical_velocity);
        assert!((fix.latitude_deg - 37.5).abs() < 1e-9);
        assert!((fix.longitude_deg + 122.3).abs() < 1e-9);
        // The pressure rises as it falls.
        assert!(
            (pressure - standard_pressure(5.0 + reading.vertical_position)).abs() < 1e-6,
            "t={t}: {pressure}"
        );
    }
    let last = navsat(&gps.last().unwrap().2);
    let t_last = 0.499;
    assert!((last.altitude - (15.0 - G * t_last * t_last / 2.0)).abs() < 0.01);
    assert!(fluid_pressure(&baro.last().unwrap().2).0 > fluid_pressure(&baro[0].2).0 + 10.0);
}

fn noisy_baro_run(seed: u64, steps: usize) -> Vec<(f64, f64)> {
    let dir = stage(&["simcore_plugin_air_pressure"]);
    let noise = r#"<air_pressure><pressure><noise type="gaussian"><mean>0</mean><stddev>2</stddev></noise></pressure></air_pressure>"#;
    let mut sim = sim_from(
        &geo_world(&box_model(
            "rest",
            0.1,
            &sensor("baro", "air_pressure", 0.0, noise),
        )),
        dir.path(),
        seed,
        1,
    );
    let sub = sim
        .bus_mut()
        .subscribe(&topic("rest", "baro", "air_pressure"), 100_000);
    for _ in 0..steps {
        sim.step();
    }
    collect(&sub).iter().map(|m| fluid_pressure(&m.2)).collect()
}

#[test]
fn air_pressure_noise_statistics_with_a_fixed_seed() {
    let sigma = 2.0;
    let readings = noisy_baro_run(42, 5000);
    assert_eq!(readings.len(), 5000);
    assert!(readings.iter().all(|r| r.1 == sigma * sigma));
    let p: Vec<f64> = readings[500..].iter().map(|r| r.0).collect();
    let n = p.len() as f64;
    let mean = p.iter().sum::<f64>() / n;
    let sd = (p.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    // The resting box is at 0.1 m (±1 mm, about ±0.012 Pa): mean within 5 standard errors
    // (plus that), deviation within 10 %.
    let truth = standard_pressure(0.1);
    assert!(
        (mean - truth).abs() < 5.0 * sigma / n.sqrt() + 0.02,
        "mean {mean}, truth {truth}"
    );
    assert!((sd - sigma).abs() < 0.1 * sigma, "stddev {sd}");
    // The same seed gives the same readings; another seed others.
    let a = noisy_baro_run(42, 300);
    assert_eq!(a, readings[..300].to_vec());
    assert_ne!(a, noisy_baro_run(43, 300));
}

#[test]
fn without_spherical_coordinates_navsat_warns_once_and_the_run_continues() {
    let dir = stage(LIBS);
    let sensors = [
        sensor("gps", "navsat", 0.0, ""),
        sensor("alt", "altimeter", 0.0, ""),
    ]
    .concat();
    // `world` (common) declares no <spherical_coordinates>.
    let sdf = world(&box_model("box", 0.1, &sensors));
    let ((navsat_count, altimeter_count, failures), log) = common::capture::warnings_while(|| {
        let mut sim = sim_from(&sdf, dir.path(), 0, 1);
        let gps = sim
            .bus_mut()
            .subscribe(&topic("box", "gps", "navsat"), 10_000);
        let alt = sim
            .bus_mut()
            .subscribe(&topic("box", "alt", "altimeter"), 10_000);
        for _ in 0..200 {
            sim.step();
        }
        (
            collect(&gps).len(),
            collect(&alt).len(),
            sim.failures().len(),
        )
    });
    assert_eq!(navsat_count, 0);
    assert_eq!(altimeter_count, 200);
    assert_eq!(failures, 0);
    let warnings: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("spherical_coordinates"))
        .collect();
    assert_eq!(warnings.len(), 1, "{log}");
    assert!(
        warnings[0].contains("WARN")
            && warnings[0].contains("box::body::gps")
            && warnings[0].contains("publishes nothing"),
        "{}",
        warnings[0]
    );
}

/// Messages nobody receives are handed back to their sensor, which refills them in place
/// (the IMU and navsat plugins do): a subscriber that arrives late gets exactly the messages
/// (stamps, sequence numbers, values) that one listening from the start gets, on one thread
/// and on two.
#[test]
fn late_subscribers_get_the_same_messages_as_early_ones() {
    let mut libs = LIBS.to_vec();
    libs.push("simcore_plugin_imu");
    let dir = stage(&libs);
    let noisy = |axis: &str| {
        format!(
            "<{axis}><noise type=\"gaussian\"><mean>0</mean><stddev>0.5</stddev></noise></{axis}>"
        )
    };
    let sensors = [
        sensor(
            "imu",
            "imu",
            0.0,
            &format!(
                "<imu><angular_velocity>{}</angular_velocity></imu>",
                noisy("x")
            ),
        ),
        sensor(
            "gps",
            "navsat",
            0.0,
            &format!(
                "<navsat><position_sensing>{}</position_sensing></navsat>",
                noisy("horizontal")
            ),
        ),
    ]
    .concat();
    // A box dropped from 2 m: the readings change at every step, noise or not.
    let sdf = geo_world(&box_model("drop", 2.0, &sensors));
    let topics = [topic("drop", "imu", "imu"), topic("drop", "gps", "navsat")];
    let run = |threads: usize, subscribe_at: usize| {
        let mut sim = sim_from(&sdf, dir.path(), 7, threads);
        let mut subs = Vec::new();
        for step in 0..400 {
            if step == subscribe_at {
                subs = topics
                    .iter()
                    .map(|t| sim.bus_mut().subscribe(t, 10_000))
                    .collect();
            }
            sim.step();
        }
        subs.iter()
            .map(|s| {
                collect(s)
                    .into_iter()
                    .map(|(stamp, seq, p)| (stamp, seq, format!("{p:?}")))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let early = run(1, 0);
    for threads in [1, 2] {
        let late = run(threads, 250);
        for (e, l) in early.iter().zip(&late) {
            assert_eq!(l.len(), 150, "{threads} thread(s)");
            assert_eq!(l[0].1, 250, "sequence numbers count the unheard updates");
            assert_eq!(&e[250..], &l[..], "{threads} thread(s)");
        }
    }
}
