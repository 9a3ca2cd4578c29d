//! The ray-cast engine: batches of rays split over threads and cast as packets, and the
//! upkeep of the broad phase that lets rays see bodies before their first step.

use super::convert::*;
use super::ray_index::RayTree;
use super::{GROUP_COLLISION, GROUP_QUERY, GROUP_VISUAL, Physics};
use rapier3d::parry::partitioning::TraversalAction;
use rapier3d::prelude::*;
use rayon::prelude::*;
use sim_plugin_api::{
    ALL_VISIBLE, EntityId, Ray as ApiRay, RayCastOptions, RayHit, RayTarget, Vec3,
};

/// Below this many rays a batch is cast on the calling thread; above, it is split over the
/// simulation's worker pool when the caller runs on it.
const PARALLEL_RAY_THRESHOLD: usize = 512;

impl Physics {
    /// Moves the colliders of `bodies` to their bodies' current poses in the broad phase, so
    /// that ray casts see bodies created or teleported at run time before the next step. Only
    /// the query structures are touched: the next step does its own bookkeeping of these
    /// bodies (running rapier's collision pipeline here would register contacts for bodies
    /// the island manager does not know yet).
    pub(super) fn sync_for_queries(&mut self, bodies: &[RigidBodyHandle]) {
        self.rays.invalidate();
        for &bh in bodies {
            let Some(b) = self.pw.bodies.get(bh) else {
                continue;
            };
            let pose = *b.position();
            let colliders: Vec<ColliderHandle> = b.colliders().to_vec();
            for ch in colliders {
                let Some(c) = self.pw.colliders.get_mut(ch) else {
                    continue;
                };
                let local = c.position_wrt_parent().copied().unwrap_or_default();
                c.set_position(pose * local);
                let aabb = c.compute_aabb();
                self.pw
                    .broad_phase
                    .set_aabb(&self.pw.integration_parameters, ch, aabb);
            }
        }
    }

    /// Brings the broad phase up to date without integrating, so that ray casts see the
    /// bodies of a world just built, before its first step.
    ///
    /// rapier's collision pipeline consumes the "modified" marks of bodies without telling the
    /// island manager (it passes no islands), so a body inserted or moved and then refreshed
    /// this way would never be simulated. Marking every body modified again hands them to the
    /// next physics step's own bookkeeping.
    pub(super) fn refresh_queries(&mut self) {
        self.rays.invalidate();
        self.pw.detect_collisions(&self.hooks, &());
        let handles: Vec<RigidBodyHandle> = self.pw.bodies.iter().map(|(h, _)| h).collect();
        for h in handles {
            // `get_mut` re-queues the body in the modified set.
            let _ = self.pw.bodies.get_mut(h);
        }
    }

