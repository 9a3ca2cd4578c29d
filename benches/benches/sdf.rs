//! `cargo xtask bench`: reading worlds, each figure beside a baseline measured in the same run.
//!
//! - parse + resolve + build into rapier, in process: every file of the shared SDF corpus's
//!   `valid/` directory (includes found in its `models/`), and a generated world that
//!   includes one mesh model (a 1,000-triangle STL) 1,000 times at different poses; with the
//!   peak resident memory of the process while doing it (Linux `VmHWM`, reset before each);
//! - `simcore inspect --json` on the same files vs libsdformat reading them (the corpus
//!   oracle binary, `shared/tools/sdf-oracle`), process for process (goal: simcore at least
//!   5x faster). The oracle is looked for at `$SIMCORE_SDF_ORACLE`, then beside its sources;
//!   without it the comparison is reported as not measured.
//!
//! The table is written to `target/bench-results-sdf.md` and `.json`. The criterion filter
//! selects the parts: `sdf/<set>_parse_resolve_build` (with the peak memory) and
//! `sdf/<set>_inspect_vs_libsdformat`, `<set>` being `valid_corpus` or
//! `mesh_model_included_1000_times`; a filter that names neither skips both.

use criterion::{Criterion, criterion_group};
use sim_benches::{Row, selected, write_named_table};
use sim_core::physics::Physics;
use sim_core::sdf::{self, LoadOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn target_dir() -> PathBuf {
    std::env::var_os("SIMCORE_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

fn corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/sdf-corpus");
    dir.is_dir().then_some(dir)
}

/// The oracle binary, if built.
fn oracle() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("SIMCORE_SDF_ORACLE").map(PathBuf::from),
        Some(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../shared/tools/sdf-oracle/sdf_oracle"),
        ),
    ];
    candidates.into_iter().flatten().find(|p| p.is_file())
}

/// The release `simcore` binary (`cargo xtask bench` builds it).
fn simcore_bin() -> Option<PathBuf> {
    let p = target_dir().join("release/simcore");
    p.is_file().then_some(p)
}

