//! The summary of a batch: one row per finished run, as CSV (`summary.csv`) and Parquet
//! (`summary.parquet`), in the sweep's run order. Columns: `run`, `index`, `world`, `seed`,
//! one per override path (its value), `status`, `steps`, `sim_time`, one per check (passed:
//! true or false; empty when the run did not run), `failures` (plugins disabled), `attempts`,
//! `error`.

use super::run::{Metrics, Status};
use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// One cell.
enum Cell {
    Text(Option<String>),
    Int(i64),
    Real(f64),
    Flag(Option<bool>),
}

/// The summary's columns: (name, cells) in order.
fn columns(
    rows: &[&Metrics],
    override_paths: &[String],
    check_names: &[String],
) -> Vec<(String, Vec<Cell>)> {
    let mut cols: Vec<(String, Vec<Cell>)> = Vec::new();
    let mut add = |name: &str, f: &dyn Fn(&Metrics) -> Cell| {
        cols.push((name.to_string(), rows.iter().map(|m| f(m)).collect()));
    };
    add("run", &|m| Cell::Text(Some(m.run.clone())));
    add("index", &|m| Cell::Int(m.index as i64));
    add("world", &|m| Cell::Text(Some(m.world.clone())));
    add("seed", &|m| Cell::Int(m.seed as i64));
    for p in override_paths {
        add(p, &|m| Cell::Text(m.overrides.get(p).cloned()));
    }
    add("status", &|m| Cell::Text(Some(m.status.name().into())));
    add("steps", &|m| Cell::Int(m.steps as i64));
    add("sim_time", &|m| Cell::Real(m.sim_time));
    for c in check_names {
        add(c, &|m| {
            Cell::Flag(if m.status == Status::Error {
                None
            } else {
                m.checks.iter().find(|v| v.name == *c).map(|v| v.passed)
            })
        });
    }
    add("failures", &|m| Cell::Int(m.failures.len() as i64));
    add("attempts", &|m| Cell::Int(i64::from(m.attempts)));
    add("error", &|m| Cell::Text(m.error.clone()));
    cols
}

/// A CSV field, quoted when it needs to be (RFC 4180).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Writes the CSV summary of `rows` to `out`.
pub fn write_csv(
    out: &mut dyn Write,
    rows: &[&Metrics],
    override_paths: &[String],
    check_names: &[String],
) -> std::io::Result<()> {
    let cols = columns(rows, override_paths, check_names);
    let header: Vec<String> = cols.iter().map(|(n, _)| csv_field(n)).collect();
    writeln!(out, "{}", header.join(","))?;
    for r in 0..rows.len() {
        let line: Vec<String> = cols
            .iter()
            .map(|(_, cells)| match &cells[r] {
                Cell::Text(t) => csv_field(t.as_deref().unwrap_or("")),
                Cell::Int(i) => i.to_string(),
                Cell::Real(x) => format!("{x}"),
                Cell::Flag(f) => f.map_or(String::new(), |b| b.to_string()),
            })
            .collect();
        writeln!(out, "{}", line.join(","))?;
    }
    Ok(())
}

/// Writes the Parquet summary of `rows` to `out` (one row group, no compression).
pub fn write_parquet(
    out: std::fs::File,
    rows: &[&Metrics],
    override_paths: &[String],
    check_names: &[String],
) -> Result<(), parquet::errors::ParquetError> {
    let cols = columns(rows, override_paths, check_names);
    let fields = cols
        .iter()
        .map(|(name, cells)| {
            let (physical, logical, repetition) = match cells.first() {
                Some(Cell::Int(_)) => (Physical::INT64, None, Repetition::REQUIRED),
                Some(Cell::Real(_)) => (Physical::DOUBLE, None, Repetition::REQUIRED),
                Some(Cell::Flag(_)) => (Physical::BOOLEAN, None, Repetition::OPTIONAL),
                _ => (
                    Physical::BYTE_ARRAY,
                    Some(LogicalType::String),
                    Repetition::OPTIONAL,
                ),
            };
            Type::primitive_type_builder(name, physical)
                .with_logical_type(logical)
                .with_repetition(repetition)
                .build()
                .map(Arc::new)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let schema = Arc::new(
        Type::group_type_builder("summary")
            .with_fields(fields)
            .build()?,
    );
    let props = Arc::new(WriterProperties::builder().build());
    let mut writer = SerializedFileWriter::new(out, schema, props)?;
    let mut group = writer.next_row_group()?;
    let mut i = 0;
    while let Some(mut col) = group.next_column()? {
        let cells = &cols[i].1;
        match cells.first() {
            Some(Cell::Int(_)) => {
                let v: Vec<i64> = cells
                    .iter()
                    .map(|c| if let Cell::Int(x) = c { *x } else { 0 })
                    .collect();
                col.typed::<Int64Type>().write_batch(&v, None, None)?;
            }
            Some(Cell::Real(_)) => {
                let v: Vec<f64> = cells
                    .iter()
                    .map(|c| if let Cell::Real(x) = c { *x } else { 0.0 })
                    .collect();
                col.typed::<DoubleType>().write_batch(&v, None, None)?;
            }
            Some(Cell::Flag(_)) => {
                let flags: Vec<Option<bool>> = cells
                    .iter()
                    .map(|c| if let Cell::Flag(f) = c { *f } else { None })
                    .collect();
                let defs: Vec<i16> = flags.iter().map(|f| i16::from(f.is_some())).collect();
                let v: Vec<bool> = flags.iter().flatten().copied().collect();
                col.typed::<BoolType>().write_batch(&v, Some(&defs), None)?;
            }
            _ => {
                let texts: Vec<Option<&str>> = cells
                    .iter()
                    .map(|c| {
                        if let Cell::Text(t) = c {
                            t.as_deref()
                        } else {
                            None
                        }
                    })
                    .collect();
                let defs: Vec<i16> = texts.iter().map(|t| i16::from(t.is_some())).collect();
                let v: Vec<ByteArray> = texts
                    .iter()
                    .flatten()
                    .map(|t| ByteArray::from(*t))
                    .collect();
                col.typed::<ByteArrayType>()
                    .write_batch(&v, Some(&defs), None)?;
            }
        }
        col.close()?;
        i += 1;
    }
    group.close()?;
    writer.close()?;
    Ok(())
}

/// Writes `summary.csv` and `summary.parquet` into `dir` (replacing earlier ones through a
/// new file and a rename: never through a link).
pub fn write(
    dir: &Path,
    rows: &[&Metrics],
    override_paths: &[String],
    check_names: &[String],
) -> Result<(), String> {
    let mut csv = Vec::new();
    write_csv(&mut csv, rows, override_paths, check_names).map_err(|e| e.to_string())?;
    replace(dir, "summary.csv", |f| {
        let mut f = f;
        f.write_all(&csv).map_err(|e| e.to_string())
    })?;
    replace(dir, "summary.parquet", |f| {
        write_parquet(f, rows, override_paths, check_names).map_err(|e| e.to_string())
    })
}

/// Writes `dir/name` by writing a new temporary file beside it and renaming it over.
fn replace(
    dir: &Path,
    name: &str,
    write: impl FnOnce(std::fs::File) -> Result<(), String>,
) -> Result<(), String> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let _ = std::fs::remove_file(&tmp);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    write(f).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, dir.join(name))
        .map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()))
}
