//! SDF text -> [`crate::world::World`] (or, for model files, [`Document::Model`]).
//!
//! [`load`] reads a world file, [`parse_str`] reads SDF text ([`load_with`] and
//! [`parse_str_with`] take [`LoadOptions`]: where included models are searched for);
//! [`load_document`] / [`load_document_with`] and [`parse_document`] read either a world or a
//! model. A document with problems is an [`SdfError`] that names the file, line and column,
//! the element, what is wrong and what to do, and carries every other problem of the load in
//! [`SdfError::others`]: an element of a world, model or link with an error is skipped and its
//! siblings are still read, and a pass over the whole document (`validate`) checks what
//! libsdformat checks in elements the engine does not use ([`SdfError::render`] prints them
//! all as compiler-style reports; for a problem inside an included file,
//! [`SdfError::included_from`] lists the includes that led there).
//! [`load_document_with_warnings`] also returns the warnings, which do not stop a load.
//!
//! # What is read
//!
//! SDFormat 1.0 to 1.12 documents with one or more `<world>`s (or one `<model>`): physics,
//! gravity, magnetic field, spherical coordinates, the scene (ambient, background, shadows),
//! world-level lights, frames, models (nested too) with links, inertials, joints (world joints
//! too), collisions and visuals of every SDF shape (box, sphere, cylinder, capsule, ellipsoid,
//! cone, plane, mesh, heightmap, polyline; a mesh or heightmap `<uri>` is resolved to its file
//! here and the file is read when the world is built), sensors and plugins (of the world, models,
//! links and sensors), and `<include>`s
//! of models (found through [`crate::resources`], each file read once per load, with the
//! include's overrides, `<namespace>`, `merge="true"` and the edits of `<experimental:params>`,
//! see `params`); the `gz::sim::systems::Label` plugin becomes a
//! segmentation label of its model or visual. Every pose is resolved by SDFormat's frame
//! semantics (see `frames`): `relative_to` any frame in scope, `attached_to`, canonical
//! links, placement frames, joints to frames and to links of nested models, axes
//! `expressed_in` any frame. The nested models an SDF < 1.8 world's model holds flattened
//! (`inner::link`, frame `inner::__model__`) are rebuilt as libsdformat does (see
//! `unflatten`). Automatic inertia (`<inertial auto="true">`) is computed from the
//! collisions, a mesh's from the solid it encloses (see `mesh_inertia`). Defaults are those of SDF 1.12. Elements the engine does not
//! use
//! (GUI, sky, lights inside links, actors...) are skipped; the physics parameters it does not
//! honour are warned about (see `unhonoured` and `docs/physics.md`) (an included
//! light is one of the world's lights). Elements that would change the world if they were skipped (`<population>`, the
//! deprecated `<image>` shape, automatic inertia from a shape without volume, joint types
//! rapier cannot build) are
//! reported as not supported yet rather than dropped.
//!
//! A file with several worlds is a [`Document::Worlds`]; simcore simulates one world, so
//! [`load`] and [`Document::into_world`] give the first, with a warning naming the others.
//!
//! As libsdformat, the reader is lenient about what tinyxml2 tolerates (comments containing
//! `--`, undeclared namespace prefixes such as `<gz:policies>`), and uses the first of a
//! repeated single element (with a warning).
//!
//! # Structure
//!
//! A `Reader` carries the file, the source text, the declared version and the load's shared
//! state (resource search path, files already included); there is one function per element
//! (`world`, `physics`, `model`, `link`, `frame`, `joint`, `inertial`, `collision`, `visual`,
//! `geometry`, `sensor`, `plugin`, `raw_pose`...), each returning its part of the data model,
//! poses as written, or the error inside it (worlds, models and links: every error of their
//! children). When a model (after its nested and
//! included models) or the world has been read, `frames` resolves its scope: names,
//! references, and every pose relative to its default parent.

#![warn(missing_docs)]

mod deprecated;
mod error;
mod frames;
mod include;
mod joint;
mod lenient;
mod mesh_inertia;
mod model;
mod params;
mod reader;
mod scene;
mod sensor;
mod shapes;
mod surface;
mod unflatten;
mod unhonoured;
mod validate;
mod world;

