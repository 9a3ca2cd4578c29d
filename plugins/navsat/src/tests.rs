//! Tests of the sensor through its public API, against `StaticWorld`.
//!
//! Expected positions are computed here independently of [`crate::geodesy`]: the ENU axes at
//! the origin are built as explicit unit vectors, the origin's ECEF position uses the
//! `N·(1 − e²)` form with `e² = f·(2 − f)`, and latitude and height are found by fixed-point
//! iteration (`φ ← atan2(Z, p·(1 − e²·N/(N + h)))`, iterated to convergence) instead of
//! Bowring's closed form. First-order checks from the ellipsoid's radii of curvature (a
//! distance east of the origin divided by `N·cos φ` is the longitude change; north, divided by
//! the meridian radius `M`, the latitude change) guard against both being wrong the same way.

use crate::{NavSatSensor, geodesy::LocalFrame};
use sim_plugin_api::{
    EntityId, KinematicState, LogLevel, Message, NavSat, Payload, Pose, Quat, SphericalCoordinates,
    Vec3,
    testing::{StaticWorld, run_update, sensor_config, try_update},
};
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::testing::{assert_config_error, assert_runtime_error};

const LINK: EntityId = EntityId(3);
const NAME: &str = "rover::base::gps";
const A: f64 = 6_378_137.0;
const B: f64 = 6_356_752.314245;

fn spherical(lat: f64, lon: f64, elevation: f64, heading: f64) -> SphericalCoordinates {
    SphericalCoordinates {
        latitude_deg: lat,
        longitude_deg: lon,
        elevation,
        heading_deg: heading,
        equatorial_axis: A,
        polar_axis: B,
    }
}

fn origin() -> SphericalCoordinates {
    spherical(37.5, -122.3, 10.0, 0.0)
}

/// Latitude (deg), longitude (deg) and height (m) of world point `p`, computed independently
/// (see the module docs).
fn reference(sc: &SphericalCoordinates, p: Vec3) -> (f64, f64, f64) {
    let (a, b) = (sc.equatorial_axis, sc.polar_axis);
    let f = (a - b) / a;
    let e2 = f * (2.0 - f);
    let (phi, lambda) = (sc.latitude_deg.to_radians(), sc.longitude_deg.to_radians());
    let n0 = a / (1.0 - e2 * phi.sin().powi(2)).sqrt();
    let origin = Vec3::new(
        (n0 + sc.elevation) * phi.cos() * lambda.cos(),
        (n0 + sc.elevation) * phi.cos() * lambda.sin(),
        (n0 * (1.0 - e2) + sc.elevation) * phi.sin(),
    );
    let east = Vec3::new(-lambda.sin(), lambda.cos(), 0.0);
    let north = Vec3::new(
        -phi.sin() * lambda.cos(),
        -phi.sin() * lambda.sin(),
        phi.cos(),
    );
    let up = Vec3::new(
        phi.cos() * lambda.cos(),
        phi.cos() * lambda.sin(),
        phi.sin(),
    );
    // The world's +X is turned by the heading from east towards north.
    let h = sc.heading_deg.to_radians();
    let x_axis = east * h.cos() + north * h.sin();
    let y_axis = east * -h.sin() + north * h.cos();
    let q = origin + x_axis * p.x + y_axis * p.y + up * p.z;

    let lon = q.y.atan2(q.x);
    let r = q.x.hypot(q.y);
    let mut lat = q.z.atan2(r * (1.0 - e2));
    let mut height = 0.0;
    for _ in 0..100 {
        let n = a / (1.0 - e2 * lat.sin().powi(2)).sqrt();
        height = r / lat.cos() - n;
        let next = q.z.atan2(r * (1.0 - e2 * n / (n + height)));
        let done = (next - lat).abs() < 1e-16;
        lat = next;
        if done {
            break;
        }
    }
    (lat.to_degrees(), lon.to_degrees(), height)
}

