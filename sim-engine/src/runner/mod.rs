//! The simulation: builds a world with its plugins, steps it, paces it, and summarises it.
//!
//! One iteration from sim time `t`, in gz-sim's order (its sensor systems update in
//! `PostUpdate`, with the time after the step):
//! 1. systems' `pre_step` hooks run at `t` with the messages delivered to their
//!    subscriptions, and their commands are applied in order;
//! 2. the physics advances one fixed step to `t + dt`;
//! 3. due sensors update in parallel against the read-only state at `t + dt`, stamped
//!    `t + dt`, and their outputs are published in sensor order;
//! 4. systems' `post_step` hooks run against the new state.
//!
//! So when a step returns, every sensor due by its end time has published: a client stepping
//! the world in lockstep finds the samples of the time it stepped to. An N-step run samples
//! sensors at `dt, 2 dt, ..., N dt`; a sensor's first update is at the first step (its next
//! update time starts at 0), then every period: a 10 Hz sensor updates at 1 ms, 100 ms, ...,
//! 1 s in a 1 s run of 1 ms steps, 11 times, as in Gazebo.
//!
//! Loading is a loop over the world's [`Plan`] (every sensor and `<plugin>`, in load order):
//! each entry's factory is resolved, then the plugins are created. Models created at run time
//! (`spawn`) go through the same plan; services (`call_service`) and the pacing of a run
//! ([`Pacer`], [`RunLimit`]) have their own modules, and so do the [`guard`](crate::guard)s plugins run
//! within (a wall-time budget per hook, a size limit per message, rate-limited warnings).
//! A simulation also sets how the process's allocator keeps freed memory (`memory`): sensors
//! allocate their messages every update.

mod control;
mod entity;
mod frames;
mod memory;
mod pacing;
mod plan;
mod reset;
mod sensor_world;
mod served;
mod services;
mod spawn;

pub use crate::guard::Guards;
pub use crate::plugins::PluginProblem;
pub use crate::systems::ServiceError;
pub use control::{ControlError, ResetDone, ResetScope, RunControl, RunState, RunWaker};
pub use entity::{EntityError, EntityState, EntityUpdate, Region, StatePart};
pub use frames::{MovedFrames, sensor_frames};
pub use pacing::{MAX_STEP_WAIT, Pacer, RunLimit, step_period};
pub use plan::{Plan, Planned, PluginPolicy};
pub use served::{Direction, Served, ServedService, ServedTopic};
pub use services::DEFAULT_SERVICE_TIMEOUT;
pub use spawn::{MAX_SPAWN_BYTES, SpawnError};

use crate::plugins::Registry;
use crate::sensors::{ParameterError, SensorFailure, SensorManager, SensorPool, SensorReport};
use crate::systems::{QueuedCommand, Spawner, SystemFailure, SystemManager, SystemReport};
use sim_physics::{BuildError, CommandError, Physics, PhysicsCommand};
use sim_plugin_api::{EntityFactory, EntityId, SimTime};
use sim_transport::Bus;
use sim_world::{Span, World};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Options that shape a simulation (not how long it runs).
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Run seed: every noise stream derives from it and the sensor's scoped name.
    pub seed: u64,
    /// Worker threads for sensor updates (1: on the simulation thread).
    pub threads: usize,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            seed: 0,
            threads: 1,
        }
    }
}

/// Why a simulation could not be built.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The world could not be built in the physics engine.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// Plugins could not be resolved or created (all problems, not just the first).
    #[error("{} plugin problem(s):\n{}", .0.len(), .0.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n"))]
    Plugins(Vec<PluginProblem>),
    /// The worker thread pool could not be started.
    #[error("cannot start {0} worker threads: {1}")]
    Threads(usize, String),
}

/// A plugin disabled while running.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeFailure {
    /// Sim time of the failure.
    pub time: SimTime,
    /// Which plugin.
    pub subject: String,
    /// Where it was declared.
    pub span: Span,
    /// Its error.
    pub error: String,
}

