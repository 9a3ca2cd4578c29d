//! Overrides: values written into a world's SDF text before it is read, so that the reader
//! sees them as if they were in the file (the Python package's `overrides=` and runs that
//! vary a parameter over a batch).
//!
//! An override is a path to one element or attribute and the value to put there. The path
//! is a `/`-separated list of element names below the root `<sdf>` (a leading `/` or `sdf/`
//! may be written), each of which may select among same-named siblings by name or by index,
//! and may end with an attribute:
//!
//! ```text
//! world/model[ground]/link[base]/collision[plane]/surface/friction/ode/mu
//! world/model[box]/pose
//! world/model[box]/link[0]/inertial/mass
//! world/physics/@type
//! ```
//!
//! * `name`: the only child element of that name (several: an error listing them);
//! * `name[text]`: the child of that name whose `name` attribute is `text`;
//! * `name[N]`: the `N`th child of that name, from 0, in document order;
//! * `@attr` (last step only): the attribute `attr` of the element reached.
//!
//! The element's text (or the attribute's value) is replaced; the value is XML-escaped.
//! Only what the file already has can be changed: an element or attribute that is not
//! written there is an error (saying so), as is an element holding child elements. Each
//! error names the override's path, the step that matched nothing or several elements, and
//! the candidates there. At most [`MAX_OVERRIDES`] overrides, each value at most
//! [`MAX_VALUE_BYTES`] bytes and each path at most [`MAX_PATH_BYTES`].
//!
//! The text is parsed as the reader parses it (leniently, see `lenient`), and every
//! replacement is spliced into the original text at the byte range the parser reports, so
//! the rest of the file, comments and formatting included, is kept as written.

use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;

use super::error::SdfError;
use super::lenient;
use super::load::LoadOptions;
use sim_world::World;

/// The most overrides one [`apply`] takes.
pub const MAX_OVERRIDES: usize = 1024;

/// The longest value of an override, in bytes.
pub const MAX_VALUE_BYTES: usize = 64 << 10;

/// The longest path of an override, in bytes.
pub const MAX_PATH_BYTES: usize = 1024;

/// One value to write into SDF text: where ([`Override::path`], see the module docs) and
/// what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    /// The element or attribute, e.g. `world/model[box]/pose` or `world/physics/@type`.
    pub path: String,
    /// The new text of the element, or the attribute's new value (unescaped).
    pub value: String,
}

impl Override {
    /// An override of `path` with `value`.
    pub fn new(path: impl Into<String>, value: impl Into<String>) -> Override {
        Override {
            path: path.into(),
            value: value.into(),
        }
    }
}

