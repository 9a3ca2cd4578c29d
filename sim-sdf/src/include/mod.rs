//! `<include>`: finding the included file (through [`crate::resources`]), reading it once per
//! load whatever the number of includes, applying the include's overrides (`<name>`, `<pose>`,
//! `<placement_frame>`, `<static>`, `<plugin>`s, `<namespace>`) and merging (`merge="true"`).
//! An include with `<experimental:params>` (or with edits an including file hands on to it)
//! reads its file edited (see `params`), once for that include.
//!
//! What the include changes in the model it brings in is [`apply`]'s. An included file is
//! read by a [`Reader`] of its own, so it keeps its own SDF version rules
//! and its own file name in spans and errors; an error inside it also records the include
//! site ([`SdfError::included_from`]).

use std::path::{Path, PathBuf};
use std::rc::Rc;

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::load::{Cached, Loader, Rewrites, Rewritten};
use super::params::{self, Edits};
use super::parse::{read_text, root_reader, with_document, with_problems};
use super::reader::{Reader, children, describe, is_sdf_element, tag};
use super::source::Source;
use sim_world::resources::{ModelConfigError, ResolveError};
use sim_world::{Light, Model};

mod apply;

/// Where an `<include>` is.
pub(super) struct Site {
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
    /// A `<light>`, the include's `<name>` and `<pose>` applied (a `relative_to` of that
    /// pose is resolved with the world's frames).
    Light(Light),
    /// An `<actor>`, by its name (the include's `<name>` applied): read and checked, but
    /// not part of the simulated world.
    Actor(String),
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
            .and_then(|p| {
                self.loader.confine(p, self.base_dir()).map_err(|e| {
                    self.error_at(
                        text.start(),
                        node,
                        ErrorKind::Invalid,
                        e,
                        "put the included model in the world's directory or on the resource \
                         path (--resource-path)",
                    )
                })
            })
    }

    /// `<include>` at `site`.
    pub(super) fn include(&self, node: Node, site: &Site) -> Result<Included, SdfError> {
        // `merge` came with SDF 1.9, but libsdformat honours it in a file of any version.
        let merge = self.bool_attr(node, "merge", false)?;
        let uri = self.uri_of(node)?;
        self.refuse_unsupported_include_parts(node)?;
        let overrides = self.overrides(node)?;
        let edits = self.edits(node);
        let file = self.included_file(node, uri)?;
        let rewritten = self.rewritten(node);
        let included = self.read_included(node, uri, &file, site, edits, rewritten)?;
        match &*included {
            Cached::Other { kind, light, actor } => {
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
                Ok(match light {
                    Some(light) => {
                        let mut light = light.clone();
                        if let Some(name) = overrides.name {
                            light.name = name;
                        }
                        if let Some(pose) = overrides.pose {
                            light.pose = pose.pose;
                            light.raw_pose = pose;
                        }
                        light.span = self.span(node);
                        Included::Light(light)
                    }
                    None => Included::Actor(
                        overrides.name.or_else(|| actor.clone()).unwrap_or_default(),
                    ),
                })
            }
            Cached::Model { model } => {
                self.expand(uri, model_count(model))?;
                self.copy_parts(uri, model)?;
                let mut model = model.clone();
                if merge {
                    if overrides.is_static.is_some() {
                        tracing::warn!(
                            "{}: <static> has no effect on a merged model (its links take the \
                             parent model's)",
                            self.span(node)
                        );
                    }
                    self.apply_overrides_at(node, &mut model, overrides)?;
                    self.merged(node, model, site).map(Included::Merged)
                } else {
                    self.apply_overrides_at(node, &mut model, overrides)?;
                    Ok(Included::Model(model))
                }
            }
        }
    }

    /// The `<uri>` of the `<include>` `node`, or the error that it has none.
    fn uri_of<'n>(&self, node: Node<'n, 'n>) -> Result<Node<'n, 'n>, SdfError> {
        self.child(node, "uri").ok_or_else(|| {
            self.error(
                node,
                ErrorKind::Missing,
                "<include> has no <uri>",
                "name the model to include: <uri>model://NAME</uri> or a path to its directory or file",
            )
        })
    }

    /// The file the `<include>` `include` brings in and its text, as the include reads them
    /// (for overrides that reach into it: see `overrides`).
    pub(crate) fn included_source(&self, include: Node) -> Result<(PathBuf, String), SdfError> {
        let uri = self.uri_of(include)?;
        let file = self.included_file(include, uri)?;
        let text = self.read_included_text(include, uri, &file)?;
        Ok((file, text))
    }

    /// The text some overrides wrote into the file the `<include>` `include` brings in, for
    /// that include (see `overrides`).
    fn rewritten(&self, include: Node) -> Option<Rc<Rewritten>> {
        let rewrites = self.rewrites.as_ref()?;
        let start = include.range().start;
        // In a document edited by `<experimental:params>`, the include's place in the text
        // the edits were applied to.
        let at = match &self.edited {
            Some(edited) => {
                let origin = edited.origins.map(start);
                if origin.source.file.as_deref() != self.file.as_deref() {
                    return None;
                }
                origin.offset
            }
            None => start,
        };
        rewrites.get(&at).cloned()
    }

    /// The SDF file the include's `uri` names: the file itself, or the one the `model.config`
    /// of a model directory chooses. Resolved once per URI and including directory.
    pub(crate) fn included_file(&self, include: Node, uri: Node) -> Result<PathBuf, SdfError> {
        let key = (
            self.base_dir().map(Path::to_path_buf),
            self.text(uri).trimmed().to_string(),
        );
        if let Some(file) = self.loader.resolved.borrow().get(&key) {
            return Ok(file.clone());
        }
        let resolved = self.resolve_uri(uri)?;
        let file = if resolved.is_dir() {
            let chosen = sim_world::resources::model_file(&resolved)
                .map_err(|e| self.model_config_error(include, uri, e))?;
            for w in &chosen.warnings {
                self.loader.warn(
                    SdfError {
                        kind: ErrorKind::Version,
                        file: Some(w.file.clone()),
                        line: w.line.max(1),
                        column: w.column.max(1),
                        element: w.element.clone(),
                        message: w.message.clone(),
                        hint: w.hint.clone(),
                        source_text: Some(chosen.config_text.clone()),
                        included_from: Box::default(),
                        others: Box::default(),
                    }
                    .included_at(self.span(include)),
                );
            }
            // The file a model.config names, its links followed, stays where reads may go.
            self.loader
                .confine(chosen.path, self.base_dir())
                .map_err(|e| {
                    self.error_at(
                        self.text(uri).start(),
                        uri,
                        ErrorKind::Invalid,
                        e,
                        "keep the model's files inside its directory",
                    )
                })?
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
                "model_state" if is_sdf_element(c) => (
                    "<model_state> in an <include> is",
                    "remove it and set the model's state in its own file",
                ),
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
                source_text: sim_world::input::quotable(text)
                    .then(|| std::sync::Arc::new(text.clone())),
                included_from: Box::default(),
                others: Box::default(),
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

    /// The edits of the included model: those of the include's `<experimental:params>`,
    /// then those an including file hands on to this include (see `params`).
    fn edits(&self, node: Node) -> Edits {
        let mut edits = Edits::default();
        let params = node.children().find(|c| {
            c.is_element()
                && (c.tag_name().name() == "experimental.params"
                    || (c.tag_name().name() == "params"
                        && c.tag_name().namespace().and_then(|ns| c.lookup_prefix(ns))
                            == Some("experimental")))
        });
        if let Some(p) = params {
            edits = params::edits(p, &self.origins());
        }
        if let Some(handed_on) = self
            .edited
            .as_ref()
            .and_then(|e| e.forwarded.get(&node.range().start))
        {
            edits.list.extend(handed_on.iter().cloned());
        }
        edits
    }

    /// The included file at `file`, read once per load (and once per include when `edits`
    /// change it, or when overrides `rewritten` it for this include).
    fn read_included(
        &self,
        include: Node,
        uri: Node,
        file: &Path,
        site: &Site,
        edits: Edits,
        rewritten: Option<Rc<Rewritten>>,
    ) -> Result<Rc<Cached>, SdfError> {
        let at = self.text(uri).start();
        self.expand(uri, 0)?;
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
        if edits.is_empty()
            && rewritten.is_none()
            && let Some(c) = self.loader.cache.borrow().get(&canonical)
        {
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
        let read_here;
        let text = match &rewritten {
            Some(r) => &r.text,
            None => {
                read_here = self.read_included_text(include, uri, file)?;
                &read_here
            }
        };
        self.loader.reads.set(self.loader.reads.get() + 1);
        self.expand(uri, 1)?;
        self.loader.stack.borrow_mut().push(canonical.clone());
        let edited = !edits.is_empty();
        let own = rewritten.is_some();
        let rewrites = rewritten.as_ref().map(|r| r.includes.clone());
        let read = if edited {
            read_edited_document(text, file, self.loader, site, edits, rewrites)
        } else {
            read_included_document(text, file, self.loader, site, rewrites)
        };
        self.loader.stack.borrow_mut().pop();
        let cached = Rc::new(read.map_err(|e| e.included_at(self.span(include)))?);
        if !edited && !own {
            self.loader
                .cache
                .borrow_mut()
                .insert(canonical, cached.clone());
        }
        Ok(cached)
    }

    /// The text of the included file at `file` (named by the include's `uri`): a file that
    /// cannot be read is an error at the URI.
    fn read_included_text(
        &self,
        include: Node,
        uri: Node,
        file: &Path,
    ) -> Result<String, SdfError> {
        read_text(file, &self.loader.limits).map_err(|e| {
            if e.line == 0 {
                self.error_at(
                    self.text(uri).start(),
                    uri,
                    e.kind,
                    format!("the included file {}: {}", file.display(), e.message),
                    e.hint,
                )
            } else {
                e.included_at(self.span(include))
            }
        })
    }

    /// Counts `models` more models expanded (or, for 0, checks the count): an error at the
    /// include's `uri` once the load has expanded more than [`Limits::max_models`] (models
    /// copied by includes and included files read), which the includes that led here
    /// (`included_from`) trace back to the world.
    ///
    /// [`Limits::max_models`]: sim_world::input::Limits::max_models
    fn expand(&self, uri: Node, models: usize) -> Result<(), SdfError> {
        let expanded = self.loader.expanded.get().saturating_add(models);
        self.loader.expanded.set(expanded);
        let max = self.loader.limits.max_models;
        if expanded <= max {
            return Ok(());
        }
        Err(self.error_at(
            self.text(uri).start(),
            uri,
            ErrorKind::Invalid,
            format!(
                "the includes expand to more than {max} models (counting every copy an include \
                 makes and every included file read)"
            ),
            "include fewer copies (files that each include the next several times grow \
             exponentially), or raise the limit (--max-models, LoadOptions::limits.max_models)",
        ))
    }

    /// Counts the links and collisions of one copy of `model` an include makes: an error at
    /// the include's `uri` once the copies of this load hold more than
    /// [`Limits::max_links`] links or [`Limits::max_collisions`] collisions.
    ///
    /// [`Limits::max_links`]: sim_world::input::Limits::max_links
    /// [`Limits::max_collisions`]: sim_world::input::Limits::max_collisions
    fn copy_parts(&self, uri: Node, model: &Model) -> Result<(), SdfError> {
        let (links, collisions) = parts(model);
        let (l, c) = self.loader.copied.get();
        let total = (l.saturating_add(links), c.saturating_add(collisions));
        self.loader.copied.set(total);
        let limits = &self.loader.limits;
        for (n, max, what) in [
            (total.0, limits.max_links, "links"),
            (total.1, limits.max_collisions, "collisions"),
        ] {
            if n > max {
                return Err(self.error_at(
                    self.text(uri).start(),
                    uri,
                    ErrorKind::Invalid,
                    format!(
                        "the includes copy more than {max} {what} into the world (the limit on \
                         {what})"
                    ),
                    format!(
                        "include fewer copies, or raise the limit (--max-{what}, \
                         LoadOptions::limits.max_{what})"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Reads an included file: an `<sdf>` document whose one top-level element is a `<model>`
/// (or a `<light>` or `<actor>`).
fn read_included_document(
    text: &str,
    file: &Path,
    loader: &Loader,
    site: &Site,
    rewrites: Option<Rc<Rewrites>>,
) -> Result<Cached, SdfError> {
    with_document(text, Some(file), |doc, f| {
        let root = doc.root_element();
        let mut r = root_reader(root, text, f, loader)?;
        r.rewrites = rewrites.clone();
        let problems = r.validate(root);
        with_problems(included_top(&r, root, site), problems)
    })
}

/// Reads an included file edited by `edits` (see `params`): the edits are applied to its XML
/// tree, and the edited document is read as the file would be, its positions mapped back to
/// where each part was written.
fn read_edited_document(
    text: &str,
    file: &Path,
    loader: &Loader,
    site: &Site,
    edits: Edits,
    rewrites: Option<Rc<Rewrites>>,
) -> Result<Cached, SdfError> {
    let source = Source::new(Some(std::sync::Arc::new(file.to_path_buf())), text);
    let edited = with_document(text, Some(file), |doc, f| {
        let root = doc.root_element();
        let r = root_reader(root, text, f, loader)?;
        let mut include_name = |include: Node| -> Result<Option<String>, SdfError> {
            Ok(r.included_model_name(include))
        };
        params::edit_document(doc, &source, edits.clone(), &mut include_name)
    })?;
    let edited = Rc::new(edited);
    with_document(&edited.text, Some(file), |doc, f| {
        let root = doc.root_element();
        let mut r = root_reader(root, &edited.text, f, loader)?;
        r.edited = Some(edited.clone());
        r.rewrites = rewrites.clone();
        let problems = r.validate(root);
        with_problems(included_top(&r, root, site), problems)
    })
}

impl Reader<'_> {
    /// The name of the model (actor, light) the `<include>` `include` brings in, as its file
    /// names it; None when it cannot be read (reading the include reports why).
    fn included_model_name(&self, include: Node) -> Option<String> {
        self.included_top(include).and_then(|(_, name)| name)
    }

    /// What the `<include>` `include` brings in, as its file writes it: `model`, `actor` or
    /// `light`, and its name; None when the file cannot be read (reading the include reports
    /// why).
    pub(crate) fn included_top(&self, include: Node) -> Option<(&'static str, Option<String>)> {
        let uri = self.child(include, "uri")?;
        let file = self.included_file(include, uri).ok()?;
        let text = read_text(&file, &self.loader.limits).ok()?;
        with_document(&text, Some(&file), |doc, _| {
            let root = doc.root_element();
            Ok(["model", "actor", "light"].into_iter().find_map(|kind| {
                children(root, kind)
                    .next()
                    .map(|top| (kind, top.attribute("name").map(|n| n.trim().to_string())))
            }))
        })
        .ok()
        .flatten()
    }
}

/// The one model, actor or light of an included file.
fn included_top(r: &Reader, root: Node, site: &Site) -> Result<Cached, SdfError> {
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
                                describe(first),
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
        "model" => Ok(Cached::Model {
            model: r.model(top, site.depth)?,
        }),
        "light" => Ok(Cached::Other {
            kind: "light",
            light: Some(r.light(top)?),
            actor: None,
        }),
        _ => Ok(Cached::Other {
            kind: "actor",
            light: None,
            actor: Some(r.entity_name(top, false)?),
        }),
    }
}

/// How many models `model` is: itself and every nested model.
fn model_count(model: &Model) -> usize {
    1 + model.models.iter().map(model_count).sum::<usize>()
}

/// The links and the collisions of `model` and its nested models.
fn parts(model: &Model) -> (usize, usize) {
    let own = (
        model.links.len(),
        model
            .links
            .iter()
            .map(|l| l.collisions.len())
            .sum::<usize>(),
    );
    model
        .models
        .iter()
        .map(parts)
        .fold(own, |a, b| (a.0 + b.0, a.1 + b.1))
}
