//! Frames and poses, as SDFormat's pose frame semantics define them (SDF 1.7+, and the
//! older files as libsdformat reads them).
//!
//! The element functions read every pose as written ([`RawPose`]: value and `relative_to`).
//! When a model has been read (its nested models first), [`Reader::resolve_model`] resolves
//! its scope, and [`Reader::resolve_world`] does the same for the world:
//!
//! * the frames of a scope are the scope's own frame (`__model__`, or `world`), its links,
//!   joints, `<frame>`s and nested models, and, through `::`, every frame of a nested model
//!   (`inner::link`, `a::b::frame`);
//! * each of those frames' pose is relative to another frame of the scope: the one named by
//!   `relative_to`, or by default the scope's frame (links, nested models), the child frame
//!   (joints), the `attached_to` frame (`<frame>`s). The relative_to graph must be acyclic;
//! * a `<frame>` moves with what it is `attached_to` (default: the scope's frame); following
//!   that chain must end at a link (a model's frame is attached to its canonical link), or
//!   the world, without a cycle;
//! * a joint's parent and child name frames of the scope (or `world` as parent); each
//!   resolves to the link that frame is attached to;
//! * collisions, visuals, sensors and the inertial of a link, and sensors of a joint, may
//!   be posed relative to any frame of the model's scope (default: their link or joint);
//! * a joint axis may be `expressed_in` any frame of the scope (default: the joint frame);
//! * a model's canonical link is `@canonical_link` (a link, or `nested::link`), by default
//!   its first link, else the canonical link of its first nested model that has one;
//! * a model's `@placement_frame` names one of its frames: its `<pose>` then places that
//!   frame, not the model frame.
//!
//! Resolution writes each element's `pose` relative to its default parent in the data model
//! (see the field docs in [`crate::world`]) and leaves `raw_pose` as written, so resolving a
//! model again after changing a `raw_pose` or `placement_frame` (as an `<include>` does, see
//! [`place_model`]) gives the new poses.

use std::collections::HashMap;

use super::error::{ErrorKind, SdfError};
use super::inertia::{auto_inertial, inertia_problem};
use super::reader::Reader;
use super::version::Version;
use crate::world::{Joint, Model, Pose, RawPose, Span, Vec3, World};

/// One frame of a resolved model as seen from outside it: its pose in the model frame and
/// the link it moves with (named relative to the model; empty for a static model without
/// links).
#[derive(Clone, Debug)]
pub(crate) struct Exported {
    /// The frame's pose in the model frame.
    pub pose: Pose,
    /// The link it is attached to, relative to the model.
    pub body: String,
}

/// Every frame of a resolved model, by its name relative to the model: `__model__`, links,
/// joints, frames, nested models, and their frames as `nested::name`.
pub(crate) fn exported_frames(m: &Model) -> HashMap<String, Exported> {
    let mut out = HashMap::new();
    out.insert(
        "__model__".to_string(),
        Exported {
            pose: Pose::IDENTITY,
            body: m.canonical_link.clone(),
        },
    );
    for n in &m.models {
        let inner = exported_frames(n);
        let body = if n.canonical_link.is_empty() {
            String::new()
        } else {
            format!("{}::{}", n.name, n.canonical_link)
        };
        out.insert(n.name.clone(), Exported { pose: n.pose, body });
        for (k, e) in inner {
            if k == "__model__" {
                continue;
            }
            let body = if e.body.is_empty() {
                String::new()
            } else {
                format!("{}::{}", n.name, e.body)
            };
            out.insert(
                format!("{}::{k}", n.name),
                Exported {
                    pose: n.pose.compose(e.pose),
                    body,
                },
            );
        }
    }
    for l in &m.links {
        out.insert(
            l.name.clone(),
            Exported {
                pose: l.pose,
                body: l.name.clone(),
            },
        );
    }
    for f in &m.frames {
        out.insert(
            f.name.clone(),
            Exported {
                pose: f.pose,
                body: f.attached_to_body.clone(),
            },
        );
    }
    for j in &m.joints {
        let child = out.get(&j.child_link).map_or(Pose::IDENTITY, |e| e.pose);
        out.insert(
            j.name.clone(),
            Exported {
                pose: child.compose(j.pose),
                body: j.child_link.clone(),
            },
        );
    }
    out
}

