//! Unit tests of the SDF reader: every element, default and error class, with positions.

use std::f64::consts::PI;
use std::path::Path;

use super::world::{DEFAULT_GRAVITY, DEFAULT_MAGNETIC_FIELD, WGS84_EQUATORIAL, WGS84_POLAR};
use super::*;
use crate::world::{Geometry, JointKind, Pose, Quat, Vec3, World};

// ----- helpers ----------------------------------------------------------------------------

/// A document of version `version` whose world contains `body`.
fn doc(version: &str, body: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<sdf version=\"{version}\">\n<world name=\"w\">\n{body}\n</world>\n</sdf>\n"
    )
}

#[track_caller]
fn ok(text: &str) -> World {
    match parse_str(text, None) {
        Ok(w) => w,
        Err(e) => panic!("expected success:\n{}", e.render(None)),
    }
}

#[track_caller]
fn ok_body(body: &str) -> World {
    ok(&doc("1.12", body))
}

#[track_caller]
fn err(text: &str) -> SdfError {
    match parse_str(text, None) {
        Ok(w) => panic!("expected an error, got {w:#?}"),
        Err(e) => e,
    }
}

/// 1-based line and column of the `n`th (0-based) occurrence of `needle` in `text`.
#[track_caller]
fn pos_of(text: &str, needle: &str, n: usize) -> (u32, u32) {
    let offset = text
        .match_indices(needle)
        .nth(n)
        .unwrap_or_else(|| panic!("{needle:?} not in the text"))
        .0;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line as u32, col as u32)
}

/// Asserts the error's kind, that it points at the first `needle`, and that its message
/// contains `words`.
#[track_caller]
fn check(e: &SdfError, kind: ErrorKind, text: &str, needle: &str, words: &str) {
    check_nth(e, kind, text, needle, 0, words);
}

#[track_caller]
fn check_nth(e: &SdfError, kind: ErrorKind, text: &str, needle: &str, n: usize, words: &str) {
    let report = e.render(None);
    assert_eq!(e.kind, kind, "{report}");
    assert_eq!(
        (e.line, e.column),
        pos_of(text, needle, n),
        "wrong position:\n{report}"
    );
    assert!(
        e.message.contains(words),
        "message lacks {words:?}:\n{report}"
    );
    assert!(!e.hint.is_empty(), "no hint:\n{report}");
}

/// The first link of the first model.
fn link_of(w: &World) -> &crate::world::Link {
    &w.models[0].links[0]
}

fn model_with_link(link_body: &str) -> String {
    format!("<model name=\"m\"><link name=\"l\">\n{link_body}\n</link></model>")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[track_caller]
fn assert_pose(p: &Pose, xyz: [f64; 3], q: Quat) {
    let a = p.orientation.to_matrix();
    let b = q.to_matrix();
    let same_rot = (0..3).all(|i| (0..3).all(|j| (a[i][j] - b[i][j]).abs() < 1e-9));
    let same_pos = p
        .position
        .to_array()
        .iter()
        .zip(xyz)
        .all(|(a, b)| close(*a, b));
    assert!(same_pos && same_rot, "pose {p:?} != {xyz:?} {q:?}");
}

// ----- root and version -------------------------------------------------------------------

#[test]
fn every_version_from_1_0_to_1_12_is_accepted() {
    for minor in 0..=12 {
        let v = format!("1.{minor}");
        let w = ok(&format!("<sdf version=\"{v}\"><world name=\"w\"/></sdf>"));
        assert_eq!(w.sdf_version, v);
    }
    // Blanks around the version are tolerated.
    assert_eq!(
        ok("<sdf version=' 1.6 '><world name='w'/></sdf>").sdf_version,
        "1.6"
    );
}

#[test]
fn unknown_versions_are_errors_naming_the_supported_ones() {
    for bad in [
        "2.0",
        "1.13",
        "garbage",
        "1.6.0",
        "",
        "1",
        "-1.6",
        "99999999999.1",
    ] {
        let text = format!("<sdf version=\"{bad}\"><world name=\"w\"/></sdf>");
        let e = err(&text);
        check(
            &e,
            ErrorKind::Version,
            &text,
            &format!("{bad}\">"),
            "unsupported SDF version",
        );
        assert!(e.hint.contains("1.0 to 1.12"), "{}", e.hint);
    }
}

#[test]
fn a_missing_version_is_an_error() {
    let text = "<?xml version='1.0'?>\n  <sdf>\n<world name='w'/></sdf>";
    let e = err(text);
    check(&e, ErrorKind::Version, text, "<sdf>", "no `version`");
    assert!(e.hint.contains("1.0 to 1.12"));
}

#[test]
fn the_root_must_be_sdf() {
    let text = "<gazebo version='1.0'><world name='w'/></gazebo>";
    let e = err(text);
    check(
        &e,
        ErrorKind::Invalid,
        text,
        "<gazebo",
        "root element must be <sdf>",
    );
    assert!(e.hint.contains("pre-SDF"));
    let text = "<robot name='r'/>";
    check(
        &err(text),
        ErrorKind::Invalid,
        text,
        "<robot",
        "found <robot>",
    );
}

#[test]
fn a_model_file_is_not_a_world() {
    let text = "<sdf version='1.8'>\n  <model name='m'><link name='l'/></model>\n</sdf>";
    let e = err(text);
    check(
        &e,
        ErrorKind::Missing,
        text,
        "<model",
        "a <world> is needed",
    );
    assert!(e.hint.contains("<world name=\"default\">"));
}

#[test]
fn a_document_without_world_is_an_error() {
    let text = "<sdf version='1.8'>\n</sdf>";
    check(&err(text), ErrorKind::Missing, text, "<sdf", "no <world>");
    let text = "<sdf version='1.8'>\n <light name='sun' type='directional'/></sdf>";
    check(&err(text), ErrorKind::Missing, text, "<light", "no <world>");
}

#[test]
fn worlds_of_one_file_need_different_names() {
    let text = "<sdf version='1.8'>\n<world name='a'/>\n<world name='a'/>\n</sdf>";
    check(
        &err(text),
        ErrorKind::Duplicate,
        text,
        "a'/>\n</sdf>",
        "a <world> named \"a\" already exists",
    );
}

#[test]
fn a_model_beside_the_world_is_an_error() {
    let text = "<sdf version='1.8'>\n<world name='a'/>\n<model name='m'/>\n</sdf>";
    check(
        &err(text),
        ErrorKind::Invalid,
        text,
        "<model",
        "not part of the world",
    );
}

// ----- XML and leniency -------------------------------------------------------------------

#[test]
fn malformed_xml_is_reported_where_it_is() {
    let text =
        "<sdf version='1.8'>\n<world name='w'>\n  <model name='m'>\n  </link>\n</world></sdf>";
    let e = err(text);
    check(&e, ErrorKind::Xml, text, "</link>", "not well-formed XML");
    assert!(
        !e.message.contains(" at "),
        "position repeated in message: {}",
        e.message
    );

    let text = "<sdf version='1.8'>\n<world name='w'>\n";
    let e = err(text);
    assert_eq!(e.kind, ErrorKind::Xml);
    assert!(e.line >= 1);

    let text = "<sdf version='1.8'><world name='w'/></sdf>\n<sdf/>";
    assert_eq!(err(text).kind, ErrorKind::Xml);

    let text = "<!DOCTYPE sdf [<!ENTITY a 'b'>]>\n<sdf version='1.8'><world name='w'/></sdf>";
    check(
        &err(text),
        ErrorKind::Xml,
        text,
        "<!DOCTYPE",
        "not well-formed XML",
    );

    for text in ["", "   ", "hello", "<"] {
        let e = err(text);
        assert!(e.line >= 1 && e.column >= 1, "{e:?}");
    }
}

#[test]
fn what_libsdformat_tolerates_is_read() {
    let text = r#"   <?xml version="1.0"?>
<!-- usage: simcore run --rtf 0 world.sdf -->
<sdf version="1.9">
  <world name="w">
    <gz:policies><physics_engine>x</physics_engine></gz:policies>
    <plugin filename="p" name="n" custom:attr="1">
      <gz::system_priority>10</gz::system_priority>
      <pose>not a pose</pose>
    </plugin>
    <model name="m"><gz:pose>1 2</gz:pose><pose>1 2 3 0 0 0</pose><link name='l'/></model>
  </world>
</sdf>"#;
    let w = ok(text);
    assert_eq!(w.plugins[0].filename, "p");
    // The plugin gets its element as XML any parser reads, repaired like the document.
    let snippet = &w.plugins[0].sdf;
    assert!(
        snippet.contains("<gz..system_priority>10</gz..system_priority>"),
        "{snippet}"
    );
    assert!(snippet.contains("custom.attr=\"1\""), "{snippet}");
    assert!(roxmltree::Document::parse(snippet).is_ok(), "{snippet}");
    // Namespaced elements are not SDF's: <gz:pose> is not the model's pose.
    assert_pose(&w.models[0].pose, [1.0, 2.0, 3.0], Quat::IDENTITY);

    // Stray text before the root, and a prefix declared only out of scope.
    let text = "?xml version='1.0'?>\n<sdf version='1.9' xmlns:k='u'><world name='w'>\
                <a xmlns:q='v'/><q:b/></world></sdf>";
    ok(text);
}

#[test]
fn a_utf8_bom_is_accepted() {
    ok("\u{feff}<sdf version='1.6'><world name='w'/></sdf>");
}

// ----- world ------------------------------------------------------------------------------

#[test]
fn world_defaults() {
    let w = ok("<sdf version='1.12'><world name='empty'/></sdf>");
    assert_eq!(w.name, "empty");
    assert_eq!(w.physics, crate::world::Physics::default());
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
    assert_eq!(w.physics, crate::world::Physics::default());
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
    check(&err(&text), ErrorKind::Invalid, &text, "maybe", "boolean");
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
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "-0.1",
        "greater than 0",
    );
    let text = doc(
        "1.12",
        "<physics><real_time_factor> -2</real_time_factor></physics>",
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "-2",
        "must not be negative",
    );
    let text = doc(
        "1.12",
        "<physics><max_step_size>1ms</max_step_size></physics>",
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "1ms",
        "expects a number",
    );
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
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "0 0 -9.8 1",
        "found 4",
    );
    let text = doc("1.12", "<gravity>0 nan -9.8</gravity>");
    check(&err(&text), ErrorKind::Invalid, &text, "nan", "finite");
    let text = doc("1.12", "<gravity>0 0 -inf</gravity>");
    check(&err(&text), ErrorKind::Invalid, &text, "-inf", "finite");
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
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "0 0<",
        "needs 3 numbers",
    );
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
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "0</",
        "greater than 0",
    );
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
    check(
        &err(&text),
        ErrorKind::Unsupported,
        &text,
        "<population",
        "not supported yet",
    );
}

// ----- plugins ----------------------------------------------------------------------------

#[test]
fn plugins() {
    let plugin = "<plugin filename=\"libfoo.so\" name=\"foo::Bar\">\n  <gain>2</gain>\n</plugin>";
    let text = doc("1.6", plugin);
    let w = ok(&text);
    let p = &w.plugins[0];
    assert_eq!(
        (p.filename.as_str(), p.name.as_str()),
        ("libfoo.so", "foo::Bar")
    );
    assert_eq!(p.sdf, plugin);
    assert_eq!((p.span.line, p.span.column), pos_of(&text, "<plugin", 0));
    // Self-closing.
    assert_eq!(
        ok(&doc("1.6", "<plugin filename='a' name='b'/>")).plugins[0].sdf,
        "<plugin filename='a' name='b'/>"
    );
}

