//! Collisions, visuals and their geometry.

use super::support::*;
use crate::*;

use sim_world::{Geometry, Quat, Vec3};

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
        refused(&text, ErrorKind::Invalid, needle, words);
    }
}

#[test]
fn geometry_needs_exactly_one_known_shape() {
    let text = doc(
        "1.12",
        &model_with_link("<visual name='v'><geometry><box/>\n<sphere/></geometry></visual>"),
    );
    refused(
        &text,
        ErrorKind::Invalid,
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
    refused(&text, ErrorKind::Missing, "<geometry/>", "no shape");
    // Without <geometry> at all, as libsdformat: the empty shape.
    let w = ok_body(&model_with_link(
        "<visual name='v'><plugin filename='f' name='n'/></visual>",
    ));
    assert_eq!(link_of(&w).visuals[0].geometry, Geometry::Empty);
}

#[test]
fn meshes_heightmaps_polylines_and_cones_are_read() {
    use sim_world::{HeightmapShape, MeshShape, Polyline};
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
        refused(&text, kind, needle, words);
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
    refused(&text, ErrorKind::Invalid, "1 0<", "needs 3 or 4 numbers");
    let text = doc(
        "1.12",
        &model_with_link(
            "<visual name='v'><material><diffuse>1 0 0 1 1</diffuse></material></visual>",
        ),
    );
    refused(&text, ErrorKind::Invalid, "1 0 0 1 1", "found 5");
    let text = doc(
        "1.12",
        &model_with_link("<collision name='c'><laser_retro>high</laser_retro></collision>"),
    );
    refused(&text, ErrorKind::Invalid, "high", "expects a number");
    let text = doc(
        "1.12",
        &model_with_link("<collision><geometry><box/></geometry></collision>"),
    );
    refused(&text, ErrorKind::Missing, "<collision>", "no `name`");
    let text = doc(
        "1.12",
        &model_with_link("<collision name='c'/><collision name='c'/>"),
    );
    refused_nth(
        &text,
        ErrorKind::Duplicate,
        "c'/>",
        1,
        "a <collision> named \"c\" already exists in this link",
    );
    let text = doc(
        "1.12",
        &model_with_link("<visual name='v'/><visual name='v'/>"),
    );
    refused_nth(
        &text,
        ErrorKind::Duplicate,
        "v'/>",
        1,
        "a <visual> named \"v\"",
    );
}
