//! The SDF reader and the physics build never panic, whatever the input: a property test that
//! takes real SDF files (the example worlds of `worlds/`, and a sample of the shared corpus
//! when it is there) and mutates them (deletes and duplicates elements, corrupts numbers with
//! NaN, infinities, huge, negative and garbage values, truncates the text, swaps attribute
//! values, renames elements), then reads the result as a document and as a world and builds
//! what is accepted in the physics engine. Errors are fine; every one must have a position.
//!
//! A second property writes hostile files beside a world and loads and builds it as `check`
//! does: degenerate meshes (repeated, aligned and NaN corners, STL headers claiming more
//! triangles than the file holds, OBJ faces with indices past any vertex), height-map PNGs
//! whose header claims any size, include fan-out (files that each include the next several
//! times), extreme numbers (1e300, NaN, -0, huge counts) in the numeric elements of a world
//! with sensors, and files that are not regular (a FIFO, a directory, a link to `/dev/zero`)
//! named as an include, a mesh or a height map: each must be refused or built in bounded
//! time, never panic. A third runs a sample of them through the real `simcore` binary,
//! `check` and `run --steps 1`: each ends by itself (killed after a generous deadline
//! otherwise), never by a panic or a signal, and a refusal names a file and line.
//!
//! The run is seeded and short (a few hundred cases); `fuzz/` at the repository root has a
//! `cargo fuzz` target for longer runs.

use crate::hostile;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use sim_core::physics::Physics;
use sim_core::sdf::{self, SdfError};

/// A file to mutate: its path (includes are resolved beside it) and text.
struct Seed {
    path: PathBuf,
    text: String,
}

/// The example worlds and their models, then every 8th corpus file (sorted, so the sample is
/// the same on every run).
fn seeds() -> &'static [Seed] {
    static SEEDS: OnceLock<Vec<Seed>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = sdf_files(&repo.join("worlds"));
        let corpus = repo.join("../shared/sdf-corpus");
        if corpus.is_dir() {
            files.extend(sdf_files(&corpus).into_iter().step_by(8));
        }
        let seeds: Vec<Seed> = files
            .into_iter()
            .filter_map(|path| {
                let text = std::fs::read_to_string(&path).ok()?;
                Some(Seed { path, text })
            })
            .collect();
        assert!(seeds.len() >= 4, "no example worlds found");
        seeds
    })
}

/// Every `.sdf` / `.world` file under `dir`, sorted.
fn sdf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(
                p.extension().and_then(|x| x.to_str()),
                Some("sdf" | "world")
            ) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// One change to a text; the numbers pick which element, token or position (modulo how many
/// there are).
#[derive(Clone, Debug)]
enum Mutation {
    DeleteElement(usize),
    DuplicateElement(usize),
    CorruptNumber(usize, usize),
    Truncate(usize),
    SwapAttributes(usize, usize),
    RenameElement(usize, usize),
}

/// What a number is replaced by.
const BAD_NUMBERS: &[&str] = &[
    "NaN",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1e-320",
    "-1",
    "0",
    "-0",
    "garbage",
    "",
    "1e999",
    "18446744073709551616",
    "0x10",
    "1,5",
    "--1",
    "1e",
    ".",
    "4294967296",
    // Extreme but finite: a step size the clock overflows on or rounds away, sizes that
    // would allocate without bound.
    "1e10",
    "1e-10",
    "1e300",
    "1e-300",
    "100000",
    // Rates and counts past any real world.
    "1e18",
    "-1e300",
    "1000000000",
    "2147483647",
    "9223372036854775807",
];

/// What an element is renamed to: other SDF elements, so that the reader sees a known
/// element in an unexpected place.
const NAMES: &[&str] = &[
    "model",
    "link",
    "joint",
    "include",
    "frame",
    "pose",
    "geometry",
    "box",
    "mesh",
    "heightmap",
    "sensor",
    "plugin",
    "world",
    "inertial",
    "axis",
    "parent",
    "child",
    "uri",
    "size",
    "polyline",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteElement),
        any::<usize>().prop_map(Mutation::DuplicateElement),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::CorruptNumber(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapAttributes(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::RenameElement(a, b)),
    ]
}

