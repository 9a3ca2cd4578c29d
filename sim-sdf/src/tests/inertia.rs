//! Automatic inertia (`<inertial auto="true">`): from primitive shapes, and from the solid a
//! mesh encloses.

use super::support::*;
use crate::*;
use std::f64::consts::PI;
use std::path::Path;

use crate::mesh_inertia::solid;
use sim_world::{Quat, Vec3, World};

#[test]
fn automatic_inertia_needs_collisions() {
    let text = doc("1.11", &model_with_link("<inertial auto='true'/>"));
    refused(&text, ErrorKind::Missing, "true'/>", "no <collision>");
    ok(&doc("1.11", &model_with_link("<inertial auto='false'/>")));
}
// ----- collisions, visuals, geometry ------------------------------------------------------

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
        refused(&t, kind, at, words);
    }
}

/// The 12 triangles of the box from `lo` to `hi`, facing outwards.
fn box_triangles(lo: [f64; 3], hi: [f64; 3]) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let v: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { lo[0] } else { hi[0] },
                if i & 2 == 0 { lo[1] } else { hi[1] },
                if i & 4 == 0 { lo[2] } else { hi[2] },
            )
        })
        .collect();
    let f = vec![
        [0, 2, 1],
        [1, 2, 3],
        [4, 5, 6],
        [5, 7, 6],
        [0, 1, 4],
        [1, 5, 4],
        [2, 6, 3],
        [3, 6, 7],
        [0, 4, 2],
        [2, 4, 6],
        [1, 3, 5],
        [3, 7, 5],
    ];
    (v, f)
}

/// The same triangles with three vertices of their own each, as STL files store them.
fn unshared((v, f): (Vec<Vec3>, Vec<[u32; 3]>)) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let vertices: Vec<Vec3> = f.iter().flatten().map(|&i| v[i as usize]).collect();
    let faces = (0..f.len() as u32)
        .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
        .collect();
    (vertices, faces)
}

fn rel_close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

#[track_caller]
fn assert_all_close(got: &[f64], want: &[f64]) {
    assert!(
        got.iter().zip(want).all(|(a, b)| rel_close(*a, *b)),
        "{got:?} != {want:?}"
    );
}

/// The inertia `[ixx, ixy, ixz, iyy, iyz, izz]` of a solid box of mass `m` and sides `s`.
fn box_inertia(m: f64, s: [f64; 3]) -> [f64; 6] {
    let [x, y, z] = s.map(|v| v * v);
    [
        m / 12.0 * (y + z),
        0.0,
        0.0,
        m / 12.0 * (x + z),
        0.0,
        m / 12.0 * (x + y),
    ]
}

#[test]
fn a_closed_box_mesh_has_the_box_formulas_mass_properties() {
    let (v, f) = box_triangles([1.0, -2.0, 3.0], [3.0, -1.0, 3.5]);
    let s = solid(&v, &f).unwrap();
    assert!(rel_close(s.volume, 1.0), "{}", s.volume);
    assert_all_close(&s.centroid.to_array(), &[2.0, -1.5, 3.25]);
    assert_all_close(&s.inertia, &box_inertia(1.0, [2.0, 1.0, 0.5]));
    // Separate vertices per triangle, or every triangle facing inwards: the same solid.
    let t = solid(
        &unshared((v.clone(), f.clone())).0,
        &unshared((v.clone(), f.clone())).1,
    )
    .unwrap();
    assert_eq!(t, s);
    let inward: Vec<[u32; 3]> = f.iter().map(|&[a, b, c]| [a, c, b]).collect();
    let u = solid(&v, &inward).unwrap();
    assert!(rel_close(u.volume, s.volume));
    assert_all_close(&u.inertia, &s.inertia);
}

#[test]
fn a_tetrahedron_has_its_known_products_of_inertia() {
    // The corner tetrahedron (0, e1, e2, e3): volume 1/6, centroid (1/4, 1/4, 1/4); about
    // the centroid, per unit density, ixx = 1/80 and ixy = 1/480 (Tonon 2004).
    let v = [
        Vec3::ZERO,
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
    ];
    let f = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let s = solid(&v, &f).unwrap();
    assert!(rel_close(s.volume, 1.0 / 6.0));
    assert_all_close(&s.centroid.to_array(), &[0.25; 3]);
    let (d, p) = (1.0 / 80.0, 1.0 / 480.0);
    assert_all_close(&s.inertia, &[d, p, p, d, p, d]);
}

