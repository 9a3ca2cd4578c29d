//! One element of a parsed SDF element's text.

use super::document::SdfDocument;
use super::error::SdfError;
use roxmltree::Node;
use std::borrow::Cow;

/// A type an SDF element's text (or an attribute) reads as, for [`Element::get`] and the
/// other typed readers.
pub trait FromSdf: Sized {
    /// What the text must be, in messages: `a finite number`, `three numbers (x y z)`.
    fn expected() -> Cow<'static, str>;

    /// The value of `text` (trimmed by the caller), or `None` when it does not read as one.
    fn from_text(text: &str) -> Option<Self>;

    /// The value of element `e`: by default its text; types whose reading depends on
    /// attributes (a pose's `degrees`) override it. The error is what was expected.
    fn from_element(e: &Element<'_, '_>) -> Result<Self, Cow<'static, str>> {
        Self::from_text(e.text()).ok_or_else(Self::expected)
    }
}

/// One element of an [`SdfDocument`]: its name, attributes, text and children, and typed
/// values found by path below it.
#[derive(Copy, Clone, Debug)]
pub struct Element<'a, 't> {
    node: Node<'a, 't>,
    doc: &'a SdfDocument<'t>,
}

impl<'t> SdfDocument<'t> {
    /// The root element (the `<sensor>` or `<plugin>` element).
    pub fn root(&self) -> Element<'_, 't> {
        Element::new(self.tree().root_element(), self)
    }
}

impl<'a, 't> Element<'a, 't> {
    pub(crate) fn new(node: Node<'a, 't>, doc: &'a SdfDocument<'t>) -> Self {
        Element { node, doc }
    }

    /// The element's local name (`min` for `<min>`, `gain` for `<acme:gain>`).
    pub fn name(&self) -> &'a str {
        self.node.tag_name().name()
    }

    /// The namespace URI of the element, when it has one (`<acme:gain>` with
    /// `xmlns:acme="..."` declared in the world).
    pub fn namespace(&self) -> Option<&'a str> {
        self.node.tag_name().namespace()
    }

    /// The name as written, with its prefix: `acme:gain`.
    pub fn qualified_name(&self) -> String {
        qualified(self.node)
    }

    /// The element's text, trimmed (empty when it has none).
    pub fn text(&self) -> &'a str {
        self.node.text().unwrap_or("").trim()
    }

    /// The attribute `name` (`"degrees"`, or `"acme:unit"` with a declared prefix), as written.
    pub fn attribute(&self, name: &str) -> Option<&'a str> {
        match name.split_once(':') {
            Some((prefix, local)) => {
                let uri = self.node.lookup_namespace_uri(Some(prefix))?;
                self.node.attribute((uri, local))
            }
            None => self.node.attribute(name),
        }
    }

    /// The attribute `name` read as `T`: `None` when absent, an error naming it when its text
    /// does not read as `T`.
    pub fn attr<T: FromSdf>(&self, name: &str) -> Result<Option<T>, SdfError> {
        let Some(text) = self.attribute(name) else {
            return Ok(None);
        };
        T::from_text(text).map(Some).ok_or_else(|| {
            SdfError::new(
                self.doc.origin(),
                format!("{} {name}", self.path()),
                T::expected(),
                text,
                self.place(),
            )
        })
    }

    /// The child elements, in document order.
    pub fn children(&self) -> Children<'a, 't, 'static> {
        Children {
            inner: self.node.children(),
            doc: self.doc,
            name: None,
        }
    }

    /// The child elements named `name` (a step of a path, prefix allowed), in document order.
    pub fn children_named<'n>(&self, name: &'n str) -> Children<'a, 't, 'n> {
        Children {
            inner: self.node.children(),
            doc: self.doc,
            name: Some(name),
        }
    }

    /// The first child element named `name` (prefix allowed).
    pub fn child(&self, name: &str) -> Option<Element<'a, 't>> {
        self.children_named(name).next()
    }

    /// The element at `path` below this one (`"range/min"`: the first `<range>` child, then
    /// its first `<min>` child); this element for an empty path.
    pub fn find(&self, path: &str) -> Option<Element<'a, 't>> {
        path.split('/')
            .filter(|s| !s.is_empty())
            .try_fold(*self, |e, step| e.child(step))
    }

    /// Whether there is an element at `path`.
    pub fn has(&self, path: &str) -> bool {
        self.find(path).is_some()
    }

    /// The element's text read as `T` (the value of the element itself).
    pub fn value<T: FromSdf>(&self) -> Result<T, SdfError> {
        T::from_element(self).map_err(|expected| self.error(expected, self.text()))
    }

    /// The element as written in messages: `<range><min>` (the path from the root, whose
    /// children are named from the root down; the root itself by its tag, or by the path given
    /// to [`SdfDocument::nested`]).
    pub fn path(&self) -> String {
        match self.prefix() {
            p if p.is_empty() => format!("<{}>", qualified(self.node)),
            p => p,
        }
    }

    /// The path of this element as the start of its children's: empty for the root (unless
    /// named by [`SdfDocument::nested`]).
    pub(crate) fn prefix(&self) -> String {
        let mut steps: Vec<String> = self
            .node
            .ancestors()
            .filter(|n| n.is_element() && n.parent_element().is_some())
            .map(|n| format!("<{}>", qualified(n)))
            .collect();
        steps.reverse();
        format!("{}{}", self.doc.root_path(), steps.concat())
    }

    /// `file:line` of the element (`line N` without a file), when the engine said where its
    /// text came from.
    pub fn place(&self) -> Option<String> {
        self.doc
            .origin()
            .place(self.doc.row_of(self.node.range().start))
    }

    /// The error `<owner>: <path> must be <expected>, found "<found>" at <file:line>`, for
    /// checks of a plugin's own.
    pub fn error(&self, expected: impl Into<String>, found: impl Into<String>) -> SdfError {
        SdfError::new(
            self.doc.origin(),
            self.path(),
            expected,
            found,
            self.place(),
        )
    }

    /// The document this element is in.
    pub fn document(&self) -> &'a SdfDocument<'t> {
        self.doc
    }
}

