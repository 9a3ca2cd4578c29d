//! Listings of the world as the engine holds it: every model and link frame with its pose, and
//! every visual with its shape, for recorders and viewers (whatever plugins the world has).

use super::Physics;
use super::entities::EntityData;
use crate::world::Geometry;
use sim_plugin_api::{EntityId, EntityKind, Pose, Vec3};

/// A model or link frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameEntry<'a> {
    /// The entity.
    pub id: EntityId,
    /// [`EntityKind::MODEL`] or [`EntityKind::LINK`].
    pub kind: EntityKind,
    /// Its scoped name (`model::link`, `outer::inner`).
    pub scoped_name: &'a str,
    /// Its pose in the world frame now.
    pub pose: Pose,
}

/// A `<visual>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VisualEntry<'a> {
    /// The visual entity.
    pub id: EntityId,
    /// Its scoped name (`model::link::visual`).
    pub scoped_name: &'a str,
    /// Its link.
    pub link: EntityId,
    /// The scoped name of its link.
    pub link_name: &'a str,
    /// The scoped name of the model it belongs to.
    pub model_name: &'a str,
    /// Its pose in the link frame.
    pub pose: Pose,
    /// `<material><diffuse>` RGBA.
    pub diffuse: [f32; 4],
    /// Its shape.
    pub geometry: &'a Geometry,
}

impl Physics {
    /// Every model and link in the world now, in creation order, with its world pose.
    pub fn frames(&self) -> impl Iterator<Item = FrameEntry<'_>> {
        self.entities
            .iter()
            .filter(|(_, e)| matches!(e.kind, EntityKind::MODEL | EntityKind::LINK))
            .filter_map(|(id, e)| {
                Some(FrameEntry {
                    id,
                    kind: e.kind,
                    scoped_name: &e.scoped_name,
                    pose: self.kinematics_of(id)?.pose,
                })
            })
    }

    /// Every visual in the world now, in creation order.
    pub fn visuals(&self) -> impl Iterator<Item = VisualEntry<'_>> {
        self.entities.iter().filter_map(|(id, e)| {
            let EntityData::Visual {
                link,
                pose,
                diffuse,
                geometry,
                ..
            } = &e.data
            else {
                return None;
            };
            Some(VisualEntry {
                id,
                scoped_name: &e.scoped_name,
                link: *link,
                link_name: self.scoped_name(*link)?,
                model_name: self.scoped_name(e.model)?,
                pose: *pose,
                diffuse: *diffuse,
                geometry,
            })
        })
    }

    /// Whether `id` is a `<static>` model.
    pub fn is_static_model(&self, id: EntityId) -> bool {
        self.entities.get(id).is_some_and(|e| {
            matches!(
                e.data,
                EntityData::Model {
                    is_static: true,
                    ..
                }
            )
        })
    }

    /// The world-frame axis-aligned box around the collisions of a model and the models
    /// nested in it, as `(min, max)` corners; `None` for a model without collisions.
    pub fn model_bounds(&self, id: EntityId) -> Option<(Vec3, Vec3)> {
        let mut out: Option<(Vec3, Vec3)> = None;
        for (_, e) in self.entities.iter() {
            let EntityData::Collision { collider, .. } = e.data else {
                continue;
            };
            if !self.entities.is_within(e.model, id) {
                continue;
            }
            let Some(c) = self.pw.colliders.get(collider) else {
                continue;
            };
            let aabb = c.compute_aabb();
            let (lo, hi) = (
                super::convert::vec_from_rapier(aabb.mins),
                super::convert::vec_from_rapier(aabb.maxs),
            );
            out = Some(match out {
                None => (lo, hi),
                Some((a, b)) => (
                    Vec3 {
                        x: a.x.min(lo.x),
                        y: a.y.min(lo.y),
                        z: a.z.min(lo.z),
                    },
                    Vec3 {
                        x: b.x.max(hi.x),
                        y: b.y.max(hi.y),
                        z: b.z.max(hi.z),
                    },
                ),
            });
        }
        out
    }

    /// A counter of the models added and removed since the world was built: when it changes,
    /// [`Physics::frames`] and [`Physics::visuals`] list other entities.
    pub fn revision(&self) -> u64 {
        self.revision
    }
}
