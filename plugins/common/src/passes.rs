//! A ray sensor's per-ray passes in chunks on the engine's sensor threads.
//!
//! Every per-ray pass of a lidar scan or a camera frame (turning and casting the rays,
//! ranges, shading, encoding, depths, point clouds) runs through [`Passes::run`] on
//! consecutive runs of [`Passes::chunk_len`] rays: one chunk holding the whole scan, run
//! directly on the calling thread, when the engine runs sensors on one thread; else chunks of
//! [`CHUNK_LEN`] (or, for passes whose rays each cost about the same, about four a thread:
//! [`Passes::even_chunk_len`]) that [`WorldRef::for_each_chunk`] shares among the calling
//! thread and the idle sensor workers. Each ray's output depends on that ray's inputs alone, so a scan is the
//! same at every thread count.

use sim_plugin_api::WorldRef;

/// Rays (pixels) per chunk when the engine offers more than one sensor thread.
pub const CHUNK_LEN: usize = 1024;

/// The per-ray passes of one scan or frame in a world (see the [module docs](self)).
#[derive(Copy, Clone)]
pub struct Passes<'a, 'w> {
    world: &'a WorldRef<'w>,
    threads: usize,
}

impl<'a, 'w> Passes<'a, 'w> {
    /// The passes of a scan in `world`, on as many threads as its engine offers (looked up
    /// once, for every pass of the scan).
    pub fn new(world: &'a WorldRef<'w>) -> Self {
        let threads = world.sensor_threads().map_or(1, |t| t.threads());
        Passes {
            world,
            threads: threads.max(1),
        }
    }

    /// The passes of a scan in `world` on the calling thread alone.
    pub fn serial(world: &'a WorldRef<'w>) -> Self {
        Passes { world, threads: 1 }
    }

    /// The world.
    pub fn world(&self) -> &'a WorldRef<'w> {
        self.world
    }

    /// How many threads may share a pass.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The rays per chunk of a pass over `n` rays: `n` (at least 1) on one thread, else
    /// [`CHUNK_LEN`].
    pub fn chunk_len(&self, n: usize) -> usize {
        match self.threads {
            1 => n.max(1),
            _ => CHUNK_LEN,
        }
    }

    /// The rays per chunk of a pass over `n` rays that each cost about the same (encoding,
    /// packing): [`Passes::chunk_len`], but at most about four chunks a thread, since such
    /// chunks are quick and each costs something to hand out (a W2 RGB frame's encoding on
    /// two threads took 270 us in chunks of 1,024 pixels, 190 us in eight).
    pub fn even_chunk_len(&self, n: usize) -> usize {
        self.chunk_len(n).max(n.div_ceil(self.threads * 4))
    }

    /// Calls `f` once on each of `items` (one per chunk): in order on this thread when there
    /// is one thread or one item, else through [`WorldRef::for_each_chunk`].
    pub fn run<T: Send>(&self, items: Vec<T>, f: impl Fn(T) + Sync) {
        if self.threads == 1 || items.len() <= 1 {
            items.into_iter().for_each(f);
        } else {
            self.world.for_each_chunk(items, f);
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
