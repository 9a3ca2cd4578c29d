//! The error of reading an SDF element.

use super::origin::Origin;
use crate::types::PluginError;

/// A value of a plugin's SDF element that cannot be used: its owner, the element's path, what
/// was expected, what was found and where. Shown as
/// `model::link::sensor: <range><min> must be a finite number in metres, found "abc" at world.sdf:42`
/// (without ` at ...` when the place is unknown); converts into an
/// [`ErrorCode::INVALID_CONFIG`](crate::ErrorCode::INVALID_CONFIG) [`PluginError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SdfError {
    /// The owner: a sensor's scoped name or a plugin's name.
    pub owner: String,
    /// The element (and attribute) as written in messages: `<range><min>`, `<noise> type`.
    pub element: String,
    /// What the value must be: `a finite number in metres`, `zero or positive`.
    pub expected: String,
    /// The text found (trimmed), or a description such as `nothing` for a missing element.
    pub found: String,
    /// `file:line` (or `line N`) of the element, when known.
    pub place: Option<String>,
    kind: Kind,
}

/// What went wrong, for the wording.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// A value that does not read as what it must be.
    Invalid,
    /// A required element that is absent.
    Missing,
    /// Text that is not well-formed XML (`found` holds the parser's message).
    Malformed,
}

impl SdfError {
    /// An error about `element` of the text from `origin`, at `place`.
    pub fn new(
        origin: Origin<'_>,
        element: impl Into<String>,
        expected: impl Into<String>,
        found: impl Into<String>,
        place: Option<String>,
    ) -> Self {
        SdfError {
            owner: origin.owner.to_string(),
            element: element.into(),
            expected: expected.into(),
            found: found.into().trim().to_string(),
            place,
            kind: Kind::Invalid,
        }
    }

    /// The error for a required element that is absent: `element` is its path, `place` that
    /// of the element it is missing from.
    pub fn missing(
        origin: Origin<'_>,
        element: impl Into<String>,
        expected: impl Into<String>,
        place: Option<String>,
    ) -> Self {
        SdfError {
            kind: Kind::Missing,
            ..SdfError::new(origin, element, expected, "", place)
        }
    }

    /// Whether this is the error of a required element that is absent.
    pub fn is_missing(&self) -> bool {
        self.kind == Kind::Missing
    }

    /// The error for text that is not well-formed XML; `row` is the line within the text.
    pub(crate) fn malformed(origin: Origin<'_>, message: &str, row: u32) -> Self {
        SdfError {
            owner: origin.owner.to_string(),
            element: String::new(),
            expected: String::new(),
            found: message.to_string(),
            place: origin.place(row),
            kind: Kind::Malformed,
        }
    }
}

impl core::fmt::Display for SdfError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.kind {
            Kind::Malformed => write!(
                f,
                "{}: the element is not valid XML: {}",
                self.owner, self.found
            )?,
            Kind::Missing => write!(
                f,
                "{}: {} is required ({})",
                self.owner, self.element, self.expected
            )?,
            Kind::Invalid => write!(
                f,
                "{}: {} must be {}, found \"{}\"",
                self.owner, self.element, self.expected, self.found
            )?,
        }
        match &self.place {
            Some(place) => write!(f, " at {place}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for SdfError {}

impl From<SdfError> for PluginError {
    fn from(e: SdfError) -> Self {
        PluginError::config(e.to_string())
    }
}
