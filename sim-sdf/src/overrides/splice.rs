//! Writing a value into the text: the range an element's content takes, the value escaped.

use std::borrow::Cow;
use std::ops::Range;

/// The range of an element's content: between its start and end tags (for `<a/>`, the `/`
/// of the empty-element tag, which is replaced by `>value</a` so that it becomes `<a>value</a>`).
pub(super) fn content_range(node: roxmltree::Node, source: &str) -> Range<usize> {
    let whole = node.range();
    if let (Some(first), Some(last)) = (node.first_child(), node.last_child()) {
        return first.range().start..last.range().end;
    }
    let text = &source[whole.clone()];
    if text.ends_with("/>") {
        // Marked by an empty range at the `/`: see `apply`.
        let at = whole.end - 2;
        return at..at;
    }
    // `<a></a>`: the content is empty, just before `</`.
    let at = whole.start + text.rfind("</").unwrap_or(text.len());
    at..at
}

/// `value` escaped for element text or (`attribute`) an attribute value in double or single
/// quotes.
pub(super) fn escape(value: &str, attribute: bool) -> Cow<'_, str> {
    if !value.contains(['&', '<', '>', '"', '\'']) {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len() + 16);
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The name of the element whose empty-element tag's `/>` is at `slash`.
pub(super) fn element_name_before(source: &str, slash: usize) -> &str {
    let open = source[..slash].rfind('<').map_or(0, |i| i + 1);
    let tag = &source[open..slash];
    let end = tag
        .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
        .unwrap_or(tag.len());
    &tag[..end]
}
