//! Fuzzes the SDF reader and the physics build: any text is read as an SDF document (world or
//! model) and, when accepted, built in the physics engine. Errors are expected; a panic, or an
//! error without a source position, is a bug.
//!
//! The first byte chooses what the rest is: SDF text (most inputs), the bytes of a mesh file
//! (STL, OBJ or COLLADA) on a dynamic link, or of a height-map PNG, each written to a file and
//! loaded from a world as `check` does: degenerate meshes and header bombs must be refused,
//! not panic or allocate what they claim. Three more classes: include fan-out (two bytes give
//! the depth and the fan of files that each include the next), a number (the rest as text,
//! e.g. `1e300`, `NaN`, `-0`, `4294967296`) put in one of the numeric elements of a world with
//! physics and sensors (a byte picks which), and a file that is not regular (a FIFO, a
//! directory, a link to `/dev/zero`) named as an include, a mesh or a height map.

#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use sim_core::physics::Physics;
use sim_core::sdf;

/// A directory of this process for the files of one input.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("simcore-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// The world of a geometry `geometry` (of a dynamic link, or of a static model for a height
/// map).
fn geometry_world(geometry: &str) -> String {
    let is_static = geometry.starts_with("<heightmap");
    format!(
        "<sdf version=\"1.9\"><world name=\"w\"><model name=\"m\"><static>{is_static}</static><link name=\"l\">\
         <inertial><mass>1</mass></inertial><collision name=\"c\"><geometry>{geometry}\
         </geometry></collision></link></model></world></sdf>"
    )
}

/// Writes `bytes` as `name` beside a world using it as `geometry` and loads and builds it.
fn world_with_file(name: &str, bytes: &[u8], geometry: &str) {
    let dir = scratch();
    let _ = std::fs::remove_file(dir.join(name));
    if std::fs::write(dir.join(name), bytes).is_err() {
        return;
    }
    load_and_build(&geometry_world(geometry));
}

/// Writes `text` as the world file of the scratch directory, then loads and builds it as
/// `check` does.
fn load_and_build(text: &str) {
    let world = scratch().join("world.sdf");
    if std::fs::write(&world, text).is_err() {
        return;
    }
    let options = sdf::LoadOptions {
        ignore_env: true,
        ..Default::default()
    };
    match sdf::load_with(&world, &options) {
        Ok(w) => {
            if let Err(e) = Physics::build(&w) {
                assert!(e.span.line >= 1, "a build error without a position: {e}");
            }
        }
        Err(e) => {
            let _ = e.render(None);
        }
    }
}

/// `depth` files (at most 64), each including the next `fan` times (at most 8), from a
/// world: the model count limit must end the expansion.
fn fan_out(depth: u8, fan: u8) {
    let (depth, fan) = (usize::from(depth % 64) + 1, usize::from(fan % 8) + 1);
    let dir = scratch();
    for k in 0..depth {
        let body = if k + 1 == depth {
            "<link name=\"l\"/>".to_string()
        } else {
            (0..fan)
                .map(|i| {
                    format!(
                        "<include><uri>f{}.sdf</uri><name>i{i}</name></include>",
                        k + 1
                    )
                })
                .collect()
        };
        let text = format!("<sdf version=\"1.9\"><model name=\"m{k}\">{body}</model></sdf>");
        if std::fs::write(dir.join(format!("f{k}.sdf")), text).is_err() {
            return;
        }
    }
    load_and_build(
        "<sdf version=\"1.9\"><world name=\"w\"><include><uri>f0.sdf</uri></include></world></sdf>",
    );
}

/// A world with physics, a camera, a lidar and an IMU, whose numeric elements take `{n}`
/// placeholders in turn.
const NUMBERS_WORLD: &[&str] = &[
    "<sdf version=\"1.9\"><world name=\"w\"><physics type=\"ode\"><max_step_size>",
    "</max_step_size><real_time_factor>",
    "</real_time_factor></physics><model name=\"m\"><pose>0 0 ",
    " 0 0 0</pose><link name=\"l\"><inertial><mass>",
    "</mass></inertial><collision name=\"c\"><geometry><box><size>1 ",
    " 1</size></box></geometry><surface><friction><ode><mu>",
    "</mu></ode></friction></surface></collision><sensor name=\"cam\" type=\"camera\"><update_rate>",
    "</update_rate><camera><horizontal_fov>",
    "</horizontal_fov><image><width>",
    "</width><height>",
    "</height></image></camera></sensor><sensor name=\"scan\" type=\"gpu_lidar\"><lidar><scan><horizontal><samples>",
    "</samples><min_angle>",
    "</min_angle><max_angle>1</max_angle></horizontal></scan><range><min>0.1</min><max>",
    "</max></range></lidar></sensor><sensor name=\"imu\" type=\"imu\"><imu><angular_velocity><x><noise type=\"gaussian\"><stddev>",
    "</stddev></noise></x></angular_velocity></imu></sensor></link></model></world></sdf>",
];

