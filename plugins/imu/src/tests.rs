//! Tests of the sensor through its public API, against `StaticWorld`.

use crate::ImuSensor;
use sim_plugin_api::{
    EntityId, ErrorCode, Imu, KinematicState, LogLevel, Outputs, Payload, Pose, Quat, Sensor,
    SimTime, UpdateContext, Vec3,
    abi_stable::std_types::RVec,
    testing::{StaticWorld, run_update, sensor_config, update_context},
};
use simcore_plugin_common::SdfSensor;
use std::f64::consts::{FRAC_PI_2, PI};

const LINK: EntityId = EntityId(7);
const NAME: &str = "robot::base::imu";
const G: f64 = 9.8;

fn sdf(imu_body: &str) -> String {
    format!(
        r#"<sensor name="imu" type="imu"><update_rate>100</update_rate><imu>{imu_body}</imu></sensor>"#
    )
}

/// A world one step after the start (an IMU publishes nothing before the first step).
fn world(state: KinematicState) -> StaticWorld {
    let mut w = StaticWorld::default();
    w.time = w.step;
    w.set_kinematics(LINK, state);
    w
}

fn at_pose(orientation: Quat) -> KinematicState {
    KinematicState {
        pose: Pose::new(Vec3::new(1.0, -2.0, 0.5), orientation),
        ..Default::default()
    }
}

fn try_create(
    world: &StaticWorld,
    sdf: &str,
    pose_in_link: Pose,
    seed: u64,
) -> Result<ImuSensor, sim_plugin_api::PluginError> {
    let mut config = sensor_config(NAME, "imu", LINK, sdf);
    config.pose = pose_in_link;
    config.seed = seed;
    world.with(|w| ImuSensor::create(&config, &w))
}

fn create(world: &StaticWorld, sdf: &str, pose_in_link: Pose, seed: u64) -> ImuSensor {
    try_create(world, sdf, pose_in_link, seed).unwrap_or_else(|e| panic!("create failed: {e}"))
}

fn only_imu(messages: &[sim_plugin_api::Message]) -> Imu {
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].topic.as_str(), "");
    match messages[0].payload.as_enum() {
        Ok(Payload::Imu(imu)) => (**imu).clone(),
        other => panic!("expected an IMU payload, got {other:?}"),
    }
}

fn read(sensor: &mut ImuSensor, world: &StaticWorld) -> Imu {
    only_imu(&world.with(|w| run_update(sensor, &w)))
}

/// One update with `dt` seconds since the previous one.
fn read_dt(sensor: &mut ImuSensor, world: &StaticWorld, dt: f64) -> Imu {
    let ctx = UpdateContext {
        now: world.time,
        dt: SimTime::from_secs_f64(dt),
        step: world.step,
        update_count: 1,
        forced: false,
    };
    let mut out = RVec::new();
    world
        .with(|w| sensor.update(&ctx, &w, &mut Outputs::new(&mut out)))
        .unwrap();
    only_imu(&out)
}

fn assert_vec(actual: Vec3, expected: Vec3, tol: f64) {
    assert!(
        (actual - expected).length() < tol,
        "expected {expected:?}, got {actual:?} (off by {})",
        (actual - expected).length()
    );
}

/// Whether two unit quaternions are the same rotation (q and -q are).
fn assert_rotation(actual: Quat, expected: Quat) {
    let e = expected.normalized();
    let dot = actual.x * e.x + actual.y * e.y + actual.z * e.z + actual.w * e.w;
    assert!(
        (dot.abs() - 1.0).abs() < 1e-12,
        "expected {expected:?}, got {actual:?}"
    );
}

fn yaw(a: f64) -> Quat {
    Quat::from_rpy(0.0, 0.0, a)
}

// --- linear acceleration -------------------------------------------------------------------