    /// Casts `rays` into `hits`; against visuals, only those whose visibility flags share a
    /// bit with `mask` are seen ([`ALL_VISIBLE`]: every one).
    pub(super) fn cast(
        &self,
        rays: &[ApiRay],
        options: &RayCastOptions,
        mask: u32,
        hits: &mut [RayHit],
        pool: Option<&rayon::ThreadPool>,
    ) -> u32 {
        let visual = options.target.geometry() == RayTarget::VISUAL;
        let target = if visual {
            GROUP_VISUAL
        } else {
            GROUP_COLLISION
        };
        let groups = InteractionGroups::new(GROUP_QUERY, target, InteractionTestMode::And);
        let mut exclude = options.exclude_model;
        let entities = &self.entities;
        // A model without geometry of the target kind (a camera on a bare link) excludes
        // nothing: skip the per-candidate test. One pass over the colliders per batch is far
        // cheaper than testing every candidate of every ray.
        if !exclude.is_none()
            && !self.pw.colliders.iter().any(|(_, c)| {
                c.collision_groups().memberships == target
                    && entities.is_within(unpack_model(c.user_data), exclude)
            })
        {
            exclude = EntityId::NONE;
        }
        // Collisions carry no visibility flags: a mask selects among visuals only.
        let masked = visual && mask != ALL_VISIBLE;
        let seen = move |_h: ColliderHandle, c: &Collider| {
            (exclude.is_none() || !entities.is_within(unpack_model(c.user_data), exclude))
                && (!masked || entities.visibility_flags(EntityId(c.user_data as u64)) & mask != 0)
        };
        let max = options.max_distance.min(f32::MAX as f64) as f32;
        let normals = options.target.wants_normals();
        let trees = self.rays.trees(&self.pw.colliders, &self.pw.bodies, target);
        let cast_chunk = |rays: &[ApiRay], hits: &mut [RayHit]| -> u32 {
            let mut filter = QueryFilter::default().groups(groups);
            if !exclude.is_none() || masked {
                filter = filter.predicate(&seen);
            }
            let qp = self.pw.broad_phase.as_query_pipeline(
                self.pw.narrow_phase.query_dispatcher(),
                &self.pw.bodies,
                &self.pw.colliders,
                filter,
            );
            let mut n = 0;
            let mut packet = Packet::default();
            for (rays, hits) in rays.chunks(PACKET).zip(hits.chunks_mut(PACKET)) {
                packet.rays.clear();
                packet.rays.extend(rays.iter().map(|r| {
                    Ray::new(
                        vec_to_rapier(r.origin),
                        vec_to_rapier(r.direction.normalized()),
                    )
                }));
                packet.cast(&qp, trees, max);
                for ((ray, found), h) in packet.rays.iter().zip(&packet.found).zip(hits) {
                    // The nearest hit first (the search without normals is much cheaper),
                    // then, when asked for, the normal from that one shape.
                    *h = match *found {
                        Some((ch, toi, known)) => {
                            n += 1;
                            let c = self.pw.colliders.get(ch);
                            let ud = c.map(|c| c.user_data).unwrap_or(0);
                            let normal = match (normals, known, c) {
                                (false, ..) => Vec3::ZERO,
                                (true, Some(n), _) => vec_from_rapier(n),
                                (true, None, Some(c)) => c
                                    .shape()
                                    .cast_ray_and_get_normal(
                                        c.position(),
                                        ray,
                                        toi * 1.0001 + 1e-5,
                                        true,
                                    )
                                    .map_or(Vec3::ZERO, |i| vec_from_rapier(i.normal)),
                                (true, None, None) => Vec3::ZERO,
                            };
                            RayHit {
                                distance: toi as f64,
                                normal,
                                entity: EntityId(ud as u64),
                                model: unpack_model(ud),
                            }
                        }
                        None => RayHit::MISS,
                    };
                }
            }
            n
        };
        let len = rays.len().min(hits.len());
        let (rays, hits) = (&rays[..len], &mut hits[..len]);
        // Split the batch only when the simulation runs its sensors with a worker pool
        // (`--threads` > 1): on a worker, across the pool; on the simulation thread given
        // the idle pool, by this thread and the workers together, each taking the next chunk
        // until none is left (this thread starts at once, the workers as they wake).
        if len < PARALLEL_RAY_THRESHOLD {
            cast_chunk(rays, hits)
        } else if rayon::current_thread_index().is_some() {
            rays.par_chunks(RAY_CHUNK)
                .zip(hits.par_chunks_mut(RAY_CHUNK))
                .map(|(r, h)| cast_chunk(r, h))
                .sum()
        } else if let Some(pool) = pool.filter(|p| p.current_num_threads() > 1) {
            let chunks: Vec<ChunkSlot<'_>> = rays
                .chunks(RAY_CHUNK)
                .zip(hits.chunks_mut(RAY_CHUNK))
                .map(|c| std::sync::Mutex::new(Some(c)))
                .collect();
            let next = std::sync::atomic::AtomicUsize::new(0);
            let found = std::sync::atomic::AtomicU32::new(0);
            let work = || {
                let mut n = 0;
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(chunk) = chunks.get(i) else { break };
                    let taken = chunk.lock().unwrap_or_else(|e| e.into_inner()).take();
                    if let Some((r, h)) = taken {
                        n += cast_chunk(r, h);
                    }
                }
                found.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            };
            pool.in_place_scope(|scope| {
                for _ in 1..pool.current_num_threads() {
                    scope.spawn(|_| work());
                }
                work();
            });
            found.into_inner()
        } else {
            cast_chunk(rays, hits)
        }
    }
}

