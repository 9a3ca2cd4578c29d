//! Finding what an override's path reaches in a parsed document, and the messages that say
//! what is there when it reaches nothing: an element's text or an attribute's value, or an
//! `<include>` the path goes on through, into the file it includes.

use std::ops::Range;
use std::path::{Path, PathBuf};

use roxmltree::Node;

use super::path::{Select, Step};
use super::splice::content_range;
use super::{Override, OverrideError};

/// The elements an included file's `<sdf>` holds, one of which it brings in: past an
/// `<include>` step, a step of one of these names goes on in the included file (an
/// `<include>` has no children of these names).
pub(super) const INCLUDED_KINDS: [&str; 3] = ["model", "actor", "light"];

/// What an `<include>` brings in, as far as it is known: the kind of element (`model`,
/// `actor`, `light`; None when its file cannot be read), and the name it has in the
/// including scope (the include's `<name>`, else its file's; None when neither is known).
#[derive(Clone, Debug, Default)]
pub(super) struct IncludedTop {
    /// `model`, `actor` or `light`.
    pub kind: Option<&'static str>,
    /// The name it is given.
    pub name: Option<String>,
}

/// What a path (or its part from some step on) reaches in a document.
pub(super) enum Reached<'a, 'i> {
    /// The byte range of the text to replace, and whether it is an attribute's value.
    Text(Range<usize>, bool),
    /// An `<include>`: the path goes on in the file it includes, from step `next`, at the
    /// `<sdf>` root of that file (`top` None) or at its top element of the kind `top`.
    Include {
        /// The `<include>`.
        include: Node<'a, 'i>,
        /// The first step of the path in the included file.
        next: usize,
        /// Where in that file `next` starts: None, the `<sdf>` root; else its top element.
        top: Option<&'static str>,
    },
}

/// Where a walk starts in a document, and what it knows of it.
pub(super) struct Walk<'w> {
    /// The override.
    pub o: &'w Override,
    /// Its steps.
    pub steps: &'w [Step],
    /// The first step to take here.
    pub from: usize,
    /// Where: None, the `<sdf>` root; else its first top element of that kind (an included
    /// file, entered by its include's name: `model[rover]`).
    pub top: Option<&'static str>,
    /// The file of the document, when it is an included one (named in messages).
    pub file: Option<&'w Path>,
    /// What an `<include>` of the document brings in.
    pub included: &'w dyn Fn(Node) -> IncludedTop,
}

/// `name` as the lenient parse sees it (undeclared prefixes' colons become `.`).
fn same_name(step: &str, tag: &str) -> bool {
    step == tag || (step.contains(':') && step.replace(':', ".") == tag)
}

/// How an element is named in messages: `<model name="box">`, `<pose>`.
fn describe(node: Node) -> String {
    match node.attribute("name") {
        Some(n) => format!("<{} name=\"{n}\">", node.tag_name().name()),
        None => format!("<{}>", node.tag_name().name()),
    }
}

