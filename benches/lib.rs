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

/// The options of criterion's command line that take a value (so the value is no filter).
const VALUED: &[&str] = &[
    "--save-baseline",
    "--baseline",
    "--baseline-lenient",
    "--load-baseline",
    "--measurement-time",
    "--warm-up-time",
    "--sample-size",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--profile-time",
    "--output-format",
    "--color",
    "--plotting-backend",
    "--format",
    "-c",
];

/// Whether the benchmark `id` is selected by the bench binary's command line (criterion's
/// filter, the first argument that is neither an option nor an option's value): see
/// [`selected_by`]. For what a bench measures outside criterion's `bench_function`, which
/// criterion's own filter does not reach.
pub fn selected(id: &str) -> bool {
    selected_by(std::env::args().skip(1), id)
}

/// Whether the benchmark `id` is selected by the command line `args` (without the program):
/// when there is no filter, or one of the filter's `|`-separated alternatives is a part of
/// `id` (criterion's filter, for plain words).
pub fn selected_by(args: impl IntoIterator<Item = String>, id: &str) -> bool {
    let mut args = args.into_iter();
    let mut filter = None;
    while let Some(a) = args.next() {
        if VALUED.contains(&a.as_str()) {
            args.next();
        } else if !a.starts_with('-') {
            filter = Some(a);
            break;
        }
    }
    filter.is_none_or(|f| f.split('|').any(|p| id.contains(p)))
}

#[cfg(test)]
mod tests {
    use super::selected_by;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_filter_is_the_first_word_that_is_no_option_value() {
        let id = "sdf/valid_corpus_inspect_vs_libsdformat";
        assert!(selected_by(args(&["--bench"]), id), "no filter");
        assert!(selected_by(args(&["--bench", "sdf"]), id));
        assert!(selected_by(args(&["--bench", "transport|libsdformat"]), id));
        assert!(!selected_by(args(&["--bench", "transport"]), id));
        assert!(!selected_by(args(&["--bench", "parse_resolve_build"]), id));
        assert!(
            selected_by(args(&["--sample-size", "10"]), id),
            "10 is the option's value, not a filter"
        );
        assert!(!selected_by(args(&["--sample-size", "10", "record"]), id));
    }
}
