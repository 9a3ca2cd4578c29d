//! Fuzzes the SDF reader and the physics build: any text is read as an SDF document (world or
//! model) and, when accepted, built in the physics engine. Errors are expected; a panic, or an
//! error without a source position, is a bug.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sim_core::physics::Physics;
use sim_core::sdf;

fuzz_target!(|data: &[u8]| {
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
});