/// Byte ranges of the elements of `text` (none when it is not XML any more).
fn elements(text: &str) -> Vec<std::ops::Range<usize>> {
    match roxmltree::Document::parse(text) {
        Ok(doc) => doc
            .descendants()
            .filter(|n| n.is_element())
            .skip(1)
            .map(|n| n.range())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Byte ranges of the attribute values of `text`.
fn attribute_values(text: &str) -> Vec<std::ops::Range<usize>> {
    match roxmltree::Document::parse(text) {
        Ok(doc) => doc
            .descendants()
            .flat_map(|n| n.attributes().map(|a| a.range_value()).collect::<Vec<_>>())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Byte ranges of the number-looking tokens of `text`.
fn numbers(text: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            || (bytes[i] == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
        let after_name = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if starts && !after_name {
            let start = i;
            i += 1;
            while i < bytes.len()
                && (bytes[i].is_ascii_digit() || matches!(bytes[i], b'.' | b'e' | b'E' | b'-'))
            {
                i += 1;
            }
            out.push(start..i);
        } else {
            i += 1;
        }
    }
    out
}

/// The largest char boundary of `text` at or below `at`.
fn boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(text: &str, m: &Mutation) -> String {
    let pick = |n: usize, len: usize| (len > 0).then(|| n % len);
    match *m {
        Mutation::DeleteElement(n) => {
            let els = elements(text);
            match pick(n, els.len()) {
                Some(i) => format!("{}{}", &text[..els[i].start], &text[els[i].end..]),
                None => text.to_string(),
            }
        }
        Mutation::DuplicateElement(n) => {
            let els = elements(text);
            match pick(n, els.len()) {
                Some(i) => {
                    let r = els[i].clone();
                    format!("{}{}{}", &text[..r.end], &text[r.clone()], &text[r.end..])
                }
                None => text.to_string(),
            }
        }
        Mutation::CorruptNumber(n, v) => {
            let nums = numbers(text);
            match pick(n, nums.len()) {
                Some(i) => format!(
                    "{}{}{}",
                    &text[..nums[i].start],
                    BAD_NUMBERS[v % BAD_NUMBERS.len()],
                    &text[nums[i].end..]
                ),
                None => text.to_string(),
            }
        }
        Mutation::Truncate(n) => {
            let at = boundary(text, n % (text.len() + 1));
            text[..at].to_string()
        }
        Mutation::SwapAttributes(a, b) => {
            let attrs = attribute_values(text);
            match (pick(a, attrs.len()), pick(b, attrs.len())) {
                (Some(i), Some(j)) => {
                    let value = text[attrs[j].clone()].to_string();
                    format!(
                        "{}{}{}",
                        &text[..attrs[i].start],
                        value,
                        &text[attrs[i].end..]
                    )
                }
                _ => text.to_string(),
            }
        }
        Mutation::RenameElement(n, k) => {
            let Ok(doc) = roxmltree::Document::parse(text) else {
                return text.to_string();
            };
            let els: Vec<roxmltree::Node> = doc
                .descendants()
                .filter(|e| e.is_element() && e.tag_name().namespace().is_none())
                .skip(1)
                .collect();
            let Some(i) = pick(n, els.len()) else {
                return text.to_string();
            };
            let node = els[i];
            let old = node.tag_name().name();
            let new = NAMES[k % NAMES.len()];
            let r = node.range();
            let inner = &text[r.clone()];
            // `<old` at the start, `</old>` at the end (unless self-closing).
            let mut renamed = format!("<{new}{}", &inner[1 + old.len()..]);
            let close = format!("</{old}>");
            if renamed.ends_with(&close) {
                renamed.truncate(renamed.len() - close.len());
                renamed.push_str(&format!("</{new}>"));
            }
            format!("{}{}{}", &text[..r.start], renamed, &text[r.end..])
        }
    }
}

/// Reads `text` every way the engine does and builds what is accepted; None when nothing
/// panicked and every error had a position, else what went wrong.
fn exercise(text: &str, path: &Path) -> Option<String> {
    let positioned = |e: &SdfError| -> Option<String> {
        e.all()
            .find(|one| one.line < 1 || one.column < 1 || one.message.is_empty())
            .map(|one| format!("an error without a position or message: {one:?}"))
    };
    let run = catch_unwind(AssertUnwindSafe(|| {
        match sdf::parse_document(text, Some(path)) {
            Err(e) => {
                let _ = e.render(None);
                positioned(&e)
            }
            Ok(doc) => match doc.into_world() {
                Err(e) => positioned(&e),
                Ok(world) => match Physics::build(&world) {
                    Ok(_) => None,
                    Err(e) if e.span.line < 1 => {
                        Some(format!("a build error without a position: {e}"))
                    }
                    Err(_) => None,
                },
            },
        }
    }));
    match run {
        Ok(problem) => problem,
        Err(panic) => Some(format!(
            "panicked: {}",
            panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)")
        )),
    }
}

proptest! {
    #![proptest_config(Config {
        cases: 384,
        rng_seed: RngSeed::Fixed(0x5df0_2026),
        failure_persistence: None,
        max_shrink_iters: 256,
        ..Config::default()
    })]

    #[test]
    fn mutated_sdf_files_never_panic_the_reader_or_the_physics_build(
        seed in any::<usize>(),
        mutations in prop::collection::vec(mutation(), 1..5),
    ) {
        let seeds = seeds();
        let file = &seeds[seed % seeds.len()];
        let mut text = file.text.clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        let problem = exercise(&text, &file.path);
        prop_assert!(
            problem.is_none(),
            "{}: {}\nafter {:?}\n--- text ---\n{}",
            file.path.display(),
            problem.unwrap_or_default(),
            mutations,
            text
        );
    }
}