/// Rays per chunk of a batch split across threads.
const RAY_CHUNK: usize = 256;

/// A chunk of a batch (its rays and their hits), taken by the first thread to claim it.
type ChunkSlot<'r> = std::sync::Mutex<Option<(&'r [ApiRay], &'r mut [RayHit])>>;

/// Rays cast together as one [`Packet`] (consecutive rays of a batch).
const PACKET: usize = 64;

/// Packets of fewer rays than this are cast ray by ray.
const MIN_PACKET: usize = 8;

/// Consecutive rays of a batch cast together.
///
/// Sensors cast batches of rays from one origin whose neighbours point almost the same way
/// (a lidar row, a camera image row). For such a packet the colliders any of its rays can hit
/// are gathered once, by one walk of the ray trees (see `ray_index`; the broad phase's tree
/// holds the unbounded ground plane) that keeps the nodes whose bounding sphere meets the
/// cone around the packet's directions, with the unbounded shapes beside them, and sorted by
/// their distance from the origin. Each ray then tests only those candidates, nearest first,
/// and stops at the first candidate farther than its best hit: boxes that hold their shapes,
/// the same shape ray casts and the same filter as a search of the whole tree per ray, so the same
/// nearest hit, with the tree walked and the filter (and its exclusion predicate) run once
/// per packet rather than once per ray. Other packets (origins that differ, directions
/// spread wider than 60 degrees, few rays) are cast ray by ray through the same trees.
#[derive(Default)]
struct Packet<'c> {
    rays: Vec<Ray>,
    /// The nearest hit of each ray.
    found: Vec<Option<Hit>>,
    /// Per ray while casting: the distance within which a nearer hit is still sought
    /// (negative once the ray is done), and the nearest hit so far.
    best: Vec<(Real, Option<Hit>)>,
    candidates: Vec<Candidate<'c>>,
    /// Per ray: how far its start is from the packet's apex.
    offsets: Vec<Real>,
}

/// A ray's nearest hit: collider, distance and, when the search found it, the normal.
type Hit = (ColliderHandle, Real, Option<Vector>);

/// A collider some ray of a packet may hit.
struct Candidate<'c> {
    /// No ray of the packet can hit it nearer than this.
    nearest: Real,
    /// Its box in the ray tree (none for an unbounded shape).
    aabb: Option<rapier3d::parry::bounding_volume::Aabb>,
    /// Its shape when a half-space (whose normal comes with its hit) or a cuboid, the
    /// shapes of most worlds, cast without dynamic dispatch.
    known: Known<'c>,
    handle: ColliderHandle,
    collider: &'c Collider,
}

