//! Tests of the sensor through its public API, against `StaticWorld`.

use crate::AltimeterSensor;
use sim_plugin_api::{
    Altimeter, EntityId, KinematicState, Message, Payload, Pose, Quat, Sensor, Vec3,
    testing::{StaticWorld, run_update, sensor_config, try_update},
};
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::testing::{assert_config_error, assert_runtime_error};
use std::f64::consts::PI;

const LINK: EntityId = EntityId(4);
const NAME: &str = "drone::body::alt";

fn at(z: f64, vz: f64) -> KinematicState {
    KinematicState {
        pose: Pose::new(Vec3::new(3.0, -1.0, z), Quat::IDENTITY),
        linear_velocity: Vec3::new(0.7, 0.2, vz),
        ..Default::default()
    }
}

fn world(state: KinematicState) -> StaticWorld {
    let mut w = StaticWorld::default();
    w.set_kinematics(LINK, state);
    w
}

fn create_with(world: &StaticWorld, sdf: &str, pose: Pose, seed: u64) -> AltimeterSensor {
    let mut config = sensor_config(NAME, "altimeter", LINK, sdf);
    config.pose = pose;
    config.seed = seed;
    world
        .with(|w| AltimeterSensor::create(&config, &w))
        .unwrap_or_else(|e| panic!("create failed: {e}"))
}

fn create(world: &StaticWorld, sdf: &str) -> AltimeterSensor {
    create_with(world, sdf, Pose::IDENTITY, 0)
}

fn only_reading(messages: &[Message]) -> Altimeter {
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].topic.as_str(), "");
    match messages[0].payload.as_enum() {
        Ok(Payload::Altimeter(a)) => (**a).clone(),
        other => panic!("expected an Altimeter payload, got {other:?}"),
    }
}

fn read(sensor: &mut AltimeterSensor, world: &StaticWorld) -> Altimeter {
    only_reading(&world.with(|w| run_update(sensor, &w)))
}

#[test]
fn at_rest_reads_zero_above_its_initial_height() {
    let w = world(at(2.5, 0.0));
    let mut s = create(&w, "");
    assert_eq!(s.reference(), Some(2.5));
    let a = read(&mut s, &w);
    assert_eq!(
        a,
        Altimeter {
            vertical_position: 0.0,
            vertical_velocity: 0.0,
            vertical_reference: 2.5,
        }
    );
}

#[test]
fn height_and_vertical_velocity_after_moving() {
    let mut w = world(at(2.5, 0.0));
    let mut s = create(&w, "");
    w.set_kinematics(LINK, at(-1.5, -3.25));
    let a = read(&mut s, &w);
    assert_eq!(a.vertical_position, -4.0);
    assert_eq!(a.vertical_velocity, -3.25);
    assert_eq!(a.vertical_reference, 2.5);
}

#[test]
fn the_sensor_pose_in_the_link_counts() {
    // Sensor 0.5 m above the link origin; the link upside down puts it 0.5 m below.
    let w = world(at(1.0, 0.0));
    let pose = Pose::new(Vec3::new(0.0, 0.0, 0.5), Quat::IDENTITY);
    let mut s = create_with(&w, "", pose, 0);
    assert_eq!(s.reference(), Some(1.5));
    let mut flipped = at(1.0, 0.0);
    flipped.pose.orientation = Quat::from_rpy(PI, 0.0, 0.0);
    let w2 = world(flipped);
    let a = read(&mut s, &w2);
    assert!((a.vertical_position + 1.0).abs() < 1e-12, "{a:?}");
    // A link turning about x at 2 rad/s with the sensor 0.5 m along its +y: v_z = 1 m/s.
    let turning = KinematicState {
        angular_velocity: Vec3::new(2.0, 0.0, 0.0),
        ..at(1.0, 0.0)
    };
    let pose_y = Pose::new(Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY);
    let w3 = world(turning);
    let mut s3 = create_with(&w3, "", pose_y, 0);
    assert!((read(&mut s3, &w3).vertical_velocity - 1.0).abs() < 1e-12);
}

#[test]
fn reference_is_taken_at_the_first_update_without_a_link_at_creation() {
    let mut w = StaticWorld::default();
    let mut s = create(&w, "");
    assert_eq!(s.reference(), None);
    w.set_kinematics(LINK, at(7.0, 1.0));
    let a = read(&mut s, &w);
    assert_eq!((a.vertical_position, a.vertical_reference), (0.0, 7.0));
    assert_eq!(a.vertical_velocity, 1.0);
}

