//! A frame's pixels in chunks on the engine's sensor threads.
//!
//! Every per-pixel pass of a camera (turning and casting the rays, shading, encoding, depths,
//! point clouds) runs through [`Passes::run`] on consecutive runs of [`Passes::chunk_len`]
//! pixels: one chunk holding the whole frame, run directly on the calling thread, when the
//! engine runs sensors on one thread; else chunks of [`CHUNK_PIXELS`] that
//! [`WorldRef::for_each_chunk`] shares among the calling thread and the idle sensor workers.
//! Each pixel's output depends on that pixel's inputs alone, so a frame is the same at every
//! thread count.
//!
//! The engine's [`SensorThreads`](sim_plugin_api::SensorThreads) are looked up once per
//! frame ([`Passes::new`]) and every pass of the frame hands its chunks to them directly, as
//! [`WorldRef::for_each_chunk`] does: each lookup checks the extension's layout (about a
//! million instructions), which is more than a pass over a small frame costs.

use sim_plugin_api::abi_stable::{sabi_trait::TD_Opaque, sabi_types::RRef};
use sim_plugin_api::{ChunkTask, ChunkTask_TO, SensorThreadsRef, WorldRef};
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Mutex;

/// Pixels per chunk when the engine offers more than one sensor thread.
pub const CHUNK_PIXELS: usize = 1024;

/// The per-pixel passes of one frame in a world (see the [module docs](self)).
#[derive(Copy, Clone)]
pub struct Passes<'a, 'w> {
    world: &'a WorldRef<'w>,
    /// The engine's sensor threads, when it offers more than one.
    pool: Option<&'a SensorThreadsRef<'a>>,
    threads: usize,
}

impl<'a, 'w> Passes<'a, 'w> {
    /// The passes of a frame in `world`, on as many threads as its engine offers.
    pub fn new(world: &'a WorldRef<'w>) -> Self {
        let pool = world.sensor_threads().filter(|t| t.threads() > 1);
        Passes {
            world,
            threads: pool.map_or(1, |t| t.threads()),
            pool,
        }
    }

    /// The passes of a frame in `world` on the calling thread alone.
    pub fn serial(world: &'a WorldRef<'w>) -> Self {
        Passes {
            world,
            pool: None,
            threads: 1,
        }
    }

    /// The world.
    pub fn world(&self) -> &'a WorldRef<'w> {
        self.world
    }

    /// How many threads may share a pass.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The pixels per chunk of a pass over `n` pixels: `n` (at least 1) on one thread, else
    /// [`CHUNK_PIXELS`].
    pub fn chunk_len(&self, n: usize) -> usize {
        match self.threads {
            1 => n.max(1),
            _ => CHUNK_PIXELS,
        }
    }

    /// Calls `f` once on each of `items` (one per chunk), as [`WorldRef::for_each_chunk`]
    /// does: in order on this thread when there is one thread or one item, else on the
    /// engine's sensor threads together with this one. Returns when every call returned; a
    /// panic in `f` is raised again here, after the other chunks ran.
    pub fn run<T: Send>(&self, items: Vec<T>, f: impl Fn(T) + Sync) {
        let pool = match self.pool {
            Some(pool) if items.len() > 1 => pool,
            _ => {
                items.into_iter().for_each(f);
                return;
            }
        };
        let count = items.len();
        let task = Task {
            items: items.into_iter().map(|i| Mutex::new(Some(i))).collect(),
            f: &f,
            panic: Mutex::new(None),
        };
        pool.run_chunks(count, ChunkTask_TO::from_ptr(RRef::new(&task), TD_Opaque));
        // Chunks the engine did not run (none, from an engine that keeps its word) run here.
        (0..count).for_each(|i| task.run_chunk(i));
        if let Some(p) = task.panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
            resume_unwind(p);
        }
    }
}

/// The chunks of one [`Passes::run`]: each item taken by the first call for its index, and
/// the first panic of the closure.
struct Task<'f, T, F> {
    items: Vec<Mutex<Option<T>>>,
    f: &'f F,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl<T: Send, F: Fn(T) + Sync> ChunkTask for Task<'_, T, F> {
    fn run_chunk(&self, index: usize) {
        let item = self
            .items
            .get(index)
            .and_then(|slot| slot.lock().unwrap_or_else(|e| e.into_inner()).take());
        let Some(item) = item else { return };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| (self.f)(item))) {
            let mut first = self.panic.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert(p);
        }
    }
}

impl std::fmt::Debug for Passes<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Passes")
            .field("threads", &self.threads)
            .finish()
    }
}
