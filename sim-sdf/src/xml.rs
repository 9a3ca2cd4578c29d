//! A mutable XML tree ([`XElem`]) built from a parsed document, each of its parts knowing where
//! it was written ([`Origin`]), and its [`Writer`]: the tree written out as a document of its
//! own, with where each piece of the output came from.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use roxmltree::Node;

use super::source::Origin;

/// An attribute of an [`XElem`].
#[derive(Clone)]
pub(super) struct XAttr {
    /// The qualified name as written (`name`, `custom.test`, `gz:x`).
    pub name: String,
    /// The value (entities decoded).
    pub value: String,
    /// Where the name is.
    pub origin: Origin,
    /// Where the value is.
    pub value_origin: Origin,
}

/// A child of an [`XElem`].
#[derive(Clone)]
pub(super) enum XNode {
    /// An element.
    Elem(XElem),
    /// Text (entities decoded), and where it starts.
    Text(String, Origin),
}

/// An element of a document being edited, owned and mutable.
#[derive(Clone)]
pub(crate) struct XElem {
    /// Unique among all elements built in this process (to find an `<include>` again).
    pub id: usize,
    /// The qualified name as written.
    pub name: String,
    /// The attributes, in order.
    pub attrs: Vec<XAttr>,
    /// The child elements and texts, in order.
    pub children: Vec<XNode>,
    /// Where the element starts.
    pub origin: Origin,
    /// The namespace prefixes in scope where it was written (prefix, URI).
    pub namespaces: Vec<(String, String)>,
}

static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

impl XElem {
    /// The element `node` (an element of a document parsed from the text `origin_of` maps
    /// offsets of) with all its content.
    pub fn build(node: Node, origin_of: &dyn Fn(usize) -> Origin) -> XElem {
        let input = node.document().input_text();
        let start = node.range().start;
        let name = input
            .get(start + 1..)
            .unwrap_or_default()
            .split(|c: char| c.is_whitespace() || c == '/' || c == '>')
            .next()
            .unwrap_or_default()
            .to_string();
        let attrs = node
            .attributes()
            .map(|a| XAttr {
                name: input.get(a.range_qname()).unwrap_or(a.name()).to_string(),
                value: a.value().to_string(),
                origin: origin_of(a.range_qname().start),
                value_origin: origin_of(a.range_value().start),
            })
            .collect();
        let mut children = Vec::new();
        for c in node.children() {
            if c.is_element() {
                children.push(XNode::Elem(XElem::build(c, origin_of)));
            } else if c.is_text() {
                let text = c.text().unwrap_or_default().to_string();
                children.push(XNode::Text(text, origin_of(c.range().start)));
            }
        }
        let namespaces = node
            .namespaces()
            .filter_map(|ns| Some((ns.name()?.to_string(), ns.uri().to_string())))
            .filter(|(prefix, _)| prefix != "xml")
            .collect();
        XElem {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            name,
            attrs,
            children,
            origin: origin_of(start),
            namespaces,
        }
    }

    /// The qualified name (`link`, `gz:x`, or `gz.x` for an undeclared prefix).
    pub fn tag(&self) -> &str {
        &self.name
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value.as_str())
    }

    pub fn attr_origin(&self, name: &str) -> Origin {
        self.attrs
            .iter()
            .find(|a| a.name == name)
            .map_or_else(|| self.origin.clone(), |a| a.value_origin.clone())
    }

    pub fn remove_attr(&mut self, name: &str) {
        self.attrs.retain(|a| a.name != name);
    }

    pub fn elements(&self) -> impl Iterator<Item = &XElem> {
        self.children.iter().filter_map(|c| match c {
            XNode::Elem(e) => Some(e),
            XNode::Text(..) => None,
        })
    }

    /// Indices (in `children`) of the child elements.
    pub fn element_indices(&self) -> Vec<usize> {
        self.children
            .iter()
            .enumerate()
            .filter_map(|(i, c)| matches!(c, XNode::Elem(_)).then_some(i))
            .collect()
    }

    pub fn child_mut(&mut self, i: usize) -> Option<&mut XElem> {
        match self.children.get_mut(i) {
            Some(XNode::Elem(e)) => Some(e),
            _ => None,
        }
    }

    /// The text, when it has some that is not blank.
    pub fn value(&self) -> Option<String> {
        let text: String = self
            .children
            .iter()
            .filter_map(|c| match c {
                XNode::Text(t, _) => Some(t.as_str()),
                XNode::Elem(_) => None,
            })
            .collect();
        (!text.trim().is_empty()).then_some(text)
    }

    /// Whether it has neither child elements nor text (blanks aside).
    pub fn is_empty(&self) -> bool {
        self.elements().next().is_none() && self.value().is_none()
    }

    /// Replaces its text by `text` (written at `origin`), keeping child elements.
    pub fn set_value(&mut self, text: Option<(String, Origin)>) {
        self.children.retain(|c| matches!(c, XNode::Elem(_)));
        if let Some((t, o)) = text {
            self.children.insert(0, XNode::Text(t, o));
        }
    }

    /// The text of the first child element `name`, trimmed, when not blank.
    pub fn child_value(&self, name: &str) -> Option<String> {
        self.elements()
            .find(|e| e.tag() == name)
            .and_then(XElem::value)
            .map(|v| v.trim().to_string())
    }

    /// The element and where it starts, for messages: `<visual name="v">`.
    pub fn describe(&self) -> String {
        match self.attr("name") {
            Some(n) => format!("<{} name=\"{n}\">", self.name),
            None => format!("<{}>", self.name),
        }
    }
}

