//! Gazebo worlds run unchanged: every world of gz-sim's own examples and tests (the shared
//! corpus's `valid/gz-sim`) loads with the real plugin libraries under Gazebo's policy and
//! steps; what each world runs without (plugins and sensor types no library serves) and the
//! worlds refused, with why, are kept in `gz-sim-worlds.tsv`, so that a regression shows.
//!
//! Every message the shipped plugins publish there comes on a topic they declared before the
//! first step (`simcore.output_types.v1`), with the payload type declared.
//!
//! When the corpus is not there (a checkout of the repository alone), the test prints a
//! notice and passes. `SIMCORE_UPDATE_EXPECTED=1` rewrites the expectation file.

use crate::common;

use common::{lib_file, plugin_build_dir, workspace};
use sim_core::plugins::{Registry, SearchPath};
use sim_core::runner::{Direction, PluginPolicy, SimOptions, Simulation};
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// Steps each world takes (a tenth of a second at gz-sim's default step): every world's
/// sensors and plugins run, and the whole corpus stays within CI's time.
const STEPS: usize = 100;

const EXPECTED: &str = "tests/gz-sim-worlds.tsv";

fn corpus() -> Option<PathBuf> {
    let dir = workspace().join("../shared/sdf-corpus");
    if dir.join("valid/gz-sim").is_dir() {
        Some(dir)
    } else {
        println!("notice: no gz-sim worlds at {}; skipping", dir.display());
        None
    }
}

fn sdf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "sdf" || x == "world") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The real plugin libraries (not the test fixtures), in a directory of their own (linked).
fn real_plugins() -> tempfile::TempDir {
    let src = plugin_build_dir();
    let dir = tempfile::tempdir().expect("temp dir");
    let prefix = lib_file("simcore_plugin_");
    let prefix = prefix
        .split('.')
        .next()
        .expect("a library file name has a stem");
    for e in std::fs::read_dir(src).expect("plugin build dir").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        if name.starts_with(prefix)
            && path.is_file()
            && path
                .extension()
                .is_some_and(|x| x == std::env::consts::DLL_EXTENSION)
        {
            link(&path, &dir.path().join(&name));
        }
    }
    dir
}