/// Radius of curvature in the prime vertical, N, and of the meridian, M, at `lat_deg`.
fn radii(lat_deg: f64) -> (f64, f64) {
    let e2 = 1.0 - B * B / (A * A);
    let s2 = lat_deg.to_radians().sin().powi(2);
    let n = A / (1.0 - e2 * s2).sqrt();
    let m = A * (1.0 - e2) / (1.0 - e2 * s2).powf(1.5);
    (n, m)
}

fn at(position: Vec3, velocity: Vec3) -> KinematicState {
    KinematicState {
        pose: Pose::new(position, Quat::IDENTITY),
        linear_velocity: velocity,
        ..Default::default()
    }
}

fn world(sc: Option<SphericalCoordinates>, state: KinematicState) -> StaticWorld {
    let mut w = StaticWorld::default();
    w.spherical = sc;
    w.set_kinematics(LINK, state);
    w
}

fn try_create(
    world: &StaticWorld,
    sdf: &str,
    seed: u64,
) -> Result<NavSatSensor, sim_plugin_api::PluginError> {
    let mut config = sensor_config(NAME, "navsat", LINK, sdf);
    config.seed = seed;
    world.with(|w| NavSatSensor::create(&config, &w))
}

fn create(world: &StaticWorld, sdf: &str, seed: u64) -> NavSatSensor {
    try_create(world, sdf, seed).unwrap_or_else(|e| panic!("create failed: {e}"))
}

fn only_fix(messages: &[Message]) -> NavSat {
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].topic.as_str(), "");
    match messages[0].payload.as_enum() {
        Ok(Payload::NavSat(n)) => (**n).clone(),
        other => panic!("expected a NavSat payload, got {other:?}"),
    }
}

fn read(world: &StaticWorld, sdf: &str) -> NavSat {
    let mut s = create(world, sdf, 0);
    only_fix(&world.with(|w| run_update(&mut s, &w)))
}

fn fix_at(sc: SphericalCoordinates, position: Vec3, velocity: Vec3) -> NavSat {
    read(&world(Some(sc), at(position, velocity)), "")
}

fn assert_matches_reference(sc: &SphericalCoordinates, p: Vec3) -> NavSat {
    let fix = fix_at(*sc, p, Vec3::ZERO);
    let (lat, lon, alt) = reference(sc, p);
    assert!(
        (fix.latitude_deg - lat).abs() < 1e-9,
        "latitude {} vs reference {lat}",
        fix.latitude_deg
    );
    assert!(
        (fix.longitude_deg - lon).abs() < 1e-9,
        "longitude {} vs reference {lon}",
        fix.longitude_deg
    );
    assert!(
        (fix.altitude - alt).abs() < 1e-6,
        "altitude {} vs reference {alt}",
        fix.altitude
    );
    fix
}

// --- position ------------------------------------------------------------------------------

#[test]
fn at_the_origin_reads_the_origin() {
    let fix = fix_at(origin(), Vec3::ZERO, Vec3::ZERO);
    assert!((fix.latitude_deg - 37.5).abs() < 1e-10);
    assert!((fix.longitude_deg + 122.3).abs() < 1e-10);
    assert!((fix.altitude - 10.0).abs() < 1e-6);
    assert_eq!(fix.frame_id.as_str(), NAME);
}

#[test]
fn a_point_1000_m_east() {
    let sc = origin();
    let fix = assert_matches_reference(&sc, Vec3::new(1000.0, 0.0, 0.0));
    // First order: the longitude grows by 1000 m / (N cos φ); the latitude barely moves (the
    // tangent plane leaves the parallel, by about 1e-6 degrees here).
    let (n, _) = radii(37.5);
    let dlon = (1000.0 / ((n + 10.0) * 37.5f64.to_radians().cos())).to_degrees();
    assert!(
        (fix.longitude_deg - (-122.3 + dlon)).abs() < 1e-7,
        "{fix:?}"
    );
    assert!((fix.latitude_deg - 37.5).abs() < 1e-5, "{fix:?}");
    assert!(fix.latitude_deg < 37.5);
    // The tangent plane rises above the ellipsoid by d² / (2N): about 7.8 cm.
    assert!(
        (fix.altitude - (10.0 + 1000.0f64.powi(2) / (2.0 * n))).abs() < 1e-3,
        "{fix:?}"
    );
}

