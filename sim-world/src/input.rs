//! Reading files a world names, as untrusted input: the [`Limits`] on what one load may make
//! the engine read and build, and [`read_regular`], the one way a world's files (SDF, model
//! configurations, meshes, height maps) are read: regular files only, up to a size.
//!
//! A world file, and everything it includes, may come from anyone; every size it controls is
//! bounded here, with defaults large enough for real worlds. The policy a user reads is
//! `docs/untrusted-input.md`.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// The bounds on what one load may read and build (see `docs/untrusted-input.md`). The
/// defaults fit real worlds with room to spare; a world that needs more raises them through
/// the SDF reader's load options.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// The largest SDF or XML file read (a world, an included file, a `model.config`, a
    /// COLLADA mesh), in bytes (default 64 MiB).
    pub max_sdf_bytes: u64,
    /// The largest mesh or height-map file read, in bytes (default 256 MiB).
    pub max_mesh_bytes: u64,
    /// The most pixels of a height-map image, checked against its header before any pixel
    /// is decoded (default 16,785,409: 4097 x 4097).
    pub max_heightmap_pixels: u64,
    /// The most models one load may expand, counting every copy an `<include>` makes of a
    /// model and its nested models, and every included file read (default 10,000).
    pub max_models: usize,
    /// The most triangles a dynamic link's mesh may have for its convex decomposition; a
    /// larger mesh collides as its convex hull (default 2,000).
    pub max_decomposition_triangles: usize,
    /// The longest text of one value (a number, a vector, a pose), in bytes, checked before
    /// it is parsed (default 4,096).
    pub max_value_bytes: usize,
    /// The most pixels of one camera image (`<camera><image>` width x height), for every
    /// camera-like sensor, checked when the sensor is read (default 8,388,608: 4096 x 2048).
    pub max_camera_pixels: u64,
    /// The most rays of one lidar scan (`<scan>` horizontal x vertical samples), checked
    /// when the sensor is read (default 1,048,576).
    pub max_lidar_rays: u64,
    /// The most `<model>`s one file may hold, nested ones counted (default 100,000): a
    /// million models exhausted memory while they were read.
    pub max_world_models: usize,
    /// The most `<link>`s one file may hold, and the most the copies includes make may add
    /// to a world (default 100,000).
    pub max_links: usize,
    /// The most `<collision>`s one file may hold, and the most the copies includes make may
    /// add to a world (default 100,000).
    pub max_collisions: usize,
    /// The most `<collision>`s of one link (default 1,000): the colliders of one body that
    /// overlap make pairs in the physics engine's broad phase by the square of their number
    /// (30,000 spheres at one point asked it for 2 GiB).
    pub max_link_collisions: usize,
    /// The most pairs of colliders (collisions and visuals, of any links) whose boxes
    /// overlap when a world is built, or once a model is created in it (default 1,000,000):
    /// the physics engine's broad phase lists every such pair the first time it sees them,
    /// so 20,000 bodies with a sphere at one point asked for 200 million.
    pub max_overlapping_pairs: usize,
    /// Whether a world may read files outside its own directory and the resource search path
    /// (default false).
    pub read_anywhere: bool,
    /// Whether a world may also read the files of the source tree it lies in (default true):
    /// the nearest directory at or above the world's that holds `.git`, `.hg`, `.svn` or a
    /// ROS `package.xml` (the file system's root and the user's home directory never count).
    /// Gazebo worlds refer to files beside their folder (`../media/heightmap.png`); false
    /// keeps a world to its own directory and the resource search path.
    pub read_project: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_sdf_bytes: 64 << 20,
            max_mesh_bytes: 256 << 20,
            max_heightmap_pixels: 4097 * 4097,
            max_models: 10_000,
            max_decomposition_triangles: 2_000,
            max_value_bytes: 4_096,
            max_camera_pixels: 4096 * 2048,
            max_lidar_rays: 1 << 20,
            max_world_models: 100_000,
            max_links: 100_000,
            max_collisions: 100_000,
            max_link_collisions: 1_000,
            max_overlapping_pairs: 1_000_000,
            read_anywhere: false,
            read_project: true,
        }
    }
}

