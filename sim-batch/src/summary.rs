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

/// The type of a column: what every cell of it is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Int,
    Real,
    Flag,
}

impl Cell {
    fn kind(&self) -> Kind {
        match self {
            Cell::Text(_) => Kind::Text,
            Cell::Int(_) => Kind::Int,
            Cell::Real(_) => Kind::Real,
            Cell::Flag(_) => Kind::Flag,
        }
    }
}

/// One column: its name, its type (also when there are no rows) and its cells.
struct Column {
    name: String,
    kind: Kind,
    cells: Vec<Cell>,
}

/// The summary's columns, in order.
fn columns(rows: &[&Metrics], override_paths: &[String], check_names: &[String]) -> Vec<Column> {
    let mut cols: Vec<Column> = Vec::new();
    let mut add = |name: &str, kind: Kind, f: &dyn Fn(&Metrics) -> Cell| {
        let cells: Vec<Cell> = rows.iter().map(|m| f(m)).collect();
        debug_assert!(cells.iter().all(|c| c.kind() == kind));
        cols.push(Column {
            name: name.to_string(),
            kind,
            cells,
        });
    };
    add("run", Kind::Text, &|m| Cell::Text(Some(m.run.clone())));
    add("index", Kind::Int, &|m| Cell::Int(m.index as i64));
    add("world", Kind::Text, &|m| Cell::Text(Some(m.world.clone())));
    add("seed", Kind::Int, &|m| Cell::Int(m.seed as i64));
    for p in override_paths {
        add(p, Kind::Text, &|m| Cell::Text(m.overrides.get(p).cloned()));
    }
    add("status", Kind::Text, &|m| {
        Cell::Text(Some(m.status.name().into()))
    });
    add("steps", Kind::Int, &|m| Cell::Int(m.steps as i64));
    add("sim_time", Kind::Real, &|m| Cell::Real(m.sim_time));
    for c in check_names {
        add(c, Kind::Flag, &|m| {
            Cell::Flag(if m.status == Status::Error {
                None
            } else {
                m.checks.iter().find(|v| v.name == *c).map(|v| v.passed)
            })
        });
    }
    add("failures", Kind::Int, &|m| {
        Cell::Int(m.failures.len() as i64)
    });
    add("attempts", Kind::Int, &|m| Cell::Int(i64::from(m.attempts)));
    add("error", Kind::Text, &|m| Cell::Text(m.error.clone()));
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
    let header: Vec<String> = cols.iter().map(|c| csv_field(&c.name)).collect();
    writeln!(out, "{}", header.join(","))?;
    for r in 0..rows.len() {
        let line: Vec<String> = cols
            .iter()
            .map(|c| match &c.cells[r] {
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
pub fn write_parquet<W: Write + Send>(
    out: W,
    rows: &[&Metrics],
    override_paths: &[String],
    check_names: &[String],
) -> Result<(), parquet::errors::ParquetError> {
    let cols = columns(rows, override_paths, check_names);
    let fields = cols
        .iter()
        .map(|c| {
            let (physical, logical, repetition) = match c.kind {
                Kind::Int => (Physical::INT64, None, Repetition::REQUIRED),
                Kind::Real => (Physical::DOUBLE, None, Repetition::REQUIRED),
                Kind::Flag => (Physical::BOOLEAN, None, Repetition::OPTIONAL),
                Kind::Text => (
                    Physical::BYTE_ARRAY,
                    Some(LogicalType::String),
                    Repetition::OPTIONAL,
                ),
            };
            Type::primitive_type_builder(&c.name, physical)
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
        let cells = &cols[i].cells;
        match cols[i].kind {
            Kind::Int => {
                let v: Vec<i64> = cells
                    .iter()
                    .map(|c| if let Cell::Int(x) = c { *x } else { 0 })
                    .collect();
                col.typed::<Int64Type>().write_batch(&v, None, None)?;
            }
            Kind::Real => {
                let v: Vec<f64> = cells
                    .iter()
                    .map(|c| if let Cell::Real(x) = c { *x } else { 0.0 })
                    .collect();
                col.typed::<DoubleType>().write_batch(&v, None, None)?;
            }
            Kind::Flag => {
                let flags: Vec<Option<bool>> = cells
                    .iter()
                    .map(|c| if let Cell::Flag(f) = c { *f } else { None })
                    .collect();
                let defs: Vec<i16> = flags.iter().map(|f| i16::from(f.is_some())).collect();
                let v: Vec<bool> = flags.iter().flatten().copied().collect();
                col.typed::<BoolType>().write_batch(&v, Some(&defs), None)?;
            }
            Kind::Text => {
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

/// Writes `summary.csv` and `summary.parquet` into `dir` (each a new file renamed over an
/// earlier one, never written through a link: [`sim_files::write`]).
pub fn write(
    dir: &Path,
    rows: &[&Metrics],
    override_paths: &[String],
    check_names: &[String],
) -> Result<(), String> {
    let mut csv = Vec::new();
    write_csv(&mut csv, rows, override_paths, check_names).map_err(|e| e.to_string())?;
    sim_files::write(&dir.join("summary.csv"), &csv).map_err(|e| e.to_string())?;
    let mut table = Vec::new();
    write_parquet(&mut table, rows, override_paths, check_names).map_err(|e| {
        format!(
            "cannot write {}: {e}",
            dir.join("summary.parquet").display()
        )
    })?;
    sim_files::write(&dir.join("summary.parquet"), &table).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    /// A batch stopped before any run finished still has a table of the right column types.
    #[test]
    fn an_empty_summary_keeps_its_column_types() {
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(dir.path().join("s.parquet")).unwrap();
        write_parquet(file, &[], &["world/model[m]/pose".into()], &["c".into()]).unwrap();
        let file = std::fs::File::open(dir.path().join("s.parquet")).unwrap();
        let reader = SerializedFileReader::new(file).unwrap();
        let schema = reader.metadata().file_metadata().schema_descr();
        let kind = |name: &str| {
            (0..schema.num_columns())
                .map(|i| schema.column(i))
                .find(|c| c.name() == name)
                .unwrap()
                .physical_type()
        };
        assert_eq!(reader.metadata().file_metadata().num_rows(), 0);
        assert_eq!(kind("index"), Physical::INT64);
        assert_eq!(kind("sim_time"), Physical::DOUBLE);
        assert_eq!(kind("c"), Physical::BOOLEAN);
        assert_eq!(kind("world/model[m]/pose"), Physical::BYTE_ARRAY);
    }
}
