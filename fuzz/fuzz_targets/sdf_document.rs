//! Fuzzes the SDF reader and the physics build: any text is read as an SDF document (world or
//! model) and, when accepted, built in the physics engine. Errors are expected; a panic, or an
//! error without a source position, is a bug.
//!
//! The first byte chooses what the rest is: SDF text (most inputs), the bytes of a mesh file
//! (STL, OBJ or COLLADA) on a dynamic link, or of a height-map PNG, each written to a file and
//! loaded from a world as `check` does: degenerate meshes and header bombs must be refused,
//! not panic or allocate what they claim.

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

/// Writes `bytes` as `name` beside a world using it as `geometry` (of a dynamic link, or of a
/// static model for a height map) and loads and builds it.
fn world_with_file(name: &str, bytes: &[u8], geometry: &str) {
    let is_static = geometry.starts_with("<heightmap");
    let dir = scratch();
    if std::fs::write(dir.join(name), bytes).is_err() {
        return;
    }
    let world = dir.join("world.sdf");
    let text = format!(
        "<sdf version=\"1.9\"><world name=\"w\"><model name=\"m\"><static>{is_static}</static><link name=\"l\">\
         <inertial><mass>1</mass></inertial><collision name=\"c\"><geometry>{geometry}\
         </geometry></collision></link></model></world></sdf>"
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
            }
        }
        Err(e) => {
            let _ = e.render(None);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
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
