//! The pan-tilt-zoom head, loaded as a real library on a real jointed model: commanded angles
//! are reached, limits hold, and zoom reaches the camera sensor's plugin as its
//! `horizontal_fov` (through the testkit's parameter-recording sensor).

use crate::common;

use common::*;
use sim_core::runner::Simulation;
use sim_plugin_api::{Message, Payload, Vec3};

const CMD: &str = "/model/head/ptz/cmd";
const STATE: &str = "/model/head/ptz/state";
const CAMERA: &str = "/world/test/model/head/link/tilt/sensor/cam/fixture_parameters";

/// A head fixed to the world: base -> pan (revolute about z, joint limits +-2) -> tilt
/// (revolute about y, +-1), a camera on the tilt link. The plugin limits are tighter than the
/// joints'.
fn head() -> String {
    let inertial = "<inertial><mass>0.5</mass><inertia><ixx>0.002</ixx><iyy>0.002</iyy><izz>0.002</izz></inertia></inertial>";
    let shape =
        "<collision name='c'><geometry><box><size>0.1 0.1 0.1</size></box></geometry></collision>";
    format!(
        r#"<model name="head"><pose>0 0 1 0 0 0</pose>
      <link name="base">{inertial}{shape}</link>
      <link name="pan"><pose>0 0 0.15 0 0 0</pose>{inertial}{shape}</link>
      <link name="tilt"><pose>0 0 0.3 0 0 0</pose>{inertial}{shape}
        <sensor name="cam" type="fixture_parameters"><update_rate>100</update_rate></sensor>
      </link>
      <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
      <joint name="pan_joint" type="revolute"><parent>base</parent><child>pan</child>
        <axis><xyz>0 0 1</xyz><limit><lower>-2</lower><upper>2</upper></limit></axis></joint>
      <joint name="tilt_joint" type="revolute"><parent>pan</parent><child>tilt</child>
        <axis><xyz>0 1 0</xyz><limit><lower>-1</lower><upper>1</upper></limit></axis></joint>
      <plugin filename="simcore_plugin_ptz" name="simcore::PanTiltZoom">
        <pan_joint>pan_joint</pan_joint><tilt_joint>tilt_joint</tilt_joint>
        <camera>tilt::cam</camera>
        <pan_min>-1.5</pan_min><pan_max>1.5</pan_max>
        <tilt_min>-0.6</tilt_min><tilt_max>0.6</tilt_max>
        <zoom_min>0.2</zoom_min><zoom_max>1.6</zoom_max>
        <p_gain>8</p_gain><i_gain>0.5</i_gain><i_max>0.05</i_max><max_velocity>3</max_velocity>
        <state_publish_frequency>0</state_publish_frequency>
      </plugin>
    </model>"#
    )
}

fn sim() -> (Simulation, tempfile::TempDir) {
    let dir = stage(&["simcore_plugin_ptz", "simcore_fixture_testkit"]);
    (sim_from(&world(&head()), dir.path(), 0, 1), dir)
}

fn command(sim: &mut Simulation, pan: f64, tilt: f64, zoom: f64) {
    let t = sim.bus_mut().intern(CMD);
    sim.bus_mut().publish(
        t,
        Message::new("", Payload::Vector3(Vec3::new(pan, tilt, zoom))),
    );
}

fn angles(sim: &Simulation) -> (f64, f64) {
    let a = |j: &str| {
        let id = sim.physics().entity_id(j).unwrap();
        sim.physics().joint_state(id).unwrap().position[0]
    };
    (a("head::pan_joint"), a("head::tilt_joint"))
}

fn steps(sim: &mut Simulation, n: usize) {
    for _ in 0..n {
        let f = sim.step();
        assert!(f.is_empty(), "{f:?}");
    }
}

#[test]
fn reaches_commanded_angles_within_the_limits() {
    let (mut sim, _dir) = sim();
    let state = sim.bus_mut().subscribe(STATE, 100_000);
    steps(&mut sim, 100);
    command(&mut sim, 0.8, -0.4, 0.0);
    steps(&mut sim, 2000);
    let (pan, tilt) = angles(&sim);
    println!("commanded 0.8, -0.4: reached {pan:.4}, {tilt:.4}");
    assert!((pan - 0.8).abs() < 0.01, "pan {pan}");
    assert!((tilt + 0.4).abs() < 0.01, "tilt {tilt}");
    let last = match collect(&state).pop().unwrap().2 {
        Payload::Vector3(v) => v,
        other => panic!("{other:?}"),
    };
    assert!(
        (last.x - pan).abs() < 0.01 && (last.y - tilt).abs() < 0.01,
        "{last:?}"
    );

    // Beyond the plugin's limits: clamped to them, never past them on the way.
    command(&mut sim, 3.0, -2.0, 0.0);
    let mut extreme = (0.0f64, 0.0f64);
    for _ in 0..3000 {
        assert!(sim.step().is_empty());
        let (p, t) = angles(&sim);
        extreme = (extreme.0.max(p), extreme.1.min(t));
    }
    let (pan, tilt) = angles(&sim);
    println!("commanded 3, -2: reached {pan:.4}, {tilt:.4}; extremes {extreme:?}");
    assert!((pan - 1.5).abs() < 0.01, "pan {pan}");
    assert!((tilt + 0.6).abs() < 0.01, "tilt {tilt}");
    assert!(
        extreme.0 < 1.5 + 0.05 && extreme.1 > -0.6 - 0.05,
        "{extreme:?}"
    );
}

