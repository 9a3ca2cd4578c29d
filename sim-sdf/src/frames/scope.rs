//! One scope being resolved (a model's or the world's): its frames, what each is posed
//! relative to and attached to, and the names that must be unique in it.

use std::collections::HashMap;

use super::exported::{Exported, exported_frames, known_list, placement_inverse};
use crate::error::{ErrorKind, SdfError};
use crate::reader::Reader;
use crate::version::Version;
use sim_world::{Frame, Joint, Model, Pose, RawPose, Span};

/// What a frame of a scope is.
#[derive(Clone, Debug)]
pub(super) enum Kind {
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
pub(super) struct Item {
    pub(super) name: String,
    /// The element, for messages (`<link name="base">`).
    pub(super) what: String,
    pub(super) kind: Kind,
    pub(super) raw: RawPose,
    /// What `relative_to` means when empty.
    pub(super) default_to: String,
    /// Multiplied after the raw pose (a model's placement frame, inverted).
    pub(super) post: Pose,
    /// Where the element is.
    pub(super) span: Span,
}

/// Resolution state of an item's pose or body.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum State {
    Todo,
    Busy,
    Done,
}

/// One scope being resolved: a model's, or the world's.
pub(super) struct Scope<'r, 's> {
    pub(super) r: &'r Reader<'s>,
    /// `__model__` or `world`.
    pub(super) root: &'static str,
    /// The model's name (for messages, and as an alias of `__model__` when no entity of
    /// the model has that name); None for the world.
    pub(super) model: Option<String>,
    /// The model's canonical link (empty for the world).
    pub(super) canonical: String,
    pub(super) items: Vec<Item>,
    pub(super) index: HashMap<String, usize>,
    pub(super) poses: Vec<Option<Pose>>,
    pub(super) pose_state: Vec<State>,
    pub(super) bodies: Vec<Option<String>>,
    pub(super) body_state: Vec<State>,
}

impl<'r, 's> Scope<'r, 's> {
    pub(super) fn new(
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
    pub(super) fn scope_name(&self) -> String {
        match &self.model {
            Some(m) => format!("model \"{m}\""),
            None => "the world".to_string(),
        }
    }

    /// The names a reference may use here, for hints.
    pub(super) fn known(&self) -> String {
        let mut names: Vec<&str> = vec![self.root];
        names.extend(self.items.iter().map(|i| i.name.as_str()));
        known_list(names.into_iter())
    }

    /// Whether `name` means the scope's own frame.
    pub(super) fn is_root(&self, name: &str) -> bool {
        name == self.root || (self.model.as_deref() == Some(name) && !self.index.contains_key(name))
    }

    /// Splits `a::rest` where `a` is a model of the scope.
    pub(super) fn scoped<'n>(&self, name: &'n str) -> Option<(usize, &'n str)> {
        let (head, rest) = name.split_once("::")?;
        let &i = self.index.get(head)?;
        matches!(self.items[i].kind, Kind::Model { .. }).then_some((i, rest))
    }

    /// The pose of the frame `name` in the scope's frame; `from` is the item (or the
    /// element described by `what` at `span`) that refers to it, for errors.
    pub(super) fn frame_pose(
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
    pub(super) fn unknown(&self, name: &str, span: &Span, what: &str, attr: &str) -> SdfError {
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
    pub(super) fn pose_of(&mut self, i: usize) -> Result<Pose, SdfError> {
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
    pub(super) fn body(
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
    pub(super) fn body_of(&mut self, i: usize) -> Result<String, SdfError> {
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
    pub(super) fn joint_link(&mut self, joint: &Joint, which: &str) -> Result<String, SdfError> {
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
    pub(super) fn child_pose(
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
pub(super) fn joint_items(joints: &[Joint]) -> impl Iterator<Item = Item> + '_ {
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

/// The inverse of the pose of `m`'s placement frame in its model frame; an error at the model
/// when the placement frame is not one of its frames.
pub(super) fn placement_post(r: &Reader, m: &Model) -> Result<Pose, SdfError> {
    placement_inverse(m).map_err(|e| {
        r.error_span(
            &m.span,
            format!("<model name=\"{}\">", m.name),
            ErrorKind::UnknownReference,
            format!(
                "placement_frame \"{}\" is not a frame of model \"{}\"",
                e.frame, e.model
            ),
            format!("name one of its frames: {}", e.known),
        )
    })
}

/// Items for the `<frame>`s of a model (or the world), whose scope's frame is `root`.
pub(super) fn frame_items<'a>(
    frames: &'a [Frame],
    root: &'a str,
) -> impl Iterator<Item = Item> + 'a {
    frames.iter().map(move |f| Item {
        name: f.name.clone(),
        what: format!("<frame name=\"{}\">", f.name),
        kind: Kind::Frame {
            attached_to: f.attached_to.clone(),
        },
        raw: f.raw_pose.clone(),
        default_to: if f.attached_to.is_empty() {
            root.into()
        } else {
            f.attached_to.clone()
        },
        post: Pose::IDENTITY,
        span: f.span.clone(),
    })
}

/// An item for a model inside a scope (nested, or a world's); `root` is the scope's frame.
pub(super) fn model_item(r: &Reader, m: &Model, root: &str) -> Result<Item, SdfError> {
    let post = placement_post(r, m)?;
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
pub(super) fn unique_names(
    r: &Reader,
    scope: &str,
    fixed: &[(&str, &Span, &str)],
    joints: &mut [Joint],
    frames: &mut [Frame],
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
