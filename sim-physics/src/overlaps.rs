//! The bound on overlapping collider pairs ([`Limits::max_overlapping_pairs`]).
//!
//! The first time rapier's broad phase sees a collider, it lists every collider whose box
//! overlaps its own, and only then filters the list (colliders of one body, two fixed
//! bodies): so the collision colliders of a world that all overlap one another make
//! a list by the square of their number, whatever their bodies (20,000 links with a sphere at
//! one point: 200 million pairs, gigabytes). The per-file limits bound the colliders, not how
//! they overlap; this counts the pairs the broad phase would list, once, when a world is
//! built and when a model is created, and refuses a world past the limit before its first
//! step. A step costs what it did.

use rapier3d::parry::partitioning::{Bvh, BvhBuildStrategy};
use rapier3d::prelude::*;
use sim_world::input::Limits;

use super::Physics;
use super::build::BuildError;

/// The smallest and the largest skin rapier's broad phase adds to a collider's box when
/// it is put in its tree, in metres (the world's length unit is 1 m; see
/// `BroadPhaseBvh::adaptive_change_detection_margin`, which [`Physics::build`] sets): an
/// eighth of the box's smallest extent, within these.
const SKIN: (f32, f32) = (0.04, 0.25);

/// The box of `collider` as the broad phase's tree holds it: its broad-phase box, grown by
/// the adaptive skin. None for a box that is not finite (the broad phase leaves it out).
fn tree_box(
    collider: &Collider,
    params: &IntegrationParameters,
    bodies: &RigidBodySet,
) -> Option<Aabb> {
    let aabb = collider.compute_broad_phase_aabb(params, bodies);
    if !(aabb.mins.is_finite() && aabb.maxs.is_finite()) {
        return None;
    }
    let skin = (aabb.extents().min_element() * 0.125).clamp(SKIN.0, SKIN.1);
    Some(aabb.loosened(skin))
}

/// The number of pairs of `boxes` that overlap, counted up to `max + 1`: a tree of the
/// boxes is built (n log n) and each box looks up those it overlaps in it, so the work
/// grows with the boxes and the pairs counted, and stops once the count passes `max`.
pub(crate) fn overlapping_pairs(boxes: &[Aabb], max: usize) -> usize {
    if boxes.len() < 2 {
        return 0;
    }
    let tree = Bvh::from_leaves(BvhBuildStrategy::Binned, boxes);
    let mut pairs = 0usize;
    for (i, b) in boxes.iter().enumerate() {
        for j in tree.intersect_aabb(b) {
            if j as usize > i {
                pairs += 1;
                if pairs > max {
                    return pairs;
                }
            }
        }
    }
    pairs
}

impl Physics {
    /// Refuses the world as it now stands (built, or with a model just created) when its
    /// colliders' boxes overlap in more than [`Limits::max_overlapping_pairs`] pairs, with
    /// an error at `span` naming the limit and the flag that raises it; `what` says which
    /// colliders were counted ("this world", "the world with this model").
    pub(super) fn check_overlapping_pairs(
        &self,
        limits: &Limits,
        span: &sim_world::Span,
        what: &str,
    ) -> Result<(), BuildError> {
        let max = limits.max_overlapping_pairs;
        let params = &self.pw.integration_parameters;
        let boxes: Vec<Aabb> = self
            .pw
            .colliders
            .iter()
            // The enabled ones: visuals (disabled) are in no broad phase.
            .filter(|(_, c)| c.is_enabled())
            .filter_map(|(_, c)| tree_box(c, params, &self.pw.bodies))
            .collect();
        let pairs = overlapping_pairs(&boxes, max);
        if pairs <= max {
            return Ok(());
        }
        Err(BuildError {
            span: span.clone(),
            message: format!(
                "the {} collisions and visuals of {what} overlap one another in more than \
                 {max} pairs (the limit on overlapping collider pairs; the physics engine's \
                 broad phase would list each of them); spread the shapes out or merge them \
                 into fewer, or raise the limit (--max-overlapping-pairs N, \
                 LoadOptions::limits.max_overlapping_pairs)",
                boxes.len()
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box_at(x: f32) -> Aabb {
        Aabb::new(Vector::new(x, 0.0, 0.0), Vector::new(x + 1.0, 1.0, 1.0))
    }

    #[test]
    fn pairs_are_counted_and_the_count_stops_past_the_limit() {
        // Boxes 2 m apart touch nothing; boxes at one point all overlap.
        let apart: Vec<Aabb> = (0..1000).map(|k| unit_box_at(2.0 * k as f32)).collect();
        assert_eq!(overlapping_pairs(&apart, 10), 0);
        let chain: Vec<Aabb> = (0..1000).map(|k| unit_box_at(0.75 * k as f32)).collect();
        assert_eq!(overlapping_pairs(&chain, usize::MAX), 999);
        let heap = vec![unit_box_at(0.0); 100];
        assert_eq!(overlapping_pairs(&heap, usize::MAX), 100 * 99 / 2);
        // 20,000 boxes at one point would be 2·10⁸ pairs: the count ends just past the limit.
        let start = std::time::Instant::now();
        let heap = vec![unit_box_at(0.0); 20_000];
        assert_eq!(overlapping_pairs(&heap, 1_000_000), 1_000_001);
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
        assert_eq!(overlapping_pairs(&[], 0), 0);
        assert_eq!(overlapping_pairs(&heap[..1], 0), 0);
    }
}
