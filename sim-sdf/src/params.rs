//! `<experimental:params>` in an `<include>`: edits of the included model before it is read,
//! as libsdformat applies them (SDFormat's parameter passing proposal).
//!
//! Each child of `<experimental:params>` names an element of the included model by its
//! `element_id`, the scoped name below the model (`link::visual`, `nested::link`; for
//! `action="add"`, the parent, `""` being the model itself), and says what to do with
//! `action`:
//!
//! * `add`: the element (with its `name`, which must be new) is appended to the parent;
//! * `modify`: its attributes and values are set from the modifier, child by child (an empty
//!   value element resets it to its default);
//! * `remove`: the element goes, or, when the modifier has children, those children of it;
//! * `replace`: it is replaced, in place, by the modifier;
//! * no `action`: each child of the modifier carries its own action, applied to the
//!   children of the element.
//!
//! The edits are applied to the included file's XML tree; the edited tree is written out as
//! a document of its own and read as the file would be, with every position mapped back to
//! where its text came from (the included file, or the `<experimental:params>` of the
//! including file), so errors point at the text the user wrote. An `element_id` that leads
//! into a model the included file itself includes is handed on to that `<include>` (with the
//! part of the id below it), so edits reach models included at any depth, as libsdformat's
//! edits of the fully expanded tree do. Every edit that cannot be applied (no such element,
//! a missing `element_id` or `name`, an unknown action or attribute, a duplicate name) is an
//! error, as libsdformat reports it.

use std::collections::HashMap;
use std::rc::Rc;

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::schema::{SDF_ELEMENTS, defines_child, known_attribute};
use super::source::{Origin, Origins, Source};
use super::xml::{Writer, XElem, XNode, collect_namespaces};

/// What an edit does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Action {
    Add,
    Modify,
    Remove,
    Replace,
}

impl Action {
    fn parse(s: &str) -> Option<Action> {
        match s {
            "add" => Some(Action::Add),
            "modify" => Some(Action::Modify),
            "remove" => Some(Action::Remove),
            "replace" => Some(Action::Replace),
            _ => None,
        }
    }
}

/// The hint for an unknown action.
const ACTIONS: &str = "action is one of add, modify, remove and replace";

/// One child of `<experimental:params>`: an edit of the included model.
#[derive(Clone)]
pub(crate) struct Edit {
    /// The scoped name below the included model (the parent for `add`); empty: the model.
    path: Vec<String>,
    /// `element_id` as written, for messages.
    element_id: String,
    /// None: each child says what to do with it.
    action: Option<Action>,
    /// The modifier, without `element_id` and `action`.
    elem: XElem,
}

impl Edit {
    fn error(&self, kind: ErrorKind, message: impl Into<String>, hint: &str) -> SdfError {
        self.elem
            .origin
            .error(kind, &self.describe(), message, hint.to_string())
    }

    /// `<visual element_id="link::v">`.
    fn describe(&self) -> String {
        format!("<{} element_id=\"{}\">", self.elem.name, self.element_id)
    }

    /// The element the edit names: `tag "element_id"`.
    fn target(&self) -> String {
        format!("<{}> \"{}\"", self.elem.name, self.element_id)
    }
}

/// The edits of an `<include>`, and the problems of those that could not be read (reported
/// with the problems of applying the others).
#[derive(Clone, Default)]
pub(crate) struct Edits {
    /// The edits, in order.
    pub list: Vec<Edit>,
    /// The malformed ones.
    pub errors: Vec<SdfError>,
}

impl Edits {
    /// Whether there is nothing to do (and nothing to report).
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.errors.is_empty()
    }
}

/// The edits of `params` (an `<experimental:params>` element); `origin_of` maps offsets of
/// its document to where they were written.
pub(crate) fn edits(params: Node, origin_of: &dyn Fn(usize) -> Origin) -> Edits {
    let mut out = Edits::default();
    for c in params.children().filter(|c| c.is_element()) {
        match edit(XElem::build(c, origin_of)) {
            Ok(e) => out.list.push(e),
            Err(e) => out.errors.push(e),
        }
    }
    out
}

