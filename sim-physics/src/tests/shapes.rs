//! Geometry: meshes (STL, OBJ, COLLADA), height maps, polylines and shapes too large to
//! simulate.

use crate::Physics;
use sim_plugin_api::{
    EntityId, Ray, RayCastOptions, RayHit, RayTarget, WorldView,
    abi_stable::std_types::{RSlice, RSliceMut},
};
use sim_world::Vec3;
use std::path::Path;

/// A shape far larger than single precision can simulate is a build error at its geometry
/// (the contact solver panicked on such shapes), not a panic; a large ground plane is fine.
#[test]
fn shapes_too_large_to_simulate_are_refused_where_they_are_written() {
    let text = "<sdf version=\"1.9\"><world name=\"w\">\n<model name=\"ground\"><static>true</static><link name=\"l\"><collision name=\"p\"><geometry><plane><normal>0 0 1</normal><size>1e9 1e9</size></plane></geometry></collision></link></model>\n<model name=\"m\"><link name=\"l\">\n<collision name=\"c\"><geometry><cylinder><radius>18446744073709551616</radius><length>0.3</length></cylinder></geometry></collision>\n<collision name=\"d\"><geometry><cylinder><radius>0.1</radius><length>0.3</length></cylinder></geometry></collision>\n</link></model>\n</world></sdf>";
    let world = sim_sdf::parse_str(text, None).unwrap();
    let Err(e) = Physics::build(&world) else {
        panic!("a shape 3.7e19 m across was accepted")
    };
    assert_eq!(e.span.line, 4, "{e}");
    assert!(e.message.contains("larger than the 1e6 m"), "{e}");
    let fine = text.replace("18446744073709551616", "1000");
    let world = sim_sdf::parse_str(&fine, None).unwrap();
    assert!(Physics::build(&world).is_ok());
}

/// The 12 triangles of an axis-aligned box from `lo` to `hi`, outward facing.
fn box_triangles(lo: [f64; 3], hi: [f64; 3]) -> (Vec<[f64; 3]>, Vec<[usize; 3]>) {
    let v: Vec<[f64; 3]> = (0..8)
        .map(|i| {
            [
                if i & 1 == 0 { lo[0] } else { hi[0] },
                if i & 2 == 0 { lo[1] } else { hi[1] },
                if i & 4 == 0 { lo[2] } else { hi[2] },
            ]
        })
        .collect();
    let quads = [
        [0, 2, 3, 1], // -z
        [4, 5, 7, 6], // +z
        [0, 1, 5, 4], // -y
        [2, 6, 7, 3], // +y
        [0, 4, 6, 2], // -x
        [1, 3, 7, 5], // +x
    ];
    let mut f = Vec::new();
    for q in quads {
        f.push([q[0], q[1], q[2]]);
        f.push([q[0], q[2], q[3]]);
    }
    (v, f)
}

fn write_stl(path: &Path, lo: [f64; 3], hi: [f64; 3]) {
    let (v, f) = box_triangles(lo, hi);
    let mut s = String::from("solid box\n");
    for t in f {
        s += "facet normal 0 0 0\nouter loop\n";
        for i in t {
            s += &format!("vertex {} {} {}\n", v[i][0], v[i][1], v[i][2]);
        }
        s += "endloop\nendfacet\n";
    }
    s += "endsolid box\n";
    std::fs::write(path, s).unwrap();
}

