//! The ray-cast engine: batches of rays split over threads and cast as packets (see
//! `ray_packet`), and the upkeep of the broad phase that lets rays see bodies before their first step.

use super::convert::*;
use super::ray_packet::{Hit, PACKET, Packet};
use super::workers::{self, Workers};
use super::{GROUP_COLLISION, GROUP_QUERY, GROUP_VISUAL, Physics};
use rapier3d::prelude::*;
use sim_plugin_api::{
    ALL_VISIBLE, EntityId, Ray as ApiRay, RayCastOptions, RayHit, RayTarget, Vec3,
};

/// Below this many rays a batch is cast on the calling thread; above, it is split over the
/// sensor threads (see `workers`).
const PARALLEL_RAY_THRESHOLD: usize = 512;

impl Physics {
    /// Moves the colliders of `bodies` to their bodies' current poses in the broad phase, so
    /// that ray casts see bodies created or teleported at run time before the next step. Only
    /// the query structures are touched: the next step does its own bookkeeping of these
    /// bodies (running rapier's collision pipeline here would register contacts for bodies
    /// the island manager does not know yet).
    pub(super) fn sync_for_queries(&mut self, bodies: &[RigidBodyHandle]) {
        self.rays.invalidate();
        self.scans.world_changed();
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
                // A disabled collider (a visual) is in no broad phase.
                if !c.is_enabled() {
                    continue;
                }
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
        self.scans.world_changed();
        self.pw.detect_collisions(&self.hooks, &());
        let handles: Vec<RigidBodyHandle> = self.pw.bodies.iter().map(|(h, _)| h).collect();
        for h in handles {
            // `get_mut` re-queues the body in the modified set.
            let _ = self.pw.bodies.get_mut(h);
        }
    }

