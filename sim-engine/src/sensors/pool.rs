//! The threads sensors are updated on beside the simulation thread.

/// The sensor threads of a simulation run with more than one (`--threads`): a pool of as
/// many workers, on which several sensors due at once are updated side by side (the
/// simulation thread waiting), and a pool of one helper fewer, which shares out the passes of
/// a sensor due alone with the simulation thread that updates it (see `sim_physics`' sensor
/// threads). Each pool's threads sleep while the other works, so the busy threads are never
/// more than the count asked for.
pub struct SensorPool {
    workers: rayon::ThreadPool,
    helpers: rayon::ThreadPool,
}

impl SensorPool {
    /// The pools of `threads` sensor threads (at least 2).
    pub fn new(threads: usize) -> Result<Self, rayon::ThreadPoolBuildError> {
        let threads = threads.max(2);
        Ok(SensorPool {
            workers: rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("simcore-worker-{i}"))
                .build()?,
            helpers: rayon::ThreadPoolBuilder::new()
                .num_threads(threads - 1)
                .thread_name(|i| format!("simcore-helper-{i}"))
                .build()?,
        })
    }

    /// The pool several sensors due at once are updated on, one a worker.
    pub fn workers(&self) -> &rayon::ThreadPool {
        &self.workers
    }

    /// The pool that shares the work of a sensor updated alone with the calling thread.
    pub fn helpers(&self) -> &rayon::ThreadPool {
        &self.helpers
    }
}

impl std::fmt::Debug for SensorPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SensorPool")
            .field("threads", &self.workers.current_num_threads())
            .finish()
    }
}
