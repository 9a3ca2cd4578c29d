//! [`SdfError`]: one problem in an SDF document, with where it is, what is wrong and what to
//! do about it, and a compiler-style report ([`SdfError::render`]).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use sim_world::Span;

/// The broad class of an [`SdfError`], for callers that react differently to each (the CLI
/// reports them all the same way).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be read (missing, unreadable, not UTF-8).
    Io,
    /// The text is not well-formed XML.
    Xml,
    /// The `<sdf version>` attribute is missing or names a version this reader does not know.
    Version,
    /// A required element or attribute is absent (including a file with no `<world>`).
    Missing,
    /// A value is malformed or out of range (numbers, vectors, booleans, names, inertia...).
    Invalid,
    /// Two siblings of the same kind share a name.
    Duplicate,
    /// A name that refers to nothing in scope: a pose's `relative_to`, a frame's
    /// `attached_to`, a joint's parent or child, an axis's `expressed_in`, a model's
    /// `canonical_link` or `placement_frame`.
    UnknownReference,
    /// Poses relative to each other, or frames attached to each other, in a cycle
    /// (including an element relative to or attached to itself).
    Cycle,
    /// Valid SDF that this reader does not handle yet (automatic inertia, some joint types...).
    Unsupported,
    /// A file, model or resource the document refers to cannot be found.
    NotFound,
}

/// An error in an SDF document.
///
/// `Display` gives the one-line form `file:line:col: message (in element)`; [`SdfError::render`]
/// gives the multi-line report with the offending source line and a hint.
#[derive(Clone, thiserror::Error)]
#[error("{}", self.one_line())]
#[non_exhaustive]
pub struct SdfError {
    /// The class of problem.
    pub kind: ErrorKind,
    /// The file the error is in (None for text given inline).
    pub file: Option<PathBuf>,
    /// 1-based line (0 only when there is no position, e.g. a file that cannot be read).
    pub line: u32,
    /// 1-based column, in characters (0 only when there is no position).
    pub column: u32,
    /// The element the error is about, e.g. `<link name="base">` or `<mass> in <link name="base">`
    /// (empty when the error is not about an element).
    pub element: String,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: String,
    /// The whole source text, kept so that [`SdfError::render`] can show the offending line.
    /// (An `Arc<String>` rather than `Arc<str>`: a thin pointer keeps the error, and so every
    /// `Result` carrying it, small.)
    pub source_text: Option<Arc<String>>,
    /// For an error inside an included file: the `<include>` elements that led to it, the
    /// innermost first (empty for an error in the file that was loaded). Boxed to keep the
    /// error small.
    pub included_from: Box<Vec<Span>>,
    /// The other errors of the same load, in the order they were found (empty when this is
    /// the only one). An error in an element does not stop the reader from reading its
    /// siblings and the checks of the whole document, so one load can report many problems;
    /// the first is this error itself. [`SdfError::all`] iterates over every one, and
    /// [`SdfError::render`] prints every one. Boxed to keep the error small.
    pub others: Box<Vec<SdfError>>,
}

