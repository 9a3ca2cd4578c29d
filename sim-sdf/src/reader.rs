//! The [`Reader`] context (file, source text, SDF version) and the helpers every element
//! function uses: spans and errors, child lookup, attributes, names. Typed values of an
//! element's text (numbers, vectors, booleans, poses) are in `values`.

use std::path::PathBuf;
use std::sync::Arc;

use roxmltree::Node;

use super::error::{ErrorKind, LineIndex, SdfError};
use super::load::{Loader, Rewrites};
use super::params::Edited;
use super::source::{Origin, Source};
pub(crate) use super::text::Text;
use super::text::parse_bool;
use super::version::Version;
use sim_world::Span;
pub(crate) use sim_world::input::path_like;

/// Reading context: everything an element function needs besides the node itself. One per
/// document (an included file has its own).
pub(crate) struct Reader<'s> {
    /// The file being read, shared by every [`Span`].
    pub file: Option<Arc<PathBuf>>,
    /// The source text as given (errors quote it; `sdf` texts are sliced from it).
    pub source: &'s str,
    /// The version the document declares.
    pub version: Version,
    /// Line starts of `source`.
    pub lines: LineIndex,
    /// What the whole load shares: the resource search path, the included files already read.
    pub loader: &'s Loader,
    /// For an included file edited by `<experimental:params>` (`source` is then the edited
    /// text): where each part of it was written, and the edits for the models it includes.
    pub edited: Option<std::rc::Rc<Edited>>,
    /// The texts some of this document's includes read instead of their files (SDF
    /// overrides written into them), by where the `<include>` starts in the text it was
    /// written in (this file's text, the overrides written).
    pub rewrites: Option<std::rc::Rc<Rewrites>>,
    /// `source` shared, made once on the first error that quotes it.
    pub shared_source: std::cell::OnceCell<Arc<String>>,
}

/// The largest depth of nested models accepted (deeper input is certainly not a real world,
/// and the recursion must stay bounded).
pub(crate) const MAX_MODEL_DEPTH: usize = 64;

