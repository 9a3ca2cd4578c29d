//! The sensor manager: schedules sensors by Gazebo's rules, updates the due ones in parallel
//! against the read-only world, and publishes their outputs in sensor order.
//!
//! Per step, for each sensor in load order (gz-sensors `Sensor::Update`, DESIGN §4):
//! 1. triggered mode: the sensor is due only if a message arrived on its trigger topic since
//!    its last update (that counts as a forced update); otherwise it never updates;
//! 2. a sensor with a positive rate that is not yet due, and not forced, is skipped;
//! 3. an inactive sensor is skipped unless forced;
//! 4. after an update due on rate, the next update time advances by whole periods past now.
//!
//! Every output message gets its header from the engine: stamp = sim time of the update,
//! frame_id = the sensor's frame (unless the plugin set one), seq = a counter per sensor and
//! topic from 0. With `<enable_metrics>`, each update also publishes the real and sim update
//! rates on `<topic>/performance_metrics`.
//!
//! A message on a topic nobody subscribes to is counted (its sequence number too) but not
//! delivered: it stays in the sensor's output buffer, marked, and is handed back to the
//! plugin at its next update, which may refill it in place (`Outputs::republish`) instead of
//! allocating a new one; what the plugin does not republish is dropped then. So a sensor
//! nobody listens to allocates nothing per update, and keeps at most one update's messages.
//!
//! With worker threads (`--threads` > 1) the due sensors are updated in parallel on the
//! workers; a single due sensor is updated on the simulation thread itself, which casts its
//! ray batches together with the helpers, one thread fewer ([`SensorPool`]; it starts at
//! once, the idle helpers join as they wake), and so never waits for a sleeping thread to
//! begin; a heavy one has the helpers woken before its update and kept awake through its
//! passes (`awake`).
//!
//! Every update is timed against the [`Guards`] budget, and a message over their size limit
//! is refused (see [`crate::guard`]).
//!
//! A plugin that returns an error or panics is disabled and reported; the simulation and the
//! other sensors carry on. Its object is leaked rather than dropped, so no more of its code
//! runs.
//!
//! The manager reads the world only through [`SensorWorld`] (a view per sensor and the step
//! size), which the engine's physics implements. What the engine settles about a sensor
//! before creating it (topics, frame id, seed, entities) is planned in [`SensorSite::plan`].
//! Every sensor's `<topic>/set_rate` service is answered by [`SensorManager::set_rate`].

mod awake;
mod plan;
mod pool;
mod rate;
mod report;
mod served;
mod timing;
mod world;

pub use plan::{InvalidTopic, SensorSetup, SensorSite, derive_seed, model_sensors};
pub(crate) use plan::{scoped, source_location};
pub use pool::SensorPool;
pub use rate::{RateError, SET_RATE, set_rate_service};
pub use report::SensorReport;
pub use timing::{MAX_RATE_HZ, MIN_RATE_HZ, Schedule};
pub use world::SensorWorld;

use crate::guard::{Guards, HookClock, SizeGate};
use crate::outputs::DeclaredOutput;
use awake::Awake;
use rayon::prelude::*;
use sim_plugin_api::{
    EntityId, Message, Payload, PluginError, RECLAIMABLE_SEQ, SensorBox, SensorMetrics, SharedStr,
    SimTime, UpdateContext,
    abi_stable::std_types::{RBox, RVec},
};
use sim_transport::{Bus, Subscription, TopicId};
use sim_world::Span;
use std::time::{Duration, Instant};

struct OutTopic {
    key: SharedStr,
    topic: TopicId,
    seq: u64,
}

/// One sensor. What a pass reads for every sensor stays inline and small (a few cache
/// lines), so that a pass over thousands of sensors stays in cache; the rest is boxed apart.
struct Slot {
    plugin: Option<SensorBox>,
    schedule: Schedule,
    /// The sensor's own topic (messages published on `""`).
    main: OutTopic,
    last_sim: Option<SimTime>,
    update_count: u64,
    messages: u64,
    /// The scoped name: log records of its plugin and its metrics carry it.
    name: SharedStr,
    frame_id: SharedStr,
    active: bool,
    force_next: bool,
    // Scratch for one step.
    due: bool,
    forced: bool,
    trigger: Option<Box<Subscription>>,
    metrics: Option<Box<Metrics>>,
    /// The output buffer of its updates. Between updates it holds the messages of the last
    /// update that nobody received, marked [`RECLAIMABLE_SEQ`], for the plugin to refill
    /// (see [`sim_plugin_api::Outputs::republish`]).
    out: RVec<Message>,
    /// How many messages at the front of `out` were handed back.
    handed_back: usize,
    cold: Box<Cold>,
}

