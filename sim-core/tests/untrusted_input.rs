//! Worlds from strangers (see `docs/untrusted-input.md`): degenerate and oversized meshes,
//! height-map header bombs, include fan-out, non-regular files, reads outside the world's
//! directory and the resource path, extreme numbers. Each test writes real files to a
//! temporary directory and loads and builds them as `check` and `run` do: nothing panics,
//! hangs or allocates what the input asks for, and each refusal names the file and the reason.

use crate::hostile;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hostile::{png_claiming, stl, tetrahedron};
use sim_core::physics::Physics;
use sim_core::sdf::{self, LoadOptions, SdfError};

/// A temporary directory of input files.
struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Dir {
        Dir(tempfile::tempdir().unwrap())
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.0.path().join(rel)
    }

    fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, bytes).unwrap();
        p
    }

    /// `world.sdf` holding `models`.
    fn world(&self, models: &str) -> PathBuf {
        self.write(
            "world.sdf",
            format!(
                "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"w\">\n{models}\n</world>\n</sdf>\n"
            ),
        )
    }

    /// `world.sdf` with one dynamic link colliding as the mesh at `uri`.
    fn mesh_world(&self, uri: &str) -> PathBuf {
        self.world(&format!(
            "<model name=\"m\"><link name=\"l\"><inertial><mass>1</mass></inertial>\n\
             <collision name=\"c\"><geometry><mesh><uri>{uri}</uri></mesh></geometry></collision>\n\
             </link></model>"
        ))
    }
}

fn options() -> LoadOptions {
    LoadOptions {
        ignore_env: true,
        ..LoadOptions::default()
    }
}

/// Loads and builds `path` as `check` does: the load's error, or the build's message with its
/// place.
fn check(path: &Path, options: &LoadOptions) -> Result<(), String> {
    let world = sdf::load_with(path, options).map_err(|e: SdfError| e.render(None))?;
    Physics::build(&world)
        .map(|_| ())
        .map_err(|e| format!("{} at {}", e.message, e.span))
}

