//! The sweep file: worlds × seeds × override values, a run length and checks, read and
//! checked whole before anything runs, and expanded into one [`RunSpec`] per run.

use super::checks::Check;
use serde::{Deserialize, Serialize};
use sim_sdf::overrides::Override;
use std::collections::BTreeSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The largest sweep file read (1 MiB).
pub const MAX_SWEEP_BYTES: u64 = 1 << 20;
/// The most runs a sweep may expand to.
pub const MAX_RUNS: usize = 100_000;
/// The most worlds, seeds or values of one override a sweep may list.
pub const MAX_AXIS: usize = 10_000;
/// The most overrides (axes) and the most checks of a sweep.
pub const MAX_ITEMS: usize = 64;
/// The longest run, in sim seconds.
pub const MAX_DURATION: f64 = 86_400.0;
/// The most sensor threads of one run.
pub const MAX_THREADS: usize = 256;
/// The most times a run whose worker died is tried again.
pub const MAX_RETRIES: u32 = 10;

/// A sweep file as written (see `docs/batch.md`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    name: Option<String>,
    worlds: Spanned<Vec<String>>,
    #[serde(default)]
    seeds: Option<Spanned<Seeds>>,
    duration: Option<Spanned<f64>>,
    steps: Option<Spanned<u64>>,
    #[serde(default = "one")]
    threads: Spanned<usize>,
    #[serde(default)]
    record: bool,
    #[serde(default)]
    record_topics: Vec<String>,
    #[serde(default = "one_retry")]
    retries: Spanned<u32>,
    #[serde(default)]
    plugin_path: Vec<String>,
    #[serde(default, rename = "override")]
    overrides: Vec<Spanned<Axis>>,
    #[serde(default, rename = "check")]
    checks: Vec<Spanned<Check>>,
}

fn one() -> Spanned<usize> {
    Spanned::new(0..0, 1)
}

fn one_retry() -> Spanned<u32> {
    Spanned::new(0..0, 1)
}

/// The seeds: a list, or `{ first = 0, count = 100 }`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Seeds {
    List(Vec<u64>),
    Range { first: u64, count: u64 },
}

/// One override axis: the values an SDF path takes, one per run of the product.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Axis {
    path: String,
    values: Vec<toml::Value>,
}

/// How long each run lasts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Length {
    /// Sim seconds.
    Duration(f64),
    /// Steps.
    Steps(u64),
}

impl Length {
    /// The sim time a run of this length ends at, in seconds (infinite for steps: the step
    /// size is the world's).
    pub fn end(self) -> f64 {
        match self {
            Length::Duration(d) => d,
            Length::Steps(_) => f64::INFINITY,
        }
    }
}

/// A sweep read and checked.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// Its name (the file's stem unless it says).
    pub name: String,
    /// The sweep file.
    pub file: PathBuf,
    /// The runs, in order.
    pub runs: Vec<RunSpec>,
    /// The override paths (the summary's columns), in order.
    pub override_paths: Vec<String>,
    /// The check names (the summary's columns), in order.
    pub check_names: Vec<String>,
    /// How often a run whose worker died is tried again.
    pub retries: u32,
}

/// One run of a sweep: everything a worker needs, and nothing of the machine it runs on
/// but the paths it reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// Its position in the sweep.
    pub index: usize,
    /// Its id, the name of its folder (`r00042`).
    pub id: String,
    /// The world as the sweep file names it (written in the results).
    pub world: String,
    /// The world file to read.
    pub world_path: PathBuf,
    /// The run seed.
    pub seed: u64,
    /// The overrides of this run, one per axis.
    pub overrides: Vec<(String, String)>,
    /// How long it runs.
    pub length: Length,
    /// Sensor threads.
    pub threads: usize,
    /// Whether to record an MCAP (`run.mcap`).
    pub record: bool,
    /// The topics recorded (empty: all).
    pub record_topics: Vec<String>,
    /// Plugin directories searched before the standard path.
    pub plugin_path: Vec<PathBuf>,
    /// The checks.
    pub checks: Vec<Check>,
}

impl RunSpec {
    /// The overrides as the SDF reader takes them.
    pub fn sdf_overrides(&self) -> Vec<Override> {
        self.overrides
            .iter()
            .map(|(p, v)| Override::new(p.clone(), v.clone()))
            .collect()
    }
}

/// Why a sweep file was refused: the file, the line and what to do.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct SweepError {
    /// The sweep file.
    pub file: PathBuf,
    /// The line (1-based; 0 when the file could not be read).
    pub line: usize,
    /// What is wrong and what to do.
    pub message: String,
}