/// One edit, checked as libsdformat checks it before looking for its element.
fn edit(mut elem: XElem) -> Result<Edit, SdfError> {
    let describe = elem.describe();
    let Some(element_id) = elem.attr("element_id").map(str::to_string) else {
        return Err(elem.origin.error(
            ErrorKind::Missing,
            &describe,
            format!("{describe} in <experimental:params> has no `element_id`"),
            "name the element of the included model to change: element_id=\"link::visual\" (for action=\"add\", its parent; \"\" is the model itself)",
        ));
    };
    let id_origin = elem.attr_origin("element_id");
    let path: Vec<String> = if element_id.is_empty() {
        Vec::new()
    } else {
        element_id.split("::").map(str::to_string).collect()
    };
    if path.last().is_some_and(String::is_empty) {
        return Err(id_origin.error(
            ErrorKind::Invalid,
            &describe,
            format!("element_id \"{element_id}\" has no name after its last `::`"),
            "end the element_id with the element's name, e.g. \"link::visual\"",
        ));
    }
    let action = match elem.attr("action") {
        None => None,
        Some(a) => match Action::parse(a) {
            Some(action) => Some(action),
            None => {
                return Err(elem.attr_origin("action").error(
                    ErrorKind::Invalid,
                    &describe,
                    format!("\"{a}\" is not an action"),
                    ACTIONS,
                ));
            }
        },
    };
    match action {
        Some(Action::Add) => match elem.attr("name") {
            None => {
                return Err(elem.origin.error(
                    ErrorKind::Missing,
                    &describe,
                    format!("the <{}> to add has no `name`", elem.name),
                    "give the new element a name: name=\"...\"",
                ));
            }
            Some("") => {
                return Err(elem.attr_origin("name").error(
                    ErrorKind::Invalid,
                    &describe,
                    format!("the <{}> to add has an empty `name`", elem.name),
                    "give the new element a name: name=\"...\"",
                ));
            }
            Some(_) => {}
        },
        _ if path.is_empty() => {
            return Err(id_origin.error(
                ErrorKind::UnknownReference,
                &describe,
                format!(
                    "element_id \"\" names no <{}> (\"\" is the included model itself, which only action=\"add\" can name)",
                    elem.name
                ),
                "give the scoped name of the element below the included model, e.g. \"link::visual\"",
            ));
        }
        _ => {}
    }
    elem.remove_attr("element_id");
    elem.remove_attr("action");
    Ok(Edit {
        path,
        element_id,
        action,
        elem,
    })
}

/// A model's element found by an `element_id`.
enum Found {
    /// An element of the file: the indices (in `children`) from the top element down.
    Here(Vec<usize>),
    /// Below the `<include>` at these indices, with the rest of the id (empty: the model the
    /// include brings in).
    Below(Vec<usize>, Vec<String>),
}

/// The name an `<include>` of the file gives its model: its `<name>`, else the name of the
/// model it includes (from `name_of`, which reads it). None when not known.
type IncludeName<'a> = dyn FnMut(&XElem) -> Result<Option<String>, SdfError> + 'a;

/// Applies `edits` to `top`, the included file's top element. Edits of models the file
/// includes are collected in `forward` by the id of their `<include>`.
fn apply_all(
    top: &mut XElem,
    edits: Vec<Edit>,
    include_name: &mut IncludeName,
    forward: &mut HashMap<usize, Vec<Edit>>,
    mut errors: Vec<SdfError>,
) -> Result<(), SdfError> {
    for edit in edits {
        if let Err(e) = apply(top, edit, include_name, forward) {
            errors.push(e);
        }
    }
    SdfError::from_all(errors)
}