/// Why overrides could not be applied. Each names the override's path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OverrideError {
    /// More than [`MAX_OVERRIDES`] overrides.
    #[error("{0} overrides; at most {MAX_OVERRIDES} are taken at once")]
    TooMany(usize),
    /// A value longer than [`MAX_VALUE_BYTES`].
    #[error("override `{path}`: the value is {len} bytes; at most {MAX_VALUE_BYTES} are taken")]
    ValueTooLong {
        /// The override's path.
        path: String,
        /// The value's length.
        len: usize,
    },
    /// A path that cannot be read (empty, an empty step, an unclosed `[`, an attribute that
    /// is not last, too long).
    #[error("override `{path}`: {reason}")]
    BadPath {
        /// The override's path.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A step matched no element (or the attribute is not there).
    #[error("override `{path}`: `{step}` matches nothing in {within}; {candidates}")]
    NoMatch {
        /// The override's path.
        path: String,
        /// The step.
        step: String,
        /// The element the step looked in (`<model name="box">`).
        within: String,
        /// What is there instead, as a sentence.
        candidates: String,
    },
    /// A step without a selector matched several elements.
    #[error(
        "override `{path}`: `{step}` matches {count} elements in {within}; select one by name \
         or index: {candidates}"
    )]
    Ambiguous {
        /// The override's path.
        path: String,
        /// The step.
        step: String,
        /// How many matched.
        count: usize,
        /// The element the step looked in.
        within: String,
        /// The selectors that pick each.
        candidates: String,
    },
    /// The element reached holds child elements: only text can be replaced.
    #[error(
        "override `{path}`: {element} holds child elements ({children}); an override replaces \
         the text of an element without children, or an attribute"
    )]
    HasChildren {
        /// The override's path.
        path: String,
        /// The element.
        element: String,
        /// Its children's names.
        children: String,
    },
    /// Two overrides change the same element or attribute, or one lies inside the other.
    #[error("overrides `{0}` and `{1}` change the same part of the document")]
    Overlap(String, String),
    /// The text is not XML the reader can parse (loading it without overrides reports where).
    #[error("overrides cannot be applied: the document is not well-formed XML ({0})")]
    NotXml(String),
}

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    /// An element, optionally selected.
    Element { name: String, select: Select },
    /// An attribute (the last step).
    Attribute(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Select {
    Only,
    Named(String),
    Index(usize),
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Element { name, select } => match select {
                Select::Only => write!(f, "{name}"),
                Select::Named(n) => write!(f, "{name}[{n}]"),
                Select::Index(i) => write!(f, "{name}[{i}]"),
            },
            Step::Attribute(a) => write!(f, "@{a}"),
        }
    }
}

