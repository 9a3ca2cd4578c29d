//! The crate table of `docs/architecture.md` held against the workspace's real dependency
//! graph (`cargo metadata`): each row's "stands on" column must name exactly the workspace
//! crates its manifest depends on (dev-dependencies aside), and every crate of the workspace
//! must have a row. The row `plugins/<name>/` stands for every plugin without a row of its
//! own: each of them may stand on what that row names, and on nothing else of the workspace.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The document that holds the table, from the workspace root.
pub const DOC: &str = "docs/architecture.md";

/// The section of [`DOC`] the table is in.
const SECTION: &str = "## Crates";

/// The first column of the row that stands for every plugin without a row of its own.
const EVERY_PLUGIN: &str = "plugins/<name>/";

/// One row of the table: where it is, the crate's folder, and the workspace crates named in
/// its "stands on" column.
#[derive(Debug, PartialEq)]
pub struct Row {
    /// 1-based line in the document.
    pub line: usize,
    /// The crate's folder from the workspace root, with a trailing `/`.
    pub dir: String,
    /// The crates it stands on.
    pub stands_on: BTreeSet<String>,
}

/// A workspace crate: its folder (from the root, with a trailing `/`) and the workspace
/// crates it depends on (not counting dev-dependencies).
#[derive(Debug, PartialEq)]
pub struct Package {
    /// The package's name.
    pub name: String,
    /// Its folder.
    pub dir: String,
    /// What it depends on in the workspace.
    pub deps: BTreeSet<String>,
}

/// The cells of a Markdown table row, `\|` kept inside a cell.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out.iter().map(|c| c.trim().to_string()).collect()
}

/// The `code spans` of a cell.
fn spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The rows of the crate table in `doc` (the text of [`DOC`]).
pub fn rows(doc: &str) -> Result<Vec<Row>, String> {
    let mut in_section = false;
    let mut rows = Vec::new();
    for (i, line) in doc.lines().enumerate() {
        if line.starts_with("## ") {
            in_section = line.trim() == SECTION;
            continue;
        }
        if !in_section || !line.trim_start().starts_with("| `") {
            continue;
        }
        let cells = cells(line);
        let [first, _, stands_on, ..] = &cells[..] else {
            return Err(format!("{DOC}:{}: a crate row needs four columns", i + 1));
        };
        let Some(dir) = spans(first).into_iter().next().filter(|d| d.ends_with('/')) else {
            return Err(format!(
                "{DOC}:{}: the first column must be the crate's folder in backquotes, ending in `/`",
                i + 1
            ));
        };
        rows.push(Row {
            line: i + 1,
            dir,
            stands_on: spans(stands_on).into_iter().collect(),
        });
    }
    if rows.is_empty() {
        return Err(format!("{DOC}: no crate table under `{SECTION}`"));
    }
    Ok(rows)
}

/// The workspace's crates, from `cargo metadata --no-deps --format-version 1` of the
/// workspace at `root`.
pub fn packages(metadata: &serde_json::Value, root: &Path) -> Result<Vec<Package>, String> {
    let list = metadata["packages"]
        .as_array()
        .ok_or("cargo metadata: no `packages`")?;
    let names: BTreeSet<&str> = list.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut out = Vec::new();
    for p in list {
        let name = p["name"]
            .as_str()
            .ok_or("cargo metadata: a package without a name")?;
        let manifest = Path::new(p["manifest_path"].as_str().unwrap_or_default());
        let dir = manifest
            .parent()
            .and_then(|d| d.strip_prefix(root).ok())
            .ok_or_else(|| format!("cargo metadata: {name} is outside {}", root.display()))?;
        let deps = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|d| names.contains(d))
            .map(str::to_string)
            .collect();
        out.push(Package {
            name: name.to_string(),
            dir: format!("{}/", dir.display()),
            deps,
        });
    }
    Ok(out)
}

