//! Files simcore writes into directories someone else may have filled (see
//! `docs/untrusted-input.md`, "What a world may write"): a symbolic link named like an output
//! folder, or standing at the name of a file simcore writes, must not send a write elsewhere.
//! Each test runs the real `simcore` binary, in a working directory with links in the way, for
//! each kind of output (camera frames, recordings, pictures, run summaries, new plugin
//! crates), and checks that the files the links point to are untouched and that the error
//! names the link.

use crate::common;

use common::{simcore_in, stage, stderr};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// A working directory, and a directory outside it holding a file `secret` ("keep").
struct Place {
    cwd: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let p = Place {
            cwd: tempfile::tempdir().unwrap(),
            outside: tempfile::tempdir().unwrap(),
        };
        std::fs::write(p.secret(), "keep").unwrap();
        p
    }

    fn at(&self, rel: &str) -> PathBuf {
        self.cwd.path().join(rel)
    }

    fn secret(&self) -> PathBuf {
        self.outside.path().join("secret")
    }

    /// A link at `rel` in the working directory to `target`.
    fn link(&self, rel: &str, target: &Path) {
        let at = self.at(rel);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        let _ = std::fs::remove_file(&at);
        symlink(target, at).unwrap();
    }

    /// Asserts that the directory outside holds `secret` and nothing else, unchanged.
    fn untouched(&self, what: &str) {
        assert_eq!(
            std::fs::read_to_string(self.secret()).unwrap(),
            "keep",
            "{what}"
        );
        let names: Vec<_> = std::fs::read_dir(self.outside.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["secret"], "{what}: written outside");
    }

    /// Runs `simcore` in the working directory.
    fn simcore(&self, args: &[&str]) -> std::process::Output {
        simcore_in(self.cwd.path(), args)
    }
}

/// `world.sdf` in `p`'s working directory: a static camera saving its frames to `save`.
fn camera_world(p: &Place, save: &str) -> PathBuf {
    let path = p.at("world.sdf");
    std::fs::write(
        &path,
        format!(
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"><world name=\"w\">\n\
             <model name=\"m\"><static>true</static><link name=\"l\">\n\
             <sensor name=\"cam\" type=\"camera\"><update_rate>10</update_rate><camera>\n\
             <image><width>8</width><height>6</height></image>\n\
             <save enabled=\"true\"><path>{save}</path></save></camera></sensor>\n\
             </link></model></world></sdf>\n"
        ),
    )
    .unwrap();
    path
}

/// Asserts that `out` failed, saying that `link` (relative to `p`'s working directory, or
/// absolute) is a symbolic link.
fn refused(out: &std::process::Output, link: &str, what: &str) {
    let err = stderr(out);
    assert!(!out.status.success(), "{what}: {err}");
    assert_ne!(out.status.code(), Some(101), "{what}: a panic: {err}");
    assert!(
        err.contains("symbolic link") && err.contains(link),
        "{what}: the error names {link}: {err}"
    );
}

/// The frame file the camera of [`camera_world`] writes first.
const FIRST_FRAME: &str = "m_l_cam_000000.png";

#[test]
fn camera_frames_are_never_written_through_a_link() {
    let libs = stage(&["simcore_plugin_camera"]);
    let plugins = libs.path().to_str().unwrap();
    let run = |p: &Place, save: &str| {
        camera_world(p, save);
        p.simcore(&[
            "run",
            "world.sdf",
            "--steps",
            "3",
            "--rtf",
            "0",
            "--plugin-path",
            plugins,
        ])
    };
    // The output folder is a link out: to a directory, or to a directory that is not there.
    let p = Place::new();
    p.link("frames", p.outside.path());
    refused(&run(&p, "frames"), "frames", "folder link");
    p.untouched("folder link");
    let p = Place::new();
    p.link("frames", &p.outside.path().join("new"));
    refused(&run(&p, "frames"), "frames", "dangling folder link");
    p.untouched("dangling folder link");
    // A link further up, or deeper, on the way.
    let p = Place::new();
    p.link("out", p.outside.path());
    refused(&run(&p, "out/frames"), "out", "link on the way");
    p.untouched("link on the way");
    let p = Place::new();
    std::fs::create_dir(p.at("data")).unwrap();
    p.link("data/frames", p.outside.path());
    refused(&run(&p, "data/frames/cam"), "frames", "deeper link");
    p.untouched("deeper link");
    // A link at a frame's name, to a file or to nothing: the sensor stops, with the reason.
    let p = Place::new();
    p.link(&format!("frames/{FIRST_FRAME}"), &p.secret());
    refused(&run(&p, "frames"), FIRST_FRAME, "link at a frame");
    p.untouched("link at a frame");
    let p = Place::new();
    p.link(
        &format!("frames/{FIRST_FRAME}"),
        &p.outside.path().join("made.png"),
    );
    refused(&run(&p, "frames"), FIRST_FRAME, "dangling link at a frame");
    p.untouched("dangling link at a frame");
    // A FIFO at a frame's name is refused, never opened (that would block).
    let p = Place::new();
    std::fs::create_dir(p.at("frames")).unwrap();
    if std::process::Command::new("mkfifo")
        .arg(p.at(&format!("frames/{FIRST_FRAME}")))
        .status()
        .is_ok_and(|s| s.success())
    {
        let out = run(&p, "frames");
        assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));
    }
    // A regular file there, even one sharing its data with a file outside (a hard link), is
    // replaced: the file outside keeps its data.
    let p = Place::new();
    std::fs::create_dir(p.at("frames")).unwrap();
    std::fs::hard_link(p.secret(), p.at(&format!("frames/{FIRST_FRAME}"))).unwrap();
    let out = run(&p, "frames");
    assert!(out.status.success(), "{}", stderr(&out));
    p.untouched("hard link at a frame");
    let frame = std::fs::read(p.at(&format!("frames/{FIRST_FRAME}"))).unwrap();
    assert!(frame.starts_with(b"\x89PNG"), "the frame was written");
    let names: Vec<String> = std::fs::read_dir(p.at("frames"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".png") && !n.starts_with('.')),
        "{names:?}"
    );
}