#[test]
fn plugin_name_is_optional_since_1_10() {
    assert_eq!(
        ok(&doc("1.10", "<plugin filename='a'/>")).plugins[0].name,
        ""
    );
    assert_eq!(
        ok(&doc("1.12", "<plugin filename='a'/>")).plugins[0].name,
        ""
    );
    let text = doc("1.9", "<plugin filename='a'/>");
    let e = err(&text);
    check(
        &e,
        ErrorKind::Missing,
        &text,
        "<plugin",
        "no `name` attribute",
    );
    assert!(e.message.contains("1.9"));
    let text = doc("1.12", "<plugin name='a'/>");
    check(
        &err(&text),
        ErrorKind::Missing,
        &text,
        "<plugin",
        "no `filename` attribute",
    );
}

// ----- models -----------------------------------------------------------------------------

#[test]
fn model_fields_and_defaults() {
    let w = ok_body(
        "<model name='a'><link name='l'/></model><model name='b'><static>true</static><self_collide>1</self_collide><pose>1 2 3 0 0 0</pose></model>",
    );
    let (a, b) = (&w.models[0], &w.models[1]);
    assert_eq!(a.name, "a");
    assert!(!a.is_static && !a.self_collide);
    assert_eq!(a.pose, Pose::IDENTITY);
    assert!(b.is_static && b.self_collide);
    assert_pose(&b.pose, [1.0, 2.0, 3.0], Quat::IDENTITY);
}

#[test]
fn model_names() {
    let text = doc("1.12", "<model>\n</model>");
    check(
        &err(&text),
        ErrorKind::Missing,
        &text,
        "<model>",
        "no `name` attribute",
    );
    let text = doc("1.12", "<model name='a::b'/>");
    let e = err(&text);
    check(&e, ErrorKind::Invalid, &text, "a::b", "contains `::`");
    assert_eq!(e.element, "<model name=\"a::b\">");
    // Reserved names since 1.7.
    let text = doc("1.7", "<model name='__model__'/>");
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "__model__",
        "reserved",
    );
    let text = doc("1.7", "<model name='m'><link name='world'/></model>");
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "world'/>",
        "reserved",
    );
    ok(&doc(
        "1.6",
        "<model name='__model__'><link name='l'/></model>",
    ));
}

#[test]
fn duplicate_sibling_names() {
    let text = doc(
        "1.12",
        "<model name='a'><static>1</static></model>\n<model name='b'><static>1</static></model>\n<model name='a'><static>1</static></model>",
    );
    let e = err(&text);
    check_nth(
        &e,
        ErrorKind::Duplicate,
        &text,
        "a'><static>",
        1,
        "a <model> named \"a\" already exists in this world (line 4)",
    );
    let text = doc(
        "1.12",
        "<model name='m'><link name='l'/><link name='l'/></model>",
    );
    check_nth(
        &err(&text),
        ErrorKind::Duplicate,
        &text,
        "l'/>",
        1,
        "a <link> named \"l\"",
    );
    let text = doc(
        "1.12",
        "<model name='m'><model name='n'><static>1</static></model><model name='n'><static>1</static></model></model>",
    );
    check_nth(
        &err(&text),
        ErrorKind::Duplicate,
        &text,
        "n'><static>",
        1,
        "a <model> named \"n\"",
    );
    // Same name, different kinds: fine.
    ok(&doc(
        "1.12",
        &model_with_link("<collision name='x'/><visual name='x'/><sensor name='x' type='imu'/>"),
    ));
    // Same name in different scopes: fine.
    ok(&doc(
        "1.12",
        "<model name='a'><link name='l'/></model><model name='b'><link name='l'/></model>",
    ));
}

#[test]
fn nested_models_and_scoped_names() {
    let w = ok_body(
        "<model name='outer'><pose>1 0 0 0 0 0</pose><link name='base'/>\
           <model name='mid'><pose relative_to='__model__'>0 1 0 0 0 0</pose>\
             <model name='inner'><pose relative_to='mid'>0 0 1 0 0 0</pose><link name='tip'/></model>\
           </model>\
         </model>",
    );
    let mut scoped = Vec::new();
    w.visit_models(|name, m| scoped.push((name.to_string(), m.links.len())));
    assert_eq!(
        scoped,
        [
            ("outer".into(), 1),
            ("outer::mid".into(), 0),
            ("outer::mid::inner".into(), 1)
        ]
    );
    let inner = &w.models[0].models[0].models[0];
    assert_pose(&inner.pose, [0.0, 0.0, 1.0], Quat::IDENTITY);
}

#[test]
fn deep_nesting_is_bounded() {
    let depth = 80;
    let mut body = String::new();
    for i in 0..depth {
        body.push_str(&format!("<model name='m{i}'>"));
    }
    for _ in 0..depth {
        body.push_str("</model>");
    }
    let text = doc("1.12", &body);
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "<model name='m64'>",
        "nested more than 64 deep",
    );
}

#[test]
fn poses_in_radians_degrees_and_quaternions() {
    let w = ok_body("<model name='m'><pose>1 2 3 0.1 0.2 0.3</pose><link name='l'/></model>");
    assert_pose(
        &w.models[0].pose,
        [1.0, 2.0, 3.0],
        Quat::from_rpy(0.1, 0.2, 0.3),
    );
    assert_eq!(
        w.models[0].pose,
        Pose::from_xyz_rpy(1.0, 2.0, 3.0, 0.1, 0.2, 0.3)
    );

    let w = ok_body(
        "<model name='m'><pose degrees='true'>1 2 3 90 0 180</pose><link name='l'/></model>",
    );
    assert_pose(
        &w.models[0].pose,
        [1.0, 2.0, 3.0],
        Quat::from_rpy(PI / 2.0, 0.0, PI),
    );
    let w = ok_body(
        "<model name='m'><pose degrees='false' rotation_format='euler_rpy'>0 0 0 1 0 0</pose><link name='l'/></model>",
    );
    assert_pose(&w.models[0].pose, [0.0; 3], Quat::from_rpy(1.0, 0.0, 0.0));

    let h = (0.5f64).sqrt();
    let w = ok_body(
        "<model name='m'><pose rotation_format='quat_xyzw'>1 2 3 0 0 0.7071067811865476 0.7071067811865476</pose><link name='l'/></model>",
    );
    assert_pose(
        &w.models[0].pose,
        [1.0, 2.0, 3.0],
        Quat::new(0.0, 0.0, h, h),
    );
    // Quaternions are normalised; `degrees` does not apply to them.
    let w = ok_body(
        "<model name='m'><pose rotation_format='quat_xyzw' degrees='true'>0 0 0 0 0 2 2</pose><link name='l'/></model>",
    );
    assert_pose(&w.models[0].pose, [0.0; 3], Quat::new(0.0, 0.0, h, h));

    // Empty poses are the identity; blanks and line breaks separate numbers.
    let w = ok_body(
        "<model name='m'><pose/><link name='l'/></model><model name='n'><pose>\n 1\t2 3\n 0 0 0 </pose><link name='l'/></model>",
    );
    assert_eq!(w.models[0].pose, Pose::IDENTITY);
    assert_pose(&w.models[1].pose, [1.0, 2.0, 3.0], Quat::IDENTITY);
}

#[test]
fn pose_errors() {
    let text = doc(
        "1.12",
        "<model name='m'><pose>1 2 3 0 0</pose><link name='l'/></model>",
    );
    let e = err(&text);
    check(
        &e,
        ErrorKind::Invalid,
        &text,
        "1 2 3 0 0",
        "needs 6 numbers (x y z roll pitch yaw), found 5",
    );
    assert_eq!(e.element, "<pose> in <model name=\"m\">");

    let text = doc(
        "1.12",
        "<model name='m'><pose>1 2 x 0 0 0</pose><link name='l'/></model>",
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "x 0 0 0",
        "expects a number, found \"x\"",
    );

    let text = doc(
        "1.12",
        "<model name='m'><pose rotation_format='quat_xyzw'>1 2 3 0 0 0</pose><link name='l'/></model>",
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "1 2 3 0 0 0<",
        "needs 7 numbers (x y z qx qy qz qw), found 6",
    );

    let text = doc(
        "1.12",
        "<model name='m'><pose rotation_format='quat_xyzw'>1 2 3 0 0 0 0</pose><link name='l'/></model>",
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "1 2 3 0 0 0 0",
        "quaternion of this pose is zero",
    );

    let text = doc(
        "1.12",
        "<model name='m'><pose rotation_format='axis_angle'>0 0 0 0 0 0</pose><link name='l'/></model>",
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "axis_angle",
        "unknown rotation_format",
    );

    let text = doc(
        "1.12",
        "<model name='m'><pose degrees='yes'>0 0 0 0 0 0</pose><link name='l'/></model>",
    );
    check(&err(&text), ErrorKind::Invalid, &text, "yes", "boolean");
}

#[test]
fn link_defaults_and_values() {
    let w = ok_body(&model_with_link(""));
    let l = link_of(&w);
    assert_eq!(l.name, "l");
    assert_eq!(l.pose, Pose::IDENTITY);
    assert!(l.gravity && !l.kinematic);
    assert_eq!(l.inertial, crate::world::Inertial::default());
    assert_eq!(l.inertial.mass, 1.0);
    assert_eq!(l.inertial.inertia, [1.0, 0.0, 0.0, 1.0, 0.0, 1.0]);
    assert!(l.collisions.is_empty() && l.visuals.is_empty() && l.sensors.is_empty());

    let w = ok_body(&model_with_link(
        "<pose>0 0 1 0 0 0</pose><gravity>false</gravity><kinematic>TRUE</kinematic>\
         <self_collide>true</self_collide><velocity_decay/><light name='lamp' type='point'/>",
    ));
    let l = link_of(&w);
    assert!(!l.gravity && l.kinematic);
    assert_pose(&l.pose, [0.0, 0.0, 1.0], Quat::IDENTITY);

    let text = doc("1.12", &model_with_link("<gravity>on</gravity>"));
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "on<",
        "must be a boolean, found \"on\"",
    );
    let text = doc("1.12", "<model name='m'><link/></model>");
    check(
        &err(&text),
        ErrorKind::Missing,
        &text,
        "<link/>",
        "no `name`",
    );
}

#[test]
fn inertial_values() {
    let w = ok_body(&model_with_link(
        "<inertial><mass>2.5</mass><pose>0.1 0 0 0 0 0</pose>\
         <inertia><ixx>0.2</ixx><ixy>0.01</ixy><ixz>0</ixz><iyy>0.3</iyy><iyz>0</iyz><izz>0.4</izz></inertia></inertial>",
    ));
    let i = &link_of(&w).inertial;
    assert_eq!(i.mass, 2.5);
    assert_pose(&i.pose, [0.1, 0.0, 0.0], Quat::IDENTITY);
    assert_eq!(i.inertia, [0.2, 0.01, 0.0, 0.3, 0.0, 0.4]);
    // Partial inertia: the rest defaults.
    let w = ok_body(&model_with_link(
        "<inertial><inertia><ixx>1.5</ixx></inertia></inertial>",
    ));
    assert_eq!(link_of(&w).inertial.inertia, [1.5, 0.0, 0.0, 1.0, 0.0, 1.0]);
    assert_eq!(link_of(&w).inertial.mass, 1.0);
    // Limit cases of the triangle inequality (a thin disc) are valid.
    ok_body(&model_with_link(
        "<inertial><inertia><ixx>0.25</ixx><iyy>0.25</iyy><izz>0.5</izz></inertia></inertial>",
    ));
}