    /// What a cast with `options` and `mask` sees and how far (see [`CastSetup`]).
    pub(super) fn cast_setup(&self, options: &RayCastOptions, mask: u32) -> CastSetup<'_> {
        let visual = options.target.geometry() == RayTarget::VISUAL;
        let target = if visual {
            GROUP_VISUAL
        } else {
            GROUP_COLLISION
        };
        let mut exclude = options.exclude_model;
        let entities = &self.entities;
        // A model without geometry of the target kind (a camera on a bare link) excludes
        // nothing: skip the per-candidate test. One pass over the colliders, once per model
        // until they change, is far cheaper than testing every candidate of every ray.
        if !exclude.is_none()
            && !self.rays.excludes(target, exclude, || {
                self.pw.colliders.iter().any(|(_, c)| {
                    c.collision_groups().memberships == target
                        && entities.is_within(unpack_model(c.user_data), exclude)
                })
            })
        {
            exclude = EntityId::NONE;
        }
        CastSetup {
            groups: InteractionGroups::new(GROUP_QUERY, target, InteractionTestMode::And),
            exclude,
            // Collisions carry no visibility flags: a mask selects among visuals only.
            masked: visual && mask != ALL_VISIBLE,
            mask,
            entities,
            max: options.max_distance.min(f32::MAX as f64) as f32,
            normals: options.target.wants_normals(),
            trees: self.rays.trees(&self.pw.colliders, &self.pw.bodies, target),
        }
    }

    /// The hit of `ray` a cast found (`found`), with its normal when `normals` (computed
    /// here from that one shape when the cast did not give it).
    pub(super) fn ray_hit(&self, found: Option<Hit>, ray: &Ray, normals: bool) -> RayHit {
        let Some((ch, toi, known)) = found else {
            return RayHit::MISS;
        };
        let c = self.pw.colliders.get(ch);
        let ud = c.map(|c| c.user_data).unwrap_or(0);
        let normal = match (normals, known, c) {
            (false, ..) => Vec3::ZERO,
            (true, Some(n), _) => vec_from_rapier(n),
            (true, None, Some(c)) => c
                .shape()
                .cast_ray_and_get_normal(c.position(), ray, toi * 1.0001 + 1e-5, true)
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

    /// Casts `rays` into `hits`; against visuals, only those whose visibility flags share a
    /// bit with `mask` are seen ([`ALL_VISIBLE`]: every one).
    pub(super) fn cast(
        &self,
        rays: &[ApiRay],
        options: &RayCastOptions,
        mask: u32,
        hits: &mut [RayHit],
        workers: &Workers<'_>,
    ) -> u32 {
        let setup = self.cast_setup(options, mask);
        let seen = |_h: ColliderHandle, c: &Collider| setup.sees(c);
        let (max, normals, trees) = (setup.max, setup.normals, setup.trees);
        // Each thread keeps one packet's buffers for all the chunks it casts.
        let cast_chunk = chunk_caster(|packet, rays, hits| {
            let qp = self.pw.broad_phase.as_query_pipeline(
                self.pw.narrow_phase.query_dispatcher(),
                &self.pw.bodies,
                &self.pw.colliders,
                setup.filter(&seen),
            );
            let mut n = 0;
            for (rays, hits) in rays.chunks(PACKET).zip(hits.chunks_mut(PACKET)) {
                packet.rays.clear();
                packet.rays.extend(rays.iter().map(ray_to_rapier));
                packet.cast(&qp, trees, max, normals);
                for ((ray, found), h) in packet.rays.iter().zip(&packet.found).zip(hits) {
                    // The nearest hit first (the search without normals is much cheaper),
                    // then, when asked for, the normal from that one shape.
                    n += u32::from(found.is_some());
                    *h = self.ray_hit(*found, ray, normals);
                }
            }
            n
        });
        let len = rays.len().min(hits.len());
        let (rays, hits) = (&rays[..len], &mut hits[..len]);
        // A small batch, or one cast from inside a plugin's chunk (the chunks already share
        // the threads out), is cast on this thread; a large one is split in chunks over the
        // sensor threads (see `workers`).
        if len < PARALLEL_RAY_THRESHOLD || workers::in_chunk() {
            return cast_chunk(&mut Packet::default(), rays, hits);
        }
        let chunks: Vec<ChunkSlot<'_>> = rays
            .chunks(RAY_CHUNK)
            .zip(hits.chunks_mut(RAY_CHUNK))
            .map(|c| std::sync::Mutex::new(Some(c)))
            .collect();
        let found = std::sync::atomic::AtomicU32::new(0);
        workers.share(chunks.len(), Packet::default, |packet, i| {
            let taken = chunks[i].lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some((r, h)) = taken {
                let n = cast_chunk(packet, r, h);
                found.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            }
        });
        found.into_inner()
    }
}

/// A ray of the plugin API as the packets cast it: its direction normalised in double
/// precision, then both in single.
#[inline]
pub(super) fn ray_to_rapier(r: &ApiRay) -> Ray {
    Ray::new(
        vec_to_rapier(r.origin),
        vec_to_rapier(r.direction.normalized()),
    )
}

/// What a cast sees (the target kind's interaction groups, the model it excludes, the
/// visibility mask over visuals), how far (`max`, single precision), whether its hits carry
/// normals, and the ray trees of its target kind.
pub(super) struct CastSetup<'a> {
    groups: InteractionGroups,
    exclude: EntityId,
    masked: bool,
    mask: u32,
    entities: &'a super::entities::Entities,
    pub max: Real,
    pub normals: bool,
    pub trees: [&'a super::ray_index::RayTree; 2],
}

impl CastSetup<'_> {
    /// Whether the cast sees collider `c` (of its target kind): not of the excluded model,
    /// and, under a mask, a visual whose flags share a bit with it.
    pub fn sees(&self, c: &Collider) -> bool {
        (self.exclude.is_none()
            || !self
                .entities
                .is_within(unpack_model(c.user_data), self.exclude))
            && (!self.masked
                || self.entities.visibility_flags(EntityId(c.user_data as u64)) & self.mask != 0)
    }

    /// The query filter of the cast: its groups, with `seen` (calling [`CastSetup::sees`])
    /// as the predicate when some collider of the kind may be left out.
    pub fn filter<'f>(
        &self,
        seen: &'f impl Fn(ColliderHandle, &Collider) -> bool,
    ) -> QueryFilter<'f> {
        let filter = QueryFilter::default().groups(self.groups);
        if !self.exclude.is_none() || self.masked {
            filter.predicate(seen)
        } else {
            filter
        }
    }
}

/// `f`, with the lifetime of the packets it is given fixed (not one per call), so that one
/// packet's buffers serve every chunk a thread casts.
fn chunk_caster<'c, F>(f: F) -> F
where
    F: Fn(&mut Packet<'c>, &[ApiRay], &mut [RayHit]) -> u32,
{
    f
}

/// Rays per chunk of a batch split across threads.
const RAY_CHUNK: usize = 256;

/// A chunk of a batch (its rays and their hits), taken by the first thread to claim it.
type ChunkSlot<'r> = std::sync::Mutex<Option<(&'r [ApiRay], &'r mut [RayHit])>>;

pub(super) fn pack_user_data(entity: EntityId, model: EntityId) -> u128 {
    (entity.0 as u128) | ((model.0 as u128) << 64)
}

pub(super) fn unpack_model(ud: u128) -> EntityId {
    EntityId((ud >> 64) as u64)
}
