//! Runs the SDF reader over the shared corpus of real SDF files (`shared/sdf-corpus` beside the
//! workspace): it must never panic, every error must have a position, and for the files it
//! accepts, the basic facts must agree with libsdformat's reading of the same file (the
//! corpus's `oracle/*.oracle.json`).
//!
//! When the corpus is not there (e.g. a checkout of the repository alone), the tests print a
//! notice and pass.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use serde_json::Value;
use sim_core::sdf::{self, ErrorKind, SdfError};
use sim_core::world::{Quat, World};

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/sdf-corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("notice: no SDF corpus at {}; skipping", dir.display());
        None
    }
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

/// The outcome of loading one corpus file.
struct Outcome {
    /// Path relative to the corpus root, e.g. `valid/gz-sim/examples/worlds/shapes.sdf`.
    rel: String,
    /// As `simcore check` reads it: the document (a world, several, or a model put in a
    /// default world), every world of it.
    result: Result<Vec<World>, SdfError>,
}

/// The options the oracle was run with: includes are found in `models` and
/// `models/nested_include` of the corpus (its `SDF_PATH`), and nowhere else.
fn corpus_options(root: &Path) -> sdf::LoadOptions {
    sdf::LoadOptions {
        resource_paths: vec![root.join("models"), root.join("models/nested_include")],
        ignore_env: true,
        ..Default::default()
    }
}

/// Loads every corpus file through the path `simcore check` takes (`load_document_with`, then
/// every world of the document, a model file's model in a default world); panics are
/// collected (and fail the caller), not propagated.
fn load_all(root: &Path) -> (Vec<Outcome>, Vec<String>) {
    let options = corpus_options(root);
    let mut outcomes = Vec::new();
    let mut panics = Vec::new();
    for group in ["valid", "invalid"] {
        for path in sdf_files(&root.join(group)) {
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            match catch_unwind(AssertUnwindSafe(|| {
                sdf::load_document_with(&path, &options).and_then(sdf::Document::into_worlds)
            })) {
                Ok(result) => outcomes.push(Outcome { rel, result }),
                Err(_) => panics.push(rel),
            }
        }
    }
    (outcomes, panics)
}

