//! What the tests share: documents of a world, reading them expecting success or an error,
//! positions in a text, pose comparisons, and a directory of files for one test.

use std::path::PathBuf;

use crate::*;
use sim_world::{Link, Pose, Quat, World};

/// A document of version `version` whose world contains `body`.
pub(super) fn doc(version: &str, body: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<sdf version=\"{version}\">\n<world name=\"w\">\n{body}\n</world>\n</sdf>\n"
    )
}

#[track_caller]
pub(super) fn ok(text: &str) -> World {
    match parse_str(text, None) {
        Ok(w) => w,
        Err(e) => panic!("expected success:\n{}", e.render(None)),
    }
}

#[track_caller]
pub(super) fn ok_body(body: &str) -> World {
    ok(&doc("1.12", body))
}

#[track_caller]
pub(super) fn err(text: &str) -> SdfError {
    match parse_str(text, None) {
        Ok(w) => panic!("expected an error, got {w:#?}"),
        Err(e) => e,
    }
}

/// 1-based line and column of the `n`th (0-based) occurrence of `needle` in `text`.
#[track_caller]
pub(super) fn pos_of(text: &str, needle: &str, n: usize) -> (u32, u32) {
    let offset = text
        .match_indices(needle)
        .nth(n)
        .unwrap_or_else(|| panic!("{needle:?} not in the text"))
        .0;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line as u32, col as u32)
}

/// Asserts the error's kind, that it points at the first `needle`, and that its message
/// contains `words`.
#[track_caller]
pub(super) fn check(e: &SdfError, kind: ErrorKind, text: &str, needle: &str, words: &str) {
    check_nth(e, kind, text, needle, 0, words);
}

#[track_caller]
pub(super) fn check_nth(
    e: &SdfError,
    kind: ErrorKind,
    text: &str,
    needle: &str,
    n: usize,
    words: &str,
) {
    let report = e.render(None);
    assert_eq!(e.kind, kind, "{report}");
    assert_eq!(
        (e.line, e.column),
        pos_of(text, needle, n),
        "wrong position:\n{report}"
    );
    assert!(
        e.message.contains(words),
        "message lacks {words:?}:\n{report}"
    );
    assert!(!e.hint.is_empty(), "no hint:\n{report}");
}

/// The first link of the first model.
pub(super) fn link_of(w: &World) -> &Link {
    &w.models[0].links[0]
}

pub(super) fn model_with_link(link_body: &str) -> String {
    format!("<model name=\"m\"><link name=\"l\">\n{link_body}\n</link></model>")
}

pub(super) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[track_caller]
pub(super) fn assert_pose(p: &Pose, xyz: [f64; 3], q: Quat) {
    let a = p.orientation.to_matrix();
    let b = q.to_matrix();
    let same_rot = (0..3).all(|i| (0..3).all(|j| (a[i][j] - b[i][j]).abs() < 1e-9));
    let same_pos = p
        .position
        .to_array()
        .iter()
        .zip(xyz)
        .all(|(a, b)| close(*a, b));
    assert!(same_pos && same_rot, "pose {p:?} != {xyz:?} {q:?}");
}

/// Asserts that `text` fails with an error of `kind` at the first `needle` whose message
/// contains `words` (see [`check`]).
#[track_caller]
pub(super) fn refused(text: &str, kind: ErrorKind, needle: &str, words: &str) {
    check(&err(text), kind, text, needle, words);
}

/// [`refused`] at the `n`th (0-based) `needle`.
#[track_caller]
pub(super) fn refused_nth(text: &str, kind: ErrorKind, needle: &str, n: usize, words: &str) {
    check_nth(&err(text), kind, text, needle, n, words);
}

/// The 1-based line of the first line of `text` containing `needle`.
#[track_caller]
pub(super) fn line_of(text: &str, needle: &str) -> u32 {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in the text")) as u32
        + 1
}

/// Loads `text` from a file in a temporary directory, with its warnings.
pub(super) fn load_with_warnings(text: &str) -> (Result<Document, SdfError>, Vec<SdfError>) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("w.sdf");
    std::fs::write(&p, text).unwrap();
    load_document_with_warnings(&p, &LoadOptions::default())
}

pub(super) fn two_links(version: &str, joint: &str) -> String {
    doc(
        version,
        &format!("<model name='m'><link name='a'/><link name='b'/>\n{joint}\n</model>"),
    )
}

/// A directory of files for one test, removed with it.
pub(super) struct Files(tempfile::TempDir);

impl Files {
    /// A new empty directory.
    pub(super) fn new() -> Files {
        Files(tempfile::tempdir().expect("temp dir"))
    }

    /// The path of `rel` in the directory.
    pub(super) fn path(&self, rel: &str) -> PathBuf {
        self.0.path().join(rel)
    }

    /// Writes `text` at `rel` (creating directories).
    pub(super) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("dirs");
        std::fs::write(&p, text).expect("write");
        p
    }
}

/// Declares a type of directory for the tests of one file: a [`Files`] (which it derefs to)
/// with methods of its own, and `new()`.
macro_rules! files_dir {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        struct $name(Files);

        impl std::ops::Deref for $name {
            type Target = Files;

            fn deref(&self) -> &Files {
                &self.0
            }
        }

        impl $name {
            fn new() -> $name {
                $name(Files::new())
            }
        }
    };
}
pub(super) use files_dir;
