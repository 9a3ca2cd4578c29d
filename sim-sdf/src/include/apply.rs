//! What an `<include>` does to the model it brings in: its overrides (`<name>`, `<pose>`,
//! `<placement_frame>`, `<static>`, `<plugin>`s, `<namespace>`), read with the including
//! file's rules and applied to a copy of the model, and `merge="true"`, which poses the
//! model's parts in the parent's frame to be added to it.

use roxmltree::Node;

use super::Site;
use crate::error::{ErrorKind, SdfError};
use crate::frames::{PlacementError, place_model};
use crate::reader::{Reader, children};
use crate::version::Version;
use sim_world::{Model, PluginSpec, Pose, RawPose};

/// The overrides an `<include>` gives for the included model.
pub(super) struct Overrides {
    /// `<name>`.
    pub name: Option<String>,
    /// `<pose>`, read with the including file's rules (its `relative_to` names a frame of
    /// the including scope).
    pub pose: Option<RawPose>,
    /// `<placement_frame>`: the frame of the included model that `pose` places.
    pub placement_frame: Option<String>,
    /// `<static>`.
    pub is_static: Option<bool>,
    /// `<plugin>`s, appended to the model's.
    pub plugins: Vec<PluginSpec>,
    /// `<namespace>` (SDF 1.12), replacing the model's `@namespace`; `{name}` in it is the
    /// model's name after `name`.
    pub namespace: Option<String>,
}

/// Applies an include's overrides to a copy of the included model. Fails (with the message
/// of [`place_model`]) when the placement frame is not a frame of the model.
pub(super) fn apply_overrides(
    model: &mut Model,
    overrides: Overrides,
) -> Result<(), PlacementError> {
    if let Some(name) = overrides.name {
        model.name = name;
    }
    if overrides.pose.is_some() || overrides.placement_frame.is_some() {
        place_model(model, overrides.pose, overrides.placement_frame.as_deref())?;
    }
    if let Some(is_static) = overrides.is_static {
        model.is_static = is_static;
    }
    model.plugins.extend(overrides.plugins);
    if let Some(ns) = overrides.namespace {
        model.raw_namespace = Some(ns);
    }
    Ok(())
}

impl Reader<'_> {
    /// The overrides written in `<include>` (read with this file's rules).
    pub(super) fn overrides(&self, node: Node) -> Result<Overrides, SdfError> {
        let name = match self.child(node, "name") {
            Some(n) => Some(self.include_name(n)?),
            None => None,
        };
        let pose = match self.child(node, "pose") {
            Some(_) => Some(self.raw_pose(node)?),
            None => None,
        };
        let placement_frame = self.child_string(node, "placement_frame");
        if let (Some(frame), None) = (&placement_frame, &pose) {
            let at = self.child(node, "placement_frame").unwrap_or(node);
            return Err(self.error(
                at,
                ErrorKind::Missing,
                format!(
                    "<placement_frame>{frame}</placement_frame> needs a <pose> in the <include>: \
                     the pose places that frame"
                ),
                "add the <pose> the placement frame should have, or remove <placement_frame>",
            ));
        }
        let is_static = self.bool_of(self.child(node, "static"))?;
        let mut plugins = Vec::new();
        for p in children(node, "plugin") {
            plugins.push(self.plugin(p)?);
        }
        // As libsdformat: an empty <namespace/> leaves the model's own.
        let namespace = self
            .child(node, "namespace")
            .map(|n| self.text(n).trimmed().to_string())
            .filter(|ns| !ns.is_empty());
        Ok(Overrides {
            name,
            pose,
            placement_frame,
            is_static,
            plugins,
            namespace,
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
        } else if let Some(problem) = crate::reader::path_like(name) {
            Some(match problem {
                "is a directory reference" => "the name is a directory reference",
                "contains a path separator" => "the name contains a path separator",
                _ => "the name contains a control character",
            })
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

    /// Applies `overrides` to the included `model`; a bad placement frame is an error at
    /// the `<include>`.
    pub(super) fn apply_overrides_at(
        &self,
        include: Node,
        model: &mut Model,
        overrides: Overrides,
    ) -> Result<(), SdfError> {
        apply_overrides(model, overrides).map_err(|e| {
            let at = self.child(include, "placement_frame").unwrap_or(include);
            self.error(
                at,
                ErrorKind::UnknownReference,
                e.to_string(),
                "name a link, joint, frame or nested model of the included model",
            )
        })
    }

    /// A merged model's parts, posed in the parent's frame (as libsdformat merges): each
    /// link, nested model and frame keeps its resolved place, now written relative to the
    /// parent's frame; joints keep theirs relative to their child link, with axes written in
    /// the joint frame; and a frame `_merged__NAME__model__` stands for the merged model's
    /// own frame, attached to its canonical link. The parent's resolution then re-checks it.
    pub(super) fn merged(
        &self,
        node: Node,
        mut model: Model,
        site: &Site,
    ) -> Result<Model, SdfError> {
        let x = model.pose;
        let parent_frame = if site.in_world { "world" } else { "__model__" };
        let in_parent = |pose: Pose, span: &sim_world::Span| RawPose {
            pose,
            relative_to: parent_frame.to_string(),
            span: span.clone(),
        };
        for link in &mut model.links {
            link.pose = x.compose(link.pose);
            link.raw_pose = in_parent(link.pose, &link.raw_pose.span);
        }
        for nested in &mut model.models {
            nested.pose = x.compose(nested.pose);
            nested.raw_pose = in_parent(nested.pose, &nested.raw_pose.span);
            nested.placement_frame.clear();
        }
        for frame in &mut model.frames {
            frame.pose = x.compose(frame.pose);
            frame.raw_pose = in_parent(frame.pose, &frame.raw_pose.span);
            if frame.attached_to.is_empty() || frame.attached_to == "__model__" {
                frame.attached_to = model.canonical_link.clone();
            }
        }
        for joint in &mut model.joints {
            joint.raw_pose = RawPose {
                pose: joint.pose,
                relative_to: joint.child_link.clone(),
                span: joint.raw_pose.span.clone(),
            };
            for axis in [&mut joint.axis, &mut joint.axis2].into_iter().flatten() {
                axis.xyz = axis.xyz_in_joint;
                axis.expressed_in.clear();
            }
        }
        if !site.in_world {
            model.frames.push(sim_world::Frame {
                name: format!("_merged__{}__model__", model.name),
                attached_to: model.canonical_link.clone(),
                attached_to_body: String::new(),
                raw_pose: in_parent(x, &model.raw_pose.span),
                pose: x,
                span: self.span(node),
            });
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
