//! Benchmark helpers: the results table every bench figure is written to.

use std::path::{Path, PathBuf};

/// One benchmark figure beside its baseline.
#[derive(Clone, Debug)]
pub struct Row {
    /// What is measured.
    pub name: String,
    /// Its time per operation, ns.
    pub ns: f64,
    /// The baseline's name.
    pub baseline: String,
    /// The baseline's time per operation, ns.
    pub baseline_ns: f64,
    /// The goal, in words (empty: none, the figure is reported beside its baseline).
    pub goal: String,
    /// Whether the goal is met (ignored without a goal).
    pub met: bool,
    /// A derived figure (e.g. updates per second).
    pub note: String,
}

/// Writes the table as Markdown and JSON under `target` (`bench-results.md` / `.json`).
pub fn write_table(target: &Path, rows: &[Row]) -> std::io::Result<(PathBuf, PathBuf)> {
    write_named_table(target, "bench-results", rows)
}

/// Writes the table as Markdown and JSON under `target`, as `STEM.md` and `STEM.json`.
pub fn write_named_table(
    target: &Path,
    stem: &str,
    rows: &[Row],
) -> std::io::Result<(PathBuf, PathBuf)> {
    let mut md = String::from(
        "| benchmark | time/op | baseline | baseline time/op | ratio (baseline/bench) | figure | goal | met |\n|---|---|---|---|---|---|---|---|\n",
    );
    let mut json = Vec::new();
    for r in rows {
        let ratio = r.baseline_ns / r.ns;
        md.push_str(&format!(
            "| {} | {:.1} ns | {} | {:.1} ns | {:.3} | {} | {} | {} |\n",
            r.name,
            r.ns,
            r.baseline,
            r.baseline_ns,
            ratio,
            r.note,
            if r.goal.is_empty() {
                "none"
            } else {
                r.goal.as_str()
            },
            match (r.goal.is_empty(), r.met) {
                (true, _) => "-",
                (false, true) => "yes",
                (false, false) => "no",
            }
        ));
        let met = (!r.goal.is_empty()).then_some(r.met);
        json.push(serde_json::json!({
            "name": r.name, "ns_per_op": r.ns, "baseline": r.baseline, "baseline_ns_per_op": r.baseline_ns,
            "ratio": ratio, "figure": r.note, "goal": r.goal, "met": met,
        }));
    }
    let m = target.join(format!("{stem}.md"));
    let j = target.join(format!("{stem}.json"));
    std::fs::write(&m, md)?;
    std::fs::write(&j, serde_json::to_string_pretty(&json).unwrap_or_default())?;
    Ok((m, j))
}
