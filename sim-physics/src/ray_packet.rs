//! Ray packets: consecutive rays of a batch cast together through the ray trees.
//!
//! Sensors cast batches of rays from one origin whose neighbours point almost the same way
//! (a lidar row, a camera image row). For such a packet the colliders any of its rays can hit
//! are gathered once, band of distance from the apex by band, by walks of the ray trees (see
//! `ray_index`) that keep the nodes whose bounding sphere meets the cone around the packet's
//! directions, each band's walk starting from the nodes the previous one left beyond its end
//! rather than from the root, and sorted by their distance from the apex; the unbounded
//! shapes (half-spaces) are beside them. Each ray then
//! tests the unbounded shapes and the candidates, nearest first, and stops at the first
//! candidate farther than its best hit or than where it leaves the box of everything in the
//! trees: boxes that hold their shapes, the same shape ray casts and the same filter as a
//! search of the whole tree per ray, so the same nearest hit, with the tree walked, the
//! filter (and its exclusion predicate) run and each candidate's inverse pose computed once
//! per packet rather than once per ray. Other packets (origins that differ, directions spread
//! wider than 60 degrees, few rays) are cast ray by ray through the same trees.

use super::ray_index::RayTree;
use super::ray_shape::PreparedShape;
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::partitioning::{BvhNode, BvhNodeIndex, TraversalAction};
use rapier3d::prelude::*;

/// Rays cast together as one [`Packet`] (consecutive rays of a batch).
pub(super) const PACKET: usize = 64;

/// Packets of fewer rays than this are cast ray by ray.
const MIN_PACKET: usize = 8;

/// The first distance band of a packet's candidates, m (see [`Packet::cast`]).
const FIRST_BAND: Real = 5.0;

/// How much farther each band reaches than the previous one.
const BAND_GROWTH: Real = 3.0;

/// How much larger than the union of the trees' boxes the box is beyond which a ray looks
/// for no bounded shape, m.
const REACH_MARGIN: Real = 1e-3;

/// Consecutive rays of a batch cast together (see the module documentation).
#[derive(Default)]
pub(super) struct Packet<'c> {
    pub rays: Vec<Ray>,
    /// The nearest hit of each ray.
    pub found: Vec<Option<Hit>>,
    /// Per ray while casting: the distance within which a nearer hit is still sought
    /// (negative once the ray is done), and the nearest hit so far.
    best: Vec<(Real, Option<Hit>)>,
    /// Per ray: the reciprocals of its direction's components, and how far along it a
    /// bounded shape can be hit at all (where it leaves the trees' box; negative: nowhere).
    inv: Vec<(Vector, Real)>,
    candidates: Vec<Candidate<'c>>,
    unbounded: Vec<(ColliderHandle, PreparedShape<'c>)>,
    /// Per ray: how far its start is from the packet's apex.
    offsets: Vec<Real>,
    /// Per tree: the subtrees the last band's walk left for later bands (in the cone, but
    /// not nearer than the band's end), and the ones the current walk leaves.
    deferred: [Vec<BvhNodeIndex>; 2],
    later: Vec<BvhNodeIndex>,
}

/// A ray's nearest hit: collider, distance and, when the search found it, the normal.
pub(super) type Hit = (ColliderHandle, Real, Option<Vector>);

/// A collider some ray of a packet may hit.
struct Candidate<'c> {
    /// No ray of the packet can hit it nearer than this.
    nearest: Real,
    /// Its box in the ray tree.
    aabb: Aabb,
    shape: PreparedShape<'c>,
    handle: ColliderHandle,
}

/// The cone from a common origin that holds every direction of a packet.
struct Cone {
    origin: Vector,
    /// Whether every ray starts at `origin`.
    shared: bool,
    axis: Vector,
    cos: Real,
    sin: Real,
}