/// Finds the element `path` names below `top`: a child with that `name` at each level (the
/// first, in document order, with an `<include>` named by the model it brings in), the last
/// one a `<tag>` (any element when `tag` is None).
fn find(
    top: &XElem,
    path: &[String],
    tag: Option<&str>,
    include_name: &mut IncludeName,
) -> Result<Option<Found>, SdfError> {
    let mut at = Vec::new();
    let mut cur = top;
    for (depth, segment) in path.iter().enumerate() {
        let last = depth + 1 == path.len();
        let mut next = None;
        for (i, child) in cur.children.iter().enumerate() {
            let XNode::Elem(child) = child else { continue };
            if child.tag() == "include" {
                if child
                    .attr("merge")
                    .is_some_and(|m| m.trim() == "true" || m.trim() == "1")
                {
                    continue;
                }
                if include_name(child)?.as_deref() == Some(segment.as_str()) {
                    let rest = path[depth + 1..].to_vec();
                    if !rest.is_empty() || tag.is_none_or(|t| t == "model") {
                        at.push(i);
                        return Ok(Some(Found::Below(at, rest)));
                    }
                }
                continue;
            }
            if child.attr("name").map(str::trim) != Some(segment.as_str()) {
                continue;
            }
            if last && tag.is_some_and(|t| t != child.tag()) {
                continue;
            }
            next = Some((i, child));
            break;
        }
        let Some((i, child)) = next else {
            return Ok(None);
        };
        at.push(i);
        cur = child;
    }
    Ok(Some(Found::Here(at)))
}

/// The element at `at` below `top`.
fn at_mut<'e>(top: &'e mut XElem, at: &[usize]) -> Option<&'e mut XElem> {
    let mut cur = top;
    for &i in at {
        cur = cur.child_mut(i)?;
    }
    Some(cur)
}

/// The error for an edit whose element is not in the included model.
fn not_found(edit: &Edit, top: &XElem, what: &str) -> SdfError {
    let merged = top
        .elements()
        .any(|e| e.tag() == "include" && e.attr("merge").is_some());
    let mut hint = "element_id is the element's scoped name below the included model (\"link::visual\", \"nested_model::link\"); check the names in the included file".to_string();
    if merged {
        hint.push_str("; elements of merged includes cannot be named");
    }
    edit.error(
        ErrorKind::UnknownReference,
        format!(
            "the included model \"{}\" has no {what}",
            top.attr("name").unwrap_or_default()
        ),
        &hint,
    )
}

/// Applies one edit to `top`.
fn apply(
    top: &mut XElem,
    edit: Edit,
    include_name: &mut IncludeName,
    forward: &mut HashMap<usize, Vec<Edit>>,
) -> Result<(), SdfError> {
    let mut pass_on = |top: &XElem, at: &[usize], rest: Vec<String>, edit: Edit| {
        let mut cur = top;
        for &i in at {
            if let Some(XNode::Elem(e)) = cur.children.get(i) {
                cur = e;
            }
        }
        forward
            .entry(cur.id)
            .or_default()
            .push(Edit { path: rest, ..edit });
    };
    if edit.action == Some(Action::Add) {
        check_element(&edit)?;
        let name = edit.elem.attr("name").unwrap_or_default().to_string();
        let mut full = edit.path.clone();
        full.push(name.clone());
        let exists = match find(top, &full, Some(edit.elem.tag()), include_name)? {
            Some(Found::Here(_)) => true,
            Some(Found::Below(_, rest)) => rest.is_empty(),
            None => false,
        };
        if exists && edit.elem.tag() != "plugin" {
            return Err(edit.error(
                ErrorKind::Duplicate,
                format!(
                    "the included model already has a <{}> \"{}\"",
                    edit.elem.name,
                    full.join("::")
                ),
                "choose a new name, or use action=\"modify\" or \"replace\" to change the existing element",
            ));
        }
        return match find(top, &edit.path, None, include_name)? {
            Some(Found::Here(at)) => {
                let Some(parent) = at_mut(top, &at) else {
                    return Err(not_found(&edit, top, "such element"));
                };
                parent.children.push(XNode::Elem(edit.elem));
                Ok(())
            }
            Some(Found::Below(at, rest)) => {
                pass_on(top, &at, rest, edit);
                Ok(())
            }
            None => Err(not_found(
                &edit,
                top,
                &format!("element \"{}\" to add to", edit.element_id),
            )),
        };
    }
    let found = if edit.path.is_empty() {
        // Only edits handed on from an including file name the model itself.
        (edit.elem.tag() == top.tag()).then(|| Found::Here(Vec::new()))
    } else {
        find(top, &edit.path, Some(edit.elem.tag()), include_name)?
    };
    let at = match found {
        None => return Err(not_found(&edit, top, &edit.target())),
        Some(Found::Below(at, rest)) => {
            // The model an include brings in: removed or replaced with the include, else
            // edited when it is read.
            match edit.action {
                Some(Action::Remove) if rest.is_empty() && edit.elem.is_empty() => {
                    remove_at(top, &at);
                }
                Some(Action::Replace) if rest.is_empty() => {
                    check_element(&edit)?;
                    if let Some(e) = at_mut(top, &at) {
                        *e = edit.elem;
                    }
                }
                _ => pass_on(top, &at, rest, edit),
            }
            return Ok(());
        }
        Some(Found::Here(at)) => at,
    };
    let Some(elem) = at_mut(top, &at) else {
        return Err(not_found(&edit, top, &edit.target()));
    };
    match edit.action {
        None => {
            check_element(&edit)?;
            individual_actions(&edit, elem)
        }
        Some(Action::Modify) => modify(&edit, &edit.elem, elem),
        Some(Action::Remove) => {
            if edit.elem.is_empty() {
                if at.is_empty() {
                    return Err(edit.error(
                        ErrorKind::Invalid,
                        "the included model itself cannot be removed",
                        "remove the <include> instead",
                    ));
                }
                remove_at(top, &at);
                Ok(())
            } else {
                remove_children(&edit, &edit.elem, elem)
            }
        }
        Some(Action::Replace) => {
            check_element(&edit)?;
            *elem = edit.elem;
            Ok(())
        }
        Some(Action::Add) => Ok(()),
    }
}