#[test]
fn mass_must_be_positive() {
    for bad in ["0", "-1"] {
        let text = doc(
            "1.12",
            &model_with_link(&format!("<inertial>\n<mass>{bad}</mass></inertial>")),
        );
        let e = err(&text);
        check(
            &e,
            ErrorKind::Invalid,
            &text,
            &format!("{bad}</mass>"),
            "mass of link \"l\" must be greater than 0",
        );
        assert_eq!(e.element, "<mass> in <link name=\"l\">");
    }
}

#[test]
fn inertia_must_be_physical() {
    let text = doc(
        "1.12",
        &model_with_link(
            "<inertial><mass>1</mass>\n  <inertia><ixx>-1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial>",
        ),
    );
    let e = err(&text);
    check(
        &e,
        ErrorKind::Invalid,
        &text,
        "<inertia>",
        "invalid inertia for link \"l\": the tensor is not positive definite",
    );

    let text = doc(
        "1.12",
        &model_with_link(
            "<inertial><inertia><ixx>1.11</ixx><iyy>100.11</iyy><izz>1.01</izz></inertia></inertial>",
        ),
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "<inertia>",
        "triangle inequality",
    );

    // Large products of inertia make the tensor indefinite.
    let text = doc(
        "1.12",
        &model_with_link("<inertial><inertia><ixy>2</ixy></inertia></inertial>"),
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "<inertia>",
        "not positive definite",
    );
    // Zero inertia is not a body's.
    let text = doc(
        "1.12",
        &model_with_link(
            "<inertial><inertia><ixx>0</ixx><iyy>0</iyy><izz>0</izz></inertia></inertial>",
        ),
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "<inertia>",
        "not positive definite",
    );
    // Values too large to square stay an error, not a silent pass.
    let text = doc(
        "1.12",
        &model_with_link("<inertial><inertia><ixy>1e200</ixy></inertia></inertial>"),
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "<inertia>",
        "invalid inertia",
    );
}

#[test]
fn automatic_inertia_needs_collisions() {
    let text = doc("1.11", &model_with_link("<inertial auto='true'/>"));
    check(
        &err(&text),
        ErrorKind::Missing,
        &text,
        "true'/>",
        "no <collision>",
    );
    ok(&doc("1.11", &model_with_link("<inertial auto='false'/>")));
}
// ----- collisions, visuals, geometry ------------------------------------------------------

fn geometry_of(shape: &str) -> Geometry {
    let w = ok_body(&model_with_link(&format!(
        "<collision name='c'><geometry>{shape}</geometry></collision>"
    )));
    link_of(&w).collisions[0].geometry.clone()
}

#[test]
fn shape_defaults() {
    assert_eq!(
        geometry_of("<box/>"),
        Geometry::Box {
            size: Vec3::new(1.0, 1.0, 1.0)
        }
    );
    assert_eq!(geometry_of("<sphere/>"), Geometry::Sphere { radius: 1.0 });
    assert_eq!(
        geometry_of("<cylinder/>"),
        Geometry::Cylinder {
            radius: 1.0,
            length: 1.0
        }
    );
    assert_eq!(
        geometry_of("<capsule/>"),
        Geometry::Capsule {
            radius: 0.5,
            length: 1.0
        }
    );
    assert_eq!(
        geometry_of("<ellipsoid/>"),
        Geometry::Ellipsoid {
            radii: Vec3::new(1.0, 1.0, 1.0)
        }
    );
    assert_eq!(
        geometry_of("<plane/>"),
        Geometry::Plane {
            normal: Vec3::new(0.0, 0.0, 1.0),
            size: [1.0, 1.0]
        }
    );
    assert_eq!(geometry_of("<empty/>"), Geometry::Empty);
}

#[test]
fn shape_values() {
    assert_eq!(
        geometry_of("<box><size>1 2 3</size></box>"),
        Geometry::Box {
            size: Vec3::new(1.0, 2.0, 3.0)
        }
    );
    assert_eq!(
        geometry_of("<sphere><radius>0.25</radius></sphere>"),
        Geometry::Sphere { radius: 0.25 }
    );
    assert_eq!(
        geometry_of("<cylinder><radius>0.1</radius><length>2</length></cylinder>"),
        Geometry::Cylinder {
            radius: 0.1,
            length: 2.0
        }
    );
    assert_eq!(
        geometry_of("<capsule><radius>0.2</radius><length>0.6</length></capsule>"),
        Geometry::Capsule {
            radius: 0.2,
            length: 0.6
        }
    );
    assert_eq!(
        geometry_of("<ellipsoid><radii>0.1 0.2 0.3</radii></ellipsoid>"),
        Geometry::Ellipsoid {
            radii: Vec3::new(0.1, 0.2, 0.3)
        }
    );
    assert_eq!(
        geometry_of("<plane><normal>0 1 0</normal><size>100 50</size></plane>"),
        Geometry::Plane {
            normal: Vec3::new(0.0, 1.0, 0.0),
            size: [100.0, 50.0]
        }
    );
}

#[test]
fn shape_sizes_must_be_positive() {
    for (shape, needle, words) in [
        (
            "<box><size>1 0 1</size></box>",
            "1 0 1",
            "every component of <size> must be greater than 0",
        ),
        ("<box><size>1 1</size></box>", "1 1<", "needs 3 numbers"),
        (
            "<sphere><radius>-1</radius></sphere>",
            "-1",
            "<radius> must be greater than 0",
        ),
        (
            "<cylinder><radius>1</radius><length>0</length></cylinder>",
            "0</length",
            "<length> must be greater than 0",
        ),
        (
            "<capsule><radius>0</radius></capsule>",
            "0</radius",
            "<radius> must be greater than 0",
        ),
        (
            "<ellipsoid><radii>1 1 -1</radii></ellipsoid>",
            "1 1 -1",
            "<radii> must be greater than 0",
        ),
        (
            "<plane><normal>0 0 0</normal></plane>",
            "0 0 0<",
            "normal of a <plane> must not be zero",
        ),
        ("<plane><size>1 0</size></plane>", "1 0<", "greater than 0"),
        (
            "<plane><size>1 1 1</size></plane>",
            "1 1 1",
            "needs 2 numbers (x y), found 3",
        ),
        (
            "<sphere><radius>big</radius></sphere>",
            "big",
            "expects a number",
        ),
    ] {
        let text = doc(
            "1.12",
            &model_with_link(&format!(
                "<collision name='c'><geometry>{shape}</geometry></collision>"
            )),
        );
        check(&err(&text), ErrorKind::Invalid, &text, needle, words);
    }
}

#[test]
fn geometry_needs_exactly_one_known_shape() {
    let text = doc(
        "1.12",
        &model_with_link("<visual name='v'><geometry><box/>\n<sphere/></geometry></visual>"),
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "<sphere/>",
        "more than one shape (<box> and <sphere>)",
    );
    let text = doc(
        "1.12",
        &model_with_link("<visual name='v'>\n<geometry><bx/></geometry></visual>"),
    );
    let e = err(&text);
    check(
        &e,
        ErrorKind::Missing,
        &text,
        "<geometry>",
        "no shape (<bx> is not a shape)",
    );
    let text = doc(
        "1.12",
        &model_with_link("<visual name='v'><geometry/></visual>"),
    );
    check(
        &err(&text),
        ErrorKind::Missing,
        &text,
        "<geometry/>",
        "no shape",
    );
    // Without <geometry> at all, as libsdformat: the empty shape.
    let w = ok_body(&model_with_link(
        "<visual name='v'><plugin filename='f' name='n'/></visual>",
    ));
    assert_eq!(link_of(&w).visuals[0].geometry, Geometry::Empty);
}