#[cfg(test)]
mod audit_tests;
#[cfg(test)]
mod axis_frame_error_tests;
#[cfg(test)]
mod deprecated_tests;
#[cfg(test)]
mod every_error_tests;
#[cfg(test)]
mod flattened_tests;
#[cfg(test)]
mod include_tests;
#[cfg(test)]
mod mesh_inertia_tests;
#[cfg(test)]
mod model_config_warning_tests;
#[cfg(test)]
mod namespace_tests;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

pub use error::{ErrorKind, SdfError};
pub use frames::{frame_in_model, frame_in_world, place_model};
pub use include::LoadOptions;
pub(crate) use reader::Version;

use crate::world::{Model, World};
use include::Loader;
use reader::{Reader, children, describe, is_sdf_element, tag};

/// Reads the SDF world file at `path`, with includes searched for on the standard resource
/// path (see [`LoadOptions`]).
///
/// A file that cannot be read (or is not UTF-8) is an [`SdfError`] naming the file; anything
/// wrong inside it is an [`SdfError`] with its line and column. Of a file with several
/// worlds, the first is returned (with a warning; [`load_document`] reads them all).
pub fn load(path: &Path) -> Result<World, SdfError> {
    load_with(path, &LoadOptions::default())
}

/// Reads the SDF world file at `path`, with includes searched for as `options` say. The
/// warnings of the load are logged (at the warn level).
pub fn load_with(path: &Path, options: &LoadOptions) -> Result<World, SdfError> {
    on_reader_stack(|| {
        let loader = Loader::new(options);
        let world = load_world(path, &loader);
        for w in loader.warnings.take() {
            tracing::warn!("{w}");
        }
        world
    })
}

/// The stack the reader runs on. Reading recurses with the nesting of models (up to
/// `MAX_MODEL_DEPTH` levels, through includes too), which an unoptimised build can need more
/// stack for than a caller's thread has (2 MiB for a spawned thread by default); so each read
/// runs on a thread of its own with this much (reserved address space: only what is used is
/// ever touched).
const READER_STACK: usize = 256 << 20;

/// Runs `read` on a thread with [`READER_STACK`] bytes of stack (on the calling thread when
/// no thread can be started), and returns what it returns; a panic in it is resumed here.
fn on_reader_stack<T: Send>(read: impl FnOnce() -> T + Send) -> T {
    let read = std::sync::Mutex::new(Some(read));
    let run = || {
        let f = read.lock().unwrap_or_else(|e| e.into_inner()).take();
        f.map(|f| f())
    };
    let result = std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("sdf-reader".into())
            .stack_size(READER_STACK)
            .spawn_scoped(scope, run);
        match spawned {
            Ok(handle) => match handle.join() {
                Ok(v) => v,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            // No thread could be started: read on this one.
            Err(_) => None,
        }
    });
    match result {
        Some(v) => v,
        None => match read.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(f) => f(),
            // `run` took the function and returned its value above.
            None => unreachable!("the read ran and returned"),
        },
    }
}

/// Reads the world file at `path` with `loader`.
fn load_world(path: &Path, loader: &Loader) -> Result<World, SdfError> {
    let text = read_text(path)?;
    loader.enter(path);
    with_document(&text, Some(path), |doc, file| {
        read_document(doc, &text, file, loader)
    })
    .map(first_world)
}

/// The first world of a file and the others.
type Worlds = (World, Vec<World>);

/// The first world, with a warning naming the others when there are more: simcore
/// simulates one world (see [`Document::Worlds`]).
fn first_world((first, rest): Worlds) -> World {
    let others: Vec<String> = rest.iter().map(|w| format!("\"{}\"", w.name)).collect();
    if !others.is_empty() {
        tracing::warn!(
            "{}: the file has {} worlds; simcore simulates the first, \"{}\", and ignores {} \
             (put each world in a file of its own to run it)",
            first.span,
            others.len() + 1,
            first.name,
            others.join(", ")
        );
    }
    first
}