fn write_obj(path: &Path, lo: [f64; 3], hi: [f64; 3]) {
    let (v, f) = box_triangles(lo, hi);
    let mut s = String::from("o cube\n");
    for p in &v {
        s += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    for t in f {
        s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    std::fs::write(path, s).unwrap();
}

/// A COLLADA file with two box geometries, `low` (0..1 in z) and `high` (offset by a node
/// translation of 5 m along z), in centimetres (`<unit meter="0.01">`), with the libraries
/// `libraries` (materials, effects) before its geometries.
fn write_dae(path: &Path, libraries: &str) {
    let geometry = |id: &str| {
        let (v, f) = box_triangles([-50.0, -50.0, 0.0], [50.0, 50.0, 100.0]);
        let pos: Vec<String> = v.iter().flatten().map(|x| x.to_string()).collect();
        let idx: Vec<String> = f.iter().flatten().map(|x| x.to_string()).collect();
        format!(
            r##"<geometry id="{id}" name="{id}"><mesh>
  <source id="{id}-pos"><float_array id="{id}-arr" count="{n}">{pos}</float_array>
    <technique_common><accessor source="#{id}-arr" count="8" stride="3">
      <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
    </accessor></technique_common></source>
  <vertices id="{id}-v"><input semantic="POSITION" source="#{id}-pos"/></vertices>
  <triangles count="12"><input semantic="VERTEX" source="#{id}-v" offset="0"/><p>{idx}</p></triangles>
</mesh></geometry>"##,
            n = pos.len(),
            pos = pos.join(" "),
            idx = idx.join(" ")
        )
    };
    let doc = format!(
        r##"<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><unit meter="0.01" name="centimeter"/><up_axis>Z_UP</up_axis></asset>
{libraries}
<library_geometries>{}{}</library_geometries>
<library_visual_scenes><visual_scene id="Scene" name="Scene">
  <node id="n_low" name="n_low"><instance_geometry url="#low"/></node>
  <node id="n_high" name="n_high"><translate>0 0 500</translate><instance_geometry url="#high"/></node>
</visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>"##,
        geometry("low"),
        geometry("high")
    );
    std::fs::write(path, doc).unwrap();
}

fn world_with(dir: &Path, geometry: &str, pose: &str) -> std::path::PathBuf {
    let path = dir.join("w.sdf");
    std::fs::write(
        &path,
        format!(
            r#"<sdf version="1.9"><world name="w">
                <model name="thing"><static>true</static><pose>{pose}</pose><link name="l">
                  <collision name="c"><geometry>{geometry}</geometry></collision>
                  <visual name="v"><geometry>{geometry}</geometry></visual>
                </link></model></world></sdf>"#
        ),
    )
    .unwrap();
    path
}

fn build(path: &Path) -> Physics {
    let world = sim_sdf::load(path).unwrap_or_else(|e| panic!("{}", e.render(None)));
    Physics::build(&world).unwrap_or_else(|e| panic!("{e}"))
}

/// Distances along each ray (`inf` for a miss), collision and visual geometry.
fn cast(p: &Physics, rays: &[(Vec3, Vec3)], target: RayTarget) -> Vec<f64> {
    let rays: Vec<Ray> = rays
        .iter()
        .map(|&(origin, d)| Ray {
            origin,
            direction: d.normalized(),
        })
        .collect();
    let mut hits = vec![RayHit::MISS; rays.len()];
    let opts = RayCastOptions {
        max_distance: 100.0,
        target,
        exclude_model: EntityId::NONE,
    };
    p.view("test").cast_rays(
        RSlice::from_slice(&rays),
        &opts,
        RSliceMut::from_mut_slice(&mut hits),
    );
    hits.iter().map(|h| h.distance).collect()
}

fn down(x: f64, y: f64) -> (Vec3, Vec3) {
    (Vec3::new(x, y, 10.0), Vec3::new(0.0, 0.0, -1.0))
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-4
}

#[test]
fn stl_and_obj_meshes_are_hit_where_their_triangles_are_with_scale_and_pose() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("meshes")).unwrap();
    write_stl(
        &dir.path().join("meshes/box.stl"),
        [-0.5, -0.5, 0.0],
        [0.5, 0.5, 1.0],
    );
    write_obj(
        &dir.path().join("meshes/box.obj"),
        [-0.5, -0.5, 0.0],
        [0.5, 0.5, 1.0],
    );
    for file in ["meshes/box.stl", "meshes/box.obj"] {
        let w = world_with(
            dir.path(),
            &format!("<mesh><uri>{file}</uri><scale>2 1 3</scale></mesh>"),
            "1 0 0 0 0 0",
        );
        let p = build(&w);
        // Scaled to 2 x 1 x 3 m, at x = 1: top at z = 3, sides at x = 0 and 2, y = +-0.5.
        for target in [RayTarget::COLLISION, RayTarget::VISUAL] {
            let d = cast(
                &p,
                &[
                    down(1.0, 0.0),
                    down(0.05, 0.45),
                    down(-0.05, 0.0),
                    down(1.0, 0.55),
                    (Vec3::new(-5.0, 0.0, 1.0), Vec3::new(1.0, 0.0, 0.0)),
                ],
                target,
            );
            assert!(near(d[0], 7.0), "{file}: top at z = 3: {d:?}");
            assert!(near(d[1], 7.0), "{file}: {d:?}");
            assert_eq!(d[2], f64::INFINITY, "{file}: beside it: {d:?}");
            assert_eq!(d[3], f64::INFINITY, "{file}: beside it: {d:?}");
            assert!(near(d[4], 5.0), "{file}: the -x face at x = 0: {d:?}");
        }
    }
}