/// The mutations themselves work: each changes the text it is given.
#[test]
fn each_mutation_changes_a_world() {
    let text = "<sdf version=\"1.9\"><world name=\"w\"><model name=\"m\"><pose>1 2 3 0 0 0</pose><link name=\"l\"/></model></world></sdf>";
    for m in [
        Mutation::DeleteElement(1),
        Mutation::DuplicateElement(1),
        Mutation::CorruptNumber(3, 0),
        Mutation::Truncate(20),
        Mutation::SwapAttributes(0, 2),
        Mutation::RenameElement(2, 0),
    ] {
        let out = apply(text, &m);
        assert_ne!(out, text, "{m:?} changed nothing");
        assert!(exercise(&out, Path::new("mutated.sdf")).is_none(), "{m:?}");
    }
    // A corrupted number is refused where it is.
    let out = apply(text, &Mutation::CorruptNumber(3, 10));
    let e = sdf::parse_str(&out, None).unwrap_err();
    assert_eq!(e.message, "<pose> expects a number, found \"garbage\"");
}

/// A hostile file set: what is written beside `world.sdf`.
#[derive(Clone, Debug)]
enum Hostile {
    /// A binary STL on a dynamic link: triangles of corners picked from a few points (so
    /// that many repeat or line up), some NaN; the header claims `claimed` triangles.
    DegenerateMesh {
        corners: Vec<(u8, u8, u8)>,
        nan: bool,
        claimed: Option<u32>,
    },
    /// A PNG header claiming `width` x `height` pixels, with no real data.
    HeaderBomb { width: u32, height: u32 },
    /// `depth` files, each including the next `fan` times.
    FanOut { depth: usize, fan: usize },
    /// An OBJ on a dynamic link: vertices picked from a few points (some NaN), faces whose
    /// indices may lie past every vertex, be zero or negative (relative), or be huge.
    ObjMesh {
        vertices: Vec<u8>,
        nan: bool,
        faces: Vec<[i64; 3]>,
    },
    /// A world with physics, a camera, a lidar and an IMU whose `number`-th number (modulo
    /// how many) is [`BAD_NUMBERS`]`[value]` (modulo its length).
    ExtremeNumber { number: usize, value: usize },
    /// A file that is not regular (`kind`: 0 a FIFO, 1 a directory, 2 a link to `/dev/zero`)
    /// named as (`role`) 0 an include, 1 a mesh, 2 a height map.
    NotRegular { kind: u8, role: u8 },
}