#[test]
fn reset_keeps_the_reference() {
    let mut w = world(at(2.0, 0.0));
    let mut s = create(&w, "");
    w.set_kinematics(LINK, at(5.0, 0.0));
    w.with(|w| s.reset(&w)).unwrap();
    assert_eq!(read(&mut s, &w).vertical_position, 3.0);
}

#[test]
fn missing_link_is_a_runtime_error() {
    let w = StaticWorld::default();
    let mut s = create(&w, "");
    let e = w.with(|w| try_update(&mut s, &w)).unwrap_err();
    assert_runtime_error(&e, NAME);
}

#[test]
fn bad_configuration_names_sensor_element_and_text() {
    let w = world(at(0.0, 0.0));
    let config = sensor_config(
        NAME,
        "altimeter",
        LINK,
        r#"<sensor><altimeter><vertical_velocity><noise type="gaussian"><bias_stddev>-1</bias_stddev></noise></vertical_velocity></altimeter></sensor>"#,
    );
    let e = w
        .with(|w| AltimeterSensor::create(&config, &w))
        .unwrap_err();
    assert_config_error(
        &e,
        NAME,
        "<altimeter><vertical_velocity><noise><bias_stddev>",
        "-1",
    );
}

#[test]
fn configuration_errors_name_the_file_and_line() {
    let text = "<sensor name=\"alt\" type=\"altimeter\">\n  <altimeter>\n    <vertical_position>\n      \
                <noise type=\"gaussian\"><stddev>high</stddev></noise>\n    </vertical_position>\n  \
                </altimeter>\n</sensor>";
    let config = sensor_config(NAME, "altimeter", LINK, text).with_source("world.sdf", 40);
    let e = world(at(0.0, 0.0))
        .with(|w| AltimeterSensor::create(&config, &w))
        .unwrap_err();
    assert_eq!(
        e.message.as_str(),
        "drone::body::alt: <altimeter><vertical_position><noise><stddev> must be a finite number, found \"high\" at world.sdf:43"
    );
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt(),
    )
}

const NOISY: &str = r#"<sensor name="alt" type="altimeter"><altimeter>
    <vertical_position><noise type="gaussian"><mean>0.1</mean><stddev>0.5</stddev></noise></vertical_position>
    <vertical_velocity><noise type="gaussian"><stddev>0.2</stddev></noise></vertical_velocity>
  </altimeter></sensor>"#;

#[test]
fn noise_statistics_and_seeds() {
    let w = world(at(10.0, -2.0));
    let mut s = create_with(&w, NOISY, Pose::IDENTITY, 3);
    let n = 20_000;
    let (mut p, mut v) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let a = s.measure(&at(12.0, -2.0), 0.01);
        assert_eq!(a.vertical_reference, 10.0);
        p.push(a.vertical_position);
        v.push(a.vertical_velocity);
    }
    let k = (n as f64).sqrt();
    let (mp, sp) = mean_sd(&p);
    let (mv, sv) = mean_sd(&v);
    assert!((mp - 2.1).abs() < 5.0 * 0.5 / k, "position mean {mp}");
    assert!((sp - 0.5).abs() < 0.015, "position stddev {sp}");
    assert!((mv + 2.0).abs() < 5.0 * 0.2 / k, "velocity mean {mv}");
    assert!((sv - 0.2).abs() < 0.006, "velocity stddev {sv}");

    let run = |seed| {
        let mut s = create_with(&w, NOISY, Pose::IDENTITY, seed);
        (0..4).map(|_| read(&mut s, &w)).collect::<Vec<_>>()
    };
    assert_eq!(run(8), run(8));
    assert_ne!(run(8), run(9));
}

#[test]
fn dynamic_bias_is_driven_by_dt() {
    let sdf = r#"<sensor><altimeter><vertical_position><noise type="gaussian">
        <dynamic_bias_stddev>1</dynamic_bias_stddev>
        <dynamic_bias_correlation_time>10</dynamic_bias_correlation_time>
      </noise></vertical_position></altimeter></sensor>"#;
    let w = world(at(0.0, 0.0));
    let mut s = create_with(&w, sdf, Pose::IDENTITY, 1);
    // dt = 0: no drift; dt > 0: the bias moves.
    assert!((0..10).all(|_| s.measure(&at(0.0, 0.0), 0.0).vertical_position == 0.0));
    let moved = (0..10).any(|_| s.measure(&at(0.0, 0.0), 0.1).vertical_position != 0.0);
    assert!(moved);
}