/// The pose in the world frame of the frame `name` of a resolved world: `world`, a world
/// `<frame>`, a model, or a frame inside a model as `model::link`, `model::nested::frame`...
/// None when there is no such frame. For elements of the world that are posed relative to a
/// frame (a `<light>`, say): their pose in the world is this pose composed with theirs.
pub fn frame_in_world(w: &World, name: &str) -> Option<Pose> {
    if name.is_empty() || name == "world" {
        return Some(Pose::IDENTITY);
    }
    if let Some(f) = w.frames.iter().find(|f| f.name == name) {
        return Some(f.pose);
    }
    let (head, rest) = match name.split_once("::") {
        Some((h, r)) => (h, Some(r)),
        None => (name, None),
    };
    let m = w.models.iter().find(|m| m.name == head)?;
    match rest {
        None => Some(m.pose),
        Some(r) => exported_frames(m).get(r).map(|e| m.pose.compose(e.pose)),
    }
}

/// The pose in the frame of the resolved model `m` of its frame `name` (`__model__`, a
/// link, joint, frame or nested model, or `nested::name`); None when there is none.
pub fn frame_in_model(m: &Model, name: &str) -> Option<Pose> {
    exported_frames(m).get(name).map(|e| e.pose)
}

/// Applies the pose and placement frame an `<include>` gives to a model already read (and
/// so resolved) from its own file: `pose` (when given) replaces the model's `<pose>` (value
/// and `relative_to`), `placement_frame` (when given) the model's own `@placement_frame`.
/// The model's `pose` is then its new raw pose with the placement frame applied, relative
/// to its default parent frame (the enclosing model frame, or the world); when the model
/// is put into a scope that is resolved afterwards (a world or model being read), that
/// resolution also applies the `relative_to` of the new pose.
///
/// Fails, with a message naming the frames the model has, when `placement_frame` is not a
/// frame of the model (a link, joint, frame or nested model, or `nested::name`).
pub fn place_model(
    model: &mut Model,
    pose: Option<RawPose>,
    placement_frame: Option<&str>,
) -> Result<(), String> {
    if let Some(p) = placement_frame {
        model.placement_frame = p.trim().to_string();
    }
    if let Some(p) = pose {
        model.raw_pose = p;
    }
    let post = placement_inverse(model).map_err(|known| {
        format!(
            "the placement frame \"{}\" is not a frame of model \"{}\" (its frames: {known})",
            model.placement_frame, model.name
        )
    })?;
    model.pose = model.raw_pose.pose.compose(post);
    Ok(())
}

/// The inverse of the pose of `model`'s placement frame in its model frame (the identity
/// without one); the error lists the frames the model has.
fn placement_inverse(model: &Model) -> Result<Pose, String> {
    if model.placement_frame.is_empty() || model.placement_frame == "__model__" {
        return Ok(Pose::IDENTITY);
    }
    let table = exported_frames(model);
    match table.get(&model.placement_frame) {
        Some(e) => Ok(e.pose.inverse()),
        None => Err(known_list(table.keys().map(String::as_str))),
    }
}

/// `"a", "b", ...` sorted, for messages (at most 12 names).
fn known_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let mut v: Vec<&str> = names.collect();
    v.sort_unstable();
    let more = v.len().saturating_sub(12);
    let mut s = v
        .iter()
        .take(12)
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ");
    if more > 0 {
        s.push_str(&format!(" and {more} more"));
    }
    s
}

/// What a frame of a scope is.
#[derive(Clone, Debug)]
enum Kind {
    /// A link.
    Link,
    /// A joint, with its child as written.
    Joint { child: String },
    /// A `<frame>`, with its `attached_to` as written.
    Frame { attached_to: String },
    /// A model in the scope (nested, or a world's model), with its frames.
    Model {
        canonical: String,
        table: HashMap<String, Exported>,
    },
}

/// One frame of a scope, for resolution.
struct Item {
    name: String,
    /// The element, for messages (`<link name="base">`).
    what: String,
    kind: Kind,
    raw: RawPose,
    /// What `relative_to` means when empty.
    default_to: String,
    /// Multiplied after the raw pose (a model's placement frame, inverted).
    post: Pose,
    /// Where the element is.
    span: Span,
}

/// Resolution state of an item's pose or body.
#[derive(Clone, Copy, PartialEq)]
enum State {
    Todo,
    Busy,
    Done,
}

