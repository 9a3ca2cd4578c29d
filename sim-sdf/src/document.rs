//! The entry points of the reader: a file or a text read as a [`Document`] (a world, several
//! worlds, or a model), each read on a stack of its own.

use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use super::error::{ErrorKind, SdfError};
use super::load::{LoadOptions, Loader, Rewrites};
use super::parse::{read_text, root_reader, with_document, with_problems};
use super::reader::{Reader, children, describe, is_sdf_element, tag};
use super::siblings::Siblings;
use super::version::Version;
use sim_world::{Model, World};

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
        let loader = Loader::new(options).in_dir_of(path);
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
pub(crate) fn on_reader_stack<T: Send>(read: impl FnOnce() -> T + Send) -> T {
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
pub(super) fn load_world(path: &Path, loader: &Loader) -> Result<World, SdfError> {
    let text = read_text(path, &loader.limits)?;
    loader.enter(path);
    with_document(&text, Some(path), |doc, file| {
        read_document(doc, &text, file, loader, None)
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

/// What an SDF document holds: a world, several worlds, or (as model files and `model://`
/// directories do) one model.
// One document is made per load and taken apart at once: the size of a world beside a model
// costs nothing worth an indirection in the public type.
#[allow(clippy::large_enum_variant)]
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
        let text = read_text(path, &options.limits)?;
        let loader = Loader::entered(options, Some(path));
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
        let text = match read_text(path, &options.limits) {
            Ok(t) => t,
            Err(e) => return (Err(e), Vec::new()),
        };
        let loader = Loader::entered(options, Some(path));
        let result = document(&text, Some(path), &loader);
        (result, loader.warnings.take())
    })
}

/// Reads SDF text whose root holds a world or a model (see [`Document`]).
pub fn parse_document(text: &str, file: Option<&Path>) -> Result<Document, SdfError> {
    on_reader_stack(|| {
        let loader = Loader::entered(&LoadOptions::default(), file);
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
            read_document(doc, text, file, loader, None).map(|(first, mut rest)| {
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
        let loader = Loader::entered(options, file);
        with_document(text, file, |doc, file| {
            read_document(doc, text, file, &loader, None)
        })
        .map(first_world)
    })
}

/// Reads the world in `text` (of `file`) with `loader`, as [`parse_str_with`] does, its
/// includes reading the texts `rewrites` gives them instead of their files (see
/// `overrides`). To be called on the reader's stack ([`on_reader_stack`]).
pub(crate) fn read_rewritten_world(
    text: &str,
    file: Option<&Path>,
    loader: &Loader,
    rewrites: Rc<Rewrites>,
) -> Result<World, SdfError> {
    with_document(text, file, |doc, file| {
        read_document(doc, text, file, loader, Some(rewrites.clone()))
    })
    .map(first_world)
}

/// Reads one model from SDF text: an `<sdf version>` document holding one `<model>` (as
/// Gazebo's factory takes), or a bare `<model>` (read as the newest SDF version). Used to
/// create models at run time.
pub fn parse_model_str(text: &str, file: Option<&Path>) -> Result<Model, SdfError> {
    on_reader_stack(|| {
        let loader = Loader::entered(&LoadOptions::default(), file);
        with_document(text, file, |doc, file| {
            read_model_document(doc, text, file, &loader)
        })
    })
}

/// Reads one model to create in `world` (see [`parse_model_str`]), as the world's own files
/// are read: its includes and meshes are searched for on the world's resource search path,
/// must lie there or in the world's directory (the directory of `file`, when the model was
/// read from one), and are read within the world's limits.
pub fn parse_model_in(text: &str, file: Option<&Path>, world: &World) -> Result<Model, SdfError> {
    on_reader_stack(|| {
        let mut loader = Loader::in_world(world);
        if let Some(f) = file {
            loader = loader.in_dir_of(f);
            loader.enter(f);
        }
        with_document(text, file, |doc, file| {
            read_model_document(doc, text, file, &loader)
        })
    })
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
        let r = Reader::new(file, source, Version::NEWEST, loader);
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
    // The model of a model file has no siblings: its pose cannot be relative to a frame.
    if let Some(pose) = r.child(model, "pose")
        && let Some(frame) = ["relative_to", "frame"]
            .iter()
            .find_map(|a| pose.attribute(*a))
            .map(str::trim)
            .filter(|f| !f.is_empty())
    {
        return Err(r.error(
            pose,
            ErrorKind::Invalid,
            format!(
                "the pose of a model file's top-level model is relative to \"{frame}\"; that \
                 model has no sibling frames to be relative to"
            ),
            "remove relative_to (the pose is relative to the world it is put in)",
        ));
    }
    r.model(model, 1)
}

/// Reads the `<sdf>` root and its `<world>`s (at least one), the includes reading the texts
/// `rewrites` gives them instead of their files.
fn read_document(
    doc: &roxmltree::Document,
    source: &str,
    file: Option<Arc<std::path::PathBuf>>,
    loader: &Loader,
    rewrites: Option<Rc<Rewrites>>,
) -> Result<Worlds, SdfError> {
    let root = doc.root_element();
    let mut r = root_reader(root, source, file, loader)?;
    r.rewrites = rewrites;
    let problems = r.validate(root);
    with_problems(read_world_element(&r, root), problems)
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
    let mut names = Siblings::default();
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
    SdfError::from_all(errors)?;
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