#[test]
fn zoom_sets_the_cameras_horizontal_fov() {
    let (mut sim, _dir) = sim();
    let cam = sim.bus_mut().subscribe(CAMERA, 100_000);
    let state = sim.bus_mut().subscribe(STATE, 100_000);
    steps(&mut sim, 20);
    let before = collect(&cam);
    assert!(
        before
            .iter()
            .all(|(_, _, p)| matches!(p, Payload::Double(v) if v.is_nan())),
        "nothing sent before a zoom command"
    );
    command(&mut sim, 0.0, 0.0, 0.9);
    steps(&mut sim, 20);
    let fov = |sub| match collect(sub).pop().unwrap().2 {
        Payload::Double(v) => v,
        other => panic!("{other:?}"),
    };
    assert_eq!(fov(&cam), 0.9, "the camera got the new horizontal_fov");
    // Clamped to the zoom limits; zero keeps the zoom.
    command(&mut sim, 0.0, 0.0, 3.0);
    steps(&mut sim, 20);
    assert_eq!(fov(&cam), 1.6);
    command(&mut sim, 0.2, 0.0, 0.0);
    steps(&mut sim, 20);
    assert_eq!(fov(&cam), 1.6);
    match collect(&state).pop().unwrap().2 {
        Payload::Vector3(v) => assert_eq!(v.z, 1.6, "the state reports the zoom"),
        other => panic!("{other:?}"),
    }
    assert!(sim.failures().is_empty());
}

/// With the real camera plugin on the head, a zoom changes the published `camera_info`: fx
/// follows W / (2 tan(hfov / 2)) for the new field of view.
#[test]
fn zoom_changes_the_camera_info_intrinsics() {
    let camera = "<sensor name='cam' type='camera'><update_rate>50</update_rate>\
        <camera><horizontal_fov>1.0</horizontal_fov><image><width>64</width><height>48</height></image>\
        <clip><near>0.1</near><far>50</far></clip></camera></sensor>";
    let text = head().replace(
        "<sensor name=\"cam\" type=\"fixture_parameters\"><update_rate>100</update_rate></sensor>",
        camera,
    );
    assert!(text.contains("type='camera'"));
    let dir = stage(&["simcore_plugin_ptz", "simcore_plugin_camera"]);
    let mut sim = sim_from(&world(&text), dir.path(), 0, 1);
    let info = sim.bus_mut().subscribe(
        "/world/test/model/head/link/tilt/sensor/cam/camera_info",
        1000,
    );
    let fx = |sub| match collect(sub).pop().expect("camera_info published").2 {
        Payload::CameraInfo(c) => c.intrinsics[0],
        other => panic!("{other:?}"),
    };
    let expected = |hfov: f64| 64.0 / (2.0 * (hfov / 2.0).tan());
    steps(&mut sim, 50);
    let before = fx(&info);
    assert!((before - expected(1.0)).abs() < 1e-9, "fx {before}");
    command(&mut sim, 0.0, 0.0, 0.5);
    steps(&mut sim, 50);
    let after = fx(&info);
    assert!((after - expected(0.5)).abs() < 1e-9, "fx {after}");
    assert!(sim.failures().is_empty());
}

#[test]
fn bad_configurations_are_refused_at_load() {
    let dir = stage(&["simcore_plugin_ptz", "simcore_fixture_testkit"]);
    let load = |sdf: String| load_error(&world(&sdf), dir.path());
    let e = load(head().replace("<camera>tilt::cam</camera>", "<camera>tilt::none</camera>"));
    assert!(e.contains("<camera> `tilt::none`: no such sensor"), "{e}");
    let e = load(head().replace(
        "<tilt_joint>tilt_joint</tilt_joint>",
        "<tilt_joint>tilt</tilt_joint>",
    ));
    assert!(e.contains("`head::tilt` is a link, not a joint"), "{e}");
}