#[test]
fn degenerate_meshes_on_dynamic_links_are_errors_not_panics() {
    let d = Dir::new();
    let same = [[1.0f32, 2.0, 3.0]; 3];
    let line = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let nan = [[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("equal.stl", stl(&[same; 4], None), "no usable triangle"),
        ("line.stl", stl(&[line], None), "no usable triangle"),
        ("nan.stl", stl(&[nan], None), "not a finite number"),
        // The header claims 2^32 - 1 triangles; the file holds one, with no area.
        (
            "claims.stl",
            stl(&[same], Some(u32::MAX)),
            "no usable triangle",
        ),
    ];
    for (name, bytes, reason) in cases {
        d.write(name, bytes);
        let world = d.mesh_world(name);
        let e = check(&world, &options()).unwrap_err();
        assert!(e.contains(reason) && e.contains(name), "{name}: {e}");
        assert!(
            e.contains("world.sdf:5"),
            "{name}: the collision's line: {e}"
        );
    }
    // A flat mesh (no volume) on a dynamic link collides as its triangles.
    d.write(
        "flat.stl",
        stl(&[[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], None),
    );
    check(&d.mesh_world("flat.stl"), &options()).unwrap();
    // A real solid still decomposes.
    d.write("tet.stl", stl(&tetrahedron(), None));
    check(&d.mesh_world("tet.stl"), &options()).unwrap();
}

#[test]
fn a_large_triangle_soup_on_a_dynamic_link_collides_as_its_hull_quickly() {
    let d = Dir::new();
    // 20,000 random small triangles (1 MB): the decomposition would take minutes.
    let mut seed = 12345u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
    };
    let soup: Vec<[[f32; 3]; 3]> = (0..20_000)
        .map(|_| {
            let c = [next(), next(), next()];
            [0, 1, 2].map(|_| {
                [
                    c[0] + next() * 0.1,
                    c[1] + next() * 0.1,
                    c[2] + next() * 0.1,
                ]
            })
        })
        .collect();
    d.write("soup.stl", stl(&soup, None));
    let start = Instant::now();
    check(&d.mesh_world("soup.stl"), &options()).unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn an_unknown_mesh_format_is_named_without_a_placeholder() {
    let d = Dir::new();
    d.write("part.ply", "ply\nformat ascii 1.0\n");
    let e = check(&d.mesh_world("part.ply"), &options()).unwrap_err();
    assert!(!e.contains("{path"), "{e}");
    assert!(
        e.contains("part.ply") && e.contains("STL, OBJ or COLLADA"),
        "{e}"
    );
}

#[test]
fn a_height_map_is_bounded_by_its_header_before_anything_is_allocated() {
    let d = Dir::new();
    d.write("bomb.png", png_claiming(100_000, 100_000));
    let world = d.world(
        "<model name=\"t\"><static>true</static><link name=\"l\"><collision name=\"c\">\
         <geometry><heightmap><uri>bomb.png</uri><size>10 10 1</size></heightmap></geometry>\
         </collision></link></model>",
    );
    let e = check(&world, &options()).unwrap_err();
    assert!(
        e.contains("100000x100000") && e.contains("max_heightmap_pixels"),
        "{e}"
    );
}

#[test]
fn include_fan_out_is_bounded_and_names_the_chain() {
    let d = Dir::new();
    // Each file includes the next twice: 2^30 models if expanded.
    for k in 0..30 {
        let body = if k == 29 {
            "<link name=\"l\"/>".to_string()
        } else {
            format!(
                "<include><uri>f{n}.sdf</uri><name>a</name></include>\
                 <include><uri>f{n}.sdf</uri><name>b</name></include>",
                n = k + 1
            )
        };
        d.write(
            &format!("f{k}.sdf"),
            format!("<sdf version=\"1.9\"><model name=\"m{k}\">{body}</model></sdf>"),
        );
    }
    let world = d.world("<include><uri>f0.sdf</uri></include>");
    let start = Instant::now();
    let e = sdf::load_with(&world, &options()).unwrap_err();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
    let report = e.render(None);
    assert!(report.contains("more than 10000 models"), "{report}");
    assert!(
        report.contains("world.sdf") && report.contains("f0.sdf"),
        "the include chain: {report}"
    );
    // A smaller limit stops it sooner; a fan-out within the limit loads.
    let mut small = options();
    small.limits.max_models = 100;
    let e = sdf::load_with(&d.path("f20.sdf"), &small);
    assert!(e.is_err());
    // A model created at run time (the factory's path) is bounded the same way.
    let text = "<sdf version=\"1.9\"><model name=\"spawned\">\
                <include><uri>f0.sdf</uri></include></model></sdf>";
    let start = Instant::now();
    let e = sdf::parse_model_str(text, Some(&d.path("spawned.sdf"))).unwrap_err();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
    assert!(
        e.render(None).contains("more than 10000 models"),
        "{}",
        e.render(None)
    );
    let mut wide = options();
    wide.limits.max_models = 10_000;
    let world = d.world("<include><uri>f24.sdf</uri></include>");
    sdf::load_with(&world, &wide).unwrap();
}

#[test]
fn only_regular_files_are_read() {
    let d = Dir::new();
    let fifo = d.path("fifo.sdf");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let mut specials: Vec<PathBuf> = vec![PathBuf::from("/dev/zero")];
    if made.is_ok_and(|s| s.success()) {
        specials.push(fifo.clone());
    }
    let mut anywhere = options();
    anywhere.limits.read_anywhere = true;
    for special in &specials {
        // As the world file itself.
        let e = sdf::load_with(special, &anywhere).unwrap_err();
        assert!(e.message.contains("not a regular file"), "{}", e.message);
        // As an include and as a mesh.
        let world = d.world(&format!(
            "<include><uri>{}</uri></include>",
            special.display()
        ));
        let e = sdf::load_with(&world, &anywhere).unwrap_err().render(None);
        assert!(e.contains("not a regular file"), "{e}");
        let world = d.mesh_world(&format!("{}", special.display()));
        let e = check(&world, &anywhere).unwrap_err();
        assert!(
            e.contains("not a regular file") || e.contains("not read"),
            "{e}"
        );
    }
    // A mesh named fifo.stl in the world's own directory.
    let fifo_mesh = d.path("pipe.stl");
    if std::process::Command::new("mkfifo")
        .arg(&fifo_mesh)
        .status()
        .is_ok_and(|s| s.success())
    {
        let e = check(&d.mesh_world("pipe.stl"), &options()).unwrap_err();
        assert!(e.contains("FIFO"), "{e}");
    }
    // A size cap, for meshes too (the world keeps the limits it was loaded with for its
    // build).
    d.write("tet.stl", stl(&tetrahedron(), None));
    let mut tiny_meshes = options();
    tiny_meshes.limits.max_mesh_bytes = 100;
    let e = check(&d.mesh_world("tet.stl"), &tiny_meshes).unwrap_err();
    assert!(
        e.contains("limit of 100 bytes") && e.contains("tet.stl"),
        "{e}"
    );
    check(&d.mesh_world("tet.stl"), &options()).unwrap();
    let mut small = options();
    small.limits.max_sdf_bytes = 100;
    let world = d.world(&" ".repeat(200));
    let e = sdf::load_with(&world, &small).unwrap_err();
    assert!(e.message.contains("limit of 100 bytes"), "{}", e.message);
}

#[test]
fn reads_stay_in_the_world_directory_and_the_resource_path() {
    let d = Dir::new();
    let outside = Dir::new();
    outside.write(
        "secret/model.sdf",
        "<sdf version=\"1.9\"><model name=\"s\"><link name=\"l\"/></model></sdf>",
    );
    outside.write("secret/m.stl", stl(&tetrahedron(), None));
    let secret = outside.path("secret/model.sdf");
    let world = d.world(&format!(
        "<include><uri>{}</uri></include>",
        secret.display()
    ));
    let e = sdf::load_with(&world, &options()).unwrap_err();
    assert!(
        e.message.contains("outside the world's directory"),
        "{}",
        e.message
    );
    assert_eq!(e.line, 4, "{e:?}");
    // Through `..` from the world's directory, and through model:// from a resource dir.
    let rel = pathdiff(&secret, d.0.path());
    let world = d.world(&format!("<include><uri>{rel}</uri></include>"));
    assert!(sdf::load_with(&world, &options()).is_err());
    d.write(
        "lib/crate/model.sdf",
        "<sdf version=\"1.9\"><model name=\"c\"><link name=\"l\"/></model></sdf>",
    );
    let up = format!(
        "model://crate/../../{}",
        pathdiff(&secret, &d.path("lib")).trim_start_matches("../")
    );
    let world = d.world(&format!("<include><uri>{up}</uri></include>"));
    let mut lib = options();
    lib.resource_paths = vec![d.path("lib")];
    let e = sdf::load_with(&world, &lib);
    assert!(e.is_err(), "{up}");
    // A model directory whose model.config names a file linked to one outside.
    d.write(
        "models/trojan/model.config",
        "<model><sdf version=\"1.9\">model.sdf</sdf></model>",
    );
    std::os::unix::fs::symlink(&secret, d.path("models/trojan/model.sdf")).unwrap();
    let world = d.world("<include><uri>model://trojan</uri></include>");
    let e = sdf::load_with(&world, &options()).unwrap_err();
    assert!(
        e.message.contains("outside the world's directory"),
        "{}",
        e.message
    );
    // A mesh outside.
    let mesh = outside.path("secret/m.stl");
    let e = check(&d.mesh_world(&mesh.display().to_string()), &options()).unwrap_err();
    assert!(e.contains("outside the world's directory"), "{e}");
    // The resource path and absolute paths inside the allowed places are fine.
    let mut allowed = options();
    allowed.resource_paths = vec![outside.path("secret")];
    check(&d.mesh_world(&mesh.display().to_string()), &allowed).unwrap();
    let inside = d.write("parts/t.stl", stl(&tetrahedron(), None));
    check(&d.mesh_world(&inside.display().to_string()), &options()).unwrap();
    // And the flag lifts the rule.
    let mut anywhere = options();
    anywhere.limits.read_anywhere = true;
    sdf::load_with(
        &d.world(&format!(
            "<include><uri>{}</uri></include>",
            secret.display()
        )),
        &anywhere,
    )
    .unwrap();
}

/// A world in a source tree (a checkout, a ROS package) reads the tree, as Gazebo worlds
/// that name `../media/...` expect; nothing outside it, links out included; and
/// `read_project = false` (`--world-dir-only`) keeps it to its own directory.
#[test]
fn a_world_reads_its_source_tree_and_nothing_outside_it() {
    let world_in = |d: &Dir, uri: &str| {
        d.write(
            "worlds/w.sdf",
            format!(
                "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"w\">\n\
                 <model name=\"m\"><static>true</static><link name=\"l\">\n\
                 <collision name=\"c\"><geometry><mesh><uri>{uri}</uri></mesh></geometry></collision>\n\
                 </link></model>\n</world>\n</sdf>\n"
            ),
        )
    };
    let mut strict = options();
    strict.limits.read_project = false;
    for marker in [".git", ".hg", "package.xml"] {
        let d = Dir::new();
        match marker {
            "package.xml" => d.write(marker, "<package format=\"3\"/>"),
            _ => d.write(&format!("{marker}/HEAD"), ""),
        };
        d.write("media/t.stl", stl(&tetrahedron(), None));
        let world = world_in(&d, "../media/t.stl");
        check(&world, &options()).unwrap_or_else(|e| panic!("{marker}: {e}"));
        let e = check(&world, &strict).unwrap_err();
        assert!(e.contains("outside the world's directory"), "{marker}: {e}");
        // A link out of the tree stays out: to a process's environment, to a file elsewhere.
        let outside = Dir::new();
        let secret = outside.write("secret.stl", stl(&tetrahedron(), None));
        std::os::unix::fs::symlink("/proc/self/environ", d.path("media/env.stl")).unwrap();
        std::os::unix::fs::symlink(&secret, d.path("media/s.stl")).unwrap();
        for linked in ["../media/env.stl", "../media/s.stl"] {
            let e = check(&world_in(&d, linked), &options()).unwrap_err();
            assert!(e.contains("outside the world's directory"), "{linked}: {e}");
        }
        let e = check(&world_in(&d, &secret.display().to_string()), &options()).unwrap_err();
        assert!(e.contains("outside the world's directory"), "{e}");
    }
    // Without a marker the tree is the world's own directory.
    let d = Dir::new();
    d.write("media/t.stl", stl(&tetrahedron(), None));
    let e = check(&world_in(&d, "../media/t.stl"), &options()).unwrap_err();
    assert!(e.contains("outside the world's directory"), "{e}");
}

#[test]
fn a_file_that_is_not_xml_is_never_quoted() {
    let d = Dir::new();
    let env = d.write("environ", "SECRET_TOKEN=hunter2\0HOME=/root\0");
    let world = d.world("<include><uri>environ</uri></include>");
    let e = sdf::load_with(&world, &options()).unwrap_err().render(None);
    assert!(!e.contains("hunter2"), "{e}");
    let e = sdf::load_with(&env, &options()).unwrap_err().render(None);
    assert!(!e.contains("hunter2"), "{e}");
    let bin = d.write("bin.sdf", b"\xff\xfeSECRET_TOKEN=hunter2");
    let e = sdf::load_with(&bin, &options()).unwrap_err().render(None);
    assert!(!e.contains("hunter2"), "{e}");
    // XML is still quoted.
    let bad = d.write("bad.sdf", "<sdf version=\"1.9\"><world name=\"w\"></sdf>");
    let e = sdf::load_with(&bad, &options()).unwrap_err().render(None);
    assert!(e.contains("<world name"), "{e}");
}

/// `path` relative to `base` (both absolute), with `..` where needed.
fn pathdiff(path: &Path, base: &Path) -> String {
    let p: Vec<_> = path.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out: Vec<String> = vec!["..".to_string(); b.len() - common];
    out.extend(
        p[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    out.join("/")
}

#[test]
fn an_objs_material_files_are_never_read() {
    let d = Dir::new();
    let fifo = d.path("pipe.mtl");
    let has_fifo = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let depth = "../".repeat(d.0.path().components().count() + 1);
    let mut obj = format!("mtllib {depth}dev/zero\n");
    if has_fifo {
        // Opened for reading, a FIFO without a writer blocks forever.
        obj.push_str("mtllib pipe.mtl\n");
    }
    obj.push_str("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
    d.write("tet.obj", obj);
    let start = Instant::now();
    check(&d.mesh_world("tet.obj"), &options()).unwrap();
    assert!(start.elapsed() < Duration::from_secs(30));
}

/// A COLLADA tetrahedron, its parts replaced where given: the `<float_array count>`, the
/// accessor's attributes, the primitive (`triangles count="4"`), the input's `offset`
/// attribute, what comes between the input and `<p>`, and the indices.
struct Dae<'a> {
    array_count: &'a str,
    accessor: &'a str,
    primitive: &'a str,
    offset: &'a str,
    between: &'a str,
    p: &'a str,
}

const TETRAHEDRON: Dae = Dae {
    array_count: "12",
    accessor: "count=\"4\" stride=\"3\"",
    primitive: "triangles count=\"4\"",
    offset: "offset=\"0\"",
    between: "",
    p: "0 2 1 0 1 3 0 3 2 1 2 3",
};

impl Dae<'_> {
    fn text(&self) -> String {
        let tag = self.primitive.split_whitespace().next().unwrap();
        format!(
            "<?xml version=\"1.0\"?>\n\
             <COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n\
             <library_geometries><geometry id=\"g\" name=\"g\"><mesh>\n\
             <source id=\"g-pos\"><float_array id=\"g-arr\" count=\"{}\">0 0 0 1 0 0 0 1 0 0 0 1</float_array>\n\
             <technique_common><accessor source=\"#g-arr\" {}><param name=\"X\" type=\"float\"/>\
             <param name=\"Y\" type=\"float\"/><param name=\"Z\" type=\"float\"/></accessor></technique_common></source>\n\
             <vertices id=\"g-v\"><input semantic=\"POSITION\" source=\"#g-pos\"/></vertices>\n\
             <{}><input semantic=\"VERTEX\" source=\"#g-v\" {}/>{}<p>{}</p></{tag}>\n\
             </mesh></geometry></library_geometries>\n</COLLADA>\n",
            self.array_count, self.accessor, self.primitive, self.offset, self.between, self.p
        )
    }
}

/// COLLADA counts and indices are checked against what the file holds before the loader
/// believes them: a 1 KB file claiming 4e9 floats aborted allocating 16 GB, an accessor count
/// of 4e9 and an index past the points panicked. Each is refused naming the file and the
/// element; a panic of the loader all the same would be a refusal too.
#[test]
fn collada_counts_and_indices_are_bounded_by_the_file() {
    let d = Dir::new();
    d.write("good.dae", TETRAHEDRON.text());
    check(&d.mesh_world("good.dae"), &options()).unwrap();
    let cases = [
        (
            Dae {
                array_count: "4000000000",
                ..TETRAHEDRON
            },
            "<float_array> (line 4) says count=\"4000000000\" but holds 12 values",
        ),
        (
            Dae {
                accessor: "count=\"4000000000\" stride=\"3\"",
                ..TETRAHEDRON
            },
            "describes 4000000000 elements",
        ),
        (
            Dae {
                accessor: "count=\"4\" stride=\"4000000000\"",
                ..TETRAHEDRON
            },
            "of stride 4000000000",
        ),
        (
            Dae {
                accessor: "count=\"4\" stride=\"0\"",
                ..TETRAHEDRON
            },
            "a stride of 0",
        ),
        (
            Dae {
                accessor: "count=\"4\" stride=\"-3\"",
                ..TETRAHEDRON
            },
            "stride=\"-3\"> (line 5) is not a whole number",
        ),
        (
            Dae {
                accessor: "count=\"4\" stride=\"3\" offset=\"18446744073709551615\"",
                ..TETRAHEDRON
            },
            "past the 12 values",
        ),
        (
            Dae {
                p: "0 2 1 0 1 3 0 3 2 7 8 4294967295",
                ..TETRAHEDRON
            },
            "holds the index 7, past the 4 elements",
        ),
        (
            Dae {
                p: "0 2 1 0 1 3 0 3 2 1 2 4",
                ..TETRAHEDRON
            },
            "holds the index 4, past the 4 elements",
        ),
        (
            Dae {
                primitive: "triangles count=\"1431655765\"",
                ..TETRAHEDRON
            },
            "count=\"1431655765\"",
        ),
        (
            Dae {
                offset: "offset=\"4000000000\"",
                ..TETRAHEDRON
            },
            "offset=\"4000000000\", past its primitive's 1 inputs",
        ),
        (
            Dae {
                primitive: "polylist count=\"4\"",
                between: "<vcount>3 3 3 4000000000</vcount>",
                ..TETRAHEDRON
            },
            "more than the 12 indices",
        ),
    ];
    for (k, (dae, said)) in cases.iter().enumerate() {
        let name = format!("hostile{k}.dae");
        d.write(&name, dae.text());
        let e = check(&d.mesh_world(&name), &options()).unwrap_err();
        assert!(
            e.contains(&name) && e.contains(said),
            "{name}: no {said} in {e}"
        );
    }
    // Positions the loader would read as none and then index (a fuzzer's find: a param of
    // another type), or from elsewhere than the mesh's own <vertices>.
    let good = TETRAHEDRON.text();
    let edited = [
        (
            good.replace(r#"name="X" type="float""#, r#"name="X" type="floaq""#),
            r#"one of type "floaq""#,
        ),
        (
            good.replace(r#"<param name="Z" type="float"/>"#, ""),
            "and 2 params",
        ),
        (
            good.replace(r#"count="4" stride="3""#, r#"count="4" stride="2""#),
            "it has stride 2",
        ),
        (
            good.replace("float_array", "int_array"),
            "reads a <int_array>, not a <float_array>",
        ),
        (
            good.replace(
                r##"semantic="VERTEX" source="#g-v""##,
                r##"semantic="VERTEX" source="#g-pos""##,
            ),
            r#"reads the vertices "g-pos", not its own mesh's <vertices>"#,
        ),
    ];
    for (k, (text, said)) in edited.iter().enumerate() {
        assert_ne!(text, &good, "case {k} edits the file");
        let name = format!("positions{k}.dae");
        d.write(&name, text);
        let e = check(&d.mesh_world(&name), &options()).unwrap_err();
        assert!(
            e.contains(&name) && e.contains(said),
            "{name}: no {said} in {e}"
        );
    }
    // The same polylist, sound, is read.
    let sound = Dae {
        primitive: "polylist count=\"4\"",
        between: "<vcount>3 3 3 3</vcount>",
        ..TETRAHEDRON
    };
    d.write("polylist.dae", sound.text());
    check(&d.mesh_world("polylist.dae"), &options()).unwrap();
}

/// Runs `simcore check path`, killing it past a generous 30 s (the input made it hang).
fn check_binary(path: &Path) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_simcore"))
        .arg("check")
        .arg(path)
        .env("SIMCORE_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("simcore check {} hangs", path.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Deep nesting is refused before any other pass reads the document (20,000 nested models,
/// 1.4 MB, kept `check` busy for minutes in a pass that looks at each element's ancestors):
/// models, a plugin's own elements, elements inside a sensor, each past the nesting limit,
/// and models nested deeper than models may be.
#[test]
fn deep_nesting_is_refused_at_once() {
    let d = Dir::new();
    let deep = |open: &str, close: &str, n: usize| format!("{}{}", open.repeat(n), close.repeat(n));
    let cases = [
        (
            "models.sdf",
            format!(
                "<model name=\"m\">{}<link name=\"l\"/></model>",
                deep("<model name=\"m\">", "</model>", 20_000)
            ),
            "nested more than 256 deep",
        ),
        (
            "plugin.sdf",
            format!(
                "<plugin filename=\"p\" name=\"p\">{}</plugin>",
                deep("<a>", "</a>", 20_000)
            ),
            "nested more than 256 deep",
        ),
        (
            "sensor.sdf",
            format!(
                "<model name=\"m\"><link name=\"l\"><sensor name=\"s\" type=\"imu\">{}\
                 </sensor></link></model>",
                deep("<imu>", "</imu>", 5_000)
            ),
            "nested more than 256 deep",
        ),
        (
            "models100.sdf",
            format!(
                "<model name=\"m\">{}<link name=\"l\"/></model>",
                deep("<model name=\"m\">", "</model>", 100)
            ),
            "models are nested more than 64 deep",
        ),
    ];
    for (name, body, said) in cases {
        let path = d.write(
            name,
            format!("<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"><world name=\"w\">\n{body}\n</world></sdf>\n"),
        );
        let start = Instant::now();
        let e = sdf::load_with(&path, &options()).unwrap_err().render(None);
        assert!(e.contains(said) && e.contains(name), "{name}: {e}");
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{name}: {:?}",
            start.elapsed()
        );
        let out = check_binary(&path);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(said) && err.contains(&format!("{name}:3:")),
            "{name}: {err}"
        );
    }
}

/// The models, links and collisions a world may hold are bounded before they are read or
/// built (a million models exhausted memory; 30,000 spheres at one point of one static link
/// asked the broad phase for 2 GiB): in one file, and over the copies includes make; each
/// refusal names the element past the limit and the flag that raises it, and the flags do.
#[test]
fn models_links_and_collisions_are_bounded() {
    let d = Dir::new();
    let sphere = |k: usize| {
        format!(
            "<collision name=\"c{k}\"><geometry><sphere><radius>1</radius></sphere></geometry></collision>"
        )
    };
    let spheres = |n: usize| (0..n).map(sphere).collect::<String>();
    let cases = [
        (
            "models.sdf",
            (0..1_000_000)
                .map(|k| format!("<model name=\"m{k}\"><link name=\"l\"/></model>"))
                .collect::<String>(),
            "more than 100000 models",
            "--max-world-models",
        ),
        (
            "spheres.sdf",
            format!(
                "<model name=\"s\"><static>true</static><link name=\"l\">{}</link></model>",
                spheres(30_000)
            ),
            "link \"l\" has more than 1000 <collision>s",
            "--max-link-collisions",
        ),
        (
            "links.sdf",
            format!(
                "<model name=\"s\">{}</model>",
                (0..150_000)
                    .map(|k| format!("<link name=\"l{k}\"/>"))
                    .collect::<String>()
            ),
            "more than 100000 links",
            "--max-links",
        ),
        (
            "collisions.sdf",
            format!(
                "<model name=\"s\"><static>true</static>{}</model>",
                (0..200)
                    .map(|k| format!("<link name=\"l{k}\">{}</link>", spheres(600)))
                    .collect::<String>()
            ),
            "more than 100000 collisions",
            "--max-collisions",
        ),
    ];
    for (name, body, said, flag) in &cases {
        let path = d.write(
            name,
            format!("<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"><world name=\"w\">\n{body}\n</world></sdf>\n"),
        );
        let start = Instant::now();
        let e = sdf::load_with(&path, &options()).unwrap_err().render(None);
        assert!(e.contains(said) && e.contains(flag), "{name}: {e}");
        assert!(
            e.contains(&format!("{name}:3:")),
            "{name}: the element: {e}"
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{name}: {:?}",
            start.elapsed()
        );
    }
    // The copies includes make are counted too: a model of 600 collisions, 200 times.
    d.write(
        "part.sdf",
        format!(
            "<sdf version=\"1.9\"><model name=\"p\"><static>true</static><link name=\"l\">{}</link></model></sdf>",
            spheres(600)
        ),
    );
    let world = d.world(
        &(0..200)
            .map(|k| format!("<include><uri>part.sdf</uri><name>p{k}</name></include>"))
            .collect::<String>(),
    );
    let e = sdf::load_with(&world, &options()).unwrap_err().render(None);
    assert!(
        e.contains("the includes copy more than 100000 collisions")
            && e.contains("--max-collisions"),
        "{e}"
    );
    // The limits move with LoadOptions, and with the flags of check.
    let mut wide = options();
    wide.limits.max_collisions = 200_000;
    sdf::load_with(&world, &wide).unwrap();
    let path = d.write(
        "few.sdf",
        format!(
            "<sdf version=\"1.9\"><world name=\"w\"><model name=\"s\"><static>true</static>\
             <link name=\"l\">{}</link></model></world></sdf>",
            spheres(20)
        ),
    );
    let check = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_simcore"))
            .arg("check")
            .arg(&path)
            .args(extra)
            .output()
            .unwrap()
    };
    assert!(check(&[]).status.success());
    let out = check(&["--max-link-collisions", "10"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("more than 10 <collision>s"),
        "{err}"
    );
    for flag in ["--max-collisions", "--max-links", "--max-world-models"] {
        let out = check(&[flag, "0"]);
        assert_eq!(out.status.code(), Some(2), "{flag}");
    }
}

/// `n` models of one dynamic link colliding as a sphere of radius 0.5 m, the `k`-th at
/// `place(k)`.
fn sphere_models(n: usize, place: impl Fn(usize) -> (f64, f64, f64)) -> String {
    (0..n)
        .map(|k| {
            let (x, y, z) = place(k);
            format!(
                "<model name=\"s{k}\"><pose>{x} {y} {z} 0 0 0</pose><link name=\"l\">\
                 <inertial><mass>1</mass></inertial><collision name=\"c\"><geometry><sphere>\
                 <radius>0.5</radius></sphere></geometry></collision></link></model>\n"
            )
        })
        .collect()
}

/// Colliders of different links that all overlap make pairs by the square of their number
/// in rapier's broad phase (20,000 spheres at one point: 2·10⁸ pairs, gigabytes), within the
/// limits on links and collisions: the world is refused when it is built, naming the file,
/// the limit and the flag that raises it, before any step; a real world with as many
/// bodies apart is built, and the flag and `LoadOptions` move the limit.
#[test]
fn overlapping_collider_pairs_are_bounded() {
    let d = Dir::new();
    let heap = d.world(&sphere_models(20_000, |_| (0.0, 0.0, 1.0)));
    let start = Instant::now();
    let e = check(&heap, &options()).unwrap_err();
    assert!(
        e.contains("overlap one another in more than 1000000 pairs")
            && e.contains("--max-overlapping-pairs")
            && e.contains("world.sdf:3:"),
        "{e}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(120),
        "{:?}",
        start.elapsed()
    );
    // The same number of spheres on a 1 m grid (each touches its neighbours' boxes): built.
    let grid = d.write(
        "grid.sdf",
        format!(
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"w\">\n{}</world></sdf>\n",
            sphere_models(20_000, |k| ((k % 141) as f64, (k / 141) as f64, 1.0))
        ),
    );
    check(&grid, &options()).unwrap();
    // 1,000 at one point are 499,500 pairs: within the default, refused below it.
    let pile = d.write(
        "pile.sdf",
        format!(
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"w\">\n{}</world></sdf>\n",
            sphere_models(1_000, |_| (0.0, 0.0, 1.0))
        ),
    );
    check(&pile, &options()).unwrap();
    let mut narrow = options();
    narrow.limits.max_overlapping_pairs = 400_000;
    let e = check(&pile, &narrow).unwrap_err();
    assert!(e.contains("more than 400000 pairs"), "{e}");
    // The example worlds are far within the limit.
    let worlds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../worlds");
    let mut tight = options();
    tight.limits.max_overlapping_pairs = 10_000;
    for name in [
        "pioneer.sdf",
        "sensors_demo.sdf",
        "diff_drive.sdf",
        "crates.sdf",
    ] {
        check(&worlds.join(name), &tight).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    // `simcore check` says the same, and its flag raises the limit.
    let out = check_binary(&pile);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let flagged = |flag: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_simcore"))
            .args(["check", "--max-overlapping-pairs", flag])
            .arg(&pile)
            .output()
            .unwrap()
    };
    let out = flagged("1000");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("more than 1000 pairs")
            && err.contains("--max-overlapping-pairs")
            && err.contains("pile.sdf:3:"),
        "{err}"
    );
    assert!(flagged("500000").status.success());
}

/// A mesh whose corners are finite but lie 10³⁴ m apart, on a dynamic link: its convex
/// decomposition sized its voxel grid from that extent and overflowed (a panic, found by
/// `cargo xtask fuzz`). Such a mesh is refused before anything is built from it, naming the
/// file; a tetrahedron within the range the engine simulates is built.
#[test]
fn a_mesh_far_larger_than_the_world_is_refused_before_it_is_built() {
    let d = Dir::new();
    // The corners of the input, as its bits.
    let bits: [[[u32; 3]; 3]; 4] = [
        [
            [0x00000000, 0x00000000, 0x00000000],
            [0x00000000, 0x756f756e, 0x6f6a2073],
            [0x73746e69, 0x646e6120, 0x63206120],
        ],
        [
            [0x20200a61, 0x6c6c6162, 0x696f6a20],
            [0x2029746e, 0x76697264, 0x62206e65],
            [0x68742079, 0x69442065, 0x72446666],
        ],
        [
            [0x74206874, 0x77206568, 0x646c726f],
            [0x67207327, 0x6e756f72, 0x72742d64],
            [0x20687475, 0x65736f70, 0x75702073],
        ],
        [
            [0x50206568, 0x783f3c6f, 0x76206c6d],
            [0x69737265, 0x223d6e6f, 0x22302e31],
            [0x0a3e3f20, 0x2d2d213c, 0x4120200a],
        ],
    ];
    let far = bits.map(|t| t.map(|v| v.map(f32::from_bits)));
    d.write("far.stl", stl(&far, None));
    let e = check(&d.mesh_world("far.stl"), &options()).unwrap_err();
    assert!(
        e.contains("far.stl") && e.contains("larger than the 1e6 m this engine simulates"),
        "{e}"
    );
    // A tetrahedron 1 km across.
    let near: Vec<[[f32; 3]; 3]> = tetrahedron()
        .into_iter()
        .map(|t| t.map(|v| v.map(|c| c * 1000.0)))
        .collect();
    d.write("near.stl", stl(&near, None));
    check(&d.mesh_world("near.stl"), &options()).unwrap();
}