/// `<enable_metrics>` state of a sensor.
struct Metrics {
    topic: TopicId,
    seq: u64,
    last_wall: Option<Instant>,
}

/// What a sensor keeps off the per-update path.
struct Cold {
    setup: SensorSetup,
    library: Box<str>,
    /// Topics other than the main one the plugin published on.
    topics: Vec<OutTopic>,
    /// The outputs it declared.
    outputs: Vec<DeclaredOutput>,
    errors: u64,
    disabled: Option<String>,
    /// Result of a parallel update, until its outputs are published in sensor order.
    result: Option<(Result<(), PluginError>, Duration)>,
    clock: HookClock,
    size: SizeGate,
    /// How long its last update took.
    last_took: Duration,
}

impl Slot {
    /// Every topic this sensor has published on so far: the main one first.
    fn out_topics(&self) -> impl Iterator<Item = &OutTopic> {
        std::iter::once(&self.main).chain(&self.cold.topics)
    }
}

/// A sensor plugin disabled during a step.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorFailure {
    /// `model::link::sensor`.
    pub scoped_name: String,
    /// Where it was declared.
    pub span: Span,
    /// The plugin's error.
    pub error: String,
}

/// Why a run-time sensor parameter was not set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParameterError {
    /// No sensor has that entity id.
    #[error("no sensor with id {}", .0.0)]
    NoSensor(EntityId),
    /// The sensor was disabled (its scoped name).
    #[error("sensor `{0}` is disabled")]
    Disabled(String),
    /// The plugin refused the parameter (its error).
    #[error("{0}")]
    Refused(String),
}

/// All sensors of a simulation.
#[derive(Default)]
pub struct SensorManager {
    slots: Vec<Slot>,
    guards: Guards,
}

impl std::fmt::Debug for SensorManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SensorManager")
            .field("sensors", &self.slots.len())
            .finish()
    }
}

impl SensorManager {
    /// An empty manager.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the budget and size limit its plugins run within.
    pub fn set_guards(&mut self, guards: Guards) {
        self.guards = guards;
    }

    /// The guards sensor updates run within.
    pub fn guards(&self) -> Guards {
        self.guards
    }

    /// Registers a sensor whose plugin has been created. Subscribes to its trigger topic.
    pub fn add(&mut self, setup: SensorSetup, plugin: SensorBox, library: String, bus: &mut Bus) {
        self.add_declared(setup, plugin, library, bus, Vec::new())
    }

    /// [`SensorManager::add`] for a sensor that declared its outputs while it was created
    /// ([`OutputDeclarations`](crate::outputs::OutputDeclarations)).
    pub fn add_declared(
        &mut self,
        setup: SensorSetup,
        plugin: SensorBox,
        library: String,
        bus: &mut Bus,
        outputs: Vec<DeclaredOutput>,
    ) {
        let trigger = setup
            .triggered
            .then(|| bus.subscribe(&setup.trigger_topic, 64));
        let main = bus.intern(&setup.topic);
        let metrics = setup.enable_metrics.then(|| {
            Box::new(Metrics {
                topic: bus.intern(&format!("{}/performance_metrics", setup.topic)),
                seq: 0,
                last_wall: None,
            })
        });
        self.slots.push(Slot {
            plugin: Some(plugin),
            schedule: Schedule::new(setup.update_rate),
            main: OutTopic {
                key: SharedStr::EMPTY,
                topic: main,
                seq: 0,
            },
            last_sim: None,
            update_count: 0,
            messages: 0,
            name: SharedStr::from(&setup.scoped_name),
            frame_id: SharedStr::from(&setup.frame_id),
            active: setup.active,
            force_next: false,
            due: false,
            forced: false,
            trigger: trigger.map(Box::new),
            metrics,
            out: RVec::new(),
            handed_back: 0,
            cold: Box::new(Cold {
                setup,
                library: library.into_boxed_str(),
                topics: Vec::new(),
                outputs,
                errors: 0,
                disabled: None,
                result: None,
                clock: HookClock::default(),
                size: SizeGate::default(),
                last_took: Duration::ZERO,
            }),
        });
    }

    /// Number of sensors.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are no sensors.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The sensors' setups, in load order.
    pub fn setups(&self) -> impl Iterator<Item = &SensorSetup> {
        self.slots.iter().map(|s| &s.cold.setup)
    }

    fn slot_mut(&mut self, entity: EntityId) -> Option<&mut Slot> {
        self.slots
            .iter_mut()
            .find(|s| s.cold.setup.entity == entity)
    }

