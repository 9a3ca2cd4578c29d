//! A parsed SDF element and where it came from.

use super::element::Element;
use super::error::SdfError;

/// Where an element's text came from, for messages: who owns it and where it starts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin<'t> {
    /// The owner named first in every message: a sensor's scoped name (`model::link::sensor`)
    /// or a plugin's name.
    pub owner: &'t str,
    /// The file the element is in, as the user gave it (empty: unknown or inline text).
    pub file: &'t str,
    /// The 1-based line of the text's first line in that file (0: unknown).
    pub line: u32,
}

impl<'t> Origin<'t> {
    /// An origin naming `owner`, at no known place.
    pub fn new(owner: &'t str) -> Self {
        Origin {
            owner,
            file: "",
            line: 0,
        }
    }

    /// `file:line` (or `line N` without a file) of the line `row` (1-based) of the text, or
    /// `None` when the place is unknown.
    pub fn place(&self, row: u32) -> Option<String> {
        if self.line == 0 {
            return None;
        }
        let line = self.line.saturating_add(row.saturating_sub(1));
        Some(if self.file.is_empty() {
            format!("line {line}")
        } else {
            format!("{}:{line}", self.file)
        })
    }
}

/// The largest element text read (16 MiB): more is refused before parsing.
pub const MAX_TEXT: usize = 16 << 20;

/// A parsed SDF element (a `<sensor>` or `<plugin>` element's text), read through
/// [`SdfDocument::root`].
#[derive(Debug)]
pub struct SdfDocument<'t> {
    doc: roxmltree::Document<'t>,
    origin: Origin<'t>,
    path: String,
}

impl<'t> SdfDocument<'t> {
    /// Parses `text`. Blank text reads as an empty element named `empty` (every value absent),
    /// so a plugin configured by defaults only needs no special case; text that is not
    /// well-formed XML, or longer than 16 MiB, is an error naming the origin's owner.
    pub fn parse(text: &'t str, origin: Origin<'t>) -> Result<Self, SdfError> {
        if text.len() > MAX_TEXT {
            return Err(SdfError::new(
                origin,
                "the element",
                format!("at most {MAX_TEXT} bytes of XML"),
                format!("{} bytes", text.len()),
                None,
            ));
        }
        let options = roxmltree::ParsingOptions {
            allow_dtd: false,
            ..Default::default()
        };
        let source = if text.trim().is_empty() {
            "<empty/>"
        } else {
            text
        };
        match roxmltree::Document::parse_with_options(source, options) {
            Ok(doc) => Ok(SdfDocument {
                doc,
                origin,
                path: String::new(),
            }),
            Err(e) => {
                let row = e.pos().row;
                Err(SdfError::malformed(origin, &e.to_string(), row))
            }
        }
    }

    /// Names the root element by `path` in messages (e.g. `<camera><noise>`), for text taken
    /// from inside a larger element; by default the root's children are named from the root
    /// down (`<range><min>`) and the root itself by its tag.
    pub fn nested(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// The root element (the `<sensor>` or `<plugin>` element).
    pub fn root(&self) -> Element<'_, 't> {
        Element::new(self.doc.root_element(), self)
    }

    /// Where the text came from.
    pub fn origin(&self) -> Origin<'t> {
        self.origin
    }

    /// The path given by [`SdfDocument::nested`] (empty by default).
    pub(crate) fn root_path(&self) -> &str {
        &self.path
    }

    /// The 1-based line within the text of byte offset `at`.
    pub(crate) fn row_of(&self, at: usize) -> u32 {
        self.doc.text_pos_at(at).row
    }
}