/// The name of `node` as written: its prefix (when its namespace has one in scope) and name.
fn qualified(node: Node<'_, '_>) -> String {
    let tag = node.tag_name();
    match tag.namespace().and_then(|uri| node.lookup_prefix(uri)) {
        Some(prefix) if !prefix.is_empty() => format!("{prefix}:{}", tag.name()),
        _ => tag.name().to_string(),
    }
}

/// Whether `node` is the element named `step` (`name` or `prefix:name`).
fn matches(node: Node<'_, '_>, step: &str) -> bool {
    if !node.is_element() {
        return false;
    }
    let tag = node.tag_name();
    match step.split_once(':') {
        Some((prefix, local)) => {
            tag.name() == local
                && tag.namespace().is_some()
                && node.lookup_namespace_uri(Some(prefix)) == tag.namespace()
        }
        None => {
            tag.name() == step
                && (tag.namespace().is_none() || tag.namespace() == node.lookup_namespace_uri(None))
        }
    }
}

/// The child elements of an [`Element`], all or those of one name
/// ([`Element::children`], [`Element::children_named`]).
#[derive(Clone, Debug)]
pub struct Children<'a, 't, 'n> {
    inner: roxmltree::Children<'a, 't>,
    doc: &'a SdfDocument<'t>,
    name: Option<&'n str>,
}

impl<'a, 't> Iterator for Children<'a, 't, '_> {
    type Item = Element<'a, 't>;

    fn next(&mut self) -> Option<Self::Item> {
        let name = self.name;
        self.inner
            .by_ref()
            .find(|n| n.is_element() && name.is_none_or(|step| matches(*n, step)))
            .map(|n| Element::new(n, self.doc))
    }
}