#[test]
fn meshes_heightmaps_polylines_and_cones_are_read() {
    use crate::world::{HeightmapShape, MeshShape, Polyline};
    let Geometry::Mesh(MeshShape {
        resource,
        scale,
        submesh,
        center_submesh,
    }) = geometry_of(
        "<mesh><uri>model://robot/meshes/base.dae</uri><scale>1 2 3</scale>\
         <submesh><name>wheel</name><center>true</center></submesh></mesh>",
    )
    else {
        panic!("not a mesh")
    };
    assert_eq!(resource.uri, "model://robot/meshes/base.dae");
    // No such model here: the reason names the URI; building the world reports it.
    assert!(resource.resolved.unwrap_err().contains("base.dae"));
    assert_eq!(scale, Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(submesh.as_deref(), Some("wheel"));
    assert!(center_submesh);

    let Geometry::Heightmap(HeightmapShape {
        resource,
        size,
        pos,
    }) = geometry_of(
        "<heightmap><uri>file://h.png</uri><size>129 129 10</size><pos>0 0 -1</pos></heightmap>",
    )
    else {
        panic!("not a heightmap")
    };
    assert_eq!(resource.uri, "file://h.png");
    assert_eq!(
        (size, pos),
        (Vec3::new(129.0, 129.0, 10.0), Vec3::new(0.0, 0.0, -1.0))
    );

    assert_eq!(
        geometry_of(
            "<polyline><point>0 0</point><point>1 0</point><point>0 1</point><height>2</height></polyline>\
             <polyline><point>5 5</point><point>6 5</point><point>5 6</point></polyline>"
        ),
        Geometry::Polyline(vec![
            Polyline {
                points: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
                height: 2.0
            },
            Polyline {
                points: vec![[5.0, 5.0], [6.0, 5.0], [5.0, 6.0]],
                height: 1.0
            },
        ])
    );
    assert_eq!(
        geometry_of("<cone><radius>0.2</radius></cone>"),
        Geometry::Cone {
            radius: 0.2,
            length: 1.0
        }
    );
}

#[test]
fn bad_meshes_polylines_and_images_are_refused() {
    for (shape, kind, needle, words) in [
        (
            "<mesh><scale>1 1 1</scale></mesh>",
            ErrorKind::Missing,
            "<mesh",
            "<mesh> has no <uri>",
        ),
        (
            "<mesh><uri>a.stl</uri><scale>1 0 1</scale></mesh>",
            ErrorKind::Invalid,
            "1 0 1",
            "zero component",
        ),
        (
            "<polyline><point>0 0</point><point>1 1</point><height>1</height></polyline>",
            ErrorKind::Invalid,
            "<polyline",
            "at least 3 <point>s, found 2",
        ),
        (
            "<image><uri>i.png</uri></image>",
            ErrorKind::Unsupported,
            "<image",
            "<image> geometry (\"i.png\") is not supported",
        ),
    ] {
        let text = doc(
            "1.12",
            &model_with_link(&format!(
                "<collision name='c'><geometry>\n{shape}</geometry></collision>"
            )),
        );
        check(&err(&text), kind, &text, needle, words);
    }
}

#[test]
fn collision_and_visual_fields() {
    let w = ok_body(&model_with_link(
        "<collision name='c'><pose>0 0 0.5 0 0 0</pose><laser_retro>100</laser_retro>\
           <geometry><sphere/></geometry><surface><friction/></surface></collision>\
         <visual name='v'><pose>1 0 0 0 0 0</pose><laser_retro>7</laser_retro><geometry><box/></geometry>\
           <material><ambient>1 0 0 1</ambient><diffuse>0.1 0.2 0.3</diffuse></material></visual>\
         <visual name='w'><geometry><box/></geometry><material><diffuse>0.1 0.2 0.3 0.5</diffuse></material></visual>\
         <visual name='x'><geometry><box/></geometry></visual>\
         <visual name='y'><geometry><box/></geometry><material><script><uri>file://media/materials/scripts/gazebo.material</uri><name>Gazebo/Grey</name></script></material></visual>",
    ));
    let l = link_of(&w);
    let c = &l.collisions[0];
    assert_eq!((c.name.as_str(), c.laser_retro), ("c", 100.0));
    assert_pose(&c.pose, [0.0, 0.0, 0.5], Quat::IDENTITY);
    let v = &l.visuals;
    assert_eq!(v[0].name, "v");
    assert_eq!(v[0].laser_retro, 7.0);
    assert_pose(&v[0].pose, [1.0, 0.0, 0.0], Quat::IDENTITY);
    assert_eq!(v[0].diffuse, [0.1, 0.2, 0.3, 1.0]);
    assert_eq!(v[1].diffuse, [0.1, 0.2, 0.3, 0.5]);
    assert_eq!(v[2].diffuse, [0.7, 0.7, 0.7, 1.0]);
    assert_eq!(v[3].diffuse, [0.7, 0.7, 0.7, 1.0]);
    assert_eq!(
        (v[2].laser_retro, l.collisions[0].geometry.clone()),
        (0.0, Geometry::Sphere { radius: 1.0 })
    );

    let text = doc(
        "1.12",
        &model_with_link("<visual name='v'><material><diffuse>1 0</diffuse></material></visual>"),
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "1 0<",
        "needs 3 or 4 numbers",
    );
    let text = doc(
        "1.12",
        &model_with_link(
            "<visual name='v'><material><diffuse>1 0 0 1 1</diffuse></material></visual>",
        ),
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "1 0 0 1 1",
        "found 5",
    );
    let text = doc(
        "1.12",
        &model_with_link("<collision name='c'><laser_retro>high</laser_retro></collision>"),
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "high",
        "expects a number",
    );
    let text = doc(
        "1.12",
        &model_with_link("<collision><geometry><box/></geometry></collision>"),
    );
    check(
        &err(&text),
        ErrorKind::Missing,
        &text,
        "<collision>",
        "no `name`",
    );
    let text = doc(
        "1.12",
        &model_with_link("<collision name='c'/><collision name='c'/>"),
    );
    check_nth(
        &err(&text),
        ErrorKind::Duplicate,
        &text,
        "c'/>",
        1,
        "a <collision> named \"c\" already exists in this link",
    );
    let text = doc(
        "1.12",
        &model_with_link("<visual name='v'/><visual name='v'/>"),
    );
    check_nth(
        &err(&text),
        ErrorKind::Duplicate,
        &text,
        "v'/>",
        1,
        "a <visual> named \"v\"",
    );
}

// ----- sensors ----------------------------------------------------------------------------

#[test]
fn sensor_defaults() {
    let sensor = "<sensor name='imu' type='imu'/>";
    let text = doc("1.12", &model_with_link(sensor));
    let w = ok(&text);
    let s = &link_of(&w).sensors[0];
    assert_eq!((s.name.as_str(), s.sensor_type.as_str()), ("imu", "imu"));
    assert_eq!(s.pose, Pose::IDENTITY);
    assert!(!s.always_on && !s.visualize && !s.enable_metrics && !s.triggered);
    assert!(s.active);
    assert_eq!(s.update_rate, 0.0);
    assert_eq!(
        (s.topic.clone(), s.frame_id.clone(), s.trigger_topic.clone()),
        (None, None, None)
    );
    assert_eq!(s.sdf, sensor);
    assert!(s.plugins.is_empty());
    assert_eq!((s.span.line, s.span.column), pos_of(&text, "<sensor", 0));
}

#[test]
fn sensor_values() {
    let sensor = "<sensor name=\"lidar\" type=\"gpu_lidar\">\n\
          <pose>0 0 0.3 0 0 0</pose>\n\
          <always_on>1</always_on>\n\
          <update_rate>10</update_rate>\n\
          <visualize>true</visualize>\n\
          <topic>scan</topic>\n\
          <frame_id>lidar_frame</frame_id>\n\
          <enable_metrics>true</enable_metrics>\n\
          <active>false</active>\n\
          <triggered>true</triggered>\n\
          <trigger_topic>go</trigger_topic>\n\
          <lidar><scan><horizontal><samples>640</samples></horizontal></scan></lidar>\n\
          <plugin filename=\"noise\" name=\"n\"><stddev>0.01</stddev></plugin>\n\
        </sensor>";
    let w = ok_body(&model_with_link(sensor));
    let s = &link_of(&w).sensors[0];
    assert_eq!(s.sensor_type, "gpu_lidar");
    assert_pose(&s.pose, [0.0, 0.0, 0.3], Quat::IDENTITY);
    assert!(s.always_on && s.visualize && s.enable_metrics && s.triggered);
    assert!(!s.active);
    assert_eq!(s.update_rate, 10.0);
    assert_eq!(s.topic.as_deref(), Some("scan"));
    assert_eq!(s.frame_id.as_deref(), Some("lidar_frame"));
    assert_eq!(s.trigger_topic.as_deref(), Some("go"));
    assert_eq!(s.sdf, sensor);
    assert_eq!(s.plugins.len(), 1);
    assert_eq!(s.plugins[0].filename, "noise");
    assert_eq!(
        s.plugins[0].sdf,
        "<plugin filename=\"noise\" name=\"n\"><stddev>0.01</stddev></plugin>"
    );
}

#[test]
fn sensor_special_values() {
    let sensors = "<sensor name='a' type='imu'><update_rate>-5</update_rate><topic>__default__</topic>\
                     <gz_frame_id>old_frame</gz_frame_id></sensor>\
                   <sensor name='b' type='imu'><topic> </topic><frame_id/>\
                     <gz_frame_id>ignored?</gz_frame_id></sensor>\
                   <sensor name='c' type='camera'><camera><triggered>true</triggered>\
                     <trigger_topic>/cam/trigger</trigger_topic></camera></sensor>\
                   <sensor name='d' type='camera'><triggered>false</triggered><trigger_topic>own</trigger_topic>\
                     <camera><triggered>true</triggered><trigger_topic>cam</trigger_topic></camera></sensor>";
    let w = ok_body(&model_with_link(sensors));
    let s = &link_of(&w).sensors;
    assert_eq!(s[0].update_rate, 0.0);
    assert_eq!(s[0].topic, None);
    assert_eq!(s[0].frame_id.as_deref(), Some("old_frame"));
    assert_eq!(s[1].topic, None);
    // An empty <frame_id> falls back to the deprecated element.
    assert_eq!(s[1].frame_id.as_deref(), Some("ignored?"));
    assert!(s[2].triggered);
    assert_eq!(s[2].trigger_topic.as_deref(), Some("/cam/trigger"));
    assert!(!s[3].triggered);
    assert_eq!(s[3].trigger_topic.as_deref(), Some("own"));
}

#[test]
fn sensor_errors() {
    let text = doc(
        "1.12",
        &model_with_link("<sensor name='s' type='imu'><update_rate>fast</update_rate></sensor>"),
    );
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "fast",
        "<update_rate> expects a number, found \"fast\"",
    );
    let text = doc("1.12", &model_with_link("<sensor name='s'/>"));
    check(
        &err(&text),
        ErrorKind::Missing,
        &text,
        "<sensor",
        "no `type` attribute",
    );
    let text = doc("1.12", &model_with_link("<sensor type='imu'/>"));
    check(
        &err(&text),
        ErrorKind::Missing,
        &text,
        "<sensor",
        "no `name` attribute",
    );
    let text = doc(
        "1.12",
        &model_with_link("<sensor name='s' type='imu'><active>no</active></sensor>"),
    );
    check(&err(&text), ErrorKind::Invalid, &text, "no<", "boolean");
    let text = doc(
        "1.12",
        &model_with_link("<sensor name='s' type='imu'/><sensor name='s' type='gps'/>"),
    );
    check_nth(
        &err(&text),
        ErrorKind::Duplicate,
        &text,
        "s' type",
        1,
        "a <sensor> named \"s\"",
    );
    let text = doc(
        "1.12",
        &model_with_link("<sensor name='s' type='imu'><plugin name='p'/></sensor>"),
    );
    check(
        &err(&text),
        ErrorKind::Missing,
        &text,
        "<plugin",
        "no `filename`",
    );
}

// ----- values -----------------------------------------------------------------------------

#[test]
fn booleans_accept_true_false_1_0() {
    for (text, value) in [
        ("true", true),
        ("1", true),
        ("True", true),
        (" false ", false),
        ("0", false),
        ("FALSE", false),
    ] {
        let w = ok_body(&format!(
            "<model name='m'><static>{text}</static><link name='l'/></model>"
        ));
        assert_eq!(w.models[0].is_static, value, "{text}");
    }
    for bad in ["yes", "2", "t", "true false"] {
        let text = doc(
            "1.12",
            &format!("<model name='m'><static>{bad}</static></model>"),
        );
        check(
            &err(&text),
            ErrorKind::Invalid,
            &text,
            &format!("{bad}<"),
            "must be a boolean",
        );
    }
}

#[test]
fn entities_and_comments_in_values() {
    let w = ok_body(
        "<gravity>0 <!-- x --> 0 -1</gravity><model name='a&amp;b'><pose>&#49; 0 0 0 0 0</pose><link name='l'/></model>",
    );
    assert_eq!(w.gravity, Vec3::new(0.0, 0.0, -1.0));
    assert_eq!(w.models[0].name, "a&b");
    assert_pose(&w.models[0].pose, [1.0, 0.0, 0.0], Quat::IDENTITY);
    // Inexact text (an entity) still gives an error at the value.
    let text = doc("1.12", "<gravity>&#48; x 0</gravity>");
    check(
        &err(&text),
        ErrorKind::Invalid,
        &text,
        "&#48;",
        "expects a number",
    );
}

// ----- errors: display and rendering ------------------------------------------------------

#[test]
fn display_is_one_line() {
    let text = doc(
        "1.12",
        &model_with_link("<inertial><mass>-1</mass></inertial>"),
    );
    let e = err(&text);
    let (line, col) = pos_of(&text, "-1", 0);
    assert_eq!(
        e.to_string(),
        format!(
            "<inline>:{line}:{col}: {} (in <mass> in <link name=\"l\">)",
            e.message
        )
    );
    let e = parse_str(&text, Some(Path::new("worlds/arm.sdf"))).expect_err("invalid");
    assert!(e.to_string().starts_with(&format!(
        "worlds/arm.sdf:{line}:{col}: the mass of link \"l\""
    )));
    assert_eq!(e.file.as_deref(), Some(Path::new("worlds/arm.sdf")));
}

