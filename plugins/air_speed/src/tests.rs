//! Tests of the sensor through its public API, against `StaticWorld`.

use crate::{AIR_SPEED_SCHEMA, AirSpeedSensor, atmosphere};
use serde_json::Value;
use sim_plugin_api::{
    EntityId, ErrorCode, KinematicState, Message, Payload, Pose, Quat, Vec3,
    testing::{StaticWorld, run_update, sensor_config, try_update},
};
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::testing::{assert_config_error, assert_runtime_error};
use std::f64::consts::FRAC_PI_2;

const LINK: EntityId = EntityId(2);
const NAME: &str = "plane::body::pitot";

fn world(z: f64, orientation: Quat, velocity: Vec3) -> StaticWorld {
    let mut w = StaticWorld::default();
    w.set_kinematics(
        LINK,
        KinematicState {
            pose: Pose::new(Vec3::new(3.0, -2.0, z), orientation),
            linear_velocity: velocity,
            ..Default::default()
        },
    );
    w
}

fn create(world: &StaticWorld, sdf: &str, pose: Pose, seed: u64) -> AirSpeedSensor {
    let mut config = sensor_config(NAME, "air_speed", LINK, sdf);
    config.pose = pose;
    config.seed = seed;
    world
        .with(|w| AirSpeedSensor::create(&config, &w))
        .unwrap_or_else(|e| panic!("create failed: {e}"))
}

fn only_reading(messages: &[Message]) -> Value {
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].topic.as_str(), "");
    match messages[0].payload.as_enum() {
        Ok(Payload::Custom(c)) => {
            assert_eq!(c.schema.as_str(), AIR_SPEED_SCHEMA);
            assert_eq!(c.encoding.as_str(), "json");
            serde_json::from_slice(&c.data).expect("JSON")
        }
        other => panic!("expected a Custom payload, got {other:?}"),
    }
}

fn read(world: &StaticWorld, sdf: &str, pose: Pose) -> Value {
    let mut s = create(world, sdf, pose, 0);
    only_reading(&world.with(|w| run_update(&mut s, &w)))
}

fn half_rho_v2(z: f64, v: f64) -> f64 {
    // ISA troposphere over the geometric height, as Gazebo: T = 288.15 - 0.0065 z,
    // rho = 1.225 (T / 288.15)^4.256.
    let t = 288.15 - 0.0065 * z;
    0.5 * 1.225 * (t / 288.15).powf(4.256) * v * v
}

#[test]
fn forward_speed_gives_half_rho_v_squared() {
    let w = world(0.0, Quat::IDENTITY, Vec3::new(10.0, 0.0, 0.0));
    let m = read(&w, "", Pose::IDENTITY);
    assert!(
        (m["diff_pressure"].as_f64().unwrap() - 61.25).abs() < 1e-9,
        "{m}"
    );
    assert_eq!(m["temperature"].as_f64().unwrap(), 288.15);
    assert!(m.get("pressure_noise").is_none());
    // 1000 m up: thinner, colder air.
    let w = world(1000.0, Quat::IDENTITY, Vec3::new(30.0, 0.0, 0.0));
    let m = read(&w, "", Pose::IDENTITY);
    let dp = m["diff_pressure"].as_f64().unwrap();
    assert!((dp - half_rho_v2(1000.0, 30.0)).abs() < 1e-9, "{dp}");
    assert!((dp - 0.5 * 1.1117 * 900.0).abs() < 1e-3 * dp, "{dp}");
    assert_eq!(m["temperature"].as_f64().unwrap(), 281.65);
}

#[test]
fn only_the_speed_along_the_sensor_x_counts_with_its_sign() {
    // Sideways and vertical motion give no pressure.
    let w = world(0.0, Quat::IDENTITY, Vec3::new(0.0, 7.0, -3.0));
    assert_eq!(read(&w, "", Pose::IDENTITY)["diff_pressure"], 0.0);
    // Backwards: negative pressure.
    let w = world(0.0, Quat::IDENTITY, Vec3::new(-10.0, 0.0, 0.0));
    assert!(
        (read(&w, "", Pose::IDENTITY)["diff_pressure"]
            .as_f64()
            .unwrap()
            + 61.25)
            .abs()
            < 1e-9
    );
    // The link yawed +90° moves along world +y, its own +x.
    let w = world(
        0.0,
        Quat::from_rpy(0.0, 0.0, FRAC_PI_2),
        Vec3::new(0.0, 10.0, 0.0),
    );
    assert!(
        (read(&w, "", Pose::IDENTITY)["diff_pressure"]
            .as_f64()
            .unwrap()
            - 61.25)
            .abs()
            < 1e-9
    );
    // A sensor pitched +90° in the link looks down: a fall is its forward speed.
    let down = Pose::new(Vec3::ZERO, Quat::from_rpy(0.0, FRAC_PI_2, 0.0));
    let w = world(0.0, Quat::IDENTITY, Vec3::new(0.0, 0.0, -10.0));
    assert!((read(&w, "", down)["diff_pressure"].as_f64().unwrap() - 61.25).abs() < 1e-9);
}

