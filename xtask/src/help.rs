//! What `cargo xtask <task> --help` prints, at once: no task builds anything to answer it.

/// The usage of every task.
pub const USAGE: &str = "usage: cargo xtask <task> [options]

tasks:
  run WORLD [simcore run options]   build the engine and the plugins, then run a world
  test                              every test, the Python package's included
  test-python                       only the Python package's tests
  bench [filter]                    the benchmarks (release builds), results in target/
  install [--root DIR]              simcore and its plugins on the PATH (release builds)
  fuzz [--seconds N] [TARGET...]    the fuzz targets for N seconds each
  ci                                what CI runs

`cargo xtask <task> --help` says more about one.";

/// The help of `task`, if it has one here (`fuzz` answers its own).
pub fn text(task: &str) -> Option<&'static str> {
    Some(match task {
        "--help" | "-h" | "help" => USAGE,
        "run" => {
            "usage: cargo xtask run WORLD [simcore run options]

Builds simcore and its plugins (cargo's progress shown) and runs `simcore run WORLD` from
target/debug with the options given, paced at real time unless `--rtf` says otherwise. The
options are simcore run's: docs/cli.md lists them, and so does `target/debug/simcore run
--help` once built."
        }
        "test" => {
            "usage: cargo xtask test

Runs every test: `cargo test --workspace` (the tests build the plugin libraries they load),
with the Python clients of python/requirements.txt installed into target/python first (about
1.2 GB, once), then builds the Python package into that environment (maturin) and runs its
tests with pytest."
        }
        "test-python" => {
            "usage: cargo xtask test-python

Only the Python package's part of `cargo xtask test`: the environment in target/python, the
package built into it, and pytest on sim-python/tests."
        }
        "bench" => {
            "usage: cargo xtask bench [criterion filter] [criterion options]

Builds the plugins and simcore in release mode, then runs the criterion benchmarks of
benches/ (engine and sdf), each against its baseline measured in the same run; with no
filter (or `many_runs`) also benches/python/many_runs.py on the release Python package.
Results: target/bench-results.md and .json. A filter selects benchmarks by name (`w1`,
`step`, `transport`, ...); docs/benchmarks.md describes each and the profiling switches
(SIMCORE_PROFILE)."
        }
        "install" => {
            "usage: cargo xtask install [--root DIR]

Runs `cargo install --path sim-core --locked` into DIR (default: cargo's own root,
CARGO_INSTALL_ROOT, else CARGO_HOME, else ~/.cargo), so that `simcore` is in DIR/bin, and
copies the in-tree plugins, built in release mode, to DIR/lib/simcore/plugins, where the
installed simcore finds them. Put DIR/bin on the PATH."
        }
        "ci" => {
            "usage: cargo xtask ci

What CI runs: the documented sim-plugin-api versions against the crate's, the crate table of
docs/architecture.md against the workspace's graph, cargo fmt --check, clippy and rustdoc
with warnings denied, `cargo package` of sim-plugin-api, `cargo xtask test`, and a one-second
unpaced run of worlds/imu_drop.sdf."
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_but_fuzz_answers_here() {
        for task in [
            "run",
            "test",
            "test-python",
            "bench",
            "ci",
            "--help",
            "-h",
            "help",
        ] {
            let t = text(task).unwrap_or_else(|| panic!("{task}: no help"));
            assert!(t.starts_with("usage: cargo xtask"), "{task}");
        }
        assert!(text("fuzz").is_none(), "fuzz answers its own --help");
        for task in [
            "run",
            "test",
            "test-python",
            "bench",
            "install",
            "fuzz",
            "ci",
        ] {
            assert!(
                USAGE.contains(&format!("  {task} ")),
                "{task} is in the usage"
            );
        }
    }
}