/// One scope being resolved: a model's, or the world's.
struct Scope<'r, 's> {
    r: &'r Reader<'s>,
    /// `__model__` or `world`.
    root: &'static str,
    /// The model's name (for messages, and as an alias of `__model__` when no entity of
    /// the model has that name); None for the world.
    model: Option<String>,
    /// The model's canonical link (empty for the world).
    canonical: String,
    items: Vec<Item>,
    index: HashMap<String, usize>,
    poses: Vec<Option<Pose>>,
    pose_state: Vec<State>,
    bodies: Vec<Option<String>>,
    body_state: Vec<State>,
}

impl<'r, 's> Scope<'r, 's> {
    fn new(
        r: &'r Reader<'s>,
        root: &'static str,
        model: Option<String>,
        canonical: String,
        items: Vec<Item>,
    ) -> Self {
        let index = items
            .iter()
            .enumerate()
            .map(|(i, it)| (it.name.clone(), i))
            .collect();
        let n = items.len();
        Scope {
            r,
            root,
            model,
            canonical,
            items,
            index,
            poses: vec![None; n],
            pose_state: vec![State::Todo; n],
            bodies: vec![None; n],
            body_state: vec![State::Todo; n],
        }
    }

    /// "model \"m\"" or "the world".
    fn scope_name(&self) -> String {
        match &self.model {
            Some(m) => format!("model \"{m}\""),
            None => "the world".to_string(),
        }
    }

    /// The names a reference may use here, for hints.
    fn known(&self) -> String {
        let mut names: Vec<&str> = vec![self.root];
        names.extend(self.items.iter().map(|i| i.name.as_str()));
        known_list(names.into_iter())
    }

    /// Whether `name` means the scope's own frame.
    fn is_root(&self, name: &str) -> bool {
        name == self.root || (self.model.as_deref() == Some(name) && !self.index.contains_key(name))
    }