/// Reads and checks the sweep file at `path`, and expands it into its runs: worlds × seeds ×
/// every override's values, in that order (the last override varies fastest). Worlds and
/// plugin directories are relative to the sweep file. Every world must exist; every size
/// is bounded.
pub fn read(path: &Path) -> Result<Sweep, SweepError> {
    let fail = |line, message: String| SweepError {
        file: path.to_path_buf(),
        line,
        message,
    };
    let text = sim_world::input::read_regular_text(path, MAX_SWEEP_BYTES)
        .map_err(|e| fail(0, format!("cannot read the sweep file: {e}")))?;
    parse(&text, path)
}

/// [`read`] on text already read (`file` names it in errors and anchors relative paths).
pub fn parse(text: &str, file: &Path) -> Result<Sweep, SweepError> {
    let line_of = |span: Range<usize>| {
        text.as_bytes()[..span.start.min(text.len())]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1
    };
    let fail = |span: Range<usize>, message: String| SweepError {
        file: file.to_path_buf(),
        line: if span == (0..0) { 1 } else { line_of(span) },
        message,
    };
    let f: SweepFile = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(1, line_of);
        SweepError {
            file: file.to_path_buf(),
            line,
            message: e.message().to_string(),
        }
    })?;
    let base = file.parent().unwrap_or(Path::new("."));

    let worlds_span = f.worlds.span();
    let worlds = f.worlds.into_inner();
    if worlds.is_empty() || worlds.len() > MAX_AXIS {
        return Err(fail(
            worlds_span,
            format!("`worlds` lists 1 to {MAX_AXIS} world files"),
        ));
    }
    let mut world_paths = Vec::with_capacity(worlds.len());
    for w in &worlds {
        let p = base.join(w);
        if !p.is_file() {
            return Err(fail(
                worlds_span.clone(),
                format!(
                    "world `{w}` is not a file (worlds are relative to the sweep file: {})",
                    p.display()
                ),
            ));
        }
        world_paths.push(p);
    }

    let seeds: Vec<u64> = match f.seeds {
        None => vec![0],
        Some(s) => {
            let span = s.span();
            match s.into_inner() {
                Seeds::List(v) if !v.is_empty() && v.len() <= MAX_AXIS => v,
                Seeds::Range { first, count } if count >= 1 && count as usize <= MAX_AXIS => {
                    let Some(last) = first.checked_add(count - 1) else {
                        return Err(fail(span, "`seeds` runs past the largest seed".into()));
                    };
                    (first..=last).collect()
                }
                _ => {
                    return Err(fail(
                        span,
                        format!(
                            "`seeds` is a list of 1 to {MAX_AXIS} seeds, or {{ first = N, count = M }} with M from 1 to {MAX_AXIS}"
                        ),
                    ));
                }
            }
        }
    };

    let length = match (f.duration, f.steps) {
        (Some(d), None) => {
            let v = *d.get_ref();
            if !(v.is_finite() && v > 0.0 && v <= MAX_DURATION) {
                return Err(fail(
                    d.span(),
                    format!(
                        "`duration` is a number of sim seconds above 0 and at most {MAX_DURATION}, got {v}"
                    ),
                ));
            }
            Length::Duration(v)
        }
        (None, Some(n)) => {
            let v = *n.get_ref();
            if v == 0 || v > 1_000_000_000 {
                return Err(fail(
                    n.span(),
                    "`steps` is a number of steps from 1 to 1,000,000,000".into(),
                ));
            }
            Length::Steps(v)
        }
        (Some(d), Some(_)) => {
            return Err(fail(
                d.span(),
                "give `duration` (sim seconds) or `steps`, not both".into(),
            ));
        }
        (None, None) => {
            return Err(fail(
                0..0,
                "the sweep needs a run length: `duration = SECONDS` or `steps = N`".into(),
            ));
        }
    };

    let threads = *f.threads.get_ref();
    if threads == 0 || threads > MAX_THREADS {
        return Err(fail(
            f.threads.span(),
            format!("`threads` is from 1 to {MAX_THREADS}"),
        ));
    }
    let retries = *f.retries.get_ref();
    if retries > MAX_RETRIES {
        return Err(fail(
            f.retries.span(),
            format!("`retries` is at most {MAX_RETRIES}"),
        ));
    }
    for t in &f.record_topics {
        sim_transport::validate_topic(t)
            .map_err(|e| fail(0..0, format!("record_topics: `{t}`: {e}")))?;
    }

    if f.overrides.len() > MAX_ITEMS {
        return Err(fail(
            f.overrides[MAX_ITEMS].span(),
            format!("at most {MAX_ITEMS} [[override]] tables"),
        ));
    }
    let mut axes: Vec<(String, Vec<String>)> = Vec::new();
    for a in &f.overrides {
        let span = a.span();
        let axis = a.get_ref();
        if axis.values.is_empty() || axis.values.len() > MAX_AXIS {
            return Err(fail(
                span,
                format!(
                    "override `{}`: `values` lists 1 to {MAX_AXIS} values",
                    axis.path
                ),
            ));
        }
        if axes.iter().any(|(p, _)| *p == axis.path) {
            return Err(fail(
                span,
                format!("override `{}` is given twice", axis.path),
            ));
        }
        let mut values = Vec::with_capacity(axis.values.len());
        for v in &axis.values {
            values.push(match v {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(x) if x.is_finite() => format!("{x}"),
                toml::Value::Boolean(b) => b.to_string(),
                toml::Value::Array(a) if a.iter().all(|x| x.is_float() || x.is_integer()) => a
                    .iter()
                    .map(|x| x.as_float().unwrap_or_else(|| x.as_integer().unwrap_or(0) as f64))
                    .map(|x| format!("{x}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                other => {
                    return Err(fail(
                        span,
                        format!(
                            "override `{}`: the value {other} is not a string, a number, a boolean or a list of numbers",
                            axis.path
                        ),
                    ));
                }
            });
        }
        // The path must reach something in every world before anything runs.
        for (w, p) in worlds.iter().zip(&world_paths) {
            check_override(p, &axis.path, &values[0]).map_err(|e| {
                fail(
                    span.clone(),
                    format!("override `{}` in world `{w}`: {e}", axis.path),
                )
            })?;
        }
        axes.push((axis.path.clone(), values));
    }

    if f.checks.len() > MAX_ITEMS {
        return Err(fail(
            f.checks[MAX_ITEMS].span(),
            format!("at most {MAX_ITEMS} [[check]] tables"),
        ));
    }
    let mut names = BTreeSet::new();
    let mut checks = Vec::with_capacity(f.checks.len());
    for c in &f.checks {
        let check = c.get_ref().clone();
        check
            .validate(length.end())
            .map_err(|m| fail(c.span(), format!("check `{}`: {m}", check.name)))?;
        if !names.insert(check.name.clone()) {
            return Err(fail(
                c.span(),
                format!("two checks are named `{}`", check.name),
            ));
        }
        checks.push(check);
    }

    let mut total: usize = worlds.len() * seeds.len();
    for (p, v) in &axes {
        total = total
            .checked_mul(v.len())
            .filter(|t| *t <= MAX_RUNS)
            .ok_or_else(|| {
                fail(
                    0..0,
                    format!(
                        "the sweep expands to more than {MAX_RUNS} runs (at the override `{p}`)"
                    ),
                )
            })?;
    }
    if total > MAX_RUNS {
        return Err(fail(
            0..0,
            format!("the sweep expands to {total} runs; at most {MAX_RUNS}"),
        ));
    }

    let plugin_path: Vec<PathBuf> = f.plugin_path.iter().map(|p| base.join(p)).collect();
    let mut runs = Vec::with_capacity(total);
    for (w, wp) in worlds.iter().zip(&world_paths) {
        for &seed in &seeds {
            let combos = axes.iter().map(|(_, v)| v.len()).product::<usize>();
            for combo in 0..combos {
                let mut rest = combo;
                let mut overrides = vec![(String::new(), String::new()); axes.len()];
                for (i, (p, v)) in axes.iter().enumerate().rev() {
                    overrides[i] = (p.clone(), v[rest % v.len()].clone());
                    rest /= v.len();
                }
                let index = runs.len();
                runs.push(RunSpec {
                    index,
                    id: format!("r{index:05}"),
                    world: w.clone(),
                    world_path: wp.clone(),
                    seed,
                    overrides,
                    length,
                    threads,
                    record: f.record,
                    record_topics: f.record_topics.clone(),
                    plugin_path: plugin_path.clone(),
                    checks: checks.clone(),
                });
            }
        }
    }
    let name = f.name.unwrap_or_else(|| {
        file.file_stem()
            .map_or("sweep".into(), |s| s.to_string_lossy().into_owned())
    });
    Ok(Sweep {
        name,
        file: file.to_path_buf(),
        runs,
        override_paths: axes.into_iter().map(|(p, _)| p).collect(),
        check_names: checks.iter().map(|c| c.name.clone()).collect(),
        retries,
    })
}

/// Whether `path` reaches an element or attribute of the world file at `world`, or of a
/// file it includes (found as a run finds it, with the default load options).
fn check_override(world: &Path, path: &str, value: &str) -> Result<(), String> {
    sim_sdf::overrides::check(
        world,
        &sim_sdf::LoadOptions::default(),
        &[Override::new(path, value)],
    )
    .map_err(|e| e.to_string())
}