#[test]
fn render_shows_the_line_and_a_caret() {
    let text = "<sdf version='1.12'>\n<world name='w'>\n<model name='m'><link name='l'>\n    <inertial><mass>-1</mass></inertial>\n</link></model></world></sdf>";
    let e = parse_str(text, Some(Path::new("arm.sdf"))).expect_err("invalid");
    let report = e.render(None);
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines[0], format!("error: {}", e.message));
    assert_eq!(lines[1], "  --> arm.sdf:4:21");
    assert_eq!(lines[2], "  |");
    assert_eq!(lines[3], "4 |     <inertial><mass>-1</mass></inertial>");
    assert_eq!(lines[4], "  |                     ^");
    assert_eq!(lines[5], "  = in <mass> in <link name=\"l\">");
    assert!(lines[6].starts_with("  = help: give the mass in kg"));
    // The caret sits under the column.
    assert_eq!(lines[4].find('^'), lines[3].find("-1"));
    // A source passed explicitly is used instead of the kept one.
    let other = "a\nb\nc\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n";
    assert!(e.render(Some(other)).contains("4 | xxxx"));
    // Without any source, the line is left out.
    let mut bare = e.clone();
    bare.source_text = None;
    assert!(!bare.render(None).contains('^'));
}

#[test]
fn render_keeps_tabs_and_cuts_long_lines() {
    let text =
        "<sdf version='1.12'>\n<world name='w'>\n\t\t<gravity>0 0 x</gravity>\n</world></sdf>";
    let e = err(text);
    let report = e.render(None);
    let caret_line = format!("\n  | \t\t{}^\n", " ".repeat(13));
    assert!(report.contains(&caret_line), "{report}");

    let long = format!(
        "<sdf version='1.12'><world name='w'>{}<gravity>0 0 x</gravity></world></sdf>",
        " ".repeat(300)
    );
    let e = err(&long);
    let report = e.render(None);
    let lines: Vec<&str> = report.lines().collect();
    assert!(lines[3].len() < 130 && lines[3].contains("..."), "{report}");
    let caret = lines[4].find('^').expect("caret");
    assert_eq!(&lines[3][caret..caret + 1], "x", "{report}");
}

#[test]
fn debug_leaves_out_the_source() {
    let text = doc(
        "1.12",
        &format!("<!-- {} -->\n<gravity>0</gravity>", "y".repeat(1000)),
    );
    let e = err(&text);
    let debug = format!("{e:?}");
    assert!(
        !debug.contains("yyyy") && debug.contains("bytes"),
        "{debug}"
    );
}

// ----- load -------------------------------------------------------------------------------

#[test]
fn load_reads_a_file_and_spans_name_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("w.sdf");
    std::fs::write(
        &path,
        doc("1.9", "<model name='m'><link name='l'/></model>"),
    )
    .expect("write");
    let w = load(&path).expect("loads");
    assert_eq!(w.span.file.as_deref(), Some(&path));
    assert_eq!(w.models[0].links[0].span.file.as_deref(), Some(&path));
    assert_eq!(
        w.models[0].span.to_string(),
        format!("{}:4:1", path.display())
    );
    assert_eq!(w.models[0].links[0].span.line, 4);
    assert_eq!(w.models[0].links[0].span.column, 17);
}

#[test]
fn an_unreadable_file_is_an_error_naming_it() {
    let path = Path::new("no/such/dir/world.sdf");
    let e = load(path).expect_err("missing");
    assert_eq!(e.kind, ErrorKind::Io);
    assert_eq!(e.file.as_deref(), Some(path));
    assert_eq!((e.line, e.column), (0, 0));
    assert!(
        e.to_string()
            .starts_with("no/such/dir/world.sdf: cannot read the file"),
        "{e}"
    );
    let report = e.render(None);
    assert!(
        report.contains("--> no/such/dir/world.sdf\n") && report.contains("= help:"),
        "{report}"
    );
}

#[test]
fn a_file_that_is_not_utf8_is_an_error_with_its_position() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("latin1.sdf");
    std::fs::write(&path, b"<sdf version='1.6'>\n<world name='caf\xe9'/></sdf>").expect("write");
    let e = load(&path).expect_err("not utf-8");
    assert_eq!(e.kind, ErrorKind::Io);
    assert_eq!((e.line, e.column), (2, 17));
    assert!(e.message.contains("UTF-8"));
}

// ----- robustness -------------------------------------------------------------------------

#[test]
fn no_input_makes_the_reader_panic() {
    let text = doc(
        "1.5",
        "<physics><gravity>0 0 -9.8</gravity><max_step_size>0.001</max_step_size></physics>\
         <spherical_coordinates><latitude_deg>1</latitude_deg></spherical_coordinates>\
         <plugin filename='f' name='n'><x/></plugin>\
         <model name='m'><pose rotation_format='quat_xyzw'>0 0 0 0 0 0 1</pose>\
           <link name='l'><inertial><mass>2</mass><inertia><ixx>1</ixx></inertia></inertial>\
             <collision name='c'><geometry><box><size>1 1 1</size></box></geometry></collision>\
             <visual name='v'><geometry><plane/></geometry><material><diffuse>1 0 0</diffuse></material></visual>\
             <sensor name='s' type='camera'><camera><triggered>1</triggered></camera></sensor></link>\
           <model name='n'><pose degrees='true'>0 0 0 90 0 0</pose><link name='l'/></model></model>",
    );
    // Every truncation, and every single-byte corruption into a few troublesome bytes.
    let mut cases: Vec<String> = (0..=text.len())
        .filter(|&i| text.is_char_boundary(i))
        .map(|i| text[..i].to_string())
        .collect();
    for (i, _) in text.char_indices().step_by(3) {
        for c in ["<", ">", "\"", "'", "&", ":", "-", " ", "\u{e9}"] {
            let mut t = text.clone();
            t.replace_range(i..i + 1, c);
            cases.push(t);
        }
    }
    for case in &cases {
        match std::panic::catch_unwind(|| parse_str(case, None)) {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                assert!(
                    e.line >= 1 && e.column >= 1,
                    "no position for {case:?}: {e:?}"
                );
                let _ = e.render(None);
            }
            Err(_) => panic!("panic on {case:?}"),
        }
    }
}

#[test]
fn sensor_and_plugin_texts_are_self_contained_xml() {
    let text = r#"<sdf version="1.9" xmlns:gz="http://gazebosim.org/schema">
  <world name="w">
    <model name="m">
      <link name="l">
        <sensor name="s" type="imu"><gz:extra>1</gz:extra><custom:thing>2</custom:thing></sensor>
      </link>
      <plugin filename="p" name="q"><gz:gain>3</gz:gain></plugin>
    </model>
  </world>
</sdf>"#;
    let w = parse_str(text, None).unwrap();
    let sensor = &w.models[0].links[0].sensors[0].sdf;
    let plugin = &w.models[0].plugins[0].sdf;
    for snippet in [sensor, plugin] {
        let doc = roxmltree::Document::parse(snippet).unwrap_or_else(|e| panic!("{snippet}: {e}"));
        assert!(
            snippet.contains(r#"xmlns:gz="http://gazebosim.org/schema""#),
            "{snippet}"
        );
        let gz = doc
            .descendants()
            .find(|n| n.tag_name().namespace() == Some("http://gazebosim.org/schema"))
            .expect("the gz element keeps its namespace");
        assert!(gz.text().is_some());
    }
    // The undeclared prefix is repaired as in the whole document.
    assert!(
        sensor.contains("<custom.thing>2</custom.thing>"),
        "{sensor}"
    );
    // Without namespaces the text is exactly as written.
    let plain = parse_str(
        r#"<sdf version="1.9"><world name="w"><model name="m"><link name="l"><sensor name="s" type="imu">
        <update_rate>5</update_rate></sensor></link></model></world></sdf>"#,
        None,
    )
    .unwrap();
    assert_eq!(
        plain.models[0].links[0].sensors[0].sdf,
        "<sensor name=\"s\" type=\"imu\">\n        <update_rate>5</update_rate></sensor>"
    );
}

fn two_links(version: &str, joint: &str) -> String {
    doc(
        version,
        &format!("<model name='m'><link name='a'/><link name='b'/>\n{joint}\n</model>"),
    )
}

#[test]
fn joints_are_read_with_axis_limits_and_dynamics() {
    let w = ok(&two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><pose>0 0 1 0 0 0</pose>
         <axis><xyz>0 2 0</xyz><limit><lower>-1</lower><upper>2</upper><effort>5</effort><velocity>3</velocity></limit>
         <dynamics><damping>0.5</damping><friction>0.1</friction><spring_reference>0.2</spring_reference><spring_stiffness>4</spring_stiffness></dynamics></axis></joint>",
    ));
    let j = &w.models[0].joints[0];
    assert_eq!(
        (j.name.as_str(), j.kind, j.parent.as_str(), j.child.as_str()),
        ("j", JointKind::Revolute, "a", "b")
    );
    assert_eq!(j.pose.position, Vec3::new(0.0, 0.0, 1.0));
    let a = j.axis.as_ref().unwrap();
    assert_eq!(a.xyz, Vec3::new(0.0, 1.0, 0.0), "normalised");
    assert_eq!(a.expressed_in, "");
    assert_eq!(
        (a.lower, a.upper, a.effort, a.velocity),
        (-1.0, 2.0, 5.0, 3.0)
    );
    assert_eq!(
        (
            a.damping,
            a.friction,
            a.spring_reference,
            a.spring_stiffness
        ),
        (0.5, 0.1, 0.2, 4.0)
    );

    // Defaults: z axis, no limits; 1e16 limits of old files mean none; parent may be world.
    let w = ok(&two_links(
        "1.6",
        "<joint name='j' type='prismatic'><parent>world</parent><child>b</child>
         <axis><limit><lower>-1e16</lower><upper>1e16</upper><effort>-1</effort></limit><use_parent_model_frame>true</use_parent_model_frame></axis></joint>",
    ));
    let a = w.models[0].joints[0].axis.as_ref().unwrap();
    assert_eq!(a.xyz, Vec3::new(0.0, 0.0, 1.0));
    assert_eq!(a.expressed_in, "__model__");
    assert!(a.lower == f64::NEG_INFINITY && a.upper == f64::INFINITY && a.effort == f64::INFINITY);
    assert_eq!(w.models[0].joints[0].parent, "world");

    // 1.4: axes are in the model frame; 1.7+: expressed_in.
    let j = |v: &str, axis: &str| {
        ok(&two_links(v, &format!("<joint name='j' type='continuous'><parent>a</parent><child>b</child><axis>{axis}</axis></joint>")))
            .models[0]
            .joints[0]
            .axis
            .clone()
            .unwrap()
    };
    assert_eq!(j("1.4", "<xyz>1 0 0</xyz>").expressed_in, "__model__");
    assert_eq!(
        j("1.9", "<xyz expressed_in='__model__'>1 0 0</xyz>").expressed_in,
        "__model__"
    );
    assert_eq!(j("1.9", "<xyz>1 0 0</xyz>").expressed_in, "");
    let c = j(
        "1.9",
        "<xyz>1 0 0</xyz><limit><lower>-1</lower><upper>1</upper></limit>",
    );
    assert!(
        c.lower.is_infinite() && c.upper.is_infinite(),
        "continuous joints have no limits"
    );

    for (ty, kind) in [("fixed", JointKind::Fixed), ("ball", JointKind::Ball)] {
        let w = ok(&two_links(
            "1.9",
            &format!("<joint name='j' type='{ty}'><parent>a</parent><child>b</child></joint>"),
        ));
        assert_eq!(w.models[0].joints[0].kind, kind);
        assert!(w.models[0].joints[0].axis.is_none());
    }
}