#[test]
fn recordings_summaries_and_pictures_are_never_written_through_a_link() {
    let libs = stage(&["simcore_plugin_camera"]);
    let plugins = libs.path().to_str().unwrap();
    let run = |p: &Place, extra: &[&str]| {
        camera_world(p, "frames");
        let mut args = vec![
            "run",
            "world.sdf",
            "--steps",
            "3",
            "--rtf",
            "0",
            "--plugin-path",
            plugins,
        ];
        args.extend_from_slice(extra);
        p.simcore(&args)
    };
    let render = |p: &Place, output: &str| {
        camera_world(p, "frames");
        p.simcore(&[
            "render",
            "world.sdf",
            "--size",
            "16x12",
            "--plugin-path",
            plugins,
            "-o",
            output,
        ])
    };
    type Attempt<'a> = Box<dyn Fn(&Place, &str) -> std::process::Output + 'a>;
    let kinds: [(&str, Attempt); 3] = [
        ("--record", Box::new(|p, f| run(p, &["--record", f]))),
        (
            "--summary-json",
            Box::new(|p, f| run(p, &["--summary-json", f])),
        ),
        ("render -o", Box::new(|p, f| render(p, f))),
    ];
    for (kind, attempt) in &kinds {
        // A link at the file's name, to a file or to nothing.
        let p = Place::new();
        p.link("out.bin", &p.secret());
        refused(&attempt(&p, "out.bin"), "out.bin", kind);
        p.untouched(kind);
        let p = Place::new();
        p.link("out.bin", &p.outside.path().join("made"));
        refused(&attempt(&p, "out.bin"), "out.bin", kind);
        p.untouched(kind);
        // A link on the way, relative or absolute.
        let p = Place::new();
        p.link("dir", p.outside.path());
        refused(&attempt(&p, "dir/out.bin"), "dir", kind);
        let absolute = p.at("dir/out.bin");
        refused(&attempt(&p, absolute.to_str().unwrap()), "dir", kind);
        p.untouched(kind);
        // A regular file is replaced.
        let p = Place::new();
        std::fs::write(p.at("out.bin"), "old").unwrap();
        let out = attempt(&p, "out.bin");
        assert!(out.status.success(), "{kind}: {}", stderr(&out));
        assert_ne!(std::fs::read(p.at("out.bin")).unwrap(), b"old", "{kind}");
    }
}

#[test]
fn new_plugin_crates_are_never_written_through_a_link() {
    // A link (even to nothing) where the crate goes, or as the directory it goes in.
    let p = Place::new();
    p.link("probe", &p.outside.path().join("probe"));
    let out = p.simcore(&["new-plugin", "probe", "--sensor"]);
    let err = stderr(&out);
    assert!(!out.status.success() && err.contains("probe"), "{err}");
    p.untouched("a link where the crate goes");
    let p = Place::new();
    p.link("plugins", p.outside.path());
    let out = p.simcore(&["new-plugin", "probe", "--system", "--dir", "plugins"]);
    refused(&out, "plugins", "a link as the directory");
    p.untouched("a link as the directory");
    // Without links, the crate is written.
    let p = Place::new();
    std::fs::create_dir(p.at("plugins")).unwrap();
    let out = p.simcore(&["new-plugin", "probe", "--system", "--dir", "plugins"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(p.at("plugins/probe/Cargo.toml").is_file());
}
