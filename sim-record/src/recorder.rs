//! The recorder on the simulation thread: what each step queues for the writer thread.

use super::file::FileSink;
use super::live::LiveSink;
use super::live::control::LiveControl;
use super::scene::visual_marker;
use super::writer::{self, Counters, Item};
use crossbeam_channel::{Sender, TrySendError, bounded};
use sim_codec::Marker;
use sim_codec::names::RosNames;
use sim_engine::runner::MovedFrames;
use sim_engine::runner::Simulation;
use sim_plugin_api::SimTime;
use sim_transport::Subscription;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;

pub use sim_codec::WORLD_FRAME;

/// How often `/clock` is written at most, in sim time (100 Hz).
const CLOCK_PERIOD: SimTime = SimTime::from_nanos(10_000_000);

/// How often `/tf_static` and `/scene` are sent again while a live server runs, in sim time,
/// for the clients that connect later (the server keeps no latched messages).
const LIVE_SCENE_PERIOD: SimTime = SimTime::from_nanos(1_000_000_000);

/// What to record.
#[derive(Clone, Debug, Default)]
pub struct RecordOptions {
    /// The MCAP file to write (replaced if it exists); none: only serve live.
    pub path: Option<PathBuf>,
    /// Where to serve the same channels live over the Foxglove WebSocket protocol.
    pub live: Option<SocketAddr>,
    /// What the live clients' queues may hold, all together, in bytes (0:
    /// [`DEFAULT_LIVE_MEMORY`](crate::DEFAULT_LIVE_MEMORY)); past it, a client's largest
    /// channels are not sent to it.
    pub live_memory: u64,
    /// The bus topics to record; empty: every topic, those that appear later included.
    pub topics: Vec<String>,
    /// The most items waiting for the writer thread; more are dropped and counted
    /// (0: [`RecordOptions::DEFAULT_QUEUE`]).
    pub queue: usize,
    /// Key-value pairs of the file's `simcore` metadata record (world, seed, version,
    /// plugins).
    pub metadata: BTreeMap<String, String>,
    /// Whether the live clients may control the run (pause, play, step, reset: the services
    /// `docs/recording.md` lists); otherwise they only view it.
    pub live_control: bool,
    /// The ROS 2 name each topic is written under: the run's remaps, else the rule of
    /// [`sim_codec::names`], as the Zenoh transport names them (so `ros2 bag play` publishes
    /// what a live client saw). A topic remapped to `/tf` replaces the engine's `/tf`.
    pub names: RosNames,
}

impl RecordOptions {
    /// The default queue length.
    pub const DEFAULT_QUEUE: usize = 4096;

    /// Options to record `sim` (loaded from `world_file`, run with `seed`) to `path` and/or
    /// serve it live on `live`: the metadata names the world file, the seed, simcore's version and the plugin libraries
    /// of the world's sensors and `<plugin>`s.
    pub fn for_run(
        sim: &Simulation,
        world_file: &Path,
        seed: u64,
        path: Option<PathBuf>,
        live: Option<SocketAddr>,
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
            live,
            live_memory: 0,
            live_control: false,
            topics,
            queue: 0,
            metadata,
            names: RosNames::default(),
        }
    }
}

/// Why a recording could not start.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file cannot be written.
    #[error("cannot record to {}: {reason}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The live server cannot start.
    #[error("cannot serve Foxglove on {addr}: {reason}")]
    Live {
        /// The address asked for.
        addr: SocketAddr,
        /// Why.
        reason: String,
    },
    /// A topic to record is not a valid topic name.
    #[error("--record-topic: {0}")]
    Topic(String),
    /// The writer thread could not start.
    #[error("cannot start the recording thread: {0}")]
    Thread(String),
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
/// Each step it takes the bus messages (every topic through a [`tap`](sim_transport::Bus::tap),
/// or the chosen ones), the model and link poses that moved (`/tf`), the sensor frames
/// (`/tf_static`) and the visuals (`/scene`) when models were added or removed, and `/clock`,
/// and queues them without waiting; a thread encodes and writes them.
pub struct Recorder {
    path: Option<PathBuf>,
    live_port: Option<u16>,
    queue: Option<Sender<Item>>,
    thread: Option<JoinHandle<writer::Outcome>>,
    counters: Arc<Counters>,
    subs: Vec<Subscription>,
    dropped: u64,
    poses: MovedFrames,
    /// Whether the engine's `/tf` is written (no world topic is remapped there).
    engine_tf: bool,
    revision: Option<u64>,
    next_clock: SimTime,
    next_live_scene: SimTime,
    /// The run control the live clients call, when they may.
    control: Option<LiveControl>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("path", &self.path)
            .finish()
    }
}