#[test]
fn joint_errors() {
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>c</child></joint>",
    );
    check(
        &err(&t),
        ErrorKind::UnknownReference,
        &t,
        "<joint",
        "<child> \"c\" is not a frame in model \"m\"",
    );
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent></joint>",
    );
    check(&err(&t), ErrorKind::Missing, &t, "<joint", "has no <child>");
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>a</child></joint>",
    );
    check(&err(&t), ErrorKind::Invalid, &t, "<joint", "to itself");
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>world</child></joint>",
    );
    check(
        &err(&t),
        ErrorKind::Invalid,
        &t,
        "<child>world",
        "the child cannot be `world`",
    );
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><xyz>0 0 0</xyz></axis></joint>",
    );
    check(
        &err(&t),
        ErrorKind::Invalid,
        &t,
        "<xyz>",
        "axis <xyz> is zero",
    );
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><limit><lower>1</lower><upper>0</upper></limit></axis></joint>",
    );
    check(
        &err(&t),
        ErrorKind::Invalid,
        &t,
        "<limit>",
        "above the upper limit",
    );
    // A link may be the child of two joints (a kinematic loop), as in libsdformat.
    ok(&two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child></joint><joint name='k' type='fixed'><parent>a</parent><child>b</child></joint>",
    ));
    let t = two_links(
        "1.9",
        "<joint name='j' type='hinge'><parent>a</parent><child>b</child></joint>",
    );
    check(
        &err(&t),
        ErrorKind::Unsupported,
        &t,
        "hinge'",
        "unknown joint type \"hinge\"",
    );
    let t = two_links(
        "1.9",
        "<joint name='j' type='screw'><parent>a</parent><child>b</child><thread_pitch>0</thread_pitch></joint>",
    );
    check(
        &err(&t),
        ErrorKind::Invalid,
        &t,
        "<thread_pitch>",
        "must be finite and not zero",
    );
    let t = two_links(
        "1.9",
        "<joint name='j' type='gearbox'><parent>a</parent><child>b</child><gearbox_reference_body>c</gearbox_reference_body></joint>",
    );
    check(
        &err(&t),
        ErrorKind::UnknownReference,
        &t,
        "<joint",
        "gearbox_reference_body",
    );
}

#[test]
fn two_axis_screw_and_gearbox_joints_are_read() {
    let joints = |v: &str, j: &str| {
        let w = ok(&two_links(v, j));
        w.models[0].joints.clone()
    };
    // axis2 resolved like axis (expressed_in honoured), with its own limits and dynamics.
    let j = &joints(
        "1.9",
        "<frame name='f'><pose>0 0 0 0 0 1.5707963267948966</pose></frame>\
         <joint name='u' type='universal'><parent>a</parent><child>b</child>\
         <axis><xyz>1 0 0</xyz></axis><axis2><xyz expressed_in='f'>1 0 0</xyz>\
         <limit><lower>-1</lower><upper>2</upper></limit><dynamics><damping>0.5</damping></dynamics></axis2></joint>",
    )[0];
    assert_eq!(j.kind, JointKind::Universal);
    let a2 = j.axis2.as_ref().unwrap();
    assert!(
        (a2.xyz_in_joint - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-9,
        "{a2:?}"
    );
    assert_eq!((a2.lower, a2.upper, a2.damping), (-1.0, 2.0, 0.5));
    // A missing axis2 takes the defaults (z).
    let j = &joints(
        "1.9",
        "<joint name='r' type='revolute2'><parent>a</parent><child>b</child><axis><xyz>1 0 0</xyz></axis></joint>",
    )[0];
    assert_eq!(j.axis2.as_ref().unwrap().xyz, Vec3::new(0.0, 0.0, 1.0));
    // Screw pitch: m/rev right-handed; the old rad/m left-handed value converted; the new
    // element wins; default 1 m/rev.
    let pitch = |v: &str, body: &str| {
        joints(
            v,
            &format!(
                "<joint name='s' type='screw'><parent>a</parent><child>b</child>{body}</joint>"
            ),
        )[0]
        .screw_thread_pitch
    };
    assert_eq!(
        pitch("1.10", "<screw_thread_pitch>0.5</screw_thread_pitch>"),
        0.5
    );
    assert!((pitch("1.9", "<thread_pitch>-12.566370614359172</thread_pitch>") - 0.5).abs() < 1e-12);
    assert_eq!(
        pitch(
            "1.10",
            "<screw_thread_pitch>0.5</screw_thread_pitch><thread_pitch>3</thread_pitch>"
        ),
        0.5
    );
    assert_eq!(pitch("1.9", ""), 1.0);
    // Gearbox: ratio and reference body resolved to a link.
    let j = &joints(
        "1.9",
        "<joint name='g' type='gearbox'><parent>a</parent><child>b</child>\
         <gearbox_reference_body>a</gearbox_reference_body><gearbox_ratio>5</gearbox_ratio>\
         <axis><xyz>0 0 1</xyz></axis><axis2><xyz>0 0 1</xyz></axis2></joint>",
    )[0];
    assert_eq!(
        (j.gearbox_ratio, j.gearbox_reference_link.as_str()),
        (5.0, "a")
    );
}

#[test]
fn single_models_are_read_for_run_time_creation() {
    let m = parse_model_str(
        "<sdf version='1.9'><model name='box'><pose>1 0 0 0 0 0</pose><link name='l'/></model></sdf>",
        None,
    )
    .unwrap();
    assert_eq!((m.name.as_str(), m.links.len()), ("box", 1));
    assert_eq!(m.pose.position, Vec3::new(1.0, 0.0, 0.0));
    let bare = parse_model_str("<model name='b'><link name='l'/></model>", None).unwrap();
    assert_eq!(bare.name, "b");
    let e = parse_model_str("<sdf version='1.9'><world name='w'/></sdf>", None).unwrap_err();
    assert!(e.message.contains("no <model>"), "{e}");
    let e = parse_model_str(
        "<sdf version='1.9'><model name='a'><link name='l'/></model><model name='b'/></sdf>",
        None,
    )
    .unwrap_err();
    assert!(e.message.contains("more than one <model>"), "{e}");
    let e = parse_model_str("<sdf version='1.9'><model name='a'><link name='l'><inertial><mass>-1</mass></inertial></link></model></sdf>", None)
        .unwrap_err();
    assert_eq!(e.line, 1, "{e}");
}

#[test]
fn sensors_inside_joints_are_read() {
    let sensor = "<sensor name='ft' type='force_torque'><pose>0 0 0.5 0 0 0</pose>\
                  <update_rate>100</update_rate><force_torque><frame>child</frame></force_torque></sensor>";
    let w = ok(&two_links(
        "1.9",
        &format!(
            "<joint name='j' type='fixed'><parent>a</parent><child>b</child>{sensor}\
             <sensor name='ft2' type='force_torque'/></joint>"
        ),
    ));
    let j = &w.models[0].joints[0];
    assert_eq!(j.sensors.len(), 2);
    let s = &j.sensors[0];
    assert_eq!(
        (s.name.as_str(), s.sensor_type.as_str()),
        ("ft", "force_torque")
    );
    assert_pose(&s.pose, [0.0, 0.0, 0.5], Quat::IDENTITY);
    assert_eq!(s.update_rate, 100.0);
    assert_eq!(s.sdf, sensor);
    assert_eq!(j.sensors[1].name, "ft2");
    // Poses may name the joint's frame.
    let w = ok(&two_links(
        "1.9",
        "<joint name='j' type='fixed'><parent>a</parent><child>b</child>\
         <sensor name='s' type='force_torque'><pose relative_to='j'>1 0 0 0 0 0</pose></sensor></joint>",
    ));
    assert_pose(
        &w.models[0].joints[0].sensors[0].pose,
        [1.0, 0.0, 0.0],
        Quat::IDENTITY,
    );
    // A joint without sensors has none.
    let w = ok(&two_links(
        "1.9",
        "<joint name='j' type='fixed'><parent>a</parent><child>b</child></joint>",
    ));
    assert!(w.models[0].joints[0].sensors.is_empty());
}

#[test]
fn sensors_inside_a_joint_need_different_names() {
    let t = two_links(
        "1.9",
        "<joint name='j' type='fixed'><parent>a</parent><child>b</child>\
         <sensor name='s' type='force_torque'/>\n<sensor name='s' type='force_torque'/></joint>",
    );
    check_nth(
        &err(&t),
        ErrorKind::Duplicate,
        &t,
        "s' type",
        1,
        "a <sensor> named \"s\" already exists in this joint",
    );
    let t = two_links(
        "1.9",
        "<joint name='j' type='fixed'><parent>a</parent><child>b</child>\
         <sensor name='s'/></joint>",
    );
    let e = err(&t);
    assert_eq!(e.kind, ErrorKind::Missing, "{}", e.render(None));
}

// ----- frames and pose resolution -----------------------------------------------------------

const QUARTER: f64 = std::f64::consts::FRAC_PI_2;

fn yaw(a: f64) -> Quat {
    Quat::from_rpy(0.0, 0.0, a)
}

#[test]
fn relative_to_chains_and_frames_attached_to_frames() {
    let w = ok_body(&format!(
        "<model name='m'><pose>1 0 0 0 0 {QUARTER}</pose>
           <frame name='F1'><pose>0 1 0 0 0 0</pose></frame>
           <frame name='F2' attached_to='F1'><pose>1 0 0 0 0 0</pose></frame>
           <link name='L'><pose relative_to='F2'>0 0 1 0 0 0</pose></link>
           <link name='K'><pose relative_to='L'>0 0 0 0 0 {QUARTER}</pose>
             <inertial><pose relative_to='L'>1 0 0 0 0 0</pose></inertial>
             <collision name='c'><pose relative_to='__model__'/><geometry><sphere><radius>1</radius></sphere></geometry></collision>
             <visual name='v'><pose relative_to='F1'/><geometry><sphere><radius>1</radius></sphere></geometry></visual>
             <sensor name='s' type='imu'><pose relative_to='m'>0 0 1 0 0 0</pose></sensor>
           </link>
         </model>"
    ));
    let m = &w.models[0];
    assert_pose(&m.pose, [1.0, 0.0, 0.0], yaw(QUARTER));
    assert_eq!(m.raw_pose.relative_to, "");
    let (f1, f2) = (&m.frames[0], &m.frames[1]);
    assert_pose(&f1.pose, [0.0, 1.0, 0.0], Quat::IDENTITY);
    assert_pose(&f2.pose, [1.0, 1.0, 0.0], Quat::IDENTITY);
    assert_eq!(f2.attached_to, "F1");
    // F2 -> F1 -> the model frame -> the canonical link, the first one.
    assert_eq!(
        (f1.attached_to_body.as_str(), f2.attached_to_body.as_str()),
        ("L", "L")
    );
    let (l, k) = (&m.links[0], &m.links[1]);
    assert_pose(&l.pose, [1.0, 1.0, 1.0], Quat::IDENTITY);
    assert_eq!(l.raw_pose.relative_to, "F2");
    assert_pose(&l.raw_pose.pose, [0.0, 0.0, 1.0], Quat::IDENTITY);
    assert_pose(&k.pose, [1.0, 1.0, 1.0], yaw(QUARTER));
    // In K's frame (turned a quarter about z at (1, 1, 1)).
    assert_pose(&k.inertial.pose, [0.0, -1.0, 0.0], yaw(-QUARTER));
    assert_pose(&k.collisions[0].pose, [-1.0, 1.0, -1.0], yaw(-QUARTER));
    assert_pose(&k.visuals[0].pose, [0.0, 1.0, -1.0], yaw(-QUARTER));
    assert_pose(&k.sensors[0].pose, [-1.0, 1.0, 0.0], yaw(-QUARTER));
}

#[test]
fn pose_reference_errors() {
    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><link name='b'><pose relative_to='nope'>1 0 0 0 0 0</pose></link></model>",
    );
    let e = err(&t);
    check(
        &e,
        ErrorKind::UnknownReference,
        &t,
        "<pose relative_to='nope'",
        "relative_to \"nope\" is not a frame in model \"m\"",
    );
    assert!(
        e.hint.contains("\"a\"") && e.hint.contains("__model__"),
        "{}",
        e.hint
    );

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'><pose relative_to='b'/></link><link name='b'><pose relative_to='a'/></link></model>",
    );
    let e = err(&t);
    assert_eq!(e.kind, ErrorKind::Cycle, "{}", e.render(None));
    assert!(e.message.contains("cycle"), "{}", e.message);

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'><pose relative_to='a'/></link></model>",
    );
    check(
        &err(&t),
        ErrorKind::Cycle,
        &t,
        "<pose relative_to='a'",
        "relative to itself",
    );

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><frame name='f' attached_to='g'/><frame name='g' attached_to='f'/></model>",
    );
    let e = err(&t);
    assert_eq!(e.kind, ErrorKind::Cycle, "{}", e.render(None));
    assert!(e.message.contains("attached_to"), "{}", e.message);

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><frame name='f' attached_to='f'/></model>",
    );
    check(
        &err(&t),
        ErrorKind::Cycle,
        &t,
        "<frame",
        "attached to itself",
    );

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><frame name='f' attached_to='ghost'/></model>",
    );
    check(
        &err(&t),
        ErrorKind::UnknownReference,
        &t,
        "<frame",
        "attached_to \"ghost\" is not a frame",
    );

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><frame name='f' attached_to='world'/></model>",
    );
    check(
        &err(&t),
        ErrorKind::UnknownReference,
        &t,
        "<frame",
        "cannot be attached to `world`",
    );

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'><pose relative_to='world'/></link></model>",
    );
    let e = err(&t);
    assert_eq!(e.kind, ErrorKind::UnknownReference);
    assert!(e.hint.contains("cannot refer to `world`"), "{}", e.hint);

    // Reserved and scoped names of frames.
    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><frame name='__f__'/></model>",
    );
    check(&err(&t), ErrorKind::Invalid, &t, "__f__", "reserved");
    let t = doc("1.12", "<frame name='a::b'/>");
    check(&err(&t), ErrorKind::Invalid, &t, "a::b", "`::`");
}

