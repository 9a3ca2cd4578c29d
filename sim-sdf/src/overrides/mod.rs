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

mod find;
mod path;
mod splice;
#[cfg(test)]
mod tests;

use std::path::Path;

use super::error::SdfError;
use super::lenient;
use super::load::LoadOptions;
use find::target;
use path::parse_path;
use sim_world::World;
use splice::{element_name_before, escape};
use std::borrow::Cow;
use std::ops::Range;

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