    /// Splits `a::rest` where `a` is a model of the scope.
    fn scoped<'n>(&self, name: &'n str) -> Option<(usize, &'n str)> {
        let (head, rest) = name.split_once("::")?;
        let &i = self.index.get(head)?;
        matches!(self.items[i].kind, Kind::Model { .. }).then_some((i, rest))
    }

    /// The pose of the frame `name` in the scope's frame; `from` is the item (or the
    /// element described by `what` at `span`) that refers to it, for errors.
    fn frame_pose(
        &mut self,
        name: &str,
        span: &Span,
        what: &str,
        attr: &str,
    ) -> Result<Pose, SdfError> {
        if self.is_root(name) {
            return Ok(Pose::IDENTITY);
        }
        if let Some(&i) = self.index.get(name) {
            return self.pose_of(i);
        }
        if let Some((i, rest)) = self.scoped(name) {
            let inner = match &self.items[i].kind {
                Kind::Model { table, .. } => table.get(rest).map(|e| e.pose),
                _ => None,
            };
            if let Some(inner) = inner {
                let outer = self.pose_of(i)?;
                return Ok(outer.compose(inner));
            }
        }
        Err(self.unknown(name, span, what, attr))
    }

    /// The error for a reference to a frame that is not in scope.
    fn unknown(&self, name: &str, span: &Span, what: &str, attr: &str) -> SdfError {
        let hint = if name == "world" && self.model.is_some() {
            "frames inside a model cannot refer to `world`; use __model__ or a frame of the model"
                .to_string()
        } else {
            format!(
                "name one of the frames of {}: {}",
                self.scope_name(),
                self.known()
            )
        };
        self.r.error_span(
            span,
            what,
            ErrorKind::UnknownReference,
            format!("{attr} \"{name}\" is not a frame in {}", self.scope_name()),
            hint,
        )
    }

    /// The pose of item `i` in the scope's frame.
    fn pose_of(&mut self, i: usize) -> Result<Pose, SdfError> {
        match self.pose_state[i] {
            State::Done => return Ok(self.poses[i].unwrap_or(Pose::IDENTITY)),
            State::Busy => {
                let it = &self.items[i];
                return Err(self.r.error_span(
                    &it.raw.span,
                    it.what.clone(),
                    ErrorKind::Cycle,
                    format!(
                        "the poses in {} are relative to each other in a cycle that includes \"{}\"",
                        self.scope_name(),
                        it.name
                    ),
                    "make one of the poses in the cycle relative to the model frame (or world) instead",
                ));
            }
            State::Todo => {}
        }
        self.pose_state[i] = State::Busy;
        let it = &self.items[i];
        let written = !it.raw.relative_to.is_empty();
        let to = if written {
            it.raw.relative_to.clone()
        } else {
            it.default_to.clone()
        };
        if to == it.name {
            let it = &self.items[i];
            return Err(self.r.error_span(
                &it.raw.span,
                it.what.clone(),
                ErrorKind::Cycle,
                format!("the pose of \"{}\" is relative to itself", it.name),
                "name another frame in relative_to, or leave it empty",
            ));
        }
        let (raw, post, span, what) = (it.raw.pose, it.post, it.raw.span.clone(), it.what.clone());
        let attr = if written {
            "relative_to"
        } else if matches!(it.kind, Kind::Frame { .. }) {
            "attached_to"
        } else {
            "the joint's child"
        };
        let base = self.frame_pose(&to, &span, &what, attr)?;
        let pose = base.compose(raw).compose(post);
        self.poses[i] = Some(pose);
        self.pose_state[i] = State::Done;
        Ok(pose)
    }

    /// The link (named relative to the scope) or `world` that the frame `name` moves with;
    /// `span`/`what`/`attr` describe the reference for errors. Empty for the frame of a
    /// static model without links.
    fn body(
        &mut self,
        name: &str,
        span: &Span,
        what: &str,
        attr: &str,
    ) -> Result<String, SdfError> {
        if self.is_root(name) {
            return Ok(match &self.model {
                // A static model without links: its frame is attached to nothing else.
                Some(_) if self.canonical.is_empty() => "__model__".to_string(),
                Some(_) => self.canonical.clone(),
                None => "world".to_string(),
            });
        }
        if let Some(&i) = self.index.get(name) {
            return self.body_of(i);
        }
        if let Some((i, rest)) = self.scoped(name) {
            let head = self.items[i].name.clone();
            if let Kind::Model { table, .. } = &self.items[i].kind
                && let Some(e) = table.get(rest)
            {
                return Ok(if e.body.is_empty() {
                    String::new()
                } else {
                    format!("{head}::{}", e.body)
                });
            }
        }
        Err(self.unknown(name, span, what, attr))
    }

    /// The body of item `i` (see [`Scope::body`]).
    fn body_of(&mut self, i: usize) -> Result<String, SdfError> {
        match self.body_state[i] {
            State::Done => return Ok(self.bodies[i].clone().unwrap_or_default()),
            State::Busy => {
                let it = &self.items[i];
                return Err(self.r.error_span(
                    &it.span,
                    it.what.clone(),
                    ErrorKind::Cycle,
                    format!(
                        "the attached_to chain of {} has a cycle through \"{}\"",
                        self.scope_name(),
                        it.name
                    ),
                    "attach one of the frames in the cycle to a link (or the model frame)",
                ));
            }
            State::Todo => {}
        }
        self.body_state[i] = State::Busy;
        let it = &self.items[i];
        let (span, what) = (it.span.clone(), it.what.clone());
        let body = match &it.kind {
            Kind::Link => it.name.clone(),
            Kind::Model { canonical, .. } => {
                if canonical.is_empty() {
                    String::new()
                } else {
                    format!("{}::{canonical}", it.name)
                }
            }
            Kind::Joint { child, .. } => {
                let child = child.clone();
                self.body(&child, &span, &what, "child")?
            }
            Kind::Frame { attached_to } => {
                let to = if attached_to.is_empty() {
                    self.root.to_string()
                } else {
                    attached_to.clone()
                };
                if to == it.name {
                    return Err(self.r.error_span(
                        &span,
                        what,
                        ErrorKind::Cycle,
                        format!("frame \"{}\" is attached to itself", it.name),
                        "attach it to a link, joint, other frame or the model frame",
                    ));
                }
                if self.model.is_some() && to == "world" {
                    return Err(self.r.error_span(
                        &span,
                        what,
                        ErrorKind::UnknownReference,
                        "a frame in a model cannot be attached to `world`",
                        "attach it to a link, joint or frame of the model (or leave attached_to empty for the model frame)",
                    ));
                }
                self.body(&to, &span, &what, "attached_to")?
            }
        };
        self.bodies[i] = Some(body.clone());
        self.body_state[i] = State::Done;
        Ok(body)
    }

    /// Resolves a joint's `<parent>`, `<child>` or `<gearbox_reference_body>` to a link (or
    /// `world`, except for the child).
    fn joint_link(&mut self, joint: &Joint, which: &str) -> Result<String, SdfError> {
        let name = match which {
            "parent" => &joint.parent,
            "child" => &joint.child,
            _ => &joint.gearbox_reference_body,
        };
        let what = format!("<joint name=\"{}\">", joint.name);
        if which != "child" && name == "world" {
            return Ok("world".to_string());
        }
        let link = self.body(name, &joint.span, &what, &format!("<{which}>"))?;
        if link.is_empty() || link == "__model__" || link.ends_with("::__model__") {
            return Err(self.r.error_span(
                &joint.span,
                what,
                ErrorKind::UnknownReference,
                format!(
                    "joint \"{}\": <{which}> \"{name}\" is not attached to any link",
                    joint.name
                ),
                "name a link, or a frame attached to a link",
            ));
        }
        Ok(link)
    }

    /// The pose of a link-level element (collision, visual, sensor, inertial) in the frame
    /// `parent` (its link or joint, whose pose in the scope is `x_parent`).
    fn child_pose(
        &mut self,
        raw: &RawPose,
        parent: &str,
        x_parent: Pose,
        what: &str,
    ) -> Result<Pose, SdfError> {
        if raw.relative_to.is_empty() || raw.relative_to == parent {
            return Ok(raw.pose);
        }
        let base = self.frame_pose(&raw.relative_to, &raw.span, what, "relative_to")?;
        Ok(x_parent.inverse().compose(base).compose(raw.pose))
    }
}