impl Cone {
    /// The cone of `rays` (unit directions), if they start on rays from one apex (a shared
    /// origin, or a camera's rays from its near plane) and their directions spread less than
    /// 60 degrees from their mean. `offsets` gets each ray's distance from the apex.
    fn of(rays: &[Ray], offsets: &mut Vec<Real>) -> Option<Cone> {
        let (origin, shared) = apex(rays)?;
        offsets.clear();
        if shared {
            offsets.resize(rays.len(), 0.0);
        } else {
            for r in rays {
                let v = r.origin - origin;
                let s = v.dot(r.dir);
                if s < -1e-5 || (v - r.dir * s).length() > 1e-5 * (1.0 + s.abs()) {
                    return None;
                }
                offsets.push(s.max(0.0));
            }
        }
        let sum = rays.iter().fold(Vector::ZERO, |a, r| a + r.dir);
        let len = sum.length();
        if len.is_nan() || len <= 0.0 {
            return None;
        }
        let axis = sum / len;
        let cos = rays.iter().fold(1.0, |c: Real, r| c.min(r.dir.dot(axis)));
        // Widened a little for rounding: a wider cone only keeps more candidates.
        let cos = cos - 1e-3;
        if cos.is_nan() || cos <= 0.5 {
            return None;
        }
        Some(Cone {
            origin,
            shared,
            axis,
            cos,
            sin: (1.0 - cos * cos).sqrt(),
        })
    }

    /// Whether some ray in the cone may meet `aabb` (through its bounding sphere).
    fn may_hit(&self, aabb: &Aabb) -> bool {
        let (c, r) = (aabb.center(), aabb.half_extents().length());
        if !(c.is_finite() && r.is_finite()) {
            return true;
        }
        let v = c - self.origin;
        let d2 = v.length_squared();
        if d2 <= r * r {
            return true;
        }
        // The sphere is seen under the half-angle b (sin b = r / d); a ray at most `acos(cos)`
        // from the axis can reach it only if the sphere's centre is at most that plus b from
        // the axis.
        let d = d2.sqrt();
        let sin_b = r / d;
        let cos_b = (1.0 - sin_b * sin_b).max(0.0).sqrt();
        v.dot(self.axis) / d >= self.cos * cos_b - self.sin * sin_b - 1e-4
    }
}

/// The point the rays start from or behind: their shared origin, or where the lines of the
/// first and the last ray come nearest (rays from a near plane), and whether it is shared;
/// none for parallel rays.
fn apex(rays: &[Ray]) -> Option<(Vector, bool)> {
    let (a, b) = (rays.first()?, rays.last()?);
    if rays.iter().all(|r| r.origin == a.origin) {
        return Some((a.origin, true));
    }
    // The points a.origin + a.dir t and b.origin + b.dir u nearest each other.
    let w = a.origin - b.origin;
    let (ab, aw, bw) = (a.dir.dot(b.dir), a.dir.dot(w), b.dir.dot(w));
    let den = 1.0 - ab * ab;
    if den.is_nan() || den < 1e-6 {
        return None;
    }
    let t = (ab * bw - aw) / den;
    Some((a.origin + a.dir * t, false))
}

/// Whether `ray` (with `inv` the reciprocals of its direction's components) may cross `aabb`
/// nearer than `best`: the slab test, with a little slack so that rounding never drops a
/// box the ray touches. Directions with a zero component (infinite reciprocals, where the
/// slab products can be undefined) take parry's own test.
#[inline]
fn may_cross(aabb: &Aabb, ray: &Ray, inv: Vector, best: Real) -> bool {
    if !inv.is_finite() {
        return aabb.cast_local_ray(ray, best, true).is_some();
    }
    let t1 = (aabb.mins - ray.origin) * inv;
    let t2 = (aabb.maxs - ray.origin) * inv;
    let near = t1.min(t2).max_element().max(0.0);
    let far = t1.max(t2).min_element();
    far + 1e-3 >= near && near <= best
}

/// How far along `ray` (with `inv` the reciprocals of its direction's components) a shape
/// inside `bounds` can be hit: a little beyond where the ray leaves the box, negative where
/// it never meets it (or there is no box: nothing bounded), unlimited for directions with a
/// zero component.
#[inline]
fn reach(bounds: Option<&Aabb>, ray: &Ray, inv: Vector) -> Real {
    let Some(bounds) = bounds else {
        return -1.0;
    };
    if !inv.is_finite() {
        return Real::INFINITY;
    }
    let t1 = (bounds.mins - ray.origin) * inv;
    let t2 = (bounds.maxs - ray.origin) * inv;
    let near = t1.min(t2).max_element().max(0.0);
    let far = t1.max(t2).min_element();
    if far + REACH_MARGIN >= near {
        far * (1.0 + 1e-4) + REACH_MARGIN
    } else if far.is_nan() || near.is_nan() {
        Real::INFINITY // undefined (a ray starting nowhere): no limit
    } else {
        -1.0 // it misses the box
    }
}