#[test]
fn at_rest_reads_plus_g_up() {
    let w = world(at_pose(Quat::IDENTITY));
    let mut s = create(&w, &sdf(""), Pose::IDENTITY, 0);
    let imu = read(&mut s, &w);
    assert_vec(imu.linear_acceleration, Vec3::new(0.0, 0.0, G), 1e-9);
    assert_vec(imu.angular_velocity, Vec3::ZERO, 1e-12);
    assert!(imu.has_orientation);
    assert_rotation(imu.orientation, Quat::IDENTITY);
    // The sensor's scoped name, as gz-sensors' ImuSensor reports its Name().
    assert_eq!(imu.entity_name.as_str(), "robot::base::imu");
    assert_eq!(imu.orientation_covariance, [0.0; 9]);
    assert_eq!(imu.angular_velocity_covariance, [0.0; 9]);
    assert_eq!(imu.linear_acceleration_covariance, [0.0; 9]);
}

#[test]
fn missing_imu_element_is_all_defaults() {
    let w = world(at_pose(yaw(1.0)));
    let mut s = create(&w, r#"<sensor name="imu" type="imu"/>"#, Pose::IDENTITY, 0);
    let imu = read(&mut s, &w);
    assert_vec(imu.linear_acceleration, Vec3::new(0.0, 0.0, G), 1e-9);
    assert!(imu.has_orientation);
    assert_rotation(imu.orientation, Quat::IDENTITY);
}

#[test]
fn free_fall_reads_zero() {
    let mut state = at_pose(Quat::from_rpy(0.3, -0.2, 1.1));
    state.linear_acceleration = Vec3::new(0.0, 0.0, -G);
    state.linear_velocity = Vec3::new(0.0, 0.0, -3.0);
    let w = world(state);
    let mut s = create(
        &w,
        &sdf(""),
        Pose::from_xyz_rpy(0.0, 0.0, 0.0, 0.0, 0.5, 0.0),
        0,
    );
    assert_vec(read(&mut s, &w).linear_acceleration, Vec3::ZERO, 1e-9);
}

#[test]
fn rotated_sensor_reads_gravity_on_the_right_axis() {
    // Link rolled +90 deg about x: the sensor's +Y points up.
    let w = world(at_pose(Quat::from_rpy(FRAC_PI_2, 0.0, 0.0)));
    let mut s = create(&w, &sdf(""), Pose::IDENTITY, 0);
    assert_vec(
        read(&mut s, &w).linear_acceleration,
        Vec3::new(0.0, G, 0.0),
        1e-9,
    );

    // The same roll given as the sensor's pose in a level link.
    let w = world(at_pose(Quat::IDENTITY));
    let mut s = create(
        &w,
        &sdf(""),
        Pose::from_xyz_rpy(0.1, 0.2, 0.3, FRAC_PI_2, 0.0, 0.0),
        0,
    );
    assert_vec(
        read(&mut s, &w).linear_acceleration,
        Vec3::new(0.0, G, 0.0),
        1e-9,
    );

    // Rolled -90 deg: +Y points down.
    let w = world(at_pose(Quat::from_rpy(-FRAC_PI_2, 0.0, 0.0)));
    let mut s = create(&w, &sdf(""), Pose::IDENTITY, 0);
    assert_vec(
        read(&mut s, &w).linear_acceleration,
        Vec3::new(0.0, -G, 0.0),
        1e-9,
    );

    // Pitched +90 deg about y: the sensor's +X points down.
    let w = world(at_pose(Quat::from_rpy(0.0, FRAC_PI_2, 0.0)));
    let mut s = create(&w, &sdf(""), Pose::IDENTITY, 0);
    assert_vec(
        read(&mut s, &w).linear_acceleration,
        Vec3::new(-G, 0.0, 0.0),
        1e-9,
    );
}

#[test]
fn link_acceleration_adds_to_gravity() {
    // Accelerating east at 2 m/s^2 while yawed +90 deg (sensor +X north, +Y west).
    let mut state = at_pose(yaw(FRAC_PI_2));
    state.linear_acceleration = Vec3::new(2.0, 0.0, 0.0);
    let w = world(state);
    let mut s = create(&w, &sdf(""), Pose::IDENTITY, 0);
    assert_vec(
        read(&mut s, &w).linear_acceleration,
        Vec3::new(0.0, -2.0, G),
        1e-9,
    );
}

#[test]
fn gravity_is_read_every_update() {
    let mut w = world(at_pose(Quat::IDENTITY));
    let mut s = create(&w, &sdf(""), Pose::IDENTITY, 0);
    assert_vec(
        read(&mut s, &w).linear_acceleration,
        Vec3::new(0.0, 0.0, G),
        1e-9,
    );
    w.gravity = Vec3::new(0.0, 0.0, -1.62);
    assert_vec(
        read(&mut s, &w).linear_acceleration,
        Vec3::new(0.0, 0.0, 1.62),
        1e-9,
    );
    w.gravity = Vec3::new(1.0, 0.0, 0.0);
    assert_vec(
        read(&mut s, &w).linear_acceleration,
        Vec3::new(-1.0, 0.0, 0.0),
        1e-9,
    );
}

#[test]
fn offset_sensor_on_spinning_link_reads_lever_arm_terms() {
    // Spinning at 2 rad/s about world z; the sensor 0.5 m along the link's +X.
    let offset = Pose::from_xyz_rpy(0.5, 0.0, 0.0, 0.0, 0.0, 0.0);
    let mut state = at_pose(Quat::IDENTITY);
    state.angular_velocity = Vec3::new(0.0, 0.0, 2.0);
    let w = world(state);
    let mut s = create(&w, &sdf(""), offset, 0);
    let imu = read(&mut s, &w);
    // Centripetal: -|w|^2 r = (-2, 0, 0), towards the axis.
    assert_vec(imu.linear_acceleration, Vec3::new(-2.0, 0.0, G), 1e-9);
    assert_vec(imu.angular_velocity, Vec3::new(0.0, 0.0, 2.0), 1e-12);

    // The lever arm turns with the link: yawed +90 deg the sensor sits at world +Y and the
    // centripetal term still points along the sensor's -X.
    let mut state = at_pose(yaw(FRAC_PI_2));
    state.angular_velocity = Vec3::new(0.0, 0.0, 2.0);
    let w = world(state);
    let mut s = create(&w, &sdf(""), offset, 0);
    assert_vec(
        read(&mut s, &w).linear_acceleration,
        Vec3::new(-2.0, 0.0, G),
        1e-9,
    );

    // Angular acceleration 3 rad/s^2 about z adds the tangential term alpha x r = (0, 1.5, 0).
    let mut state = at_pose(Quat::IDENTITY);
    state.angular_velocity = Vec3::new(0.0, 0.0, 2.0);
    state.angular_acceleration = Vec3::new(0.0, 0.0, 3.0);
    let w = world(state);
    let mut s = create(&w, &sdf(""), offset, 0);
    assert_vec(
        read(&mut s, &w).linear_acceleration,
        Vec3::new(-2.0, 1.5, G),
        1e-9,
    );

    // A sensor at the link origin feels none of it.
    let mut s = create(&w, &sdf(""), Pose::IDENTITY, 0);
    assert_vec(
        read(&mut s, &w).linear_acceleration,
        Vec3::new(0.0, 0.0, G),
        1e-9,
    );
}

// --- angular velocity ----------------------------------------------------------------------

#[test]
fn angular_velocity_is_in_the_sensor_frame() {
    let mut state = at_pose(Quat::IDENTITY);
    state.angular_velocity = Vec3::new(0.0, 0.0, 1.0);
    let w = world(state);
    // Sensor rolled +90 deg on the link: its +Y is world up.
    let mut s = create(
        &w,
        &sdf(""),
        Pose::from_xyz_rpy(0.0, 0.0, 0.0, FRAC_PI_2, 0.0, 0.0),
        0,
    );
    assert_vec(
        read(&mut s, &w).angular_velocity,
        Vec3::new(0.0, 1.0, 0.0),
        1e-12,
    );

    // Link yawed +90 deg, spinning about world x (east): that is the sensor's -Y.
    let mut state = at_pose(yaw(FRAC_PI_2));
    state.angular_velocity = Vec3::new(0.7, 0.0, 0.0);
    let w = world(state);
    let mut s = create(&w, &sdf(""), Pose::IDENTITY, 0);
    assert_vec(
        read(&mut s, &w).angular_velocity,
        Vec3::new(0.0, -0.7, 0.0),
        1e-12,
    );
}

// --- orientation ---------------------------------------------------------------------------

#[test]
fn orientation_is_relative_to_the_initial_pose() {
    let w0 = world(at_pose(yaw(0.3)));
    let mut s = create(&w0, &sdf(""), Pose::IDENTITY, 0);
    assert_rotation(read(&mut s, &w0).orientation, Quat::IDENTITY);

    let w1 = world(at_pose(yaw(0.8)));
    let imu = read(&mut s, &w1);
    assert_rotation(imu.orientation, yaw(0.5));
    let (r, p, y) = imu.orientation.to_rpy();
    assert!(r.abs() < 1e-12 && p.abs() < 1e-12 && (y - 0.5).abs() < 1e-12);

    // With a mounting rotation the change is expressed in the initial sensor frame.
    let mount = Quat::from_rpy(0.4, -0.1, 0.2);
    let mut s = create(&w0, &sdf(""), Pose::new(Vec3::ZERO, mount), 0);
    assert_rotation(read(&mut s, &w0).orientation, Quat::IDENTITY);
    assert_rotation(
        read(&mut s, &w1).orientation,
        mount.inverse() * yaw(0.5) * mount,
    );
}

#[test]
fn reference_is_taken_at_creation_not_at_first_update() {
    let w0 = world(at_pose(yaw(0.3)));
    let mut s = create(&w0, &sdf(""), Pose::IDENTITY, 0);
    let w1 = world(at_pose(yaw(1.0)));
    assert_rotation(read(&mut s, &w1).orientation, yaw(0.7));
}

#[test]
fn reference_waits_for_a_link_unknown_at_creation() {
    let empty = StaticWorld::default();
    let mut s = create(&empty, &sdf(""), Pose::IDENTITY, 0);
    assert_eq!(s.reference(), None);
    let w = world(at_pose(yaw(1.2)));
    assert_rotation(read(&mut s, &w).orientation, Quat::IDENTITY);
}

#[test]
fn reset_retakes_the_reference() {
    let w0 = world(at_pose(yaw(0.3)));
    let mut s = create(&w0, &sdf(""), Pose::IDENTITY, 0);
    let w1 = world(at_pose(yaw(-0.4)));
    assert_rotation(read(&mut s, &w1).orientation, yaw(-0.7));
    w1.with(|w| Sensor::reset(&mut s, &w)).unwrap();
    assert_rotation(read(&mut s, &w1).orientation, Quat::IDENTITY);

    // A fixed frame is not affected.
    let mut s = create(&w0, &sdf(ENU), Pose::IDENTITY, 0);
    w1.with(|w| Sensor::reset(&mut s, &w)).unwrap();
    assert_rotation(read(&mut s, &w1).orientation, yaw(-0.4));
}

const ENU: &str =
    "<orientation_reference_frame><localization>ENU</localization></orientation_reference_frame>";
const NED: &str =
    "<orientation_reference_frame><localization>NED</localization></orientation_reference_frame>";
const NWU: &str =
    "<orientation_reference_frame><localization>NWU</localization></orientation_reference_frame>";

/// The orientation reported by a fresh sensor in `frame` on a link at world orientation `q`.
fn orientation_in(frame: &str, q: Quat) -> Quat {
    let w = world(at_pose(q));
    let mut s = create(&w, &sdf(frame), Pose::IDENTITY, 0);
    read(&mut s, &w).orientation
}

#[test]
fn enu_reports_world_orientation() {
    let north = yaw(FRAC_PI_2);
    assert_rotation(orientation_in(ENU, Quat::IDENTITY), Quat::IDENTITY);
    assert_rotation(orientation_in(ENU, north), north);
    let q = Quat::from_rpy(0.1, 0.2, -2.5);
    assert_rotation(orientation_in(ENU, q), q);
}

#[test]
fn ned_conventions() {
    // Level, +X north: yaw 0, and roll pi because NED's +Z points down.
    let o = orientation_in(NED, yaw(FRAC_PI_2));
    assert_rotation(o, Quat::from_rpy(PI, 0.0, 0.0));
    let (_, p, y) = o.to_rpy();
    assert!(p.abs() < 1e-12 && y.abs() < 1e-12);
    // Level, +X east: yaw +pi/2 (east is clockwise from north seen from above).
    assert_rotation(
        orientation_in(NED, Quat::IDENTITY),
        Quat::from_rpy(PI, 0.0, FRAC_PI_2),
    );
    // A sensor mounted upside down (+Z down), +X north, is aligned with NED.
    assert_rotation(
        orientation_in(NED, yaw(FRAC_PI_2) * Quat::from_rpy(PI, 0.0, 0.0)),
        Quat::IDENTITY,
    );
    // +X north-east, level: heading 45 deg, as a compass reads it.
    let o = orientation_in(NED, yaw(PI / 4.0));
    assert_rotation(o, Quat::from_rpy(PI, 0.0, PI / 4.0));
}

#[test]
fn nwu_conventions() {
    // Level, +X north: identity (yaw 0).
    assert_rotation(orientation_in(NWU, yaw(FRAC_PI_2)), Quat::IDENTITY);
    // Level, +X east: yaw -pi/2; +X west: yaw +pi/2.
    assert_rotation(orientation_in(NWU, Quat::IDENTITY), yaw(-FRAC_PI_2));
    assert_rotation(orientation_in(NWU, yaw(PI)), yaw(FRAC_PI_2));
    // Tilts keep their sense: rolled 0.2 about its own +X, facing north.
    assert_rotation(
        orientation_in(NWU, yaw(FRAC_PI_2) * Quat::from_rpy(0.2, 0.0, 0.0)),
        Quat::from_rpy(0.2, 0.0, 0.0),
    );
}

#[test]
fn custom_rpy_in_world_is_a_fixed_frame() {
    let custom = |rpy: &str| {
        format!(
            r#"<orientation_reference_frame><localization>CUSTOM</localization><custom_rpy parent_frame="world">{rpy}</custom_rpy></orientation_reference_frame>"#
        )
    };
    // A frame yawed +90 deg is NWU.
    let q = Quat::from_rpy(0.3, -0.2, 0.9);
    assert_rotation(
        orientation_in(&custom("0 0 1.5707963267948966"), q),
        orientation_in(NWU, q),
    );
    // pi 0 pi/2 is NED.
    assert_rotation(
        orientation_in(&custom("3.141592653589793 0 1.5707963267948966"), q),
        orientation_in(NED, q),
    );
    // In general: custom_rpy^-1 * R_ws.
    let frame = Quat::from_rpy(0.1, 0.2, 0.3);
    assert_rotation(
        orientation_in(&custom("0.1 0.2 0.3"), q),
        frame.inverse() * q,
    );
}

#[test]
fn custom_rpy_with_another_parent_warns_once_and_uses_the_initial_pose() {
    let w = world(at_pose(yaw(0.6)));
    let body = r#"<orientation_reference_frame><localization>CUSTOM</localization><custom_rpy parent_frame="base_link">0 0 1</custom_rpy></orientation_reference_frame>"#;
    let mut s = create(&w, &sdf(body), Pose::IDENTITY, 0);
    for _ in 0..3 {
        assert_rotation(read(&mut s, &w).orientation, Quat::IDENTITY);
    }
    let logs = w.logs.lock().unwrap();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0].0, LogLevel::WARN);
    assert!(
        logs[0].1.contains(NAME) && logs[0].1.contains("base_link"),
        "{}",
        logs[0].1
    );
}