/// The text of the file at `path`: an [`ErrorKind::Io`] error when it cannot be read (without
/// a position) or is not UTF-8 (at the first bad byte).
pub(crate) fn read_text(path: &Path) -> Result<String, SdfError> {
    let bytes = std::fs::read(path).map_err(|e| {
        SdfError::without_position(
            ErrorKind::Io,
            Some(path.to_path_buf()),
            format!("cannot read the file: {e}"),
            "check the path and that the file is readable",
        )
    })?;
    match String::from_utf8(bytes) {
        Ok(t) => Ok(t),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let good = String::from_utf8_lossy(&bytes[..valid]).into_owned();
            let (line, column) = error::line_col(&good, valid);
            let mut err = SdfError::without_position(
                ErrorKind::Io,
                Some(path.to_path_buf()),
                "the file is not valid UTF-8",
                "save the file as UTF-8 (SDF files are XML text)",
            );
            err.line = line;
            err.column = column;
            err.source_text = Some(Arc::new(String::from_utf8_lossy(&bytes).into_owned()));
            Err(err)
        }
    }
}

/// What an SDF document holds: a world, several worlds, or (as model files and `model://`
/// directories do) one model.
#[derive(Clone, Debug, PartialEq)]
pub enum Document {
    /// `<sdf><world>`.
    World(World),
    /// `<sdf>` with two or more `<world>`s (with different names), in document order.
    /// libsdformat reads them all and Gazebo runs each in a simulation of its own; simcore
    /// runs one world per simulation (one clock, one physics engine, one control interface),
    /// so `simcore run` and [`Document::into_world`] take the first and warn that the others
    /// are ignored, while `simcore check` and `simcore inspect` cover them all.
    Worlds(Vec<World>),
    /// `<sdf><model>`: the model's `pose` (after its placement frame) is taken as relative
    /// to the world, as libsdformat and Gazebo's model spawning do.
    Model(Model),
}

impl Document {
    /// The world: the document's, or for a model document a default world (SDF 1.12
    /// defaults, named `default`) holding only the model, as Gazebo spawns a model file
    /// into an empty world.
    ///
    /// For a file with several worlds this is the first, with a warning that the others
    /// are ignored (see [`Document::Worlds`]).
    pub fn into_world(self) -> Result<World, SdfError> {
        match self {
            Document::World(w) => Ok(w),
            Document::Worlds(mut ws) if !ws.is_empty() => {
                let first = ws.remove(0);
                Ok(first_world((first, ws)))
            }
            Document::Worlds(_) => parse_str(
                "<sdf version=\"1.12\"><world name=\"default\"/></sdf>",
                None,
            ),
            Document::Model(m) => {
                let mut w = parse_str(
                    "<sdf version=\"1.12\"><world name=\"default\"/></sdf>",
                    None,
                )?;
                w.span = m.span.clone();
                w.models.push(m);
                Ok(w)
            }
        }
    }
}

impl Document {
    /// Every world: the document's worlds, or for a model document the default world
    /// holding it (see [`Document::into_world`]).
    pub fn into_worlds(self) -> Result<Vec<World>, SdfError> {
        match self {
            Document::Worlds(ws) => Ok(ws),
            other => other.into_world().map(|w| vec![w]),
        }
    }
}

/// Reads the SDF file at `path`, whose root holds a world or a model. Errors as [`load`].
pub fn load_document(path: &Path) -> Result<Document, SdfError> {
    load_document_with(path, &LoadOptions::default())
}

/// [`load_document`] with includes searched for as `options` say.
pub fn load_document_with(path: &Path, options: &LoadOptions) -> Result<Document, SdfError> {
    on_reader_stack(|| {
        let text = read_text(path)?;
        let loader = Loader::new(options);
        loader.enter(path);
        document(&text, Some(path), &loader)
    })
}

