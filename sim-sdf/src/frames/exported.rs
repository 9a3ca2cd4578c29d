//! The frames of a resolved model as seen from outside it, the queries on them, and the
//! placement of a model already read ([`place_model`]).

use std::collections::HashMap;

use sim_world::{Model, Pose, RawPose, World};

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
) -> Result<(), PlacementError> {
    if let Some(p) = placement_frame {
        model.placement_frame = p.trim().to_string();
    }
    if let Some(p) = pose {
        model.raw_pose = p;
    }
    let post = placement_inverse(model)?;
    model.pose = model.raw_pose.pose.compose(post);
    Ok(())
}

/// A placement frame that is not a frame of its model (what [`place_model`] fails with).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the placement frame \"{frame}\" is not a frame of model \"{model}\" (its frames: {known})"
)]
pub struct PlacementError {
    /// The placement frame.
    pub frame: String,
    /// The model's name.
    pub model: String,
    /// The frames the model has, quoted and sorted (at most 12, then how many more).
    pub known: String,
}

/// The inverse of the pose of `model`'s placement frame in its model frame (the identity
/// without one); the error lists the frames the model has.
pub(super) fn placement_inverse(model: &Model) -> Result<Pose, PlacementError> {
    if model.placement_frame.is_empty() || model.placement_frame == "__model__" {
        return Ok(Pose::IDENTITY);
    }
    let table = exported_frames(model);
    match table.get(&model.placement_frame) {
        Some(e) => Ok(e.pose.inverse()),
        None => Err(PlacementError {
            frame: model.placement_frame.clone(),
            model: model.name.clone(),
            known: known_list(table.keys().map(String::as_str)),
        }),
    }
}

/// `"a", "b", ...` sorted, for messages (at most 12 names).
pub(super) fn known_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
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