/// The square of the distance from `p` to the box (0 inside).
#[inline]
pub(super) fn gap_to_aabb(p: Vector, aabb: &Aabb) -> Real {
    (aabb.mins - p)
        .max(p - aabb.maxs)
        .max(Vector::ZERO)
        .length_squared()
}

/// The box of every bounded collider of `trees`, loosened by [`REACH_MARGIN`]; none when
/// they hold none.
fn bounds(trees: [&RayTree; 2]) -> Option<Aabb> {
    let b = trees[0].bounds.merged(&trees[1].bounds);
    b.mins.cmple(b.maxs).all().then(|| b.loosened(REACH_MARGIN))
}

impl<'c> Packet<'c> {
    /// Fills `found` with the nearest hit of each ray within `max`, solid shapes; the
    /// normals that come at no extra cost (half-spaces') only when `normals`.
    pub fn cast(&mut self, qp: &QueryPipeline<'c>, trees: [&RayTree; 2], max: Real, normals: bool) {
        self.found.clear();
        let cone = (self.rays.len() >= MIN_PACKET)
            .then(|| Cone::of(&self.rays, &mut self.offsets))
            .flatten();
        let Some(cone) = cone else {
            self.found.extend(
                self.rays
                    .iter()
                    .map(|r| cast_one(qp, trees, r, max, normals)),
            );
            return;
        };
        let shared = cone.shared.then_some(cone.origin);
        let bounds = bounds(trees);
        // The colliders are gathered in bands of distance from the origin, nearest band
        // first: a ray whose best hit (or whose exit from the trees' box) is within the
        // bands gathered so far is done, since every other candidate is farther. In a dense
        // scene most rays end in the first bands, and the far part of the tree is never
        // walked.
        let n = self.rays.len();
        self.best.clear();
        self.best.resize(n, (max, None));
        self.inv.clear();
        self.inv.extend(self.rays.iter().map(|r| {
            let inv = r.dir.recip();
            (inv, reach(bounds.as_ref(), r, inv))
        }));
        self.unbounded.clear();
        for tree in trees {
            for &handle in &tree.unbounded {
                if let Some(collider) = qp.colliders.get(handle)
                    && qp.filter.test(qp.bodies, handle, collider)
                {
                    self.unbounded
                        .push((handle, PreparedShape::new(collider, shared)));
                }
            }
        }
        let mut open = n;
        // The bands count from the apex, which rays starting on its lines may start far
        // from: the last band reaches as far as the farthest ray does.
        let end = max + self.offsets.iter().fold(0.0, |a: Real, &s| a.max(s));
        let (mut lo, mut hi) = (0.0, FIRST_BAND.min(end));
        loop {
            self.candidates.clear();
            let hi2 = hi * hi;
            for (tree, deferred) in trees.iter().zip(&mut self.deferred) {
                let candidates = &mut self.candidates;
                let later = &mut self.later;
                later.clear();
                // A node not nearer than the band's end is left for the next band, whose
                // walk starts there rather than at the root, and is tested against the
                // cone only if that band is walked; a node out of the cone is never walked
                // again: each node is tested at most once per band it is reached in, and the
                // near part of the tree is never walked again.
                let mut visit = |node: &BvhNode, index: BvhNodeIndex| {
                    let aabb = node.aabb();
                    let gap = gap_to_aabb(cone.origin, &aabb);
                    if gap >= hi2 {
                        later.push(index);
                        return TraversalAction::Prune;
                    }
                    if !cone.may_hit(&aabb) {
                        return TraversalAction::Prune;
                    }
                    if let Some(leaf) = node.leaf_data()
                        && let Some(&(handle, _)) = tree.leaves.get(leaf as usize)
                        && let Some(collider) = qp.colliders.get(handle)
                        && qp.filter.test(qp.bodies, handle, collider)
                    {
                        candidates.push(Candidate {
                            // Rounding of the directions' length: never above a true hit
                            // distance.
                            nearest: (gap.sqrt() * 0.9999 - 1e-4).max(0.0),
                            aabb,
                            shape: PreparedShape::new(collider, shared),
                            handle,
                        });
                    }
                    TraversalAction::Continue
                };
                if lo == 0.0 {
                    tree.bvh.traverse_indexed(None, &mut visit);
                } else {
                    for &index in deferred.iter() {
                        tree.bvh.traverse_indexed(Some(index), &mut visit);
                    }
                }
                std::mem::swap(deferred, later);
            }
            let candidates = &mut self.candidates;
            candidates.sort_unstable_by(|a, b| a.nearest.total_cmp(&b.nearest));
            for (((ray, (best, hit)), &s), &(inv, reach)) in self
                .rays
                .iter()
                .zip(self.best.iter_mut())
                .zip(&self.offsets)
                .zip(&self.inv)
            {
                if *best < 0.0 {
                    continue; // done in an earlier band
                }
                // The unbounded shapes, with the nearest band: they may be hit anywhere.
                if lo == 0.0 {
                    for (handle, shape) in &self.unbounded {
                        if let Some((t, normal)) = shape.cast(ray, *best, normals)
                            && nearer(t, *handle, *best, hit.map(|h| h.0))
                        {
                            *best = t;
                            *hit = Some((*handle, t, normal));
                        }
                    }
                }
                // Bounded shapes are sought only as far as the ray is in the trees' box.
                let mut bound = best.min(reach);
                for c in candidates.iter() {
                    // Candidates' distances are from the apex, `s` behind the ray's start.
                    if c.nearest >= bound + s {
                        break;
                    }
                    if !may_cross(&c.aabb, ray, inv, bound) {
                        continue;
                    }
                    if let Some((t, normal)) = c.shape.cast(ray, bound, normals)
                        && nearer(t, c.handle, *best, hit.map(|h| h.0))
                    {
                        *best = t;
                        *hit = Some((c.handle, t, normal));
                        bound = t;
                    }
                }
                // Every candidate of a later band is at least `hi` away (less the
                // rounding margin of `nearest`).
                if bound + s <= hi * 0.9999 - 1e-4 {
                    open -= 1;
                    *best = Real::NEG_INFINITY; // done (its hit is kept)
                }
            }
            if open == 0 || hi >= end {
                break;
            }
            (lo, hi) = (hi, (hi * BAND_GROWTH).min(end));
        }
        self.found.extend(self.best.iter().map(|(_, hit)| *hit));
    }
}