/// A world being simulated.
pub struct Simulation {
    world: World,
    physics: Physics,
    bus: Bus,
    sensors: SensorManager,
    systems: SystemManager,
    registry: Registry,
    pool: Option<SensorPool>,
    failures: Vec<RuntimeFailure>,
    warnings: Vec<String>,
    skipped: Vec<PluginProblem>,
    notices: Vec<PluginProblem>,
    policy: PluginPolicy,
    options: SimOptions,
    next_ticket: u64,
    /// The first entity id after the loaded world's: models from it on were spawned.
    first_spawned: EntityId,
    /// The sensors' and systems' counts up to the last reset, which created them anew.
    before_reset: (Vec<SensorReport>, Vec<SystemReport>),
    control: RunControl,
    alarm: control::Alarm,
}

impl std::fmt::Debug for Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("world", &self.world.name)
            .field("physics", &self.physics)
            .field("sensors", &self.sensors)
            .field("systems", &self.systems)
            .finish()
    }
}

impl Simulation {
    /// Builds `world` with the plugins found in `registry`. Every sensor type and plugin name
    /// is resolved first and all problems are reported together: a sensor or plugin no
    /// library serves is one of them ([`PluginPolicy::Strict`]).
    pub fn new(
        world: World,
        registry: Registry,
        options: &SimOptions,
    ) -> Result<Simulation, LoadError> {
        Simulation::with_policy(world, registry, options, PluginPolicy::Strict)
    }

    /// As [`Simulation::new`], with what no library serves handled by `policy`: under
    /// [`PluginPolicy::Gazebo`] it is skipped ([`Simulation::skipped`]) and the world runs
    /// without it. gz-sim's built-in systems need no library either way (the Sensors system's
    /// `<background_color>` and `<ambient_light>` set the scene's colours), and a world that
    /// names no world system gets server.config's defaults (Physics, UserCommands,
    /// SceneBroadcaster).
    pub fn with_policy(
        world: World,
        registry: Registry,
        options: &SimOptions,
        policy: PluginPolicy,
    ) -> Result<Simulation, LoadError> {
        memory::keep_freed_memory();
        let mut world = world;
        crate::plugins::apply_sensors_system(&mut world);
        let mut bus = Bus::new();
        let reset::Parts {
            physics,
            sensors,
            systems,
            skipped,
            notices,
        } = reset::build(&world, &registry, options, policy, &mut bus)?;
        let first_spawned = physics.next_entity_id();
        let pool = if options.threads > 1 {
            Some(
                SensorPool::new(options.threads)
                    .map_err(|e| LoadError::Threads(options.threads, e.to_string()))?,
            )
        } else {
            None
        };
        let warnings = registry
            .refused()
            .iter()
            .map(|r| format!("plugin library {} refused: {}", r.path.display(), r.reason))
            .collect();
        Ok(Simulation {
            world,
            physics,
            bus,
            sensors,
            systems,
            registry,
            pool,
            failures: Vec::new(),
            warnings,
            skipped,
            notices,
            policy,
            options: options.clone(),
            next_ticket: 1,
            first_spawned,
            before_reset: (Vec::new(), Vec::new()),
            control: RunControl::new(),
            alarm: control::Alarm::new(),
        })
    }

    /// The world as loaded.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The physics state.
    pub fn physics(&self) -> &Physics {
        &self.physics
    }

    /// The topic bus (to subscribe before stepping).
    pub fn bus_mut(&mut self) -> &mut Bus {
        &mut self.bus
    }

    /// The topic bus.
    pub fn bus(&self) -> &Bus {
        &self.bus
    }

    /// The sensor manager.
    pub fn sensors_mut(&mut self) -> &mut SensorManager {
        &mut self.sensors
    }

    /// The sensor manager.
    pub fn sensors(&self) -> &SensorManager {
        &self.sensors
    }

    /// The system plugins.
    pub fn systems(&self) -> &SystemManager {
        &self.systems
    }

    /// Passes a run-time parameter to a sensor's plugin at once (as a system plugin's
    /// `Commands::set_sensor_parameter` does before the next step).
    pub fn set_sensor_parameter(
        &mut self,
        sensor: EntityId,
        key: &str,
        value: &str,
    ) -> Result<(), ParameterError> {
        self.sensors
            .set_parameter(sensor, key, value, &self.physics)
    }

    /// Sets the wall-time budget of plugin hooks and the largest message plugins may
    /// publish (default [`Guards::default`]).
    pub fn set_guards(&mut self, guards: Guards) {
        self.sensors.set_guards(guards);
        self.systems.set_guards(guards);
    }