/// [`load_document_with`], with the warnings of the load: problems that do not stop it, as
/// libsdformat warns about them (an element of SDF's own namespace that SDF does not define
/// where it is written, a repeated single element of which only the first is used, a
/// deprecated form such as `<pose frame>` in SDF 1.7+ or `<thread_pitch>`). Each
/// warning is an [`SdfError`] with its position; print it with [`SdfError::render_warning`].
pub fn load_document_with_warnings(
    path: &Path,
    options: &LoadOptions,
) -> (Result<Document, SdfError>, Vec<SdfError>) {
    on_reader_stack(|| {
        let text = match read_text(path) {
            Ok(t) => t,
            Err(e) => return (Err(e), Vec::new()),
        };
        let loader = Loader::new(options);
        loader.enter(path);
        let result = document(&text, Some(path), &loader);
        (result, loader.warnings.take())
    })
}

/// Reads SDF text whose root holds a world or a model (see [`Document`]).
pub fn parse_document(text: &str, file: Option<&Path>) -> Result<Document, SdfError> {
    on_reader_stack(|| {
        let loader = Loader::new(&LoadOptions::default());
        if let Some(f) = file {
            loader.enter(f);
        }
        document(text, file, &loader)
    })
}

fn document(text: &str, file: Option<&Path>, loader: &Loader) -> Result<Document, SdfError> {
    with_document(text, file, |doc, file| {
        let root = doc.root_element();
        let has_world = children(root, "world").next().is_some();
        if !has_world && tag(root) == "sdf" && children(root, "model").next().is_some() {
            read_model_document(doc, text, file, loader).map(Document::Model)
        } else {
            read_document(doc, text, file, loader).map(|(first, mut rest)| {
                if rest.is_empty() {
                    Document::World(first)
                } else {
                    rest.insert(0, first);
                    Document::Worlds(rest)
                }
            })
        }
    })
}

/// Reads SDF text. `file` is used in spans and error messages, and its directory is where
/// relative includes are searched first (the current directory when None).
pub fn parse_str(text: &str, file: Option<&Path>) -> Result<World, SdfError> {
    parse_str_with(text, file, &LoadOptions::default())
}

/// [`parse_str`] with includes searched for as `options` say.
pub fn parse_str_with(
    text: &str,
    file: Option<&Path>,
    options: &LoadOptions,
) -> Result<World, SdfError> {
    on_reader_stack(|| {
        let loader = Loader::new(options);
        if let Some(f) = file {
            loader.enter(f);
        }
        with_document(text, file, |doc, file| {
            read_document(doc, text, file, &loader)
        })
        .map(first_world)
    })
}

/// Reads one model from SDF text: an `<sdf version>` document holding one `<model>` (as
/// Gazebo's factory takes), or a bare `<model>` (read as the newest SDF version). Used to
/// create models at run time.
pub fn parse_model_str(text: &str, file: Option<&Path>) -> Result<Model, SdfError> {
    on_reader_stack(|| {
        let loader = Loader::new(&LoadOptions::default());
        if let Some(f) = file {
            loader.enter(f);
        }
        with_document(text, file, |doc, file| {
            read_model_document(doc, text, file, &loader)
        })
    })
}

/// Parses `text` as XML leniently (see `lenient`) and hands the document to `read`.
pub(crate) fn with_document<T>(
    text: &str,
    file: Option<&Path>,
    read: impl Fn(&roxmltree::Document, Option<Arc<std::path::PathBuf>>) -> Result<T, SdfError>,
) -> Result<T, SdfError> {
    let file = file.map(|f| Arc::new(f.to_path_buf()));
    let mut prepared = lenient::normalise(text);
    // A prefix declared somewhere but not in scope where it is used is dropped, one at a time.
    for _ in 0..16 {
        let prefix = match parse_xml(&prepared) {
            Ok(doc) => return read(&doc, file),
            Err(roxmltree::Error::UnknownNamespace(prefix, _)) => prefix,
            Err(e) => return Err(xml_error(&e, text, file)),
        };
        prepared = Cow::Owned(lenient::drop_prefix(&prepared, &prefix));
    }
    match parse_xml(&prepared) {
        Ok(doc) => read(&doc, file),
        Err(e) => Err(xml_error(&e, text, file)),
    }
}