impl SdfError {
    /// An error without a source position (e.g. a file that cannot be read).
    pub(crate) fn without_position(
        kind: ErrorKind,
        file: Option<PathBuf>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> SdfError {
        SdfError {
            kind,
            file,
            line: 0,
            column: 0,
            element: String::new(),
            message: message.into(),
            hint: hint.into(),
            source_text: None,
            included_from: Box::default(),
            others: Box::default(),
        }
    }

    /// Records that this error is inside a file included at `site` (call it from the
    /// innermost include outwards).
    pub(crate) fn included_at(mut self, site: Span) -> SdfError {
        for other in self.others.iter_mut() {
            other.included_from.push(site.clone());
        }
        self.included_from.push(site);
        self
    }

    /// Ok when there are no `errors`, else the first of them with the others (see
    /// [`SdfError::others`]).
    pub(crate) fn from_all(errors: impl IntoIterator<Item = SdfError>) -> Result<(), SdfError> {
        let mut errors = errors.into_iter();
        match errors.next() {
            None => Ok(()),
            Some(first) => Err(first.with_others(errors)),
        }
    }

    /// This error followed by `more` (each with its own others flattened in), without
    /// repeating an error already listed (same place and message).
    pub(crate) fn with_others(mut self, more: impl IntoIterator<Item = SdfError>) -> SdfError {
        for mut e in more {
            let nested = std::mem::take(&mut *e.others);
            for one in std::iter::once(e).chain(nested) {
                let seen = self.all().any(|s| {
                    s.file == one.file
                        && s.line == one.line
                        && s.column == one.column
                        && s.message == one.message
                });
                if !seen {
                    self.others.push(one);
                }
            }
        }
        self
    }

    /// Every error of the load: this one, then [`SdfError::others`].
    pub fn all(&self) -> impl Iterator<Item = &SdfError> {
        std::iter::once(self).chain(self.others.iter())
    }

    /// How many errors the load found (at least 1).
    pub fn count(&self) -> usize {
        1 + self.others.len()
    }

    /// `file:line:col` (or `file` alone when there is no position); inline text is `<inline>`.
    pub fn location(&self) -> String {
        let file = match &self.file {
            Some(p) => p.display().to_string(),
            None => "<inline>".to_string(),
        };
        if self.line == 0 {
            file
        } else {
            format!("{file}:{}:{}", self.line, self.column)
        }
    }

    fn one_line(&self) -> String {
        let mut s = format!("{}: {}", self.location(), self.message);
        if !self.element.is_empty() {
            s.push_str(&format!(" (in {})", self.element));
        }
        for site in self.included_from.iter() {
            s.push_str(&format!(", included from {site}"));
        }
        s
    }

    /// The multi-line report:
    ///
    /// ```text
    /// error: <message>
    ///   --> file:line:col
    ///    |
    /// 12 |     <mass>-1</mass>
    ///    |           ^
    ///    = in <mass> in <link name="base">
    ///    = included from world.sdf:8:5
    ///    = help: <hint>
    /// ```
    ///
    /// `source` is the text the error refers to; when None, the text kept in the error is used.
    /// Without either, the source line is left out.
    ///
    /// Every error of the load is rendered (this one and [`SdfError::others`], each with its
    /// own source line), up to [`SdfError::MAX_RENDERED`], then a line saying how many more
    /// there are; the others use the source text kept in each of them.
    pub fn render(&self, source: Option<&str>) -> String {
        let mut out = self.render_one(source);
        for other in self.others.iter().take(Self::MAX_RENDERED - 1) {
            out.push_str(&other.render_one(None));
        }
        let total = self.count();
        if total > Self::MAX_RENDERED {
            out.push_str(&format!(
                "... and {} more errors\n",
                total - Self::MAX_RENDERED
            ));
        }
        if total > 1 {
            out.push_str(&format!("{total} errors\n"));
        }
        out
    }

    /// How many errors [`SdfError::render`] prints at most.
    pub const MAX_RENDERED: usize = 50;

    /// The report of this problem as a warning (the same as [`SdfError::render`] for this
    /// one problem, labelled `warning:`): for problems that do not stop a load.
    pub fn render_warning(&self) -> String {
        self.render_labelled("warning", None)
    }

    /// The report of this error alone (see [`SdfError::render`]).
    fn render_one(&self, source: Option<&str>) -> String {
        self.render_labelled("error", source)
    }

    fn render_labelled(&self, label: &str, source: Option<&str>) -> String {
        let source = source.or(self.source_text.as_deref().map(String::as_str));
        let line_no = self.line.to_string();
        let pad = " ".repeat(line_no.len() + 1);
        let mut out = format!("{label}: {}\n{pad}--> {}\n", self.message, self.location());
        if let Some(src) = source
            && self.line > 0
            && let Some(text) = src.lines().nth(self.line as usize - 1)
        {
            let (shown, caret_at) = excerpt(text, self.column.max(1) as usize - 1);
            out.push_str(&format!(
                "{pad}|\n{line_no} | {shown}\n{pad}| {caret_at}^\n"
            ));
        }
        if !self.element.is_empty() {
            out.push_str(&format!("{pad}= in {}\n", self.element));
        }
        for site in self.included_from.iter() {
            out.push_str(&format!("{pad}= included from {site}\n"));
        }
        if !self.hint.is_empty() {
            out.push_str(&format!("{pad}= help: {}\n", self.hint));
        }
        out
    }
}

/// The part of `line` to show (long lines are cut around the column) and the whitespace to put
/// before the caret so that it lands under character `col` (0-based). Tabs before the column are
/// kept as tabs so that the caret lines up however the terminal expands them.
fn excerpt(line: &str, col: usize) -> (String, String) {
    const WIDTH: usize = 100;
    const BEFORE: usize = 40;
    let chars: Vec<char> = line.trim_end_matches('\r').chars().collect();
    let col = col.min(chars.len());
    let (start, prefix) = if chars.len() > WIDTH && col > BEFORE {
        (col - BEFORE, "...")
    } else {
        (0, "")
    };
    let end = (start + WIDTH).min(chars.len());
    let suffix = if end < chars.len() { "..." } else { "" };
    let shown: String = prefix
        .chars()
        .chain(chars[start..end].iter().copied())
        .chain(suffix.chars())
        .collect();
    let caret: String = prefix
        .chars()
        .map(|_| ' ')
        .chain(
            chars[start..col]
                .iter()
                .map(|&c| if c == '\t' { '\t' } else { ' ' }),
        )
        .collect();
    (shown, caret)
}

impl fmt::Debug for SdfError {
    // The source text is left out: it can be a whole world file.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SdfError")
            .field("kind", &self.kind)
            .field("file", &self.file)
            .field("line", &self.line)
            .field("column", &self.column)
            .field("element", &self.element)
            .field("message", &self.message)
            .field("hint", &self.hint)
            .field("included_from", &self.included_from)
            .field("others", &self.others)
            .field(
                "source_text",
                &self
                    .source_text
                    .as_ref()
                    .map(|s| format!("<{} bytes>", s.len())),
            )
            .finish()
    }
}

