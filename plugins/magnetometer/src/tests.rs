//! Tests of the sensor through its public API, against `StaticWorld`.

use crate::MagnetometerSensor;
use sim_plugin_api::{
    EntityId, KinematicState, Message, Payload, Pose, Quat, Vec3,
    testing::{StaticWorld, run_update, sensor_config, try_update},
};
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::testing::{assert_config_error, assert_runtime_error};
use std::f64::consts::{FRAC_PI_2, PI};

const LINK: EntityId = EntityId(9);
const NAME: &str = "robot::base::mag";
/// SDF's default field, T.
const B: Vec3 = Vec3::new(5.5645e-6, 22.8758e-6, -42.3884e-6);

fn world(orientation: Quat) -> StaticWorld {
    let mut w = StaticWorld::default();
    w.magnetic_field = B;
    w.set_kinematics(
        LINK,
        KinematicState {
            pose: Pose::new(Vec3::new(1.0, 2.0, 3.0), orientation),
            ..Default::default()
        },
    );
    w
}

fn create_with(world: &StaticWorld, sdf: &str, pose: Pose, seed: u64) -> MagnetometerSensor {
    let mut config = sensor_config(NAME, "magnetometer", LINK, sdf);
    config.pose = pose;
    config.seed = seed;
    world
        .with(|w| MagnetometerSensor::create(&config, &w))
        .unwrap_or_else(|e| panic!("create failed: {e}"))
}

fn only_field(messages: &[Message]) -> Vec3 {
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].topic.as_str(), "");
    match messages[0].payload.as_enum() {
        Ok(Payload::Magnetometer(b)) => *b,
        other => panic!("expected a Magnetometer payload, got {other:?}"),
    }
}

fn read(world: &StaticWorld, pose: Pose) -> Vec3 {
    let mut s = create_with(world, "", pose, 0);
    only_field(&world.with(|w| run_update(&mut s, &w)))
}

fn close(a: Vec3, b: Vec3) {
    assert!((a - b).length() < 1e-18, "{a:?} != {b:?}");
}

#[test]
fn level_sensor_reads_the_world_field() {
    close(read(&world(Quat::IDENTITY), Pose::IDENTITY), B);
}

#[test]
fn yawed_90_degrees() {
    // Sensor +X = world +Y, sensor +Y = world −X: (Bx, By, Bz) reads (By, −Bx, Bz).
    let field = read(&world(Quat::from_rpy(0.0, 0.0, FRAC_PI_2)), Pose::IDENTITY);
    close(field, Vec3::new(B.y, -B.x, B.z));
}

#[test]
fn upside_down_through_the_sensor_pose() {
    // Link level, sensor rolled by π in it: y and z flip.
    let pose = Pose::new(Vec3::new(0.0, 0.0, 0.1), Quat::from_rpy(PI, 0.0, 0.0));
    close(
        read(&world(Quat::IDENTITY), pose),
        Vec3::new(B.x, -B.y, -B.z),
    );
    // Link pitched by +π/2 (its +X points down): sensor x reads −Bz, z reads Bx.
    let field = read(&world(Quat::from_rpy(0.0, FRAC_PI_2, 0.0)), Pose::IDENTITY);
    close(field, Vec3::new(-B.z, B.y, B.x));
}

#[test]
fn field_is_read_from_the_world_at_every_update() {
    let mut w = world(Quat::IDENTITY);
    let mut s = create_with(&w, "", Pose::IDENTITY, 0);
    close(only_field(&w.with(|w| run_update(&mut s, &w))), B);
    w.magnetic_field = Vec3::new(0.0, 1e-5, 0.0);
    close(
        only_field(&w.with(|w| run_update(&mut s, &w))),
        Vec3::new(0.0, 1e-5, 0.0),
    );
}

#[test]
fn noise_per_axis() {
    let sdf = r#"<sensor name="mag" type="magnetometer"><magnetometer>
        <x><noise type="gaussian"><stddev>1e-6</stddev></noise></x>
        <z><noise type="gaussian"><mean>2e-6</mean><stddev>3e-6</stddev></noise></z>
      </magnetometer></sensor>"#;
    let w = world(Quat::IDENTITY);
    let mut s = create_with(&w, sdf, Pose::IDENTITY, 5);
    let n = 20_000;
    let samples: Vec<Vec3> = (0..n).map(|_| s.measure(Quat::IDENTITY, B, 0.01)).collect();
    let stats = |f: fn(&Vec3) -> f64| {
        let v: Vec<f64> = samples.iter().map(f).collect();
        let m = v.iter().sum::<f64>() / n as f64;
        let sd = (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n as f64 - 1.0)).sqrt();
        (m, sd)
    };
    let k = (n as f64).sqrt();
    let (mx, sx) = stats(|v| v.x);
    let (mz, sz) = stats(|v| v.z);
    assert!(
        (mx - B.x).abs() < 5.0 * 1e-6 / k && (sx - 1e-6).abs() < 3e-8,
        "{mx} {sx}"
    );
    assert!(samples.iter().all(|v| v.y == B.y), "y has no noise");
    assert!(
        (mz - (B.z + 2e-6)).abs() < 5.0 * 3e-6 / k && (sz - 3e-6).abs() < 9e-8,
        "{mz} {sz}"
    );

    let run = |seed| {
        let mut s = create_with(&w, sdf, Pose::IDENTITY, seed);
        (0..4)
            .map(|_| only_field(&w.with(|w| run_update(&mut s, &w))))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}

#[test]
fn missing_link_is_a_runtime_error() {
    let w = StaticWorld::default();
    let mut s = create_with(&w, "", Pose::IDENTITY, 0);
    let e = w.with(|w| try_update(&mut s, &w)).unwrap_err();
    assert_runtime_error(&e, NAME);
}

#[test]
fn bad_configuration_names_sensor_element_and_text() {
    let w = world(Quat::IDENTITY);
    let config = sensor_config(
        NAME,
        "magnetometer",
        LINK,
        r#"<sensor><magnetometer><x><noise type="gaussian"><mean>1 2</mean></noise></x></magnetometer></sensor>"#,
    );
    let e = w
        .with(|w| MagnetometerSensor::create(&config, &w))
        .unwrap_err();
    assert_config_error(&e, NAME, "<magnetometer><x><noise><mean>", "1 2");
}

#[test]
fn configuration_errors_name_the_file_and_line() {
    let text = "<sensor name=\"mag\" type=\"magnetometer\">\n  <magnetometer>\n    \
                <z><noise type=\"uniform\"/></z>\n  </magnetometer>\n</sensor>";
    let config = sensor_config(NAME, "magnetometer", LINK, text).with_source("world.sdf", 40);
    let e = world(Quat::IDENTITY)
        .with(|w| MagnetometerSensor::create(&config, &w))
        .unwrap_err();
    assert_eq!(
        e.message.as_str(),
        "robot::base::mag: <magnetometer><z><noise> type must be one of none, gaussian, gaussian_quantized, found \"uniform\" at world.sdf:42"
    );
}