#[test]
fn collada_units_node_transforms_and_submeshes_are_applied() {
    let dir = tempfile::tempdir().unwrap();
    write_dae(&dir.path().join("two.dae"), "");
    // Both boxes: 1 m cube 0..1 in z, and the second one 5 m higher.
    let p = build(&world_with(
        dir.path(),
        "<mesh><uri>two.dae</uri></mesh>",
        "0 0 0 0 0 0",
    ));
    let up = (Vec3::new(0.0, 0.0, 2.0), Vec3::new(0.0, 0.0, 1.0));
    let d = cast(
        &p,
        &[down(0.0, 0.0), up, down(0.6, 0.0)],
        RayTarget::COLLISION,
    );
    assert!(near(d[0], 4.0), "top of the high box at z = 6: {d:?}");
    assert!(near(d[1], 3.0), "bottom of the high box at z = 5: {d:?}");
    assert_eq!(d[2], f64::INFINITY, "{d:?}");

    // Only the `low` submesh, centred on its bounding box.
    let p = build(&world_with(
        dir.path(),
        "<mesh><uri>two.dae</uri><submesh><name>low</name><center>true</center></submesh></mesh>",
        "0 0 0 0 0 0",
    ));
    let d = cast(&p, &[down(0.0, 0.0), up], RayTarget::COLLISION);
    assert!(near(d[0], 9.5), "centred: top at z = 0.5: {d:?}");
    assert_eq!(d[1], f64::INFINITY, "the high box is not part of it: {d:?}");

    let w = world_with(
        dir.path(),
        "<mesh><uri>two.dae</uri><submesh><name>middle</name></submesh></mesh>",
        "0 0 0 0 0 0",
    );
    // A submesh the file lacks: as Gazebo, the world loads without that geometry, with a
    // warning at the name that lists the submeshes the file has.
    let (doc, warnings) =
        sim_sdf::load_document_with_warnings(&w, &sim_sdf::LoadOptions::default());
    let Ok(sim_sdf::Document::World(world)) = doc else {
        panic!("{doc:?}")
    };
    let missing: Vec<_> = warnings
        .iter()
        .filter(|w| w.message.contains("no submesh \"middle\""))
        .collect();
    let lines: Vec<u32> = missing.iter().map(|w| w.line).collect();
    assert_eq!(
        lines,
        [3, 4],
        "the collision's and the visual's: {warnings:?}"
    );
    for w in missing {
        assert!(
            w.message.contains("low, high") || w.message.contains("high, low"),
            "{w:?}"
        );
    }
    let link = &world.models[0].links[0];
    assert_eq!(link.collisions[0].geometry, sim_world::Geometry::Empty);
    let p = Physics::build(&world).unwrap();
    let d = cast(&p, &[down(0.0, 0.0), up], RayTarget::COLLISION);
    assert_eq!(d, [f64::INFINITY; 2], "nothing to hit: {d:?}");
    let d = cast(&p, &[down(0.0, 0.0), up], RayTarget::VISUAL);
    assert_eq!(d, [f64::INFINITY; 2], "nothing to see: {d:?}");
}

