//! Listings of the world as the engine holds it: every model and link frame with its pose, and
//! every visual with its shape, for recorders and viewers (whatever plugins the world has).

use super::Physics;
use super::convert::{pose_from_rapier, vec_from_rapier};
use super::entities::EntityData;
use rapier3d::prelude::{Collider, TypedShape};
use sim_plugin_api::{Aabb, EntityId, EntityKind, NO_LABEL, Pose, Vec3, VisualBox};
use sim_world::Geometry;

/// The most triangles [`Physics::visual_triangles`] returns for one visual: a larger height
/// map is sampled on a coarser grid, a larger mesh is not listed.
const MAX_LISTED_TRIANGLES: usize = 200_000;

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
                    pose: self.pose_of(id)?,
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
    /// nested in it, as `(min, max)` corners (a plane's solid side is unbounded along the
    /// plane); `None` for a model without collisions.
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
            let aabb = super::view::collider_aabb(c);
            let (lo, hi) = (aabb.min, aabb.max);
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

    /// The id the next entity added to the world will get: every id from it on is of an entity
    /// created after this call.
    pub fn next_entity_id(&self) -> EntityId {
        self.entities.next_id()
    }

    /// A counter of the models added and removed since the world was built: when it changes,
    /// [`Physics::frames`] and [`Physics::visuals`] list other entities.
    pub fn revision(&self) -> u64 {
        self.revision
    }
    /// The collider of a visual (on its link's body, tagged with its id).
    fn visual_collider(&self, id: EntityId) -> Option<&Collider> {
        let EntityData::Visual { link, .. } = &self.entities.get(id)?.data else {
            return None;
        };
        let EntityData::Link { body, .. } = &self.entities.get(*link)?.data else {
            return None;
        };
        self.pw.bodies.get(*body)?.colliders().iter().find_map(|h| {
            self.pw
                .colliders
                .get(*h)
                .filter(|c| c.user_data as u64 == id.0)
        })
    }

    /// The world-frame bounding box of a visual now (`None` for a visual without a shape,
    /// such as `<empty>`). A plane's box is infinite along the plane.
    pub fn visual_aabb(&self, id: EntityId) -> Option<Aabb> {
        self.visual_collider(id).map(super::view::collider_aabb)
    }

    /// The box of visual `id` now: the smallest box aligned with the visual's frame that holds
    /// its shape as the engine built it, with its model, label and world pose; `None` for
    /// anything but a visual with a bounded shape (a plane, `<empty>`).
    pub fn visual_box(&self, id: EntityId) -> Option<VisualBox> {
        let EntityData::Visual {
            link, pose, label, ..
        } = &self.entities.get(id)?.data
        else {
            return None;
        };
        let c = self.visual_collider(id)?;
        if super::plane::half_space_of(c.shape()).is_some() {
            return None;
        }
        // Collider frame -> visual frame: the shape's offset in the visual.
        let offset = pose.inverse().compose(
            c.position_wrt_parent()
                .map_or(Pose::IDENTITY, pose_from_rapier),
        );
        let local = c.shape().compute_local_aabb();
        let (lo, hi) = (vec_from_rapier(local.mins), vec_from_rapier(local.maxs));
        let inf = f64::INFINITY;
        let (mut min, mut max) = (Vec3::new(inf, inf, inf), Vec3::new(-inf, -inf, -inf));
        for k in 0..8 {
            let pick = |bit: u32, a: f64, b: f64| if k & (1 << bit) == 0 { a } else { b };
            let p = offset.transform_point(Vec3::new(
                pick(0, lo.x, hi.x),
                pick(1, lo.y, hi.y),
                pick(2, lo.z, hi.z),
            ));
            min = Vec3::new(min.x.min(p.x), min.y.min(p.y), min.z.min(p.z));
            max = Vec3::new(max.x.max(p.x), max.y.max(p.y), max.z.max(p.z));
        }
        let finite = [min.x, min.y, min.z, max.x, max.y, max.z]
            .iter()
            .all(|v| v.is_finite());
        if !finite {
            return None;
        }
        Some(VisualBox {
            visual: id,
            model: super::query::unpack_model(c.user_data),
            label: label.unwrap_or(NO_LABEL),
            center: (min + max).scale(0.5),
            half_extents: (max - min).scale(0.5),
            pose: self.pose_of(*link)?.compose(*pose),
        })
    }

    /// The triangles of a height-map, polyline or mesh visual as the engine built them, as a
    /// triangle list (three vertices each) in the visual's own frame; `None` for the other
    /// shapes. A height map of more than 200,000 triangles is sampled on every k-th row and
    /// column (and its last) to stay within that; a larger mesh gives `None`.
    pub fn visual_triangles(&self, id: EntityId) -> Option<Vec<Vec3>> {
        let EntityData::Visual { pose, .. } = &self.entities.get(id)?.data else {
            return None;
        };
        let c = self.visual_collider(id)?;
        // Collider frame -> visual frame: the shape's offset in the visual.
        let offset = pose.inverse().compose(
            c.position_wrt_parent()
                .map_or(Pose::IDENTITY, pose_from_rapier),
        );
        let to_visual = |p| offset.transform_point(vec_from_rapier(p));
        let mut out = Vec::new();
        match c.shape().as_typed_shape() {
            TypedShape::TriMesh(m) => {
                if m.num_triangles() > MAX_LISTED_TRIANGLES {
                    return None;
                }
                for t in m.triangles() {
                    out.extend([to_visual(t.a), to_visual(t.b), to_visual(t.c)]);
                }
            }
            TypedShape::HeightField(h) => {
                let heights = h.heights();
                // Samples (parry's `nrows`/`ncols` count cells).
                let (rows, cols) = (heights.nrows(), heights.ncols());
                if rows < 2 || cols < 2 {
                    return None;
                }
                // Every k-th sample (and the last): that many cells along each side.
                let cells = |k: usize| (rows - 1).div_ceil(k) * (cols - 1).div_ceil(k);
                let mut k = 1;
                while 2 * cells(k) > MAX_LISTED_TRIANGLES {
                    k += 1;
                }
                let y = h.scale().y;
                let at = |i: usize, j: usize| {
                    to_visual(rapier3d::prelude::Vector::new(
                        h.x_at(j),
                        heights[(i, j)] * y,
                        h.z_at(i),
                    ))
                };
                let grid = |n: usize| {
                    let mut v: Vec<usize> = (0..n).step_by(k).collect();
                    if v.last() != Some(&(n - 1)) {
                        v.push(n - 1);
                    }
                    v
                };
                let (is, js) = (grid(rows), grid(cols));
                for w in is.windows(2) {
                    for u in js.windows(2) {
                        let (a, b) = (at(w[0], u[0]), at(w[0], u[1]));
                        let (c, d) = (at(w[1], u[0]), at(w[1], u[1]));
                        out.extend([a, c, b, b, c, d]);
                    }
                }
            }
            _ => return None,
        }
        Some(out)
    }
}
