//! One property of the surfaces rays hit (a colour, a `laser_retro`), looked up in batches
//! and kept: a ray sensor asks the world once per frame for every entity it has not seen.

use crate::Passes;
use sim_plugin_api::{
    EntityId, RayHit, SurfaceInfo, WorldRef,
    abi_stable::std_types::{RSlice, RSliceMut},
};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A hasher for entity ids (already well spread integers): one multiply.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The `property` of the surface of every entity hit so far.
#[derive(Clone, Debug)]
pub struct EntitySurfaces<T> {
    known: HashMap<EntityId, T, BuildHasherDefault<IdHasher>>,
    missing: Vec<EntityId>,
    surfaces: Vec<SurfaceInfo>,
    property: fn(&SurfaceInfo) -> T,
}

impl<T: Copy + Sync> EntitySurfaces<T> {
    /// An empty cache of `property` (e.g. `|s| s.laser_retro`).
    pub fn new(property: fn(&SurfaceInfo) -> T) -> Self {
        EntitySurfaces {
            known: HashMap::default(),
            missing: Vec::new(),
            surfaces: Vec::new(),
            property,
        }
    }

    /// Looks up, in one `surfaces` call, every entity in `hits` not seen before. The hits are
    /// searched in chunks on the sensor threads `world` offers.
    pub fn fill(&mut self, hits: &[RayHit], world: &WorldRef<'_>) {
        let passes = Passes::new(world);
        let chunk = passes.chunk_len(hits.len()).max(1);
        let mut found = vec![Vec::new(); hits.len().div_ceil(chunk)];
        let known = &self.known;
        let chunks: Vec<_> = hits.chunks(chunk).zip(found.iter_mut()).collect();
        passes.run(chunks, |(hits, out)| {
            let mut last = EntityId::NONE;
            for h in hits {
                if h.entity != last && !h.entity.is_none() {
                    last = h.entity;
                    if !known.contains_key(&h.entity) && !out.contains(&h.entity) {
                        out.push(h.entity);
                    }
                }
            }
        });
        self.missing.clear();
        self.missing.extend(found.into_iter().flatten());
        if self.missing.is_empty() {
            return;
        }
        self.missing.sort_unstable_by_key(|e| e.0);
        self.missing.dedup();
        self.surfaces.clear();
        self.surfaces
            .resize(self.missing.len(), SurfaceInfo::default());
        world.surfaces(
            RSlice::from_slice(&self.missing),
            RSliceMut::from_mut_slice(&mut self.surfaces),
        );
        for (id, s) in self.missing.iter().zip(&self.surfaces) {
            self.known.insert(*id, (self.property)(s));
        }
    }

    /// The property of `entity`, if it was looked up.
    #[inline]
    pub fn get(&self, entity: EntityId) -> Option<T> {
        self.known.get(&entity).copied()
    }

    /// Forgets everything (entities may have been replaced).
    pub fn clear(&mut self) {
        self.known.clear();
    }
}