#[test]
fn a_collada_colour_as_shininess_is_read_as_gz_common_reads_it() {
    // COLLADA's <shininess> holds a <float>; exporters write a <color> too, which gz-common
    // passes over. The shapes are read as they are.
    let dir = tempfile::tempdir().unwrap();
    write_dae(
        &dir.path().join("two.dae"),
        r##"<library_effects><effect id="fx"><profile_COMMON><technique sid="common"><phong>
  <diffuse><color>0.8 0.1 0.1 1</color></diffuse>
  <shininess><color>0.5 0.5 0.5 1</color></shininess>
</phong></technique></profile_COMMON></effect></library_effects>
<library_materials><material id="red" name="red"><instance_effect url="#fx"/></material></library_materials>"##,
    );
    let p = build(&world_with(
        dir.path(),
        "<mesh><uri>two.dae</uri></mesh>",
        "0 0 0 0 0 0",
    ));
    let d = cast(&p, &[down(0.0, 0.0)], RayTarget::COLLISION);
    assert!(near(d[0], 4.0), "top of the high box at z = 6: {d:?}");
}

#[test]
fn a_missing_mesh_is_an_error_naming_the_uri_and_where_it_was_looked_for() {
    let dir = tempfile::tempdir().unwrap();
    let w = world_with(
        dir.path(),
        "<mesh><uri>model://robot/meshes/arm.dae</uri></mesh>",
        "0 0 0 0 0 0",
    );
    let err = Physics::build(&sim_sdf::load(&w).unwrap()).unwrap_err();
    assert!(
        err.message.contains("model://robot/meshes/arm.dae"),
        "{err}"
    );
    assert!(err.message.contains("SIMCORE_RESOURCE_PATH"), "{err}");
    assert_eq!(err.span.line, 3, "{err}");
}

#[test]
fn one_mesh_used_by_many_models_is_read_and_built_once() {
    let dir = tempfile::tempdir().unwrap();
    write_stl(&dir.path().join("m.stl"), [0.0; 3], [1.0; 3]);
    let models: String = (0..50)
        .map(|i| {
            format!(
                r#"<model name="m{i}"><static>true</static><pose>{i} 0 0 0 0 0</pose><link name="l">
                    <collision name="c"><geometry><mesh><uri>m.stl</uri></mesh></geometry></collision>
                    <visual name="v"><geometry><mesh><uri>m.stl</uri></mesh></geometry></visual>
                    </link></model>"#
            )
        })
        .collect();
    let path = dir.path().join("w.sdf");
    std::fs::write(
        &path,
        format!("<sdf version='1.9'><world name='w'>{models}</world></sdf>"),
    )
    .unwrap();
    let p = build(&path);
    assert_eq!(p.shapes.store().files.len(), 1);
    assert_eq!(p.shapes.store().shapes.len(), 1);
    let d = cast(&p, &[down(49.5, 0.5)], RayTarget::COLLISION);
    assert!(near(d[0], 9.0), "{d:?}");
}

