//! The rebuilding of flattened nested models (SDF < 1.8, see `unflatten`).

use super::support::*;
use crate::*;

use sim_world::{Model, Pose, Quat, Vec3};

#[track_caller]
fn err(text: &str) -> SdfError {
    match parse_document(text, None) {
        Ok(d) => panic!("expected an error, got {d:#?}"),
        Err(e) => e,
    }
}

fn world_17(body: &str) -> String {
    format!("<sdf version='1.7'>\n<world name='w'>\n{body}\n</world>\n</sdf>\n")
}

#[track_caller]
fn nested<'m>(m: &'m Model, name: &str) -> &'m Model {
    m.models
        .iter()
        .find(|n| n.name == name)
        .unwrap_or_else(|| panic!("no model {name} in {}", m.name))
}

fn names<T>(items: &[T], name: impl Fn(&T) -> &str) -> Vec<String> {
    items.iter().map(|i| name(i).to_string()).collect()
}

#[track_caller]
fn assert_close(p: &Pose, xyz: [f64; 3]) {
    let d = p.position - Vec3::new(xyz[0], xyz[1], xyz[2]);
    assert!(d.dot(d).sqrt() < 1e-9, "{p:?} is not at {xyz:?}");
}

/// What an SDF 1.7 `gz sdf -p` wrote for a parent model holding model M1 (rotated a quarter
/// turn about z, 10 m along x) with frames, links, joints and a model of its own.
const FLATTENED: &str = "
<model name='P'>
  <frame name='M1::__model__' attached_to='M1::L1'>
    <pose relative_to='__model__'>10 0 0 0 0 1.5707963267948966</pose>
  </frame>
  <frame name='M1::F1' attached_to='M1::__model__'>
    <pose>1 0 0 0 0 0</pose>
  </frame>
  <link name='M1::L1'>
    <pose relative_to='M1::F1'>0 0 0 0 0 0</pose>
    <collision name='C1'>
      <pose relative_to='M1::__model__'>0 0 1 0 0 0</pose>
      <geometry><sphere><radius>1</radius></sphere></geometry>
    </collision>
  </link>
  <link name='M1::L2'>
    <pose relative_to='M1::__model__'>0 2 0 0 0 0</pose>
  </link>
  <joint name='M1::J1' type='revolute'>
    <parent>M1::L1</parent>
    <child>M1::L2</child>
    <axis><xyz expressed_in='M1::__model__'>0 0 1</xyz></axis>
  </joint>
  <model name='M1::M2'>
    <pose relative_to='M1::F1'>0 0 3 0 0 0</pose>
    <link name='L3'/>
  </model>
</model>";

#[test]
fn a_flattened_nested_model_is_rebuilt_as_libsdformat_does() {
    let w = ok(&world_17(FLATTENED));
    let p = &w.models[0];
    assert!(p.links.is_empty() && p.joints.is_empty() && p.frames.is_empty());
    assert_eq!(names(&p.models, |m| &m.name), ["M1"]);
    // The parent's canonical link is the rebuilt model's.
    assert_eq!(p.canonical_link, "M1::L1");

    let m1 = nested(p, "M1");
    assert_eq!(m1.canonical_link, "L1");
    assert_eq!(m1.raw_pose.relative_to, "__model__");
    assert_close(&m1.pose, [10.0, 0.0, 0.0]);
    assert_eq!(names(&m1.links, |l| &l.name), ["L1", "L2"]);
    assert_eq!(names(&m1.frames, |f| &f.name), ["F1"]);
    assert_eq!(m1.frames[0].attached_to, "__model__");
    assert_eq!(m1.frames[0].attached_to_body, "L1");
    assert_eq!(m1.links[0].raw_pose.relative_to, "F1");
    assert_close(&m1.links[0].pose, [1.0, 0.0, 0.0]);
    assert_eq!(m1.links[0].collisions[0].raw_pose.relative_to, "__model__");
    // The collision is 1 m above the model frame, which is 1 m behind the link along x.
    assert_close(&m1.links[0].collisions[0].pose, [-1.0, 0.0, 1.0]);
    assert_eq!(m1.links[1].raw_pose.relative_to, "__model__");
    assert_close(&m1.links[1].pose, [0.0, 2.0, 0.0]);

    let j = &m1.joints[0];
    assert_eq!((j.name.as_str(), j.parent.as_str()), ("J1", "L1"));
    assert_eq!((j.child.as_str(), j.child_link.as_str()), ("L2", "L2"));
    assert_eq!(
        j.axis.as_ref().map(|a| a.expressed_in.as_str()),
        Some("__model__")
    );

    let m2 = nested(m1, "M2");
    assert_eq!(m2.raw_pose.relative_to, "F1");
    assert_close(&m2.pose, [1.0, 0.0, 3.0]);
    assert_eq!(m2.links[0].name, "L3");

    // In the world, the model's frame is turned a quarter turn: L2 (2 m along the model's y)
    // is 2 m along -x of the world from the model's origin.
    let x_wm = p.pose.compose(m1.pose);
    assert_close(&x_wm.compose(m1.links[1].pose), [8.0, 0.0, 0.0]);
    assert_close(&x_wm.compose(m2.pose), [10.0, 1.0, 3.0]);
    let q = Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), std::f64::consts::FRAC_PI_2);
    let r = x_wm.orientation.to_matrix();
    let e = q.to_matrix();
    for (a, b) in r.iter().flatten().zip(e.iter().flatten()) {
        assert!((a - b).abs() < 1e-9, "{r:?} != {e:?}");
    }
}

