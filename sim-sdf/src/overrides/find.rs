//! Finding what an override's path reaches in a parsed document, and the messages that say
//! what is there when it reaches nothing.

use std::ops::Range;

use super::path::{Select, Step, parse_path};
use super::splice::content_range;
use super::{Override, OverrideError};

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
pub(super) fn target(
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