/// The byte offsets where the lines of a text start, for turning many offsets into lines and
/// columns without rescanning the text each time.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
    /// Whether the text is ASCII: columns are then byte distances (no count of characters,
    /// which would make positions on very long lines, as in generated one-line worlds, cost
    /// the length of the line each).
    ascii: bool,
}

impl LineIndex {
    /// Indexes `text`.
    pub(crate) fn new(text: &str) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(
                text.bytes()
                    .enumerate()
                    .filter(|&(_, b)| b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        LineIndex {
            starts,
            ascii: text.is_ascii(),
        }
    }

    /// 1-based line and column (in characters) of byte `offset` in `text` (the text this index
    /// was built for). Offsets past the end or inside a character are clamped; never panics.
    pub(crate) fn line_col(&self, text: &str, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts.get(line - 1).copied().unwrap_or(0).min(offset);
        let column = if self.ascii {
            offset - start
        } else {
            text.get(start..offset).map_or(0, |s| s.chars().count())
        } + 1;
        (
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
        )
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`. Offsets past the end
/// or inside a character are clamped; never panics.
pub(crate) fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_shows_every_error_up_to_the_cap_then_how_many_more() {
        let text = (1..=60)
            .map(|i| format!("<mass>{i}</mass>"))
            .collect::<Vec<_>>()
            .join("\n");
        let at = |line: u32| {
            let mut e = SdfError::without_position(
                ErrorKind::Invalid,
                Some(PathBuf::from("w.sdf")),
                format!("problem {line}"),
                "fix it",
            );
            e.line = line;
            e.column = 7;
            e.source_text = Some(Arc::new(text.clone()));
            e
        };
        let one = at(1);
        assert!(!one.render(None).contains("errors"));
        let all = at(1).with_others((2..=60).map(at).chain([at(5)]));
        assert_eq!(all.count(), 60, "a repeated error is listed once");
        let report = all.render(None);
        assert_eq!(report.matches("error: ").count(), SdfError::MAX_RENDERED);
        assert!(report.contains("50 | <mass>50</mass>"), "{report}");
        assert!(!report.contains("problem 51"), "{report}");
        assert!(
            report.ends_with("... and 10 more errors\n60 errors\n"),
            "{report}"
        );
        let included = all.included_at(Span {
            file: None,
            line: 3,
            column: 1,
        });
        assert!(included.all().all(|e| e.included_from.len() == 1));
    }

    #[test]
    fn the_line_index_agrees_with_a_scan() {
        let text = "ab\n\u{e9}x\r\n\n\tz\u{1F600}q\n";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(
                index.line_col(text, offset),
                line_col(text, offset),
                "offset {offset}"
            );
        }
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, 6), (2, 3));
        assert_eq!(line_col("", 5), (1, 1));
    }
}
