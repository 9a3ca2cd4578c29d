//! The sensor threads a plugin's chunks and a large ray batch run on: the calling thread and
//! the simulation's worker pool together (the `simcore.sensor_threads.v1` extension).
//!
//! A sensor is updated either on a worker of the pool (several sensors due at once, each on
//! a worker) or on the simulation thread while the pool is idle (one sensor due). Work split
//! in chunks runs, in the first case, across the pool through rayon (the other workers take
//! chunks when they are free); in the second, on this thread and every worker together, each
//! taking the next chunk until none is left (this thread starts at once, the workers as they
//! wake). A ray batch cast from inside a chunk is cast on that chunk's thread: the chunks
//! already share the threads out.

use rayon::prelude::*;
use sim_plugin_api::{ChunkTaskRef, SensorThreads};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

thread_local! {
    /// Whether this thread is running a chunk of [`Workers::run_chunks`].
    static IN_CHUNK: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is running a plugin's chunk (its casts stay on this thread).
pub(super) fn in_chunk() -> bool {
    IN_CHUNK.with(Cell::get)
}

/// The threads a view's plugin may share its work with (see the module docs).
#[derive(Clone, Copy, Default)]
pub struct Workers<'p> {
    /// The simulation's pool, when the plugin is called on the simulation thread while the
    /// pool is idle.
    pub(super) pool: Option<&'p rayon::ThreadPool>,
}

/// The workers of a view without a pool of its own.
pub(super) static NO_POOL: Workers<'static> = Workers { pool: None };

impl<'p> Workers<'p> {
    /// The threads of a plugin called on the simulation thread while `pool` is idle (`None`:
    /// the calling thread alone, or the pool it runs on).
    pub fn new(pool: Option<&'p rayon::ThreadPool>) -> Self {
        Workers { pool }
    }

    /// The idle pool this thread may share work with, if it has one with several threads.
    fn idle_pool(&self) -> Option<&'p rayon::ThreadPool> {
        self.pool.filter(|p| p.current_num_threads() > 1)
    }

    /// Calls `f(state, i)` once for every `i` in `0..count`, on the threads of the module
    /// docs, each thread with a `state` of its own made by `init`.
    pub(super) fn share<S>(
        &self,
        count: usize,
        init: impl Fn() -> S + Sync,
        f: impl Fn(&mut S, usize) + Sync,
    ) {
        if count > 1 && !in_chunk() {
            if rayon::current_thread_index().is_some() {
                (0..count).into_par_iter().for_each_init(&init, &f);
                return;
            }
            if let Some(pool) = self.idle_pool() {
                let next = AtomicUsize::new(0);
                let work = || {
                    let mut s = init();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= count {
                            break;
                        }
                        f(&mut s, i);
                    }
                };
                pool.in_place_scope(|scope| {
                    for _ in 1..pool.current_num_threads().min(count) {
                        scope.spawn(|_| work());
                    }
                    work();
                });
                return;
            }
        }
        let mut s = init();
        (0..count).for_each(|i| f(&mut s, i));
    }
}

/// Marks the calling thread as running a chunk while `f` runs.
fn as_chunk(f: impl FnOnce()) {
    let was = IN_CHUNK.with(|c| c.replace(true));
    f();
    IN_CHUNK.with(|c| c.set(was));
}

impl SensorThreads for Workers<'_> {
    fn threads(&self) -> usize {
        if in_chunk() {
            1
        } else if rayon::current_thread_index().is_some() {
            rayon::current_num_threads()
        } else {
            self.idle_pool().map_or(1, |p| p.current_num_threads())
        }
    }

    fn run_chunks(&self, count: usize, task: ChunkTaskRef<'_>) {
        self.share(count, || (), |_, i| as_chunk(|| task.run_chunk(i)));
    }
}
