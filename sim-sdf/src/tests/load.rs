//! Reading files: spans naming them, unreadable files and files that are not UTF-8.

use super::support::*;
use crate::*;
use std::path::Path;

#[test]
fn load_reads_a_file_and_spans_name_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("w.sdf");
    std::fs::write(
        &path,
        doc("1.9", "<model name='m'><link name='l'/></model>"),
    )
    .expect("write");
    let w = load(&path).expect("loads");
    assert_eq!(w.span.file.as_deref(), Some(&path));
    assert_eq!(w.models[0].links[0].span.file.as_deref(), Some(&path));
    assert_eq!(
        w.models[0].span.to_string(),
        format!("{}:4:1", path.display())
    );
    assert_eq!(w.models[0].links[0].span.line, 4);
    assert_eq!(w.models[0].links[0].span.column, 17);
}

#[test]
fn an_unreadable_file_is_an_error_naming_it() {
    let path = Path::new("no/such/dir/world.sdf");
    let e = load(path).expect_err("missing");
    assert_eq!(e.kind, ErrorKind::Io);
    assert_eq!(e.file.as_deref(), Some(path));
    assert_eq!((e.line, e.column), (0, 0));
    assert!(
        e.to_string()
            .starts_with("no/such/dir/world.sdf: cannot read the file"),
        "{e}"
    );
    let report = e.render(None);
    assert!(
        report.contains("--> no/such/dir/world.sdf\n") && report.contains("= help:"),
        "{report}"
    );
}

#[test]
fn a_file_that_is_not_utf8_is_an_error_with_its_position() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("latin1.sdf");
    std::fs::write(&path, b"<sdf version='1.6'>\n<world name='caf\xe9'/></sdf>").expect("write");
    let e = load(&path).expect_err("not utf-8");
    assert_eq!(e.kind, ErrorKind::Io);
    assert_eq!((e.line, e.column), (2, 17));
    assert!(e.message.contains("UTF-8"));
}