#[test]
fn orientation_can_be_disabled() {
    let mut state = at_pose(Quat::from_rpy(FRAC_PI_2, 0.0, 0.0));
    state.angular_velocity = Vec3::new(0.0, 0.0, 1.0);
    let w = world(state);
    for frame in ["", ENU, NED] {
        let body = format!("{frame}<enable_orientation>false</enable_orientation>");
        let mut s = create(&w, &sdf(&body), Pose::IDENTITY, 0);
        let imu = read(&mut s, &w);
        assert!(!imu.has_orientation);
        assert_eq!(imu.orientation, Quat::IDENTITY);
        assert_vec(imu.linear_acceleration, Vec3::new(0.0, G, 0.0), 1e-9);
        assert_vec(imu.angular_velocity, Vec3::new(0.0, 1.0, 0.0), 1e-12);
    }
}

// --- noise ---------------------------------------------------------------------------------

fn noisy(params: &str) -> String {
    let axis = |a: &str| format!(r#"<{a}><noise type="gaussian">{params}</noise></{a}>"#);
    let axes = format!("{}{}{}", axis("x"), axis("y"), axis("z"));
    sdf(&format!(
        "<angular_velocity>{axes}</angular_velocity><linear_acceleration>{axes}</linear_acceleration>"
    ))
}

/// All six components of `n` readings, in x, y, z angular then linear order.
fn samples(s: &mut ImuSensor, w: &StaticWorld, n: usize, dt: f64) -> [Vec<f64>; 6] {
    let mut out: [Vec<f64>; 6] = Default::default();
    for _ in 0..n {
        let imu = read_dt(s, w, dt);
        let v = [
            imu.angular_velocity.x,
            imu.angular_velocity.y,
            imu.angular_velocity.z,
            imu.linear_acceleration.x,
            imu.linear_acceleration.y,
            imu.linear_acceleration.z,
        ];
        for (o, x) in out.iter_mut().zip(v) {
            o.push(x);
        }
    }
    out
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt(),
    )
}