/// Items for a model's (or the world's) joints.
fn joint_items(joints: &[Joint]) -> impl Iterator<Item = Item> + '_ {
    joints.iter().map(|j| Item {
        name: j.name.clone(),
        what: format!("<joint name=\"{}\">", j.name),
        kind: Kind::Joint {
            child: j.child.clone(),
        },
        raw: j.raw_pose.clone(),
        default_to: j.child.clone(),
        post: Pose::IDENTITY,
        span: j.span.clone(),
    })
}

/// An item for a model inside a scope (nested, or a world's); `root` is the scope's frame.
fn model_item(r: &Reader, m: &Model, root: &str) -> Result<Item, SdfError> {
    let post = placement_inverse(m).map_err(|known| {
        r.error_span(
            &m.span,
            format!("<model name=\"{}\">", m.name),
            ErrorKind::UnknownReference,
            format!(
                "placement_frame \"{}\" is not a frame of model \"{}\"",
                m.placement_frame, m.name
            ),
            format!("name one of its frames: {known}"),
        )
    })?;
    Ok(Item {
        name: m.name.clone(),
        what: format!("<model name=\"{}\">", m.name),
        kind: Kind::Model {
            canonical: m.canonical_link.clone(),
            table: exported_frames(m),
        },
        raw: m.raw_pose.clone(),
        default_to: root.to_string(),
        post,
        span: m.span.clone(),
    })
}

/// Checks that no two of links, joints, frames and nested models (or the world's models,
/// joints and frames) share a name. Before SDF 1.7 libsdformat renames a clashing joint
/// (`name_joint`) or frame (`name_frame`) instead; so does this reader.
fn unique_names(
    r: &Reader,
    scope: &str,
    fixed: &[(&str, &Span, &str)],
    joints: &mut [Joint],
    frames: &mut [crate::world::Frame],
) -> Result<(), SdfError> {
    let mut seen: HashMap<String, (&str, u32)> = HashMap::new();
    for (name, span, kind) in fixed {
        if let Some((other, line)) = seen.get(*name) {
            return Err(r.error_span(
                span,
                format!("<{kind} name=\"{name}\">"),
                ErrorKind::Duplicate,
                format!(
                    "the name \"{name}\" is used by a <{other}> (line {line}) and a <{kind}> in {scope}"
                ),
                "links, joints, frames and models of the same model (or world) need different names",
            ));
        }
        seen.insert(name.to_string(), (kind, span.line));
    }
    let old = r.version < Version::new(1, 7);
    for (kind, list) in [
        (
            "joint",
            joints
                .iter_mut()
                .map(|j| (&mut j.name, j.span.clone()))
                .collect::<Vec<_>>(),
        ),
        (
            "frame",
            frames
                .iter_mut()
                .map(|f| (&mut f.name, f.span.clone()))
                .collect(),
        ),
    ] {
        for (name, span) in list {
            if let Some((other, line)) = seen.get(name.as_str()) {
                if old {
                    let renamed = format!("{name}_{kind}");
                    tracing::warn!(
                        "{span}: the {kind} name \"{name}\" is also a {other}'s (line {line}); as libsdformat does for SDF before 1.7, the {kind} is renamed \"{renamed}\""
                    );
                    *name = renamed;
                } else {
                    return Err(r.error_span(
                        &span,
                        format!("<{kind} name=\"{name}\">"),
                        ErrorKind::Duplicate,
                        format!(
                            "the name \"{name}\" is used by a <{other}> (line {line}) and a <{kind}> in {scope}"
                        ),
                        "links, joints, frames and models of the same model (or world) need different names",
                    ));
                }
            }
            seen.insert(name.clone(), (kind, span.line));
        }
    }
    Ok(())
}

