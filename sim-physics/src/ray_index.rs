//! The trees ray packets are cast through, apart from the broad phase.
//!
//! The broad phase holds every collider, an SDF `<plane>` too: a plane's box (see `plane`)
//! reaches 10^15 m along the plane, so in the broad phase's tree the root and every node
//! above the plane span the whole world, and every packet walked them all and tested the
//! plane first. Ray packets walk trees of their own instead, one per kind of geometry
//! (collision or visual): one of the colliders of fixed bodies, built once and kept until the
//! world changes, one of the other colliders, rebuilt after a step moved them, and beside the
//! trees a list of the shapes without a finite box (planes and other half-spaces), which
//! every ray tests directly.

use super::raster::pass::Frames;
use super::{GROUP_COLLISION, GROUP_VISUAL};
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::partitioning::{Bvh, BvhBuildStrategy};
use rapier3d::prelude::*;
use std::sync::OnceLock;

/// A box wider than this along some axis (m) is taken for an unbounded shape.
const UNBOUNDED: Real = 1e15;

/// How much larger than its shape's box a leaf's box is, m.
const LEAF_MARGIN: Real = 1e-4;

/// The colliders of one kind (collision or visual) in a tree, and the unbounded ones.
pub(super) struct RayTree {
    /// Leaf `i` of the tree is `leaves[i]`, with its box.
    pub bvh: Bvh,
    pub leaves: Vec<(ColliderHandle, Aabb)>,
    /// Colliders without a finite box, tested by every ray.
    pub unbounded: Vec<ColliderHandle>,
    /// The union of the leaves' boxes (invalid when there are none).
    pub bounds: Aabb,
}

impl RayTree {
    /// The tree of the colliders of `target` kind (the enabled ones, for collisions) whose
    /// body is fixed (`fixed`) or not.
    fn build(colliders: &ColliderSet, bodies: &RigidBodySet, target: Group, fixed: bool) -> Self {
        let mut tree = RayTree {
            bvh: Bvh::default(),
            leaves: Vec::new(),
            unbounded: Vec::new(),
            bounds: Aabb::new_invalid(),
        };
        for (h, c) in colliders.iter() {
            // Visuals are disabled colliders (out of the physics); a collision collider
            // disabled (by rapier's quarantine of a non-finite body) is out of the rays too.
            if !(c.is_enabled() || target == GROUP_VISUAL)
                || !c.collision_groups().memberships.intersects(target)
            {
                continue;
            }
            let on_fixed = c
                .parent()
                .and_then(|b| bodies.get(b))
                .is_none_or(|b| b.is_fixed());
            if on_fixed != fixed {
                continue;
            }
            let aabb = c.compute_aabb();
            let finite = aabb.mins.is_finite() && aabb.maxs.is_finite();
            if !finite
                || (aabb.maxs - aabb.mins).max_element() > UNBOUNDED
                || super::plane::half_space_of(c.shape()).is_some()
            {
                tree.unbounded.push(h);
            } else {
                // A margin, so that rounding in the box tests never drops a grazing ray
                // the shape's own test would hit.
                let leaf = aabb.loosened(LEAF_MARGIN);
                tree.bounds.merge(&leaf);
                tree.leaves.push((h, leaf));
            }
        }
        tree.bvh = Bvh::from_iter(
            BvhBuildStrategy::Binned,
            tree.leaves.iter().enumerate().map(|(i, (_, a))| (i, *a)),
        );
        tree
    }

    /// Whether the tree holds no collider at all.
    fn is_empty(&self) -> bool {
        self.leaves.is_empty() && self.unbounded.is_empty()
    }
}

/// The ray trees of a world, built when first cast through and dropped when the colliders
/// they hold move or change.
#[derive(Default)]
pub(super) struct RayIndex {
    /// Per kind (collision, visual): the colliders of fixed bodies.
    fixed: [OnceLock<RayTree>; 2],
    /// Per kind: the colliders of other bodies.
    moving: [OnceLock<RayTree>; 2],
    /// Per kind: the models a cast has excluded, each with whether it (or a model nested in
    /// it) has a collider of that kind.
    excluded: [std::sync::Mutex<Vec<(sim_plugin_api::EntityId, bool)>>; 2],
    /// The rasteriser's depth passes of this world state.
    frames: Frames,
}

/// The index of a kind of geometry in [`RayIndex`]'s arrays.
fn kind(target: Group) -> usize {
    usize::from(target == GROUP_VISUAL)
}

impl RayIndex {
    /// The trees for `target` geometry (fixed, moving), built if they are not.
    pub fn trees<'a>(
        &'a self,
        colliders: &ColliderSet,
        bodies: &RigidBodySet,
        target: Group,
    ) -> [&'a RayTree; 2] {
        let k = kind(target);
        let target = if k == 1 {
            GROUP_VISUAL
        } else {
            GROUP_COLLISION
        };
        [
            self.fixed[k].get_or_init(|| RayTree::build(colliders, bodies, target, true)),
            self.moving[k].get_or_init(|| RayTree::build(colliders, bodies, target, false)),
        ]
    }

    /// Whether excluding `model` from a cast of `target` geometry can leave out a collider:
    /// `has(model)`, asked once per model and kind until the colliders change.
    pub fn excludes(
        &self,
        target: Group,
        model: sim_plugin_api::EntityId,
        has: impl FnOnce() -> bool,
    ) -> bool {
        let mut known = self.excluded[kind(target)]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(&(_, h)) = known.iter().find(|(m, _)| *m == model) {
            return h;
        }
        let h = has();
        known.push((model, h));
        h
    }

    /// Forgets every tree: colliders were added, removed or moved by other than a step.
    pub fn invalidate(&mut self) {
        *self = RayIndex::default();
    }

    /// The rasteriser's depth passes, kept as long as the trees of moving colliders.
    pub fn frames(&self) -> &Frames {
        &self.frames
    }

    /// Forgets the trees of moving colliders after a step (those holding none are kept),
    /// and the rasteriser's depth passes.
    pub fn stepped(&mut self) {
        self.frames.forget();
        for t in &mut self.moving {
            if t.get().is_none_or(|t| !t.is_empty()) {
                t.take();
            }
        }
    }
}
