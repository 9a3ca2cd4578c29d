//! The sensor threads a plugin's chunks and a large ray batch run on: the calling thread and
//! the simulation's helper threads together (the `simcore.sensor_threads.v1` extension).
//!
//! A sensor is updated either on a worker of a pool (several sensors due at once, each on
//! a worker) or on the simulation thread with a pool of helpers beside it (one sensor due).
//! Work split in chunks runs, in the first case, across the pool through rayon (the other
//! workers take chunks when they are free); in the second, on this thread and every helper
//! together, each taking the next chunk until none is left (this thread starts at once, the
//! helpers as they wake). A ray batch cast from inside a chunk is cast on that chunk's thread:
//! the chunks already share the threads out.
//!
//! The helpers are one thread fewer than the sensor threads, the calling thread being the
//! other: a helper more, woken by rayon for each pass, would only take turns with the others
//! on the same cores. At the end of a pass this thread spins for the helpers' last chunks
//! ([`SPIN_FOR`]) rather than sleep: an idle thread of a virtual machine takes tens of
//! microseconds to wake, more than the last chunk usually takes.

use rayon::prelude::*;
use sim_plugin_api::{ChunkTaskRef, SensorThreads};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long the calling thread spins at the end of a pass for the helpers' last chunks
/// before it waits asleep (a helper that has not woken yet, or a long chunk).
const SPIN_FOR: Duration = Duration::from_micros(200);

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
    /// The idle helpers of the simulation thread, when the plugin is called on it.
    pub(super) helpers: Option<&'p rayon::ThreadPool>,
}

/// The workers of a view without a pool of its own.
pub(super) static NO_POOL: Workers<'static> = Workers { helpers: None };

impl<'p> Workers<'p> {
    /// The threads of a plugin called on the simulation thread while the threads of
    /// `helpers` are idle: the calling thread and those (`None`: the calling thread alone, or
    /// the pool it runs on).
    pub fn new(helpers: Option<&'p rayon::ThreadPool>) -> Self {
        Workers { helpers }
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
            if let Some(helpers) = self.helpers {
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
                let spawned = helpers.current_num_threads().min(count - 1);
                let finished = AtomicUsize::new(0);
                helpers.in_place_scope(|scope| {
                    for _ in 0..spawned {
                        scope.spawn(|_| {
                            work();
                            finished.fetch_add(1, Ordering::Release);
                        });
                    }
                    work();
                    let spinning = Instant::now();
                    while finished.load(Ordering::Acquire) < spawned
                        && spinning.elapsed() < SPIN_FOR
                    {
                        std::hint::spin_loop();
                    }
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
            self.helpers.map_or(1, |p| p.current_num_threads() + 1)
        }
    }

    fn run_chunks(&self, count: usize, task: ChunkTaskRef<'_>) {
        self.share(count, || (), |_, i| as_chunk(|| task.run_chunk(i)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Mutex;

    fn helpers(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// Which threads ran each of `count` chunks shared through `workers`.
    fn threads_of(workers: &Workers<'_>, count: usize) -> Vec<std::thread::ThreadId> {
        let ran = Mutex::new(vec![None; count]);
        workers.share(
            count,
            || (),
            |_, i| {
                // Long enough that every helper finds work.
                std::thread::sleep(Duration::from_micros(200));
                let mut ran = ran.lock().unwrap();
                assert!(ran[i].is_none(), "chunk {i} ran twice");
                ran[i] = Some(std::thread::current().id());
            },
        );
        let ran = ran.into_inner().unwrap();
        ran.into_iter()
            .enumerate()
            .map(|(i, t)| t.unwrap_or_else(|| panic!("chunk {i} did not run")))
            .collect()
    }

    #[test]
    fn the_calling_thread_and_its_helpers_run_each_chunk_once() {
        for n in [1, 2, 3] {
            let pool = helpers(n);
            let workers = Workers::new(Some(&pool));
            assert_eq!(workers.threads(), n + 1);
            for count in [1, 2, 7, 64] {
                let ran = threads_of(&workers, count);
                let distinct: HashSet<_> = ran.iter().collect();
                assert!(
                    distinct.len() <= n + 1,
                    "{count} chunks on {} threads, {n} helpers",
                    distinct.len()
                );
                assert!(
                    ran.contains(&std::thread::current().id()),
                    "the calling thread takes chunks ({count} chunks, {n} helpers)"
                );
                if count == 64 {
                    assert!(distinct.len() > 1, "the helpers take chunks too");
                }
            }
        }
        // Without helpers, the calling thread alone.
        let ran = threads_of(&Workers::new(None), 5);
        assert!(ran.iter().all(|t| *t == std::thread::current().id()));
    }

    #[test]
    fn a_pass_ends_after_a_slow_helpers_last_chunk() {
        // The calling thread's spin gives up after SPIN_FOR; the pass still waits for the
        // helper's chunks, which take longer.
        let pool = helpers(1);
        let workers = Workers::new(Some(&pool));
        let caller = std::thread::current().id();
        let (done, slow) = (AtomicUsize::new(0), AtomicUsize::new(0));
        workers.share(
            64,
            || (),
            |_, _| {
                if std::thread::current().id() == caller {
                    std::thread::sleep(Duration::from_micros(100));
                } else {
                    std::thread::sleep(SPIN_FOR * 5);
                    slow.fetch_add(1, Ordering::Relaxed);
                }
                done.fetch_add(1, Ordering::Relaxed);
            },
        );
        assert_eq!(done.into_inner(), 64, "every chunk done when the pass ends");
        assert!(slow.into_inner() > 0, "the helper took a chunk");
    }
}