#[test]
fn a_point_1000_m_north() {
    let sc = origin();
    let fix = assert_matches_reference(&sc, Vec3::new(0.0, 1000.0, 0.0));
    let (_, m) = radii(37.5);
    let dlat = (1000.0 / (m + 10.0)).to_degrees();
    assert!((fix.latitude_deg - (37.5 + dlat)).abs() < 1e-7, "{fix:?}");
    assert!((fix.longitude_deg + 122.3).abs() < 1e-12, "{fix:?}");
    assert!(
        (fix.altitude - (10.0 + 1000.0f64.powi(2) / (2.0 * m))).abs() < 1e-3,
        "{fix:?}"
    );
}

#[test]
fn other_places_match_the_reference() {
    for sc in [
        spherical(0.0, 0.0, 0.0, 0.0),
        spherical(-33.86, 151.21, 58.0, 0.0),
        spherical(78.2, 15.6, -3.0, 45.0),
        spherical(-89.5, -179.9, 2835.0, -120.0),
        spherical(37.5, -122.3, 10.0, 12.5),
    ] {
        for p in [
            Vec3::new(1000.0, 0.0, 0.0),
            Vec3::new(-2500.0, 4000.0, 150.0),
            Vec3::new(12.0, -7.0, -3.0),
        ] {
            assert_matches_reference(&sc, p);
        }
    }
}

#[test]
fn heading_90_turns_world_x_to_north() {
    let sc90 = spherical(37.5, -122.3, 10.0, 90.0);
    // World +X at heading 90° is north: the same fix as world +Y at heading 0.
    let a = assert_matches_reference(&sc90, Vec3::new(1000.0, 0.0, 0.0));
    let b = fix_at(origin(), Vec3::new(0.0, 1000.0, 0.0), Vec3::ZERO);
    assert!((a.latitude_deg - b.latitude_deg).abs() < 1e-12);
    assert!((a.longitude_deg - b.longitude_deg).abs() < 1e-12);
    assert!((a.altitude - b.altitude).abs() < 1e-8);
    assert!(a.latitude_deg > 37.5);
    // World +Y at heading 90° is west.
    let c = assert_matches_reference(&sc90, Vec3::new(0.0, 1000.0, 0.0));
    let d = fix_at(origin(), Vec3::new(-1000.0, 0.0, 0.0), Vec3::ZERO);
    assert!((c.longitude_deg - d.longitude_deg).abs() < 1e-12);
    assert!(c.longitude_deg < -122.3);
}

#[test]
fn altitude_follows_height() {
    for z in [-5.0, 0.0, 25.0, 1234.5] {
        let fix = fix_at(origin(), Vec3::new(0.0, 0.0, z), Vec3::ZERO);
        assert!((fix.altitude - (10.0 + z)).abs() < 1e-6, "{z}: {fix:?}");
        assert!((fix.latitude_deg - 37.5).abs() < 1e-10);
    }
}

#[test]
fn custom_ellipsoid_from_the_world() {
    // A sphere of radius 1737400 m (the Moon's mean radius), origin on the equator at
    // longitude 0: a point 1000 m east on the tangent plane is at ECEF (R, 1000, 0).
    let r = 1_737_400.0;
    let sc = SphericalCoordinates {
        equatorial_axis: r,
        polar_axis: r,
        ..spherical(0.0, 0.0, 0.0, 0.0)
    };
    let fix = fix_at(sc, Vec3::new(1000.0, 0.0, 0.0), Vec3::ZERO);
    assert!((fix.longitude_deg - (1000.0f64 / r).atan().to_degrees()).abs() < 1e-12);
    assert!(fix.latitude_deg.abs() < 1e-12);
    assert!((fix.altitude - (r.hypot(1000.0) - r)).abs() < 1e-6);
}

