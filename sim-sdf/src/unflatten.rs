//! Flattened nested models of SDF < 1.8 files, rebuilt as libsdformat's conversion to SDF 1.8
//! rebuilds them.
//!
//! Before SDF 1.8, tools wrote a nested model into its parent "flattened": its links, joints,
//! frames and models became the parent's, named `inner::name`, with a frame `inner::__model__`
//! attached to the nested model's canonical link and posed where the nested model was. Since
//! 1.8 names may not contain `::`, and libsdformat rebuilds such a model when it reads an older
//! file: the elements named `inner::...` move into a new `<model name="inner">` appended to the
//! parent, with the prefix taken off their names and off the frames they refer to
//! (`relative_to`, `attached_to`, a joint's `<parent>` and `<child>`, an axis's
//! `expressed_in`); the `inner::__model__` frame becomes the model's `canonical_link` and
//! `<pose>`. Prefixes nested deeper (`a::b::link`) give models nested deeper.
//!
//! As libsdformat, this applies to the models of a `<world>` of an SDF < 1.8 file (not to a
//! file whose root is a `<model>`), and the children of a model are looked at in document
//! order up to its first nested `<model>` whose name has no `::`: a prefix first seen after it
//! is left as written, and that nested model is rebuilt in turn (as each rebuilt model is).

use roxmltree::{Node, NodeId};

use super::error::{ErrorKind, SdfError};
use super::reader::{Reader, is_sdf_element, tag};
use sim_world::{Frame, Joint, Link, Model, Span};

/// Which children of one model libsdformat rebuilds into nested models.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// The models to build, in the order libsdformat appends them.
    groups: Vec<Group>,
    /// The nested `<model>` elements whose own children are looked at in turn.
    recurse: Vec<NodeId>,
}

/// One model to rebuild: the prefix (its name) and the models to rebuild inside it.
#[derive(Debug)]
struct Group {
    name: String,
    groups: Vec<Group>,
}

/// One child element that can be flattened: a link, joint, frame or model with a name.
struct Entry {
    id: NodeId,
    is_model: bool,
    name: String,
}

impl Plan {
    /// The plan for the children of the model `node`.
    pub(super) fn of(node: Node) -> Plan {
        let entries: Vec<Entry> = node
            .children()
            .filter(|c| is_sdf_element(*c))
            .filter(|c| matches!(tag(*c), "link" | "joint" | "frame" | "model"))
            .filter_map(|c| {
                Some(Entry {
                    id: c.id(),
                    is_model: tag(c) == "model",
                    name: c.attribute("name")?.trim().to_string(),
                })
            })
            .collect();
        let mut plan = Plan::default();
        plan.groups = level(&entries, &mut plan.recurse);
        plan
    }

    /// Whether the nested `<model>` element `id` is rebuilt in turn.
    pub(super) fn recurses_into(&self, id: NodeId) -> bool {
        self.recurse.contains(&id)
    }

    /// Whether the element named `name` moves into a rebuilt model where its name is plain:
    /// `a::__model__` is then the frame that places model `a`.
    pub(super) fn rebuilds(&self, name: &str) -> bool {
        let mut groups = &self.groups;
        let mut rest = name;
        let mut moved = false;
        while let Some((head, tail)) = rest.split_once("::") {
            match groups.iter().find(|g| g.name == head) {
                Some(g) => {
                    groups = &g.groups;
                    rest = tail;
                    moved = true;
                }
                None => return false,
            }
        }
        moved
    }

    /// Whether nothing is rebuilt.
    pub(super) fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }
}

/// The models to rebuild among `entries` (one model's children, or a rebuilt model's
/// members with their prefix taken off), and the plain nested models looked at in turn.
fn level(entries: &[Entry], recurse: &mut Vec<NodeId>) -> Vec<Group> {
    let first_plain = entries
        .iter()
        .position(|e| e.is_model && !e.name.contains("::"));
    let mut groups: Vec<Group> = Vec::new();
    for e in &entries[..first_plain.unwrap_or(entries.len())] {
        let Some((head, _)) = e.name.split_once("::") else {
            continue;
        };
        if groups.iter().any(|g| g.name == head) {
            continue;
        }
        let prefix = format!("{head}::");
        let members: Vec<Entry> = entries
            .iter()
            .filter_map(|m| {
                Some(Entry {
                    id: m.id,
                    is_model: m.is_model,
                    name: m.name.strip_prefix(&prefix)?.to_string(),
                })
            })
            .collect();
        let inner = level(&members, recurse);
        groups.push(Group {
            name: head.to_string(),
            groups: inner,
        });
    }
    if let Some(p) = first_plain {
        recurse.push(entries[p].id);
    }
    groups
}

/// The links, joints, frames and nested models of one model, as read.
pub(super) struct Parts<'a> {
    pub links: &'a mut Vec<Link>,
    pub joints: &'a mut Vec<Joint>,
    pub frames: &'a mut Vec<Frame>,
    pub models: &'a mut Vec<Model>,
}