    /// Drops the sensors whose entities are in `removed` (their model was removed). Returns
    /// their scoped names.
    pub fn remove(&mut self, removed: &[EntityId]) -> Vec<String> {
        let mut gone = Vec::new();
        self.slots.retain(|s| {
            let keep = !removed.contains(&s.cold.setup.entity);
            if !keep {
                gone.push(s.cold.setup.scoped_name.clone());
            }
            keep
        });
        gone
    }

    /// Pauses or resumes a sensor. Returns false for an unknown sensor.
    pub fn set_active(&mut self, entity: EntityId, active: bool) -> bool {
        self.slot_mut(entity).map(|s| s.active = active).is_some()
    }

    /// Forces an update at the next step, whatever the rate, the active flag and the trigger
    /// (it does not move the next update time).
    pub fn force_update(&mut self, entity: EntityId) -> bool {
        self.slot_mut(entity).map(|s| s.force_next = true).is_some()
    }

    /// Time went backwards: every schedule restarts and plugins are told to reset.
    pub fn reset(&mut self, world: &impl SensorWorld) -> Vec<SensorFailure> {
        let mut failures = Vec::new();
        for s in &mut self.slots {
            s.schedule.reset();
            s.last_sim = None;
            if let Some(m) = s.metrics.as_mut() {
                m.last_wall = None;
            }
            if let Some(p) = s.plugin.as_mut() {
                let r = world.with_view(&s.name, None, |view| p.reset(view).into_result());
                if let Err(e) = r {
                    failures.push(disable(s, e));
                }
            }
        }
        failures
    }

    /// Passes a run-time parameter to a sensor's plugin.
    pub fn set_parameter(
        &mut self,
        entity: EntityId,
        key: &str,
        value: &str,
        world: &impl SensorWorld,
    ) -> Result<(), ParameterError> {
        let s = self
            .slot_mut(entity)
            .ok_or(ParameterError::NoSensor(entity))?;
        let p = s
            .plugin
            .as_mut()
            .ok_or_else(|| ParameterError::Disabled(s.name.to_string()))?;
        world
            .with_view(&s.name, None, |view| {
                p.set_parameter(key.into(), value.into(), view)
                    .into_result()
            })
            .map_err(|e| ParameterError::Refused(e.to_string()))
    }

    /// Updates every due sensor at `now` against `world` (in parallel on `pool` when given)
    /// and publishes their outputs on `bus` in sensor order. Returns the sensors disabled in
    /// this step.
    pub fn update(
        &mut self,
        now: SimTime,
        world: &impl SensorWorld,
        bus: &mut Bus,
        pool: Option<&SensorPool>,
    ) -> Vec<SensorFailure> {
        let step = world.step_size();
        let wall = Instant::now();
        let guards = self.guards;
        let mut failures = Vec::new();
        match pool {
            Some(pool) => {
                // Decide, update in parallel, then publish in sensor order.
                let mut due = 0;
                for s in &mut self.slots {
                    due += prepare(s, now) as usize;
                }
                if due == 0 {
                    return failures;
                }
                if due == 1 {
                    // One sensor: updated on this thread, which starts at once, its ray
                    // batches shared with the helpers as they wake.
                    if let Some(s) = self.slots.iter_mut().find(|s| s.due) {
                        // A heavy sensor (a ray sensor) splits its work with the helpers in
                        // several passes: they are woken now and kept awake until the
                        // update ends, so that each pass finds them running (an idle thread
                        // of a virtual machine may take a millisecond to wake, as long as a
                        // whole scan).
                        let helpers = pool.helpers();
                        let _awake =
                            (s.cold.last_took >= WAKE_POOL_AFTER).then(|| Awake::keep(helpers));
                        let ctx = context(s, now, step);
                        let r = run(
                            s.plugin.as_mut(),
                            &ctx,
                            &s.name,
                            world,
                            Some(helpers),
                            &mut s.out,
                        );
                        finish(s, r, (now, wall), &guards, bus, &mut failures);
                    }
                    return failures;
                }
                pool.workers().install(|| {
                    self.slots.par_iter_mut().filter(|s| s.due).for_each(|s| {
                        let ctx = context(s, now, step);
                        let r = run(s.plugin.as_mut(), &ctx, &s.name, world, None, &mut s.out);
                        s.cold.result = Some(r);
                    })
                });
                for s in self.slots.iter_mut().filter(|s| s.due) {
                    if let Some(r) = s.cold.result.take() {
                        finish(s, r, (now, wall), &guards, bus, &mut failures);
                    }
                }
            }
            None => {
                // One pass: each sensor is touched once while it is in cache.
                for s in &mut self.slots {
                    if prepare(s, now) {
                        let ctx = context(s, now, step);
                        let r = run(s.plugin.as_mut(), &ctx, &s.name, world, None, &mut s.out);
                        finish(s, r, (now, wall), &guards, bus, &mut failures);
                    }
                }
            }
        }
        failures
    }

