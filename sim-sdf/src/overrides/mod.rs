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
//! world/model[rover]/link[chassis]/inertial/mass      (rover: an included model)
//! world/include[rover]/model/link[chassis]/inertial/mass
//! world/include[0]/pose
//! ```
//!
//! * `name`: the only child element of that name (several: an error listing them);
//! * `name[text]`: the child of that name whose `name` attribute is `text`;
//! * `name[N]`: the `N`th child of that name, from 0, in document order;
//! * `@attr` (last step only): the attribute `attr` of the element reached.
//!
//! # Included models
//!
//! A path goes on into the file an `<include>` brings in, for that include alone:
//!
//! * `include[text]` selects the `<include>` whose model (actor, light) is named `text` where
//!   it is included: the include's `<name>`, else the name its file gives it (`include[N]`:
//!   the `N`th `<include>`). The steps after it name the include's own children (`uri`,
//!   `name`, `pose`, `static`...), except `model`, `actor` and `light`, which an `<include>`
//!   never holds: these go on below the `<sdf>` root of the included file
//!   (`world/include[rover]/model/link[chassis]/...`).
//! * `model[text]` (or `actor[text]`, `light[text]`) where no `<model name="text">` is
//!   written but an include brings in a model named `text` reaches that model in its file:
//!   `world/model[rover]/link[chassis]/...` is `world/include[rover]/model/link[chassis]/...`.
//!   Only a name selects an included model: `model` and `model[N]` count the `<model>`s
//!   written in the file. Where the include writes its own `<pose>`, `<static>`,
//!   `<placement_frame>` or `<name>`, which replace the model's, an override of the model's
//!   by this form (`model[rover]/pose`) would change nothing and is an error naming both
//!   paths (the include's, `include[rover]/pose`, and the file's, `include[rover]/model/pose`).
//!
//! Includes inside included files are reached the same way, at any depth
//! (`world/model[rover]/model[arm]/link[0]/inertial/mass`). The included file is found as
//! the include finds it (the resource search path, `model.config`, the same confinement),
//! and read; the overrides are written into a copy of its text that only this include reads
//! (two includes of one file each get their own values); the file is never written.
//!
//! # Rules
//!
//! The element's text (or the attribute's value) is replaced; the value is XML-escaped.
//! Only what the file already has can be changed: an element or attribute that is not
//! written there is an error (saying so), as is an element holding child elements. Each
//! error names the override's path, the step that matched nothing or several elements, the
//! element it looked in (and the included file, when it looked in one), and the candidates
//! there. Every override is found, in the world file and in the included files it reaches,
//! before the world is read. At most [`MAX_OVERRIDES`] overrides, each value at most
//! [`MAX_VALUE_BYTES`] bytes and each path at most [`MAX_PATH_BYTES`].
//!
//! The text is parsed as the reader parses it (leniently, see `lenient`), and every
//! replacement is spliced into the original text at the byte range the parser reports, so
//! the rest of the file, comments and formatting included, is kept as written.

mod find;
mod path;
mod rewrite;
mod splice;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::document::{on_reader_stack, read_rewritten_world};
use super::error::SdfError;
use super::load::{LoadOptions, Loader};
use path::{Step, parse_path};
use rewrite::{Pending, rewrite};
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
    #[error(
        "override `{path}`: `{step}` matches nothing in {within}{}; {candidates}",
        in_file(.file)
    )]
    NoMatch {
        /// The override's path.
        path: String,
        /// The step.
        step: String,
        /// The element the step looked in (`<model name="box">`).
        within: String,
        /// The included file it is in (None: the world's own file or text).
        file: Option<PathBuf>,
        /// What is there instead, as a sentence.
        candidates: String,
    },
    /// A step without a selector matched several elements.
    #[error(
        "override `{path}`: `{step}` matches {count} elements in {within}{}; select one by \
         name or index: {candidates}",
        in_file(.file)
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
        /// The included file it is in (None: the world's own file or text).
        file: Option<PathBuf>,
        /// The selectors that pick each.
        candidates: String,
    },
    /// The element reached holds child elements: only text can be replaced.
    #[error(
        "override `{path}`: {element}{} holds child elements ({children}); an override \
         replaces the text of an element without children, or an attribute",
        in_file(.file)
    )]
    HasChildren {
        /// The override's path.
        path: String,
        /// The element.
        element: String,
        /// The included file it is in (None: the world's own file or text).
        file: Option<PathBuf>,
        /// Its children's names.
        children: String,
    },
    /// An included model's `<pose>`, `<static>`, `<placement_frame>` or `@name` reached by
    /// its include's name (`model[rover]/pose`) where the include writes its own, which
    /// replaces it: the override would change nothing.
    #[error(
        "override `{path}`: the <include> bringing this model in writes its own {element}, \
         which replaces the included model's{}: write `{include_path}` to change the \
         include's, or `{model_path}` to change the one in the included file",
        in_file(.file)
    )]
    Shadowed {
        /// The override's path.
        path: String,
        /// The include's element (`<pose>`).
        element: String,
        /// The included file the include is in (None: the world's own file or text).
        file: Option<PathBuf>,
        /// The path of the include's element.
        include_path: String,
        /// The path of the element in the included file.
        model_path: String,
    },
    /// A path that goes on through an `<include>`, given to [`apply`], which has only the
    /// text: the included file is found where the world is loaded ([`load_with`],
    /// [`parse_str_with`], [`check`]).
    #[error(
        "override `{path}` reaches into the file an <include> brings in, which is found only \
         where the world is loaded: load it with its overrides (overrides::load_with, \
         parse_str_with, check)"
    )]
    Included {
        /// The override's path.
        path: String,
    },
    /// Two overrides change the same element or attribute, or one lies inside the other.
    #[error("overrides `{0}` and `{1}` change the same part of the document")]
    Overlap(String, String),
    /// The text is not XML the reader can parse (loading it without overrides reports where).
    #[error("overrides cannot be applied: the document is not well-formed XML ({0})")]
    NotXml(String),
}

