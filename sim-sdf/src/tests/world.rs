//! A world's own settings (physics, gravity, magnetic field, spherical coordinates), the
//! elements the engine skips, and files with several worlds.

use super::support::*;
use crate::*;

use crate::world::{DEFAULT_GRAVITY, DEFAULT_MAGNETIC_FIELD, WGS84_EQUATORIAL, WGS84_POLAR};
use sim_world::Vec3;

#[test]
fn world_defaults() {
    let w = ok("<sdf version='1.12'><world name='empty'/></sdf>");
    assert_eq!(w.name, "empty");
    assert_eq!(w.physics, sim_world::Physics::default());
    assert_eq!(w.physics.max_step_size, 0.001);
    assert_eq!(w.physics.real_time_factor, 1.0);
    assert_eq!(w.physics.engine, "ode");
    assert_eq!(w.gravity, Vec3::new(0.0, 0.0, -9.8));
    assert_eq!(
        w.magnetic_field,
        Vec3::new(5.5645e-6, 22.8758e-6, -42.3884e-6)
    );
    assert_eq!(w.spherical_coordinates, None);
    assert!(w.models.is_empty() && w.plugins.is_empty());
    assert_eq!((w.span.line, w.span.column), (1, 21));
    assert_eq!(w.span.file, None);
}

#[test]
fn world_name_is_required() {
    let text = "<sdf version='1.12'>\n  <world>\n</world></sdf>";
    let e = err(text);
    check(
        &e,
        ErrorKind::Missing,
        text,
        "<world>",
        "no `name` attribute",
    );
    assert_eq!(e.element, "<world>");
    let text = "<sdf version='1.12'>\n  <world name=' '>\n</world></sdf>";
    check(&err(text), ErrorKind::Invalid, text, " '>", "empty");
}

#[test]
fn physics_values() {
    let w = ok_body(
        "<physics name='fast' type='dart'><max_step_size>0.004</max_step_size>\
         <real_time_factor>0</real_time_factor><real_time_update_rate>250</real_time_update_rate></physics>",
    );
    assert_eq!(w.physics.max_step_size, 0.004);
    assert_eq!(w.physics.real_time_factor, 0.0);
    assert_eq!(w.physics.engine, "dart");
    // Empty elements keep their defaults.
    let w = ok_body("<physics><max_step_size/><real_time_factor> </real_time_factor></physics>");
    assert_eq!(w.physics, sim_world::Physics::default());
}

#[test]
fn the_default_physics_is_chosen_else_the_first() {
    let w = ok_body(
        "<physics name='a'><max_step_size>0.01</max_step_size></physics>\
         <physics name='b' default='true'><max_step_size>0.02</max_step_size></physics>\
         <physics name='c'><max_step_size>0.03</max_step_size></physics>",
    );
    assert_eq!(w.physics.max_step_size, 0.02);
    let w = ok_body(
        "<physics name='a' default='false'><max_step_size>0.01</max_step_size></physics>\
         <physics name='b'><max_step_size>0.02</max_step_size></physics>",
    );
    assert_eq!(w.physics.max_step_size, 0.01);
    let text = doc("1.12", "<physics default='maybe'/>");
    refused(&text, ErrorKind::Invalid, "maybe", "boolean");
}

#[test]
fn physics_limits() {
    let text = doc(
        "1.12",
        "<physics>\n  <max_step_size>0</max_step_size></physics>",
    );
    let e = err(&text);
    check(&e, ErrorKind::Invalid, &text, "0</max", "greater than 0");
    assert_eq!(e.element, "<max_step_size> in <world name=\"w\">");
    let text = doc(
        "1.12",
        "<physics><max_step_size>-0.1</max_step_size></physics>",
    );
    refused(&text, ErrorKind::Invalid, "-0.1", "greater than 0");
    let text = doc(
        "1.12",
        "<physics><max_step_size>1ms</max_step_size></physics>",
    );
    refused(&text, ErrorKind::Invalid, "1ms", "expects a number");
}