const TRUE_VALUES: [f64; 6] = [0.0, 0.0, 0.0, 0.0, 0.0, G];

#[test]
fn white_noise_statistics() {
    let (mean, sd, n) = (0.02, 0.05, 20_000);
    let w = world(at_pose(Quat::IDENTITY));
    let mut s = create(
        &w,
        &noisy(&format!("<mean>{mean}</mean><stddev>{sd}</stddev>")),
        Pose::IDENTITY,
        1234,
    );
    for (k, v) in samples(&mut s, &w, n, 0.01).iter().enumerate() {
        let (m, d) = mean_sd(v);
        let sigma_mean = sd / (n as f64).sqrt();
        let sigma_sd = sd / (2.0 * n as f64).sqrt();
        assert!(
            (m - TRUE_VALUES[k] - mean).abs() < 5.0 * sigma_mean,
            "axis {k}: mean {m}"
        );
        assert!((d - sd).abs() < 5.0 * sigma_sd, "axis {k}: stddev {d}");
    }
}

#[test]
fn constant_bias_has_the_bias_magnitude() {
    let (n, sd, bias) = (5_000, 0.01, 0.3);
    let w = world(at_pose(Quat::IDENTITY));
    let mut s = create(
        &w,
        &noisy(&format!(
            "<stddev>{sd}</stddev><bias_mean>{bias}</bias_mean>"
        )),
        Pose::IDENTITY,
        99,
    );
    for (k, v) in samples(&mut s, &w, n, 0.01).iter().enumerate() {
        let (m, _) = mean_sd(v);
        // The sign of the bias is drawn once per stream.
        assert!(
            ((m - TRUE_VALUES[k]).abs() - bias).abs() < 5.0 * sd / (n as f64).sqrt(),
            "axis {k}: mean {m}"
        );
    }
}

