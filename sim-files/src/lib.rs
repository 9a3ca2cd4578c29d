//! # sim-files: how simcore writes files
//!
//! Writing files where their path says, whatever a directory holds: the one way simcore
//! writes a file (recordings, pictures, run summaries, new plugin crates).
//!
//! A directory simcore writes into may have come from someone else (an unpacked bundle, a
//! shared working directory), and a symbolic link there would send a write elsewhere: a link
//! named like the output folder sends every file out of it, a link at a file's name has the
//! file it points to overwritten. So no write here follows a link:
//!
//! - every directory on the path, as written, is looked at before it is used: a link there is
//!   refused, naming it; [`create_dirs`] creates the missing ones (one at a time, never
//!   through a link), the writes want them to exist;
//! - a file is created with `O_CREAT | O_EXCL` (`create_new`), which never follows a link at
//!   its name, nor opens what stands there;
//! - a link, a directory, a FIFO or a device at the file's name is refused, naming it; a
//!   regular file there is replaced, never written through: [`write()`] and [`write_with`] write
//!   a new file beside it and rename it over (readers see the old file or the new one, never
//!   half of one), [`create`] removes the name and creates the file afresh; [`create_new`]
//!   refuses it.
//!
//! The policy a user reads is `docs/untrusted-input.md`. The engine, its front ends and the
//! plugins that write files (camera frames, through `simcore_plugin_common::files`) all
//! write through this crate; it needs nothing but the standard library.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, ErrorKind};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a file was not written. Each names the path in question.
#[derive(Debug)]
pub enum WriteError {
    /// A symbolic link stands at `path`: the file's name, or a directory on its way.
    Link {
        /// The link.
        path: PathBuf,
    },
    /// Something other than a directory stands where the path needs one.
    NotDirectory {
        /// What stands there.
        path: PathBuf,
    },
    /// Something other than a regular file (a directory, a FIFO, a device, a socket) stands at
    /// the file's name.
    NotRegular {
        /// The file's name.
        path: PathBuf,
        /// What stands there, in words.
        kind: &'static str,
    },
    /// The file exists, and is written only when new ([`create_new`]).
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// The file system refused.
    Io {
        /// What was being written or created.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
}

impl WriteError {
    /// The path the error names.
    pub fn path(&self) -> &Path {
        match self {
            WriteError::Link { path }
            | WriteError::NotDirectory { path }
            | WriteError::NotRegular { path, .. }
            | WriteError::Exists { path }
            | WriteError::Io { path, .. } => path,
        }
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Link { path } => write!(
                f,
                "\"{}\" is a symbolic link; simcore never writes through one (name the \
                 directory it points to instead, if that is where the file belongs)",
                path.display()
            ),
            WriteError::NotDirectory { path } => {
                write!(f, "\"{}\" is not a directory", path.display())
            }
            WriteError::NotRegular { path, kind } => write!(
                f,
                "\"{}\" is {kind}, not a regular file; simcore writes over regular files only",
                path.display()
            ),
            WriteError::Exists { path } => write!(
                f,
                "\"{}\" already exists; it is never written over",
                path.display()
            ),
            WriteError::Io { path, error } => {
                write!(f, "cannot write \"{}\": {error}", path.display())
            }
        }
    }
}

impl std::error::Error for WriteError {}

impl From<WriteError> for io::Error {
    fn from(e: WriteError) -> io::Error {
        let kind = match &e {
            WriteError::Io { error, .. } => error.kind(),
            WriteError::Exists { .. } => ErrorKind::AlreadyExists,
            _ => ErrorKind::InvalidInput,
        };
        io::Error::new(kind, e.to_string())
    }
}

fn io_error(path: &Path, error: io::Error) -> WriteError {
    WriteError::Io {
        path: path.to_path_buf(),
        error,
    }
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
        Ok(m) if m.file_type().is_symlink() => Err(Some(WriteError::Link {
            path: at.to_path_buf(),
        })),
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(Some(WriteError::NotDirectory {
            path: at.to_path_buf(),
        })),
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

/// The directory `path` is in (`.` for a bare name) and its file name.
fn split(path: &Path) -> Result<(&Path, &std::ffi::OsStr), WriteError> {
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
    Ok((dir, name))
}

/// Whether a regular file stands at `path` (false: nothing does); anything else there is an
/// error.
fn existing_file(path: &Path) -> Result<bool, WriteError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(WriteError::Link {
            path: path.to_path_buf(),
        }),
        Ok(m) if m.is_file() => Ok(true),
        Ok(m) => Err(WriteError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_of(m.file_type()),
        }),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error(path, e)),
    }
}

/// Creates the file `path`, which must not exist (`O_CREAT | O_EXCL`: a link there is never
/// followed).
fn open_new(path: &Path) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

/// A new, hidden temporary file in `dir` for the file `name`.
fn temp_in(dir: &Path, name: &std::ffi::OsStr) -> Result<(PathBuf, File), WriteError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = name.to_string_lossy();
    let short: String = name.chars().take(64).collect();
    let mut tries = 0;
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{short}.{}-{n}.tmp", std::process::id()));
        match open_new(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            // Left by another process of the same id: take the next name.
            Err(e) if e.kind() == ErrorKind::AlreadyExists && tries < 100 => tries += 1,
            Err(e) => return Err(io_error(&tmp, e)),
        }
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
    let (dir, name) = split(path)?;
    check_dirs(dir)?;
    existing_file(path)?;
    let (tmp, mut file) = temp_in(dir, name)?;
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

