//! Namespace prefixes used in a `<sensor>` or `<plugin>` element without a declaration.
//!
//! libsdformat reads XML through tinyxml2, which knows no namespaces: an element named
//! `acme:gain` is a custom element whatever is declared, exempt from the unrecognised-element
//! policy, and reaches the plugin as written. This reader is namespace-aware; for the same
//! worlds to load, the lenient pass renames an undeclared prefix's colon (`acme.gain`, see
//! `lenient`). Inside a sensor or plugin element, whose text the plugin reads, that renaming
//! is reported as a warning at the name's line (a warning, not an error, because libsdformat
//! and Gazebo accept such worlds), so that the author can declare the prefix
//! (`xmlns:acme="..."` on `<sdf>`) and the plugin gets the element in its namespace.

use super::error::ErrorKind;
use super::reader::Reader;
use roxmltree::Node;

impl Reader<'_> {
    /// Warns, at its line, of each name in `node` (a sensor or plugin element, `prepared` its
    /// repaired text) whose namespace prefix is not declared (see `undeclared`).
    pub(crate) fn warn_undeclared(&self, node: Node, prepared: &str) {
        let start = node.range().start;
        let original = self.source.get(node.range()).unwrap_or_default();
        for (at, name) in undeclared_names(original, prepared) {
            let prefix = name.split(':').next().unwrap_or_default();
            self.loader.warn(self.error_at(
                start + at,
                node,
                ErrorKind::UnknownReference,
                format!(
                    "the namespace prefix `{prefix}` of `{name}` is not declared; the plugin \
                     reads it as `{}`",
                    name.replace(':', ".")
                ),
                format!(
                    "declare it on the <sdf> element (xmlns:{prefix}=\"URI\") to hand the plugin \
                     `{name}` in that namespace"
                ),
            ));
        }
    }
}

/// The byte offsets and names (`acme:gain`) of the qualified element and attribute names of
/// `original` whose one colon the lenient pass replaced in `prepared` (the same text,
/// repaired: same length, same offsets). Closing tags are left out, and so are names with
/// several colons (`gz::system_priority`), which are no namespace prefix.
pub(crate) fn undeclared_names(original: &str, prepared: &str) -> Vec<(usize, String)> {
    let (o, p) = (original.as_bytes(), prepared.as_bytes());
    let mut out = Vec::new();
    if o.len() != p.len() {
        return out;
    }
    let mut i = 0;
    while i < o.len() {
        if !(o[i] == b':' && p[i] == b'.') {
            i += 1;
            continue;
        }
        let start = (0..i)
            .rev()
            .take_while(|&j| is_name_byte(o[j]))
            .last()
            .unwrap_or(i);
        let end = (i..o.len())
            .find(|&j| !is_name_byte(o[j]))
            .unwrap_or(o.len());
        let closing = start > 0 && o[start - 1] == b'/';
        let name = &original[start..end];
        if !closing && name.matches(':').count() == 1 {
            out.push((start, name.to_string()));
        }
        i = end;
    }
    out
}

fn is_name_byte(b: u8) -> bool {
    !(b.is_ascii_whitespace() || matches!(b, b'<' | b'>' | b'/' | b'=' | b'"' | b'\''))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_renamed_single_prefix_names_once() {
        let original = "<plugin a:b='1'><acme:fail>x:y</acme:fail><gz::p/><ok/></plugin>";
        let prepared = "<plugin a.b='1'><acme.fail>x:y</acme.fail><gz..p/><ok/></plugin>";
        assert_eq!(
            undeclared_names(original, prepared),
            vec![(8, "a:b".to_string()), (17, "acme:fail".to_string())]
        );
        assert!(undeclared_names(original, original).is_empty());
        assert!(undeclared_names(original, "<short/>").is_empty());
    }
}