/// Removes the element at `at` (not empty) below `top`.
fn remove_at(top: &mut XElem, at: &[usize]) {
    if let Some((&last, parent)) = at.split_last()
        && let Some(p) = at_mut(top, parent)
        && last < p.children.len()
    {
        p.children.remove(last);
    }
}

/// An edit that brings in a whole element must be one SDF describes.
fn check_element(edit: &Edit) -> Result<(), SdfError> {
    let tag = edit.elem.tag();
    if SDF_ELEMENTS.contains(&tag) {
        return Ok(());
    }
    Err(edit.error(
        ErrorKind::Invalid,
        format!("<{tag}> is not an SDF element that can be added, replaced or edited child by child"),
        "use an SDF element (link, visual, collision, sensor, joint, model, plugin, frame...) or name the element that holds this one",
    ))
}

/// The child of `elem` a child modifier `m` names: the first `<tag>`, or with a `name` the
/// one of that name (for `modify`, else the first `<tag>`, whose name the modifier sets).
fn child_index(elem: &XElem, m: &XElem, for_modify: bool) -> Option<usize> {
    let same_tag: Vec<usize> = elem
        .element_indices()
        .into_iter()
        .filter(|&i| matches!(&elem.children[i], XNode::Elem(e) if e.tag() == m.tag()))
        .collect();
    let first = same_tag.first().copied()?;
    match m.attr("name") {
        None => Some(first),
        Some(name) => same_tag
            .iter()
            .copied()
            .find(|&i| matches!(&elem.children[i], XNode::Elem(e) if e.attr("name") == Some(name)))
            .or(for_modify.then_some(first)),
    }
}

