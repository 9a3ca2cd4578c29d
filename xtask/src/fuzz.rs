//! `cargo xtask fuzz [--seconds N] [TARGET...]`: runs the cargo-fuzz targets of `fuzz/` for a
//! fixed time each, seeded from the inputs committed under `fuzz/seeds/<target>` (and the
//! example worlds for `sdf_document`), and fails naming the input that crashed. Not part of
//! `ci`: it needs a nightly toolchain and cargo-fuzz, and takes minutes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// The fuzz targets (`fuzz/fuzz_targets/<name>.rs`), in the order they run.
pub const TARGETS: [&str; 4] = ["sdf_document", "mesh_file", "cdr_decode", "batch_sweep"];

/// The time each target runs when `--seconds` is not given.
pub const DEFAULT_SECONDS: u64 = 60;

/// The longest one input may take before libFuzzer reports it as a hang, in seconds.
const INPUT_TIMEOUT_S: u64 = 30;

/// The memory one target may use before libFuzzer reports it, in MiB: the input limits keep
/// a world far below it, so reaching it is a bug (an allocation an input asked for).
const RSS_LIMIT_MB: u64 = 4096;

/// What `cargo xtask fuzz` was asked to do.
#[derive(Debug, PartialEq, Eq)]
pub struct Plan {
    /// Seconds per target.
    pub seconds: u64,
    /// The targets to run, in order, each once.
    pub targets: Vec<&'static str>,
}

/// The usage line.
pub const USAGE: &str = "usage: cargo xtask fuzz [--seconds N] [TARGET...] \
    (targets: sdf_document, mesh_file, cdr_decode, batch_sweep; default all, 60 s each)";

/// Reads the arguments of `cargo xtask fuzz`: `--seconds N` (or `--seconds=N`, a whole
/// number of at least 1) and target names (all of [`TARGETS`] when none is given).
pub fn parse_args(args: &[String]) -> Result<Plan, String> {
    let mut seconds = None;
    let mut targets: Vec<&'static str> = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let value = if arg == "--seconds" {
            Some(
                it.next()
                    .ok_or_else(|| format!("--seconds needs a number of seconds\n{USAGE}"))?
                    .as_str(),
            )
        } else {
            arg.strip_prefix("--seconds=")
        };
        if let Some(v) = value {
            let n: u64 = v
                .parse()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| format!("--seconds {v:?}: want a whole number of at least 1"))?;
            seconds = Some(n);
        } else if arg == "-h" || arg == "--help" {
            return Err(USAGE.to_string());
        } else if arg.starts_with('-') {
            return Err(format!("unknown option {arg:?}\n{USAGE}"));
        } else {
            let Some(t) = TARGETS.iter().find(|t| **t == arg) else {
                return Err(format!(
                    "unknown fuzz target {arg:?} (the targets: {})",
                    TARGETS.join(", ")
                ));
            };
            if !targets.contains(t) {
                targets.push(t);
            }
        }
    }
    if targets.is_empty() {
        targets = TARGETS.to_vec();
    }
    Ok(Plan {
        seconds: seconds.unwrap_or(DEFAULT_SECONDS),
        targets,
    })
}

/// The directories that seed `target`'s corpus, relative to `fuzz/`.
fn seeds(target: &str) -> Vec<String> {
    let mut dirs = vec![format!("seeds/{target}")];
    if target == "sdf_document" {
        dirs.push("../worlds".into());
    }
    dirs
}

/// `cargo +nightly fuzz` run in `fuzz/`, in its own target directory (a `CARGO_TARGET_DIR`
/// for the main workspace would mix its instrumented build with the engine's).
fn cargo_fuzz(fuzz_dir: &Path) -> Command {
    let mut c = Command::new("cargo");
    c.args(["+nightly", "fuzz"])
        .current_dir(fuzz_dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO");
    c
}

/// Whether cargo-fuzz (and the nightly toolchain) can be run, and if not, what to do.
fn installed(fuzz_dir: &Path) -> Result<(), String> {
    let out = cargo_fuzz(fuzz_dir).arg("--version").output();
    match out {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "cargo-fuzz cannot be run with the nightly toolchain ({}).\n\
             Install them with:\n    rustup toolchain install nightly\n    cargo install cargo-fuzz\n\
             then run `cargo xtask fuzz` again (see fuzz/README.md)",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!(
            "cannot run cargo ({e}): cargo xtask fuzz needs rustup's cargo with a nightly \
             toolchain and cargo-fuzz (`rustup toolchain install nightly`, \
             `cargo install cargo-fuzz`; see fuzz/README.md)"
        )),
    }
}