/// Every `.sdf` / `.world` under `dir`, relative to `root`, sorted.
fn sdf_files(root: &Path, dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(
                p.extension().and_then(|x| x.to_str()),
                Some("sdf" | "world")
            ) {
                out.push(p.strip_prefix(root).unwrap_or(&p).to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// A set of files read from `root` with includes searched in `resource_dirs` (relative to
/// `root`).
struct Set {
    root: PathBuf,
    files: Vec<PathBuf>,
    resource_dirs: Vec<PathBuf>,
}

impl Set {
    fn options(&self) -> LoadOptions {
        LoadOptions {
            resource_paths: self
                .resource_dirs
                .iter()
                .map(|d| self.root.join(d))
                .collect(),
            ignore_env: true,
            ..Default::default()
        }
    }

    /// Reads, resolves and builds every file once; returns how many built.
    fn read_all(&self, options: &LoadOptions) -> usize {
        let mut built = 0;
        for f in &self.files {
            let Ok(doc) = sdf::load_document_with(&self.root.join(f), options) else {
                continue;
            };
            let Ok(world) = doc.into_world() else {
                continue;
            };
            if Physics::build(&world).is_ok() {
                built += 1;
            }
        }
        built
    }

    /// Wall time of running `program` (with `args` before each file) once per file, from
    /// `root`.
    fn run_each(&self, program: &Path, args: &[String], env: &[(&str, String)]) -> Duration {
        let t = Instant::now();
        for f in &self.files {
            let mut c = Command::new(program);
            c.args(args)
                .arg(f)
                .current_dir(&self.root)
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            for (k, v) in env {
                c.env(k, v);
            }
            let _ = c.status();
        }
        t.elapsed()
    }
}

/// The generated world: one mesh model (a 1,000-triangle sphere in an STL) included 1,000
/// times on a grid.
fn mesh_world(dir: &Path) -> Set {
    let model = dir.join("models/pebble");
    std::fs::create_dir_all(model.join("meshes")).expect("temp dir");
    std::fs::write(
        model.join("model.config"),
        "<?xml version=\"1.0\"?><model><name>pebble</name><sdf version=\"1.9\">model.sdf</sdf></model>",
    )
    .expect("write");
    let geometry =
        "<geometry><mesh><uri>meshes/pebble.stl</uri><scale>0.2 0.2 0.1</scale></mesh></geometry>";
    std::fs::write(
        model.join("model.sdf"),
        format!(
            "<?xml version=\"1.0\"?><sdf version=\"1.9\"><model name=\"pebble\"><link name=\"body\">\
             <inertial><mass>0.5</mass><inertia><ixx>0.001</ixx><iyy>0.001</iyy><izz>0.001</izz></inertia></inertial>\
             <collision name=\"c\">{geometry}</collision><visual name=\"v\">{geometry}</visual>\
             </link></model></sdf>"
        ),
    )
    .expect("write");
    // A UV sphere: 32 segments x 16 rings = 960 triangles (plus the caps' degenerate ones
    // left out).
    let (seg, rings) = (32, 17);
    let point = |i: usize, j: usize| {
        let theta = std::f64::consts::PI * i as f64 / (rings - 1) as f64;
        let phi = 2.0 * std::f64::consts::PI * j as f64 / seg as f64;
        [
            theta.sin() * phi.cos(),
            theta.sin() * phi.sin(),
            theta.cos(),
        ]
    };
    let mut stl = String::from("solid pebble\n");
    let mut tri = |a: [f64; 3], b: [f64; 3], c: [f64; 3]| {
        stl.push_str("facet normal 0 0 0\nouter loop\n");
        for v in [a, b, c] {
            stl.push_str(&format!("vertex {} {} {}\n", v[0], v[1], v[2]));
        }
        stl.push_str("endloop\nendfacet\n");
    };
    for i in 0..rings - 1 {
        for j in 0..seg {
            let (a, b) = (point(i, j), point(i, (j + 1) % seg));
            let (c, d) = (point(i + 1, j), point(i + 1, (j + 1) % seg));
            if i > 0 {
                tri(a, c, b);
            }
            if i < rings - 2 {
                tri(b, c, d);
            }
        }
    }
    stl.push_str("endsolid pebble\n");
    std::fs::write(model.join("meshes/pebble.stl"), stl).expect("write");
    let mut world = String::from(
        "<?xml version=\"1.0\"?><sdf version=\"1.9\"><world name=\"pebbles\">\
         <model name=\"ground\"><static>true</static><link name=\"l\"><collision name=\"c\">\
         <geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link></model>",
    );
    for k in 0..1000 {
        world.push_str(&format!(
            "<include><uri>model://pebble</uri><name>pebble_{k}</name><pose>{} {} 0.5 0 0 {}</pose></include>",
            (k % 40) as f64 * 0.5,
            (k / 40) as f64 * 0.5,
            k as f64 * 0.01
        ));
    }
    world.push_str("</world></sdf>");
    std::fs::write(dir.join("pebbles.sdf"), world).expect("write");
    Set {
        root: dir.to_path_buf(),
        files: vec![PathBuf::from("pebbles.sdf")],
        resource_dirs: vec![PathBuf::from("models")],
    }
}

/// Peak resident memory of this process since the last reset, KiB (Linux), and a reset.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn reset_peak_rss() {
    // Writing 5 to clear_refs resets the high-water mark (Linux 4.0+).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn current_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// One measured scenario.
#[derive(Default)]
struct Figures {
    files: usize,
    built: usize,
    /// In-process time per pass.
    in_process: Option<Duration>,
    /// Peak RSS above the RSS before the pass, KiB.
    peak_kib: Option<u64>,
    /// (simcore inspect, oracle) for all files, process per file.
    processes: Option<(Duration, Duration)>,
    /// Whether the filter selected the comparison with libsdformat (`processes` is `None`
    /// without the binaries).
    compared: bool,
}

static CORPUS: Mutex<Option<Figures>> = Mutex::new(None);
static MESHES: Mutex<Option<Figures>> = Mutex::new(None);

/// Whether the filter selects any part of the set `name` (see the module docs).
fn wanted(name: &str) -> bool {
    selected(&build_id(name)) || selected(&compare_id(name))
}

fn build_id(name: &str) -> String {
    format!("sdf/{name}_parse_resolve_build")
}

fn compare_id(name: &str) -> String {
    format!("sdf/{name}_inspect_vs_libsdformat")
}

fn measure(c: &mut Criterion, name: &str, set: &Set, out: &Mutex<Option<Figures>>) {
    let options = set.options();
    let mut fig = Figures {
        files: set.files.len(),
        compared: selected(&compare_id(name)),
        ..Default::default()
    };
    if selected(&build_id(name)) {
        // Peak memory of one pass, cold.
        let before = current_rss_kib();
        reset_peak_rss();
        fig.built = set.read_all(&options);
        fig.peak_kib = match (before, peak_rss_kib()) {
            (Some(b), Some(p)) => Some(p.saturating_sub(b)),
            _ => None,
        };
        let mut g = c.benchmark_group("sdf");
        g.sample_size(10);
        let mut total = (Duration::ZERO, 0u32);
        g.bench_function(format!("{name}_parse_resolve_build"), |b| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                for _ in 0..iters {
                    std::hint::black_box(set.read_all(&options));
                }
                let e = t.elapsed();
                total.0 += e;
                total.1 += iters as u32;
                e
            })
        });
        g.finish();
        if total.1 > 0 {
            fig.in_process = Some(total.0 / total.1);
        }
    }
    // Not selected: neither measured nor reported.
    if fig.compared
        && let (Some(simcore), Some(oracle)) = (simcore_bin(), oracle())
    {
        let mut args = vec!["inspect".to_string(), "--json".to_string()];
        for d in &set.resource_dirs {
            args.push("--resource-path".into());
            args.push(d.to_string_lossy().into_owned());
        }
        let sdf_path: Vec<String> = set
            .resource_dirs
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect();
        let env = [
            ("SDF_PATH", sdf_path.join(":")),
            ("SIMCORE_LOG", "error".to_string()),
        ];
        // Alternating passes; the fastest of three of each.
        let (mut ours, mut theirs) = (Duration::MAX, Duration::MAX);
        for _ in 0..3 {
            ours = ours.min(set.run_each(&simcore, &args, &env));
            theirs = theirs.min(set.run_each(&oracle, &["--quiet".to_string()], &env));
        }
        fig.processes = Some((ours, theirs));
    }
    *out.lock().unwrap_or_else(|e| e.into_inner()) = Some(fig);
}