/// ` of the included file FILE`, for an error in an included file.
fn in_file(file: &Option<PathBuf>) -> String {
    match file {
        Some(f) => format!(" of the included file {}", f.display()),
        None => String::new(),
    }
}

/// The steps of each override, the bounds checked.
fn steps_of(overrides: &[Override]) -> Result<Vec<Vec<Step>>, OverrideError> {
    if overrides.len() > MAX_OVERRIDES {
        return Err(OverrideError::TooMany(overrides.len()));
    }
    overrides
        .iter()
        .map(|o| {
            if o.value.len() > MAX_VALUE_BYTES {
                return Err(OverrideError::ValueTooLong {
                    path: o.path.clone(),
                    len: o.value.len(),
                });
            }
            parse_path(&o.path)
        })
        .collect()
}

/// Each override, from its first step.
fn pending<'o>(overrides: &'o [Override], steps: &'o [Vec<Step>]) -> Vec<Pending<'o>> {
    overrides
        .iter()
        .zip(steps)
        .map(|(o, steps)| Pending {
            o,
            steps,
            from: 0,
            top: None,
        })
        .collect()
}

/// `source` with each override's value written at its path (see the module docs); the text
/// is otherwise unchanged. All overrides are found in the original text first, so none
/// sees another's change; two that change the same part are an error. A path that goes on
/// into an included file is [`OverrideError::Included`]: the file is found where the world
/// is loaded ([`load_with`], [`parse_str_with`], [`check`]).
pub fn apply(source: &str, overrides: &[Override]) -> Result<String, OverrideError> {
    let steps = steps_of(overrides)?;
    if overrides.is_empty() {
        return Ok(source.to_string());
    }
    match rewrite(source, None, false, None, &pending(overrides, &steps)) {
        Ok((text, _)) => Ok(text),
        Err(OverriddenLoadError::Override(e)) => Err(e),
        // Without a loader, nothing is read: no document error can come.
        Err(OverriddenLoadError::Sdf(e)) => Err(OverrideError::NotXml(e.message)),
    }
}

/// Why a world could not be loaded with overrides.
#[derive(Debug, thiserror::Error)]
pub enum OverriddenLoadError {
    /// An override could not be applied (the world was not read).
    #[error(transparent)]
    Override(#[from] OverrideError),
    /// The world, overrides applied, does not read (the report, with file, line and
    /// column, is [`SdfError::render`]'s); or an `<include>` an override goes on through
    /// does not name a file that can be read.
    #[error("{}", .0.render(None))]
    Sdf(#[from] SdfError),
}

/// Reads the world file at `path` as [`super::load_with`] does, with `overrides` applied to
/// its text, and to the texts of the included files they reach, first: errors point into
/// the overridden text, at the file's lines.
pub fn load_with(
    path: &Path,
    options: &LoadOptions,
    overrides: &[Override],
) -> Result<World, OverriddenLoadError> {
    if overrides.is_empty() {
        return Ok(super::load_with(path, options)?);
    }
    let text = super::parse::read_text(path, &options.limits)?;
    overridden(&text, Some(path), options, overrides, true)
}

/// Reads SDF text as [`super::parse_str_with`] does, with `overrides` applied first (to the
/// text, and to the texts of the included files they reach, found from `file`'s directory
/// as the reader finds them).
pub fn parse_str_with(
    text: &str,
    file: Option<&Path>,
    options: &LoadOptions,
    overrides: &[Override],
) -> Result<World, OverriddenLoadError> {
    overridden(text, file, options, overrides, false)
}

/// Whether every override reaches an element or attribute of the world file at `path` or of
/// the included files it reaches (found as [`load_with`] finds them), without reading the
/// world: the errors [`load_with`] would give for the overrides themselves.
pub fn check(
    path: &Path,
    options: &LoadOptions,
    overrides: &[Override],
) -> Result<(), OverriddenLoadError> {
    let steps = steps_of(overrides)?;
    let text = super::parse::read_text(path, &options.limits)?;
    on_reader_stack(|| {
        let loader = Loader::entered(options, Some(path));
        rewrite(
            &text,
            Some(path),
            false,
            Some(&loader),
            &pending(overrides, &steps),
        )
        .map(|_| ())
    })
}

/// Reads the world in `text` (of `file`) with `overrides` written into it and into the
/// included files they reach; `log` logs the load's warnings, as [`super::load_with`] does.
fn overridden(
    text: &str,
    file: Option<&Path>,
    options: &LoadOptions,
    overrides: &[Override],
    log: bool,
) -> Result<World, OverriddenLoadError> {
    let steps = steps_of(overrides)?;
    on_reader_stack(|| {
        let loader = Loader::entered(options, file);
        let (text, rewrites) = rewrite(
            text,
            file,
            false,
            Some(&loader),
            &pending(overrides, &steps),
        )?;
        let world = read_rewritten_world(&text, file, &loader, Rc::new(rewrites));
        if log {
            for w in loader.warnings.take() {
                tracing::warn!("{w}");
            }
        }
        Ok(world?)
    })
}