/// `to` as another name of the library `from` (a copy where links are not available).
fn link(from: &Path, to: &Path) {
    #[cfg(unix)]
    let linked = std::os::unix::fs::symlink(from, to).is_ok();
    #[cfg(not(unix))]
    let linked = false;
    if !linked {
        std::fs::copy(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
    }
}

/// Why a world is refused, in a line that does not depend on where the corpus is.
fn reason(text: &str, root: &Path) -> String {
    let first = text.lines().next().unwrap_or_default();
    if text.contains("is on the network") {
        "refused: includes a Gazebo Fuel model (network URI)".into()
    } else if text.contains("cannot find") && text.contains(".png") {
        "refused: its heightmap image is not in the corpus".into()
    } else if text.contains("describes a model, not a world") {
        "refused: a model file, not a world".into()
    } else {
        let root = root.to_string_lossy();
        format!(
            "refused: {}",
            first
                .replace(root.as_ref(), "")
                .replace(&workspace().to_string_lossy().to_string(), "")
        )
    }
}

/// An output topic: its name, the kinds declared there (several plugins may publish on one
/// topic), and a subscription to it.
type Output = (
    String,
    Vec<Option<&'static str>>,
    sim_core::transport::Subscription,
);

/// The topics `sim` serves as outputs, each subscribed to.
fn outputs(sim: &mut Simulation) -> Vec<Output> {
    let mut declared: BTreeMap<String, Vec<Option<&'static str>>> = BTreeMap::new();
    for t in sim.served().topics {
        if t.direction == Direction::Out {
            declared.entry(t.topic).or_default().push(t.kind);
        }
    }
    declared
        .into_iter()
        .map(|(t, k)| {
            let sub = sim.bus_mut().subscribe(&t, 1 << 12);
            (t, k, sub)
        })
        .collect()
}

/// What a run published that its plugins had not declared: a message of another type than
/// those declared on its topic, a topic published on by a plugin without a declaration.
fn undeclared(sim: &Simulation, outputs: &[Output]) -> Vec<String> {
    let mut problems = Vec::new();
    for (topic, kinds, sub) in outputs {
        for e in sub.drain() {
            let got = e
                .message
                .payload
                .as_enum()
                .map_or("Unknown", |p| p.type_name());
            if !kinds.contains(&Some(got)) {
                problems.push(format!("`{topic}` carries {got}, declared {kinds:?}"));
                break;
            }
        }
    }
    for t in sim.served().topics {
        if t.direction == Direction::Out && !t.by.is_empty() && t.kind.is_none() {
            problems.push(format!("`{}` published by {} undeclared", t.topic, t.by));
        }
    }
    problems
}

/// One line per world: its path, `runs` or why it is refused, and what it ran without; and
/// what its plugins published without declaring it ([`undeclared`]).
fn outcome(path: &Path, root: &Path, plugins: &Path) -> (String, Vec<String>) {
    let options = sim_core::sdf::LoadOptions {
        resource_paths: vec![root.join("models")],
        ignore_env: true,
        ..Default::default()
    };
    let world = match sim_core::sdf::load_with(path, &options) {
        Ok(w) => w,
        Err(e) => return (reason(&e.render(None), root), Vec::new()),
    };
    let registry = Registry::discover(SearchPath::new(&[plugins.to_path_buf()], None, &[], None));
    let run = catch_unwind(AssertUnwindSafe(|| {
        let mut sim = Simulation::with_policy(
            world,
            registry,
            &SimOptions::default(),
            PluginPolicy::Gazebo,
        )
        .map_err(|e| e.to_string())?;
        let outputs = outputs(&mut sim);
        for _ in 0..STEPS {
            sim.step();
        }
        let undeclared = undeclared(&sim, &outputs);
        let mut skipped: Vec<String> = sim
            .skipped()
            .iter()
            .map(|p| p.subject.replace('`', ""))
            .collect();
        skipped.sort();
        skipped.dedup();
        let failures: Vec<String> = sim
            .failures()
            .iter()
            .map(|f| format!("{}: {}", f.subject, f.error))
            .collect();
        Ok::<_, String>((skipped, failures, undeclared))
    }));
    match run {
        Ok(Ok((skipped, failures, undeclared))) if failures.is_empty() => {
            (format!("runs\t{}", skipped.join("; ")), undeclared)
        }
        Ok(Ok((_, failures, undeclared))) => (
            format!("disabled while running: {}", failures.join("; ")),
            undeclared,
        ),
        Ok(Err(e)) => (reason(&e.replace('\n', " "), root), Vec::new()),
        Err(_) => ("panicked".into(), Vec::new()),
    }
}

#[test]
fn gz_sim_worlds_run_skipping_only_what_the_expectation_lists() {
    let Some(root) = corpus() else { return };
    let plugins = real_plugins();
    let mut lines = Vec::new();
    let mut undeclared = Vec::new();
    let mut runs = 0;
    for path in sdf_files(&root.join("valid/gz-sim")) {
        let rel = path
            .strip_prefix(root.join("valid/gz-sim"))
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let (o, problems) = outcome(&path, &root, plugins.path());
        undeclared.extend(problems.into_iter().map(|p| format!("{rel}: {p}")));
        runs += usize::from(o.starts_with("runs"));
        lines.push(format!("{rel}\t{o}"));
    }
    let got = format!(
        "# world\toutcome\tskipped (no plugin library serves them)\n{}\n",
        lines.join("\n")
    );
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXPECTED);
    if std::env::var_os("SIMCORE_UPDATE_EXPECTED").is_some() {
        std::fs::write(&file, &got).expect("write the expectation");
    }
    let expected = std::fs::read_to_string(&file).unwrap_or_default();
    println!("{runs} of {} gz-sim worlds run", lines.len());
    let diff: Vec<String> = {
        let e: Vec<&str> = expected.lines().collect();
        let g: Vec<&str> = got.lines().collect();
        e.iter()
            .filter(|l| !g.contains(l))
            .map(|l| format!("- {l}"))
            .chain(
                g.iter()
                    .filter(|l| !e.contains(l))
                    .map(|l| format!("+ {l}")),
            )
            .collect()
    };
    assert!(
        undeclared.is_empty(),
        "published without a declaration:\n{}",
        undeclared.join("\n")
    );
    assert!(
        diff.is_empty(),
        "the gz-sim worlds differ from {EXPECTED} (- expected, + now; rerun with \
         SIMCORE_UPDATE_EXPECTED=1 when the change is right):\n{}",
        diff.join("\n")
    );
}