    /// Per-sensor counters, with drops read from the bus.
    pub fn reports(&self, bus: &Bus) -> Vec<SensorReport> {
        self.slots
            .iter()
            .map(|s| SensorReport {
                scoped_name: s.cold.setup.scoped_name.clone(),
                sensor_type: s.cold.setup.sensor_type.clone(),
                topic: s.cold.setup.topic.clone(),
                library: s.cold.library.to_string(),
                updates: s.update_count,
                messages: s.messages,
                errors: s.cold.errors,
                dropped: s
                    .out_topics()
                    .map(|t| bus.stats_of(t.topic).dropped)
                    .sum::<u64>()
                    + s.metrics
                        .as_ref()
                        .map_or(0, |m| bus.stats_of(m.topic).dropped),
                hook_time: s.cold.clock.total,
                slow_hooks: s.cold.clock.over,
                refused: s.cold.size.refused,
                disabled: s.cold.disabled.clone(),
            })
            .collect()
    }

    /// The library file serving each sensor, in load order.
    pub fn libraries(&self) -> impl Iterator<Item = (&SensorSetup, &str)> {
        self.slots.iter().map(|s| (&s.cold.setup, &*s.cold.library))
    }
}

/// Decides whether a sensor updates at `now` (see the module docs) and marks it.
fn prepare(s: &mut Slot, now: SimTime) -> bool {
    s.due = false;
    if s.plugin.is_none() {
        return false;
    }
    let mut force = std::mem::take(&mut s.force_next);
    if let Some(t) = &s.trigger {
        if t.has_pending() {
            t.drain();
            force = true;
        }
        if !force {
            return false;
        }
    }
    if !force && !s.schedule.is_due(now) {
        return false;
    }
    if !s.active && !force {
        return false;
    }
    s.due = true;
    s.forced = force;
    true
}

/// The timing of a due sensor's update at `now`.
fn context(s: &Slot, now: SimTime, step: SimTime) -> UpdateContext {
    UpdateContext {
        now,
        dt: s.last_sim.map_or(SimTime::ZERO, |l| {
            SimTime::from_nanos((now.nanos - l.nanos).max(0))
        }),
        step,
        update_count: s.update_count,
        forced: s.forced,
    }
}

/// Runs the plugin of a due sensor against the read-only world, its outputs into `out`
/// (after the messages handed back to it); `helpers` as in [`SensorWorld::with_view`].
fn run(
    plugin: Option<&mut SensorBox>,
    ctx: &UpdateContext,
    name: &SharedStr,
    world: &impl SensorWorld,
    helpers: Option<&rayon::ThreadPool>,
    out: &mut RVec<Message>,
) -> (Result<(), PluginError>, Duration) {
    let Some(plugin) = plugin else {
        return (Ok(()), Duration::ZERO);
    };
    let started = Instant::now();
    let r = world.with_view(name, helpers, |view| {
        plugin.update(ctx, view, out).into_result()
    });
    (r, started.elapsed())
}

/// A sensor updated alone whose last update took at least this long has the helpers woken
/// before its update and kept awake through it ([`Awake`]).
const WAKE_POOL_AFTER: Duration = Duration::from_micros(100);

/// Books an update: disables a failed plugin, or advances the schedule and publishes the
/// outputs in the slot's buffer (keeping those nobody received for the next update).
fn finish(
    s: &mut Slot,
    (result, took): (Result<(), PluginError>, Duration),
    (now, wall): (SimTime, Instant),
    guards: &Guards,
    bus: &mut Bus,
    failures: &mut Vec<SensorFailure>,
) {
    let who = format_args!("sensor {}", s.name.as_str());
    s.cold
        .clock
        .book(who, "its update", took, guards.hook_budget);
    s.cold.last_took = took;
    if let Err(e) = result {
        s.out.clear();
        s.handed_back = 0;
        failures.push(disable(s, e));
        return;
    }
    if !s.forced {
        s.schedule.advance(now);
    }
    s.update_count += 1;
    publish_outputs(s, now, guards.max_message_bytes, bus);
    if let Some(m) = s.metrics.as_deref_mut() {
        let metrics = SensorMetrics {
            name: s.name.clone(),
            real_update_rate: m
                .last_wall
                .map_or(0.0, |l| rate(wall.duration_since(l).as_secs_f64())),
            sim_update_rate: s
                .last_sim
                .map_or(0.0, |l| rate((now.nanos - l.nanos) as f64 * 1e-9)),
            nominal_update_rate: s.schedule.rate_hz(),
        };
        let mut msg = Message::new(SharedStr::EMPTY, Payload::SensorMetrics(RBox::new(metrics)));
        msg.header.stamp = now;
        msg.header.frame_id = s.frame_id.clone();
        msg.header.seq = m.seq;
        m.seq += 1;
        m.last_wall = Some(wall);
        bus.publish(m.topic, msg);
    }
    s.last_sim = Some(now);
}

