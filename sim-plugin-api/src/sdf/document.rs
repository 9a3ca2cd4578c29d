//! A parsed SDF element's text (its elements are [`Element`](super::Element)s).

use super::error::SdfError;
use super::origin::Origin;

/// The largest element text read (16 MiB): more is refused before parsing.
pub const MAX_TEXT: usize = 16 << 20;

/// A parsed SDF element (a `<sensor>` or `<plugin>` element's text), read through
/// [`SdfDocument::root`](SdfDocument::root).
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

    /// Where the text came from.
    pub fn origin(&self) -> Origin<'t> {
        self.origin
    }

    /// The parsed tree.
    pub(crate) fn tree(&self) -> &roxmltree::Document<'t> {
        &self.doc
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
