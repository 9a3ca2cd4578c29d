//! Writing files where their path says (camera frames, bounding-box samples): no write here
//! follows a symbolic link. The engine's `sim_core::files` holds the same rules, for the files
//! it writes; the two are kept in step (a plugin does not link the engine).
//!
//! - Every directory on the path, as written, is looked at before it is used: a link there is
//!   refused, naming it; [`create_dirs`] creates the missing ones (one at a time, never
//!   through a link), [`write_with`] wants them to exist.
//! - A file is written as a new, hidden file beside its name, created with `O_CREAT | O_EXCL`
//!   (which never follows a link), then renamed over the name: a regular file there is
//!   replaced whole, never written through; a link, a directory, a FIFO or a device there is
//!   refused, naming it.

use std::fs::{File, OpenOptions};
use std::io::{self, ErrorKind};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a file was not written: a sentence naming the path in question.
pub type WriteError = String;

fn io_error(path: &Path, e: io::Error) -> WriteError {
    format!("cannot write \"{}\": {e}", path.display())
}

fn link(path: &Path) -> WriteError {
    format!(
        "\"{}\" is a symbolic link; simcore never writes through one (name the directory it \
         points to instead, if that is where the files belong)",
        path.display()
    )
}

/// What the file type `t` is, in words, when it is neither a regular file nor a link.
fn kind_of(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

/// Creates the directory `dir` and those on its way that are missing, one at a time. Every
/// directory on the path as written (from the working directory for a relative path, from the
/// root for an absolute one) must be a directory, not a link to one.
pub fn create_dirs(dir: &Path) -> Result<(), WriteError> {
    walk(dir, true)
}

/// Checks that every directory on the path `dir` as written exists and is a directory, not a
/// link to one (as [`create_dirs`], creating none).
pub fn check_dirs(dir: &Path) -> Result<(), WriteError> {
    walk(dir, false)
}

fn walk(dir: &Path, create: bool) -> Result<(), WriteError> {
    let mut at = PathBuf::new();
    for c in dir.components() {
        at.push(c);
        if matches!(c, Component::Normal(_) | Component::ParentDir) {
            directory(&at, create)?;
        }
    }
    Ok(())
}

/// Makes sure `at` is a directory and not a link (creating it when missing and `create`).
fn directory(at: &Path, create: bool) -> Result<(), WriteError> {
    let look = || match std::fs::symlink_metadata(at) {
        Ok(m) if m.file_type().is_symlink() => Err(Some(link(at))),
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(Some(format!("\"{}\" is not a directory", at.display()))),
        Err(e) if e.kind() == ErrorKind::NotFound => Err(None),
        Err(e) => Err(Some(io_error(at, e))),
    };
    match look() {
        Ok(()) => Ok(()),
        Err(Some(e)) => Err(e),
        Err(None) if !create => Err(io_error(at, ErrorKind::NotFound.into())),
        Err(None) => match std::fs::create_dir(at) {
            Ok(()) => Ok(()),
            // Made meanwhile by someone else: look again.
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                look().map_err(|e| e.unwrap_or_else(|| io_error(at, ErrorKind::NotFound.into())))
            }
            Err(e) => Err(io_error(at, e)),
        },
    }
}

/// Writes the file `path` whole with `fill`, replacing a regular file there: the directories on
/// its way must exist ([`check_dirs`]), `fill` writes a new file beside it, which is then
/// renamed over it. A link, a directory, a FIFO or a device at `path` is refused, and so is a
/// link on its way; nothing is left behind when `fill` fails.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), WriteError> {
    let name = path.file_name().ok_or_else(|| {
        io_error(
            path,
            io::Error::new(ErrorKind::InvalidInput, "the path names no file"),
        )
    })?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    check_dirs(dir)?;
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => return Err(link(path)),
        Ok(m) if !m.is_file() => {
            return Err(format!(
                "\"{}\" is {}, not a regular file; simcore writes over regular files only",
                path.display(),
                kind_of(m.file_type())
            ));
        }
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(io_error(path, e)),
    }
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let short: String = name.to_string_lossy().chars().take(64).collect();
    let mut tries = 0;
    let (tmp, mut file) = loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{short}.{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => break (tmp, f),
            // Left by another process of the same id: take the next name.
            Err(e) if e.kind() == ErrorKind::AlreadyExists && tries < 100 => tries += 1,
            Err(e) => return Err(io_error(&tmp, e)),
        }
    };
    let written = fill(&mut file);
    drop(file);
    // A link put at `path` since it was looked at is replaced by the rename, not followed.
    let done = written.and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = done {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_error(path, e));
    }
    Ok(())
}

/// Writes `bytes` as the file `path`, as [`write_with`] does.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_with(path, |f| io::Write::write_all(f, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_are_refused_on_the_way_and_at_the_name() {
        let d = std::env::temp_dir().join(format!("simcore-files-{}", std::process::id()));
        let outside = d.join("outside");
        let inside = d.join("inside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(&inside).unwrap();
        let secret = outside.join("secret");
        std::fs::write(&secret, "keep").unwrap();
        symlink(&outside, inside.join("frames")).unwrap();
        symlink(&secret, inside.join("a.png")).unwrap();
        for (path, named) in [
            (inside.join("frames/a.png"), inside.join("frames")),
            (inside.join("frames/sub/a.png"), inside.join("frames")),
            (inside.join("a.png"), inside.join("a.png")),
        ] {
            let e = write(&path, b"x").unwrap_err();
            assert!(
                e.contains("symbolic link") && e.contains(&named.display().to_string()),
                "{e}"
            );
        }
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), "keep");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
        // A regular file is replaced; a directory at the name is refused.
        assert!(
            write(&inside.join("new/b.png"), b"1").is_err(),
            "no directory"
        );
        create_dirs(&inside.join("new")).unwrap();
        write(&inside.join("new/b.png"), b"1").unwrap();
        write(&inside.join("new/b.png"), b"2").unwrap();
        assert_eq!(std::fs::read(inside.join("new/b.png")).unwrap(), b"2");
        assert!(
            write(&inside.join("new"), b"x")
                .unwrap_err()
                .contains("a directory")
        );
        assert_eq!(std::fs::read_dir(inside.join("new")).unwrap().count(), 1);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