fn rate(dt: f64) -> f64 {
    if dt > 0.0 { 1.0 / dt } else { 0.0 }
}

fn disable(s: &mut Slot, e: PluginError) -> SensorFailure {
    s.cold.errors += 1;
    let error = e.message.to_string();
    s.cold.disabled = Some(error.clone());
    // Leak rather than drop: a plugin that failed may fail again in its destructor, and the
    // library is never unloaded anyway.
    if let Some(p) = s.plugin.take() {
        std::mem::forget(p);
    }
    SensorFailure {
        scoped_name: s.cold.setup.scoped_name.clone(),
        span: s.cold.setup.span.clone(),
        error,
    }
}

/// `Header::seq` of a handed-back message the plugin did not republish (dropped after the
/// update).
const STALE_SEQ: u64 = RECLAIMABLE_SEQ - 1;

/// Publishes the messages of this update in the slot's buffer, each on its resolved topic
/// with its header filled. Those nobody listens to are counted and kept, marked
/// [`RECLAIMABLE_SEQ`], to be handed back to the plugin at its next update; the messages
/// handed back at this one that it did not republish are dropped.
fn publish_outputs(s: &mut Slot, now: SimTime, max_bytes: u64, bus: &mut Bus) {
    let handed_back = s.handed_back;
    let mut kept = 0;
    let out = &mut s.out;
    for (i, m) in out.iter_mut().enumerate() {
        if i < handed_back && m.header.seq == RECLAIMABLE_SEQ {
            m.header.seq = STALE_SEQ;
            continue;
        }
        let bytes = crate::guard::message_bytes(m);
        if bytes > max_bytes {
            let topic = match m.topic == s.main.key {
                true => bus.name(s.main.topic),
                false => m.topic.as_str(),
            };
            let who = format_args!("sensor {}", s.name.as_str());
            s.cold.size.refuse(who, topic, bytes, max_bytes);
            m.header.seq = STALE_SEQ;
            continue;
        }
        let t = if m.topic == s.main.key {
            &mut s.main
        } else {
            out_topic(&mut s.cold, &m.topic, bus)
        };
        let seq = t.seq;
        t.seq += 1;
        let topic = t.topic;
        s.messages += 1;
        if !bus.has_subscribers_of(topic) {
            // Nobody listens: count it and keep it for the plugin to reuse.
            bus.count_unheard(topic);
            m.header.seq = RECLAIMABLE_SEQ;
            kept += 1;
            continue;
        }
        let mut m = std::mem::replace(m, Message::new(SharedStr::EMPTY, Payload::Empty));
        m.header.stamp = now;
        if m.header.frame_id.is_empty() {
            m.header.frame_id = s.frame_id.clone();
        }
        m.header.seq = seq;
        m.topic = SharedStr::EMPTY;
        bus.publish(topic, m);
    }
    if kept == 0 {
        out.clear();
    } else if kept != out.len() {
        out.retain(|m| m.header.seq == RECLAIMABLE_SEQ);
    }
    s.handed_back = kept;
}

/// The topic a sensor's message names (`key`, relative to its own topic unless absolute),
/// interned the first time it is used.
fn out_topic<'a>(cold: &'a mut Cold, key: &SharedStr, bus: &mut Bus) -> &'a mut OutTopic {
    let i = match cold.topics.iter().position(|t| t.key == *key) {
        Some(i) => i,
        None => {
            let resolved = if key.starts_with('/') {
                key.to_string()
            } else {
                format!("{}/{}", cold.setup.topic, key)
            };
            cold.topics.push(OutTopic {
                key: key.clone(),
                topic: bus.intern(&resolved),
                seq: 0,
            });
            cold.topics.len() - 1
        }
    };
    &mut cold.topics[i]
}

#[cfg(test)]
mod manager_tests;