/// The value of each numeric element of [`NUMBERS_WORLD`] when it is not the fuzzed one.
const NUMBERS_DEFAULT: &[&str] = &[
    "0.001", "1", "1", "1", "1", "1", "30", "1.047", "32", "24", "16", "-1", "10", "0.01",
];

/// [`NUMBERS_WORLD`] with `value` in its `which`-th numeric element.
fn extreme_number(which: u8, value: &[u8]) {
    let Ok(value) = std::str::from_utf8(value) else {
        return;
    };
    let which = usize::from(which) % NUMBERS_DEFAULT.len();
    let mut text = String::new();
    for (i, part) in NUMBERS_WORLD.iter().enumerate() {
        text.push_str(part);
        if i < NUMBERS_DEFAULT.len() {
            text.push_str(if i == which {
                value
            } else {
                NUMBERS_DEFAULT[i]
            });
        }
    }
    load_and_build(&text);
}

/// A file that is not regular (`kind`: a FIFO, a directory or a link to `/dev/zero`) named
/// as (`role`) an include, a mesh or a height map: refused without being read.
fn not_regular(kind: u8, role: u8) {
    let dir = scratch();
    let (name, geometry) = match role % 3 {
        0 => ("odd.sdf", None),
        1 => ("odd.stl", Some("<mesh><uri>odd.stl</uri></mesh>")),
        _ => (
            "odd.png",
            Some("<heightmap><uri>odd.png</uri><size>10 10 1</size></heightmap>"),
        ),
    };
    let target = dir.join(name);
    let _ = std::fs::remove_file(&target);
    let _ = std::fs::remove_dir(&target);
    let made = match kind % 3 {
        0 => std::process::Command::new("mkfifo")
            .arg(&target)
            .status()
            .is_ok_and(|s| s.success()),
        1 => std::fs::create_dir(&target).is_ok(),
        _ => std::os::unix::fs::symlink("/dev/zero", &target).is_ok(),
    };
    if !made {
        return;
    }
    match geometry {
        None => load_and_build(&format!(
            "<sdf version=\"1.9\"><world name=\"w\"><include><uri>{name}</uri></include></world></sdf>"
        )),
        Some(g) => load_and_build(&geometry_world(g)),
    }
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((4, rest)) => fan_out(
            rest.first().copied().unwrap_or(0),
            rest.get(1).copied().unwrap_or(0),
        ),
        Some((5, rest)) => {
            if let Some((which, value)) = rest.split_first() {
                extreme_number(*which, value);
            }
        }
        Some((6, rest)) => not_regular(
            rest.first().copied().unwrap_or(0),
            rest.get(1).copied().unwrap_or(0),
        ),
        Some((0, mesh)) => world_with_file("m.stl", mesh, "<mesh><uri>m.stl</uri></mesh>"),
        Some((1, mesh)) => world_with_file("m.obj", mesh, "<mesh><uri>m.obj</uri></mesh>"),
        Some((2, mesh)) => world_with_file("m.dae", mesh, "<mesh><uri>m.dae</uri></mesh>"),
        Some((3, png)) => world_with_file(
            "h.png",
            png,
            "<heightmap><uri>h.png</uri><size>10 10 1</size></heightmap>",
        ),
        _ => {
            let Ok(text) = std::str::from_utf8(data) else {
                return;
            };
            match sdf::parse_document(text, None) {
                Err(e) => {
                    for one in e.all() {
                        assert!(one.line >= 1 && one.column >= 1, "no position: {one:?}");
                    }
                    let _ = e.render(None);
                }
                Ok(doc) => {
                    if let Ok(world) = doc.into_world() {
                        let _ = Physics::build(&world);
                    }
                }
            }
        }
    }
});
