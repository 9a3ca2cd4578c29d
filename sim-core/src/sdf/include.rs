//! `<include>`: finding the included file (through [`crate::resources`]), reading it once per
//! load whatever the number of includes, applying the include's overrides (`<name>`, `<pose>`,
//! `<static>`, `<plugin>`s) and merging (`merge="true"`).
//!
//! An included file is read by a [`Reader`] of its own, so it keeps its own SDF version rules
//! and its own file name in spans and errors; an error inside it also records the include
//! site ([`SdfError::included_from`]).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::reader::{Reader, Version, children, is_sdf_element, tag};
use super::{read_text, root_reader, with_document};
use crate::resources::{ModelConfigError, ResolveError, ResourcePath};
use crate::world::{AxisFrame, Model, PluginSpec, Pose};

/// How a document is loaded: where its includes are searched for.
///
/// The search path is `resource_paths`, then (unless `ignore_env`) `SIMCORE_RESOURCE_PATH`,
/// `GZ_SIM_RESOURCE_PATH` and `SDF_PATH`, then every `models/` directory at or above the
/// including file, then `fallback_resource_paths` (see [`crate::resources`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Directories searched first (the command line's `--resource-path`).
    pub resource_paths: Vec<PathBuf>,
    /// Directories searched last (the run manifest's `resource_paths`).
    pub fallback_resource_paths: Vec<PathBuf>,
    /// Leave the environment variables out of the search path.
    pub ignore_env: bool,
}

impl LoadOptions {
    /// Options searching `dirs` first (and then the usual places).
    pub fn with_resource_paths(dirs: impl IntoIterator<Item = impl Into<PathBuf>>) -> LoadOptions {
        LoadOptions {
            resource_paths: dirs.into_iter().map(Into::into).collect(),
            ..LoadOptions::default()
        }
    }

    /// The resource search path these options describe.
    pub fn resource_path(&self) -> ResourcePath {
        if self.ignore_env {
            ResourcePath::new(&self.resource_paths, &[], &self.fallback_resource_paths)
        } else {
            ResourcePath::standard(&self.resource_paths, &self.fallback_resource_paths)
        }
    }
}

/// What one load shares between the readers of all its files: the search path, the files
/// already read (by canonical path), and the files being read (to detect cycles).
pub(crate) struct Loader {
    /// Where resources are searched for.
    pub resources: ResourcePath,
    /// Included files already read.
    cache: RefCell<HashMap<PathBuf, Rc<Cached>>>,
    /// The file each include URI resolved to, by (including directory, URI).
    resolved: RefCell<HashMap<(Option<PathBuf>, String), PathBuf>>,
    /// The canonical path of each included file (the key of `cache`).
    canonical: RefCell<HashMap<PathBuf, PathBuf>>,
    /// Canonical paths of the files being read, outermost first.
    stack: RefCell<Vec<PathBuf>>,
    /// How many included files were read from disk.
    reads: Cell<usize>,
}

impl Loader {
    /// A loader for `options`.
    pub fn new(options: &LoadOptions) -> Loader {
        Loader {
            resources: options.resource_path(),
            cache: RefCell::default(),
            resolved: RefCell::default(),
            canonical: RefCell::default(),
            stack: RefCell::default(),
            reads: Cell::new(0),
        }
    }

    /// Marks the file at `path` (the loaded one) as being read, for cycle detection.
    pub fn enter(&self, path: &Path) {
        if let Ok(canonical) = std::fs::canonicalize(path) {
            self.stack.borrow_mut().push(canonical);
        }
    }

    /// How many included files were read from disk so far.
    #[cfg(test)]
    pub fn reads(&self) -> usize {
        self.reads.get()
    }
}

/// An included file, as read (before the include's overrides). Kept in an `Rc`, so the size
/// of the variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Cached {
    /// A `<model>`.
    Model {
        /// The model.
        model: Model,
        /// A `relative_to` frame of the model's own `<pose>` and the error it raises when the
        /// include site gives no `<pose>` of its own and does not know that frame.
        pose_frame: Option<(String, SdfError)>,
    },
    /// A `<light>` or `<actor>` (the engine does not simulate them).
    Other {
        /// `light` or `actor`.
        kind: &'static str,
    },
}

