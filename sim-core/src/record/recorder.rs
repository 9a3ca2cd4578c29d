//! The recorder on the simulation thread: what each step queues for the writer thread.

use super::scene::visual_marker;
use super::writer::{self, Counters, Item, Sink};
use crate::ros::{FrameTransform, Marker};
use crate::runner::Simulation;
use crate::transport::Subscription;
use crossbeam_channel::{Sender, TrySendError, bounded};
use sim_plugin_api::{EntityId, Pose, SimTime};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;

/// The TF frame all model and link poses are given in.
pub const WORLD_FRAME: &str = "world";

/// How often `/clock` is written at most, in sim time (100 Hz).
const CLOCK_PERIOD: SimTime = SimTime::from_nanos(10_000_000);

/// What to record.
#[derive(Clone, Debug, Default)]
pub struct RecordOptions {
    /// The MCAP file to write (replaced if it exists).
    pub path: PathBuf,
    /// The bus topics to record; empty: every topic, those that appear later included.
    pub topics: Vec<String>,
    /// The most items waiting for the writer thread; more are dropped and counted
    /// (0: [`RecordOptions::DEFAULT_QUEUE`]).
    pub queue: usize,
    /// Key-value pairs of the file's `simcore` metadata record (world, seed, version,
    /// plugins).
    pub metadata: BTreeMap<String, String>,
}

impl RecordOptions {
    /// The default queue length.
    pub const DEFAULT_QUEUE: usize = 4096;

    /// Options to record `sim` (loaded from `world_file`, run with `seed`) to `path`: the
    /// metadata names the world file, the seed, simcore's version and the plugin libraries
    /// of the world's sensors and `<plugin>`s.
    pub fn for_run(
        sim: &Simulation,
        world_file: &Path,
        seed: u64,
        path: PathBuf,
        topics: Vec<String>,
    ) -> RecordOptions {
        let mut plugins: Vec<String> = sim
            .sensors()
            .libraries()
            .map(|(_, library)| {
                // A library file's bare name, as `<plugin filename>` gives it.
                let stem = Path::new(library)
                    .file_stem()
                    .map_or(library.to_string(), |s| s.to_string_lossy().into_owned());
                stem.strip_prefix("lib")
                    .map_or(stem.clone(), str::to_string)
            })
            .collect();
        let world = sim.world();
        plugins.extend(world.plugins.iter().map(|p| p.filename.clone()));
        world.visit_models(|_, m| {
            plugins.extend(m.plugins.iter().map(|p| p.filename.clone()));
            for l in &m.links {
                plugins.extend(l.plugins.iter().map(|p| p.filename.clone()));
            }
        });
        plugins.sort();
        plugins.dedup();
        let metadata = BTreeMap::from([
            ("world".to_string(), world_file.display().to_string()),
            ("world_name".to_string(), world.name.clone()),
            ("seed".to_string(), seed.to_string()),
            (
                "simcore_version".to_string(),
                env!("CARGO_PKG_VERSION").to_string(),
            ),
            ("plugins".to_string(), plugins.join(",")),
        ]);
        RecordOptions {
            path,
            topics,
            queue: 0,
            metadata,
        }
    }
}

/// Why a recording could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot record to {}: {reason}", path.display())]
pub struct RecordError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// What a recording wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordSummary {
    /// The file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Messages written.
    pub messages: u64,
    /// Messages lost because the writer could not keep up.
    pub dropped: u64,
    /// Why writing stopped before the end, if it did.
    pub error: Option<String>,
}

impl std::fmt::Display for RecordSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "recorded {}: {} messages, {:.1} MiB, {} dropped",
            self.path.display(),
            self.messages,
            self.bytes as f64 / (1024.0 * 1024.0),
            self.dropped
        )?;
        if let Some(e) = &self.error {
            write!(f, "; incomplete: {e}")?;
        }
        Ok(())
    }
}

/// Records a simulation to an MCAP file: create it before the run, call
/// [`Recorder::after_step`] after every step, and [`Recorder::finish`] at the end.
///
/// Each step it takes the bus messages (every topic through a [`tap`](crate::transport::Bus::tap),
/// or the chosen ones), the model and link poses that moved (`/tf`), the sensor frames
/// (`/tf_static`) and the visuals (`/scene`) when models were added or removed, and `/clock`,
/// and queues them without waiting; a thread encodes and writes them.
pub struct Recorder {
    path: PathBuf,
    queue: Option<Sender<Item>>,
    thread: Option<JoinHandle<writer::Outcome>>,
    counters: Arc<Counters>,
    subs: Vec<Subscription>,
    dropped: u64,
    poses: HashMap<EntityId, Pose>,
    revision: Option<u64>,
    next_clock: SimTime,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("path", &self.path)
            .finish()
    }
}

