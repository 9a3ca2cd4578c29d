//! The `simcore.sensor_threads.v1` extension: a sensor's own per-ray work on the engine's
//! sensor threads.
//!
//! A ray batch is split across the engine's sensor threads inside
//! [`WorldView::cast_rays`](crate::WorldView::cast_rays), but what a sensor does before and
//! after the cast (turning its directions into the world, turning hits into ranges, depths,
//! colours, packing the message) runs on the one thread that called its `update`. With two
//! threads that part alone keeps a scan from running twice as fast. Through this extension a
//! sensor hands the engine its whole per-ray pipeline in chunks (each chunk: its rays, its
//! cast, its outputs) and the engine runs the chunks on the calling thread and its idle
//! sensor workers together, returning when all are done.
//!
//! [`WorldRef::for_each_chunk`](crate::WorldRef::for_each_chunk) is the safe way in: it takes
//! one item per chunk (typically disjoint `&mut` slices of the sensor's buffers, from
//! `chunks_mut`), runs a closure on each exactly once, on the engine's threads when the engine
//! offers them and in order on the calling thread otherwise, and re-raises a panic of the
//! closure on the calling thread. A cast made inside a chunk runs on the thread of that chunk.
//!
//! ```
//! # use sim_plugin_api::{testing::StaticWorld, Ray, RayCastOptions, RayHit, RayTarget, EntityId};
//! # use sim_plugin_api::abi_stable::std_types::{RSlice, RSliceMut};
//! # let world = StaticWorld::default();
//! # world.with(|world| {
//! let options = RayCastOptions {
//!     max_distance: 10.0,
//!     target: RayTarget::COLLISION,
//!     exclude_model: EntityId::NONE,
//! };
//! let rays = vec![Ray::default(); 1000];
//! let mut hits = vec![RayHit::MISS; 1000];
//! let mut ranges = vec![0.0; 1000];
//! let chunks: Vec<_> = rays
//!     .chunks(256)
//!     .zip(hits.chunks_mut(256))
//!     .zip(ranges.chunks_mut(256))
//!     .collect();
//! world.for_each_chunk(chunks, |((rays, hits), ranges)| {
//!     world.cast_rays(RSlice::from_slice(rays), &options, RSliceMut::from_mut_slice(hits));
//!     for (r, h) in ranges.iter_mut().zip(hits.iter()) {
//!         *r = h.distance;
//!     }
//! });
//! assert!(ranges.iter().all(|r| r.is_infinite()));
//! # });
//! ```
//!
//! Whatever thread runs a chunk, each chunk's outputs depend on its inputs alone, so a sensor
//! whose chunks do not share state gives the same output at every thread count. An engine
//! appends methods to [`SensorThreads`] and [`ChunkTask`] only after their last one.

use abi_stable::{RRef, sabi_trait, sabi_trait::TD_Opaque};
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Mutex;

/// The name under which the engine offers [`SensorThreads`].
pub const SENSOR_THREADS_EXTENSION: &str = "simcore.sensor_threads.v1";

/// Work split into numbered chunks, run by [`SensorThreads::run_chunks`].
#[sabi_trait]
pub trait ChunkTask: Sync {
    /// Does chunk `index` of the work. It must not unwind: the engine calls it through the
    /// C ABI ([`WorldRef::for_each_chunk`](crate::WorldRef::for_each_chunk) catches panics).
    #[sabi(last_prefix_field)]
    fn run_chunk(&self, index: usize);
}

/// A [`ChunkTask`] as the engine receives it.
pub type ChunkTaskRef<'a> = ChunkTask_TO<'a, RRef<'a, ()>>;

/// The engine's sensor threads (see the [module docs](self)).
#[sabi_trait]
pub trait SensorThreads: Send + Sync {
    /// How many threads may run chunks of one call at once (1: the calling thread alone).
    fn threads(&self) -> usize;

