//! The fiducial finder, loaded as a real library, in a real world of marked boxes: ids, ranges
//! and bearings of known placements; markers behind an obstacle, outside the field of view or
//! out of range are not reported.

use crate::common;

use common::*;
use sim_core::runner::Simulation;
use sim_plugin_api::{Fiducial, Payload};

const TOPIC: &str = "/world/test/model/finder/link/body/sensor/fid/fiducial";

/// A static 0.4 m box at (x, y, 0.5) with yaw, whose visual's laser_retro is `retro`.
fn marked(name: &str, x: f64, y: f64, yaw: f64, retro: f64) -> String {
    format!(
        r#"<model name="{name}"><static>true</static><pose>{x} {y} 0.5 0 0 {yaw}</pose>
      <link name="l">
        <collision name="c"><geometry><box><size>0.4 0.4 0.4</size></box></geometry></collision>
        <visual name="v"><laser_retro>{retro}</laser_retro><geometry><box><size>0.4 0.4 0.4</size></box></geometry></visual>
      </link></model>"#
    )
}

fn scene(with_wall: bool) -> String {
    let finder = r#"<model name="finder"><static>true</static><pose>0 0 0.5 0 0 0</pose>
      <link name="body">
        <visual name="v"><laser_retro>99</laser_retro><geometry><box><size>0.2 0.2 0.2</size></box></geometry></visual>
        <sensor name="fid" type="fiducial"><update_rate>10</update_rate>
          <fiducial><range_min>0.3</range_min><range_max>8</range_max>
            <horizontal_fov>2.0</horizontal_fov><vertical_fov>1.0</vertical_fov></fiducial>
        </sensor>
      </link></model>"#;
    let wall = r#"<model name="wall"><static>true</static><pose>2.5 -1 0.5 0 0 0</pose>
      <link name="l"><visual name="v"><geometry><box><size>0.5 0.5 1</size></box></geometry></visual></link></model>"#;
    let mut models = vec![
        finder.to_string(),
        marked("straight", 3.0, 0.0, 0.0, 1.0),
        marked("left", 2.0, 2.0, 0.3, 2.0),
        marked("behind", -3.0, 0.0, 0.0, 3.0),
        marked("wide", 1.0, -4.0, 0.0, 4.0),
        marked("hidden", 5.0, -2.0, 0.0, 5.0),
        marked("far", 9.0, 1.0, 0.0, 6.0),
        marked("unmarked", 4.0, 1.5, 0.0, 0.5),
        // Marked by its plugin element rather than a visual.
        marked("tagged", 3.0, 1.2, 0.0, 0.0).replace(
            "</link>",
            r#"</link><plugin filename="simcore_plugin_fiducial" name="simcore::FiducialMarker"><fiducial_id>21</fiducial_id></plugin>"#,
        ),
        // Above the vertical field of view: 30 degrees up is over the 0.5 rad half-angle.
        marked("high", 2.0, -0.5, 0.0, 8.0).replace("0.5 0 0 0</pose>", "1.7 0 0 0</pose>"),
    ];
    if with_wall {
        models.push(wall.to_string());
    }
    models
        .push(r#"<plugin filename="simcore_plugin_factory" name="simcore::Factory"/>"#.to_string());
    world(&models.join("\n"))
}

/// Steps 0.1 s and returns what the 10 Hz sensor saw last: it updates at the first step,
/// then at every tenth of a second.
fn run(sim: &mut Simulation) -> Vec<Fiducial> {
    let first = sim.time().nanos == 0;
    let sub = sim.bus_mut().subscribe(TOPIC, 100);
    for _ in 0..100 {
        assert!(sim.step().is_empty(), "{:?}", sim.failures());
    }
    let got = collect(&sub);
    assert_eq!(got.len(), if first { 2 } else { 1 }, "10 Hz over 0.1 s");
    match &got.last().expect("an update").2 {
        Payload::Fiducials(f) => f.iter().cloned().collect(),
        other => panic!("not Fiducials: {other:?}"),
    }
}

#[test]
fn reports_the_visible_markers_with_range_bearing_and_pose() {
    let dir = stage(&["simcore_plugin_fiducial", "simcore_plugin_factory"]);
    let mut sim = sim_from(&scene(true), dir.path(), 0, 1);
    let seen = run(&mut sim);
    for f in &seen {
        println!(
            "id {} {} range {:.4} bearing {:.4} elevation {:.4}",
            f.id,
            f.name.as_str(),
            f.range,
            f.bearing,
            f.elevation
        );
    }
    let ids: Vec<i64> = seen.iter().map(|f| f.id).collect();
    assert_eq!(
        ids,
        [1, 2, 21],
        "behind (3), outside the fov (4), occluded (5), out of range (6), not a whole id \
         (unmarked), above the fov (8) and the sensor's own model (99) are not reported"
    );
    let straight = &seen[0];
    assert_eq!(straight.name.as_str(), "straight");
    assert!((straight.range - 3.0).abs() < 1e-9, "{}", straight.range);
    assert!(straight.bearing.abs() < 1e-9 && straight.elevation.abs() < 1e-9);
    let left = &seen[1];
    assert!((left.range - 8f64.sqrt()).abs() < 1e-9, "{}", left.range);
    assert!((left.bearing - std::f64::consts::FRAC_PI_4).abs() < 1e-9);
    let p = left.pose;
    assert!((p.position.x - 2.0).abs() < 1e-9 && (p.position.y - 2.0).abs() < 1e-9);
    let yaw = p.orientation.to_rpy().2;
    assert!(
        (yaw - 0.3).abs() < 1e-6,
        "its orientation in the sensor frame (f32 physics): {yaw}"
    );
    let tagged = &seen[2];
    assert_eq!(tagged.name.as_str(), "tagged");
    assert!(
        (tagged.range - (9.0f64 + 1.44).sqrt()).abs() < 1e-6,
        "{}",
        tagged.range
    );
    assert!((tagged.bearing - 1.2f64.atan2(3.0)).abs() < 1e-6);
}

#[test]
fn the_hidden_marker_is_reported_without_the_wall_and_new_models_are_found() {
    let dir = stage(&["simcore_plugin_fiducial", "simcore_plugin_factory"]);
    let mut sim = sim_from(&scene(false), dir.path(), 0, 1);
    let ids: Vec<i64> = run(&mut sim).iter().map(|f| f.id).collect();
    assert_eq!(
        ids,
        [1, 2, 5, 21],
        "without the wall the hidden marker is seen"
    );
    // A marked model created at run time is found at the next update.
    sim.spawn(&sim_plugin_api::EntityFactory {
        sdf: format!(
            "<sdf version='1.9'>{}</sdf>",
            marked("new", 3.0, 1.0, 0.0, 42.0)
        )
        .into(),
        ..Default::default()
    })
    .unwrap();
    let seen = run(&mut sim);
    let ids: Vec<i64> = seen.iter().map(|f| f.id).collect();
    assert_eq!(ids, [1, 2, 5, 21, 42]);
    assert_eq!(seen[4].name.as_str(), "new");
    // ... and a removed one is gone.
    sim.call_service(
        "/world/test/remove",
        &sim_plugin_api::Message::new("", Payload::Text("tagged".into())),
    )
    .unwrap();
    let ids: Vec<i64> = run(&mut sim).iter().map(|f| f.id).collect();
    assert_eq!(ids, [1, 2, 5, 42]);
}

#[test]
fn a_bad_marker_is_refused_at_load() {
    let dir = stage(&["simcore_plugin_fiducial"]);
    let model = marked("tagged", 3.0, 1.2, 0.0, 0.0).replace(
        "</link>",
        r#"</link><plugin filename="simcore_plugin_fiducial" name="simcore::FiducialMarker"><fiducial_id>two</fiducial_id></plugin>"#,
    );
    let w = sim_core::sdf::parse_str(&world(&model), None).unwrap();
    let e = Simulation::new(w, registry_in(dir.path()), &Default::default())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tagged: FiducialMarker: <fiducial_id> must be a whole number of at least 1, found \"two\""),
        "{e}"
    );
}