#[test]
fn sensor_pose_in_the_link_counts() {
    let w = world(Some(origin()), at(Vec3::new(0.0, 0.0, 1.0), Vec3::ZERO));
    let mut config = sensor_config(NAME, "navsat", LINK, "");
    config.pose = Pose::new(Vec3::new(0.0, 0.0, 0.5), Quat::IDENTITY);
    let mut s = w.with(|w| NavSatSensor::create(&config, &w)).unwrap();
    let fix = only_fix(&w.with(|w| run_update(&mut s, &w)));
    assert!((fix.altitude - 11.5).abs() < 1e-6, "{fix:?}");
}

// --- velocity ------------------------------------------------------------------------------

#[test]
fn velocity_is_east_north_up() {
    let fix = fix_at(origin(), Vec3::ZERO, Vec3::new(1.0, 2.0, -3.0));
    assert_eq!(
        (fix.velocity_east, fix.velocity_north, fix.velocity_up),
        (1.0, 2.0, -3.0)
    );
}

#[test]
fn velocity_with_heading() {
    // Heading 90°: moving along world +X is moving north.
    let fix = fix_at(
        spherical(37.5, -122.3, 10.0, 90.0),
        Vec3::ZERO,
        Vec3::new(1.0, 0.0, 0.5),
    );
    assert!(fix.velocity_east.abs() < 1e-15, "{fix:?}");
    assert!((fix.velocity_north - 1.0).abs() < 1e-15, "{fix:?}");
    assert_eq!(fix.velocity_up, 0.5);
    // Heading 30°: world +Y (speed 2) points 30° west of north.
    let fix = fix_at(
        spherical(37.5, -122.3, 10.0, 30.0),
        Vec3::ZERO,
        Vec3::new(0.0, 2.0, 0.0),
    );
    assert!((fix.velocity_east + 1.0).abs() < 1e-12, "{fix:?}");
    assert!((fix.velocity_north - 3f64.sqrt()).abs() < 1e-12, "{fix:?}");
    // And the velocity agrees with the motion of the fix: 1 s later at 2 m/s along world +Y.
    let later = fix_at(
        spherical(37.5, -122.3, 10.0, 30.0),
        Vec3::new(0.0, 2.0, 0.0),
        Vec3::ZERO,
    );
    let (n, m) = radii(37.5);
    let east = (later.longitude_deg + 122.3).to_radians() * n * 37.5f64.to_radians().cos();
    let north = (later.latitude_deg - 37.5).to_radians() * m;
    assert!((east - fix.velocity_east).abs() < 1e-4, "{east}");
    assert!((north - fix.velocity_north).abs() < 1e-4, "{north}");
}

#[test]
fn velocity_of_an_offset_sensor_on_a_turning_link() {
    // Link spinning at 1 rad/s about z; sensor 2 m along its +X: it moves at 2 m/s along +Y.
    let state = KinematicState {
        angular_velocity: Vec3::new(0.0, 0.0, 1.0),
        ..at(Vec3::ZERO, Vec3::ZERO)
    };
    let w = world(Some(origin()), state);
    let mut config = sensor_config(NAME, "navsat", LINK, "");
    config.pose = Pose::new(Vec3::new(2.0, 0.0, 0.0), Quat::IDENTITY);
    let mut s = w.with(|w| NavSatSensor::create(&config, &w)).unwrap();
    let fix = only_fix(&w.with(|w| run_update(&mut s, &w)));
    assert!(fix.velocity_east.abs() < 1e-12);
    assert!((fix.velocity_north - 2.0).abs() < 1e-12);
}

// --- without spherical coordinates ---------------------------------------------------------