#[test]
fn open_or_flat_meshes_have_no_solid_and_say_why() {
    let (v, mut f) = box_triangles([0.0; 3], [1.0; 3]);
    f.pop();
    let e = solid(&v, &f).unwrap_err().to_string();
    assert!(
        e.contains("not a closed surface") && e.contains("3 edges"),
        "{e}"
    );
    // One triangle turned over: its edges run the same way as its neighbours'.
    let (v, mut f) = box_triangles([0.0; 3], [1.0; 3]);
    f[0] = [f[0][0], f[0][2], f[0][1]];
    let e = solid(&v, &f).unwrap_err().to_string();
    assert!(e.contains("not a closed surface"), "{e}");
    // A closed but flat surface: two triangles back to back.
    let v = [
        Vec3::ZERO,
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    let e = solid(&v, &[[0, 1, 2], [0, 2, 1]]).unwrap_err().to_string();
    assert!(e.contains("no volume"), "{e}");
    let e = solid(&v, &[[0, 1, 7]]).unwrap_err().to_string();
    assert!(e.contains("out of range"), "{e}");
}

/// Writes `triangles` as an ASCII STL file.
fn write_stl(path: &Path, (v, f): &(Vec<Vec3>, Vec<[u32; 3]>)) {
    let mut s = String::from("solid box\n");
    for t in f {
        s += "facet normal 0 0 0\nouter loop\n";
        for &i in t {
            let p = v[i as usize];
            s += &format!("vertex {} {} {}\n", p.x, p.y, p.z);
        }
        s += "endloop\nendfacet\n";
    }
    s += "endsolid box\n";
    std::fs::write(path, s).unwrap();
}

/// Writes a world whose link `L` has automatic inertia and the collision `geometry` at
/// `pose`, and reads it.
fn world_with(dir: &Path, inertial: &str, geometry: &str, pose: &str) -> Result<World, SdfError> {
    let text = format!(
        "<sdf version='1.11'>
<world name='w'>
  <model name='m'>
    <link name='L'>
      {inertial}
      <collision name='c'>
        <pose>{pose}</pose>
        <geometry>
          {geometry}
        </geometry>
      </collision>
    </link>
  </model>
</world>
</sdf>
"
    );
    let path = dir.join("world.sdf");
    std::fs::write(&path, text).unwrap();
    load(&path)
}

#[test]
fn a_mesh_collision_gives_the_solid_it_encloses_scaled_and_posed() {
    let dir = tempfile::tempdir().unwrap();
    // A 2 x 1 x 0.5 box whose centre is at (1, 0, 0) in the file.
    write_stl(
        &dir.path().join("box.stl"),
        &unshared(box_triangles([0.0, -0.5, -0.25], [2.0, 0.5, 0.25])),
    );
    let w = world_with(
        dir.path(),
        "<inertial auto='true'><density>500</density></inertial>",
        "<mesh><uri>box.stl</uri><scale>1 2 2</scale></mesh>",
        "0 0 1 0 0 1.5707963267948966",
    )
    .unwrap_or_else(|e| panic!("{}", e.render(None)));
    let i = &w.models[0].links[0].inertial;
    // Scaled: 2 x 2 x 1 = 4 m³ at 500 kg/m³.
    assert!(rel_close(i.mass, 2000.0), "{}", i.mass);
    // The centre (1, 0, 0), turned a quarter turn about z and raised 1 m.
    assert_all_close(&i.pose.position.to_array(), &[0.0, 1.0, 1.0]);
    // Turned, the box's 2 m side lies along y.
    assert_all_close(&i.inertia, &box_inertia(2000.0, [2.0, 2.0, 1.0]));
    let turned = box_inertia(2000.0, [1.0, 2.0, 1.0]);
    let w = world_with(
        dir.path(),
        "<inertial auto='true'><mass>2000</mass></inertial>",
        "<mesh><uri>box.stl</uri><scale>0.5 2 2</scale></mesh>",
        "0 0 0 0 0 1.5707963267948966",
    )
    .unwrap_or_else(|e| panic!("{}", e.render(None)));
    // A given <mass> scales the result.
    let i = &w.models[0].links[0].inertial;
    assert!(rel_close(i.mass, 2000.0));
    assert_all_close(
        &i.inertia,
        &[turned[3], 0.0, 0.0, turned[0], 0.0, turned[5]],
    );
}

#[test]
fn a_mesh_and_a_primitive_are_summed_about_their_common_centre() {
    let dir = tempfile::tempdir().unwrap();
    write_stl(
        &dir.path().join("cube.stl"),
        &box_triangles([-0.5; 3], [0.5; 3]),
    );
    let text = "<sdf version='1.11'><world name='w'><model name='m'><link name='L'>
      <inertial auto='true'/>
      <collision name='mesh'><pose>1 0 0 0 0 0</pose>
        <geometry><mesh><uri>cube.stl</uri></mesh></geometry></collision>
      <collision name='box'><pose>-1 0 0 0 0 0</pose>
        <geometry><box><size>1 1 1</size></box></geometry></collision>
    </link></model></world></sdf>";
    let path = dir.path().join("world.sdf");
    std::fs::write(&path, text).unwrap();
    let w = load(&path).unwrap_or_else(|e| panic!("{}", e.render(None)));
    let i = &w.models[0].links[0].inertial;
    assert!(rel_close(i.mass, 2000.0));
    assert_all_close(&i.pose.position.to_array(), &[0.0; 3]);
    // Two unit cubes 1 m either side of the centre: 2 (m/6) + 2 m (1 m)² about y and z.
    let one = 1000.0 / 6.0;
    assert_all_close(
        &i.inertia,
        &[
            2.0 * one,
            0.0,
            0.0,
            2.0 * one + 2000.0,
            0.0,
            2.0 * one + 2000.0,
        ],
    );
}

#[test]
fn an_open_or_missing_mesh_is_an_error_at_its_uri() {
    let dir = tempfile::tempdir().unwrap();
    let (v, mut f) = box_triangles([0.0; 3], [1.0; 3]);
    f.truncate(10);
    write_stl(&dir.path().join("open.stl"), &(v, f));
    let e = world_with(
        dir.path(),
        "<inertial auto='true'/>",
        "<mesh><uri>open.stl</uri></mesh>",
        "0 0 0 0 0 0",
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Invalid);
    assert_eq!(e.line, 9, "{}", e.render(None));
    assert!(e.message.contains("link \"L\""), "{}", e.message);
    assert!(e.message.contains("collision \"c\""), "{}", e.message);
    assert!(e.message.contains("not a closed surface"), "{}", e.message);
    assert!(e.message.contains("open.stl"), "{}", e.message);
    assert!(e.hint.contains("closed mesh"), "{}", e.hint);

    let e = world_with(
        dir.path(),
        "<inertial auto='true'/>",
        "<mesh><uri>nowhere.stl</uri></mesh>",
        "0 0 0 0 0 0",
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::NotFound);
    assert_eq!(e.line, 9);
    assert!(e.message.contains("nowhere.stl"), "{}", e.message);
}

#[test]
fn a_mesh_file_that_cannot_be_read_is_invalid_and_one_used_twice_gives_the_same_solid() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.stl"), "solid x\nfacet oops\n").unwrap();
    let e = world_with(
        dir.path(),
        "<inertial auto='true'/>",
        "<mesh><uri>bad.stl</uri></mesh>",
        "0 0 0 0 0 0",
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Invalid, "{}", e.render(None));
    assert_eq!(e.line, 9);

    write_stl(
        &dir.path().join("cube.stl"),
        &box_triangles([-0.5; 3], [0.5; 3]),
    );
    let link = |name: &str, scale: &str| {
        format!(
            "<link name='{name}'><inertial auto='true'/><collision name='c'><geometry>\
             <mesh><uri>cube.stl</uri><scale>{scale}</scale></mesh></geometry></collision></link>"
        )
    };
    let text = format!(
        "<sdf version='1.11'><world name='w'><model name='m'>{}{}{}</model></world></sdf>",
        link("a", "1 1 1"),
        link("b", "1 1 1"),
        link("c", "2 1 1"),
    );
    let path = dir.path().join("world.sdf");
    std::fs::write(&path, text).unwrap();
    let w = load(&path).unwrap_or_else(|e| panic!("{}", e.render(None)));
    let masses: Vec<f64> = w.models[0].links.iter().map(|l| l.inertial.mass).collect();
    assert!(
        rel_close(masses[0], 1000.0) && rel_close(masses[1], 1000.0),
        "{masses:?}"
    );
    // Another scale is another solid.
    assert!(rel_close(masses[2], 2000.0), "{masses:?}");
}