#[test]
fn dynamic_bias_uses_the_update_dt() {
    let w = world(at_pose(Quat::IDENTITY));
    let params = "<dynamic_bias_stddev>0.1</dynamic_bias_stddev>\
                  <dynamic_bias_correlation_time>1</dynamic_bias_correlation_time>";
    // dt = 0 (first update, after a reset): the dynamic bias does not move.
    let mut s = create(&w, &noisy(params), Pose::IDENTITY, 5);
    for v in samples(&mut s, &w, 10, 0.0) {
        assert!(v.iter().all(|x| *x == v[0]));
    }
    // With the real dt it wanders.
    let mut s = create(&w, &noisy(params), Pose::IDENTITY, 5);
    for (k, v) in samples(&mut s, &w, 10, 0.01).iter().enumerate() {
        assert!(
            v.iter().any(|x| (x - TRUE_VALUES[k]).abs() > 1e-6),
            "axis {k}: {v:?}"
        );
    }
}

#[test]
fn precision_quantises() {
    let w = world(at_pose(Quat::IDENTITY));
    let body = r#"<linear_acceleration><z><noise type="gaussian_quantized"><precision>0.5</precision></noise></z></linear_acceleration>"#;
    let mut s = create(&w, &sdf(body), Pose::IDENTITY, 0);
    assert_eq!(read(&mut s, &w).linear_acceleration.z, 10.0);
}