/// Why a file of a world was not read.
#[derive(Debug)]
pub enum ReadError {
    /// The file system refused (no such file, no permission...).
    Io(std::io::Error),
    /// Not a regular file (a device, a FIFO, a socket, a directory): never opened.
    NotRegular {
        /// What it is, in words.
        kind: &'static str,
    },
    /// Larger than the limit.
    TooLarge {
        /// The limit, in bytes.
        max: u64,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::NotRegular { kind } => {
                write!(
                    f,
                    "it is {kind}, not a regular file; only regular files are read"
                )
            }
            ReadError::TooLarge { max } => write!(
                f,
                "it is larger than the limit of {max} bytes (see docs/untrusted-input.md to raise it)"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<ReadError> for std::io::Error {
    fn from(e: ReadError) -> std::io::Error {
        match e {
            ReadError::Io(e) => e,
            other => std::io::Error::new(std::io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

/// What the file type `t` is, in words, when it is not a regular file.
fn irregular(t: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if t.is_char_device() || t.is_block_device() {
        Some("a device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a file")
    }
}

/// The bytes of the file at `path`, which must be a regular file of at most `max` bytes. The
/// file's type is checked before it is opened (so a FIFO is never opened, and cannot block),
/// and again on the open file; at most `max` bytes are ever read, whatever its size says
/// (files of `/proc` say 0).
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path).map_err(ReadError::Io)?;
    if let Some(kind) = irregular(meta.file_type()) {
        return Err(ReadError::NotRegular { kind });
    }
    if meta.len() > max {
        return Err(ReadError::TooLarge { max });
    }
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if let Some(kind) = irregular(meta.file_type()) {
        return Err(ReadError::NotRegular { kind });
    }
    let mut bytes = Vec::with_capacity(meta.len().min(max) as usize);
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge { max });
    }
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text (an invalid byte is an error of kind `InvalidData`).
pub fn read_regular_text(path: &Path, max: u64) -> Result<String, ReadError> {
    let bytes = read_regular(path, max)?;
    String::from_utf8(bytes).map_err(|e| {
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            e.utf8_error(),
        ))
    })
}

/// Whether `text` may be quoted in a diagnostic: it looks like XML (its first character
/// other than a byte-order mark or white space is `<`) and holds no NUL. A file that is not
/// SDF or XML (`/proc/self/environ`, a binary) is never quoted.
pub fn quotable(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('<')
        && !text.contains('\0')
}

/// Why the model name `name` cannot be used where a name becomes part of a file path: it is
/// `.` or `..`, or holds a path separator or a control character (NUL included).
pub fn path_like(name: &str) -> Option<&'static str> {
    if name == "." || name == ".." {
        Some("is a directory reference")
    } else if name.contains(['/', '\\']) {
        Some("contains a path separator")
    } else if name.chars().any(char::is_control) {
        Some("contains a control character")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read_and_never_past_the_limit() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("a.sdf");
        std::fs::write(&f, "0123456789").unwrap();
        assert_eq!(read_regular(&f, 10).unwrap().len(), 10);
        assert!(matches!(
            read_regular(&f, 9),
            Err(ReadError::TooLarge { max: 9 })
        ));
        assert!(matches!(
            read_regular(t.path(), 100),
            Err(ReadError::NotRegular { .. })
        ));
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 1 << 20),
            Err(ReadError::NotRegular { kind: "a device" })
        ));
        let fifo = t.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Opening a FIFO for reading would block until a writer comes: it is not opened.
            let e = read_regular(&fifo, 100).unwrap_err();
            assert!(e.to_string().contains("FIFO"), "{e}");
        }
    }

    #[test]
    fn only_xml_is_quoted() {
        assert!(quotable("  <?xml version='1.0'?><sdf/>"));
        assert!(quotable("\u{feff}<sdf/>"));
        assert!(!quotable("SECRET=1\0HOME=/root\0"));
        assert!(!quotable("<sdf>\0</sdf>"));
        assert!(!quotable("solid x\nfacet normal 0 0 1"));
    }
}