/// Writes an edited tree as XML, recording where each piece came from; what `forward` holds
/// for an element (by its [`XElem::id`]) goes to `forwarded`, by where the element starts in
/// the output.
pub(super) struct Writer<T> {
    /// The text written so far.
    pub out: String,
    /// (offset in `out`, length copied as written, where it came from), in text order.
    pub segments: Vec<(usize, usize, Origin)>,
    /// What to hand on, by element id.
    pub forward: HashMap<usize, T>,
    /// What was handed on, by the offset of its element in `out`.
    pub forwarded: HashMap<usize, T>,
}

impl<T> Writer<T> {
    /// A writer handing on `forward`.
    pub fn new(forward: HashMap<usize, T>) -> Writer<T> {
        Writer {
            out: String::new(),
            segments: Vec::new(),
            forward,
            forwarded: HashMap::new(),
        }
    }

    /// Writes `piece`, which came from `origin` (copied as written when the source has the
    /// same text there).
    fn put(&mut self, piece: &str, origin: &Origin) {
        let same = origin
            .source
            .text
            .get(origin.offset..origin.offset + piece.len())
            == Some(piece);
        let len = if same { piece.len() } else { 0 };
        self.segments.push((self.out.len(), len, origin.clone()));
        self.out.push_str(piece);
    }

    /// Writes `e` (declaring `namespaces` on it when given) and everything in it.
    pub fn element(&mut self, e: &XElem, namespaces: Option<&[(String, String)]>) {
        if let Some(edits) = self.forward.remove(&e.id) {
            self.forwarded.insert(self.out.len(), edits);
        }
        self.put(&format!("<{}", e.name), &e.origin);
        if let Some(decls) = namespaces {
            for (prefix, uri) in decls {
                self.out
                    .push_str(&format!(" xmlns:{prefix}=\"{}\"", escape(uri, true)));
            }
        }
        for a in &e.attrs {
            self.out.push(' ');
            self.put(&a.name, &a.origin);
            self.out.push_str("=\"");
            self.put(&escape(&a.value, true), &a.value_origin);
            self.out.push('"');
        }
        if e.children.is_empty() {
            self.out.push_str("/>");
            return;
        }
        self.out.push('>');
        for c in &e.children {
            match c {
                XNode::Elem(child) => self.element(child, None),
                XNode::Text(t, o) => self.put(&escape(t, false), o),
            }
        }
        self.put(&format!("</{}>", e.name), &e.origin);
    }
}

/// `text` with XML's special characters escaped (and `"` in attribute values).
fn escape(text: &str, attribute: bool) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' if attribute => s.push_str("&quot;"),
            _ => s.push(c),
        }
    }
    s
}

/// Collects the namespace declarations used anywhere in `e`.
pub(super) fn collect_namespaces(e: &XElem, out: &mut Vec<(String, String)>) {
    for ns in &e.namespaces {
        if !out.iter().any(|(p, _)| *p == ns.0) {
            out.push(ns.clone());
        }
    }
    for c in e.elements() {
        collect_namespaces(c, out);
    }
}