/// Where an `<include>` is.
pub(super) struct Site<'a> {
    /// The frames a `relative_to` in the include's `<pose>` may name (those meaning the
    /// parent's frame).
    pub frames: &'a [&'a str],
    /// Whether the include is in a `<world>` (else in a `<model>`).
    pub in_world: bool,
    /// The nesting depth the included model gets.
    pub depth: usize,
}

/// What an `<include>` brings into its parent.
pub(super) enum Included {
    /// A model, overrides applied.
    Model(Model),
    /// The parts of a merged model (`merge="true"`): its links, joints, nested models and
    /// plugins, posed in the parent's frame, to be added to the parent.
    Merged(Model),
    /// A `<light>` or `<actor>`: read and checked, but not part of the simulated world.
    Other,
}

/// The overrides an `<include>` gives for the included model.
pub(super) struct Overrides {
    /// `<name>`.
    pub name: Option<String>,
    /// `<pose>`, read with the including file's rules.
    pub pose: Option<Pose>,
    /// `<static>`.
    pub is_static: Option<bool>,
    /// `<plugin>`s, appended to the model's.
    pub plugins: Vec<PluginSpec>,
}

/// Applies an include's overrides to a copy of the included model.
pub(super) fn apply_overrides(model: &mut Model, overrides: Overrides) {
    if let Some(name) = overrides.name {
        model.name = name;
    }
    if let Some(pose) = overrides.pose {
        place_included_model(model, pose);
    }
    if let Some(is_static) = overrides.is_static {
        model.is_static = is_static;
    }
    model.plugins.extend(overrides.plugins);
}

/// Gives the included model the pose written in the `<include>` (in the parent's frame). The
/// one place where an include places its model: `relative_to` and `placement_frame` resolution
/// extend this.
pub(super) fn place_included_model(model: &mut Model, pose: Pose) {
    model.pose = pose;
}