#[test]
fn type_none_adds_no_noise() {
    let w = world(at_pose(Quat::IDENTITY));
    let body = r#"<linear_acceleration><z><noise type="none"><mean>1</mean><stddev>1</stddev></noise></z></linear_acceleration>"#;
    let mut s = create(&w, &sdf(body), Pose::IDENTITY, 0);
    let imu = read(&mut s, &w);
    assert_eq!(imu.linear_acceleration.z, G);
    assert_eq!(imu.linear_acceleration_covariance, [0.0; 9]);
}

fn bits(imu: &Imu) -> Vec<u64> {
    let v = [imu.angular_velocity, imu.linear_acceleration];
    v.iter()
        .flat_map(|v| v.to_array())
        .chain([
            imu.orientation.x,
            imu.orientation.y,
            imu.orientation.z,
            imu.orientation.w,
        ])
        .map(f64::to_bits)
        .collect()
}

#[test]
fn seeded_noise_is_reproducible_and_seed_dependent() {
    let mut state = at_pose(Quat::from_rpy(0.1, 0.2, 0.3));
    state.angular_velocity = Vec3::new(0.1, -0.2, 0.3);
    let w = world(state);
    let body = noisy(
        "<mean>0.01</mean><stddev>0.1</stddev><bias_mean>0.05</bias_mean><bias_stddev>0.02</bias_stddev>\
         <dynamic_bias_stddev>0.01</dynamic_bias_stddev><dynamic_bias_correlation_time>2</dynamic_bias_correlation_time>",
    );
    let mut a = create(&w, &body, Pose::IDENTITY, 42);
    let mut b = create(&w, &body, Pose::IDENTITY, 42);
    let mut c = create(&w, &body, Pose::IDENTITY, 43);
    let mut differs = false;
    for _ in 0..100 {
        let (ia, ib, ic) = (
            read_dt(&mut a, &w, 0.01),
            read_dt(&mut b, &w, 0.01),
            read_dt(&mut c, &w, 0.01),
        );
        assert_eq!(bits(&ia), bits(&ib));
        differs |= bits(&ia) != bits(&ic);
    }
    assert!(differs, "seeds 42 and 43 gave the same output");
}