impl<'s> Reader<'s> {
    /// A reader of `source` (the text of `file`) declaring `version`, sharing `loader`.
    pub fn new(
        file: Option<Arc<PathBuf>>,
        source: &'s str,
        version: Version,
        loader: &'s Loader,
    ) -> Reader<'s> {
        Reader {
            file,
            source,
            version,
            lines: LineIndex::new(source),
            loader,
            edited: None,
            rewrites: None,
            shared_source: Default::default(),
        }
    }

    // ----- positions and errors -------------------------------------------------------------

    /// Where `node` starts.
    pub fn span(&self, node: Node) -> Span {
        let offset = node.range().start;
        match &self.edited {
            Some(edited) => {
                let origin = edited.origins.map(offset);
                let (line, column) = origin.line_col();
                Span {
                    file: origin.source.file.clone(),
                    line,
                    column,
                }
            }
            None => {
                let (line, column) = self.lines.line_col(self.source, offset);
                Span {
                    file: self.file.clone(),
                    line,
                    column,
                }
            }
        }
    }

    /// The source text, shared (copied once per reader, for errors to quote).
    fn source_arc(&self) -> Arc<String> {
        self.shared_source
            .get_or_init(|| Arc::new(self.source.to_string()))
            .clone()
    }

    /// The file, line, column and file text of byte `offset` of the source: of the text it
    /// was written in, for an edited included file.
    fn locate(&self, offset: usize) -> (Option<Arc<PathBuf>>, u32, u32, Arc<String>) {
        match &self.edited {
            Some(edited) => {
                let origin = edited.origins.map(offset);
                let (line, column) = origin.line_col();
                let text = origin.source.text.clone();
                (origin.source.file.clone(), line, column, text)
            }
            None => {
                let (line, column) = self.lines.line_col(self.source, offset);
                (self.file.clone(), line, column, self.source_arc())
            }
        }
    }

    /// A function giving where byte offsets of this source were written (for edits read
    /// here and applied to another file).
    pub fn origins(&self) -> impl Fn(usize) -> Origin + use<'_> {
        // This file's text (not needed, and left empty, when it is an edited one).
        let text = if self.edited.is_some() {
            ""
        } else {
            self.source
        };
        let own = Source::new(self.file.clone(), text);
        move |offset| match &self.edited {
            Some(edited) => edited.origins.map(offset),
            None => Origin {
                source: own.clone(),
                offset,
            },
        }
    }

    /// An error at byte `offset`, about `node`.
    pub fn error_at(
        &self,
        offset: usize,
        node: Node,
        kind: ErrorKind,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> SdfError {
        let (file, line, column, text) = self.locate(offset);
        SdfError {
            kind,
            file: file.as_deref().cloned(),
            line,
            column,
            element: describe(node),
            message: message.into(),
            hint: hint.into(),
            source_text: Some(text),
            included_from: Box::default(),
            others: Box::default(),
        }
    }

    /// An error at the start of `node`.
    pub fn error(
        &self,
        node: Node,
        kind: ErrorKind,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> SdfError {
        self.error_at(node.range().start, node, kind, message, hint)
    }

    /// An error at `span` (an element already read into the data model), about `element`
    /// (e.g. `<link name="base">`).
    pub fn error_span(
        &self,
        span: &Span,
        element: impl Into<String>,
        kind: ErrorKind,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> SdfError {
        let same_file = span.file.is_none() || span.file == self.file;
        let source_text = match &self.edited {
            Some(edited) => edited
                .origins
                .text_of(span.file.as_deref().or(self.file.as_deref())),
            None => same_file.then(|| self.source_arc()),
        };
        SdfError {
            kind,
            file: span
                .file
                .as_deref()
                .cloned()
                .or(self.file.as_deref().cloned()),
            line: span.line.max(1),
            column: span.column.max(1),
            element: element.into(),
            message: message.into(),
            hint: hint.into(),
            source_text,
            included_from: Box::default(),
            others: Box::default(),
        }
    }

    /// The "not supported yet" error for an element this reader does not handle.
    pub fn unsupported(&self, node: Node, what: &str, hint: &str) -> SdfError {
        self.error(
            node,
            ErrorKind::Unsupported,
            format!("{what} not supported yet by this reader"),
            hint,
        )
    }

    // ----- elements -------------------------------------------------------------------------

    /// The first child element named `name`. SDF allows each of these once; as libsdformat,
    /// a repeated one is ignored (with a warning).
    pub fn child<'n>(&self, parent: Node<'n, 'n>, name: &str) -> Option<Node<'n, 'n>> {
        let mut found = children(parent, name);
        let first = found.next();
        if let Some(again) = found.next() {
            self.loader.warn(self.error(
                again,
                ErrorKind::Duplicate,
                format!(
                    "<{name}> appears more than once in {}; only the first is used",
                    describe(parent)
                ),
                format!("remove the repeated <{name}>"),
            ));
        }
        first
    }

    /// The value of `node` as written, in quotes (trimmed, cut after 64 characters): what an
    /// error about the value quotes, rather than the number read from it (`"-1e300"`, not
    /// its 301 digits).
    pub fn written(&self, node: Node) -> String {
        let text = self.text(node);
        let text = text.trimmed();
        let cut: String = text.chars().take(64).collect();
        let more = if cut.len() < text.len() { "..." } else { "" };
        format!("\"{cut}{more}\"")
    }

    /// The text of `node`.
    pub fn text(&self, node: Node) -> Text {
        let texts: Vec<Node> = node.children().filter(|c| c.is_text()).collect();
        let value: String = texts.iter().filter_map(|t| t.text()).collect();
        match texts.as_slice() {
            [only] => {
                let range = only.range();
                let exact = self.source.get(range.clone()) == Some(value.as_str());
                Text {
                    value,
                    offset: range.start,
                    exact,
                }
            }
            [first, ..] => Text {
                value,
                offset: first.range().start,
                exact: false,
            },
            [] => Text {
                value,
                offset: node.range().start,
                exact: false,
            },
        }
    }

    /// The XML text of the whole element, as a document of its own, for the plugin that
    /// reads it: the element as written, with the namespace declarations it relies on from
    /// its ancestors added to its start tag, and with the same length-preserving repairs as
    /// the whole document (an undeclared `gz:` prefix reads as `gz.`), so that any XML
    /// parser accepts it.
    pub fn element_source(&self, node: Node) -> String {
        let text = node
            .document()
            .input_text()
            .get(node.range())
            .unwrap_or_default();
        self.warn_undeclared(node, text);
        let mut decls = String::new();
        for ns in node.namespaces() {
            let attr = match ns.name() {
                Some(prefix) => format!("xmlns:{prefix}="),
                None => "xmlns=".to_string(),
            };
            let start_tag = text.split('>').next().unwrap_or_default();
            if !start_tag.contains(&attr) {
                let uri = ns
                    .uri()
                    .replace('&', "&amp;")
                    .replace('"', "&quot;")
                    .replace('<', "&lt;");
                decls.push_str(&format!(" {attr}\"{uri}\""));
            }
        }
        if decls.is_empty() {
            return text.to_string();
        }
        // After the element's name: the first space, `/` or `>` of the start tag.
        let at = text
            .char_indices()
            .skip(1)
            .find(|(_, c)| c.is_whitespace() || *c == '/' || *c == '>')
            .map_or(text.len(), |(i, _)| i);
        format!("{}{decls}{}", &text[..at], &text[at..])
    }

    // ----- attributes -----------------------------------------------------------------------

    /// A required attribute, e.g. `name`: must be present and not blank.
    pub fn required_attr(&self, node: Node, attr: &str, hint: &str) -> Result<String, SdfError> {
        match node.attribute(attr) {
            Some(v) if !v.trim().is_empty() => Ok(v.to_string()),
            Some(_) => Err(self.attr_error(
                node,
                attr,
                ErrorKind::Invalid,
                format!("the `{attr}` attribute of <{}> is empty", tag(node)),
                hint,
            )),
            None => Err(self.error(
                node,
                ErrorKind::Missing,
                format!("<{}> has no `{attr}` attribute", tag(node)),
                hint,
            )),
        }
    }

    /// Where the value of attribute `attr` of `node` is written (`node` itself when it has
    /// no such attribute).
    pub fn attr_span(&self, node: Node, attr: &str) -> Span {
        let at = node
            .attribute_node(attr)
            .map_or(node.range().start, |a| a.range_value().start);
        let (file, line, column, _) = self.locate(at);
        Span { file, line, column }
    }

    /// An error about attribute `attr` of `node`, placed at its value.
    pub fn attr_error(
        &self,
        node: Node,
        attr: &str,
        kind: ErrorKind,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> SdfError {
        let at = node
            .attribute_node(attr)
            .map_or(node.range().start, |a| a.range_value().start);
        self.error_at(at, node, kind, message, hint)
    }

    /// A boolean attribute (`true/false/1/0`), `default` when absent.
    pub fn bool_attr(&self, node: Node, attr: &str, default: bool) -> Result<bool, SdfError> {
        match node.attribute(attr) {
            None => Ok(default),
            Some(v) if v.trim().is_empty() => Ok(default),
            Some(v) => parse_bool(v).ok_or_else(|| {
                self.attr_error(
                    node,
                    attr,
                    ErrorKind::Invalid,
                    format!("`{attr}` must be a boolean, found \"{v}\""),
                    "write true or false (1 and 0 are accepted too)",
                )
            }),
        }
    }

    /// The `name` attribute of an entity (model, link, collision, ...): required, and free of
    /// `::` (the scope separator); since SDF 1.7 `world` and `__*__` names are reserved for
    /// models and links (`reserved` true).
    pub fn entity_name(&self, node: Node, reserved: bool) -> Result<String, SdfError> {
        let kind = tag(node);
        let name = self.required_attr(
            node,
            "name",
            &format!("give the <{kind}> a unique name, e.g. <{kind} name=\"my_{kind}\">"),
        )?;
        // Before 1.8, `::` was allowed in names (flattened nested models use it).
        if name.contains("::") && self.version >= Version::new(1, 8) {
            return Err(self.attr_error(
                node,
                "name",
                ErrorKind::Invalid,
                format!("the name \"{name}\" contains `::`, which separates scopes in SDF"),
                "rename it without `::` (nest a <model> to make a scope)",
            ));
        }
        // A model's name names files too (a camera saving under it, a log): nothing that
        // reads as a path or cannot be written.
        if kind == "model"
            && let Some(problem) = path_like(&name)
        {
            return Err(self.attr_error(
                node,
                "name",
                ErrorKind::Invalid,
                format!("the model name {name:?} {problem}"),
                "use letters, digits, `_`, `-` and `.` (no `/`, `\\`, `..` or control characters)",
            ));
        }
        // libsdformat reserves `world` and `__*__` for links in every version, for models
        // and frames since SDF 1.7.
        if reserved
            && (self.version >= Version::new(1, 7) || kind == "link")
            && (name == "world"
                || (name.len() > 4 && name.starts_with("__") && name.ends_with("__")))
        {
            return Err(self.attr_error(
                node,
                "name",
                ErrorKind::Invalid,
                format!(
                    "the name \"{name}\" is reserved in SDF (`world` and names like `__name__`)"
                ),
                "choose another name",
            ));
        }
        Ok(name)
    }
}

/// The errors of reading each SDF child element of `node` with `read`: every child is read,
/// whatever the errors of the ones before.
pub(crate) fn each_child(
    node: Node,
    mut read: impl FnMut(Node) -> Result<(), SdfError>,
) -> Vec<SdfError> {
    node.children()
        .filter(|c| is_sdf_element(*c))
        .filter_map(|c| read(c).err())
        .collect()
}

/// The value of `result`, or `fallback` with its error kept in `errors`: for reading on
/// after an error, so that every independent error of an element is reported.
pub(crate) fn keep<T>(errors: &mut Vec<SdfError>, result: Result<T, SdfError>, fallback: T) -> T {
    match result {
        Ok(v) => v,
        Err(e) => {
            errors.push(e);
            fallback
        }
    }
}

/// The SDF child elements of `parent` named `name`, in document order. Namespaced elements
/// (`<gz:...>`) are never SDF elements.
pub(crate) fn children<'n, 'a>(
    parent: Node<'n, 'n>,
    name: &'a str,
) -> impl Iterator<Item = Node<'n, 'n>> + use<'n, 'a> {
    parent
        .children()
        .filter(move |c| is_sdf_element(*c) && c.tag_name().name() == name)
}

/// Whether `node` is an element of SDF itself (not a namespaced extension).
pub(crate) fn is_sdf_element(node: Node) -> bool {
    node.is_element() && node.tag_name().namespace().is_none()
}

/// The tag name of `node`.
pub(crate) fn tag<'n>(node: Node<'n, '_>) -> &'n str {
    node.tag_name().name()
}

/// How `node` is named in messages: `<link name="base">`, or for an unnamed element
/// `<mass> in <link name="base">` (its nearest named ancestor).
pub(crate) fn describe(node: Node) -> String {
    fn one(n: Node) -> String {
        match n.attribute("name") {
            Some(name) => format!("<{} name=\"{name}\">", tag(n)),
            None => format!("<{}>", tag(n)),
        }
    }
    if !node.is_element() {
        return String::new();
    }
    let mut s = one(node);
    if node.attribute("name").is_none()
        && let Some(owner) = node
            .ancestors()
            .skip(1)
            .find(|a| a.is_element() && a.attribute("name").is_some())
    {
        s.push_str(" in ");
        s.push_str(&one(owner));
    }
    s
}
