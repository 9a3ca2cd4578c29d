//! Fuzzes the mesh readers through the path the engine takes for a world's mesh: the bytes
//! are written as a mesh file (STL, OBJ or COLLADA, chosen by the first byte), named by a
//! world's `<collision>` and `<visual>`, and the world is read and built with the default
//! input limits, as `check` and `run` do: the file read within `max_mesh_bytes` (COLLADA
//! within `max_sdf_bytes`, its counts and indices checked), its triangles taken, and the
//! collider built (on a dynamic link its convex decomposition or hull, on a static one its
//! triangles; the second byte chooses). Errors are expected, and name the file; a panic, an
//! abort, an allocation of what a header claims, or a hang is a bug.

#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use sim_core::physics::Physics;
use sim_core::sdf;

/// A directory of this process for the files of one input.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("simcore-fuzz-mesh-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// The mesh formats, by the first byte of an input.
const FORMATS: [&str; 3] = ["stl", "obj", "dae"];

fuzz_target!(|data: &[u8]| {
    let [format, link, mesh @ ..] = data else {
        return;
    };
    let ext = FORMATS[usize::from(*format) % FORMATS.len()];
    let is_static = link % 2 == 1;
    let dir = scratch();
    let name = format!("m.{ext}");
    if std::fs::write(dir.join(&name), mesh).is_err() {
        return;
    }
    let world = dir.join("world.sdf");
    let text = format!(
        "<sdf version=\"1.9\"><world name=\"w\"><model name=\"m\"><static>{is_static}</static>\
         <link name=\"l\"><inertial><mass>1</mass></inertial>\
         <collision name=\"c\"><geometry><mesh><uri>{name}</uri></mesh></geometry></collision>\
         <visual name=\"v\"><geometry><mesh><uri>{name}</uri></mesh></geometry></visual>\
         </link></model></world></sdf>"
    );
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
                assert!(e.message.contains(&name), "the mesh is not named: {e}");
            }
        }
        Err(e) => {
            let _ = e.render(None);
        }
    }
});