#[test]
fn gravity_and_magnetic_field() {
    let w = ok_body("<gravity>0 0 -1.62</gravity><magnetic_field>1e-5 0 0</magnetic_field>");
    assert_eq!(w.gravity, Vec3::new(0.0, 0.0, -1.62));
    assert_eq!(w.magnetic_field, Vec3::new(1e-5, 0.0, 0.0));
    let text = doc("1.12", "<gravity>0 -9.8</gravity>");
    let e = err(&text);
    check(
        &e,
        ErrorKind::Invalid,
        &text,
        "0 -9.8",
        "needs 3 numbers (x y z), found 2",
    );
    let text = doc("1.12", "<gravity>0 0 -9.8 1</gravity>");
    refused(&text, ErrorKind::Invalid, "0 0 -9.8 1", "found 4");
    let text = doc("1.12", "<gravity>0 nan -9.8</gravity>");
    refused(&text, ErrorKind::Invalid, "nan", "finite");
    let text = doc("1.12", "<gravity>0 0 -inf</gravity>");
    refused(&text, ErrorKind::Invalid, "-inf", "finite");
}

#[test]
fn sdf_1_5_gravity_inside_physics_is_honoured() {
    let body = "<physics type='ode'><gravity>0 0 -3.7</gravity><magnetic_field>1 2 3</magnetic_field></physics>";
    let w = ok(&doc("1.5", body));
    assert_eq!(w.gravity, Vec3::new(0.0, 0.0, -3.7));
    assert_eq!(w.magnetic_field, Vec3::new(1.0, 2.0, 3.0));
    let w = ok(&doc("1.4", body));
    assert_eq!(w.gravity, Vec3::new(0.0, 0.0, -3.7));
    // The world's own element wins.
    let w = ok(&doc("1.5", &format!("<gravity>0 0 -1</gravity>{body}")));
    assert_eq!(w.gravity, Vec3::new(0.0, 0.0, -1.0));
    // From 1.6 on, gravity inside physics is not SDF any more (libsdformat ignores it).
    let w = ok(&doc("1.6", body));
    assert_eq!(w.gravity, DEFAULT_GRAVITY);
    assert_eq!(w.magnetic_field, DEFAULT_MAGNETIC_FIELD);
    // Bad values there are still reported where they are.
    let text = doc("1.5", "<physics><gravity>0 0</gravity></physics>");
    refused(&text, ErrorKind::Invalid, "0 0<", "needs 3 numbers");
}

#[test]
fn spherical_coordinates() {
    let w = ok_body("<spherical_coordinates/>");
    let s = w.spherical_coordinates.expect("present");
    assert_eq!(s.surface_model, "EARTH_WGS84");
    assert_eq!(
        (s.latitude_deg, s.longitude_deg, s.elevation, s.heading_deg),
        (0.0, 0.0, 0.0, 0.0)
    );
    assert_eq!(
        (s.equatorial_axis, s.polar_axis),
        (WGS84_EQUATORIAL, WGS84_POLAR)
    );
    assert_eq!(
        (s.equatorial_axis, s.polar_axis),
        (6378137.0, 6356752.314245)
    );

    let w = ok_body(
        "<spherical_coordinates><surface_model>CUSTOM_SURFACE</surface_model>\
         <world_frame_orientation>ENU</world_frame_orientation>\
         <latitude_deg>-22.9</latitude_deg><longitude_deg>-43.2</longitude_deg>\
         <elevation>10</elevation><heading_deg>90</heading_deg>\
         <surface_axis_equatorial>1000</surface_axis_equatorial>\
         <surface_axis_polar>900</surface_axis_polar></spherical_coordinates>",
    );
    let s = w.spherical_coordinates.expect("present");
    assert_eq!(s.surface_model, "CUSTOM_SURFACE");
    assert_eq!(
        (s.latitude_deg, s.longitude_deg, s.elevation, s.heading_deg),
        (-22.9, -43.2, 10.0, 90.0)
    );
    assert_eq!((s.equatorial_axis, s.polar_axis), (1000.0, 900.0));

    let text = doc(
        "1.12",
        "<spherical_coordinates><surface_model>MARS</surface_model></spherical_coordinates>",
    );
    let e = err(&text);
    check(
        &e,
        ErrorKind::Invalid,
        &text,
        "MARS",
        "unknown surface model",
    );
    assert!(e.hint.contains("EARTH_WGS84"));
    let text = doc(
        "1.12",
        "<spherical_coordinates><surface_axis_polar>0</surface_axis_polar></spherical_coordinates>",
    );
    refused(&text, ErrorKind::Invalid, "0</", "greater than 0");
}