/// The documented difference from Gazebo, which publishes latitude 0, longitude 0, altitude 0
/// there (and warns every update): no fix rather than a wrong one.
#[test]
fn without_spherical_coordinates_warns_once_and_publishes_nothing() {
    let mut w = world(None, at(Vec3::ZERO, Vec3::ZERO));
    let mut s = create(&w, "", 0);
    assert!(s.warned_missing_spherical_coordinates());
    for _ in 0..3 {
        assert!(w.with(|w| run_update(&mut s, &w)).is_empty());
    }
    let logs = w.logs.lock().unwrap().clone();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0].0, LogLevel::WARN);
    assert!(
        logs[0].1.starts_with(NAME) && logs[0].1.contains("<spherical_coordinates>"),
        "{}",
        logs[0].1
    );
    // Once the world has them, it publishes.
    w.spherical = Some(origin());
    let fix = only_fix(&w.with(|w| run_update(&mut s, &w)));
    assert!((fix.latitude_deg - 37.5).abs() < 1e-10);
    assert_eq!(w.logs.lock().unwrap().len(), 1);
}

#[test]
fn with_spherical_coordinates_logs_nothing() {
    let w = world(Some(origin()), at(Vec3::ZERO, Vec3::ZERO));
    let mut s = create(&w, "", 0);
    w.with(|w| run_update(&mut s, &w));
    assert!(w.logs.lock().unwrap().is_empty());
    assert!(!s.warned_missing_spherical_coordinates());
}

// --- messages and errors -------------------------------------------------------------------

#[test]
fn frame_id_is_the_configured_frame() {
    let w = world(Some(origin()), at(Vec3::ZERO, Vec3::ZERO));
    let mut config = sensor_config(NAME, "gps", LINK, "");
    config.frame_id = "gps_link".into();
    let mut s = w.with(|w| NavSatSensor::create(&config, &w)).unwrap();
    let fix = only_fix(&w.with(|w| run_update(&mut s, &w)));
    assert_eq!(fix.frame_id.as_str(), "gps_link");
    config.frame_id = "".into();
    let mut s = w.with(|w| NavSatSensor::create(&config, &w)).unwrap();
    let fix = only_fix(&w.with(|w| run_update(&mut s, &w)));
    assert_eq!(fix.frame_id.as_str(), NAME);
}

#[test]
fn missing_link_is_a_runtime_error() {
    let mut w = StaticWorld::default();
    w.spherical = Some(origin());
    let mut s = create(&w, "", 0);
    let e = w.with(|w| try_update(&mut s, &w)).unwrap_err();
    assert_runtime_error(&e, NAME);
}

#[test]
fn bad_configuration_names_sensor_element_and_text() {
    let w = world(Some(origin()), at(Vec3::ZERO, Vec3::ZERO));
    let e = try_create(
        &w,
        r#"<sensor name="gps" type="navsat"><navsat><position_sensing><horizontal><noise type="gaussian"><stddev>-2</stddev></noise></horizontal></position_sensing></navsat></sensor>"#,
        0,
    )
    .unwrap_err();
    assert_config_error(
        &e,
        NAME,
        "<navsat><position_sensing><horizontal><noise><stddev>",
        "-2",
    );
}

#[test]
fn configuration_errors_name_the_file_and_line() {
    let w = world(Some(origin()), at(Vec3::ZERO, Vec3::ZERO));
    let text = "<sensor name=\"gps\" type=\"navsat\">\n  <navsat>\n    <velocity_sensing>\n      \
                <vertical><noise type=\"gaussian\"><stddev>fast</stddev></noise></vertical>\n    \
                </velocity_sensing>\n  </navsat>\n</sensor>";
    let config = sensor_config(NAME, "navsat", LINK, text).with_source("world.sdf", 40);
    let e = w.with(|w| NavSatSensor::create(&config, &w)).unwrap_err();
    assert_eq!(
        e.message.as_str(),
        "rover::base::gps: <navsat><velocity_sensing><vertical><noise><stddev> must be a finite number, found \"fast\" at world.sdf:43"
    );
}