#[test]
fn sibling_names_are_unique_across_kinds() {
    let t = doc(
        "1.12",
        "<model name='m'><link name='x'/><link name='y'/>\n<frame name='x'/></model>",
    );
    check(
        &err(&t),
        ErrorKind::Duplicate,
        &t,
        "<frame",
        "used by a <link> (line 4) and a <frame>",
    );
    let t = doc(
        "1.12",
        "<model name='m'><link name='x'/><model name='x'><link name='l'/></model></model>",
    );
    assert_eq!(err(&t).kind, ErrorKind::Duplicate);
    let t = doc(
        "1.12",
        "<model name='x'><link name='l'/></model><frame name='x'/>",
    );
    check(&err(&t), ErrorKind::Duplicate, &t, "<frame", "the world");
    // Before 1.7, libsdformat renames a joint that clashes with a link.
    let w = ok(&two_links(
        "1.6",
        "<joint name='b' type='fixed'><parent>a</parent><child>b</child></joint>",
    ));
    assert_eq!(w.models[0].joints[0].name, "b_joint");
}

#[test]
fn placement_frame_places_that_frame() {
    let w = ok_body(
        "<model name='m' placement_frame='L'><pose>0 0 5 0 0 0</pose>
           <link name='L'><pose>1 0 0 0 0 0</pose></link></model>
         <model name='n' placement_frame='F'><pose>0 0 0 0 0 0</pose>
           <link name='L'/><frame name='F' attached_to='L'><pose>0 0 0 0 0 1.5707963267948966</pose></frame></model>",
    );
    let m = &w.models[0];
    assert_eq!(m.placement_frame, "L");
    assert_pose(&m.pose, [-1.0, 0.0, 5.0], Quat::IDENTITY);
    assert_pose(
        &m.pose.compose(m.links[0].pose),
        [0.0, 0.0, 5.0],
        Quat::IDENTITY,
    );
    assert_pose(&w.models[1].pose, [0.0, 0.0, 0.0], yaw(-QUARTER));

    // Nested models, and a frame of the nested model as placement frame.
    let w = ok_body(
        "<model name='outer'><link name='base'/>
           <model name='inner' placement_frame='tip'><pose relative_to='base'>0 0 1 0 0 0</pose>
             <link name='body'/><frame name='tip'><pose>0 0 0.5 0 0 0</pose></frame></model></model>",
    );
    assert_pose(&w.models[0].models[0].pose, [0.0, 0.0, 0.5], Quat::IDENTITY);

    let t = doc(
        "1.12",
        "<model name='m' placement_frame='nope'><link name='L'/></model>",
    );
    let e = err(&t);
    check(
        &e,
        ErrorKind::UnknownReference,
        &t,
        "<model",
        "placement_frame \"nope\"",
    );
    assert!(e.hint.contains("\"L\""), "{}", e.hint);

    // What an <include> does with a model read from its own file.
    let mut m = w.models[0].models[0].clone();
    let pose = crate::world::RawPose {
        pose: Pose::from_xyz_rpy(0.0, 0.0, 3.0, 0.0, 0.0, 0.0),
        ..Default::default()
    };
    super::place_model(&mut m, Some(pose.clone()), Some("body")).unwrap();
    assert_eq!(m.placement_frame, "body");
    assert_pose(&m.pose, [0.0, 0.0, 3.0], Quat::IDENTITY);
    super::place_model(&mut m, None, Some("tip")).unwrap();
    assert_pose(&m.pose, [0.0, 0.0, 2.5], Quat::IDENTITY);
    let e = super::place_model(&mut m, Some(pose), Some("nope"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"nope\"") && e.contains("\"tip\""), "{e}");
}

#[test]
fn canonical_links() {
    let w = ok_body(
        "<model name='a'><link name='x'/><link name='y'/></model>
         <model name='b' canonical_link='y'><link name='x'/><link name='y'/></model>
         <model name='c'><model name='n'><link name='l'/></model></model>
         <model name='d' canonical_link='n::l'><link name='x'/><model name='n'><link name='l'/></model></model>
         <model name='e'><static>true</static></model>",
    );
    let canon: Vec<&str> = w.models.iter().map(|m| m.canonical_link.as_str()).collect();
    assert_eq!(canon, ["x", "y", "n::l", "n::l", ""]);

    let t = doc(
        "1.12",
        "<model name='m' canonical_link='z'><link name='x'/></model>",
    );
    let e = err(&t);
    check(
        &e,
        ErrorKind::UnknownReference,
        &t,
        "<model",
        "canonical_link \"z\" is not a link",
    );
    assert!(e.hint.contains('x'), "{}", e.hint);

    let t = doc("1.12", "<model name='m'><frame name='f'/></model>");
    check(&err(&t), ErrorKind::Missing, &t, "<model", "has no link");
    // Before 1.7 too, as libsdformat.
    let t = doc("1.5", "<model name='m'/>");
    check(&err(&t), ErrorKind::Missing, &t, "<model", "has no link");
}

#[test]
fn joint_frames_parents_children_and_axes() {
    let w = ok_body(&format!(
        "<model name='m'>
           <link name='a'/>
           <link name='b'><pose>0 0 1 0 0 {QUARTER}</pose></link>
           <link name='c'><pose>0 0 1 0 0 {QUARTER}</pose></link>
           <frame name='fc' attached_to='c'><pose relative_to='c'>0 0 2 0 0 0</pose></frame>
           <model name='inner'><pose>5 0 0 0 0 0</pose><link name='l'/><link name='k'/></model>
           <joint name='j1' type='revolute'><parent>a</parent><child>b</child><pose>0 0 1 0 0 0</pose>
             <axis><xyz expressed_in='__model__'>1 0 0</xyz></axis></joint>
           <joint name='j2' type='revolute'><parent>inner</parent><child>fc</child>
             <pose relative_to='__model__'>0 0 1 0 0 0</pose>
             <axis><xyz expressed_in='a'>0 1 0</xyz></axis></joint>
           <joint name='j3' type='fixed'><parent>world</parent><child>inner::k</child></joint>
         </model>"
    ));
    let m = &w.models[0];
    let (j1, j2, j3) = (&m.joints[0], &m.joints[1], &m.joints[2]);
    // Default: relative to the child frame.
    assert_eq!(
        (j1.parent_link.as_str(), j1.child_link.as_str()),
        ("a", "b")
    );
    assert_pose(&j1.pose, [0.0, 0.0, 1.0], Quat::IDENTITY);
    // The model's x axis in the joint frame (turned a quarter with b).
    let x = j1.axis.as_ref().unwrap().xyz_in_joint;
    assert!(
        close(x.x, 0.0) && close(x.y, -1.0) && close(x.z, 0.0),
        "{x:?}"
    );
    // A nested model as parent means its canonical link; a frame as child means its link.
    assert_eq!(
        (j2.parent_link.as_str(), j2.child_link.as_str()),
        ("inner::l", "c")
    );
    assert_eq!(j2.raw_pose.relative_to, "__model__");
    assert_pose(&j2.pose, [0.0, 0.0, -0.0], yaw(-QUARTER));
    assert_eq!(j2.raw_pose.pose.position.z, 1.0);
    let y = j2.axis.as_ref().unwrap().xyz_in_joint;
    assert!(close(y.x, 0.0) && close(y.y, 1.0), "{y:?}");
    assert_eq!(
        (j3.parent_link.as_str(), j3.child_link.as_str()),
        ("world", "inner::k")
    );
    assert_pose(&j3.pose, [0.0, 0.0, 0.0], Quat::IDENTITY);

    // 1.6: use_parent_model_frame means the model frame.
    let w = ok(&doc(
        "1.6",
        "<model name='m'><link name='a'/><link name='b'><pose>0 0 0 0 0 1.5707963267948966</pose></link>
           <joint name='j' type='revolute'><parent>a</parent><child>b</child>
           <axis><xyz>1 0 0</xyz><use_parent_model_frame>true</use_parent_model_frame></axis></joint></model>",
    ));
    let x = w.models[0].joints[0].axis.as_ref().unwrap().xyz_in_joint;
    assert!(close(x.y, -1.0), "{x:?}");

    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><xyz expressed_in='nope'>1 0 0</xyz></axis></joint>",
    );
    check(
        &err(&t),
        ErrorKind::UnknownReference,
        &t,
        "nope'>",
        "expressed_in \"nope\"",
    );
    let t = two_links(
        "1.9",
        "<frame name='f' attached_to='b'/><joint name='j' type='revolute'><parent>f</parent><child>b</child></joint>",
    );
    check(
        &err(&t),
        ErrorKind::Invalid,
        &t,
        "<joint",
        "are both link \"b\"",
    );
}