#[test]
fn each_axis_has_its_own_stream() {
    let w = world(at_pose(Quat::IDENTITY));
    let mut s = create(&w, &noisy("<stddev>1</stddev>"), Pose::IDENTITY, 7);
    let all = samples(&mut s, &w, 20, 0.01);
    let offsets: Vec<Vec<f64>> = all
        .iter()
        .zip(TRUE_VALUES)
        .map(|(v, t)| v.iter().map(|x| x - t).collect())
        .collect();
    for i in 0..6 {
        for j in i + 1..6 {
            assert_ne!(offsets[i], offsets[j], "axes {i} and {j} share a stream");
        }
    }
}

#[test]
fn covariances_are_white_noise_variances() {
    let w = world(at_pose(Quat::IDENTITY));
    let body = r#"
        <angular_velocity>
          <x><noise type="gaussian"><stddev>0.1</stddev><bias_stddev>5</bias_stddev></noise></x>
          <y><noise type="gaussian"><stddev>0.2</stddev></noise></y>
          <z><noise type="gaussian_quantized"><stddev>0.3</stddev></noise></z>
        </angular_velocity>
        <linear_acceleration>
          <x><noise type="none"><stddev>5</stddev></noise></x>
          <z><noise type="gaussian"><stddev>0.5</stddev></noise></z>
        </linear_acceleration>"#;
    let mut s = create(&w, &sdf(body), Pose::IDENTITY, 0);
    let imu = read(&mut s, &w);
    let close = |a: [f64; 9], b: [f64; 9]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-15);
    assert!(
        close(
            imu.angular_velocity_covariance,
            [0.01, 0.0, 0.0, 0.0, 0.04, 0.0, 0.0, 0.0, 0.09]
        ),
        "{:?}",
        imu.angular_velocity_covariance
    );
    assert!(
        close(
            imu.linear_acceleration_covariance,
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25]
        ),
        "{:?}",
        imu.linear_acceleration_covariance
    );
    assert_eq!(imu.orientation_covariance, [0.0; 9]);
}