/// Reads a document holding one model (see [`parse_model_str`]).
fn read_model_document(
    doc: &roxmltree::Document,
    source: &str,
    file: Option<Arc<std::path::PathBuf>>,
    loader: &Loader,
) -> Result<Model, SdfError> {
    let root = doc.root_element();
    if tag(root) == "model" && is_sdf_element(root) {
        let r = Reader {
            file,
            source,
            version: Version::NEWEST,
            lines: error::LineIndex::new(source),
            loader,
            edited: None,
            shared_source: Default::default(),
        };
        let problems = r.validate(root);
        return with_problems(r.model(root, 1), problems);
    }
    let r = root_reader(root, source, file, loader)?;
    let problems = r.validate(root);
    with_problems(read_model_element(&r, root), problems)
}

/// The one `<model>` of the `<sdf>` root.
fn read_model_element(r: &Reader, root: roxmltree::Node) -> Result<Model, SdfError> {
    let mut models = children(root, "model");
    let Some(model) = models.next() else {
        return Err(r.error(
            root,
            ErrorKind::Missing,
            "no <model> in this document",
            "give one model: <sdf version=\"1.12\"><model name=\"...\"> ... </model></sdf>",
        ));
    };
    if let Some(extra) = models.next() {
        return Err(r.error(
            extra,
            ErrorKind::Unsupported,
            "more than one <model> in this document",
            "create one model per request",
        ));
    }
    r.model(model, 1)
}

/// Parses XML (no DTDs: SDF does not use them, and they open the door to entity expansion).
fn parse_xml(text: &str) -> Result<roxmltree::Document<'_>, roxmltree::Error> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(text, options)
}

/// The error for text that is not well-formed XML.
fn xml_error(e: &roxmltree::Error, text: &str, file: Option<Arc<std::path::PathBuf>>) -> SdfError {
    let pos = e.pos();
    let full = e.to_string();
    let message = full
        .strip_suffix(&format!(" at {pos}"))
        .unwrap_or(&full)
        .to_string();
    let (line, column) = match e {
        roxmltree::Error::UnclosedRootNode | roxmltree::Error::UnexpectedEndOfStream => {
            error::line_col(text, text.trim_end().len())
        }
        roxmltree::Error::DtdDetected => error::line_col(text, text.find("<!DOCTYPE").unwrap_or(0)),
        _ => (pos.row.max(1), pos.col.max(1)),
    };
    let hint = match e {
        roxmltree::Error::UnclosedRootNode | roxmltree::Error::UnexpectedEndOfStream => {
            "the file ends before the root element is closed: add the missing closing tags"
        }
        roxmltree::Error::UnknownToken(_) => {
            "check for text after the closing </sdf> tag, a second root element or a stray `<`"
        }
        roxmltree::Error::UnexpectedCloseTag(..) => {
            "every opening tag needs a matching closing tag"
        }
        roxmltree::Error::NoRootNode => "the file must contain an <sdf version=\"...\"> element",
        roxmltree::Error::DtdDetected => {
            "remove the <!DOCTYPE> declaration: SDF files do not use one"
        }
        _ => "fix the XML syntax at this position",
    };
    SdfError {
        kind: ErrorKind::Xml,
        file: file.as_deref().cloned(),
        line,
        column,
        element: String::new(),
        message: format!("not well-formed XML: {message}"),
        hint: hint.to_string(),
        source_text: Some(Arc::new(text.to_string())),
        included_from: Box::default(),
        others: Box::default(),
    }
}

