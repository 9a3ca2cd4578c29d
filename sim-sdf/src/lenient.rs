//! Length-preserving repairs that let a strict XML parser read what libsdformat (through
//! tinyxml2) accepts and real worlds rely on:
//!
//! * comments containing `--` (common in Gazebo's example worlds);
//! * an XML declaration after leading whitespace, and stray text before the first tag;
//! * namespace prefixes that are never declared (`<gz:policies>`, `custom:attr="..."`) and
//!   names with several colons (`<gz::system_priority>`): their colons become `.`, so they stay
//!   distinct from SDF's own elements, which this reader then simply does not recognise.
//!
//! Every repair replaces ASCII bytes by ASCII bytes of the same length, so byte offsets, lines
//! and columns in the repaired text are those of the original, and slices of the original can
//! be taken with the repaired document's ranges.

use std::borrow::Cow;
use std::collections::HashSet;

/// The repaired text, borrowed unchanged when nothing needed repair.
pub(crate) fn normalise(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut edit = |at: usize, b: u8| {
        let buf = out.get_or_insert_with(|| bytes.to_vec());
        if let Some(slot) = buf.get_mut(at) {
            *slot = b;
        }
    };

    let start = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let first_tag = find(bytes, start, b"<").unwrap_or(bytes.len());

    // Stray text before the first tag (tinyxml2 skips it; so do we).
    for (i, &b) in bytes.iter().enumerate().take(first_tag).skip(start) {
        if !b.is_ascii_whitespace() {
            blank(bytes, i, i + 1, &mut edit);
        }
    }
    // An XML declaration that does not open the document: blank it.
    if first_tag > start && bytes[first_tag..].starts_with(b"<?xml") {
        let end = find(bytes, first_tag, b"?>").map_or(bytes.len(), |e| e + 2);
        blank(bytes, first_tag, end, &mut edit);
    }

    let names = scan(bytes, &mut edit);
    let declared: HashSet<&[u8]> = names
        .iter()
        .filter_map(|r| bytes[r.clone()].strip_prefix(b"xmlns:"))
        .collect();
    for r in names {
        let name = &bytes[r.clone()];
        let colons = name.iter().filter(|&&b| b == b':').count();
        let undeclared = match name.iter().position(|&b| b == b':') {
            Some(p) => {
                let prefix = &name[..p];
                colons == 1 && prefix != b"xml" && prefix != b"xmlns" && !declared.contains(prefix)
            }
            None => false,
        };
        if colons > 1 || undeclared {
            for i in r.filter(|&i| bytes[i] == b':') {
                edit(i, b'.');
            }
        }
    }

    match out {
        // Only ASCII bytes were replaced by ASCII bytes, so the text is still UTF-8.
        Some(buf) => String::from_utf8(buf).map_or(Cow::Borrowed(text), Cow::Owned),
        None => Cow::Borrowed(text),
    }
}

/// Rewrites every qualified name with `prefix` (element and attribute names only) so that it
/// no longer uses a namespace: the fallback when a prefix is declared somewhere in the document
/// but not in scope where it is used.
pub(crate) fn drop_prefix(text: &str, prefix: &str) -> String {
    let bytes = text.as_bytes();
    let mut buf = bytes.to_vec();
    let names = scan(bytes, &mut |_, _| {});
    for r in names {
        let name = &bytes[r.clone()];
        if name.len() > prefix.len()
            && name.starts_with(prefix.as_bytes())
            && name[prefix.len()] == b':'
        {
            for i in r.filter(|&i| bytes[i] == b':') {
                buf[i] = b'.';
            }
        }
    }
    String::from_utf8(buf).unwrap_or_else(|_| text.to_string())
}

