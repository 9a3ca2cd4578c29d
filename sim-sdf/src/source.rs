//! Source provenance: a text a document is made of ([`Source`]), a place in one ([`Origin`]),
//! and the map from the offsets of an edited document to where each part of it was written
//! ([`Origins`]), so that an error in an edited included file points at the text the user
//! wrote (the included file, or the `<experimental:params>` of the including file).

use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use super::error::{ErrorKind, LineIndex, SdfError};

/// A text edits come from: the included file, or a file with `<experimental:params>`.
pub(crate) struct Source {
    /// The file (None for inline text).
    pub file: Option<Arc<PathBuf>>,
    /// Its text.
    pub text: Arc<String>,
    /// Line starts of `text`.
    lines: LineIndex,
}

impl Source {
    /// A source for `text` of `file`.
    pub fn new(file: Option<Arc<PathBuf>>, text: &str) -> Rc<Source> {
        Rc::new(Source {
            file,
            lines: LineIndex::new(text),
            text: Arc::new(text.to_string()),
        })
    }
}

/// Where a piece of an edited document was written: a byte offset in a [`Source`].
#[derive(Clone)]
pub(crate) struct Origin {
    /// The text.
    pub source: Rc<Source>,
    /// The byte offset in it.
    pub offset: usize,
}

impl Origin {
    /// 1-based line and column.
    pub fn line_col(&self) -> (u32, u32) {
        self.source.lines.line_col(&self.source.text, self.offset)
    }

    /// An error here about `element`.
    pub fn error(
        &self,
        kind: ErrorKind,
        element: &str,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> SdfError {
        let (line, column) = self.line_col();
        SdfError {
            kind,
            file: self.source.file.as_deref().cloned(),
            line,
            column,
            element: element.to_string(),
            message: message.into(),
            hint: hint.into(),
            source_text: Some(self.source.text.clone()),
            included_from: Box::default(),
            others: Box::default(),
        }
    }
}

/// Maps offsets of an edited document to where its text was written.
pub(crate) struct Origins {
    /// (offset in the edited text, its length, where it came from), in text order.
    segments: Vec<(usize, usize, Origin)>,
    /// The file's own source (for offsets before the first segment).
    base: Origin,
}

impl Origins {
    /// The map of a document written in pieces: `segments` are (offset in the document,
    /// length copied as written, where it came from), in text order; `base` is where the
    /// offsets before the first piece are.
    pub fn new(segments: Vec<(usize, usize, Origin)>, base: Origin) -> Origins {
        Origins { segments, base }
    }

    /// Where the text at `offset` of the edited document was written: inside a piece copied
    /// as written, the same character there; else the start of the element or value it
    /// belongs to.
    pub fn map(&self, offset: usize) -> Origin {
        let i = self.segments.partition_point(|(at, _, _)| *at <= offset);
        let Some((at, len, origin)) = i.checked_sub(1).and_then(|i| self.segments.get(i)) else {
            return self.base.clone();
        };
        let inside = offset - at;
        Origin {
            source: origin.source.clone(),
            offset: origin.offset + if inside < *len { inside } else { 0 },
        }
    }

    /// The text of the source of `file`, for reports.
    pub fn text_of(&self, file: Option<&PathBuf>) -> Option<Arc<String>> {
        self.segments
            .iter()
            .map(|(_, _, o)| &o.source)
            .chain(std::iter::once(&self.base.source))
            .find(|s| s.file.as_deref() == file)
            .map(|s| s.text.clone())
    }
}
