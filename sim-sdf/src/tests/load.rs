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

#[test]
fn a_source_tree_is_the_nearest_checkout_or_package_short_of_home_and_the_root() {
    let t = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(t.path()).expect("canonical");
    let worlds = root.join("home/ws/src/pkg/worlds");
    std::fs::create_dir_all(&worlds).expect("dirs");
    std::fs::create_dir_all(root.join("home/.git")).expect("dirs");
    std::fs::create_dir_all(root.join("home/ws/src/.git")).expect("dirs");
    std::fs::write(root.join("home/ws/src/pkg/package.xml"), "<package/>").expect("write");
    let home = root.join("home");
    let tree = |dir: &Path, home: Option<&Path>| crate::load::project_root(dir, home);
    // The nearest marker wins: the ROS package inside the checkout.
    assert_eq!(
        tree(&worlds, Some(&home)),
        Some(root.join("home/ws/src/pkg"))
    );
    std::fs::remove_file(root.join("home/ws/src/pkg/package.xml")).expect("remove");
    assert_eq!(tree(&worlds, Some(&home)), Some(root.join("home/ws/src")));
    // A home kept in git never counts, nor anything above it.
    std::fs::remove_dir(root.join("home/ws/src/.git")).expect("remove");
    assert_eq!(tree(&worlds, Some(&home)), None);
    assert_eq!(tree(&worlds, None), Some(home.clone()));
    // A `.git` file (a worktree or a submodule) marks a checkout too.
    std::fs::write(root.join("home/ws/.git"), "gitdir: elsewhere").expect("write");
    assert_eq!(tree(&worlds, Some(&home)), Some(root.join("home/ws")));
}
