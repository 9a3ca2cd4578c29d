//! The Rust side of a Python `Simulation`: the engine's [`Simulation`] with the bus tap that
//! keeps each topic's latest message, the background thread of `play()`, and the stepping
//! of several simulations across threads. Nothing here touches Python, so all of it runs
//! with the GIL released.

use sim_engine::runner::{Pacer, RuntimeFailure, Simulation};
use sim_transport::{Envelope, Subscription};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// How many messages one step may publish before the oldest are dropped from the tap (the
/// tap is emptied after every step).
const TAP_CAPACITY: usize = 1 << 14;

/// A simulation and what the Python side reads of it.
pub struct Engine {
    /// The engine.
    pub sim: Simulation,
    /// Every topic's messages, drained after each step into `latest`.
    tap: Subscription,
    /// The latest message of each topic.
    latest: HashMap<Arc<str>, Arc<Envelope>>,
    /// The plugins disabled so far (the engine's list; new ones are reported once).
    failures: Vec<RuntimeFailure>,
    /// Set when a step panicked: the engine's state is unknown and it is not stepped again.
    pub broken: Option<String>,
}

impl Engine {
    /// Wraps a freshly built simulation, listening to every topic from its first step. Its
    /// run control says paused: it steps when asked, or while `play()` runs.
    pub fn new(mut sim: Simulation) -> Engine {
        let tap = sim.bus_mut().tap(TAP_CAPACITY);
        // A new run plays; it cannot be quitting or busy, so this succeeds.
        let _ = sim.control_mut().pause();
        Engine {
            sim,
            tap,
            latest: HashMap::new(),
            failures: Vec::new(),
            broken: None,
        }
    }

    /// Takes `n` steps, keeping each topic's latest message. A panic in the engine is caught
    /// and leaves the engine broken (an error from then on).
    pub fn step(&mut self, n: u64) -> Result<(), String> {
        if let Some(b) = &self.broken {
            return Err(b.clone());
        }
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for _ in 0..n {
                let failed = self.sim.step();
                if !failed.is_empty() {
                    self.failures.extend_from_slice(failed);
                }
                self.collect();
            }
        }));
        run.map_err(|panic| {
            let text = format!(
                "the simulation failed while stepping ({}); it cannot be stepped again",
                crate::errors::panic_text(&panic)
            );
            self.broken = Some(text.clone());
            text
        })
    }

    /// Moves what the tap received into `latest`.
    pub fn collect(&mut self) {
        while let Some(env) = self.tap.try_recv() {
            self.latest.insert(env.topic.clone(), env);
        }
    }

    /// The latest message on `topic`.
    pub fn latest(&self, topic: &str) -> Option<Arc<Envelope>> {
        self.latest.get(topic).cloned()
    }

    /// Forgets every topic's latest message (after a reset: they were the old run's).
    pub fn forget(&mut self) {
        while self.tap.try_recv().is_some() {}
        self.latest.clear();
    }

    /// The plugins disabled so far.
    pub fn failures(&self) -> &[RuntimeFailure] {
        &self.failures
    }
}

/// A simulation shared between Python and the `play()` thread.
pub struct Shared {
    /// The engine; None once closed.
    pub engine: Mutex<Option<Engine>>,
    /// The `play()` thread, while it runs.
    pub player: Mutex<Option<Player>>,
}

/// The background thread of `play()`.
pub struct Player {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Result<(), String>>,
}

/// Locks a mutex, taking it over if a thread panicked while holding it (every engine call
/// catches its panics, so the data is consistent).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Locks `m` from a thread attached to Python: while another thread holds it (stepping with
/// the GIL released), this one waits with the GIL released too, so that Python's other
/// threads run meanwhile.
pub fn lock_attached<'a, T: Send>(py: pyo3::Python<'_>, m: &'a Mutex<T>) -> MutexGuard<'a, T> {
    loop {
        match m.try_lock() {
            Ok(g) => return g,
            Err(std::sync::TryLockError::Poisoned(p)) => return p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => py.detach(|| drop(lock(m))),
        }
    }
}

impl Shared {
    /// A shared simulation.
    pub fn new(engine: Engine) -> Arc<Shared> {
        Arc::new(Shared {
            engine: Mutex::new(Some(engine)),
            player: Mutex::new(None),
        })
    }

    /// Whether `play()`'s thread is running.
    pub fn playing(&self) -> bool {
        lock(&self.player)
            .as_ref()
            .is_some_and(|p| !p.handle.is_finished())
    }

    /// Starts stepping on a thread of its own, paced to `rtf` (0: as fast as possible), until
    /// [`Shared::pause`] (or until the engine's run control stops playing). The engine is locked for one step at a time, so reads go on between
    /// steps.
    pub fn play(self: &Arc<Shared>, rtf: f64) -> Result<(), String> {
        let mut player = lock(&self.player);
        if player.as_ref().is_some_and(|p| !p.handle.is_finished()) {
            return Ok(());
        }
        let step = match lock(&self.engine).as_ref() {
            Some(e) => e.sim.physics().step_size(),
            None => return Err("the simulation is closed".into()),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let (me, flag) = (self.clone(), stop.clone());
        let handle = std::thread::Builder::new()
            .name("simcore-play".into())
            .spawn(move || {
                let mut pacer = Pacer::new(step, rtf);
                while !flag.load(Ordering::Relaxed) {
                    match lock(&me.engine).as_mut() {
                        Some(e) if e.sim.control().may_step() => e.step(1)?,
                        _ => return Ok(()),
                    }
                    pacer.after_step(&flag);
                }
                Ok(())
            })
            .map_err(|e| format!("cannot start the play thread: {e}"))?;
        *player = Some(Player { stop, handle });
        Ok(())
    }

    /// Stops `play()`'s thread and waits for it; returns its error, if it stopped on one.
    pub fn pause(&self) -> Result<(), String> {
        let Some(p) = lock(&self.player).take() else {
            return Ok(());
        };
        p.stop.store(true, Ordering::Relaxed);
        match p.handle.join() {
            Ok(r) => r,
            Err(panic) => Err(crate::errors::panic_text(&panic)),
        }
    }
}

/// Steps each of `engines` `n` times, on up to `threads` threads (each takes every
/// `threads`th engine, in order). Each engine's steps depend on it alone, so the results are
/// the same at any thread count. Returns each engine's error.
pub fn step_all(engines: &[Arc<Shared>], n: u64, threads: usize) -> Vec<Result<(), String>> {
    let threads = threads.clamp(1, engines.len().max(1));
    let one = |s: &Arc<Shared>| match lock(&s.engine).as_mut() {
        Some(e) => e.step(n),
        None => Err("the simulation is closed".into()),
    };
    if threads == 1 {
        return engines.iter().map(one).collect();
    }
    let mut results: Vec<Option<Result<(), String>>> = (0..engines.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    engines
                        .iter()
                        .enumerate()
                        .skip(t)
                        .step_by(threads)
                        .map(|(i, s)| (i, one(s)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for w in workers {
            match w.join() {
                Ok(done) => {
                    for (i, r) in done {
                        results[i] = Some(r);
                    }
                }
                Err(panic) => {
                    let text = crate::errors::panic_text(&panic);
                    for r in results.iter_mut().filter(|r| r.is_none()) {
                        *r = Some(Err(text.clone()));
                    }
                }
            }
        }
    });
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("not stepped".into())))
        .collect()
}