#[test]
fn above_the_model_there_is_no_air() {
    let w = world(50_000.0, Quat::IDENTITY, Vec3::new(300.0, 0.0, 0.0));
    let m = read(&w, "", Pose::IDENTITY);
    assert_eq!(m["diff_pressure"], 0.0);
    assert_eq!(m["temperature"], 0.0);
    assert_eq!(atmosphere::density(50_000.0), 0.0);
}

#[test]
fn noise_is_in_hectopascals_as_in_gazebo() {
    let noise = r#"<sensor name="pitot" type="air_speed"><air_speed><pressure><noise type="gaussian"><mean>0.02</mean><stddev>0.05</stddev></noise></pressure></air_speed></sensor>"#;
    let w = world(0.0, Quat::IDENTITY, Vec3::new(10.0, 0.0, 0.0));
    let mut s = create(&w, noise, Pose::IDENTITY, 7);
    let n = 20_000;
    let v: Vec<f64> = (0..n)
        .map(|_| {
            s.measure(Pose::IDENTITY, Vec3::new(10.0, 0.0, 0.0), 0.01)
                .diff_pressure
        })
        .collect();
    let m = v.iter().sum::<f64>() / n as f64;
    let sd = (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n as f64 - 1.0)).sqrt();
    // mean 0.02 hPa = 2 Pa, stddev 0.05 hPa = 5 Pa.
    assert!(
        (m - 63.25).abs() < 5.0 * 5.0 / (n as f64).sqrt(),
        "mean {m}"
    );
    assert!((sd - 5.0).abs() < 0.15, "stddev {sd}");
    let msg = only_reading(&w.with(|w| run_update(&mut s, &w)));
    assert_eq!(msg["pressure_noise"]["type"], "GAUSSIAN");
    assert_eq!(msg["pressure_noise"]["stddev"], 0.05);

    let run = |seed| {
        let mut s = create(&w, noise, Pose::IDENTITY, seed);
        (0..4)
            .map(|_| only_reading(&w.with(|w| run_update(&mut s, &w)))["diff_pressure"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}

#[test]
fn the_message_names_gaussian_noise_even_without_deviation() {
    let w = world(0.0, Quat::IDENTITY, Vec3::new(10.0, 0.0, 0.0));
    let zero = r#"<sensor><air_speed><pressure><noise type="gaussian"><stddev>0</stddev></noise></pressure></air_speed></sensor>"#;
    let m = read(&w, zero, Pose::IDENTITY);
    assert_eq!(m["pressure_noise"]["type"], "GAUSSIAN");
    assert!((m["diff_pressure"].as_f64().unwrap() - 61.25).abs() < 1e-9);
    // Type none: no noise and no pressure_noise, whatever the numbers say.
    let none = r#"<sensor><air_speed><pressure><noise type="none"><stddev>3</stddev></noise></pressure></air_speed></sensor>"#;
    let m = read(&w, none, Pose::IDENTITY);
    assert!(m.get("pressure_noise").is_none(), "{m}");
    assert!((m["diff_pressure"].as_f64().unwrap() - 61.25).abs() < 1e-9);
}

#[test]
fn missing_link_is_a_runtime_error() {
    let w = StaticWorld::default();
    let mut s = create(&w, "", Pose::IDENTITY, 0);
    let e = w.with(|w| try_update(&mut s, &w)).unwrap_err();
    assert_runtime_error(&e, NAME);
}

#[test]
fn bad_noise_names_sensor_element_and_text() {
    let w = world(0.0, Quat::IDENTITY, Vec3::ZERO);
    for (text, element, found) in [
        (
            r#"<sensor><air_speed><pressure><noise type="gaussian"><stddev>-1</stddev></noise></pressure></air_speed></sensor>"#,
            "<air_speed><pressure><noise><stddev>",
            "-1",
        ),
        (
            r#"<sensor><air_speed><pressure><noise type="gaussian"><mean>fast</mean></noise></pressure></air_speed></sensor>"#,
            "<air_speed><pressure><noise><mean>",
            "fast",
        ),
        (
            r#"<sensor><air_speed><pressure><noise type="pink"/></pressure></air_speed></sensor>"#,
            "<air_speed><pressure><noise>",
            "pink",
        ),
    ] {
        let config = sensor_config(NAME, "air_speed", LINK, text);
        let e = w.with(|w| AirSpeedSensor::create(&config, &w)).unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_config_error(&e, NAME, element, found);
    }
}