// --- noise ---------------------------------------------------------------------------------

fn noisy_sdf(h_pos: f64, v_pos: f64, h_vel: f64, v_vel: f64) -> String {
    let noise = |s: f64| format!(r#"<noise type="gaussian"><stddev>{s}</stddev></noise>"#);
    format!(
        r#"<sensor name="gps" type="navsat"><navsat>
             <position_sensing><horizontal>{}</horizontal><vertical>{}</vertical></position_sensing>
             <velocity_sensing><horizontal>{}</horizontal><vertical>{}</vertical></velocity_sensing>
           </navsat></sensor>"#,
        noise(h_pos),
        noise(v_pos),
        noise(h_vel),
        noise(v_vel)
    )
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt(),
    )
}

#[test]
fn horizontal_noise_is_in_metres_per_axis() {
    let sc = origin();
    let w = world(Some(sc), at(Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0)));
    let mut s = create(&w, &noisy_sdf(5.0, 2.0, 0.3, 0.1), 11);
    let (n, m) = radii(37.5);
    let cos = 37.5f64.to_radians().cos();
    let mut east = Vec::new();
    let mut north = Vec::new();
    let mut alt = Vec::new();
    let mut ve = Vec::new();
    let mut vu = Vec::new();
    for _ in 0..20_000 {
        let fix = s.measure(&sc, &at(Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0)), 0.01);
        east.push((fix.longitude_deg + 122.3).to_radians() * (n + 10.0) * cos);
        north.push((fix.latitude_deg - 37.5).to_radians() * (m + 10.0));
        alt.push(fix.altitude);
        ve.push(fix.velocity_east);
        vu.push(fix.velocity_up);
    }
    let k = 20_000f64.sqrt();
    for (name, v, mean, sd) in [
        ("east", &east, 0.0, 5.0),
        ("north", &north, 0.0, 5.0),
        ("altitude", &alt, 10.0, 2.0),
        ("v_east", &ve, 1.0, 0.3),
        ("v_up", &vu, 0.0, 0.1),
    ] {
        let (mu, sigma) = mean_sd(v);
        assert!((mu - mean).abs() < 5.0 * sd / k, "{name}: mean {mu}");
        assert!((sigma - sd).abs() < 0.03 * sd, "{name}: stddev {sigma}");
    }
    // East and north have their own streams: uncorrelated.
    let corr =
        east.iter().zip(&north).map(|(a, b)| a * b).sum::<f64>() / (east.len() as f64 * 25.0);
    assert!(corr.abs() < 0.05, "correlation {corr}");
}

#[test]
fn noise_is_reproducible_by_seed() {
    let w = world(Some(origin()), at(Vec3::ZERO, Vec3::ZERO));
    let sdf = noisy_sdf(1.0, 1.0, 1.0, 1.0);
    let run = |seed| {
        let mut s = create(&w, &sdf, seed);
        (0..5)
            .map(|_| only_fix(&w.with(|w| run_update(&mut s, &w))))
            .map(|f| {
                (
                    f.latitude_deg,
                    f.longitude_deg,
                    f.altitude,
                    f.velocity_north,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(run(4), run(4));
    assert_ne!(run(4), run(5));
}

#[test]
fn frame_is_rebuilt_when_the_coordinates_change() {
    let mut s = create(&world(Some(origin()), at(Vec3::ZERO, Vec3::ZERO)), "", 0);
    let a = s.measure(&origin(), &at(Vec3::ZERO, Vec3::ZERO), 0.0);
    let other = spherical(-10.0, 20.0, 0.0, 0.0);
    let b = s.measure(&other, &at(Vec3::ZERO, Vec3::ZERO), 0.0);
    assert!((a.latitude_deg - 37.5).abs() < 1e-10);
    assert!((b.latitude_deg + 10.0).abs() < 1e-10);
    assert_eq!(LocalFrame::new(&other).source(), &other);
}
