//! Tests of the sensor through its public API, against `StaticWorld`.

use crate::{AirPressureSensor, atmosphere};
use sim_plugin_api::{
    EntityId, KinematicState, Message, Payload, Pose, Quat, Vec3,
    testing::{StaticWorld, run_update, sensor_config, try_update},
};
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::testing::{assert_config_error, assert_runtime_error};

const LINK: EntityId = EntityId(2);
const NAME: &str = "drone::body::baro";

fn world(z: f64) -> StaticWorld {
    let mut w = StaticWorld::default();
    w.set_kinematics(
        LINK,
        KinematicState {
            pose: Pose::new(Vec3::new(5.0, 5.0, z), Quat::IDENTITY),
            ..Default::default()
        },
    );
    w
}

fn create_with(world: &StaticWorld, sdf: &str, pose: Pose, seed: u64) -> AirPressureSensor {
    let mut config = sensor_config(NAME, "air_pressure", LINK, sdf);
    config.pose = pose;
    config.seed = seed;
    world
        .with(|w| AirPressureSensor::create(&config, &w))
        .unwrap_or_else(|e| panic!("create failed: {e}"))
}

fn only_reading(messages: &[Message]) -> (f64, f64) {
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].topic.as_str(), "");
    match messages[0].payload.as_enum() {
        Ok(Payload::FluidPressure { pressure, variance }) => (*pressure, *variance),
        other => panic!("expected a FluidPressure payload, got {other:?}"),
    }
}

fn read(world: &StaticWorld, sdf: &str, pose: Pose) -> (f64, f64) {
    let mut s = create_with(world, sdf, pose, 0);
    only_reading(&world.with(|w| run_update(&mut s, &w)))
}

fn sdf(reference_altitude: f64, noise: &str) -> String {
    format!(
        r#"<sensor name="baro" type="air_pressure"><air_pressure><reference_altitude>{reference_altitude}</reference_altitude>{noise}</air_pressure></sensor>"#
    )
}

#[test]
fn at_sea_level_reads_one_atmosphere() {
    let (p, v) = read(&world(0.0), "", Pose::IDENTITY);
    assert_eq!(p, 101_325.0);
    assert_eq!(v, 0.0);
}

#[test]
fn altitude_is_reference_plus_world_height() {
    let (p, _) = read(&world(200.0), &sdf(800.0, ""), Pose::IDENTITY);
    assert_eq!(p, atmosphere::pressure(1000.0));
    assert!((p - 89_876.0).abs() < 0.5, "{p}");
    // The sensor's pose in the link counts.
    let pose = Pose::new(Vec3::new(0.0, 0.0, -200.0), Quat::IDENTITY);
    let (p, _) = read(&world(200.0), &sdf(800.0, ""), pose);
    assert_eq!(p, atmosphere::pressure(800.0));
}

/// The documented difference from Gazebo: gz-sensors never reads `<reference_altitude>`, so
/// Gazebo reads the pressure of the world height alone (about 101,205 Pa at 10 m); simcore
/// adds the reference, as the SDF spec defines it (89,767 Pa at 10 m + 1000 m). Without
/// `<reference_altitude>` the two agree.
#[test]
fn the_reference_altitude_counts_unlike_in_gazebo() {
    let (ours, _) = read(&world(10.0), &sdf(1000.0, ""), Pose::IDENTITY);
    assert!((ours - 89_767.0).abs() < 1.0, "{ours}");
    let (gazebo, _) = read(&world(10.0), "", Pose::IDENTITY);
    assert!((gazebo - 101_205.0).abs() < 1.0, "{gazebo}");
}

#[test]
fn about_12_pa_per_metre_near_sea_level() {
    let (p0, _) = read(&world(0.0), "", Pose::IDENTITY);
    let (p1, _) = read(&world(1.0), "", Pose::IDENTITY);
    assert!((p0 - p1 - 12.0).abs() < 0.1, "{}", p0 - p1);
}

#[test]
fn noise_statistics_and_variance() {
    let noise =
        r#"<pressure><noise type="gaussian"><mean>1</mean><stddev>4</stddev></noise></pressure>"#;
    let w = world(10.0);
    let mut s = create_with(&w, &sdf(0.0, noise), Pose::IDENTITY, 21);
    assert_eq!(s.variance(), 16.0);
    let n = 20_000;
    let v: Vec<f64> = (0..n).map(|_| s.measure(10.0, 0.01)).collect();
    let m = v.iter().sum::<f64>() / n as f64;
    let sd = (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n as f64 - 1.0)).sqrt();
    let truth = atmosphere::pressure(10.0) + 1.0;
    assert!(
        (m - truth).abs() < 5.0 * 4.0 / (n as f64).sqrt(),
        "mean {m}"
    );
    assert!((sd - 4.0).abs() < 0.12, "stddev {sd}");
    let (_, variance) = only_reading(&w.with(|w| run_update(&mut s, &w)));
    assert_eq!(variance, 16.0);

    // A noise of type none reports no variance.
    let none = r#"<pressure><noise type="none"><stddev>4</stddev></noise></pressure>"#;
    assert_eq!(read(&w, &sdf(0.0, none), Pose::IDENTITY).1, 0.0);

    let run = |seed| {
        let mut s = create_with(&w, &sdf(0.0, noise), Pose::IDENTITY, seed);
        (0..4)
            .map(|_| only_reading(&w.with(|w| run_update(&mut s, &w))).0)
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
    let w = world(0.0);
    let text = sdf(f64::NAN, "");
    let config = sensor_config(NAME, "air_pressure", LINK, &text);
    let e = w
        .with(|w| AirPressureSensor::create(&config, &w))
        .unwrap_err();
    assert_config_error(&e, NAME, "<air_pressure><reference_altitude>", "NaN");
}

#[test]
fn configuration_errors_name_the_file_and_line() {
    let text = "<sensor name=\"baro\" type=\"air_pressure\">\n  <air_pressure>\n    \
                <reference_altitude>high</reference_altitude>\n  </air_pressure>\n</sensor>";
    let config = sensor_config(NAME, "air_pressure", LINK, text).with_source("world.sdf", 40);
    let e = world(0.0)
        .with(|w| AirPressureSensor::create(&config, &w))
        .unwrap_err();
    assert_eq!(
        e.message.as_str(),
        "drone::body::baro: <air_pressure><reference_altitude> must be a finite number, found \"high\" at world.sdf:42"
    );
}
