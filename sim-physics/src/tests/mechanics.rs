//! The mechanics extension: mass properties, collision volumes, a model's links and joints,
//! joint axes.

use super::*;
use sim_plugin_api::{CollisionShape, Mechanics, ShapeKind};

const ARM: &str = r#"<model name="arm"><pose>0 0 1 0 0 0</pose>
    <link name="base">
      <inertial><pose>0 0.1 0 0 0 0</pose><mass>3</mass>
        <inertia><ixx>0.5</ixx><iyy>0.4</iyy><izz>0.3</izz></inertia></inertial>
      <collision name="box"><pose>1 0 0 0 0 0</pose><geometry><box><size>1 2 3</size></box></geometry></collision>
      <collision name="ball"><geometry><sphere><radius>0.5</radius></sphere></geometry></collision>
      <collision name="cone"><geometry><cone><radius>1</radius><length>3</length></cone></geometry></collision>
    </link>
    <link name="tip"><pose>0 0 1 0 0 0</pose><inertial><mass>1</mass></inertial></link>
    <joint name="hinge" type="revolute"><pose>0 0 -0.5 0 0 0</pose><parent>base</parent><child>tip</child>
      <axis><xyz>0 1 0</xyz></axis></joint>
    <joint name="weld" type="fixed"><parent>world</parent><child>base</child></joint>
  </model>"#;

#[test]
fn mass_properties_and_collision_volumes() {
    let p = Physics::build(&world(ARM)).unwrap();
    let base = p.entity_id("arm::base").unwrap();
    let i = p.inertial(base).into_option().unwrap();
    assert!((i.mass - 3.0).abs() < 1e-6);
    assert!((i.center_of_mass - Vec3::new(0.0, 0.1, 0.0)).length() < 1e-6);
    for (got, want) in i.inertia.iter().zip([0.5, 0.4, 0.3, 0.0, 0.0, 0.0]) {
        assert!((got - want).abs() < 1e-6, "{:?}", i.inertia);
    }
    let mut shapes = RVec::<CollisionShape>::new();
    assert!(p.collision_shapes(base, &mut shapes));
    let kinds: Vec<ShapeKind> = shapes.iter().map(|s| s.kind).collect();
    assert_eq!(kinds, [ShapeKind::BOX, ShapeKind::SPHERE, ShapeKind::CONE]);
    assert_eq!(shapes[0].size, Vec3::new(1.0, 2.0, 3.0));
    assert!((shapes[0].volume - 6.0).abs() < 1e-12);
    assert_eq!(shapes[0].center_of_volume, Vec3::new(1.0, 0.0, 0.0));
    assert!((shapes[1].volume - std::f64::consts::PI / 6.0).abs() < 1e-12);
    assert!((shapes[2].volume - std::f64::consts::PI).abs() < 1e-12);
    assert!(
        (shapes[2].center_of_volume.z + 0.75).abs() < 1e-12,
        "a quarter up from the base"
    );
    let ground = p.entity_id("ground::l").unwrap();
    assert!(p.collision_shapes(ground, &mut shapes));
    assert_eq!((shapes[0].kind, shapes[0].volume), (ShapeKind::PLANE, 0.0));
    assert!(!p.collision_shapes(p.entity_id("arm").unwrap(), &mut shapes));
    assert!(shapes.is_empty());
}

#[test]
fn links_joints_and_axes_of_a_model() {
    let p = Physics::build(&world(ARM)).unwrap();
    let arm = p.entity_id("arm").unwrap();
    let id = |n: &str| p.entity_id(n).unwrap();
    let mut out = RVec::new();
    assert!(p.model_links(arm, &mut out));
    assert_eq!(out.as_slice(), [id("arm::base"), id("arm::tip")]);
    assert!(p.model_joints(arm, &mut out));
    assert_eq!(out.as_slice(), [id("arm::hinge"), id("arm::weld")]);
    assert_eq!(p.canonical_link(arm), id("arm::base"));
    assert!(!p.model_joints(id("arm::base"), &mut out));
    let a = p.joint_axis(id("arm::hinge"), 0).into_option().unwrap();
    assert_eq!(a.child_link, id("arm::tip"));
    assert!((a.axis - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-6, "{a:?}");
    assert!(
        (a.origin - Vec3::new(0.0, 0.0, -0.5)).length() < 1e-6,
        "{a:?}"
    );
    assert!(!a.linear);
    assert!(p.joint_axis(id("arm::hinge"), 1).is_none());
    assert!(p.joint_axis(id("arm::weld"), 0).is_none());
}

#[test]
fn meshes_have_the_volume_of_their_hull() {
    let dir = tempfile::tempdir().unwrap();
    // A regular tetrahedron's corners of the unit cube: volume 1/3.
    let stl = "solid t\n\
        facet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 1 0\nvertex 1 0 1\nendloop\nendfacet\n\
        facet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 0 1 1\nvertex 1 1 0\nendloop\nendfacet\n\
        facet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 0 1\nvertex 0 1 1\nendloop\nendfacet\n\
        facet normal 0 0 0\nouter loop\nvertex 1 1 0\nvertex 0 1 1\nvertex 1 0 1\nendloop\nendfacet\n\
        endsolid t\n";
    std::fs::write(dir.path().join("t.stl"), stl).unwrap();
    let text = r#"<sdf version="1.9"><world name="w"><model name="m"><link name="l">
        <collision name="c"><geometry><mesh><uri>t.stl</uri></mesh></geometry></collision>
      </link></model></world></sdf>"#;
    let w = sim_sdf::parse_str(text, Some(&dir.path().join("w.sdf"))).unwrap();
    let p = Physics::build(&w).unwrap();
    let mut shapes = RVec::new();
    assert!(p.collision_shapes(p.entity_id("m::l").unwrap(), &mut shapes));
    assert_eq!(shapes[0].kind, ShapeKind::MESH);
    assert!(
        (shapes[0].volume - 1.0 / 3.0).abs() < 1e-4,
        "{:?}",
        shapes[0]
    );
    assert!((shapes[0].center_of_volume - Vec3::new(0.5, 0.5, 0.5)).length() < 1e-4);
}