// --- configuration and errors ----------------------------------------------------------------

fn config_error(body: &str) -> String {
    let w = world(at_pose(Quat::IDENTITY));
    let e = try_create(&w, &sdf(body), Pose::IDENTITY, 0).expect_err("expected a config error");
    assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
    assert!(e.message.contains(NAME), "{e}");
    e.message.to_string()
}

#[test]
fn bad_values_are_config_errors() {
    for (body, element, found) in [
        (
            r#"<linear_acceleration><y><noise type="gaussian"><bias_mean>0.1.2</bias_mean></noise></y></linear_acceleration>"#,
            "<imu><linear_acceleration><y><noise><bias_mean>",
            "0.1.2",
        ),
        (
            r#"<angular_velocity><x><noise type="pink"><stddev>1</stddev></noise></x></angular_velocity>"#,
            "<imu><angular_velocity><x><noise> type",
            "pink",
        ),
        (
            r#"<angular_velocity><y><noise type="gaussian"><stddev>-1</stddev></noise></y></angular_velocity>"#,
            "<imu><angular_velocity><y><noise><stddev>",
            "-1",
        ),
        (
            r#"<linear_acceleration><z><noise type="gaussian"><precision>-0.1</precision></noise></z></linear_acceleration>"#,
            "<imu><linear_acceleration><z><noise><precision>",
            "-0.1",
        ),
    ] {
        let m = config_error(body);
        assert!(
            m.contains(element) && m.contains(&format!("\"{found}\"")),
            "{m}"
        );
    }
}

#[test]
fn configuration_errors_name_the_file_and_line() {
    let w = world(at_pose(Quat::IDENTITY));
    let text = "<sensor name=\"imu\" type=\"imu\">\n  <imu>\n    \
                <orientation_reference_frame>\n      <localization>NEU</localization>\n    \
                </orientation_reference_frame>\n  </imu>\n</sensor>";
    let config = sensor_config(NAME, "imu", LINK, text).with_source("world.sdf", 40);
    let e = w.with(|w| ImuSensor::create(&config, &w)).unwrap_err();
    assert_eq!(
        e.message.as_str(),
        "robot::base::imu: <imu><orientation_reference_frame><localization> must be one of ENU, NED, NWU, CUSTOM, found \"NEU\" at world.sdf:43"
    );
}

#[test]
fn update_fails_when_the_link_is_gone() {
    let w = world(at_pose(Quat::IDENTITY));
    let mut s = create(&w, &sdf(""), Pose::IDENTITY, 0);
    let empty = StaticWorld::default();
    let mut out = RVec::new();
    let e = empty
        .with(|w| s.update(&update_context(&w), &w, &mut Outputs::new(&mut out)))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::RUNTIME);
    assert!(e.message.contains(NAME));
    assert!(out.is_empty());
}

#[test]
fn entity_name_is_the_sensors_scoped_name_whatever_the_frame_id() {
    let w = world(at_pose(Quat::IDENTITY));
    let mut config = sensor_config("outer::inner::link::imu", "imu", LINK, "");
    config.frame_id = "imu_link".into();
    let s = w.with(|w| ImuSensor::create(&config, &w)).unwrap();
    assert_eq!(s.entity_name(), "outer::inner::link::imu");
}

/// Before the first physics step nothing has been measured (a falling body's acceleration is
/// still 0, which would read +g as at rest): the IMU publishes nothing then, as Gazebo's
/// first sample comes after the first step; from the next update on it publishes.
#[test]
fn nothing_before_the_first_step() {
    let mut w = world(at_pose(Quat::IDENTITY));
    w.time = SimTime::ZERO;
    let mut s = create(&w, &sdf(""), Pose::IDENTITY, 0);
    assert!(w.with(|w| run_update(&mut s, &w)).is_empty());
    w.time = w.step;
    let imu = read(&mut s, &w);
    assert_vec(imu.linear_acceleration, Vec3::new(0.0, 0.0, G), 1e-9);
}
