//! The helper threads kept awake through a sensor's update.
//!
//! A sensor updated alone runs on the simulation thread and shares its passes (a camera's
//! raster, shading and encoding; a lidar's rays) with the helpers chunk by chunk
//! (`sim_physics`' sensor threads). Between passes a helper with nothing to do goes to sleep,
//! and an idle thread of a virtual machine may take a millisecond to wake: long enough for
//! the simulation thread to do a pass alone. [`Awake`] keeps them running instead, for the
//! update's length or until no work has come for [`IDLE`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a helper kept awake waits for work before it sleeps as usual (a sensor that
/// shares nothing, or not yet).
pub(super) const IDLE: Duration = Duration::from_millis(2);

/// The helpers kept awake while a sensor is updated alone on the simulation thread: each
/// thread of the helpers' pool in a task that takes the pool's work as it comes (the chunks
/// of each pass) and between passes spins rather than sleeps, until this is dropped (at the
/// end of the update, a panic included) or no work came for [`IDLE`]. Every helper being
/// busy in its task, rayon wakes none for a pass's work.
pub(super) struct Awake(Arc<AtomicBool>);

impl Awake {
    /// Wakes the threads of `helpers` and keeps them awake.
    pub(super) fn keep(helpers: &rayon::ThreadPool) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        for _ in 0..helpers.current_num_threads() {
            let done = done.clone();
            helpers.spawn(move || {
                let mut idle_since = Instant::now();
                while !done.load(Ordering::Acquire) {
                    if rayon::yield_now() == Some(rayon::Yield::Executed) {
                        idle_since = Instant::now();
                    } else if idle_since.elapsed() > IDLE {
                        return;
                    } else {
                        std::hint::spin_loop();
                    }
                }
            });
        }
        Awake(done)
    }
}

impl Drop for Awake {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// Waits until only `n` holders of `flag` are left (the tasks that held it ended).
    fn holders_fall_to(flag: &Arc<AtomicBool>, n: usize) -> bool {
        let start = Instant::now();
        while Arc::strong_count(flag) > n {
            if start.elapsed() > Duration::from_secs(10) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        true
    }

    #[test]
    fn awake_helpers_take_each_pass_and_are_let_go_at_the_end() {
        let pool = pool(2);
        let awake = Awake::keep(&pool);
        let flag = awake.0.clone();
        assert_eq!(Arc::strong_count(&flag), 4, "two helpers kept awake");
        // Passes shared from this thread, as a sensor's: every chunk of each is run.
        for pass in 0..200 {
            let done = AtomicUsize::new(0);
            pool.in_place_scope(|scope| {
                for _ in 0..2 {
                    scope.spawn(|_| {
                        done.fetch_add(1, Ordering::Relaxed);
                    });
                }
                done.fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(done.into_inner(), 3, "pass {pass}");
        }
        drop(awake);
        assert!(holders_fall_to(&flag, 1), "the helpers were let go");
    }

    #[test]
    fn helpers_given_nothing_to_do_sleep_again() {
        let pool = pool(1);
        let awake = Awake::keep(&pool);
        let flag = awake.0.clone();
        // Not dropped: the helper stops waiting after IDLE without work.
        assert!(holders_fall_to(&flag, 2));
        drop(awake);
    }

    #[test]
    fn a_panicking_update_lets_the_helpers_go() {
        let pool = pool(2);
        let mut flag = None;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let awake = Awake::keep(&pool);
            flag = Some(awake.0.clone());
            pool.in_place_scope(|scope| scope.spawn(|_| ()));
            panic!("a sensor's update");
        }));
        assert!(r.is_err());
        let flag = flag.unwrap();
        assert!(flag.load(Ordering::Acquire), "let go on unwinding");
        assert!(holders_fall_to(&flag, 1));
    }
}
