//! The text of a value element, with where it starts in the source, split into tokens.

/// The text of a value element, with where it starts in the source.
pub(crate) struct Text {
    /// The text (entities decoded).
    pub value: String,
    /// Byte offset of the text in the source (the element itself when it has no text).
    pub offset: usize,
    /// Whether `value` is exactly the source text at `offset` (no entities, CDATA or comments),
    /// so that a token's offset inside `value` is also its offset in the source.
    pub exact: bool,
}

impl Text {
    /// The whitespace-separated tokens with their byte offsets in the source.
    pub fn tokens(&self) -> Vec<(usize, &str)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in self
            .value
            .char_indices()
            .chain(std::iter::once((self.value.len(), ' ')))
        {
            match (c.is_whitespace(), start) {
                (false, None) => start = Some(i),
                (true, Some(s)) => {
                    let at = if self.exact {
                        self.offset + s
                    } else {
                        self.offset
                    };
                    out.push((at, &self.value[s..i]));
                    start = None;
                }
                _ => {}
            }
        }
        out
    }

    /// The text without surrounding whitespace.
    pub fn trimmed(&self) -> &str {
        self.value.trim()
    }

    /// Offset of the first non-blank character (where a caret for the whole value goes).
    pub fn start(&self) -> usize {
        match self.tokens().first() {
            Some(&(at, _)) => at,
            None => self.offset,
        }
    }
}

/// SDF booleans: `true`, `false`, `1`, `0` (any case, surrounding blanks ignored).
pub(crate) fn parse_bool(s: &str) -> Option<bool> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("true") || t == "1" {
        Some(true)
    } else if t.eq_ignore_ascii_case("false") || t == "0" {
        Some(false)
    } else {
        None
    }
}