/// Colliders of equal primitives (a world of many equal boxes) share one shape, which the
/// narrow phase then reads from one place; bodies of other sizes and kinds keep their own,
/// and each body still rests on its own size.
#[test]
fn equal_primitives_share_one_shape_and_each_rests_on_its_own_size() {
    let geometries = [
        "<box><size>1 1 1</size></box>",
        "<box><size>0.5 0.5 0.5</size></box>",
        "<sphere><radius>0.25</radius></sphere>",
        "<cylinder><radius>0.25</radius><length>1</length></cylinder>",
    ];
    let models: String = (0..12)
        .map(|i| {
            let g = geometries[i % 4];
            format!(
                r#"<model name="m{i}"><pose>{} 0 2 0 0 0</pose><link name="l"><inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>
                    <collision name="c"><geometry>{g}</geometry></collision>
                    <visual name="v"><geometry>{g}</geometry></visual></link></model>"#,
                i as f64 * 3.0
            )
        })
        .collect();
    let text = format!(
        r#"<sdf version="1.9"><world name="w"><model name="ground"><static>true</static><link name="l"><collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link></model>{models}</world></sdf>"#
    );
    let mut p = Physics::build(&sim_sdf::parse_str(&text, None).unwrap()).unwrap();
    let shape_of = |p: &Physics, i: usize| {
        let id = p.entity_id(&format!("m{i}::l::c")).unwrap();
        let crate::entities::EntityData::Collision { collider, .. } =
            p.entities.get(id).unwrap().data
        else {
            panic!("m{i}::l::c is a collision")
        };
        p.pw.colliders[collider].shared_shape().clone()
    };
    for i in 0..12 {
        for j in 0..12 {
            let same = std::sync::Arc::ptr_eq(&shape_of(&p, i).0, &shape_of(&p, j).0);
            assert_eq!(same, i % 4 == j % 4, "m{i} and m{j}");
        }
    }
    // A model spawned later with a box of the first size takes the same shape.
    let spawned = sim_sdf::parse_model_str(
        &format!(
            r#"<model name="m12"><pose>36 0 2 0 0 0</pose><link name="l"><collision name="c"><geometry>{}</geometry></collision></link></model>"#,
            geometries[0]
        ),
        None,
    )
    .unwrap();
    p.spawn_model(&spawned).unwrap();
    assert!(std::sync::Arc::ptr_eq(
        &shape_of(&p, 12).0,
        &shape_of(&p, 0).0
    ));
    for _ in 0..4000 {
        p.step();
    }
    // Resting heights: half of each size (the cylinder stands on its end, after rocking on
    // its rim for about 3 s).
    let rest = [0.5, 0.25, 0.25, 0.5];
    for i in 0..13 {
        let id = p.entity_id(&format!("m{i}::l")).unwrap();
        let z = p.kinematics_of(id).unwrap().pose.position.z;
        assert!((z - rest[i % 4]).abs() < 0.01, "m{i} rests at z = {z}");
    }
}

#[test]
fn dynamic_meshes_collide_as_convex_parts_and_rest_on_the_ground() {
    let dir = tempfile::tempdir().unwrap();
    write_stl(&dir.path().join("m.stl"), [-0.5; 3], [0.5; 3]);
    let path = dir.path().join("w.sdf");
    let mesh = "<geometry><mesh><uri>m.stl</uri></mesh></geometry>";
    std::fs::write(
        &path,
        format!(
            r#"<sdf version="1.9"><world name="w">
                <model name="ground"><static>true</static><link name="l"><collision name="c">
                  <geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link></model>
                <model name="fixed"><static>true</static><pose>5 0 0.5 0 0 0</pose><link name="l">
                  <collision name="c">{mesh}</collision></link></model>
                <model name="crate"><pose>0 0 2 0 0 0</pose><link name="l">
                  <inertial><mass>1</mass><inertia><ixx>0.17</ixx><iyy>0.17</iyy><izz>0.17</izz></inertia></inertial>
                  <collision name="c">{mesh}</collision><visual name="v">{mesh}</visual></link></model>
                </world></sdf>"#
        ),
    )
    .unwrap();
    let mut p = build(&path);
    let kind = |p: &Physics, name: &str| {
        let id = p.entity_id(name).unwrap();
        let handle =
            p.pw.colliders
                .iter()
                .find(|(_, c)| c.user_data as u64 == id.0)
                .map(|(h, _)| h)
                .unwrap();
        // A fixed shape may be wrapped as first in its pairs (see `leading`).
        super::super::leading::Leading::unwrap(p.pw.colliders[handle].shape()).shape_type()
    };
    use rapier3d::prelude::ShapeType;
    assert_eq!(
        kind(&p, "crate::l::c"),
        ShapeType::Compound,
        "dynamic: convex parts"
    );
    assert_eq!(
        kind(&p, "crate::l::v"),
        ShapeType::TriMesh,
        "visuals keep the triangles"
    );
    assert_eq!(
        kind(&p, "fixed::l::c"),
        ShapeType::TriMesh,
        "static: the triangles"
    );
    for _ in 0..2000 {
        p.step();
    }
    let id = p.entity_id("crate").unwrap();
    let z = p.kinematics_of(id).unwrap().pose.position.z;
    assert!(
        (z - 0.5).abs() < 0.02,
        "the 1 m mesh cube rests on the ground: z = {z}"
    );
}

