//! The [`Reader`] context (file, source text, SDF version) and the helpers every element
//! function uses: child lookup, typed values with exact error positions, names, poses.

use std::path::PathBuf;
use std::sync::Arc;

use roxmltree::Node;

use super::error::{ErrorKind, LineIndex, SdfError};
use super::load::{Loader, Rewrites};
use super::params::Edited;
use super::source::{Origin, Source};
pub(crate) use super::text::Text;
use super::version::Version;
pub(crate) use sim_world::input::path_like;
use sim_world::{Pose, Quat, RawPose, Span, Vec3};

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

    // ----- typed values ---------------------------------------------------------------------

    /// The numbers of `node` (must be exactly one of the `counts`); None when the element is
    /// empty. `what` names the expected layout for messages, e.g. "x y z".
    pub fn numbers(
        &self,
        node: Node,
        counts: &[usize],
        what: &str,
    ) -> Result<Option<Vec<f64>>, SdfError> {
        let text = self.text(node);
        // Bounded before anything is split or parsed: a value is a few numbers.
        let max = self.loader.limits.max_value_bytes;
        if text.trimmed().len() > max {
            return Err(self.error_at(
                text.start(),
                node,
                ErrorKind::Invalid,
                format!(
                    "<{}> is {} bytes long; a value of numbers ({what}) is at most {max} bytes",
                    tag(node),
                    text.trimmed().len()
                ),
                "write the numbers the element takes, or raise the limit (--max-value-length, LoadOptions::limits.max_value_bytes)",
            ));
        }
        let tokens = text.tokens();
        if tokens.is_empty() {
            return Ok(None);
        }
        let mut values = Vec::with_capacity(tokens.len());
        for &(at, tok) in &tokens {
            values.push(self.number(node, at, tok)?);
        }
        if !counts.contains(&tokens.len()) {
            let expected = match counts {
                [n] => format!("{n}"),
                _ => counts
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            let plural = |n: usize| if n == 1 { "number" } else { "numbers" };
            let last = counts.last().copied().unwrap_or(1);
            return Err(self.error_at(
                text.start(),
                node,
                ErrorKind::Invalid,
                format!(
                    "<{}> needs {expected} {} ({what}), found {}: \"{}\"",
                    tag(node),
                    plural(last),
                    tokens.len(),
                    text.trimmed()
                ),
                format!(
                    "write {expected} {} separated by spaces: {what}",
                    plural(last)
                ),
            ));
        }
        Ok(Some(values))
    }

    /// One finite number token.
    fn number(&self, node: Node, at: usize, tok: &str) -> Result<f64, SdfError> {
        match tok.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            Ok(_) => Err(self.error_at(
                at,
                node,
                ErrorKind::Invalid,
                format!("<{}> must be a finite number, found \"{tok}\"", tag(node)),
                "infinite and NaN values are not allowed here",
            )),
            Err(_) => Err(self.error_at(
                at,
                node,
                ErrorKind::Invalid,
                format!("<{}> expects a number, found \"{tok}\"", tag(node)),
                "write a decimal number such as 0.5 or 1e-3",
            )),
        }
    }

    /// A single number element, None when absent or empty.
    pub fn f64_of(&self, node: Option<Node>) -> Result<Option<f64>, SdfError> {
        let Some(node) = node else { return Ok(None) };
        Ok(self
            .numbers(node, &[1], "one value")?
            .and_then(|v| v.first().copied()))
    }

    /// The number in child `name` of `parent`, `default` when absent.
    pub fn child_f64(&self, parent: Node, name: &str, default: f64) -> Result<f64, SdfError> {
        Ok(self.f64_of(self.child(parent, name))?.unwrap_or(default))
    }

    /// A strictly positive number in child `name`, `default` when absent.
    pub fn child_positive(
        &self,
        parent: Node,
        name: &str,
        default: f64,
        hint: &str,
    ) -> Result<f64, SdfError> {
        let Some(node) = self.child(parent, name) else {
            return Ok(default);
        };
        let v = self.f64_of(Some(node))?.unwrap_or(default);
        if v <= 0.0 {
            return Err(self.error_at(
                self.text(node).start(),
                node,
                ErrorKind::Invalid,
                format!(
                    "<{name}> must be greater than 0, found {}",
                    self.written(node)
                ),
                hint,
            ));
        }
        Ok(v)
    }

    /// A 3-vector in child `name`, `default` when absent.
    pub fn child_vec3(&self, parent: Node, name: &str, default: Vec3) -> Result<Vec3, SdfError> {
        match self.child(parent, name) {
            Some(node) => self.vec3_of(node, default),
            None => Ok(default),
        }
    }

    /// The 3-vector of `node`, `default` when it is empty.
    pub fn vec3_of(&self, node: Node, default: Vec3) -> Result<Vec3, SdfError> {
        Ok(match self.numbers(node, &[3], "x y z")? {
            Some(v) => Vec3::new(v[0], v[1], v[2]),
            None => default,
        })
    }

    /// A 3-vector with all components > 0 (sizes, radii).
    pub fn child_positive_vec3(
        &self,
        parent: Node,
        name: &str,
        default: Vec3,
        hint: &str,
    ) -> Result<Vec3, SdfError> {
        let Some(node) = self.child(parent, name) else {
            return Ok(default);
        };
        let v = self.vec3_of(node, default)?;
        if v.to_array().iter().any(|&c| c <= 0.0) {
            return Err(self.error_at(
                self.text(node).start(),
                node,
                ErrorKind::Invalid,
                format!(
                    "every component of <{name}> must be greater than 0, found {}",
                    self.written(node)
                ),
                hint,
            ));
        }
        Ok(v)
    }

    /// The boolean in child `name` of `parent`, `default` when absent or empty.
    pub fn child_bool(&self, parent: Node, name: &str, default: bool) -> Result<bool, SdfError> {
        Ok(self.bool_of(self.child(parent, name))?.unwrap_or(default))
    }

    /// The boolean of `node` (`true/false/1/0`, any case), None when absent or empty.
    pub fn bool_of(&self, node: Option<Node>) -> Result<Option<bool>, SdfError> {
        let Some(node) = node else { return Ok(None) };
        let text = self.text(node);
        let t = text.trimmed();
        if t.is_empty() {
            return Ok(None);
        }
        parse_bool(t).map(Some).ok_or_else(|| {
            self.error_at(
                text.start(),
                node,
                ErrorKind::Invalid,
                format!("<{}> must be a boolean, found \"{t}\"", tag(node)),
                "write true or false (1 and 0 are accepted too)",
            )
        })
    }

    /// The trimmed text of child `name`, None when absent or blank.
    pub fn child_string(&self, parent: Node, name: &str) -> Option<String> {
        let node = self.child(parent, name)?;
        let text = self.text(node);
        let t = text.trimmed();
        (!t.is_empty()).then(|| t.to_string())
    }

    // ----- poses ----------------------------------------------------------------------------

    /// The `<pose>` child of `parent` as written: its value and `relative_to` (SDF 1.7+) or
    /// `frame` (SDF 1.5, 1.6) attribute. Which frames that may name is checked when the
    /// model or world is resolved (see `frames`), not here. Without a `<pose>`, the
    /// identity relative to the default frame.
    pub fn raw_pose(&self, parent: Node) -> Result<RawPose, SdfError> {
        let Some(node) = self.child(parent, "pose") else {
            return Ok(RawPose {
                pose: Pose::IDENTITY,
                relative_to: String::new(),
                span: self.span(parent),
            });
        };
        let attr = if self.version >= Version::new(1, 7) {
            "relative_to"
        } else {
            "frame"
        };
        let relative_to = node
            .attribute(attr)
            .or_else(|| node.attribute("relative_to"))
            .unwrap_or("")
            .trim()
            .to_string();
        Ok(RawPose {
            pose: self.pose_of(node)?,
            relative_to,
            span: self.span(node),
        })
    }

    /// The pose written in `node`: `x y z roll pitch yaw` (radians, or degrees with
    /// `@degrees="true"`), or `x y z qx qy qz qw` with `@rotation_format="quat_xyzw"`.
    pub fn pose_of(&self, node: Node) -> Result<Pose, SdfError> {
        let quat = match node.attribute("rotation_format").map(str::trim) {
            None | Some("") | Some("euler_rpy") => false,
            Some("quat_xyzw") => true,
            Some(other) => {
                return Err(self.attr_error(
                    node,
                    "rotation_format",
                    ErrorKind::Invalid,
                    format!("unknown rotation_format \"{other}\""),
                    "use euler_rpy (x y z roll pitch yaw) or quat_xyzw (x y z qx qy qz qw)",
                ));
            }
        };
        let degrees = self.bool_attr(node, "degrees", false)?;
        if quat {
            let Some(v) = self.numbers(node, &[7], "x y z qx qy qz qw")? else {
                return Ok(Pose::IDENTITY);
            };
            let q = Quat::new(v[3], v[4], v[5], v[6]);
            let norm = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
            if !(norm > 1e-12 && norm.is_finite()) {
                return Err(self.error_at(
                    self.text(node).start(),
                    node,
                    ErrorKind::Invalid,
                    "the quaternion of this pose is zero",
                    "give a unit quaternion qx qy qz qw, e.g. 0 0 0 1 for no rotation",
                ));
            }
            Ok(Pose::new(Vec3::new(v[0], v[1], v[2]), q.normalized()))
        } else {
            let Some(v) = self.numbers(node, &[6], "x y z roll pitch yaw")? else {
                return Ok(Pose::IDENTITY);
            };
            let k = if degrees {
                std::f64::consts::PI / 180.0
            } else {
                1.0
            };
            Ok(Pose::from_xyz_rpy(
                v[0],
                v[1],
                v[2],
                v[3] * k,
                v[4] * k,
                v[5] * k,
            ))
        }
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