#[test]
fn world_frames_and_world_joints() {
    let w = ok(&doc(
        "1.10",
        "<frame name='F'><pose>1 0 0 0 0 0</pose></frame>
         <model name='m'><pose relative_to='F'>0 1 0 0 0 0</pose><link name='l'/>
           <model name='n'><link name='k'/></model></model>
         <frame name='G' attached_to='m::n'><pose relative_to='m::n::k'>0 0 1 0 0 0</pose></frame>
         <joint name='wj' type='fixed'><parent>world</parent><child>m::n</child></joint>",
    ));
    assert_pose(&w.models[0].pose, [1.0, 1.0, 0.0], Quat::IDENTITY);
    assert_eq!(w.frames[0].attached_to_body, "world");
    assert_eq!(w.frames[1].attached_to_body, "m::n::k");
    assert_pose(&w.frames[1].pose, [1.0, 1.0, 1.0], Quat::IDENTITY);
    let j = &w.joints[0];
    assert_eq!(
        (j.parent_link.as_str(), j.child_link.as_str()),
        ("world", "m::n::k")
    );
    // Frames of the resolved world and model, for what is posed relative to them.
    let at = |n: &str| super::frame_in_world(&w, n).map(|p| p.position.to_array());
    assert_eq!(at("F"), Some([1.0, 0.0, 0.0]));
    assert_eq!(at("m"), Some([1.0, 1.0, 0.0]));
    assert_eq!(at("G"), Some([1.0, 1.0, 1.0]));
    assert_eq!(at("m::n::k"), Some([1.0, 1.0, 0.0]));
    assert_eq!(at("world"), Some([0.0; 3]));
    assert_eq!(at("m::nope"), None);
    assert!(super::frame_in_model(&w.models[0], "n::k").is_some());
    assert!(super::frame_in_model(&w.models[0], "k").is_none());

    let t = doc(
        "1.10",
        "<model name='m'><link name='l'/></model><joint name='wj' type='fixed'><parent>world</parent><child>m</child><sensor name='ft' type='force_torque'/></joint>",
    );
    check(
        &err(&t),
        ErrorKind::Unsupported,
        &t,
        "<sensor",
        "sensors in world-level joints",
    );
    let t = doc(
        "1.9",
        "<joint name='wj' type='fixed'><parent>world</parent><child>m</child></joint>",
    );
    check(&err(&t), ErrorKind::Invalid, &t, "<joint", "needs SDF 1.10");
    let t = doc(
        "1.10",
        "<joint name='wj' type='fixed'><parent>world</parent><child>m::x</child></joint>",
    );
    check(
        &err(&t),
        ErrorKind::UnknownReference,
        &t,
        "<joint",
        "is not a frame in the world",
    );
    let t = doc(
        "1.12",
        "<model name='m'><pose relative_to='F'/><link name='l'/></model><frame name='F' attached_to='m'/>",
    );
    let e = err(&t);
    assert_eq!(e.kind, ErrorKind::Cycle, "{}", e.render(None));
}

#[test]
fn automatic_inertia_sums_the_collisions_about_their_common_centre_of_mass() {
    // A 1x2x3 box of density 10 at x = 1 and a sphere of radius 0.5 of the inertial's density
    // (100) at x = -1, turned a quarter about z (which a sphere does not notice).
    let w = ok(&doc(
        "1.11",
        "<model name='m'><link name='l'>
           <inertial auto='true'><density>100</density><pose>5 5 5 0 0 0</pose></inertial>
           <collision name='b'><pose>1 0 0 0 0 1.5707963267948966</pose><density>10</density>
             <geometry><box><size>1 2 3</size></box></geometry></collision>
           <collision name='s'><pose>-1 0 0 0 0 0</pose>
             <geometry><sphere><radius>0.5</radius></sphere></geometry></collision>
         </link></model>",
    ));
    let i = &w.models[0].links[0].inertial;
    let mb = 10.0 * 6.0;
    let ms = 100.0 * 4.0 / 3.0 * PI * 0.125;
    let m = mb + ms;
    assert!((i.mass - m).abs() < 1e-9, "{i:?}");
    let cx = (mb - ms) / m;
    assert!((i.pose.position - Vec3::new(cx, 0.0, 0.0)).length() < 1e-9);
    assert_eq!(i.pose.orientation, Quat::IDENTITY);
    // The box is turned: its 1 m edge lies along y, its 2 m edge along x.
    let box_xx = mb / 12.0 * (1.0 + 9.0);
    let box_yy = mb / 12.0 * (4.0 + 9.0);
    let box_zz = mb / 12.0 * (1.0 + 4.0);
    let sph = 0.4 * ms * 0.25;
    let (db, ds) = (1.0 - cx, -1.0 - cx);
    let shift = mb * db * db + ms * ds * ds;
    let want = [
        box_xx + sph,
        0.0,
        0.0,
        box_yy + sph + shift,
        0.0,
        box_zz + sph + shift,
    ];
    for (a, b) in i.inertia.iter().zip(want) {
        assert!(
            (a - b).abs() < 1e-6 * b.abs().max(1.0),
            "{:?} vs {want:?}",
            i.inertia
        );
    }

    // With <mass>, the result is scaled to it.
    let w = ok(&doc(
        "1.11",
        "<model name='m'><link name='l'><inertial auto='true'><mass>6</mass></inertial>
           <collision name='c'><geometry><cylinder><radius>0.1</radius><length>2</length></cylinder></geometry></collision>
         </link></model>",
    ));
    let i = &w.models[0].links[0].inertial;
    assert_eq!(i.mass, 6.0);
    assert!((i.inertia[0] - 6.0 / 12.0 * (0.03 + 4.0)).abs() < 1e-9);
    assert!((i.inertia[5] - 0.5 * 6.0 * 0.01).abs() < 1e-9);

    // Refused: no collision, a mesh, a plane, a non-positive density.
    for (body, at, words, kind) in [
        (
            "<link name='l'><inertial auto='true'/></link>",
            "true'/>",
            "no <collision>",
            ErrorKind::Missing,
        ),
        (
            "<link name='l'><inertial auto='true'/><collision name='c'><geometry><mesh><uri>x.stl</uri></mesh></geometry></collision></link>",
            "<uri",
            "cannot find \"x.stl\"",
            ErrorKind::NotFound,
        ),
        (
            "<link name='l'><inertial auto='true'/><collision name='c'><geometry><plane/></geometry></collision></link>",
            "<geometry",
            "this geometry type",
            ErrorKind::Unsupported,
        ),
        (
            "<link name='l'><inertial auto='true'/><collision name='c'><density>0</density><geometry><box/></geometry></collision></link>",
            "<density",
            "must be a positive number",
            ErrorKind::Invalid,
        ),
    ] {
        let t = doc("1.11", &format!("<model name='m'>{body}</model>"));
        check(&err(&t), kind, &t, at, words);
    }
}

#[test]
fn every_faulty_element_of_a_world_is_reported_and_its_siblings_still_read() {
    let text = doc(
        "1.9",
        "<model name=\"a\"><link name=\"l\"><inertial><mass>-1</mass></inertial></link></model>\n<model name=\"b\"><static>true</static><link name=\"l\"/></model>\n<frame name=\"f\" attached_to=\"nowhere\"/>\n<model name=\"b\"><static>true</static><link name=\"l\"/></model>\n<plugin filename=\"x\"/>\n<model name=\"c\"><pose>1 2 x 0 0 0</pose><static>true</static><link name=\"l\"/></model>",
    );
    let e = err(&text);
    let found: Vec<(ErrorKind, u32)> = e.all().map(|e| (e.kind, e.line)).collect();
    assert_eq!(
        found,
        [
            (ErrorKind::Invalid, pos_of(&text, "<mass>", 0).0),
            (
                ErrorKind::Duplicate,
                pos_of(&text, "<model name=\"b\"", 1).0
            ),
            (ErrorKind::Missing, pos_of(&text, "<plugin", 0).0),
            (ErrorKind::Invalid, pos_of(&text, "1 2 x", 0).0),
        ],
        "{}",
        e.render(None)
    );
    let report = e.render(None);
    assert!(report.contains("4 errors"), "{report}");
}

#[test]
fn every_faulty_element_of_a_model_and_of_a_link_is_reported() {
    let text = doc(
        "1.9",
        "<model name=\"m\">\n<link name=\"a\">\n<collision name=\"c\"><geometry><box><size>1 0 1</size></box></geometry></collision>\n<visual name=\"v\"><geometry><sphere><radius>-2</radius></sphere></geometry></visual>\n<sensor name=\"s\"/>\n</link>\n<link name=\"b\"/>\n<link name=\"b\"/>\n<joint name=\"j\" type=\"revolute\"><parent>a</parent></joint>\n</model>",
    );
    let e = err(&text);
    let found: Vec<(ErrorKind, u32)> = e.all().map(|e| (e.kind, e.line)).collect();
    assert_eq!(
        found,
        [
            (ErrorKind::Invalid, pos_of(&text, "1 0 1", 0).0),
            (ErrorKind::Invalid, pos_of(&text, "-2", 0).0),
            (ErrorKind::Missing, pos_of(&text, "<sensor", 0).0),
            (ErrorKind::Duplicate, pos_of(&text, "<link name=\"b\"", 1).0),
            (ErrorKind::Missing, pos_of(&text, "<joint", 0).0),
        ],
        "{}",
        e.render(None)
    );
}

#[test]
fn every_unresolvable_reference_of_a_model_is_reported() {
    let text = doc(
        "1.9",
        "<model name=\"m\">\n<link name=\"a\">\n<collision name=\"c\"><pose relative_to=\"nowhere\"/><geometry><sphere/></geometry></collision>\n<visual name=\"v\"><pose relative_to=\"nor_here\"/><geometry><sphere/></geometry></visual>\n</link>\n<link name=\"b\"/>\n<frame name=\"f\" attached_to=\"ghost\"/>\n<joint name=\"j1\" type=\"fixed\"><parent>a</parent><child>missing</child></joint>\n<joint name=\"j2\" type=\"revolute\"><parent>a</parent><child>b</child><axis><xyz expressed_in=\"elsewhere\">0 0 1</xyz></axis></joint>\n</model>",
    );
    let e = err(&text);
    let found: Vec<(ErrorKind, u32)> = e.all().map(|e| (e.kind, e.line)).collect();
    assert_eq!(
        found,
        [
            (ErrorKind::UnknownReference, pos_of(&text, "<frame", 0).0),
            (
                ErrorKind::UnknownReference,
                pos_of(&text, "<joint name=\"j1\"", 0).0
            ),
            (
                ErrorKind::UnknownReference,
                pos_of(&text, "<joint name=\"j2\"", 0).0
            ),
        ],
        "{}",
        e.render(None)
    );
    assert!(e.message.contains("ghost"), "{}", e.message);
    assert!(
        e.others[0].message.contains("missing"),
        "{}",
        e.others[0].message
    );
    assert!(
        e.others[1].message.contains("elsewhere"),
        "{}",
        e.others[1].message
    );

    // With the scope resolved, the link-level poses are all reported.
    let text = doc(
        "1.9",
        "<model name=\"m\">\n<link name=\"a\">\n<collision name=\"c\"><pose relative_to=\"nowhere\"/><geometry><sphere/></geometry></collision>\n<visual name=\"v\"><pose relative_to=\"nor_here\"/><geometry><sphere/></geometry></visual>\n</link>\n</model>",
    );
    let e = err(&text);
    let found: Vec<(ErrorKind, u32)> = e.all().map(|e| (e.kind, e.line)).collect();
    assert_eq!(
        found,
        [
            (ErrorKind::UnknownReference, pos_of(&text, "nowhere", 0).0),
            (ErrorKind::UnknownReference, pos_of(&text, "nor_here", 0).0),
        ],
        "{}",
        e.render(None)
    );
}