/// A face index: mostly within a few vertices, sometimes zero, negative or huge.
fn face_index() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => -6i64..8,
        1 => Just(4_294_967_295i64),
        1 => Just(i64::MAX),
        1 => Just(-4_294_967_295i64),
    ]
}

/// The world of [`Hostile::ExtremeNumber`] before its number is changed.
const SENSOR_WORLD: &str = "<sdf version=\"1.9\"><world name=\"w\">\
     <physics type=\"ode\"><max_step_size>0.001</max_step_size><real_time_factor>1</real_time_factor></physics>\
     <model name=\"m\"><pose>0 0 1 0 0 0</pose><link name=\"l\">\
     <inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>\
     <collision name=\"c\"><geometry><box><size>1 1 1</size></box></geometry>\
     <surface><friction><ode><mu>1</mu></ode></friction></surface></collision>\
     <sensor name=\"cam\" type=\"camera\"><update_rate>30</update_rate><camera>\
     <horizontal_fov>1.047</horizontal_fov><image><width>32</width><height>24</height></image>\
     <clip><near>0.1</near><far>100</far></clip></camera></sensor>\
     <sensor name=\"scan\" type=\"gpu_lidar\"><update_rate>10</update_rate><lidar><scan>\
     <horizontal><samples>16</samples><min_angle>-1</min_angle><max_angle>1</max_angle></horizontal>\
     </scan><range><min>0.1</min><max>10</max></range></lidar></sensor>\
     <sensor name=\"imu\" type=\"imu\"><update_rate>100</update_rate><imu><angular_velocity><x>\
     <noise type=\"gaussian\"><mean>0</mean><stddev>0.01</stddev></noise></x></angular_velocity></imu></sensor>\
     </link></model></world></sdf>";

fn hostile() -> impl Strategy<Value = Hostile> {
    prop_oneof![
        (
            prop::collection::vec((0u8..5, 0u8..5, 0u8..5), 1..12),
            any::<bool>(),
            prop::option::of(any::<u32>())
        )
            .prop_map(|(corners, nan, claimed)| Hostile::DegenerateMesh {
                corners,
                nan,
                claimed
            }),
        (any::<u32>(), any::<u32>()).prop_map(|(width, height)| Hostile::HeaderBomb {
            width: width.max(1),
            height: height.max(1)
        }),
        (2usize..40, 2usize..5).prop_map(|(depth, fan)| Hostile::FanOut { depth, fan }),
        (
            prop::collection::vec(0u8..5, 0..8),
            any::<bool>(),
            prop::collection::vec([face_index(), face_index(), face_index()], 1..6)
        )
            .prop_map(|(vertices, nan, faces)| Hostile::ObjMesh {
                vertices,
                nan,
                faces
            }),
        (any::<usize>(), any::<usize>())
            .prop_map(|(number, value)| Hostile::ExtremeNumber { number, value }),
        (0u8..3, 0u8..3).prop_map(|(kind, role)| Hostile::NotRegular { kind, role }),
    ]
}

/// Five points: the corners a degenerate mesh is made of (three on one line).
const POINTS: [[f32; 3]; 5] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [2.0, 0.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, 0.0, 1.0],
];