/// Walks the markup of `bytes`, repairs comments through `edit`, and returns the byte ranges of
/// all element and attribute names.
fn scan(bytes: &[u8], edit: &mut impl FnMut(usize, u8)) -> Vec<std::ops::Range<usize>> {
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(lt) = find(bytes, i, b"<") {
        let rest = &bytes[lt..];
        if rest.starts_with(b"<!--") {
            let Some(end) = find(bytes, lt + 4, b"-->") else {
                break;
            };
            // `--` is not allowed inside a comment, nor a `-` just before `-->`.
            for (j, &b) in bytes.iter().enumerate().take(end).skip(lt + 4) {
                if b == b'-' {
                    edit(j, b' ');
                }
            }
            i = end + 3;
        } else if rest.starts_with(b"<![CDATA[") {
            let Some(end) = find(bytes, lt + 9, b"]]>") else {
                break;
            };
            i = end + 3;
        } else if rest.starts_with(b"<?") {
            let Some(end) = find(bytes, lt + 2, b"?>") else {
                break;
            };
            i = end + 2;
        } else if rest.starts_with(b"<!") {
            let Some(end) = find(bytes, lt + 2, b">") else {
                break;
            };
            i = end + 1;
        } else {
            let mut j = lt + 1;
            if bytes.get(j) == Some(&b'/') {
                j += 1;
            }
            let end = name_end(bytes, j);
            if end > j {
                names.push(j..end);
            }
            j = end;
            // Attributes: name [= "value"], until `>` or `/>`.
            loop {
                while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
                    j += 1;
                }
                match bytes.get(j) {
                    None => return names,
                    Some(b'>') => {
                        j += 1;
                        break;
                    }
                    Some(b'/') => {
                        j += 1;
                        continue;
                    }
                    Some(_) => {}
                }
                let a_end = name_end(bytes, j);
                if a_end == j {
                    // Not a name: malformed markup, the parser will report it.
                    j += 1;
                    break;
                }
                names.push(j..a_end);
                j = a_end;
                while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
                    j += 1;
                }
                if bytes.get(j) == Some(&b'=') {
                    j += 1;
                    while bytes.get(j).is_some_and(u8::is_ascii_whitespace) {
                        j += 1;
                    }
                    if let Some(&q) = bytes.get(j)
                        && (q == b'"' || q == b'\'')
                    {
                        match find(bytes, j + 1, &[q]) {
                            Some(end) => j = end + 1,
                            None => return names,
                        }
                    }
                }
            }
            i = j;
        }
    }
    names
}

/// The end of the XML name starting at `from` (== `from` if there is none).
fn name_end(bytes: &[u8], from: usize) -> usize {
    let mut j = from;
    while let Some(&b) = bytes.get(j) {
        if b.is_ascii_whitespace() || matches!(b, b'>' | b'/' | b'=' | b'<' | b'"' | b'\'') {
            break;
        }
        j += 1;
    }
    j
}

/// Position of `needle` in `bytes` at or after `from`.
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from > bytes.len() {
        return None;
    }
    bytes[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Replaces `bytes[from..to]` by spaces, keeping line breaks (and the bytes of non-ASCII
/// characters, replaced one space per byte, which keeps the text valid UTF-8).
fn blank(bytes: &[u8], from: usize, to: usize, edit: &mut impl FnMut(usize, u8)) {
    for (i, &b) in bytes.iter().enumerate().take(to).skip(from) {
        if b != b'\n' && b != b'\r' {
            edit(i, b' ');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untouched_text_is_borrowed() {
        let t =
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.6\"><!-- fine --><world name=\"w\"/></sdf>";
        assert!(matches!(normalise(t), Cow::Borrowed(_)));
    }

    #[test]
    fn comments_with_double_dashes_are_repaired() {
        let t = "<a><!-- run --verbose ---></a>";
        let n = normalise(t);
        assert_eq!(n.len(), t.len());
        assert!(roxmltree::Document::parse(&n).is_ok());
    }

    #[test]
    fn late_declaration_and_stray_text() {
        let t = "  <?xml version=\"1.0\"?>\n<a/>";
        assert!(roxmltree::Document::parse(&normalise(t)).is_ok());
        let t = "?xml version=\"1.0\"?>\n<a/>";
        assert!(roxmltree::Document::parse(&normalise(t)).is_ok());
    }

    #[test]
    fn undeclared_prefixes_and_double_colons() {
        let t = "<a><gz:p x:y='1'>v</gz:p><gz::q>1</gz::q><b xmlns:k='u'><k:c/></b></a>";
        let n = normalise(t);
        assert_eq!(n.len(), t.len());
        let doc = roxmltree::Document::parse(&n).expect("repaired");
        let names: Vec<_> = doc
            .descendants()
            .filter(|n| n.is_element())
            .map(|n| n.tag_name().name().to_string())
            .collect();
        assert_eq!(names, ["a", "gz.p", "gz..q", "b", "c"]);
    }

    #[test]
    fn prefix_declared_out_of_scope() {
        let t = "<a><b xmlns:k='u'/><k:c/></a>";
        let n = normalise(t);
        assert!(roxmltree::Document::parse(&n).is_err());
        assert!(roxmltree::Document::parse(&drop_prefix(&n, "k")).is_ok());
    }

    #[test]
    fn malformed_input_does_not_panic() {
        for t in [
            "<",
            "<a",
            "<a b",
            "<a b=",
            "<a b='",
            "<!--",
            "<![CDATA[",
            "<?",
            "<!",
            "</",
            "<a/><",
            "\u{e9}<a>",
            "<a \u{e9}=''/>",
        ] {
            let _ = normalise(t);
            let _ = drop_prefix(t, "a");
        }
    }
}
