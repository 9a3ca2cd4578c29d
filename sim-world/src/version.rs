//! The SDF version a document declares, `major.minor`, and the range this reader accepts.

/// An SDF version `major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    /// The major version.
    pub major: u32,
    /// The minor version.
    pub minor: u32,
}

impl Version {
    /// The oldest version this reader accepts.
    pub const OLDEST: Version = Version::new(1, 0);
    /// The newest version this reader accepts.
    pub const NEWEST: Version = Version::new(1, 12);

    /// The version `major.minor`.
    pub const fn new(major: u32, minor: u32) -> Version {
        Version { major, minor }
    }

    /// Parses `"1.6"`; None for anything else (`"1.6.0"`, `"2"`, `""`...).
    pub fn parse(s: &str) -> Option<Version> {
        let (major, minor) = s.trim().split_once('.')?;
        let digits =
            |t: &str| !t.is_empty() && t.len() <= 4 && t.bytes().all(|b| b.is_ascii_digit());
        if !digits(major) || !digits(minor) {
            return None;
        }
        Some(Version::new(major.parse().ok()?, minor.parse().ok()?))
    }

    /// Whether this reader knows this version.
    pub fn is_supported(self) -> bool {
        (Version::OLDEST..=Version::NEWEST).contains(&self)
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}