    /// Applies a physics command at once, through the engine's truth path (a teleport or a
    /// velocity, as a system's command before a step would); rays see its effect at once.
    pub fn apply_physics(&mut self, command: &PhysicsCommand) -> Result<(), CommandError> {
        self.physics.apply(command)
    }

    /// The plugin registry used.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Notes from loading (libraries on the search path that were refused).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The sensors and plugins no library serves, which the world runs without (under
    /// [`PluginPolicy::Gazebo`]; empty otherwise), in load order.
    pub fn skipped(&self) -> &[PluginProblem] {
        &self.skipped
    }

    /// Warnings from loading the world's plugins: deprecated `ignition` names, parameters of
    /// gz-sim's built-in systems that do not apply, services not offered.
    pub fn notices(&self) -> &[PluginProblem] {
        &self.notices
    }

    /// How what no library serves is handled.
    pub fn policy(&self) -> PluginPolicy {
        self.policy
    }

    /// Plugins disabled so far.
    pub fn failures(&self) -> &[RuntimeFailure] {
        &self.failures
    }

    /// Current sim time.
    pub fn time(&self) -> SimTime {
        self.physics.time()
    }

    /// What the front ends encode each topic's messages with beyond their payload: the
    /// update period of the sensor publishing there, one over its `<update_rate>` or the
    /// step for a sensor that updates every step (a LaserScan's `scan_time`). The Zenoh
    /// transport and the recorder both take it from here, so they write the same bytes.
    pub fn topic_options(&self) -> sim_codec::TopicOptions {
        let step = self.physics.step_size().as_secs_f64();
        sim_codec::TopicOptions::with_periods(self.sensors.output_rates(&self.bus).into_iter().map(
            |(topic, rate)| {
                let period = if rate > 0.0 && rate.is_finite() {
                    1.0 / rate
                } else {
                    step
                };
                (topic, period)
            },
        ))
    }

    /// Runs only the sensor pass of an iteration at the current time (for benchmarks and
    /// tools that measure sensors apart from the physics step). Returns the plugins disabled.
    pub fn update_sensors(&mut self) -> &[RuntimeFailure] {
        let before = self.failures.len();
        self.sensor_pass(self.physics.time());
        &self.failures[before..]
    }

    /// Updates the due sensors at `now` and records those disabled.
    fn sensor_pass(&mut self, now: SimTime) {
        let sf = self
            .sensors
            .update(now, &self.physics, &mut self.bus, self.pool.as_ref());
        self.record_sensor_failures(now, sf);
    }

    /// Runs one iteration (see the module docs). Returns the plugins disabled in it.
    pub fn step(&mut self) -> &[RuntimeFailure] {
        let before = self.failures.len();
        let now = self.physics.time();
        let iteration = self.physics.iteration();
        let (commands, yf) = self.with_spawner(|systems, physics, spawner| {
            systems.pre_step(now, iteration, physics, Some(spawner))
        });
        self.record_system_failures(now, yf);
        for (by, c) in commands {
            self.apply_from(Some(by), c, now);
        }
        self.physics.step();
        self.sensor_pass(self.physics.time());
        let yf = self
            .systems
            .post_step(self.physics.iteration(), &self.physics, &mut self.bus);
        self.record_system_failures(self.physics.time(), yf);
        &self.failures[before..]
    }