#[test]
fn heightmaps_follow_the_image_with_the_top_row_at_plus_y() {
    let dir = tempfile::tempdir().unwrap();
    // 3 x 3 image: the top row white, the rest black except a grey centre.
    let pixels: [u8; 9] = [255, 255, 255, 0, 128, 0, 0, 0, 0];
    let file = std::fs::File::create(dir.path().join("h.png")).unwrap();
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), 3, 3);
    enc.set_color(png::ColorType::Grayscale);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()
        .unwrap()
        .write_image_data(&pixels)
        .unwrap();

    let p = build(&world_with(
        dir.path(),
        "<heightmap><uri>h.png</uri><size>10 20 2</size><pos>1 0 0.5</pos></heightmap>",
        "0 0 0 0 0 0",
    ));
    // Samples every 5 m in x (from -4 to 6) and 10 m in y (from -10 to 10); along the
    // sample line x = 1 heights are linear between the rows.
    let grey = 2.0 * 128.0 / 255.0;
    let d = cast(
        &p,
        &[
            down(1.0, 0.0),
            down(1.0, 9.9),
            down(1.0, 5.0),
            down(1.0, -9.9),
        ],
        RayTarget::COLLISION,
    );
    assert!(near(d[0], 10.0 - (0.5 + grey)), "centre: {d:?}");
    assert!(
        near(d[1], 10.0 - (0.5 + grey + 0.99 * (2.0 - grey))),
        "the top row is +y, full height 2 above 0.5: {d:?}"
    );
    assert!(near(d[2], 10.0 - (0.5 + (grey + 2.0) / 2.0)), "{d:?}");
    assert!(
        near(d[3], 10.0 - (0.5 + 0.01 * grey)),
        "the bottom row is black: {d:?}"
    );
    assert_eq!(
        cast(&p, &[down(7.0, 0.0)], RayTarget::COLLISION)[0],
        f64::INFINITY
    );
}

#[test]
fn polylines_are_extruded_with_holes_and_cones_point_up() {
    let dir = tempfile::tempdir().unwrap();
    let square = |h: f64| {
        format!(
            "<polyline><point>-{h} -{h}</point><point>{h} -{h}</point><point>{h} {h}</point><point>-{h} {h}</point><height>2</height></polyline>"
        )
    };
    let p = build(&world_with(
        dir.path(),
        &format!("{}{}", square(2.0), square(1.0)),
        "0 0 1 0 0 0",
    ));
    let d = cast(
        &p,
        &[
            down(1.5, 0.0),
            down(0.0, 0.0),
            down(2.5, 0.0),
            (Vec3::new(0.0, 0.0, 1.5), Vec3::new(1.0, 0.0, 0.0)),
        ],
        RayTarget::COLLISION,
    );
    assert!(near(d[0], 7.0), "the ring is 2 m high from z = 1: {d:?}");
    assert_eq!(d[1], f64::INFINITY, "the hole: {d:?}");
    assert_eq!(d[2], f64::INFINITY, "{d:?}");
    assert!(near(d[3], 1.0), "the inner wall of the hole: {d:?}");

    // A concave (L-shaped) outline.
    let l = "<polyline><point>0 0</point><point>2 0</point><point>2 1</point><point>1 1</point><point>1 2</point><point>0 2</point><height>1</height></polyline>";
    let p = build(&world_with(dir.path(), l, "0 0 0 0 0 0"));
    let d = cast(
        &p,
        &[down(0.5, 1.5), down(1.5, 1.5), down(1.5, 0.5)],
        RayTarget::COLLISION,
    );
    assert!(
        near(d[0], 9.0) && d[1] == f64::INFINITY && near(d[2], 9.0),
        "{d:?}"
    );

    let p = build(&world_with(
        dir.path(),
        "<cone><radius>1</radius><length>2</length></cone>",
        "0 0 1 0 0 0",
    ));
    // Base at z = 0 (radius 1), apex at z = 2: at z = 1.5 the radius is 0.25.
    let d = cast(
        &p,
        &[
            down(0.0, 0.0),
            (Vec3::new(-5.0, 0.0, 1.5), Vec3::new(1.0, 0.0, 0.0)),
        ],
        RayTarget::COLLISION,
    );
    assert!(near(d[0], 8.0), "apex at z = 2: {d:?}");
    assert!(near(d[1], 4.75), "{d:?}");
}