/// Checks the `<sdf version>` root and returns a reader for that version.
pub(crate) fn root_reader<'s>(
    root: roxmltree::Node,
    source: &'s str,
    file: Option<Arc<std::path::PathBuf>>,
    loader: &'s Loader,
) -> Result<Reader<'s>, SdfError> {
    // A provisional reader for errors before the version is known.
    let mut r = Reader {
        file,
        source,
        version: Version::NEWEST,
        lines: error::LineIndex::new(source),
        loader,
        edited: None,
        shared_source: Default::default(),
    };
    if tag(root) != "sdf" || !is_sdf_element(root) {
        let hint = if tag(root) == "gazebo" {
            "this is a pre-SDF Gazebo file: convert it to SDFormat (root <sdf version=\"1.12\">)"
        } else {
            "an SDF file starts with <sdf version=\"1.12\"> and ends with </sdf>"
        };
        return Err(r.error(
            root,
            ErrorKind::Invalid,
            format!(
                "the root element must be <sdf>, found <{}>",
                root.tag_name().name()
            ),
            hint,
        ));
    }
    let supported = format!(
        "simcore reads SDFormat {} to {}",
        Version::OLDEST,
        Version::NEWEST
    );
    r.version = match root.attribute("version") {
        None => {
            return Err(r.error(
                root,
                ErrorKind::Version,
                "<sdf> has no `version` attribute",
                format!("add the version the file is written for, e.g. <sdf version=\"1.12\"> ({supported})"),
            ));
        }
        Some(v) => match Version::parse(v) {
            Some(version) if version.is_supported() => version,
            _ => {
                return Err(r.attr_error(
                    root,
                    "version",
                    ErrorKind::Version,
                    format!("unsupported SDF version \"{v}\""),
                    format!("{supported}; declare one of them, e.g. version=\"1.12\""),
                ));
            }
        },
    };

    Ok(r)
}

/// Reads the `<sdf>` root and its `<world>`s (at least one).
fn read_document(
    doc: &roxmltree::Document,
    source: &str,
    file: Option<Arc<std::path::PathBuf>>,
    loader: &Loader,
) -> Result<Worlds, SdfError> {
    let root = doc.root_element();
    let r = root_reader(root, source, file, loader)?;
    let problems = r.validate(root);
    with_problems(read_world_element(&r, root), problems)
}

/// `result`, failed with `problems` too when there are any: every problem of the document is
/// reported, the first error of the reader first.
pub(crate) fn with_problems<T>(
    result: Result<T, SdfError>,
    problems: Vec<SdfError>,
) -> Result<T, SdfError> {
    match result {
        Err(e) => Err(e.with_others(problems)),
        Ok(value) => {
            let mut problems = problems.into_iter();
            match problems.next() {
                None => Ok(value),
                Some(first) => Err(first.with_others(problems)),
            }
        }
    }
}

/// The `<world>`s of the `<sdf>` root (at least one), each read with its own scope; as
/// libsdformat, two worlds may not share a name.
fn read_world_element(r: &Reader, root: roxmltree::Node) -> Result<Worlds, SdfError> {
    let world = children(root, "world").next();
    let Some(world) = world else {
        let what = root.children().find(|c| is_sdf_element(*c));
        return Err(match what {
            Some(node) if tag(node) == "model" => r.error(
                node,
                ErrorKind::Missing,
                "this file describes a model, not a world: a <world> is needed",
                "wrap the model in <world name=\"default\"> ... </world>, or include it from a world file",
            ),
            Some(node) => r.error(
                node,
                ErrorKind::Missing,
                format!("no <world> in this file (found {})", describe(node)),
                "simcore runs worlds: put the models in <world name=\"default\"> ... </world>",
            ),
            None => r.error(
                root,
                ErrorKind::Missing,
                "no <world> in this file",
                "simcore runs worlds: add <world name=\"default\"> ... </world> inside <sdf>",
            ),
        });
    };
    if let Some(model) = children(root, "model").next() {
        return Err(r.error(
            model,
            ErrorKind::Invalid,
            "a <model> next to the <world> is not part of the world",
            "move the <model> inside the <world>",
        ));
    }
    let mut worlds = Vec::new();
    let mut names = model::Siblings::default();
    let mut errors = Vec::new();
    for node in children(root, "world") {
        match r.world(node) {
            Ok(w) => match names.insert(r, node, &w.name, "file") {
                Ok(()) => worlds.push(w),
                Err(e) => errors.push(e),
            },
            Err(e) => errors.push(e),
        }
    }
    let mut errors = errors.into_iter();
    if let Some(first) = errors.next() {
        return Err(first.with_others(errors));
    }
    let mut worlds = worlds.into_iter();
    match worlds.next() {
        Some(first) => Ok((first, worlds.collect())),
        None => Err(r.error(
            world,
            ErrorKind::Missing,
            "no <world> could be read",
            "fix the errors reported for the worlds",
        )),
    }
}