/// A candidate's shape, when of a kind cast directly.
#[derive(Clone, Copy)]
enum Known<'c> {
    HalfSpace(&'c rapier3d::parry::shape::HalfSpace),
    Cuboid(&'c rapier3d::parry::shape::Cuboid),
    Other,
}

impl<'c> Known<'c> {
    fn of(c: &'c Collider) -> Self {
        let shape = c.shape();
        if let Some(h) = shape.as_halfspace() {
            Known::HalfSpace(h)
        } else if let Some(b) = shape.as_cuboid() {
            Known::Cuboid(b)
        } else {
            Known::Other
        }
    }
}

/// The cone from a common origin that holds every direction of a packet.
struct Cone {
    origin: Vector,
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
            axis,
            cos,
            sin: (1.0 - cos * cos).sqrt(),
        })
    }

    /// Whether some ray in the cone may meet `aabb` (through its bounding sphere).
    fn may_hit(&self, aabb: &rapier3d::parry::bounding_volume::Aabb) -> bool {
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
fn may_cross(
    aabb: &rapier3d::parry::bounding_volume::Aabb,
    ray: &Ray,
    inv: Vector,
    best: Real,
) -> bool {
    if !inv.is_finite() {
        return aabb.cast_local_ray(ray, best, true).is_some();
    }
    let t1 = (aabb.mins - ray.origin) * inv;
    let t2 = (aabb.maxs - ray.origin) * inv;
    let near = t1.min(t2).max_element().max(0.0);
    let far = t1.max(t2).min_element();
    far + 1e-3 >= near && near <= best
}

/// The distance from `p` to the box (0 inside).
fn distance_to_aabb(p: Vector, aabb: &rapier3d::parry::bounding_volume::Aabb) -> Real {
    (aabb.mins - p)
        .max(p - aabb.maxs)
        .max(Vector::ZERO)
        .length()
}

impl<'c> Packet<'c> {
    /// Fills `found` with the nearest hit of each ray within `max`, solid shapes.
    fn cast(&mut self, qp: &QueryPipeline<'c>, trees: [&RayTree; 2], max: Real) {
        self.found.clear();
        let cone = (self.rays.len() >= MIN_PACKET)
            .then(|| Cone::of(&self.rays, &mut self.offsets))
            .flatten();
        let Some(cone) = cone else {
            self.found
                .extend(self.rays.iter().map(|r| cast_one(qp, trees, r, max)));
            return;
        };
        // The colliders are gathered in bands of distance from the origin, nearest band
        // first: a ray whose best hit is within the bands gathered so far is done, since
        // every other candidate is farther. In a dense scene most rays end in the first
        // bands, and the far part of the tree is never walked.
        let n = self.rays.len();
        self.best.clear();
        self.best.resize(n, (max, None));
        let mut open = n;
        let (mut lo, mut hi) = (0.0, FIRST_BAND.min(max));
        loop {
            self.candidates.clear();
            let candidates = &mut self.candidates;
            for tree in trees {
                tree.bvh.traverse(|node| {
                    let aabb = node.aabb();
                    let nearest = distance_to_aabb(cone.origin, &aabb);
                    if nearest >= hi || !cone.may_hit(&aabb) {
                        return TraversalAction::Prune;
                    }
                    if let Some(leaf) = node.leaf_data()
                        && nearest >= lo
                        && let Some(&(handle, _)) = tree.leaves.get(leaf as usize)
                        && let Some(collider) = qp.colliders.get(handle)
                        && qp.filter.test(qp.bodies, handle, collider)
                    {
                        candidates.push(Candidate {
                            // Rounding of the directions' length: never above a true hit
                            // distance.
                            nearest: (nearest * 0.9999 - 1e-4).max(0.0),
                            aabb: Some(aabb),
                            known: Known::of(collider),
                            handle,
                            collider,
                        });
                    }
                    TraversalAction::Continue
                });
                // The unbounded shapes, with the nearest band: they may be hit anywhere.
                if lo == 0.0 {
                    for &handle in &tree.unbounded {
                        if let Some(collider) = qp.colliders.get(handle)
                            && qp.filter.test(qp.bodies, handle, collider)
                        {
                            candidates.push(Candidate {
                                nearest: 0.0,
                                aabb: None,
                                known: Known::of(collider),
                                handle,
                                collider,
                            });
                        }
                    }
                }
            }
            candidates.sort_unstable_by(|a, b| a.nearest.total_cmp(&b.nearest));
            for ((ray, (best, hit)), &s) in self
                .rays
                .iter()
                .zip(self.best.iter_mut())
                .zip(&self.offsets)
            {
                if *best < 0.0 {
                    continue; // done in an earlier band
                }
                let inv = ray.dir.recip();
                for c in candidates.iter() {
                    // Candidates' distances are from the apex, `s` behind the ray's start.
                    if c.nearest >= *best + s {
                        break;
                    }
                    if let Some(aabb) = &c.aabb
                        && !may_cross(aabb, ray, inv, *best)
                    {
                        continue;
                    }
                    let pose = c.collider.position();
                    let t = match c.known {
                        Known::HalfSpace(h) => {
                            // A half-space's ray cast finds its normal at no extra cost.
                            if let Some(i) = h.cast_ray_and_get_normal(pose, ray, *best, true)
                                && nearer(i.time_of_impact, c.handle, *best, hit)
                            {
                                *best = i.time_of_impact;
                                *hit = Some((c.handle, i.time_of_impact, Some(i.normal)));
                            }
                            continue;
                        }
                        Known::Cuboid(b) => b.cast_ray(pose, ray, *best, true),
                        Known::Other => c.collider.shape().cast_ray(pose, ray, *best, true),
                    };
                    if let Some(t) = t
                        && nearer(t, c.handle, *best, hit)
                    {
                        *best = t;
                        *hit = Some((c.handle, t, None));
                    }
                }
                // Every candidate of a later band is at least `hi` away (less the
                // rounding margin of `nearest`).
                if *best + s <= hi * 0.9999 - 1e-4 {
                    open -= 1;
                    *best = Real::NEG_INFINITY; // done (its hit is kept)
                }
            }
            if open == 0 || hi >= max {
                break;
            }
            (lo, hi) = (hi, (hi * BAND_GROWTH).min(max));
        }
        self.found.extend(self.best.iter().map(|(_, hit)| *hit));
    }
}

/// The nearest hit of one ray within `max` through the ray trees, solid shapes: the
/// unbounded shapes first, then a best-first search of each tree.
fn cast_one(qp: &QueryPipeline<'_>, trees: [&RayTree; 2], ray: &Ray, max: Real) -> Option<Hit> {
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
            match Known::of(c) {
                Known::HalfSpace(h) => {
                    if let Some(i) = h.cast_ray_and_get_normal(c.position(), ray, best, true)
                        && nearer(i.time_of_impact, handle, best, &hit)
                    {
                        best = i.time_of_impact;
                        hit = Some((handle, best, Some(i.normal)));
                    }
                }
                _ => {
                    if let Some(t) = c.shape().cast_ray(c.position(), ray, best, true)
                        && nearer(t, handle, best, &hit)
                    {
                        best = t;
                        hit = Some((handle, t, None));
                    }
                }
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
            let t = match Known::of(c) {
                Known::Cuboid(b) => b.cast_ray(c.position(), ray, max, true),
                _ => c.shape().cast_ray(c.position(), ray, max, true),
            }?;
            let (best, hit) = state.get();
            if nearer(t, handle, best, &hit) {
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
fn nearer(t: Real, handle: ColliderHandle, best: Real, hit: &Option<Hit>) -> bool {
    match hit {
        None => t <= best,
        Some((h, ..)) => {
            t < best || (t == best && handle.into_raw_parts().0 < h.into_raw_parts().0)
        }
    }
}

/// The first distance band of a packet's candidates, m (see [`Packet::cast`]).
const FIRST_BAND: Real = 5.0;

/// How much farther each band reaches than the previous one.
const BAND_GROWTH: Real = 3.0;

pub(super) fn pack_user_data(entity: EntityId, model: EntityId) -> u128 {
    (entity.0 as u128) | ((model.0 as u128) << 64)
}

pub(super) fn unpack_model(ud: u128) -> EntityId {
    EntityId((ud >> 64) as u64)
}