/// Reads an override's path into its steps.
fn parse_path(path: &str) -> Result<Vec<Step>, OverrideError> {
    let bad = |reason: String| OverrideError::BadPath {
        path: path.to_string(),
        reason,
    };
    if path.len() > MAX_PATH_BYTES {
        return Err(bad(format!(
            "the path is {} bytes; at most {MAX_PATH_BYTES} are taken",
            path.len()
        )));
    }
    let mut rest = path.strip_prefix('/').unwrap_or(path);
    rest = rest.strip_prefix("sdf/").unwrap_or(rest);
    if rest.trim().is_empty() {
        return Err(bad(
            "the path is empty; write the elements below <sdf>, e.g. `world/model[box]/pose`"
                .into(),
        ));
    }
    // Split on `/` outside brackets (a name in brackets may hold a `/`).
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in rest.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '/' if depth == 0 => {
                parts.push(&rest[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&rest[start..]);
    let last = parts.len() - 1;
    let mut steps = Vec::with_capacity(parts.len());
    for (i, part) in parts.into_iter().enumerate() {
        let part = part.trim();
        if part.is_empty() {
            return Err(bad(format!(
                "step {} is empty (`//` or a trailing `/`)",
                i + 1
            )));
        }
        if let Some(attr) = part.strip_prefix('@') {
            if i != last {
                return Err(bad(format!("the attribute `{part}` must be the last step")));
            }
            if i == 0 {
                return Err(bad(format!(
                    "the attribute `{part}` needs an element before it"
                )));
            }
            if !is_name(attr) {
                return Err(bad(format!("`{attr}` is not an attribute name")));
            }
            steps.push(Step::Attribute(attr.to_string()));
            continue;
        }
        let (name, select) = match part.find('[') {
            None => (part, Select::Only),
            Some(open) => {
                let Some(inner) = part[open + 1..].strip_suffix(']') else {
                    return Err(bad(format!(
                        "`{part}`: a selector is written `name[text]` or `name[N]`, closed by \
                         `]` at the end of the step"
                    )));
                };
                let select = match inner.parse::<usize>() {
                    Ok(n) if inner.bytes().all(|b| b.is_ascii_digit()) => Select::Index(n),
                    _ if inner.is_empty() => {
                        return Err(bad(format!("`{part}`: the selector is empty")));
                    }
                    _ => Select::Named(inner.to_string()),
                };
                (&part[..open], select)
            }
        };
        if !is_name(name) {
            return Err(bad(format!("`{name}` is not an element name")));
        }
        steps.push(Step::Element {
            name: name.to_string(),
            select,
        });
    }
    Ok(steps)
}

/// Whether `s` can be an XML name (as SDF writes them: letters, digits, `_`, `-`, `.`, `:`).
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

/// `name` as the lenient parse sees it (undeclared prefixes' colons become `.`).
fn same_name(step: &str, tag: &str) -> bool {
    step == tag || (step.contains(':') && step.replace(':', ".") == tag)
}

/// How an element is named in messages: `<model name="box">`, `<pose>`.
fn describe(node: roxmltree::Node) -> String {
    match node.attribute("name") {
        Some(n) => format!("<{} name=\"{n}\">", node.tag_name().name()),
        None => format!("<{}>", node.tag_name().name()),
    }
}

/// The selectors that pick each of `nodes` (by name where they have one, else by index).
fn selectors(tag: &str, nodes: &[roxmltree::Node]) -> String {
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| match n.attribute("name") {
            Some(name) => format!("`{tag}[{name}]`"),
            None => format!("`{tag}[{i}]`"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The distinct names of `node`'s child elements, in document order.
fn child_names(node: roxmltree::Node) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for c in node.children().filter(|c| c.is_element()) {
        let n = c.tag_name().name().to_string();
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// The byte range of `source` an override replaces, and whether it is an attribute's value.
fn target(
    doc: &roxmltree::Document,
    source: &str,
    o: &Override,
) -> Result<(Range<usize>, bool), OverrideError> {
    let steps = parse_path(&o.path)?;
    let mut node = doc.root_element();
    for step in &steps {
        let no_match = |step: &Step, candidates: String| OverrideError::NoMatch {
            path: o.path.clone(),
            step: step.to_string(),
            within: describe(node),
            candidates,
        };
        match step {
            Step::Attribute(a) => {
                let Some(attr) = node
                    .attributes()
                    .find(|at| same_name(a, at.name()) && at.namespace().is_none())
                else {
                    let names: Vec<String> =
                        node.attributes().map(|a| a.name().to_string()).collect();
                    return Err(no_match(
                        step,
                        format!(
                            "the attribute is not written there (an override changes what \
                             the file has, it does not add to it); its attributes: {}",
                            list(&names)
                        ),
                    ));
                };
                return Ok((attr.range_value(), true));
            }
            Step::Element { name, select } => {
                let same: Vec<roxmltree::Node> = node
                    .children()
                    .filter(|c| c.is_element() && same_name(name, c.tag_name().name()))
                    .collect();
                let found = match select {
                    Select::Only => match same.len() {
                        1 => Some(same[0]),
                        0 => None,
                        count => {
                            return Err(OverrideError::Ambiguous {
                                path: o.path.clone(),
                                step: step.to_string(),
                                count,
                                within: describe(node),
                                candidates: selectors(name, &same),
                            });
                        }
                    },
                    Select::Named(n) => same
                        .iter()
                        .find(|c| c.attribute("name") == Some(n.as_str()))
                        .copied(),
                    Select::Index(i) => same.get(*i).copied(),
                };
                node = match found {
                    Some(n) => n,
                    None if same.is_empty() => {
                        return Err(no_match(
                            step,
                            format!(
                                "there is no <{name}> there (an override changes an element \
                                 the file has, it does not add one); its child elements: {}",
                                list(&child_names(node))
                            ),
                        ));
                    }
                    None => {
                        return Err(no_match(
                            step,
                            format!("its <{name}> elements: {}", selectors(name, &same)),
                        ));
                    }
                };
            }
        }
    }
    if node.children().any(|c| c.is_element()) {
        return Err(OverrideError::HasChildren {
            path: o.path.clone(),
            element: describe(node),
            children: list(&child_names(node)),
        });
    }
    Ok((content_range(node, source), false))
}

/// The range of an element's content: between its start and end tags (for `<a/>`, the `/`
/// of the empty-element tag, which is replaced by `>value</a` so that it becomes `<a>value</a>`).
fn content_range(node: roxmltree::Node, source: &str) -> Range<usize> {
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
fn escape(value: &str, attribute: bool) -> Cow<'_, str> {
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

/// `source` with each override's value written at its path (see the module docs); the text
/// is otherwise unchanged. All overrides are found in the original text first, so none
/// sees another's change; two that change the same part are an error.
pub fn apply(source: &str, overrides: &[Override]) -> Result<String, OverrideError> {
    if overrides.len() > MAX_OVERRIDES {
        return Err(OverrideError::TooMany(overrides.len()));
    }
    if overrides.is_empty() {
        return Ok(source.to_string());
    }
    for o in overrides {
        if o.value.len() > MAX_VALUE_BYTES {
            return Err(OverrideError::ValueTooLong {
                path: o.path.clone(),
                len: o.value.len(),
            });
        }
        parse_path(&o.path)?;
    }
    // Parsed as the reader parses (length-preserving repairs), so ranges are the source's.
    let mut prepared = lenient::normalise(source);
    let mut dropped = 0;
    let doc = loop {
        match super::parse::parse_xml(&prepared) {
            Ok(doc) => break doc,
            Err(roxmltree::Error::UnknownNamespace(prefix, _)) if dropped < 16 => {
                dropped += 1;
                prepared = Cow::Owned(lenient::drop_prefix(&prepared, &prefix));
            }
            Err(e) => return Err(OverrideError::NotXml(e.to_string())),
        }
    };
    let mut edits: Vec<(Range<usize>, String, &str)> = Vec::with_capacity(overrides.len());
    for o in overrides {
        let (range, attribute) = target(&doc, &prepared, o)?;
        let value = escape(&o.value, attribute);
        let empty_element = !attribute
            && range.is_empty()
            && source[range.start..].starts_with("/>")
            && !source[..range.start].ends_with('>');
        let (range, text) = if empty_element {
            // `<a/>` (or `<a attr="x"/>`) becomes `<a>value</a>` (`<a attr="x">value</a>`).
            let node_name = element_name_before(source, range.start);
            (
                range.start..range.start + 1,
                format!(">{value}</{node_name}"),
            )
        } else {
            (range, value.into_owned())
        };
        edits.push((range, text, o.path.as_str()));
    }
    edits.sort_by_key(|(r, _, _)| (r.start, r.end));
    for w in edits.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if b.0.start < a.0.end || (a.0 == b.0) {
            return Err(OverrideError::Overlap(a.2.to_string(), b.2.to_string()));
        }
    }
    let mut out = String::with_capacity(source.len() + 64);
    let mut at = 0;
    for (range, text, _) in &edits {
        out.push_str(&source[at..range.start]);
        out.push_str(text);
        at = range.end;
    }
    out.push_str(&source[at..]);
    Ok(out)
}

/// Why a world could not be loaded with overrides.
#[derive(Debug, thiserror::Error)]
pub enum OverriddenLoadError {
    /// An override could not be applied (the world was not read).
    #[error(transparent)]
    Override(#[from] OverrideError),
    /// The world, overrides applied, does not read (the report, with file, line and
    /// column, is [`SdfError::render`]'s).
    #[error("{}", .0.render(None))]
    Sdf(#[from] SdfError),
}

/// Reads the world file at `path` as [`super::load_with`] does, with `overrides` applied to
/// its text first: errors point into the overridden text, at the file's lines.
pub fn load_with(
    path: &Path,
    options: &LoadOptions,
    overrides: &[Override],
) -> Result<World, OverriddenLoadError> {
    if overrides.is_empty() {
        return Ok(super::load_with(path, options)?);
    }
    let text = super::parse::read_text(path, &options.limits)?;
    let text = apply(&text, overrides)?;
    Ok(super::parse_str_with(&text, Some(path), options)?)
}

/// Reads SDF text as [`super::parse_str_with`] does, with `overrides` applied first.
pub fn parse_str_with(
    text: &str,
    file: Option<&Path>,
    options: &LoadOptions,
    overrides: &[Override],
) -> Result<World, OverriddenLoadError> {
    let text = apply(text, overrides)?;
    Ok(super::parse_str_with(&text, file, options)?)
}

/// The name of the element whose empty-element tag's `/>` is at `slash`.
fn element_name_before(source: &str, slash: usize) -> &str {
    let open = source[..slash].rfind('<').map_or(0, |i| i + 1);
    let tag = &source[open..slash];
    let end = tag
        .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
        .unwrap_or(tag.len());
    &tag[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORLD: &str = r#"<?xml version="1.0"?>
<sdf version="1.9">
  <!-- a comment -- with dashes -->
  <world name="w">
    <physics type="ode"><max_step_size>0.001</max_step_size></physics>
    <gz:policies><x>1</x></gz:policies>
    <model name="ground">
      <static>true</static>
      <link name="base">
        <collision name="plane">
          <surface><friction><ode><mu>1.0</mu></ode></friction></surface>
        </collision>
        <collision name="wall"><surface/></collision>
      </link>
    </model>
    <model name="box">
      <pose>0 0 1 0 0 0</pose>
      <link name="body"><inertial><mass>2</mass></inertial><gravity/></link>
      <link name="other"><gravity></gravity></link>
    </model>
  </world>
</sdf>
"#;

    fn one(path: &str, value: &str) -> Result<String, OverrideError> {
        apply(WORLD, &[Override::new(path, value)])
    }

    #[test]
    fn an_element_text_is_replaced_and_the_rest_kept() {
        let out = one(
            "world/model[ground]/link[base]/collision[plane]/surface/friction/ode/mu",
            "0.25",
        )
        .unwrap();
        assert_eq!(out, WORLD.replace("<mu>1.0</mu>", "<mu>0.25</mu>"));
        // Written with the root, a leading slash, or by index: the same element.
        for path in [
            "sdf/world/model[box]/pose",
            "/world/model[1]/pose",
            "world/model[box]/pose",
        ] {
            let out = one(path, "1 2 3 0 0 0").unwrap();
            assert_eq!(
                out,
                WORLD.replace("<pose>0 0 1 0 0 0</pose>", "<pose>1 2 3 0 0 0</pose>"),
                "{path}"
            );
        }
    }

    #[test]
    fn attributes_and_empty_elements_are_written() {
        let out = one("world/physics/@type", "dart").unwrap();
        assert!(out.contains(r#"<physics type="dart">"#), "{out}");
        let out = one("world/model[box]/link[body]/gravity", "false").unwrap();
        assert!(out.contains("<gravity>false</gravity></link>"), "{out}");
        let out = one("world/model[box]/link[other]/gravity", "true").unwrap();
        assert!(out.contains("<gravity>true</gravity>"), "{out}");
        // The result reads as the reader reads it.
        crate::parse_str(&out, None).unwrap();
    }

    #[test]
    fn values_are_escaped() {
        let out = one("world/model[box]/pose", "<&>").unwrap();
        assert!(out.contains("<pose>&lt;&amp;&gt;</pose>"), "{out}");
        let out = one("world/@name", "a\"b").unwrap();
        assert!(out.contains(r#"<world name="a&quot;b">"#), "{out}");
    }

    #[test]
    fn several_overrides_apply_together_and_overlaps_are_refused() {
        let out = apply(
            WORLD,
            &[
                Override::new("world/model[box]/pose", "0 0 5 0 0 0"),
                Override::new("world/model[box]/link[body]/inertial/mass", "3"),
                Override::new("world/physics/max_step_size", "0.002"),
            ],
        )
        .unwrap();
        assert!(out.contains("<pose>0 0 5 0 0 0</pose>"));
        assert!(out.contains("<mass>3</mass>"));
        assert!(out.contains("<max_step_size>0.002</max_step_size>"));
        let e = apply(
            WORLD,
            &[
                Override::new("world/model[box]/pose", "1"),
                Override::new("world/model[1]/pose", "2"),
            ],
        )
        .unwrap_err();
        assert!(matches!(e, OverrideError::Overlap(..)), "{e}");
    }

    #[test]
    fn a_step_matching_nothing_names_the_path_the_step_and_the_candidates() {
        let e = one("world/model[bx]/pose", "1").unwrap_err().to_string();
        assert!(e.contains("override `world/model[bx]/pose`"), "{e}");
        assert!(
            e.contains("`model[bx]` matches nothing in <world name=\"w\">"),
            "{e}"
        );
        assert!(e.contains("`model[ground]`, `model[box]`"), "{e}");
        let e = one("world/model[7]/pose", "1").unwrap_err().to_string();
        assert!(e.contains("`model[7]`"), "{e}");
        // An element not written is not added.
        let e = one("world/model[box]/static", "true")
            .unwrap_err()
            .to_string();
        assert!(e.contains("there is no <static> there"), "{e}");
        assert!(e.contains("does not add one"), "{e}");
        assert!(e.contains("its child elements: pose, link"), "{e}");
        let e = one("world/model[box]/@kind", "x").unwrap_err().to_string();
        assert!(e.contains("its attributes: name"), "{e}");
    }

    #[test]
    fn an_ambiguous_step_lists_the_selectors() {
        let e = one("world/model/pose", "1").unwrap_err();
        let OverrideError::Ambiguous {
            count, candidates, ..
        } = &e
        else {
            panic!("{e}");
        };
        assert_eq!(*count, 2);
        assert_eq!(candidates, "`model[ground]`, `model[box]`");
        assert!(e.to_string().contains("select one by name or index"));
    }

    #[test]
    fn elements_with_children_and_bad_paths_are_refused() {
        let e = one("world/model[box]", "x").unwrap_err().to_string();
        assert!(e.contains("holds child elements (pose, link)"), "{e}");
        for (path, what) in [
            ("", "empty"),
            ("world//model", "empty"),
            ("world/model[box", "closed by `]`"),
            ("world/@name/pose", "must be the last step"),
            ("@name", "needs an element"),
            ("world/mo del", "not an element name"),
            ("world/model[]", "selector is empty"),
        ] {
            let e = one(path, "x").unwrap_err();
            assert!(matches!(e, OverrideError::BadPath { .. }), "{path}: {e}");
            assert!(e.to_string().contains(what), "{path}: {e}");
        }
        let long = "a/".repeat(MAX_PATH_BYTES);
        assert!(one(&long, "x").is_err());
    }

    #[test]
    fn undeclared_prefixes_and_bounds() {
        // An element with an undeclared prefix is reached by its name as written.
        let out = one("world/gz:policies/x", "2").unwrap();
        assert!(out.contains("<gz:policies><x>2</x></gz:policies>"), "{out}");
        let many = vec![Override::new("world/@name", "x"); MAX_OVERRIDES + 1];
        assert_eq!(
            apply(WORLD, &many).unwrap_err(),
            OverrideError::TooMany(MAX_OVERRIDES + 1)
        );
        let big = "1".repeat(MAX_VALUE_BYTES + 1);
        assert!(matches!(
            one("world/model[box]/pose", &big).unwrap_err(),
            OverrideError::ValueTooLong { .. }
        ));
        assert!(matches!(
            apply("<sdf><world>", &[Override::new("world/@name", "x")]).unwrap_err(),
            OverrideError::NotXml(_)
        ));
        // No overrides: the text as it was.
        assert_eq!(apply(WORLD, &[]).unwrap(), WORLD);
    }
}