impl Recorder {
    /// Creates the file (an error says why it cannot be written), subscribes to the bus of
    /// `sim` and starts the writer thread, then records the state before the first step.
    pub fn start(sim: &mut Simulation, options: RecordOptions) -> Result<Recorder, RecordError> {
        let path = options.path.clone();
        let fail = |reason: String| RecordError {
            path: path.clone(),
            reason,
        };
        let mut topics = Vec::new();
        for t in &options.topics {
            topics.push(crate::transport::validate_topic(t).map_err(|e| fail(e.to_string()))?);
        }
        let sink = Sink::create(&path, options.metadata).map_err(fail)?;
        let capacity = if options.queue == 0 {
            RecordOptions::DEFAULT_QUEUE
        } else {
            options.queue
        };
        let subs = if topics.is_empty() {
            vec![sim.bus_mut().tap(capacity)]
        } else {
            topics
                .iter()
                .map(|t| sim.bus_mut().subscribe(t, capacity))
                .collect()
        };
        let (queue, items) = bounded(capacity);
        let counters = Arc::new(Counters::default());
        let thread = {
            let (counters, path) = (counters.clone(), path.clone());
            std::thread::Builder::new()
                .name("simcore-recorder".into())
                .spawn(move || writer::run(sink, items, counters, path))
                .map_err(|e| fail(format!("cannot start the writer thread: {e}")))?
        };
        let mut r = Recorder {
            path,
            queue: Some(queue),
            thread: Some(thread),
            counters,
            subs,
            dropped: 0,
            poses: HashMap::new(),
            revision: None,
            next_clock: SimTime::ZERO,
        };
        r.after_step(sim);
        Ok(r)
    }

    /// Queues what the last step produced (see [`Recorder`]); never waits.
    pub fn after_step(&mut self, sim: &Simulation) {
        let now = sim.time();
        let bus: Vec<_> = self.subs.iter().flat_map(|s| s.drain()).collect();
        for env in bus {
            self.send(Item::Bus(env));
        }
        let physics = sim.physics();
        if self.revision != Some(physics.revision()) {
            self.revision = Some(physics.revision());
            self.poses.clear();
            self.scene(sim, now);
        }
        let mut moved = Vec::new();
        for f in physics.frames() {
            if self.poses.get(&f.id) != Some(&f.pose) {
                self.poses.insert(f.id, f.pose);
                moved.push(FrameTransform {
                    stamp: now,
                    parent: WORLD_FRAME.to_string(),
                    child: f.scoped_name.to_string(),
                    pose: f.pose,
                });
            }
        }
        if !moved.is_empty() {
            self.send(Item::Tf {
                stamp: now,
                latched: false,
                transforms: moved,
            });
        }
        if now >= self.next_clock {
            self.send(Item::Clock(now));
            self.next_clock = SimTime::from_nanos(
                (now.nanos / CLOCK_PERIOD.nanos + 1).saturating_mul(CLOCK_PERIOD.nanos),
            );
        }
    }

    /// Queues the sensor frames (`/tf_static`) and the visuals (`/scene`) of the world now.
    fn scene(&mut self, sim: &Simulation, now: SimTime) {
        let physics = sim.physics();
        let mut statics: Vec<FrameTransform> = Vec::new();
        for s in sim.sensors().setups() {
            let Some(link) = physics.scoped_name(s.link) else {
                continue;
            };
            if s.frame_id == link
                || physics
                    .entity_id(&s.frame_id)
                    .is_some_and(|id| id != s.entity)
                || statics.iter().any(|t| t.child == s.frame_id)
            {
                continue; // a frame /tf already places, or placed once
            }
            statics.push(FrameTransform {
                stamp: now,
                parent: link.to_string(),
                child: s.frame_id.clone(),
                pose: s.pose,
            });
        }
        self.send(Item::Tf {
            stamp: now,
            latched: true,
            transforms: statics,
        });
        let mut markers = vec![Marker::delete_all(now)];
        markers.extend(physics.visuals().filter_map(|v| visual_marker(&v, now)));
        self.send(Item::Scene {
            stamp: now,
            markers,
        });
    }

    fn send(&mut self, item: Item) {
        let Some(q) = &self.queue else { return };
        match q.try_send(item) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => self.dropped += 1,
            Err(TrySendError::Disconnected(_)) => self.queue = None,
        }
    }

    /// Messages written so far, and their bytes (before compression).
    pub fn progress(&self) -> (u64, u64) {
        (
            self.counters.messages.load(Ordering::Relaxed),
            self.counters.bytes.load(Ordering::Relaxed),
        )
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Queues what is left, waits for the writer thread to write the file's summary, and
    /// says what was written.
    pub fn finish(mut self) -> RecordSummary {
        let bus: Vec<_> = self.subs.iter().flat_map(|s| s.drain()).collect();
        for env in bus {
            self.send(Item::Bus(env));
        }
        let lost: u64 = self.subs.iter().map(|s| s.dropped()).sum();
        self.subs.clear();
        self.queue = None;
        let outcome = match self.thread.take().map(|t| t.join()) {
            Some(Ok(o)) => o,
            _ => writer::Outcome {
                error: Some("the writer thread stopped unexpectedly".into()),
            },
        };
        RecordSummary {
            bytes: std::fs::metadata(&self.path).map_or(0, |m| m.len()),
            messages: self.counters.messages.load(Ordering::Relaxed),
            dropped: self.dropped + lost,
            error: outcome.error,
            path: self.path.clone(),
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.queue = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
