//! Where an element's text came from, named in every message about it.

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