/// The nearest hit of one ray within `max` through the ray trees, solid shapes: the
/// unbounded shapes first, then a best-first search of each tree.
pub(super) fn cast_one(
    qp: &QueryPipeline<'_>,
    trees: [&RayTree; 2],
    ray: &Ray,
    max: Real,
    normals: bool,
) -> Option<Hit> {
    let mut best = max;
    let mut hit = None;
    for tree in trees {
        for &handle in &tree.unbounded {
            let Some(c) = qp.colliders.get(handle) else {
                continue;
            };
            if !qp.filter.test(qp.bodies, handle, c) {
                continue;
            }
            if let Some((t, normal)) = PreparedShape::new(c, None).cast(ray, best, normals)
                && nearer(t, handle, best, hit.map(|h: Hit| h.0))
            {
                best = t;
                hit = Some((handle, t, normal));
            }
        }
    }
    // rapier's best-first search of each tree; the leaf test keeps the nearest hit itself,
    // so that ties go by [`nearer`] (the leaves' boxes are loosened: a tie is never pruned).
    let state = std::cell::Cell::new((best, hit));
    for tree in trees {
        let (best, _) = state.get();
        tree.bvh.cast_ray(ray, best, |leaf, max| {
            let &(handle, _) = tree.leaves.get(leaf as usize)?;
            let c = qp.colliders.get(handle)?;
            if !qp.filter.test(qp.bodies, handle, c) {
                return None;
            }
            let (t, _) = PreparedShape::new(c, None).cast(ray, max, false)?;
            let (best, hit) = state.get();
            if nearer(t, handle, best, hit.map(|h| h.0)) {
                state.set((t, Some((handle, t, None))));
            }
            Some(t)
        });
    }
    let (_, hit) = state.get();
    hit
}

/// Whether a hit of `handle` at `t` beats the best so far (`best`, `hit`): nearer, or as near
/// and of the collider created first, so that ties between touching faces go the same way
/// whatever order the colliders were met in.
#[inline]
pub(super) fn nearer(
    t: Real,
    handle: ColliderHandle,
    best: Real,
    held: Option<ColliderHandle>,
) -> bool {
    match held {
        None => t <= best,
        Some(h) => t < best || (t == best && handle.into_raw_parts().0 < h.into_raw_parts().0),
    }
}