impl Reader<'_> {
    /// The directory of the file being read (None for inline text).
    pub(super) fn base_dir(&self) -> Option<&Path> {
        self.file.as_deref().map(|f| match f.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        })
    }

    /// Resolves the URI in `node` (a `<uri>` element) with the resource search path, as seen
    /// from this file: the file or directory it names, or an error at the URI.
    pub(super) fn resolve_uri(&self, node: Node) -> Result<PathBuf, SdfError> {
        let text = self.text(node);
        let uri = text.trimmed();
        self.loader
            .resources
            .resolve(uri, self.base_dir())
            .map_err(|e| {
                let kind = match e {
                    ResolveError::Empty => ErrorKind::Missing,
                    ResolveError::Remote { .. } | ResolveError::Scheme { .. } => {
                        ErrorKind::Unsupported
                    }
                    ResolveError::NotFound { .. } => ErrorKind::NotFound,
                };
                self.error_at(text.start(), node, kind, e.to_string(), e.hint())
            })
    }

    /// `<include>` at `site`.
    pub(super) fn include(&self, node: Node, site: &Site) -> Result<Included, SdfError> {
        let merge = self.bool_attr(node, "merge", false)?;
        if merge && self.version < Version::new(1, 9) {
            return Err(self.attr_error(
                node,
                "merge",
                ErrorKind::Invalid,
                format!(
                    "`merge` is an SDF 1.9 attribute; this file declares SDF {}",
                    self.version
                ),
                "declare <sdf version=\"1.9\"> or later, or include the model without merging",
            ));
        }
        let Some(uri) = self.child(node, "uri") else {
            return Err(self.error(
                node,
                ErrorKind::Missing,
                "<include> has no <uri>",
                "name the model to include: <uri>model://NAME</uri> or a path to its directory or file",
            ));
        };
        self.refuse_unsupported_include_parts(node)?;
        let overrides = self.overrides(node, site)?;
        let file = self.included_file(node, uri)?;
        let included = self.read_included(node, uri, &file, site)?;
        match &*included {
            Cached::Other { kind } => {
                if !site.in_world {
                    return Err(self.error(
                        node,
                        ErrorKind::Invalid,
                        format!(
                            "{} holds a <{kind}>, which a model cannot include",
                            file.display()
                        ),
                        "include lights and actors in the <world>; a model includes models",
                    ));
                }
                if merge {
                    return Err(self.attr_error(
                        node,
                        "merge",
                        ErrorKind::Invalid,
                        format!(
                            "only models can be merged; {} holds a <{kind}>",
                            file.display()
                        ),
                        "remove merge=\"true\"",
                    ));
                }
                Ok(Included::Other)
            }
            Cached::Model { model, pose_frame } => {
                if overrides.pose.is_none()
                    && let Some((frame, e)) = pose_frame
                    && !site.frames.contains(&frame.as_str())
                {
                    return Err(e.clone().included_at(self.span(node)));
                }
                let mut model = model.clone();
                if merge {
                    if overrides.is_static.is_some() {
                        tracing::warn!(
                            "{}: <static> has no effect on a merged model (its links take the \
                             parent model's)",
                            self.span(node)
                        );
                    }
                    apply_overrides(&mut model, overrides);
                    self.merged(node, model, site).map(Included::Merged)
                } else {
                    apply_overrides(&mut model, overrides);
                    Ok(Included::Model(model))
                }
            }
        }
    }

    /// The SDF file the include's `uri` names: the file itself, or the one the `model.config`
    /// of a model directory chooses. Resolved once per URI and including directory.
    fn included_file(&self, include: Node, uri: Node) -> Result<PathBuf, SdfError> {
        let key = (
            self.base_dir().map(Path::to_path_buf),
            self.text(uri).trimmed().to_string(),
        );
        if let Some(file) = self.loader.resolved.borrow().get(&key) {
            return Ok(file.clone());
        }
        let resolved = self.resolve_uri(uri)?;
        let file = if resolved.is_dir() {
            let chosen = crate::resources::model_file(&resolved)
                .map_err(|e| self.model_config_error(include, uri, e))?;
            for w in &chosen.warnings {
                tracing::warn!("{}: {w}", self.span(uri));
            }
            chosen.path
        } else {
            resolved
        };
        self.loader.resolved.borrow_mut().insert(key, file.clone());
        Ok(file)
    }

    /// Refuses the parts of an `<include>` that would change the world and are not read yet.
    fn refuse_unsupported_include_parts(&self, node: Node) -> Result<(), SdfError> {
        for c in node.children().filter(|c| c.is_element()) {
            let name = c.tag_name().name();
            let (what, hint) = match name {
                "placement_frame" if is_sdf_element(c) => (
                    "<placement_frame> in an <include> is",
                    "remove it and give the <pose> of the included model's own frame",
                ),
                "namespace" if is_sdf_element(c) => (
                    "<namespace> in an <include> is",
                    "remove it; the included model keeps the names it has",
                ),
                "model_state" if is_sdf_element(c) => (
                    "<model_state> in an <include> is",
                    "remove it and set the model's state in its own file",
                ),
                "experimental.params" => (
                    "<experimental:params> is",
                    "edit the included model's file instead",
                ),
                "params"
                    if c.tag_name().namespace().and_then(|ns| c.lookup_prefix(ns))
                        == Some("experimental") =>
                {
                    (
                        "<experimental:params> is",
                        "edit the included model's file instead",
                    )
                }
                _ => continue,
            };
            return Err(self.unsupported(c, what, hint));
        }
        Ok(())
    }

    /// The error for a model directory whose SDF file cannot be found.
    fn model_config_error(&self, include: Node, uri: Node, e: ModelConfigError) -> SdfError {
        let at = self.text(uri).start();
        match e {
            ModelConfigError::Xml {
                ref file,
                line,
                column,
                ref message,
                ref text,
            } => SdfError {
                kind: ErrorKind::Xml,
                file: Some(file.clone()),
                line: line.max(1),
                column: column.max(1),
                element: String::new(),
                message: format!("not well-formed XML: {message}"),
                hint: e.hint(),
                source_text: Some(std::sync::Arc::new(text.clone())),
                included_from: Box::default(),
            }
            .included_at(self.span(include)),
            ModelConfigError::Read { .. } => {
                self.error_at(at, uri, ErrorKind::Io, e.to_string(), e.hint())
            }
            ModelConfigError::NoModel { .. } => {
                self.error_at(at, uri, ErrorKind::Invalid, e.to_string(), e.hint())
            }
            ModelConfigError::NoConfig { .. }
            | ModelConfigError::NoSdf { .. }
            | ModelConfigError::Missing { .. } => {
                self.error_at(at, uri, ErrorKind::NotFound, e.to_string(), e.hint())
            }
        }
    }

    /// The included file at `file`, read once per load.
    fn read_included(
        &self,
        include: Node,
        uri: Node,
        file: &Path,
        site: &Site,
    ) -> Result<Rc<Cached>, SdfError> {
        let at = self.text(uri).start();
        let known = self.loader.canonical.borrow().get(file).cloned();
        let canonical = match known {
            Some(c) => c,
            None => {
                let c = std::fs::canonicalize(file).map_err(|e| {
                    self.error_at(
                        at,
                        uri,
                        ErrorKind::Io,
                        format!("cannot read the included file {}: {e}", file.display()),
                        "check the path and that the file is readable",
                    )
                })?;
                self.loader
                    .canonical
                    .borrow_mut()
                    .insert(file.to_path_buf(), c.clone());
                c
            }
        };
        if let Some(c) = self.loader.cache.borrow().get(&canonical) {
            return Ok(c.clone());
        }
        let cycle = {
            let stack = self.loader.stack.borrow();
            stack.iter().position(|p| *p == canonical).map(|i| {
                stack[i..]
                    .iter()
                    .chain(std::iter::once(&canonical))
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" -> ")
            })
        };
        if let Some(chain) = cycle {
            return Err(self.error_at(
                at,
                uri,
                ErrorKind::Invalid,
                format!("include cycle: {chain}"),
                "a file cannot include itself, directly or through other files: remove one of these includes",
            ));
        }
        let text = read_text(file).map_err(|e| {
            if e.line == 0 {
                self.error_at(
                    at,
                    uri,
                    e.kind,
                    format!("the included file {}: {}", file.display(), e.message),
                    e.hint,
                )
            } else {
                e.included_at(self.span(include))
            }
        })?;
        self.loader.reads.set(self.loader.reads.get() + 1);
        self.loader.stack.borrow_mut().push(canonical.clone());
        let read = read_included_document(&text, file, self.loader, site);
        self.loader.stack.borrow_mut().pop();
        let cached = Rc::new(read.map_err(|e| e.included_at(self.span(include)))?);
        self.loader
            .cache
            .borrow_mut()
            .insert(canonical, cached.clone());
        Ok(cached)
    }

    /// The overrides written in `<include>` (read with this file's rules).
    fn overrides(&self, node: Node, site: &Site) -> Result<Overrides, SdfError> {
        let name = match self.child(node, "name") {
            Some(n) => Some(self.include_name(n)?),
            None => None,
        };
        let pose = match self.child(node, "pose") {
            Some(p) => Some(self.pose_of(p, site.frames)?),
            None => None,
        };
        let is_static = self.bool_of(self.child(node, "static"))?;
        let mut plugins = Vec::new();
        for p in children(node, "plugin") {
            plugins.push(self.plugin(p)?);
        }
        Ok(Overrides {
            name,
            pose,
            is_static,
            plugins,
        })
    }

    /// The name in an include's `<name>`, checked as a model name.
    fn include_name(&self, node: Node) -> Result<String, SdfError> {
        let text = self.text(node);
        let name = text.trimmed();
        let problem = if name.is_empty() {
            Some("<name> is empty")
        } else if name.contains("::") {
            Some("the name contains `::`, which separates scopes in SDF")
        } else if self.version >= Version::new(1, 7)
            && (name == "world"
                || (name.len() > 4 && name.starts_with("__") && name.ends_with("__")))
        {
            Some("the name is reserved in SDF (`world` and names like `__name__`)")
        } else {
            None
        };
        match problem {
            Some(p) => Err(self.error_at(
                text.start(),
                node,
                ErrorKind::Invalid,
                format!("{p}: \"{name}\""),
                "give the included model a unique name without `::`",
            )),
            None => Ok(name.to_string()),
        }
    }

    /// A merged model's parts, posed in the parent's frame: the links and nested models get
    /// the model's pose composed in, and joint axes written in the model's frame are turned
    /// into the parent's (the parent's frame is now "the model frame" of those joints).
    fn merged(&self, node: Node, mut model: Model, site: &Site) -> Result<Model, SdfError> {
        let x = model.pose;
        for link in &mut model.links {
            link.pose = x.compose(link.pose);
        }
        for nested in &mut model.models {
            nested.pose = x.compose(nested.pose);
        }
        for joint in &mut model.joints {
            if let Some(axis) = &mut joint.axis
                && axis.frame == AxisFrame::Model
            {
                axis.xyz = x.orientation.rotate(axis.xyz);
            }
        }
        if site.in_world {
            if let Some(link) = model.links.first() {
                return Err(self.attr_error(
                    node,
                    "merge",
                    ErrorKind::Invalid,
                    format!(
                        "model \"{}\" has links (\"{}\"), which cannot be merged into a world",
                        model.name, link.name
                    ),
                    "a world holds no links: include the model without merge=\"true\"",
                ));
            }
            if let Some(joint) = model.joints.first() {
                return Err(self.unsupported(
                    node,
                    &format!(
                        "merging joints (\"{}\" of model \"{}\") into a world is",
                        joint.name, model.name
                    ),
                    "include the model without merge=\"true\"",
                ));
            }
        }
        Ok(model)
    }
}