fn corpus_bench(c: &mut Criterion) {
    if !wanted("valid_corpus") {
        return;
    }
    let Some(root) = corpus() else {
        eprintln!("no SDF corpus beside the repository: corpus benchmark skipped");
        return;
    };
    let set = Set {
        files: sdf_files(&root, "valid"),
        root,
        resource_dirs: vec![
            PathBuf::from("models"),
            PathBuf::from("models/nested_include"),
        ],
    };
    measure(c, "valid_corpus", &set, &CORPUS);
}

fn mesh_bench(c: &mut Criterion) {
    if !wanted("mesh_model_included_1000_times") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("simcore-bench-pebbles-{}", std::process::id()));
    let set = mesh_world(&dir);
    measure(c, "mesh_model_included_1000_times", &set, &MESHES);
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, corpus_bench, mesh_bench);

fn rows_of(what: &str, fig: &Figures) -> Vec<Row> {
    let mut rows = Vec::new();
    let memory = match fig.peak_kib {
        Some(k) => format!("peak memory +{:.1} MiB", k as f64 / 1024.0),
        None => "peak memory not measured".into(),
    };
    if let Some(t) = fig.in_process {
        let per_file = t.as_nanos() as f64 / fig.files.max(1) as f64;
        rows.push(Row {
            name: format!(
                "parse + resolve + build, {what} ({} files, {} built), in process",
                fig.files, fig.built
            ),
            ns: per_file,
            baseline: "-".into(),
            baseline_ns: per_file,
            goal: "time and peak memory reported".into(),
            met: true,
            note: format!("{:.1} ms per pass, {memory}", t.as_secs_f64() * 1e3),
        });
    }
    match fig.processes {
        _ if !fig.compared => {}
        Some((ours, theirs)) => {
            let n = fig.files.max(1) as f64;
            let ratio = theirs.as_secs_f64() / ours.as_secs_f64();
            rows.push(Row {
                name: format!("simcore inspect --json, {what}, one process per file"),
                ns: ours.as_nanos() as f64 / n,
                baseline: "libsdformat 12.3 (sdf-oracle), same files".into(),
                baseline_ns: theirs.as_nanos() as f64 / n,
                goal: ">= 5x faster than libsdformat".into(),
                met: ratio >= 5.0,
                note: format!("{ratio:.2}x"),
            });
        }
        None => rows.push(Row {
            name: format!("simcore inspect --json, {what}, one process per file"),
            ns: f64::NAN,
            baseline: "libsdformat 12.3 (sdf-oracle): not installed, not measured (build it with shared/tools/sdf-oracle/build.sh)".into(),
            baseline_ns: f64::NAN,
            goal: ">= 5x faster than libsdformat".into(),
            met: false,
            note: "not measured".into(),
        }),
    }
    rows
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    let mut rows = Vec::new();
    if let Some(f) = CORPUS.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        rows.extend(rows_of("the valid SDF corpus", f));
    }
    if let Some(f) = MESHES.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        rows.extend(rows_of("one mesh model included 1,000 times", f));
    }
    if rows.is_empty() {
        return;
    }
    match write_named_table(&target_dir(), "bench-results-sdf", &rows) {
        Ok((md, _)) => {
            println!("\n{}", std::fs::read_to_string(&md).unwrap_or_default());
            println!("written to {}", md.display());
        }
        Err(e) => eprintln!("cannot write the results table: {e}"),
    }
}