/// The selectors that pick each of `nodes` (by name where they have one, else by index).
fn selectors(tag: &str, nodes: &[Node]) -> String {
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
fn child_names(node: Node) -> Vec<String> {
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

/// Whether `node` is an `<include>`.
fn is_include(node: Node) -> bool {
    node.is_element() && node.tag_name().name() == "include"
}

/// The `<include>` children of `node`, with what each brings in.
fn includes<'a, 'i>(node: Node<'a, 'i>, walk: &Walk) -> Vec<(Node<'a, 'i>, IncludedTop)> {
    node.children()
        .filter(|c| is_include(*c))
        .map(|c| (c, (walk.included)(c)))
        .collect()
}

/// The selectors of the includes of `node`: by the name each gives what it brings in,
/// else by index.
fn include_selectors(includes: &[(Node, IncludedTop)]) -> String {
    includes
        .iter()
        .enumerate()
        .map(|(i, (_, top))| match &top.name {
            Some(name) => format!("`include[{name}]`"),
            None => format!("`include[{i}]`"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The selectors of the elements of kind `kind` that the includes of `node` bring in, by
/// name: `model[rover]`.
fn included_selectors(kind: &str, includes: &[(Node, IncludedTop)]) -> Vec<String> {
    includes
        .iter()
        .filter(|(_, top)| top.kind.is_none_or(|k| k == kind))
        .filter_map(|(_, top)| top.name.as_ref().map(|n| format!("`{kind}[{n}]`")))
        .collect()
}

/// The steps `steps` written as a path.
fn written(steps: &[Step]) -> String {
    steps
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("/")
}

/// The children an `<include>` writes in place of what its model writes: an override of
/// the model's (by the include's name: `model[rover]/pose`) would change nothing.
const SHADOWING: [(&str, &str); 4] = [
    ("pose", "pose"),
    ("static", "static"),
    ("placement_frame", "placement_frame"),
    ("@name", "name"),
];

/// What the override's steps from `walk.from` reach in `doc` (see the module docs).
pub(super) fn target<'a, 'i>(
    doc: &'a roxmltree::Document<'i>,
    source: &str,
    walk: &Walk,
) -> Result<Reached<'a, 'i>, OverrideError> {
    let o = walk.o;
    let file = walk.file.map(Path::to_path_buf);
    let mut node = doc.root_element();
    if let Some(kind) = walk.top {
        let Some(top) = node
            .children()
            .find(|c| c.is_element() && c.tag_name().name() == kind)
        else {
            return Err(OverrideError::NoMatch {
                path: o.path.clone(),
                step: walk.steps[walk.from.saturating_sub(1)].to_string(),
                within: describe(node),
                file,
                candidates: format!(
                    "the included file has no <{kind}>; its elements: {}",
                    list(&child_names(node))
                ),
            });
        };
        node = top;
    }
    for (i, step) in walk.steps.iter().enumerate().skip(walk.from) {
        let no_match = |step: &Step, candidates: String| OverrideError::NoMatch {
            path: o.path.clone(),
            step: step.to_string(),
            within: describe(node),
            file: file.clone(),
            candidates,
        };
        let ambiguous = |step: &Step, count: usize, candidates: String| OverrideError::Ambiguous {
            path: o.path.clone(),
            step: step.to_string(),
            count,
            within: describe(node),
            file: file.clone(),
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
                return Ok(Reached::Text(attr.range_value(), true));
            }
            Step::Element { name, select } => {
                // Past an `<include>`, into the file it includes.
                if is_include(node) && INCLUDED_KINDS.contains(&name.as_str()) {
                    return Ok(Reached::Include {
                        include: node,
                        next: i,
                        top: None,
                    });
                }
                let same: Vec<Node> = node
                    .children()
                    .filter(|c| c.is_element() && same_name(name, c.tag_name().name()))
                    .collect();
                let found = match select {
                    Select::Only => match same.len() {
                        1 => Some(same[0]),
                        0 => None,
                        count => {
                            return Err(ambiguous(step, count, selectors(name, &same)));
                        }
                    },
                    Select::Named(n) if name == "include" => {
                        let all = includes(node, walk);
                        let named: Vec<Node> = all
                            .iter()
                            .filter(|(_, top)| top.name.as_deref() == Some(n.as_str()))
                            .map(|(c, _)| *c)
                            .collect();
                        match named.len() {
                            0 => {
                                return Err(no_match(step, no_include(node, n, &all)));
                            }
                            1 => Some(named[0]),
                            count => {
                                return Err(ambiguous(step, count, selectors("include", &named)));
                            }
                        }
                    }
                    Select::Named(n) => same
                        .iter()
                        .find(|c| c.attribute("name") == Some(n.as_str()))
                        .copied(),
                    Select::Index(i) => same.get(*i).copied(),
                };
                node = match found {
                    Some(n) => n,
                    None => {
                        let kind = INCLUDED_KINDS.iter().find(|k| **k == name.as_str());
                        let all = match kind {
                            Some(_) => includes(node, walk),
                            None => Vec::new(),
                        };
                        // An element an include brings in, by the name it is given there.
                        if let (Some(kind), Select::Named(n)) = (kind, select) {
                            let named: Vec<Node> = all
                                .iter()
                                .filter(|(_, top)| {
                                    top.name.as_deref() == Some(n.as_str())
                                        && top.kind.is_none_or(|k| k == *kind)
                                })
                                .map(|(c, _)| *c)
                                .collect();
                            if named.len() > 1 {
                                return Err(ambiguous(
                                    step,
                                    named.len(),
                                    named
                                        .iter()
                                        .map(|c| {
                                            let at = all
                                                .iter()
                                                .position(|(a, _)| a == c)
                                                .unwrap_or_default();
                                            format!("`include[{at}]`")
                                        })
                                        .collect::<Vec<_>>()
                                        .join(", "),
                                ));
                            }
                            if let Some(include) = named.first() {
                                shadowed(walk, i, *include, n)?;
                                return Ok(Reached::Include {
                                    include: *include,
                                    next: i + 1,
                                    top: Some(kind),
                                });
                            }
                        }
                        let included = match kind {
                            Some(kind) => included_selectors(kind, &all),
                            None => Vec::new(),
                        };
                        let included = if included.is_empty() {
                            String::new()
                        } else {
                            format!(
                                "; the {name}s its includes bring in: {}",
                                included.join(", ")
                            )
                        };
                        let candidates = if same.is_empty() {
                            format!(
                                "there is no <{name}> there (an override changes an element \
                                 the file has, it does not add one); its child elements: \
                                 {}{included}",
                                list(&child_names(node))
                            )
                        } else {
                            format!(
                                "its <{name}> elements: {}{included}",
                                selectors(name, &same)
                            )
                        };
                        return Err(no_match(step, candidates));
                    }
                };
            }
        }
    }
    if node.children().any(|c| c.is_element()) {
        return Err(OverrideError::HasChildren {
            path: o.path.clone(),
            element: describe(node),
            file,
            children: list(&child_names(node)),
        });
    }
    Ok(Reached::Text(content_range(node, source), false))
}

/// What is there when `include[name]` matches no `<include>` of `node`: its includes'
/// selectors, and the selector of an element written there under that name.
fn no_include(node: Node, name: &str, all: &[(Node, IncludedTop)]) -> String {
    let mut out = if all.is_empty() {
        format!(
            "there is no <include> there; its child elements: {}",
            list(&child_names(node))
        )
    } else {
        format!("its <include> elements: {}", include_selectors(all))
    };
    if let Some(written) = node
        .children()
        .find(|c| c.is_element() && c.attribute("name") == Some(name))
    {
        let tag = written.tag_name().name();
        out.push_str(&format!(
            " (`{name}` is a <{tag}> written in this file, not included: reach it as \
             `{tag}[{name}]`)"
        ));
    }
    out
}

/// Refuses an override of an included model's `<pose>`, `<static>`, `<placement_frame>` or
/// `@name`, reached by the include's name (`model[rover]/pose`), when the include writes its
/// own, which replaces the model's: the override would change nothing.
fn shadowed(walk: &Walk, at: usize, include: Node, name: &str) -> Result<(), OverrideError> {
    let Some(next) = walk.steps.get(at + 1) else {
        return Ok(());
    };
    let next_name = match next {
        Step::Element {
            name,
            select: Select::Only,
        } => name.clone(),
        Step::Attribute(a) => format!("@{a}"),
        Step::Element { .. } => return Ok(()),
    };
    let Some((_, child)) = SHADOWING.iter().find(|(step, _)| *step == next_name) else {
        return Ok(());
    };
    if !include
        .children()
        .any(|c| c.is_element() && c.tag_name().name() == *child)
    {
        return Ok(());
    }
    let before = written(&walk.steps[..at]);
    let before = if before.is_empty() {
        String::new()
    } else {
        format!("{before}/")
    };
    let after = written(&walk.steps[at + 1..]);
    let Step::Element { name: kind, .. } = &walk.steps[at] else {
        return Ok(());
    };
    Err(OverrideError::Shadowed {
        path: walk.o.path.clone(),
        element: format!("<{child}>"),
        file: walk.file.map(PathBuf::from),
        include_path: format!("{before}include[{name}]/{child}"),
        model_path: format!("{before}include[{name}]/{kind}/{after}"),
    })
}