#[test]
fn elements_the_engine_does_not_use_are_skipped() {
    let w = ok_body(
        "<scene><ambient>1 1 1 1</ambient></scene><light name='sun' type='directional'/>\
         <gui fullscreen='0'/><actor name='a'/><atmosphere type='adiabatic'/><wind/>\
         <state world_name='w'/><audio/><unknown_thing>x</unknown_thing>",
    );
    assert!(w.models.is_empty());
}

#[test]
fn populations_are_not_supported_yet() {
    let text = doc(
        "1.12",
        "<population name='p'><model name='m'/></population>",
    );
    refused(
        &text,
        ErrorKind::Unsupported,
        "<population",
        "not supported yet",
    );
}

const TWO_WORLDS: &str = r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="first">
    <gravity>0 0 -1</gravity>
    <model name="a"><static>true</static><link name="l"/></model>
  </world>
  <world name="second">
    <model name="b"><static>true</static><link name="l"/></model>
    <model name="c"><static>true</static><link name="l"/></model>
  </world>
</sdf>
"#;

#[test]
fn every_world_of_a_file_is_read() {
    let d = Files::new();
    let path = d.write("two.sdf", TWO_WORLDS);
    let doc = load_document(&path).expect("reads");
    let Document::Worlds(worlds) = &doc else {
        panic!("expected two worlds: {doc:#?}")
    };
    let names: Vec<&str> = worlds.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["first", "second"]);
    assert_eq!(worlds[1].models.len(), 2);
    assert!((worlds[0].gravity.z + 1.0).abs() < 1e-12);
    assert!((worlds[1].gravity.z + 9.8).abs() < 1e-12);
    // inspect prints them all.
    let json = crate::inspect::to_json(&doc);
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["worlds"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["worlds"][1]["models"][1]["name"], "c");
    assert!(crate::inspect::to_tree(&doc).contains("world second"));
    // Every world, or the first for a single simulation.
    assert_eq!(doc.clone().into_worlds().expect("worlds").len(), 2);
    assert_eq!(doc.into_world().expect("a world").name, "first");
    assert_eq!(load(&path).expect("reads").name, "first");
    assert_eq!(parse_str(TWO_WORLDS, None).expect("reads").name, "first");
    // A single world stays a single world.
    let one = d.write("one.sdf", "<sdf version=\"1.9\"><world name=\"w\"/></sdf>");
    assert!(matches!(load_document(&one), Ok(Document::World(_))));
}

#[test]
fn errors_of_every_world_are_reported() {
    let text = r#"<sdf version="1.9">
<world name="first"><model name="a"><link name="l"><inertial><mass>-1</mass></inertial></link></model></world>
<world name="second"><model name="b"><link name="l"><inertial><mass>-2</mass></inertial></link></model></world>
</sdf>"#;
    let e = parse_document(text, None).expect_err("negative masses");
    let lines: Vec<u32> = e.all().map(|e| e.line).collect();
    assert!(
        lines.contains(&2) && lines.contains(&3),
        "{}",
        e.render(None)
    );
}

#[test]
fn a_negative_real_time_factor_runs_as_fast_as_possible_with_a_warning() {
    let text = doc(
        "1.12",
        "<physics>\n<real_time_factor> -2</real_time_factor></physics>",
    );
    let (loaded, warnings) = load_with_warnings(&text);
    let w = loaded
        .and_then(Document::into_world)
        .expect("a negative factor loads");
    assert_eq!(w.physics.real_time_factor, 0.0);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let warning = &warnings[0];
    assert!(
        warning.message.contains("as fast as possible"),
        "{warning:?}"
    );
    assert_eq!(warning.line, line_of(&text, "<real_time_factor>"));
    assert!(warning.file.is_some(), "{warning:?}");
}