#[test]
fn deeper_prefixes_give_deeper_models_and_a_model_frame_is_optional() {
    let w = ok(&world_17(
        "<model name='P'>
           <link name='a::b::l'><pose>0 0 1 0 0 0</pose></link>
           <link name='a::m'/>
           <joint name='a::j' type='fixed'><parent>a::m</parent><child>a::b::l</child></joint>
         </model>",
    ));
    let a = nested(&w.models[0], "a");
    assert_eq!(names(&a.links, |l| &l.name), ["m"]);
    // Without an `a::__model__` frame the model sits at its parent's origin.
    assert_eq!(a.raw_pose.relative_to, "");
    assert_close(&a.pose, [0.0, 0.0, 0.0]);
    assert_eq!(a.canonical_link, "m");
    let b = nested(a, "b");
    assert_eq!(names(&b.links, |l| &l.name), ["l"]);
    assert_close(&b.links[0].pose, [0.0, 0.0, 1.0]);
    assert_eq!(a.joints[0].child_link, "b::l");
}

#[test]
fn rebuilding_stops_at_the_first_plain_nested_model_which_is_rebuilt_itself() {
    // libsdformat's conversion looks at the children in order and stops at the first nested
    // model without `::`: `x::l` (first seen before it) is rebuilt, `y::l` (after it) is not,
    // and the plain model's own flattened children are.
    let w = ok(&world_17(
        "<model name='P'>
           <link name='x::l'/>
           <model name='plain'>
             <link name='z::l'/>
           </model>
           <link name='y::l'/>
           <model name='other'><link name='q::l'/></model>
         </model>",
    ));
    let p = &w.models[0];
    assert_eq!(names(&p.links, |l| &l.name), ["y::l"]);
    assert_eq!(names(&p.models, |m| &m.name), ["plain", "other", "x"]);
    let plain = nested(p, "plain");
    assert!(plain.links.is_empty());
    assert_eq!(names(&nested(plain, "z").links, |l| &l.name), ["l"]);
    // Only the first plain nested model is looked at.
    assert_eq!(names(&nested(p, "other").links, |l| &l.name), ["q::l"]);
}

#[test]
fn a_flattened_model_outside_a_world_is_refused_where_it_is_marked() {
    // libsdformat rebuilds flattened models only in the models of a world.
    let text = "<sdf version='1.7'>
<model name='P'>
  <frame name='M1::__model__' attached_to='M1::L1'/>
  <link name='M1::L1'/>
</model>
</sdf>";
    let e = err(text);
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert_eq!(e.line, 3);
    assert!(e.message.contains("M1::__model__"), "{}", e.message);
    assert!(e.message.contains("<world>"), "{}", e.message);
    assert!(!e.hint.is_empty());
}

#[test]
fn a_model_frame_attached_to_nothing_is_an_error_naming_it() {
    let text = world_17(
        "<model name='P'>
           <frame name='M1::__model__'><pose>1 0 0 0 0 0</pose></frame>
           <link name='M1::L1'/>
         </model>",
    );
    let e = err(&text);
    assert_eq!(e.kind, ErrorKind::Missing);
    assert_eq!(e.line, 4);
    assert!(e.message.contains("attached to nothing"), "{}", e.message);
    assert!(e.hint.contains("M1::"), "{}", e.hint);
}

#[test]
fn since_sdf_1_8_names_with_the_scope_separator_are_errors() {
    let text = "<sdf version='1.8'><world name='w'><model name='P'>
  <link name='M1::L1'/>
</model></world></sdf>";
    let e = err(text);
    assert_eq!(e.kind, ErrorKind::Invalid);
    assert_eq!(e.line, 2);
}

#[test]
fn a_rebuilt_model_named_as_a_sibling_is_a_duplicate() {
    let text = world_17(
        "<model name='P'>
           <link name='M1::L1'/>
           <model name='M1'><link name='x'/></model>
         </model>",
    );
    let e = err(&text);
    assert_eq!(e.kind, ErrorKind::Duplicate, "{}", e.render(None));
    assert!(e.message.contains("\"M1\""), "{}", e.message);
}