/// Reads an included file: an `<sdf>` document whose one top-level element is a `<model>`
/// (or a `<light>` or `<actor>`).
fn read_included_document(
    text: &str,
    file: &Path,
    loader: &Loader,
    site: &Site,
) -> Result<Cached, SdfError> {
    with_document(text, Some(file), |doc, f| {
        let root = doc.root_element();
        let r = root_reader(root, text, f, loader)?;
        let mut top: Option<Node> = None;
        for kind in ["model", "actor", "light"] {
            for n in children(root, kind) {
                match top {
                    None => top = Some(n),
                    Some(first) => {
                        return Err(r.error(
                            n,
                            ErrorKind::Invalid,
                            format!(
                                "an included file holds one model, actor or light; this one also has {} (line {})",
                                super::reader::describe(first),
                                r.span(first).line
                            ),
                            "keep one top-level element, or include each from a file of its own",
                        ));
                    }
                }
            }
        }
        let Some(top) = top else {
            let (at, found) = match root.children().find(|c| is_sdf_element(*c)) {
                Some(n) => (n, format!(" (found <{}>)", tag(n))),
                None => (root, String::new()),
            };
            return Err(r.error(
                at,
                ErrorKind::Missing,
                format!("nothing to include: no <model>, <actor> or <light> in this file{found}"),
                "an included file is <sdf version=\"...\"><model name=\"...\"> ... </model></sdf>",
            ));
        };
        match tag(top) {
            "model" => {
                // The model's own pose may be relative to a frame of the include site: it is
                // checked there (unless the include gives a pose of its own).
                let frame = r
                    .child(top, "pose")
                    .and_then(|p| p.attribute("relative_to").or_else(|| p.attribute("frame")))
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
                    .map(str::to_string);
                let allowed: Vec<&str> = frame.as_deref().into_iter().collect();
                let model = r.model(top, &allowed, site.depth)?;
                let pose_frame = match frame {
                    Some(f) => r.pose(top, &[]).err().map(|e| (f, e)),
                    None => None,
                };
                Ok(Cached::Model { model, pose_frame })
            }
            kind => {
                r.entity_name(top, false)?;
                Ok(Cached::Other {
                    kind: if kind == "light" { "light" } else { "actor" },
                })
            }
        }
    })
}