impl Reader<'_> {
    /// Resolves the scope of `m`, whose nested models are already resolved: checks names,
    /// the canonical link, frames, joints and axes, and writes every resolved pose (see the
    /// module documentation). `m.pose` becomes the raw pose with the placement frame applied.
    pub(super) fn resolve_model(&self, m: &mut Model) -> Result<(), SdfError> {
        let scope_label = format!("model \"{}\"", m.name);
        {
            let fixed_owned: Vec<(String, Span, &str)> = m
                .links
                .iter()
                .map(|l| (l.name.clone(), l.span.clone(), "link"))
                .chain(
                    m.models
                        .iter()
                        .map(|n| (n.name.clone(), n.span.clone(), "model")),
                )
                .collect();
            let fixed_ref: Vec<(&str, &Span, &str)> = fixed_owned
                .iter()
                .map(|(n, s, k)| (n.as_str(), s, *k))
                .collect();
            unique_names(self, &scope_label, &fixed_ref, &mut m.joints, &mut m.frames)?;
        }
        let what = format!("<model name=\"{}\">", m.name);

        // The canonical link.
        let written = m.canonical_link.clone();
        // SDF 1.7 brought the attribute; libsdformat honours it in older files too.
        if !written.is_empty() {
            let ok = m.links.iter().any(|l| l.name == written)
                || written.split_once("::").is_some_and(|(head, rest)| {
                    m.models.iter().any(|n| {
                        n.name == head
                            && exported_frames(n).get(rest).is_some_and(|e| e.body == rest)
                    })
                });
            if !ok {
                let links: Vec<&str> = m.links.iter().map(|l| l.name.as_str()).collect();
                return Err(self.error_span(
                    &m.span,
                    what,
                    ErrorKind::UnknownReference,
                    format!(
                        "canonical_link \"{written}\" is not a link of model \"{}\"",
                        m.name
                    ),
                    if links.is_empty() {
                        "name a link of the model, or of a nested model as `nested::link`"
                            .to_string()
                    } else {
                        format!(
                            "name one of its links ({}), or a nested model's as `nested::link`",
                            links.join(", ")
                        )
                    },
                ));
            }
        } else {
            m.canonical_link = match m.links.first() {
                Some(l) => l.name.clone(),
                None => m
                    .models
                    .iter()
                    .find(|n| !n.canonical_link.is_empty())
                    .map(|n| format!("{}::{}", n.name, n.canonical_link))
                    .unwrap_or_default(),
            };
        }
        // As libsdformat (every version): a model that is not static needs a link, or a
        // nested model (which needs one in turn), for its frame to be attached to.
        if m.links.is_empty() && m.models.is_empty() && !m.is_static {
            return Err(self.error_span(
                &m.span,
                what,
                ErrorKind::Missing,
                format!("model \"{}\" has no link", m.name),
                "add a <link> (a model that is not static needs one), or make the model <static>true</static>",
            ));
        }

        // The scope.
        let mut items = Vec::new();
        for l in &m.links {
            items.push(Item {
                name: l.name.clone(),
                what: format!("<link name=\"{}\">", l.name),
                kind: Kind::Link,
                raw: l.raw_pose.clone(),
                default_to: "__model__".into(),
                post: Pose::IDENTITY,
                span: l.span.clone(),
            });
        }
        for n in &m.models {
            items.push(model_item(self, n, "__model__")?);
        }
        for f in &m.frames {
            items.push(Item {
                name: f.name.clone(),
                what: format!("<frame name=\"{}\">", f.name),
                kind: Kind::Frame {
                    attached_to: f.attached_to.clone(),
                },
                raw: f.raw_pose.clone(),
                default_to: if f.attached_to.is_empty() {
                    "__model__".into()
                } else {
                    f.attached_to.clone()
                },
                post: Pose::IDENTITY,
                span: f.span.clone(),
            });
        }
        items.extend(joint_items(&m.joints));
        let mut s = Scope::new(
            self,
            "__model__",
            Some(m.name.clone()),
            m.canonical_link.clone(),
            items,
        );
        self.resolve_scope(&mut s, &mut m.joints, &mut m.frames)?;

        // Poses of the scope's members.
        for l in m.links.iter_mut() {
            let i = s.index[&l.name];
            l.pose = s.pose_of(i)?;
        }
        for n in m.models.iter_mut() {
            let i = s.index[&n.name];
            n.pose = s.pose_of(i)?;
        }
        // Link-level elements, each on its own so that every one with an error is reported.
        let mut errors = Vec::new();
        let mut keep = |pose: &mut Pose, resolved: Result<Pose, SdfError>| match resolved {
            Ok(p) => *pose = p,
            Err(e) => errors.push(e),
        };
        for l in m.links.iter_mut() {
            let x_ml = l.pose;
            let lw = format!("<link name=\"{}\">", l.name);
            let inertial = s.child_pose(&l.inertial.raw_pose, &l.name, x_ml, &lw);
            keep(&mut l.inertial.pose, inertial);
            for c in l.collisions.iter_mut() {
                let w = format!("<collision name=\"{}\">", c.name);
                keep(&mut c.pose, s.child_pose(&c.raw_pose, &l.name, x_ml, &w));
            }
            if let Some(auto) = &l.inertial.auto {
                let computed =
                    auto_inertial(&l.collisions, auto).and_then(|(mass, com, inertia)| {
                        match inertia_problem(inertia) {
                            Some(problem) => Err(problem),
                            None => Ok((mass, com, inertia)),
                        }
                    });
                let (mass, com, inertia) = computed.map_err(|why| {
                    self.error_span(
                        &l.span,
                        lw.clone(),
                        ErrorKind::Invalid,
                        format!(
                            "link \"{}\": the automatic inertia is invalid: {why}",
                            l.name
                        ),
                        "check the sizes and densities of its collisions, or give <mass> and \
                         <inertia> explicitly",
                    )
                })?;
                l.inertial.mass = mass;
                l.inertial.pose = Pose::new(com, crate::world::Quat::IDENTITY);
                l.inertial.inertia = inertia;
            }
            for v in l.visuals.iter_mut() {
                let w = format!("<visual name=\"{}\">", v.name);
                keep(&mut v.pose, s.child_pose(&v.raw_pose, &l.name, x_ml, &w));
            }
            for x in l.sensors.iter_mut() {
                let w = format!("<sensor name=\"{}\">", x.name);
                keep(&mut x.pose, s.child_pose(&x.raw_pose, &l.name, x_ml, &w));
            }
        }
        let mut errors = errors.into_iter();
        if let Some(first) = errors.next() {
            return Err(first.with_others(errors));
        }
        m.pose = m
            .raw_pose
            .pose
            .compose(placement_inverse(m).map_err(|known| {
                self.error_span(
                    &m.span,
                    format!("<model name=\"{}\">", m.name),
                    ErrorKind::UnknownReference,
                    format!(
                        "placement_frame \"{}\" is not a frame of model \"{}\"",
                        m.placement_frame, m.name
                    ),
                    format!("name one of its frames: {known}"),
                )
            })?);
        Ok(())
    }

    /// Resolves the world's scope: its models' poses (relative_to, placement frames), its
    /// frames and its joints.
    pub(super) fn resolve_world(&self, w: &mut World) -> Result<(), SdfError> {
        {
            let fixed_owned: Vec<(String, Span)> = w
                .models
                .iter()
                .map(|n| (n.name.clone(), n.span.clone()))
                .collect();
            let fixed: Vec<(&str, &Span, &str)> = fixed_owned
                .iter()
                .map(|(n, s)| (n.as_str(), s, "model"))
                .collect();
            unique_names(self, "the world", &fixed, &mut w.joints, &mut w.frames)?;
        }
        let mut items = Vec::new();
        for m in &w.models {
            items.push(model_item(self, m, "world")?);
        }
        for f in &w.frames {
            items.push(Item {
                name: f.name.clone(),
                what: format!("<frame name=\"{}\">", f.name),
                kind: Kind::Frame {
                    attached_to: f.attached_to.clone(),
                },
                raw: f.raw_pose.clone(),
                default_to: if f.attached_to.is_empty() {
                    "world".into()
                } else {
                    f.attached_to.clone()
                },
                post: Pose::IDENTITY,
                span: f.span.clone(),
            });
        }
        items.extend(joint_items(&w.joints));
        let mut s = Scope::new(self, "world", None, String::new(), items);
        self.resolve_scope(&mut s, &mut w.joints, &mut w.frames)?;
        for m in w.models.iter_mut() {
            let i = s.index[&m.name];
            m.pose = s.pose_of(i)?;
        }
        Ok(())
    }

    /// What the world and models share: frames (bodies and poses) and joints (links, poses,
    /// sensors and axes).
    fn resolve_scope(
        &self,
        s: &mut Scope,
        joints: &mut [Joint],
        frames: &mut [crate::world::Frame],
    ) -> Result<(), SdfError> {
        // Each frame and each joint is resolved on its own, so that every one with an error is
        // reported.
        let mut errors = Vec::new();
        for f in frames.iter_mut() {
            let i = s.index[&f.name];
            let resolved = match s.body_of(i) {
                Ok(body) => s.pose_of(i).map(|pose| (body, pose)),
                Err(e) => Err(e),
            };
            match resolved {
                Ok((body, pose)) => {
                    f.attached_to_body = body;
                    f.pose = pose;
                }
                Err(e) => errors.push(e),
            }
        }
        let mut joint = |j: &mut Joint| -> Result<(), SdfError> {
            j.parent_link = s.joint_link(j, "parent")?;
            j.child_link = s.joint_link(j, "child")?;
            let what = format!("<joint name=\"{}\">", j.name);
            if j.parent_link == j.child_link {
                return Err(self.error_span(
                    &j.span,
                    what,
                    ErrorKind::Invalid,
                    format!(
                        "joint \"{}\": the parent \"{}\" and the child \"{}\" are both link \"{}\"",
                        j.name, j.parent, j.child, j.child_link
                    ),
                    "the parent and the child must be attached to different links",
                ));
            }
            let i = s.index[&j.name];
            let x_mj = s.pose_of(i)?;
            let x_mc = s.frame_pose(&j.child_link.clone(), &j.span, &what, "<child>")?;
            j.pose = x_mc.inverse().compose(x_mj);
            for x in j.sensors.iter_mut() {
                let w = format!("<sensor name=\"{}\">", x.name);
                x.pose = s.child_pose(&x.raw_pose, &j.name, x_mj, &w)?;
            }
            for (a, which) in [(j.axis.as_mut(), "axis"), (j.axis2.as_mut(), "axis2")] {
                let Some(a) = a else { continue };
                a.xyz_in_joint = if a.expressed_in.is_empty() || a.expressed_in == j.name {
                    a.xyz
                } else {
                    // At the attribute when it is written (SDF 1.4 axes and
                    // use_parent_model_frame name __model__ without one).
                    let (span, element) = match &a.expressed_in_span {
                        Some(span) => (
                            span.clone(),
                            format!(
                                "<xyz expressed_in=\"{}\"> in <{which}> of {what}",
                                a.expressed_in
                            ),
                        ),
                        None => (j.span.clone(), what.clone()),
                    };
                    let x_me = s.frame_pose(
                        &a.expressed_in.clone(),
                        &span,
                        &element,
                        &format!("the {which}'s expressed_in"),
                    )?;
                    let v: Vec3 = x_me.orientation.rotate(a.xyz);
                    x_mj.orientation.inverse().rotate(v)
                };
            }
            if !j.gearbox_reference_body.is_empty() {
                j.gearbox_reference_link = s.joint_link(j, "gearbox_reference_body")?;
            }
            Ok(())
        };
        for j in joints.iter_mut() {
            if let Err(e) = joint(j) {
                errors.push(e);
            }
        }
        let mut errors = errors.into_iter();
        if let Some(first) = errors.next() {
            return Err(first.with_others(errors));
        }
        Ok(())
    }
}