/// The files of `dir` written at or after `since`, oldest first.
fn new_files(dir: &Path, since: SystemTime) -> Vec<PathBuf> {
    let mut found: Vec<(SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let e = e.ok()?;
            let modified = e.metadata().ok()?.modified().ok()?;
            (modified >= since).then(|| (modified, e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

/// Runs each target of `plan` for its time; Ok(0) when none crashed, else the message
/// naming each crash's input and how to replay it.
pub fn run(root: &Path, plan: &Plan) -> Result<u8, String> {
    let fuzz_dir = root.join("fuzz");
    installed(&fuzz_dir)?;
    let mut crashes = Vec::new();
    for target in &plan.targets {
        eprintln!("xtask: fuzzing {target} for {} s", plan.seconds);
        let corpus = format!("corpus/{target}");
        let artifacts = fuzz_dir.join("artifacts").join(target);
        std::fs::create_dir_all(fuzz_dir.join(&corpus))
            .and_then(|()| std::fs::create_dir_all(&artifacts))
            .map_err(|e| format!("cannot create fuzz/{corpus} or its artifacts: {e}"))?;
        let since = SystemTime::now();
        let mut c = cargo_fuzz(&fuzz_dir);
        // No sanitizer: simcore has no `unsafe`, and an uninstrumented build runs several
        // times as many inputs; what is sought is a panic, an abort, a hang or an allocation
        // past the limit, which libFuzzer reports without one.
        c.args(["run", "--sanitizer", "none", target, &corpus])
            .args(seeds(target))
            .arg("--")
            .arg(format!("-max_total_time={}", plan.seconds))
            .arg(format!("-timeout={INPUT_TIMEOUT_S}"))
            .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
            .arg("-max_len=65536")
            .arg("-print_final_stats=1");
        let status = c
            .status()
            .map_err(|e| format!("cannot start cargo fuzz: {e}"))?;
        if status.success() {
            continue;
        }
        let found = new_files(&artifacts, since);
        if found.is_empty() {
            crashes.push(format!(
                "{target}: cargo fuzz failed (exit {}) without writing an input to \
                 fuzz/artifacts/{target}/ (a build error?)",
                status
                    .code()
                    .map_or("by a signal".into(), |c| c.to_string())
            ));
        }
        for f in found {
            let shown = f.strip_prefix(root).unwrap_or(&f).display().to_string();
            crashes.push(format!(
                "{target}: crashed on {shown}; replay it with \
                 `cd fuzz && cargo +nightly fuzz run {target} {}`",
                f.strip_prefix(&fuzz_dir).unwrap_or(&f).display()
            ));
        }
    }
    if crashes.is_empty() {
        eprintln!(
            "xtask: {} fuzzed for {} s each, no crash",
            plan.targets.join(", "),
            plan.seconds
        );
        Ok(0)
    } else {
        Err(format!("fuzzing found crashes:\n{}", crashes.join("\n")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_target_for_a_minute_unless_told() {
        let plan = parse_args(&[]).unwrap();
        assert_eq!(plan.seconds, 60);
        assert_eq!(plan.targets, TARGETS.to_vec());
        let plan = parse_args(&args(&["--seconds", "5", "cdr_decode", "mesh_file"])).unwrap();
        assert_eq!(
            plan,
            Plan {
                seconds: 5,
                targets: vec!["cdr_decode", "mesh_file"]
            }
        );
        let plan = parse_args(&args(&["batch_sweep", "--seconds=7", "batch_sweep"])).unwrap();
        assert_eq!(plan.seconds, 7);
        assert_eq!(plan.targets, ["batch_sweep"]);
    }

    #[test]
    fn bad_arguments_are_named() {
        for (a, said) in [
            (&["--seconds"][..], "--seconds needs"),
            (&["--seconds", "0"], "at least 1"),
            (&["--seconds=-3"], "at least 1"),
            (&["--seconds", "x"], "whole number"),
            (&["--minutes", "2"], "unknown option \"--minutes\""),
            (&["sdf"], "unknown fuzz target \"sdf\""),
            (&["--help"], "usage: cargo xtask fuzz"),
        ] {
            let e = parse_args(&args(a)).unwrap_err();
            assert!(e.contains(said), "{a:?}: {e}");
        }
    }

    #[test]
    fn every_target_is_built_and_seeded() {
        let fuzz = super::super::root().join("fuzz");
        let manifest = std::fs::read_to_string(fuzz.join("Cargo.toml")).unwrap();
        for t in TARGETS {
            assert!(
                manifest.contains(&format!("name = \"{t}\"")),
                "{t} is not a [[bin]] of fuzz/Cargo.toml"
            );
            assert!(fuzz.join(format!("fuzz_targets/{t}.rs")).is_file(), "{t}");
            for s in seeds(t) {
                let dir = fuzz.join(&s);
                let n = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
                assert!(n > 0, "{t}: no seeds in fuzz/{s}");
            }
        }
    }
}