/// Each difference between the table's `rows` and the real `packages`, as a line that says
/// where and what to change.
pub fn differences(rows: &[Row], packages: &[Package]) -> Vec<String> {
    let by_dir: BTreeMap<&str, &Package> = packages.iter().map(|p| (p.dir.as_str(), p)).collect();
    let mut problems = Vec::new();
    let list = |s: &BTreeSet<String>| {
        if s.is_empty() {
            "nothing".to_string()
        } else {
            s.iter().cloned().collect::<Vec<_>>().join(", ")
        }
    };
    for row in rows {
        if row.dir == EVERY_PLUGIN {
            continue;
        }
        let Some(p) = by_dir.get(row.dir.as_str()) else {
            problems.push(format!(
                "{DOC}:{}: `{}` is no crate of the workspace: remove the row or fix the folder",
                row.line, row.dir
            ));
            continue;
        };
        if row.stands_on != p.deps {
            problems.push(format!(
                "{DOC}:{}: `{}` ({}) is said to stand on {}, but its Cargo.toml depends on {}: \
                 make the row say what the manifest does, or the manifest what the row says",
                row.line,
                row.dir,
                p.name,
                list(&row.stands_on),
                list(&p.deps)
            ));
        }
    }
    let plugins = rows.iter().find(|r| r.dir == EVERY_PLUGIN);
    for p in packages {
        if rows.iter().any(|r| r.dir == p.dir) {
            continue;
        }
        match plugins {
            Some(row) if p.dir.starts_with("plugins/") => {
                let beyond: BTreeSet<String> = p.deps.difference(&row.stands_on).cloned().collect();
                if !beyond.is_empty() {
                    problems.push(format!(
                        "{DOC}:{}: the plugin {} ({}) stands on {}, which the `{EVERY_PLUGIN}` \
                         row does not name: add it there, or give the plugin a row",
                        row.line,
                        p.name,
                        p.dir,
                        list(&beyond)
                    ));
                }
            }
            _ => problems.push(format!(
                "{DOC}: the crate {} (`{}`) has no row in the table under `{SECTION}`: add one",
                p.name, p.dir
            )),
        }
    }
    problems
}

/// Checks the table of the workspace at `root` against `cargo metadata`'s graph.
pub fn check(root: &Path, metadata: &serde_json::Value) -> Result<(), String> {
    let path = root.join(DOC);
    let doc = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let problems = differences(&rows(&doc)?, &packages(metadata, root)?);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the crate table is not the workspace's graph:\n{}",
            problems.join("\n")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    const DOC_TEXT: &str = "# A\n\n## Crates\n\n| crate | what | stands on | also |\n|---|---|---|---|\n\
        | `low/` | the ground | — | serde |\n\
        | `high/` | a \\| b | `low`, `mid` | |\n\
        | `plugins/<name>/` | plugins | `low` | |\n\n## Later\n\n| `elsewhere/` | x | `low` | |\n";

    #[test]
    fn rows_are_read_from_the_crates_section_only() {
        let rows = rows(DOC_TEXT).unwrap();
        assert_eq!(
            rows,
            [
                Row {
                    line: 7,
                    dir: "low/".into(),
                    stands_on: set(&[])
                },
                Row {
                    line: 8,
                    dir: "high/".into(),
                    stands_on: set(&["low", "mid"])
                },
                Row {
                    line: 9,
                    dir: "plugins/<name>/".into(),
                    stands_on: set(&["low"])
                },
            ]
        );
    }

    #[test]
    fn every_difference_is_named() {
        let package = |name: &str, dir: &str, deps: &[&str]| Package {
            name: name.into(),
            dir: dir.into(),
            deps: set(deps),
        };
        let rows = rows(DOC_TEXT).unwrap();
        let same = [
            package("low", "low/", &[]),
            package("high", "high/", &["low", "mid"]),
            package("mid", "plugins/mid/", &["low"]),
        ];
        assert_eq!(differences(&rows, &same), Vec::<String>::new());
        let changed = [
            package("low", "low/", &[]),
            package("high", "high/", &["low"]),
            package("mid", "plugins/mid/", &["low", "high"]),
            package("new", "new/", &[]),
        ];
        let found = differences(&rows, &changed);
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(found[0].contains(":8: `high/` (high) is said to stand on low, mid"));
        assert!(found[0].contains("depends on low:"));
        assert!(found[1].contains("the plugin mid (plugins/mid/) stands on high"));
        assert!(found[2].contains("the crate new (`new/`) has no row"));
    }

    #[test]
    fn the_architecture_table_is_the_workspace_graph() {
        let root = crate::root();
        check(&root, &crate::metadata().unwrap()).unwrap();
    }
}