/// Writes `h` and its world into `dir`; the world file.
fn write_hostile(dir: &Path, h: &Hostile) -> PathBuf {
    let world =
        |models: &str| format!("<sdf version=\"1.9\"><world name=\"w\">{models}</world></sdf>");
    let text = match h {
        Hostile::DegenerateMesh {
            corners,
            nan,
            claimed,
        } => {
            let n = corners.len().div_ceil(3).max(1);
            let triangles: Vec<[[f32; 3]; 3]> = (0..n)
                .map(|t| {
                    [0, 1, 2].map(|k| {
                        let (x, y, z) = corners[(t * 3 + k) % corners.len()];
                        let mut p = [
                            POINTS[x as usize][0],
                            POINTS[y as usize][1],
                            POINTS[z as usize][2],
                        ];
                        if *nan && t == 0 && k == 0 {
                            p[0] = f32::NAN;
                        }
                        p
                    })
                })
                .collect();
            let b = hostile::stl(&triangles, *claimed);
            std::fs::write(dir.join("m.stl"), b).unwrap();
            world(
                "<model name=\"m\"><link name=\"l\"><inertial><mass>1</mass></inertial>\
                 <collision name=\"c\"><geometry><mesh><uri>m.stl</uri></mesh></geometry>\
                 </collision></link></model>",
            )
        }
        Hostile::HeaderBomb { width, height } => {
            std::fs::write(dir.join("h.png"), hostile::png_claiming(*width, *height)).unwrap();
            world(
                "<model name=\"t\"><static>true</static><link name=\"l\"><collision name=\"c\">\
                 <geometry><heightmap><uri>h.png</uri><size>10 10 1</size></heightmap>\
                 </geometry></collision></link></model>",
            )
        }
        Hostile::FanOut { depth, fan } => {
            for k in 0..*depth {
                let body = if k + 1 == *depth {
                    "<link name=\"l\"/>".to_string()
                } else {
                    (0..*fan)
                        .map(|i| {
                            format!(
                                "<include><uri>f{}.sdf</uri><name>i{i}</name></include>",
                                k + 1
                            )
                        })
                        .collect()
                };
                std::fs::write(
                    dir.join(format!("f{k}.sdf")),
                    format!("<sdf version=\"1.9\"><model name=\"m{k}\">{body}</model></sdf>"),
                )
                .unwrap();
            }
            world("<include><uri>f0.sdf</uri></include>")
        }
        Hostile::ObjMesh {
            vertices,
            nan,
            faces,
        } => {
            let mut obj = String::new();
            for (i, v) in vertices.iter().enumerate() {
                let p = POINTS[*v as usize];
                let x = if *nan && i == 0 { f32::NAN } else { p[0] };
                obj.push_str(&format!("v {x} {} {}\n", p[1], p[2]));
            }
            for [a, b, c] in faces {
                obj.push_str(&format!("f {a} {b} {c}\n"));
            }
            std::fs::write(dir.join("m.obj"), obj).unwrap();
            world(
                "<model name=\"m\"><link name=\"l\"><inertial><mass>1</mass></inertial>\
                 <collision name=\"c\"><geometry><mesh><uri>m.obj</uri></mesh></geometry>\
                 </collision></link></model>",
            )
        }
        Hostile::ExtremeNumber { number, value } => {
            apply(SENSOR_WORLD, &Mutation::CorruptNumber(*number, *value))
        }
        Hostile::NotRegular { kind, role } => {
            let (name, geometry) = match role {
                0 => ("inc.sdf", None),
                1 => ("m.stl", Some("<mesh><uri>m.stl</uri></mesh>")),
                _ => (
                    "h.png",
                    Some("<heightmap><uri>h.png</uri><size>10 10 1</size></heightmap>"),
                ),
            };
            let target = dir.join(name);
            match kind {
                0 => {
                    let made = std::process::Command::new("mkfifo").arg(&target).status();
                    assert!(made.is_ok_and(|s| s.success()), "mkfifo makes a FIFO");
                }
                1 => std::fs::create_dir(&target).unwrap(),
                _ => std::os::unix::fs::symlink("/dev/zero", &target).unwrap(),
            }
            match geometry {
                None => world(&format!("<include><uri>{name}</uri></include>")),
                Some(g) => world(&format!(
                    "<model name=\"m\"><static>true</static><link name=\"l\">\
                     <collision name=\"c\"><geometry>{g}</geometry></collision></link></model>"
                )),
            }
        }
    };
    let path = dir.join("world.sdf");
    std::fs::write(&path, text).unwrap();
    path
}

