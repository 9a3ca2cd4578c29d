//! Writing overrides into a document's text and, for those whose path goes on through an
//! `<include>`, into the text of the file that include brings in, for that include alone.
//!
//! Every override is first found in the document as written (none sees another's change).
//! Those that reach an `<include>` are grouped by include; each group is applied to the
//! included file's text (found and read as the include reads it, through the load's
//! [`Loader`]), recursively, and the result is kept for that include ([`Rewritten`], by
//! where the `<include>` starts in the overridden text), which the reader reads instead of
//! the file. The file on disk is never written.

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use roxmltree::Node;

use super::find::{IncludedTop, Reached, Walk, target};
use super::path::Step;
use super::splice::{element_name_before, escape};
use super::{OverriddenLoadError, Override, OverrideError};
use crate::error::SdfError;
use crate::lenient;
use crate::load::{Loader, Rewrites, Rewritten};
use crate::parse::{parse_xml, root_reader};
use crate::reader::Reader;

/// An override to write into a document, from one step of its path on.
#[derive(Clone, Copy)]
pub(super) struct Pending<'o> {
    /// The override.
    pub o: &'o Override,
    /// All its steps.
    pub steps: &'o [Step],
    /// The first step taken in this document.
    pub from: usize,
    /// Where that step starts: None, the `<sdf>` root; else the top element of this kind
    /// (an included file entered by its include's name).
    pub top: Option<&'static str>,
}

/// `text` parsed as the reader parses it (length-preserving repairs: offsets are the text's),
/// handed to `f` with the repaired text.
fn with_parsed<T>(
    text: &str,
    f: impl FnOnce(&roxmltree::Document, &str) -> Result<T, OverriddenLoadError>,
) -> Result<T, OverriddenLoadError> {
    let mut prepared = lenient::normalise(text);
    let mut dropped = 0;
    loop {
        match parse_xml(&prepared) {
            Ok(doc) => return f(&doc, &prepared),
            Err(roxmltree::Error::UnknownNamespace(prefix, _)) if dropped < 16 => {
                dropped += 1;
                prepared = Cow::Owned(lenient::drop_prefix(&prepared, &prefix));
            }
            Err(e) => return Err(OverrideError::NotXml(e.to_string()).into()),
        }
    }
}

/// `text` (of `file`, None for text without one) with the `pending` overrides written into
/// it, and the texts its includes read instead of their files. Without a `loader`, an
/// override that goes on through an include is an error ([`OverrideError::Included`]).
pub(super) fn rewrite(
    text: &str,
    file: Option<&Path>,
    included: bool,
    loader: Option<&Loader>,
    pending: &[Pending],
) -> Result<(String, Rewrites), OverriddenLoadError> {
    with_parsed(text, |doc, prepared| {
        // The reader of this document, to find its includes' files as the load does (None
        // without a loader).
        let reader: OnceCell<Option<Result<Reader, SdfError>>> = OnceCell::new();
        let reader = || {
            reader
                .get_or_init(|| {
                    loader.map(|loader| {
                        let file = file.map(|f| Arc::new(f.to_path_buf()));
                        root_reader(doc.root_element(), prepared, file, loader)
                    })
                })
                .as_ref()
                .map(Result::as_ref)
        };
        let tops: RefCell<HashMap<usize, IncludedTop>> = RefCell::default();
        let included_top = |include: Node| -> IncludedTop {
            let at = include.range().start;
            if let Some(top) = tops.borrow().get(&at) {
                return top.clone();
            }
            let given = include
                .children()
                .find(|c| c.is_element() && c.tag_name().name() == "name")
                .and_then(|n| n.text())
                .map(|t| t.trim().to_string());
            let from_file = match reader() {
                Some(Ok(r)) => r.included_top(include),
                _ => None,
            };
            let top = IncludedTop {
                kind: from_file.as_ref().map(|(kind, _)| *kind),
                name: given.or_else(|| from_file.and_then(|(_, name)| name)),
            };
            tops.borrow_mut().insert(at, top.clone());
            top
        };
        let here = included.then_some(file).flatten();

        let mut edits: Vec<(Range<usize>, String, &str)> = Vec::new();
        let mut through: BTreeMap<usize, (Node, Vec<Pending>)> = BTreeMap::new();
        for p in pending {
            let walk = Walk {
                o: p.o,
                steps: p.steps,
                from: p.from,
                top: p.top,
                file: here,
                included: &included_top,
            };
            match target(doc, prepared, &walk)? {
                Reached::Text(range, attribute) => {
                    edits.push(edit(text, range, attribute, p.o));
                }
                Reached::Include { include, next, top } => {
                    if loader.is_none() {
                        return Err(OverrideError::Included {
                            path: p.o.path.clone(),
                        }
                        .into());
                    }
                    through
                        .entry(include.range().start)
                        .or_insert_with(|| (include, Vec::new()))
                        .1
                        .push(Pending {
                            from: next,
                            top,
                            ..*p
                        });
                }
            }
        }

        let mut rewritten = Vec::with_capacity(through.len());
        for (at, (include, group)) in through {
            let r = match reader() {
                Some(Ok(r)) => r,
                Some(Err(e)) => return Err(e.clone().into()),
                // Not reached: without a loader, the include is refused above.
                None => {
                    let path = group.first().map(|p| p.o.path.clone()).unwrap_or_default();
                    return Err(OverrideError::Included { path }.into());
                }
            };
            let (included_file, included_text): (PathBuf, String) = r.included_source(include)?;
            let (text, includes) =
                rewrite(&included_text, Some(&included_file), true, loader, &group).map_err(
                    |e| match e {
                        OverriddenLoadError::Sdf(e) => e.included_at(r.span(include)).into(),
                        e => e,
                    },
                )?;
            rewritten.push((
                at,
                Rc::new(Rewritten {
                    text,
                    includes: Rc::new(includes),
                }),
            ));
        }

        let out = splice(text, &mut edits)?;
        // Where each include starts once the edits before it are made.
        let rewrites = rewritten
            .into_iter()
            .map(|(at, r)| (shifted(at, &edits), r))
            .collect();
        Ok((out, rewrites))
    })
}

/// The edit writing `o`'s value at `range` of `source` (an attribute's value when
/// `attribute`).
fn edit<'o>(
    source: &str,
    range: Range<usize>,
    attribute: bool,
    o: &'o Override,
) -> (Range<usize>, String, &'o str) {
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
    (range, text, o.path.as_str())
}

/// `source` with `edits` made (sorted here); two that change the same part are an error.
fn splice(
    source: &str,
    edits: &mut [(Range<usize>, String, &str)],
) -> Result<String, OverrideError> {
    edits.sort_by_key(|(r, _, _)| (r.start, r.end));
    for w in edits.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if b.0.start < a.0.end || (a.0 == b.0) {
            return Err(OverrideError::Overlap(a.2.to_string(), b.2.to_string()));
        }
    }
    let mut out = String::with_capacity(source.len() + 64);
    let mut at = 0;
    for (range, text, _) in edits.iter() {
        out.push_str(&source[at..range.start]);
        out.push_str(text);
        at = range.end;
    }
    out.push_str(&source[at..]);
    Ok(out)
}

/// Where byte `at` of the source is once `edits` (sorted, none of them spanning `at`: an
/// edit changes an element's text or an attribute's value, never where an element starts)
/// are made.
fn shifted(at: usize, edits: &[(Range<usize>, String, &str)]) -> usize {
    edits
        .iter()
        .take_while(|(r, _, _)| r.end <= at)
        .fold(at, |at, (r, text, _)| at - r.len() + text.len())
}