/// An edit without an action: each child of the modifier says what to do.
fn individual_actions(edit: &Edit, elem: &mut XElem) -> Result<(), SdfError> {
    let mut errors = Vec::new();
    for m in edit.elem.elements() {
        let Some(action) = m.attr("action") else {
            errors.push(m.origin.error(
                ErrorKind::Missing,
                &m.describe(),
                format!(
                    "{} in {} has no `action`",
                    m.describe(),
                    edit.describe()
                ),
                "say what to do with it: action=\"add\", \"modify\", \"remove\" or \"replace\" (or put the action on the parent)",
            ));
            continue;
        };
        let Some(action) = Action::parse(action) else {
            errors.push(m.attr_origin("action").error(
                ErrorKind::Invalid,
                &m.describe(),
                format!("\"{action}\" is not an action"),
                ACTIONS,
            ));
            continue;
        };
        let mut m = m.clone();
        m.remove_attr("action");
        let missing = |m: &XElem| {
            m.origin.error(
                ErrorKind::UnknownReference,
                &m.describe(),
                format!(
                    "{} of the included model has no {} to {}",
                    edit.target(),
                    m.describe(),
                    format!("{action:?}").to_lowercase()
                ),
                "name an existing child (with its `name` when it has one), or add it with action=\"add\"",
            )
        };
        let result = match action {
            Action::Remove => match child_index(elem, &m, false) {
                None => Err(missing(&m)),
                Some(i) if m.is_empty() => {
                    elem.children.remove(i);
                    Ok(())
                }
                Some(i) => match elem.child_mut(i) {
                    Some(child) => remove_children(edit, &m, child),
                    None => Err(missing(&m)),
                },
            },
            Action::Modify => match child_index(elem, &m, true).and_then(|i| elem.child_mut(i)) {
                None => Err(missing(&m)),
                Some(child) => modify(edit, &m, child),
            },
            Action::Add | Action::Replace => {
                let known = defines_child(edit.elem.tag(), m.tag());
                if known == Some(false) {
                    Err(m.origin.error(
                        ErrorKind::Invalid,
                        &m.describe(),
                        format!(
                            "<{}> is not a child SDF defines for <{}>",
                            m.tag(),
                            edit.elem.tag()
                        ),
                        "check the spelling, or name the element that holds it",
                    ))
                } else if action == Action::Add {
                    elem.children.push(XNode::Elem(m));
                    Ok(())
                } else {
                    match child_index(elem, &m, false).and_then(|i| elem.child_mut(i)) {
                        None => Err(missing(&m)),
                        Some(old) => {
                            if old.attr("name").is_some() && m.attr("name").is_none() {
                                Err(m.origin.error(
                                    ErrorKind::Missing,
                                    &m.describe(),
                                    format!("the replacement for {} has no `name`", old.describe()),
                                    "give the replacement a name: name=\"...\"",
                                ))
                            } else {
                                *old = m;
                                Ok(())
                            }
                        }
                    }
                }
            }
        };
        if let Err(e) = result {
            errors.push(e);
        }
    }
    SdfError::from_all(errors)
}

/// Removes from `elem` the children `m` lists (each by tag, and name when given).
fn remove_children(edit: &Edit, m: &XElem, elem: &mut XElem) -> Result<(), SdfError> {
    for c in m.elements() {
        match child_index(elem, c, false) {
            Some(i) => {
                elem.children.remove(i);
            }
            None => {
                return Err(c.origin.error(
                    ErrorKind::UnknownReference,
                    &c.describe(),
                    format!(
                        "{} of the included model has no {} to remove",
                        edit.target(),
                        c.describe()
                    ),
                    "list only existing children (with their `name` when they have one)",
                ));
            }
        }
    }
    Ok(())
}

/// Sets the attributes of `elem` from `m` (an attribute SDF does not define there is an
/// error, unless namespaced, and is skipped).
fn modify_attributes(m: &XElem, elem: &mut XElem, errors: &mut Vec<SdfError>) {
    for a in &m.attrs {
        if a.name == "element_id" || a.name == "action" {
            continue;
        }
        let namespaced = a.name.contains(':') || a.name.contains('.');
        let known = known_attribute(elem.tag(), &a.name);
        let tag = elem.tag().to_string();
        let existing = elem.attrs.iter_mut().find(|x| x.name == a.name);
        match existing {
            Some(x) => *x = a.clone(),
            None if namespaced || known => {
                elem.attrs.push(a.clone());
            }
            None => errors.push(a.origin.error(
                ErrorKind::Invalid,
                &m.describe(),
                format!("<{tag}> has no attribute `{}` in SDF", a.name),
                "remove the attribute, or put a custom one in a namespace (my:attr=\"...\")",
            )),
        }
    }
}

/// `modify`: attributes from `m`, then its value, or child by child; every problem is
/// reported (and the part it is in skipped).
fn modify(edit: &Edit, m: &XElem, elem: &mut XElem) -> Result<(), SdfError> {
    let mut errors = Vec::new();
    modify_into(edit, m, elem, &mut errors);
    SdfError::from_all(errors)
}