    /// Calls `task.run_chunk(i)` once for every `i` in `0..count`, on the calling thread and
    /// the engine's idle sensor workers, in no set order; returns when every call returned.
    #[sabi(last_prefix_field)]
    fn run_chunks(&self, count: usize, task: ChunkTaskRef<'_>);
}

/// The sensor threads extension as plugins receive it.
pub type SensorThreadsRef<'a> = SensorThreads_TO<'a, RRef<'a, ()>>;

/// The chunks of one [`WorldRef::for_each_chunk`](crate::WorldRef::for_each_chunk) call:
/// each item taken by the first call for its index, and the first panic of the closure.
struct Chunks<'a, T, F> {
    items: Vec<Mutex<Option<T>>>,
    f: &'a F,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl<T: Send, F: Fn(T) + Sync> ChunkTask for Chunks<'_, T, F> {
    fn run_chunk(&self, index: usize) {
        let Some(slot) = self.items.get(index) else {
            return;
        };
        let item = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(item) = item else { return };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| (self.f)(item))) {
            let mut first = self.panic.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert(p);
        }
    }
}

impl<'w> crate::WorldRef<'w> {
    /// The [`SENSOR_THREADS_EXTENSION`] of this world, or `None` when the engine does not
    /// offer it (or offers an incompatible version).
    pub fn sensor_threads(&self) -> Option<&SensorThreadsRef<'_>> {
        self.extension(SENSOR_THREADS_EXTENSION.into())
            .into_option()
            .and_then(|e| e.get::<SensorThreadsRef<'_>>())
    }

    /// Calls `f` once on each of `items`: on the engine's sensor threads together with this
    /// one when the engine offers them ([`SENSOR_THREADS_EXTENSION`]), else in order on this
    /// thread. Returns when every call returned; a panic in `f` is raised again here, after
    /// the other chunks ran.
    pub fn for_each_chunk<T: Send>(&self, items: Vec<T>, f: impl Fn(T) + Sync) {
        let threads = match self.sensor_threads() {
            Some(t) if items.len() > 1 && t.threads() > 1 => t,
            _ => {
                items.into_iter().for_each(f);
                return;
            }
        };
        let count = items.len();
        let chunks = Chunks {
            items: items.into_iter().map(|i| Mutex::new(Some(i))).collect(),
            f: &f,
            panic: Mutex::new(None),
        };
        threads.run_chunks(count, ChunkTask_TO::from_ptr(RRef::new(&chunks), TD_Opaque));
        // Chunks the engine did not run (none, from an engine that keeps its word) run here.
        for i in 0..count {
            chunks.run_chunk(i);
        }
        let panic = chunks.panic.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = panic {
            resume_unwind(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::StaticWorld;

    #[test]
    fn every_item_runs_once_on_the_threads_offered_or_in_order_without() {
        for threads in [0, 1, 4] {
            let mut world = StaticWorld::default();
            world.set_sensor_threads(threads);
            let mut done = vec![0u32; 100];
            let order = std::sync::Mutex::new(Vec::new());
            world.with(|w| {
                let items: Vec<_> = done.iter_mut().enumerate().collect();
                w.for_each_chunk(items, |(i, d)| {
                    *d += 1;
                    order.lock().unwrap().push(i);
                });
            });
            assert!(done.iter().all(|&d| d == 1), "{threads}: {done:?}");
            if threads <= 1 {
                let order = order.into_inner().unwrap();
                assert_eq!(order, (0..100).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn a_panic_in_a_chunk_is_raised_again_after_the_others_ran() {
        let mut world = StaticWorld::default();
        world.set_sensor_threads(3);
        let ran = std::sync::atomic::AtomicUsize::new(0);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            world.with(|w| {
                w.for_each_chunk((0..20).collect(), |i: usize| {
                    ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    assert_ne!(i, 7, "chunk seven fails");
                });
            })
        }));
        let message = caught.unwrap_err();
        let text = message
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(text.contains("chunk seven fails"), "{text}");
        assert_eq!(ran.into_inner(), 20);
    }
}