#[test]
fn corpus_never_panics_and_every_error_has_a_position() {
    let Some(root) = corpus_dir() else { return };
    let (outcomes, panics) = load_all(&root);
    assert!(panics.is_empty(), "the reader panicked on: {panics:#?}");
    assert!(
        outcomes.len() > 500,
        "expected the whole corpus, found {} files",
        outcomes.len()
    );

    let mut bad = Vec::new();
    let mut table: BTreeMap<(String, String), usize> = BTreeMap::new();
    for o in &outcomes {
        let group = o.rel.split('/').next().unwrap_or("").to_string();
        match &o.result {
            Ok(_) => *table.entry((group, "accepted".into())).or_default() += 1,
            Err(e) => {
                *table
                    .entry((group, format!("rejected: {:?}", e.kind)))
                    .or_default() += 1;
                for one in e.all() {
                    if one.line < 1 || one.column < 1 {
                        bad.push(format!("{}: no position: {one}", o.rel));
                    }
                }
                let report = catch_unwind(AssertUnwindSafe(|| e.render(None)));
                match report {
                    Ok(r) if r.contains(&e.message) && r.contains(&format!(":{}:", e.line)) => {}
                    Ok(r) => bad.push(format!("{}: incomplete report:\n{r}", o.rel)),
                    Err(_) => bad.push(format!("{}: render panicked", o.rel)),
                }
                if e.message.is_empty() || e.hint.is_empty() {
                    bad.push(format!("{}: error without message or hint: {e:?}", o.rel));
                }
            }
        }
    }
    println!("SDF corpus, {} files:", outcomes.len());
    for ((group, what), n) in &table {
        println!("  {group:8} {what:24} {n:4}");
    }
    // SDF_CORPUS_VERBOSE=1 lists every rejection.
    if std::env::var_os("SDF_CORPUS_VERBOSE").is_some() {
        for o in &outcomes {
            if let Err(e) = &o.result {
                println!("  {}: {:?}: {}", o.rel, e.kind, e.message);
            }
        }
    }
    // Every file libsdformat rejects is refused here too.
    for o in outcomes
        .iter()
        .filter(|o| o.rel.starts_with("invalid/") && o.result.is_ok())
    {
        bad.push(format!(
            "{}: accepted although libsdformat rejects it",
            o.rel
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Files libsdformat loads that this reader rejects must be rejected only for what it does not
/// support yet; a lenient XML or version failure there would mean the reader refuses worlds
/// Gazebo runs.
#[test]
fn valid_corpus_files_fail_only_on_unsupported_features() {
    let Some(root) = corpus_dir() else { return };
    let (outcomes, _) = load_all(&root);
    let known = known_differences();
    let mut unexpected = Vec::new();
    for o in outcomes.iter().filter(|o| o.rel.starts_with("valid/")) {
        if let Err(e) = &o.result {
            let root_is_model =
                e.kind == ErrorKind::Missing && e.message.contains("describes a model");
            let oracle_wrong = known.iter().any(|k| k.covers(&o.rel, "refused"));
            if e.kind != ErrorKind::Unsupported && !root_is_model && !oracle_wrong {
                unexpected.push(format!("{}\n{}", o.rel, e.render(None)));
            }
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}

/// One difference between our `inspect --json` and the oracle's JSON of a file.
struct Mismatch {
    /// The JSON path, e.g. `worlds[0].models[1].links[0].pose_in_world`.
    field: String,
    /// What differs.
    detail: String,
}

/// A line of `sdf-oracle-known-differences.tsv`: a file, a field (a JSON path; a path
/// ending in `*` covers everything below it) and why the oracle is wrong there.
struct Known {
    path: String,
    field: String,
    reason: String,
    used: std::cell::Cell<bool>,
}

fn known_differences() -> Vec<Known> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sdf-oracle-known-differences.tsv");
    let text = std::fs::read_to_string(&file).expect("the known-differences file");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert!(
                cols.len() == 3 && !cols[2].trim().is_empty(),
                "malformed line (path, field, reason): {l:?}"
            );
            Known {
                path: cols[0].to_string(),
                field: cols[1].to_string(),
                reason: cols[2].to_string(),
                used: std::cell::Cell::new(false),
            }
        })
        .collect()
}

impl Known {
    fn covers(&self, path: &str, field: &str) -> bool {
        self.path == path
            && match self.field.strip_suffix('*') {
                Some(prefix) => field.starts_with(prefix),
                None => self.field == field,
            }
    }
}

/// Every file of `valid/` and `models/` that libsdformat loaded (its oracle JSON has
/// `"ok": true`) is read with `sdf::load_document` and printed with `inspect::to_json`; the
/// two JSON documents are compared field by field (names, scoped names, types, counts,
/// poses in the world and as written, canonical links, frames, joints with their resolved
/// links and axes, geometry, sensors, plugins). Differences are allowed only where
/// `tests/sdf-oracle-known-differences.tsv` lists them with the reason the oracle
/// (libsdformat 12.3) is wrong. Files refused only for what this reader does not read yet
/// (`<include>`, some geometry) are counted and listed; any other refusal of a file
/// libsdformat loads is a failure unless it is an `Unsupported` feature.
#[test]
fn inspect_agrees_with_the_oracle() {
    let Some(root) = corpus_dir() else { return };
    let options = corpus_options(&root);
    let known = known_differences();
    let mut table: BTreeMap<String, usize> = BTreeMap::new();
    let mut not_read_yet = Vec::new();
    let mut refused = Vec::new();
    let mut failures = Vec::new();
    let mut allowed = Vec::new();
    for group in ["valid", "models"] {
        for path in sdf_files(&root.join(group)) {
            let rel = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            let oracle_path = root.join("oracle").join(format!("{rel}.oracle.json"));
            let Ok(text) = std::fs::read_to_string(&oracle_path) else {
                *table.entry("no oracle output".into()).or_default() += 1;
                continue;
            };
            let oracle: Value = serde_json::from_str(&text).expect("oracle JSON");
            if oracle["ok"] != Value::Bool(true) {
                // Entries about a file the oracle refuses serve the other corpus tests.
                for k in known.iter().filter(|k| k.path == rel) {
                    k.used.set(true);
                }
                *table
                    .entry("libsdformat 12.3 refuses (not compared)".into())
                    .or_default() += 1;
                continue;
            }
            if !matches!(oracle["root_type"].as_str(), Some("world" | "model")) {
                *table
                    .entry("root is not a world or model (not compared)".into())
                    .or_default() += 1;
                continue;
            }
            let doc = match sdf::load_document_with(&path, &options) {
                Ok(d) => d,
                Err(e) => {
                    let why = if e.kind == ErrorKind::Unsupported && e.message.contains("<include>")
                    {
                        Some("include")
                    } else if e.kind == ErrorKind::Unsupported && e.message.contains("geometry") {
                        Some("geometry")
                    } else {
                        None
                    };
                    match why {
                        Some(w) => {
                            *table.entry(format!("not read yet ({w})")).or_default() += 1;
                            not_read_yet.push(format!("{rel}: {}", e.message));
                        }
                        None => {
                            *table.entry(format!("we refuse: {:?}", e.kind)).or_default() += 1;
                            let covered = known.iter().find(|k| k.covers(&rel, "refused"));
                            if let Some(k) = covered {
                                k.used.set(true);
                                allowed
                                    .push(format!("{rel}: refused ({}): {}", e.message, k.reason));
                            } else if e.kind == ErrorKind::Unsupported {
                                refused.push(format!("{rel}: {}", e.message));
                            } else {
                                failures.push(format!(
                                    "{rel}: refused although libsdformat loads it:\n{}",
                                    e.render(None)
                                ));
                            }
                        }
                    }
                    continue;
                }
            };
            let ours: Value =
                serde_json::from_str(&sim_core::inspect::to_json(&doc)).expect("our JSON parses");
            let mut mismatches = Vec::new();
            compare(&mut mismatches, "", &ours, &oracle, None);
            let mut unexplained = 0;
            for m in &mismatches {
                match known.iter().find(|k| k.covers(&rel, &m.field)) {
                    Some(k) => {
                        k.used.set(true);
                        allowed.push(format!("{rel}: {}: {} ({})", m.field, m.detail, k.reason));
                    }
                    None => {
                        unexplained += 1;
                        failures.push(format!("{rel}: {}: {}", m.field, m.detail));
                    }
                }
            }
            let verdict = if unexplained > 0 {
                "differs"
            } else if mismatches.is_empty() {
                "matches"
            } else {
                "matches but for known oracle errors"
            };
            *table.entry(verdict.into()).or_default() += 1;
        }
    }
    println!("inspect --json against libsdformat 12.3, valid/ and models/:");
    for (what, n) in &table {
        println!("  {what:48} {n:4}");
    }
    println!("not read yet (include/geometry), compared once they are read:");
    for f in &not_read_yet {
        println!("  {f}");
    }
    println!("refused as not supported:");
    for f in &refused {
        println!("  {f}");
    }
    println!("known differences (the oracle is wrong):");
    for f in &allowed {
        println!("  {f}");
    }
    for k in known.iter().filter(|k| !k.used.get()) {
        failures.push(format!(
            "known-differences entry matches nothing: {}\t{}\t{}",
            k.path, k.field, k.reason
        ));
    }
    assert!(
        table.get("matches").copied().unwrap_or(0) > 200,
        "too few files match: {table:?}"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The oracle prints non-finite numbers as strings.
fn number(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => s.parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().map(number).collect())
        .unwrap_or_default()
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-6 + 1e-9 * a.abs().max(b.abs())
}

/// Poses within 1e-6 m, rotations compared as matrices within 1e-6.
fn same_pose(a: &[f64], b: &[f64]) -> bool {
    if a.len() != 6 || b.len() != 6 {
        return false;
    }
    let (ra, rb) = (
        Quat::from_rpy(a[3], a[4], a[5]).to_matrix(),
        Quat::from_rpy(b[3], b[4], b[5]).to_matrix(),
    );
    (0..3).all(|i| close(a[i], b[i]))
        && (0..3).all(|i| (0..3).all(|j| (ra[i][j] - rb[i][j]).abs() <= 1e-6))
}

/// A joint limit as SDF 1.10 means it: before 1.10, ±1e16 meant none, and a negative
/// effort or velocity meant unlimited.
fn limit(key: &str, v: f64) -> f64 {
    match key {
        "lower" | "upper" if v.abs() >= 1e16 => v.signum() * f64::INFINITY,
        "effort" | "velocity" if v < 0.0 => f64::INFINITY,
        _ => v,
    }
}

/// Compares `ours` with the oracle's `theirs` below the JSON path `path`. `key` is the
/// object key the values are under.
fn compare(out: &mut Vec<Mismatch>, path: &str, ours: &Value, theirs: &Value, key: Option<&str>) {
    let mut differ = |detail: String| {
        out.push(Mismatch {
            field: path.to_string(),
            detail,
        })
    };
    match key {
        // Not compared: versions (libsdformat converts to 1.9), its console and resolve
        // errors, the orientation of the
        // spherical coordinates (not read).
        Some(
            "sdf_version"
            | "original_version"
            | "console"
            | "resolve_errors"
            | "world_frame_orientation",
        ) => return,
        Some("raw_pose" | "pose_in_world") => {
            if theirs.is_null() {
                return; // libsdformat could not resolve it (listed in its resolve_errors).
            }
            let (a, b) = (numbers(ours), numbers(theirs));
            if !same_pose(&a, &b) {
                differ(format!("ours {a:?}, oracle {b:?}"));
            }
            return;
        }
        Some("magnetic_field") => {
            // SDF 1.9's default field differs from SDF 1.12's, which this reader uses.
            let (a, b) = (numbers(ours), numbers(theirs));
            if b == [6e-06, 2.3e-05, -4.2e-05] && a == [5.5645e-6, 22.8758e-6, -42.3884e-6] {
                return;
            }
        }
        Some(k @ ("lower" | "upper" | "effort" | "velocity")) => {
            let (a, b) = (limit(k, number(ours)), limit(k, number(theirs)));
            if !close(a, b) {
                differ(format!("ours {a}, oracle {b}"));
            }
            return;
        }
        Some("update_rate") => {
            let (a, b) = (number(ours), number(theirs).max(0.0));
            if !close(a, b) {
                differ(format!("ours {a}, oracle {b}"));
            }
            return;
        }
        // libsdformat 12 (SDF 1.9) knows neither <polyline> nor the <cone> of SDF 1.11 and
        // reports them as empty geometry.
        Some("geometry")
            if theirs["type"] == "empty"
                && matches!(ours["type"].as_str(), Some("cone" | "polyline")) =>
        {
            return;
        }
        Some("topic") if theirs == "__default__" => {
            if ours != "" {
                differ(format!("ours {ours}, oracle the default topic"));
            }
            return;
        }
        _ => {}
    }
    match (ours, theirs) {
        (_, Value::Null) => {}
        (Value::Object(a), Value::Object(b)) => {
            let continuous = b.get("type").and_then(Value::as_str) == Some("continuous");
            for (k, tv) in b {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match a.get(k) {
                    Some(_) if continuous && k.starts_with("axis") => {
                        // A continuous joint has no position limits, whatever is written.
                        if let (Some(oa), Some(ta)) = (a[k].as_object(), tv.as_object()) {
                            for (ak, av) in ta {
                                if matches!(ak.as_str(), "lower" | "upper") {
                                    continue;
                                }
                                let pa = format!("{p}.{ak}");
                                compare(out, &pa, oa.get(ak).unwrap_or(&Value::Null), av, Some(ak));
                            }
                        } else {
                            compare(out, &p, &a[k], tv, Some(k));
                        }
                    }
                    Some(ov) => compare(out, &p, ov, tv, Some(k)),
                    None if matches!(k.as_str(), "resolve_errors" | "console") => {}
                    None => out.push(Mismatch {
                        field: p,
                        detail: "missing in ours".into(),
                    }),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                let names = |v: &[Value]| -> Vec<String> {
                    v.iter()
                        .map(|x| {
                            x.get("name")
                                .and_then(Value::as_str)
                                .map_or_else(|| x.to_string(), str::to_string)
                        })
                        .collect()
                };
                differ(format!(
                    "{} in ours {:?}, {} in the oracle {:?}",
                    a.len(),
                    names(a),
                    b.len(),
                    names(b)
                ));
                return;
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                compare(out, &format!("{path}[{i}]"), x, y, key);
            }
        }
        (Value::Number(_) | Value::String(_), Value::Number(_))
        | (Value::Number(_), Value::String(_)) => {
            let (x, y) = (number(ours), number(theirs));
            if !(close(x, y) || (x.is_nan() && y.is_nan())) {
                differ(format!("ours {x}, oracle {y}"));
            }
        }
        (a, b) if a == b => {}
        (a, b) => differ(format!("ours {a}, oracle {b}")),
    }
}

/// The invalid files libsdformat 12.3 wrongly accepts (sdf-corpus README) are refused.
#[test]
fn files_libsdformat_12_wrongly_accepts_are_refused() {
    let Some(root) = corpus_dir() else { return };
    let options = corpus_options(&root);
    for (rel, words) in [
        (
            "invalid/sdformat/test/sdf/joint_axis_invalid_expressed_in.sdf",
            "expressed_in \"invalid\"",
        ),
        (
            "invalid/sdformat/test/sdf/world_joint_invalid_child_world.sdf",
            "the child cannot be `world`",
        ),
        (
            "invalid/sdformat/test/sdf/world_joint_invalid_resolved_parent_same_as_child.sdf",
            "are both link",
        ),
        (
            "invalid/sdformat/test/sdf/world_model_frame_same_name.sdf",
            "is used by a <model>",
        ),
    ] {
        match sdf::load_document_with(&root.join(rel), &options) {
            Ok(_) => panic!("{rel} is accepted"),
            Err(e) => assert!(e.message.contains(words), "{rel}: {}", e.render(None)),
        }
    }
}

/// The model files (root `<model>`) libsdformat rejects are refused by `check`'s path for
/// libsdformat's reason (the corpus MANIFEST's error code).
#[test]
fn invalid_model_files_are_refused_for_libsdformats_reason() {
    let Some(root) = corpus_dir() else { return };
    let options = corpus_options(&root);
    for (rel, code, words) in [
        (
            "invalid/sdformat/test/integration/cfm_damping_implicit_spring_damper.sdf",
            "RESERVED_NAME",
            "the name \"world\" is reserved",
        ),
        (
            "invalid/sdformat/test/sdf/material_normal_map_missing.sdf",
            "ELEMENT_MISSING",
            "needs a <normal_map>",
        ),
        (
            "invalid/sdformat/test/sdf/model_invalid_top_level_frame.sdf",
            "ELEMENT_INVALID",
            "top-level model is relative to \"some_frame\"",
        ),
    ] {
        let manifest = std::fs::read_to_string(root.join("MANIFEST.tsv")).unwrap();
        assert!(
            manifest
                .lines()
                .any(|l| l.starts_with(rel) && l.contains(code)),
            "{rel}: the corpus says {code}"
        );
        match sdf::load_document_with(&root.join(rel), &options)
            .and_then(sdf::Document::into_worlds)
        {
            Ok(_) => panic!("{rel} is accepted"),
            Err(e) => assert!(
                e.all().any(|one| one.message.contains(words)),
                "{rel}: {}",
                e.render(None)
            ),
        }
    }
}

/// Every corpus world the reader accepts is built in the physics engine and stepped: a world
/// that loads must never crash the engine (a build error is fine when it names its element).
#[test]
fn accepted_corpus_worlds_build_and_step() {
    let Some(root) = corpus_dir() else { return };
    let (outcomes, _) = load_all(&root);
    let mut built = 0;
    let mut problems = Vec::new();
    for o in &outcomes {
        let Ok(worlds) = &o.result else { continue };
        let r = catch_unwind(AssertUnwindSafe(|| {
            for world in worlds {
                let mut p = sim_core::physics::Physics::build(world)?;
                for _ in 0..20 {
                    p.step();
                }
            }
            Ok::<_, sim_core::physics::BuildError>(())
        }));
        match r {
            Ok(Ok(())) => built += 1,
            Ok(Err(e)) if e.span.line > 0 => {}
            Ok(Err(e)) => problems.push(format!("{}: build error without position: {e}", o.rel)),
            Err(_) => problems.push(format!("{}: the engine panicked", o.rel)),
        }
    }
    println!("built and stepped {built} corpus worlds");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(built > 150, "only {built} worlds built");
}

/// The corpus worlds with universal, revolute2, screw and gearbox joints or automatic inertia
/// build in rapier and step 1 s with every link staying finite and near where it started (none of them flies
/// apart); in `demo_joint_types.sdf` the screw joint keeps its pitch.
#[test]
fn worlds_with_every_joint_type_build_and_step() {
    let Some(root) = corpus_dir() else { return };
    let options = corpus_options(&root);
    for rel in [
        "valid/gz-sim/test/worlds/demo_joint_types.sdf",
        "valid/gz-sim/test/worlds/joint_sensor.sdf",
        "valid/sdformat/test/integration/nested_model_with_frames_expected.sdf",
        "valid/gz-sim/examples/worlds/auto_inertia_pendulum.sdf",
        "valid/gz-sim/examples/worlds/shapes.sdf",
    ] {
        let world = sdf::load_with(&root.join(rel), &options)
            .unwrap_or_else(|e| panic!("{rel}: {}", e.render(None)));
        let mut p =
            sim_core::physics::Physics::build(&world).unwrap_or_else(|e| panic!("{rel}: {e}"));
        fn names(prefix: &str, m: &sim_core::world::Model, out: &mut Vec<String>) {
            let scoped = format!("{prefix}{}", m.name);
            out.extend(m.links.iter().map(|l| format!("{scoped}::{}", l.name)));
            for n in &m.models {
                names(&format!("{scoped}::"), n, out);
            }
        }
        let mut scoped = Vec::new();
        for m in &world.models {
            names("", m, &mut scoped);
        }
        let links: Vec<_> = scoped.iter().map(|n| p.entity_id(n).unwrap()).collect();
        assert!(!links.is_empty(), "{rel}: no links");
        let start: Vec<_> = links
            .iter()
            .map(|&l| p.kinematics_of(l).unwrap().pose.position)
            .collect();
        for _ in 0..1000 {
            p.step();
        }
        for (l, s) in links.iter().zip(&start) {
            let now = p.kinematics_of(*l).unwrap().pose.position;
            assert!(
                now.x.is_finite() && now.y.is_finite() && now.z.is_finite(),
                "{rel}: {} is at {now:?}",
                p.scoped_name(*l).unwrap()
            );
            assert!(
                (now - *s).length() < 10.0,
                "{rel}: {} went from {s:?} to {now:?}",
                p.scoped_name(*l).unwrap()
            );
        }
        if rel.ends_with("demo_joint_types.sdf") {
            // <thread_pitch>20</thread_pitch>: -2pi/20 m per revolution.
            let screw = p.entity_id("demo_joint_types::screw_demo").unwrap();
            let base = p.entity_id("demo_joint_types::screw_base").unwrap();
            let thread = p.entity_id("demo_joint_types::screw_thread").unwrap();
            let rel_z = |p: &sim_core::physics::Physics| {
                let b = p.kinematics_of(base).unwrap().pose;
                let t = p.kinematics_of(thread).unwrap().pose;
                b.inverse().compose(t).position.z
            };
            let z0 = rel_z(&p);
            let angle0 = p.joint_state(screw).unwrap().position[0];
            let pose = p.kinematics_of(thread).unwrap().pose;
            // Turn it by hand: a spin about the axis (the way that lifts it off the ground it
            // rests on: its model does not self-collide, so it fell through its base), with
            // the lift the thread gives, then let the joint carry it.
            let spin = -50.0;
            let lift = -std::f64::consts::TAU / 20.0 * spin / std::f64::consts::TAU;
            p.apply(&sim_core::physics::PhysicsCommand::SetVelocity(
                thread,
                pose.orientation
                    .rotate(sim_core::world::Vec3::new(0.0, 0.0, lift)),
                pose.orientation
                    .rotate(sim_core::world::Vec3::new(0.0, 0.0, spin)),
            ))
            .unwrap();
            for _ in 0..200 {
                p.step();
            }
            let turned = p.joint_state(screw).unwrap().position[0] - angle0;
            let advanced = rel_z(&p) - z0;
            let pitch = -std::f64::consts::TAU / 20.0;
            // Most of the spin goes into the thread's travel (its mass times the lead squared
            // outweighs its moment about the axis).
            assert!(turned.abs() > 5e-3, "the screw turned: {turned}");
            let expected = pitch * turned / std::f64::consts::TAU;
            assert!(
                (advanced - expected).abs() < 0.02 * expected.abs(),
                "turned {turned} rad, advanced {advanced} m, expected {expected} m"
            );
        }
    }
}