impl Recorder {
    /// Creates the file and starts the live server (an error says why either cannot be),
    /// subscribes to the bus of `sim` and starts the writer thread, then records the state
    /// before the first step.
    pub fn start(sim: &mut Simulation, options: RecordOptions) -> Result<Recorder, RecordError> {
        let mut topics = Vec::new();
        for t in &options.topics {
            topics.push(
                sim_transport::validate_topic(t).map_err(|e| RecordError::Topic(e.to_string()))?,
            );
        }
        let path = options.path.clone();
        let file =
            match &path {
                Some(p) => Some(FileSink::create(p, options.metadata).map_err(|reason| {
                    RecordError::File {
                        path: p.clone(),
                        reason,
                    }
                })?),
                None => None,
            };
        let (control, services) = match (options.live, options.live_control) {
            (Some(_), true) => {
                let (control, services) = LiveControl::new(sim.waker());
                (Some(control), services)
            }
            _ => (None, Vec::new()),
        };
        let live = match options.live {
            Some(addr) => Some(
                LiveSink::start(addr, options.live_memory, services)
                    .map_err(|reason| RecordError::Live { addr, reason })?,
            ),
            None => None,
        };
        let live_port = live.as_ref().map(LiveSink::port);
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
        let engine_tf = !options.names.is_remapped_to("/tf");
        let thread = {
            let counters = counters.clone();
            let encoding = (options.names, sim.topic_options());
            std::thread::Builder::new()
                .name("simcore-recorder".into())
                .spawn(move || writer::run(file, live, items, counters, encoding))
                .map_err(|e| RecordError::Thread(e.to_string()))?
        };
        let mut r = Recorder {
            path,
            live_port,
            queue: Some(queue),
            thread: Some(thread),
            counters,
            subs,
            dropped: 0,
            poses: MovedFrames::default(),
            engine_tf,
            revision: None,
            next_clock: SimTime::ZERO,
            next_live_scene: LIVE_SCENE_PERIOD,
            control,
        };
        r.after_step(sim);
        Ok(r)
    }

    /// Answers the live clients' run-control calls (see [`RecordOptions::live_control`]): to
    /// be called on the run's thread after each step and whenever the run is woken while it
    /// waits paused (the calls wake it, [`Simulation::waker`]). Nothing without
    /// `live_control`.
    pub fn serve(&mut self, sim: &mut Simulation) {
        if let Some(c) = &mut self.control {
            c.serve(sim);
        }
    }

    /// Queues what the last step produced (see [`Recorder`]); never waits. The frames of the
    /// time reached go first, then the messages the step published: its sensors sampled that
    /// time, and a reader resolving their frames in log order finds the transforms of it.
    pub fn after_step(&mut self, sim: &Simulation) {
        let now = sim.time();
        let physics = sim.physics();
        if self.revision != Some(physics.revision()) {
            self.revision = Some(physics.revision());
            self.scene(sim, now);
        } else if self.live_port.is_some() && now >= self.next_live_scene {
            self.next_live_scene = SimTime::from_nanos(now.nanos + LIVE_SCENE_PERIOD.nanos);
            self.scene(sim, now);
        }
        if self.engine_tf {
            let moved = self.poses.moved(physics, now);
            if !moved.is_empty() {
                self.send(Item::Moved(moved));
            }
        }
        if now >= self.next_clock {
            self.send(Item::Clock(now));
            self.next_clock = SimTime::from_nanos(
                (now.nanos / CLOCK_PERIOD.nanos + 1).saturating_mul(CLOCK_PERIOD.nanos),
            );
        }
        let bus: Vec<_> = self.subs.iter().flat_map(|s| s.drain()).collect();
        for env in bus {
            self.send(Item::Bus(env));
        }
    }

    /// Queues the sensor frames (`/tf_static`) and the visuals (`/scene`) of the world now.
    fn scene(&mut self, sim: &Simulation, now: SimTime) {
        let statics = sim_engine::runner::sensor_frames(sim, now);
        self.send(Item::Tf {
            stamp: now,
            latched: true,
            transforms: statics,
        });
        let mut markers = vec![Marker::delete_all(now)];
        markers.extend(
            sim.physics()
                .visuals()
                .filter_map(|v| visual_marker(sim.physics(), &v, now)),
        );
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
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The port the live server listens on.
    pub fn live_port(&self) -> Option<u16> {
        self.live_port
    }

    /// Queues what is left, waits for the writer thread to write the file's summary (and
    /// to stop the live server), and says what was written to the file.
    pub fn finish(mut self) -> Option<RecordSummary> {
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
        let path = self.path.clone()?;
        Some(RecordSummary {
            bytes: std::fs::metadata(&path).map_or(0, |m| m.len()),
            messages: self.counters.messages.load(Ordering::Relaxed),
            dropped: self.dropped + lost,
            error: outcome.error,
            path,
        })
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
