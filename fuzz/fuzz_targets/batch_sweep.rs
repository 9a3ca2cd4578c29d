//! Fuzzes the sweep file `simcore batch` reads (`sim_batch::sweep::parse`, through
//! `sim_core::batch`): any text is read as a sweep file beside two worlds
//! (`world.sdf`, and `../worlds/imu_drop.sdf` as `examples/sweep.toml` names it), checked
//! and expanded into its runs. Errors are expected, and carry the file and a line; a panic,
//! an abort, an expansion past the documented bounds, or a hang is a bug.

#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use sim_core::batch::sweep::{self, MAX_RUNS};

/// The sweep file's path, in a directory of this process holding the worlds it may name.
fn sweep_file() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("simcore-fuzz-sweep-{}", std::process::id()));
    let world = "<sdf version=\"1.9\"><world name=\"w\"><model name=\"box\"><link name=\"body\">\
                 <sensor name=\"imu\" type=\"imu\"/></link></model></world></sdf>";
    for (rel, text) in [("sweeps/world.sdf", world), ("worlds/imu_drop.sdf", world)] {
        let path = dir.join(rel);
        if !path.exists() {
            let _ = std::fs::create_dir_all(path.parent().unwrap_or(&dir));
            let _ = std::fs::write(&path, text);
        }
    }
    dir.join("sweeps/sweep.toml")
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = sweep_file();
    match sweep::parse(text, &file) {
        Ok(s) => {
            assert!(s.runs.len() <= MAX_RUNS, "{} runs", s.runs.len());
            for run in &s.runs {
                let _ = run.sdf_overrides();
            }
        }
        Err(e) => {
            assert_eq!(e.file, file);
            assert!(e.line >= 1, "no line: {e}");
        }
    }
});