/// `name` without `prefix` when it starts with it.
fn strip(name: &mut String, prefix: &str) {
    if let Some(rest) = name.strip_prefix(prefix) {
        *name = rest.to_string();
    }
}

/// Takes the elements named `prefix...` out of `from`, their names without the prefix.
fn take<T>(from: &mut Vec<T>, prefix: &str, name: impl Fn(&mut T) -> &mut String) -> Vec<T> {
    let mut taken = Vec::new();
    let mut kept = Vec::new();
    for mut item in from.drain(..) {
        let n = name(&mut item);
        if n.starts_with(prefix) {
            strip(n, prefix);
            taken.push(item);
        } else {
            kept.push(item);
        }
    }
    *from = kept;
    taken
}

impl Reader<'_> {
    /// Rebuilds the nested models `plan` finds among `parts` (read with their flattened
    /// names), each resolved as a model read from a `<model>` element, appended to
    /// `parts.models`.
    pub(super) fn unflatten(&self, plan: &Plan, parts: Parts, span: &Span) -> Result<(), SdfError> {
        self.rebuild(&plan.groups, parts, span)
    }

    fn rebuild(&self, groups: &[Group], parts: Parts, span: &Span) -> Result<(), SdfError> {
        for g in groups {
            let prefix = format!("{}::", g.name);
            let mut links = take(parts.links, &prefix, |l| &mut l.name);
            let mut joints = take(parts.joints, &prefix, |j| &mut j.name);
            let mut frames = take(parts.frames, &prefix, |f| &mut f.name);
            let mut models = take(parts.models, &prefix, |m| &mut m.name);
            for l in &mut links {
                strip(&mut l.raw_pose.relative_to, &prefix);
                strip(&mut l.inertial.raw_pose.relative_to, &prefix);
                for c in &mut l.collisions {
                    strip(&mut c.raw_pose.relative_to, &prefix);
                }
                for v in &mut l.visuals {
                    strip(&mut v.raw_pose.relative_to, &prefix);
                }
                for s in &mut l.sensors {
                    strip(&mut s.raw_pose.relative_to, &prefix);
                }
            }
            for j in &mut joints {
                strip(&mut j.raw_pose.relative_to, &prefix);
                strip(&mut j.parent, &prefix);
                strip(&mut j.child, &prefix);
                for a in [j.axis.as_mut(), j.axis2.as_mut()].into_iter().flatten() {
                    strip(&mut a.expressed_in, &prefix);
                }
                for s in &mut j.sensors {
                    strip(&mut s.raw_pose.relative_to, &prefix);
                }
            }
            for f in &mut frames {
                strip(&mut f.raw_pose.relative_to, &prefix);
                strip(&mut f.attached_to, &prefix);
            }
            for m in &mut models {
                strip(&mut m.raw_pose.relative_to, &prefix);
            }
            // The frame that places the model.
            let placing = frames
                .iter()
                .position(|f| f.name == "__model__")
                .map(|i| frames.remove(i));
            let model_span = placing
                .as_ref()
                .map(|f| f.span.clone())
                .or_else(|| links.first().map(|l| l.span.clone()))
                .or_else(|| frames.first().map(|f| f.span.clone()))
                .or_else(|| joints.first().map(|j| j.span.clone()))
                .or_else(|| models.first().map(|m| m.span.clone()))
                .unwrap_or_else(|| span.clone());
            let (raw_pose, canonical_link) = match placing {
                Some(f) if f.attached_to.is_empty() => {
                    return Err(self.error_span(
                        &f.span,
                        format!("<frame name=\"{}::__model__\">", g.name),
                        ErrorKind::Missing,
                        format!(
                            "frame \"{}::__model__\" places the flattened nested model \"{}\" \
                             but is attached to nothing",
                            g.name, g.name
                        ),
                        format!(
                            "attach it to the nested model's canonical link, e.g. \
                             attached_to=\"{}::link\"",
                            g.name
                        ),
                    ));
                }
                Some(f) => (f.raw_pose, f.attached_to),
                None => (
                    sim_world::RawPose {
                        span: model_span.clone(),
                        ..Default::default()
                    },
                    String::new(),
                ),
            };
            self.rebuild(
                &g.groups,
                Parts {
                    links: &mut links,
                    joints: &mut joints,
                    frames: &mut frames,
                    models: &mut models,
                },
                &model_span,
            )?;
            let mut model = Model {
                name: g.name.clone(),
                pose: raw_pose.pose,
                raw_pose,
                canonical_link,
                placement_frame: String::new(),
                is_static: false,
                self_collide: false,
                links,
                joints,
                models,
                frames,
                plugins: Vec::new(),
                raw_namespace: None,
                label: None,
                span: model_span,
            };
            // A group is a nested model.
            self.resolve_model(&mut model, false)?;
            parts.models.push(model);
        }
        Ok(())
    }
}