proptest! {
    #![proptest_config(Config {
        cases: 64,
        rng_seed: RngSeed::Fixed(0x5df0_2027),
        failure_persistence: None,
        max_shrink_iters: 64,
        ..Config::default()
    })]

    #[test]
    fn hostile_files_are_refused_or_built_in_bounded_time(h in hostile()) {
        let dir = tempfile::tempdir().unwrap();
        let world = write_hostile(dir.path(), &h);
        let options = sdf::LoadOptions { ignore_env: true, ..Default::default() };
        let start = std::time::Instant::now();
        let run = catch_unwind(AssertUnwindSafe(|| match sdf::load_with(&world, &options) {
            Err(e) => {
                let _ = e.render(None);
                e.all().find(|one| one.line < 1).map(|one| format!("no position: {one:?}"))
            }
            Ok(w) => match Physics::build(&w) {
                Err(e) if e.span.line < 1 => Some(format!("a build error without a position: {e}")),
                _ => None,
            },
        }));
        let elapsed = start.elapsed();
        prop_assert!(run.is_ok(), "{h:?} panicked");
        let problem = run.unwrap();
        prop_assert!(problem.is_none(), "{h:?}: {}", problem.unwrap_or_default());
        prop_assert!(elapsed < std::time::Duration::from_secs(20), "{h:?} took {elapsed:?}");
    }
}

/// Runs the real `simcore` with `args`, killing it after two minutes (a check or a one-step
/// run of these worlds takes well under a second): the exit status, stderr, and whether it
/// had to be killed.
fn simcore_bounded(args: &[&str]) -> (std::process::ExitStatus, String, bool) {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(args)
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env_remove("SIMCORE_RESOURCE_PATH")
        .env_remove("GZ_SIM_RESOURCE_PATH")
        .env_remove("SDF_PATH")
        .env("SIMCORE_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("simcore runs");
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let mut killed = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            killed = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    (status, reader.join().unwrap(), killed)
}

proptest! {
    #![proptest_config(Config {
        cases: 24,
        rng_seed: RngSeed::Fixed(0x5df0_2028),
        failure_persistence: None,
        max_shrink_iters: 16,
        ..Config::default()
    })]

    #[test]
    fn check_and_a_one_step_run_end_by_themselves_and_name_file_and_line(h in hostile()) {
        let dir = tempfile::tempdir().unwrap();
        let world = write_hostile(dir.path(), &h);
        let world = world.to_str().unwrap();
        let dir_text = dir.path().to_str().unwrap();
        for args in [vec!["check", world], vec!["run", world, "--steps", "1", "--rtf", "0"]] {
            let (status, stderr, killed) = simcore_bounded(&args);
            prop_assert!(!killed, "{h:?}: simcore {args:?} hangs\n{stderr}");
            // A panic exits with 101, an abort or a fault by a signal (no code).
            let code = status.code();
            prop_assert!(
                matches!(code, Some(0..=2)),
                "{h:?}: simcore {args:?} ended with {status}\n{stderr}"
            );
            prop_assert!(!stderr.contains("panicked"), "{h:?}: {args:?}\n{stderr}");
            if code != Some(0) {
                // The refusal is placed: a file of the world's directory and a line in it.
                let placed = stderr.match_indices(dir_text).any(|(at, _)| {
                    let rest = &stderr[at + dir_text.len()..];
                    let file_end = rest.find(':').unwrap_or(rest.len());
                    rest[file_end..].strip_prefix(':').is_some_and(|r| {
                        r.starts_with(|c: char| c.is_ascii_digit())
                    })
                });
                prop_assert!(placed, "{h:?}: {args:?} names no file and line\n{stderr}");
            }
        }
    }
}