fn modify_into(edit: &Edit, m: &XElem, elem: &mut XElem, errors: &mut Vec<SdfError>) {
    modify_attributes(m, elem, errors);
    if let Some(v) = m.value() {
        let origin = m
            .children
            .iter()
            .find_map(|c| match c {
                XNode::Text(t, o) if !t.trim().is_empty() => Some(o.clone()),
                _ => None,
            })
            .unwrap_or_else(|| m.origin.clone());
        elem.set_value(Some((v, origin)));
        return;
    }
    for c in m.elements() {
        let described = elem.describe();
        let Some(child) = child_index(elem, c, true).and_then(|i| elem.child_mut(i)) else {
            errors.push(c.origin.error(
                ErrorKind::UnknownReference,
                &c.describe(),
                format!(
                    "{} of the included model has no <{}> to modify (in {})",
                    edit.target(),
                    c.tag(),
                    described
                ),
                "modify only what the included file writes; add a missing element with action=\"add\"",
            ));
            continue;
        };
        if c.value().is_some() {
            modify_into(edit, c, child, errors);
        } else if c.elements().next().is_none() {
            if child.elements().next().is_none() {
                // An empty value element: back to its default.
                child.set_value(None);
                modify_attributes(c, child, errors);
            }
        } else {
            modify_into(edit, c, child, errors);
        }
    }
}

/// An included file with its edits applied: the text to read, where each part of it was
/// written, and the edits handed on to the `<include>`s in it (by the offset of the
/// `<include>` in `text`).
pub(crate) struct Edited {
    /// The edited document.
    pub text: String,
    /// Where its parts were written.
    pub origins: Origins,
    /// Edits for the models it includes, by the offset of their `<include>`.
    pub forwarded: HashMap<usize, Vec<Edit>>,
}

/// Applies `edits` to the included file whose parsed document is `doc` (its text at
/// `source`): to its top `<model>` (or `<actor>` / `<light>`). `include_name` gives the name
/// an `<include>` of the file (a node of `doc`) gives its model, None when not known.
pub(crate) fn edit_document(
    doc: &roxmltree::Document,
    source: &Rc<Source>,
    edits: Edits,
    include_name: &mut dyn FnMut(Node) -> Result<Option<String>, SdfError>,
) -> Result<Edited, SdfError> {
    let Edits {
        list: edits,
        errors,
    } = edits;
    let origin_of = |offset: usize| Origin {
        source: source.clone(),
        offset,
    };
    let mut root = XElem::build(doc.root_element(), &origin_of);
    let mut namespaces = Vec::new();
    collect_namespaces(&root, &mut namespaces);
    for e in &edits {
        collect_namespaces(&e.elem, &mut namespaces);
    }
    let top = ["model", "actor", "light"].iter().find_map(|kind| {
        root.children
            .iter()
            .position(|c| matches!(c, XNode::Elem(e) if e.tag() == *kind))
    });
    let mut forward = HashMap::new();
    if let Some(top) = top.and_then(|i| root.child_mut(i)) {
        let mut name_of = |e: &XElem| -> Result<Option<String>, SdfError> {
            if let Some(n) = e.child_value("name") {
                return Ok(Some(n));
            }
            if !Rc::ptr_eq(&e.origin.source, source) {
                return Ok(None);
            }
            match doc
                .descendants()
                .find(|n| n.is_element() && n.range().start == e.origin.offset)
            {
                Some(node) => include_name(node),
                None => Ok(None),
            }
        };
        apply_all(top, edits, &mut name_of, &mut forward, errors)?;
    } else if let Some(first) = errors.first() {
        return Err(first.clone().with_others(errors.into_iter().skip(1)));
    }
    let mut w = Writer::new(forward);
    // The namespaces of the file and of the edits, all declared on the root (they are
    // removed from the root's own attributes, which roxmltree does not list anyway).
    root.namespaces.clear();
    w.element(&root, Some(&namespaces));
    Ok(Edited {
        text: w.out,
        origins: Origins::new(w.segments, origin_of(0)),
        forwarded: w.forwarded,
    })
}