    /// Runs `f` on the systems with the engine's model factory, which checks creation
    /// requests at once against the current world; its tickets continue the run's count.
    fn with_spawner<R>(
        &mut self,
        f: impl FnOnce(&mut SystemManager, &Physics, &Spawner<'_>) -> R,
    ) -> R {
        let prepare = |r: &EntityFactory, claimed: &HashSet<String>| {
            spawn::prepare_model(
                &self.physics,
                &self.registry,
                &self.world,
                &self.options,
                self.policy,
                r,
                claimed,
            )
            .map_err(|e| e.to_string())
        };
        let spawner = Spawner::new(&prepare, self.next_ticket);
        let out = f(&mut self.systems, &self.physics, &spawner);
        self.next_ticket = spawner.next_ticket();
        out
    }

    fn apply(&mut self, command: QueuedCommand, now: SimTime) {
        self.apply_from(None, command, now)
    }

    /// A warning about a command system `by` issued: through its rate limit when known.
    fn command_warning(&mut self, by: Option<usize>, warning: String) {
        match by {
            Some(by) => self.systems.command_warning(by, &warning),
            None => tracing::warn!("{warning}"),
        }
    }

    /// Applies a command of system `by` (an index of the system manager, None: a service's).
    fn apply_from(&mut self, by: Option<usize>, command: QueuedCommand, now: SimTime) {
        match command {
            QueuedCommand::Physics(c) => {
                if let Err(e) = self.physics.apply(&c) {
                    self.command_warning(by, format!("command {c:?} not applied: {e}"));
                }
            }
            QueuedCommand::Publish(topic, m) => {
                self.systems.publish_command(&topic, m, now, &mut self.bus)
            }
            QueuedCommand::SensorActive(id, active) => {
                if !self.sensors.set_active(id, active) {
                    self.command_warning(
                        by,
                        format!("set_sensor_active: no sensor with id {}", id.0),
                    );
                }
            }
            QueuedCommand::SensorParameter(id, key, value) => {
                if let Err(e) = self.sensors.set_parameter(id, &key, &value, &self.physics) {
                    self.command_warning(by, format!("set_sensor_parameter `{key}`: {e}"));
                }
            }
            QueuedCommand::Joint(j) => {
                if let Err(e) = self.physics.joint_command(&j) {
                    self.command_warning(by, format!("joint command not applied: {e}"));
                }
            }
            QueuedCommand::Spawn(req, ticket) => match self.spawn(&req) {
                Ok(id) => tracing::info!(
                    "spawn request {ticket}: created `{}`",
                    self.physics.scoped_name(id).unwrap_or_default()
                ),
                Err(e) => tracing::error!("spawn request {ticket} failed:\n{e}"),
            },
            QueuedCommand::Create(model, ticket) => match self.build_model(&model) {
                Ok(_) => tracing::info!("create request {ticket}: created `{}`", model.name),
                Err(e) => tracing::error!(
                    "create request {ticket}: `{}` was accepted but could not be built:\n{e}",
                    model.name
                ),
            },
            QueuedCommand::Remove(id) => {
                if let Err(e) = self.remove_model(id) {
                    self.command_warning(by, format!("remove request not applied: {e}"));
                }
            }
        }
    }

    fn record_sensor_failures(&mut self, time: SimTime, f: Vec<SensorFailure>) {
        for f in f {
            tracing::error!(
                "{}: sensor `{}` disabled: {}",
                f.span,
                f.scoped_name,
                f.error
            );
            self.failures.push(RuntimeFailure {
                time,
                subject: format!("sensor {}", f.scoped_name),
                span: f.span,
                error: f.error,
            });
        }
    }

    fn record_system_failures(&mut self, time: SimTime, f: Vec<SystemFailure>) {
        for f in f {
            tracing::error!("{}: plugin {} disabled: {}", f.span, f.name, f.error);
            self.failures.push(RuntimeFailure {
                time,
                subject: format!("plugin {}", f.name),
                span: f.span,
                error: f.error,
            });
        }
    }

    /// The run control: play, pause, steps granted, quit ([`Simulation::run`] obeys it).
    pub fn control(&self) -> &RunControl {
        &self.control
    }

    /// The run control, to change (see [`RunControl`]; a front end on another thread wakes
    /// a paused run with a [`RunWaker`] after it queued a request).
    pub fn control_mut(&mut self) -> &mut RunControl {
        &mut self.control
    }

    /// Wakes this simulation's [`Simulation::run`] while it waits paused (from any thread).
    pub fn waker(&self) -> RunWaker {
        self.alarm.waker()
    }

    /// Runs until `limit`, until `stop` is set or until the run control quits, pacing to
    /// `rtf` (0: as fast as possible). `on_step` runs after every iteration (echo, progress,
    /// the transport). While the run control holds the run paused, the run waits to be
    /// woken ([`Simulation::waker`], or every [`PAUSED_POLL`]); see [`Simulation::run_with`]
    /// for a hook that serves requests then.
    pub fn run(
        &mut self,
        limit: RunLimit,
        rtf: f64,
        stop: &AtomicBool,
        mut on_step: impl FnMut(&mut Simulation),
    ) -> RunSummary {
        self.run_with(limit, rtf, stop, |sim, moment| {
            if moment == Moment::Stepped {
                on_step(sim)
            }
        })
    }

    /// [`Simulation::run`] with a hook told which [`Moment`] it runs at: after a step, or
    /// while the run waits paused (each time it is woken, or every [`PAUSED_POLL`]), where
    /// front ends serve their requests.
    pub fn run_with(
        &mut self,
        limit: RunLimit,
        rtf: f64,
        stop: &AtomicBool,
        mut hook: impl FnMut(&mut Simulation, Moment),
    ) -> RunSummary {
        let start = Instant::now();
        let step = self.physics.step_size();
        let mut pacer = Pacer::new(step, rtf);
        let mut interrupted = false;
        // Counted here, not from the engine's iteration: a reset takes that back to 0.
        let mut done = 0u64;
        loop {
            if limit.reached(done, step) {
                break;
            }
            if stop.load(Ordering::Relaxed) || self.control.quitting() {
                interrupted = true;
                break;
            }
            if !self.control.may_step() {
                self.alarm.wait(PAUSED_POLL);
                hook(self, Moment::Waiting);
                // Paced from where the run resumes.
                pacer = Pacer::new(step, rtf);
                continue;
            }
            self.step();
            self.control.took_step();
            done += 1;
            hook(self, Moment::Stepped);
            pacer.after_step(stop);
        }
        let wall = start.elapsed();
        let sim = SimTime::from_nanos(step.nanos.saturating_mul(done as i64));
        RunSummary {
            steps: done,
            sim_time: sim,
            wall_time: wall,
            interrupted,
            sensors: self.sensor_reports(),
            systems: self.system_reports(),
            failures: self.failures.clone(),
        }
    }

    /// Each sensor's counts since the simulation was built, resets included (a reset creates
    /// every sensor anew: its counts are added to those before; a sensor a reset removed
    /// keeps its report).
    pub fn sensor_reports(&self) -> Vec<SensorReport> {
        let mut now = self.sensors.reports(&self.bus);
        for earlier in &self.before_reset.0 {
            match now
                .iter_mut()
                .find(|r| r.scoped_name == earlier.scoped_name)
            {
                Some(r) => r.add(earlier),
                None => now.push(earlier.clone()),
            }
        }
        now
    }

    /// Each system's counts since the simulation was built, resets included (as
    /// [`Simulation::sensor_reports`]).
    pub fn system_reports(&self) -> Vec<SystemReport> {
        let mut now = self.systems.reports();
        for earlier in &self.before_reset.1 {
            let same = |r: &&mut SystemReport| {
                r.name == earlier.name && r.entity_name == earlier.entity_name
            };
            match now.iter_mut().find(same) {
                Some(r) => r.add(earlier),
                None => now.push(earlier.clone()),
            }
        }
        now
    }

    /// Topics known after loading: those of sensors and systems, and any published so far
    /// ([`Simulation::served`] has them with their kinds, directions and the declared ones).
    pub fn topics(&self) -> Vec<String> {
        let mut v = self.bus.topics();
        v.extend(self.sensors.topics(&self.bus));
        v.sort();
        v.dedup();
        v
    }
}

/// When a [`Simulation::run_with`] hook runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// After a step.
    Stepped,
    /// While the run waits paused.
    Waiting,
}

/// How long a paused [`Simulation::run`] waits for a [`RunWaker`] before it looks at its stop
/// flag (a signal handler that only sets the flag is seen within this).
pub const PAUSED_POLL: Duration = Duration::from_millis(50);

/// What a run did.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// Steps taken.
    pub steps: u64,
    /// Sim time advanced.
    pub sim_time: SimTime,
    /// Wall time taken.
    pub wall_time: Duration,
    /// Whether it was stopped (Ctrl-C) before its limit.
    pub interrupted: bool,
    /// Per sensor.
    pub sensors: Vec<SensorReport>,
    /// Per system plugin.
    pub systems: Vec<SystemReport>,
    /// Plugins disabled.
    pub failures: Vec<RuntimeFailure>,
}

impl RunSummary {
    /// Sim time over wall time.
    pub fn real_time_factor(&self) -> f64 {
        let w = self.wall_time.as_secs_f64();
        if w > 0.0 {
            self.sim_time.as_secs_f64() / w
        } else {
            0.0
        }
    }
}