/// Creates the file `path` for writing as it goes (a recording): the directories on its way
/// must exist ([`check_dirs`]); a regular file there is removed first (its name only: a
/// file it shares its data with is untouched), then the file is created anew. A link, a
/// directory, a FIFO or a device at `path` is refused, and so is a link on its way.
pub fn create(path: &Path) -> Result<File, WriteError> {
    let (dir, _) = split(path)?;
    check_dirs(dir)?;
    if existing_file(path)? {
        std::fs::remove_file(path).map_err(|e| io_error(path, e))?;
    }
    open_new(path).map_err(|e| match e.kind() {
        // Something was put there meanwhile: say what.
        ErrorKind::AlreadyExists => existing_file(path)
            .err()
            .unwrap_or_else(|| io_error(path, e)),
        _ => io_error(path, e),
    })
}

/// Creates the file `path`, which must not exist: the directories on its way must exist
/// ([`check_dirs`]); anything at `path` is refused (a link as a link).
pub fn create_new(path: &Path) -> Result<File, WriteError> {
    let (dir, _) = split(path)?;
    check_dirs(dir)?;
    if existing_file(path)? {
        return Err(WriteError::Exists {
            path: path.to_path_buf(),
        });
    }
    open_new(path).map_err(|e| match e.kind() {
        ErrorKind::AlreadyExists => existing_file(path).err().unwrap_or(WriteError::Exists {
            path: path.to_path_buf(),
        }),
        _ => io_error(path, e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A directory to write in and one outside it, holding `secret`.
    fn dirs() -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
        let (d, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let secret = outside.path().join("secret");
        std::fs::write(&secret, "keep").unwrap();
        (d, outside, secret)
    }

    #[test]
    fn a_link_at_the_file_name_is_refused_and_its_target_kept() {
        let (d, outside, secret) = dirs();
        let at = d.path().join("out.bin");
        symlink(&secret, &at).unwrap();
        let dangling = d.path().join("dangling.bin");
        symlink(outside.path().join("new"), &dangling).unwrap();
        for path in [&at, &dangling] {
            let writes: [Result<(), WriteError>; 4] = [
                write(path, b"x"),
                write_with(path, |_| Ok(())),
                create(path).map(drop),
                create_new(path).map(drop),
            ];
            for w in writes {
                let e = w.unwrap_err();
                assert!(matches!(e, WriteError::Link { .. }), "{e}");
                assert!(e.to_string().contains(&path.display().to_string()), "{e}");
            }
        }
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), "keep");
        assert!(!outside.path().join("new").exists());
        // Nothing left behind in the directory but the links.
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_link_on_the_way_is_refused() {
        let (d, outside, _) = dirs();
        symlink(outside.path(), d.path().join("frames")).unwrap();
        std::fs::create_dir(d.path().join("real")).unwrap();
        symlink(outside.path(), d.path().join("real/deeper")).unwrap();
        for path in [
            d.path().join("frames/a.png"),
            d.path().join("frames/new/a.png"),
            d.path().join("real/deeper/a.png"),
            d.path().join("real/../frames/a.png"),
        ] {
            let e = write(&path, b"x").unwrap_err();
            assert!(matches!(e, WriteError::Link { .. }), "{e}");
            assert!(e.path().ends_with("frames") || e.path().ends_with("deeper"));
            assert!(create(&path).is_err() && create_new(&path).is_err());
            assert!(create_dirs(path.parent().unwrap()).is_err());
        }
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
    }

    #[test]
    fn special_files_are_refused_and_regular_ones_replaced() {
        let (d, _outside, _) = dirs();
        std::fs::create_dir(d.path().join("dir")).unwrap();
        let e = write(&d.path().join("dir"), b"x").unwrap_err();
        assert!(
            matches!(
                e,
                WriteError::NotRegular {
                    kind: "a directory",
                    ..
                }
            ),
            "{e}"
        );
        let fifo = d.path().join("fifo");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            // Opened for writing, a FIFO without a reader blocks: it is never opened.
            for e in [
                write(&fifo, b"x").unwrap_err(),
                create(&fifo).unwrap_err(),
                create_new(&fifo).unwrap_err(),
            ] {
                assert!(e.to_string().contains("FIFO"), "{e}");
            }
        }
        // A file under a regular file.
        std::fs::write(d.path().join("plain"), "p").unwrap();
        let e = write(&d.path().join("plain/x"), b"x").unwrap_err();
        assert!(matches!(e, WriteError::NotDirectory { .. }), "{e}");
        // Regular files are replaced: a hard link to another file keeps that file's data.
        let (other, _o, secret) = dirs();
        let hard = d.path().join("hard");
        std::fs::hard_link(&secret, &hard).unwrap_or_else(|_| {
            std::fs::write(&hard, "keep").unwrap();
        });
        write(&hard, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&hard).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), "keep");
        drop(other);
        let streamed = d.path().join("a/b/stream");
        assert!(create(&streamed).is_err(), "no directory a/b");
        create_dirs(streamed.parent().unwrap()).unwrap();
        create(&streamed).unwrap();
        io::Write::write_all(&mut create(&streamed).unwrap(), b"again").unwrap();
        assert_eq!(std::fs::read_to_string(&streamed).unwrap(), "again");
        let e = create_new(&streamed).unwrap_err();
        assert!(matches!(e, WriteError::Exists { .. }), "{e}");
        // A failed fill leaves nothing behind.
        let failed = d.path().join("failed");
        assert!(write_with(&failed, |_| Err(io::Error::other("no"))).is_err());
        assert!(!failed.exists());
        let names: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    }
}
