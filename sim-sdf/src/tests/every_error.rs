//! Every error of a document is reported, not only the first: of a world's settings, a model's
//! and a link's own values, an `<inertial>`, faulty elements and unresolvable references.

use super::support::*;
use crate::*;

#[test]
fn every_faulty_element_of_a_world_is_reported_and_its_siblings_still_read() {
    let text = doc(
        "1.9",
        "<model name=\"a\"><link name=\"l\"><inertial><mass>-1</mass></inertial></link></model>\n<model name=\"b\"><static>true</static><link name=\"l\"/></model>\n<frame name=\"f\" attached_to=\"nowhere\"/>\n<model name=\"b\"><static>true</static><link name=\"l\"/></model>\n<plugin filename=\"x\"/>\n<model name=\"c\"><pose>1 2 x 0 0 0</pose><static>true</static><link name=\"l\"/></model>",
    );
    let e = assert_errors(
        &text,
        &[
            (ErrorKind::Invalid, "<mass>", 0),
            (ErrorKind::Duplicate, "<model name=\"b\"", 1),
            (ErrorKind::Missing, "<plugin", 0),
            (ErrorKind::Invalid, "1 2 x", 0),
        ],
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
    assert_errors(
        &text,
        &[
            (ErrorKind::Invalid, "1 0 1", 0),
            (ErrorKind::Invalid, "-2", 0),
            (ErrorKind::Missing, "<sensor", 0),
            (ErrorKind::Duplicate, "<link name=\"b\"", 1),
            (ErrorKind::Missing, "<joint", 0),
        ],
    );
}

#[test]
fn every_unresolvable_reference_of_a_model_is_reported() {
    let text = doc(
        "1.9",
        "<model name=\"m\">\n<link name=\"a\">\n<collision name=\"c\"><pose relative_to=\"nowhere\"/><geometry><sphere/></geometry></collision>\n<visual name=\"v\"><pose relative_to=\"nor_here\"/><geometry><sphere/></geometry></visual>\n</link>\n<link name=\"b\"/>\n<frame name=\"f\" attached_to=\"ghost\"/>\n<joint name=\"j1\" type=\"fixed\"><parent>a</parent><child>missing</child></joint>\n<joint name=\"j2\" type=\"revolute\"><parent>a</parent><child>b</child><axis><xyz expressed_in=\"elsewhere\">0 0 1</xyz></axis></joint>\n</model>",
    );
    let e = assert_errors(
        &text,
        &[
            (ErrorKind::UnknownReference, "<frame", 0),
            (ErrorKind::UnknownReference, "<joint name=\"j1\"", 0),
            (ErrorKind::UnknownReference, "<joint name=\"j2\"", 0),
        ],
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
    assert_errors(
        &text,
        &[
            (ErrorKind::UnknownReference, "nowhere", 0),
            (ErrorKind::UnknownReference, "nor_here", 0),
        ],
    );
}

/// The errors of `text` as (kind, line), in the order reported.
#[track_caller]
fn errors_of(text: &str) -> Vec<(ErrorKind, u32)> {
    kinds_and_lines(&err(text))
}

/// Asserts that `text` fails with these errors and no others, in this order: for each (kind,
/// needle, n), an error of `kind` on the line of the `n`th (0-based) `needle`. Returns the
/// error.
#[track_caller]
fn assert_errors(text: &str, expected: &[(ErrorKind, &str, usize)]) -> SdfError {
    let e = err(text);
    let want: Vec<(ErrorKind, u32)> = expected
        .iter()
        .map(|&(kind, needle, n)| (kind, pos_of(text, needle, n).0))
        .collect();
    assert_eq!(kinds_and_lines(&e), want, "{}", e.render(None));
    e
}

/// Asserts that `text` fails with errors on these lines and no others, in this order: for each
/// needle, the first line of `text` containing it. Returns the errors as (kind, line).
#[track_caller]
fn assert_error_lines(text: &str, needles: &[&str]) -> Vec<(ErrorKind, u32)> {
    let found = errors_of(text);
    let lines: Vec<u32> = found.iter().map(|e| e.1).collect();
    let want: Vec<u32> = needles.iter().map(|n| line_of(text, n)).collect();
    assert_eq!(lines, want, "{found:?}");
    found
}

/// The kind and line of every error of `e`, in the order reported.
fn kinds_and_lines(e: &SdfError) -> Vec<(ErrorKind, u32)> {
    e.all().map(|e| (e.kind, e.line)).collect()
}

#[test]
fn every_error_of_physics_gravity_and_the_world_settings_is_reported() {
    let text = "<sdf version='1.9'>
<world name='w'>
  <physics name='p' type='ode'>
    <max_step_size>-0.001</max_step_size>
  </physics>
  <gravity>0 0 x</gravity>
  <magnetic_field>1 2</magnetic_field>
  <spherical_coordinates><latitude_deg>north</latitude_deg></spherical_coordinates>
  <model name='m'><static>true</static><link name='l'><pose>1 2</pose></link></model>
</world>
</sdf>";
    let found = assert_error_lines(
        text,
        &[
            "<max_step_size>",
            "<gravity>",
            "<magnetic_field>",
            "<latitude_deg>",
            "<pose>1 2",
        ],
    );
    assert!(found.iter().all(|e| e.0 == ErrorKind::Invalid), "{found:?}");
}

#[test]
fn every_error_of_an_inertial_is_reported_with_the_links_other_errors() {
    let text = "<sdf version='1.9'>
<world name='w'>
  <model name='m'>
    <link name='l'>
      <pose>0 0 zero 0 0 0</pose>
      <gravity>maybe</gravity>
      <inertial>
        <mass>-1</mass>
        <pose>1 2 3</pose>
        <inertia>
          <ixx>heavy</ixx>
          <iyy>1</iyy>
          <izz>1e</izz>
        </inertia>
      </inertial>
      <collision name='c'><geometry><box><size>1 1</size></box></geometry></collision>
    </link>
  </model>
</world>
</sdf>";
    assert_error_lines(
        text,
        &[
            "<pose>0 0 zero",
            "<mass>",
            "<pose>1 2 3",
            "<ixx>",
            "<izz>",
            "<gravity>",
            "<size>",
        ],
    );
}

#[test]
fn an_invalid_tensor_is_reported_beside_an_invalid_mass() {
    let text = "<sdf version='1.9'>
<world name='w'>
  <model name='m'>
    <link name='l'>
      <inertial auto='perhaps'>
        <mass>0</mass>
        <inertia><ixx>1</ixx><iyy>1</iyy><izz>5</izz></inertia>
      </inertial>
    </link>
  </model>
</world>
</sdf>";
    let e = parse_str(text, None).unwrap_err();
    let messages: Vec<&str> = e.all().map(|e| e.message.as_str()).collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(
        messages[0].contains("`auto` must be a boolean"),
        "{messages:?}"
    );
    assert!(
        messages[1].contains("must be greater than 0"),
        "{messages:?}"
    );
    assert!(messages[2].contains("triangle inequality"), "{messages:?}");
    let lines: Vec<u32> = e.all().map(|e| e.line).collect();
    assert_eq!(
        lines,
        [
            line_of(text, "<inertial"),
            line_of(text, "<mass>"),
            line_of(text, "<inertia>")
        ]
    );
}

#[test]
fn a_models_own_values_do_not_hide_the_errors_of_its_elements() {
    let text = "<sdf version='1.9'>
<world name='w'>
  <model name='m'>
    <pose>1 2 3 4 5</pose>
    <static>yes please</static>
    <self_collide>often</self_collide>
    <link name='l'><kinematic>2</kinematic></link>
  </model>
</world>
</sdf>";
    assert_error_lines(
        text,
        &["<pose>", "<static>", "<self_collide>", "<kinematic>"],
    );
}
