//! Tests that every error of a world's settings, a model's and a link's own values and an
//! `<inertial>` is reported, not only the first.

use super::*;

/// The errors of `text` as (kind, line), in the order reported.
#[track_caller]
fn errors_of(text: &str) -> Vec<(ErrorKind, u32)> {
    match parse_str(text, None) {
        Ok(w) => panic!("expected errors, got {w:#?}"),
        Err(e) => e.all().map(|e| (e.kind, e.line)).collect(),
    }
}

/// The 1-based line of the first line of `text` containing `needle`.
#[track_caller]
fn line_of(text: &str, needle: &str) -> u32 {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in the text")) as u32
        + 1
}

#[test]
fn every_error_of_physics_gravity_and_the_world_settings_is_reported() {
    let text = "<sdf version='1.9'>
<world name='w'>
  <physics name='p' type='ode'>
    <max_step_size>-0.001</max_step_size>
    <real_time_factor>-2</real_time_factor>
  </physics>
  <gravity>0 0 x</gravity>
  <magnetic_field>1 2</magnetic_field>
  <spherical_coordinates><latitude_deg>north</latitude_deg></spherical_coordinates>
  <model name='m'><static>true</static><link name='l'><pose>1 2</pose></link></model>
</world>
</sdf>";
    let found = errors_of(text);
    let lines: Vec<u32> = found.iter().map(|e| e.1).collect();
    assert_eq!(
        lines,
        [
            line_of(text, "<max_step_size>"),
            line_of(text, "<real_time_factor>"),
            line_of(text, "<gravity>"),
            line_of(text, "<magnetic_field>"),
            line_of(text, "<latitude_deg>"),
            line_of(text, "<pose>1 2"),
        ],
        "{found:?}"
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
    let found = errors_of(text);
    let lines: Vec<u32> = found.iter().map(|e| e.1).collect();
    assert_eq!(
        lines,
        [
            line_of(text, "<pose>0 0 zero"),
            line_of(text, "<mass>"),
            line_of(text, "<pose>1 2 3"),
            line_of(text, "<ixx>"),
            line_of(text, "<izz>"),
            line_of(text, "<gravity>"),
            line_of(text, "<size>"),
        ],
        "{found:?}"
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
    let found = errors_of(text);
    let lines: Vec<u32> = found.iter().map(|e| e.1).collect();
    assert_eq!(
        lines,
        [
            line_of(text, "<pose>"),
            line_of(text, "<static>"),
            line_of(text, "<self_collide>"),
            line_of(text, "<kinematic>"),
        ],
        "{found:?}"
    );
}
