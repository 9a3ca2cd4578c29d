//! The simulation: builds a world with its plugins, steps it, paces it, and summarises it.
//!
//! One iteration at sim time `t`:
//! 1. due sensors update in parallel against the read-only state at `t` (the state the
//!    previous step produced), and their outputs are published in sensor order;
//! 2. systems' `pre_step` hooks run with the messages delivered to their subscriptions, and
//!    their commands are applied in order;
//! 3. the physics advances one fixed step to `t + dt`;
//! 4. systems' `post_step` hooks run against the new state.
//!
//! So an N-step run samples sensors at `0, dt, ..., (N-1) dt`, each sample being the state
//! after the step that led to it: a 10 Hz sensor updates exactly 10 times in a 1 s run.

use crate::physics::{BuildError, Physics};
use crate::plugins::{Registry, Resolved};
use crate::sensors::{
    SensorFailure, SensorManager, SensorReport, SensorSetup, derive_seed, source_location,
};
use crate::systems::{
    QueuedCommand, Spawner, SystemFailure, SystemManager, SystemReport, SystemSetup,
};
use crate::transport::{Bus, default_joint_sensor_topic, default_sensor_topic, validate_topic};
use crate::world::{Model, PluginSpec, Span, World};
use sim_plugin_api::{
    EntityId, Message, SimTime, SystemConfig, WorldView_TO,
    abi_stable::{sabi_trait::TD_Opaque, std_types::RStr},
};
use std::collections::HashSet;
use std::sync::Arc;
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

/// One problem found while resolving and creating plugins.
#[derive(Clone, Debug, PartialEq)]
pub struct PluginProblem {
    /// The element that needs the plugin.
    pub span: Span,
    /// What needs it (`sensor model::link::imu (type imu)`).
    pub subject: String,
    /// What is wrong and what to do.
    pub message: String,
}

impl std::fmt::Display for PluginProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.span, self.subject, self.message)
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
    pool: Option<rayon::ThreadPool>,
    failures: Vec<RuntimeFailure>,
    warnings: Vec<String>,
    options: SimOptions,
    next_ticket: u64,
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

struct Pending<'a> {
    sensors: Vec<(SensorSetup, Resolved<'a>)>,
    systems: Vec<(SystemSetup, Resolved<'a>)>,
    problems: Vec<PluginProblem>,
}

impl Simulation {
    /// Builds `world` with the plugins found in `registry`. Every sensor type and plugin name
    /// is resolved first and all problems are reported together.
    pub fn new(
        world: World,
        registry: Registry,
        options: &SimOptions,
    ) -> Result<Simulation, LoadError> {
        let physics = Physics::build(&world)?;
        let mut bus = Bus::new();
        let mut sensors = SensorManager::new();
        let mut systems = SystemManager::new();
        let mut pending = Pending {
            sensors: Vec::new(),
            systems: Vec::new(),
            problems: Vec::new(),
        };
        let world_ns = format!(
            "/world/{}",
            crate::transport::sanitize_topic_part(&world.name)
        );
        for p in &world.plugins {
            resolve_system(
                &registry,
                p,
                EntityId::WORLD,
                &world.name,
                &world_ns,
                options,
                &mut pending,
            );
        }
        for m in &world.models {
            resolve_model(&registry, &physics, &world, m, &[], options, &mut pending);
        }
        let problems = create_plugins(
            pending,
            &world.name,
            &physics,
            &mut bus,
            &mut sensors,
            &mut systems,
        );
        if !problems.is_empty() {
            return Err(LoadError::Plugins(problems));
        }
        let pool = if options.threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(options.threads)
                    .thread_name(|i| format!("simcore-worker-{i}"))
                    .build()
                    .map_err(|e| LoadError::Threads(options.threads, e.to_string()))?,
            )
        } else {
            None
        };
        let warnings = registry
            .refused
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
            options: options.clone(),
            next_ticket: 1,
        })
    }

    /// Creates a model at run time from SDF text or a file (gz-msgs `EntityFactory`): the
    /// model, with its sensors and plugins, is in the world for the next step, and rays see
    /// it at once. Returns the new model's id, or the full diagnostic (SDF errors with file,
    /// line and source; plugin problems) when it cannot be created: nothing is then added.
    ///
    /// The request is checked as [`ModelFactory::create`](sim_plugin_api::ModelFactory::create)
    /// checks it (see [`Simulation::prepare_model`]), then the model is built.
    pub fn spawn(&mut self, request: &sim_plugin_api::EntityFactory) -> Result<EntityId, String> {
        let model = self.prepare_model(request, &HashSet::new())?;
        self.build_model(&model)
    }

    /// Checks a creation request without changing the world, as
    /// [`ModelFactory::create`](sim_plugin_api::ModelFactory::create) does at call time:
    /// reads the SDF text, or the file `sdf_filename` (a relative name is looked up beside
    /// the world file, then in the working directory), at most [`MAX_SPAWN_BYTES`]; parses it;
    /// applies the name override; resolves a clash with an existing model or a name in
    /// `claimed` by renaming to `name_1`, `name_2`, ... when `allow_renaming`, else refuses;
    /// sets the pose (when the request's is not the identity, it replaces the model's own, in
    /// the frame of `relative_to`: empty or `world` for the world, else any entity's scoped
    /// name); and checks that a library serves every sensor and plugin of the model. Returns
    /// the model to build, or the full diagnostic.
    pub fn prepare_model(
        &self,
        request: &sim_plugin_api::EntityFactory,
        claimed: &HashSet<String>,
    ) -> Result<Model, String> {
        prepare_model(
            &self.physics,
            &self.registry,
            &self.world,
            &self.options,
            request,
            claimed,
        )
    }

    /// Builds a model checked by [`Simulation::prepare_model`] with its sensors and plugins.
    /// When a plugin refuses its configuration, the model is taken out again and the
    /// diagnostic returned.
    pub fn build_model(&mut self, model: &Model) -> Result<EntityId, String> {
        let id = self.physics.spawn_model(model).map_err(|e| e.to_string())?;
        let mut pending = Pending {
            sensors: Vec::new(),
            systems: Vec::new(),
            problems: Vec::new(),
        };
        resolve_model(
            &self.registry,
            &self.physics,
            &self.world,
            model,
            &[],
            &self.options,
            &mut pending,
        );
        let problems = create_plugins(
            pending,
            &self.world.name,
            &self.physics,
            &mut self.bus,
            &mut self.sensors,
            &mut self.systems,
        );
        if !problems.is_empty() {
            if let Ok(removed) = self.physics.remove_model(id) {
                self.sensors.remove(&removed);
                self.systems.remove(&removed);
            }
            return Err(problems
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join("\n"));
        }
        Ok(id)
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

    /// Passes a run-time parameter to a sensor's plugin at once (as a system plugin's
    /// `Commands::set_sensor_parameter` does before the next step).
    pub fn set_sensor_parameter(
        &mut self,
        sensor: EntityId,
        key: &str,
        value: &str,
    ) -> Result<(), String> {
        self.sensors
            .set_parameter(sensor, key, value, &self.physics)
    }

    /// The plugin registry used.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Notes from loading (libraries on the search path that were refused).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Plugins disabled so far.
    pub fn failures(&self) -> &[RuntimeFailure] {
        &self.failures
    }

    /// Current sim time.
    pub fn time(&self) -> SimTime {
        self.physics.time()
    }

    /// Runs only the sensor pass of an iteration at the current time (for benchmarks and
    /// tools that measure sensors apart from the physics step). Returns the plugins disabled.
    pub fn update_sensors(&mut self) -> &[RuntimeFailure] {
        let before = self.failures.len();
        let now = self.physics.time();
        let sf = self
            .sensors
            .update(now, &self.physics, &mut self.bus, self.pool.as_ref());
        self.record_sensor_failures(now, sf);
        &self.failures[before..]
    }

    /// Runs one iteration (see the module docs). Returns the plugins disabled in it.
    pub fn step(&mut self) -> &[RuntimeFailure] {
        let before = self.failures.len();
        let now = self.physics.time();
        let sf = self
            .sensors
            .update(now, &self.physics, &mut self.bus, self.pool.as_ref());
        self.record_sensor_failures(now, sf);
        let prepare = |r: &sim_plugin_api::EntityFactory, claimed: &HashSet<String>| {
            prepare_model(
                &self.physics,
                &self.registry,
                &self.world,
                &self.options,
                r,
                claimed,
            )
        };
        let spawner = Spawner::new(&prepare, self.next_ticket);
        let (commands, yf) =
            self.systems
                .pre_step(now, self.physics.iteration(), &self.physics, Some(&spawner));
        self.next_ticket = spawner.next_ticket();
        self.record_system_failures(now, yf);
        for c in commands {
            self.apply(c, now);
        }
        self.physics.step();
        let yf = self
            .systems
            .post_step(self.physics.iteration(), &self.physics, &mut self.bus);
        self.record_system_failures(self.physics.time(), yf);
        &self.failures[before..]
    }

    fn apply(&mut self, command: QueuedCommand, now: SimTime) {
        match command {
            QueuedCommand::Physics(c) => {
                if let Err(e) = self.physics.apply(&c) {
                    tracing::warn!("command {c:?} not applied: {e}");
                }
            }
            QueuedCommand::Publish(topic, m) => {
                self.systems.publish_command(&topic, m, now, &mut self.bus)
            }
            QueuedCommand::SensorActive(id, active) => {
                if !self.sensors.set_active(id, active) {
                    tracing::warn!("set_sensor_active: no sensor with id {}", id.0);
                }
            }
            QueuedCommand::SensorParameter(id, key, value) => {
                if let Err(e) = self.sensors.set_parameter(id, &key, &value, &self.physics) {
                    tracing::warn!("set_sensor_parameter `{key}`: {e}");
                }
            }
            QueuedCommand::Joint(j) => {
                if let Err(e) = self.physics.joint_command(&j) {
                    tracing::warn!("joint command not applied: {e}");
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
            QueuedCommand::Remove(id) => match self.physics.remove_model(id) {
                Ok(removed) => {
                    for name in self.sensors.remove(&removed) {
                        tracing::info!("sensor `{name}` removed with its model");
                    }
                    self.systems.remove(&removed);
                }
                Err(e) => tracing::warn!("remove request not applied: {e}"),
            },
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

    /// Runs until `limit` or until `stop` is set, pacing to `rtf` (0: as fast as possible).
    /// `on_step` runs after every iteration (echo, progress).
    pub fn run(
        &mut self,
        limit: RunLimit,
        rtf: f64,
        stop: &AtomicBool,
        mut on_step: impl FnMut(&mut Simulation),
    ) -> RunSummary {
        let start = Instant::now();
        let steps0 = self.physics.iteration();
        let t0 = self.physics.time();
        let step = self.physics.step_size();
        let period = if rtf > 0.0 {
            Some(Duration::from_secs_f64(step.as_secs_f64() / rtf))
        } else {
            None
        };
        let mut anchor = Instant::now();
        let mut paced_steps: u32 = 0;
        let mut interrupted = false;
        loop {
            let done = self.physics.iteration() - steps0;
            if limit.reached(done, step) {
                break;
            }
            if stop.load(Ordering::Relaxed) {
                interrupted = true;
                break;
            }
            self.step();
            on_step(self);
            if let Some(p) = period {
                paced_steps += 1;
                let target = anchor + p * paced_steps;
                let now = Instant::now();
                if target > now {
                    sleep_until(target);
                } else if now - target > p * 10 {
                    // Falling behind: do not try to catch up (as Gazebo).
                    anchor = now;
                    paced_steps = 0;
                }
            }
        }
        let wall = start.elapsed();
        let sim = SimTime::from_nanos(self.physics.time().nanos - t0.nanos);
        RunSummary {
            steps: self.physics.iteration() - steps0,
            sim_time: sim,
            wall_time: wall,
            interrupted,
            sensors: self.sensors.reports(&self.bus),
            systems: self.systems.reports(),
            failures: self.failures.clone(),
        }
    }

    /// Calls a service offered by a system plugin (see [`SystemManager::call`]) with the
    /// default deadline, [`DEFAULT_SERVICE_TIMEOUT`]; the commands the plugin queues are
    /// applied at once.
    pub fn call_service(&mut self, service: &str, request: &Message) -> Result<Message, String> {
        self.call_service_within(service, request, DEFAULT_SERVICE_TIMEOUT)
    }

    /// [`Simulation::call_service`] with a deadline: a reply that takes longer than `timeout`
    /// (wall time) is dropped and the caller gets a timeout error, as a transport client
    /// that stops waiting at its deadline. Plugins answer on the simulation thread, so the
    /// call itself is not interrupted: what the plugin did (and the commands it queued)
    /// stands; only its reply is discarded.
    pub fn call_service_within(
        &mut self,
        service: &str,
        request: &Message,
        timeout: std::time::Duration,
    ) -> Result<Message, String> {
        let started = std::time::Instant::now();
        let reply = self.call_service_now(service, request);
        let took = started.elapsed();
        if took > timeout {
            return Err(format!(
                "`{service}` did not answer within {:.3} s (it took {:.3} s); its reply was dropped",
                timeout.as_secs_f64(),
                took.as_secs_f64()
            ));
        }
        reply
    }

    fn call_service_now(&mut self, service: &str, request: &Message) -> Result<Message, String> {
        let now = self.physics.time();
        let prepare = |r: &sim_plugin_api::EntityFactory, claimed: &HashSet<String>| {
            prepare_model(
                &self.physics,
                &self.registry,
                &self.world,
                &self.options,
                r,
                claimed,
            )
        };
        let spawner = Spawner::new(&prepare, self.next_ticket);
        let (reply, commands, failure) =
            self.systems
                .call(service, request, &self.physics, Some(&spawner));
        self.next_ticket = spawner.next_ticket();
        if let Some(f) = failure {
            self.record_system_failures(now, vec![f]);
        }
        for c in commands {
            self.apply(c, now);
        }
        reply
    }

    /// Services offered by the system plugins.
    pub fn services(&self) -> Vec<String> {
        self.systems.services()
    }

    /// Topics known after loading: those of sensors and systems, and any published so far.
    pub fn topics(&self) -> Vec<String> {
        let mut v = self.bus.topics();
        v.extend(self.sensors.topics(&self.bus));
        v.sort();
        v.dedup();
        v
    }
}

/// How long [`Simulation::call_service`] waits for a reply (wall time) before it answers with
/// a timeout error.
pub const DEFAULT_SERVICE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The largest model description a spawn request may carry (1 MiB).
pub const MAX_SPAWN_BYTES: usize = 1 << 20;

/// See [`Simulation::prepare_model`].
fn prepare_model(
    physics: &Physics,
    registry: &Registry,
    world: &World,
    options: &SimOptions,
    request: &sim_plugin_api::EntityFactory,
    claimed: &HashSet<String>,
) -> Result<Model, String> {
    let (text, file) = match (request.sdf.is_empty(), request.sdf_filename.is_empty()) {
        (false, _) => (request.sdf.to_string(), None),
        (true, false) => {
            let path = find_model_file(request.sdf_filename.as_str(), world)?;
            let meta = std::fs::metadata(&path)
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            if meta.len() > MAX_SPAWN_BYTES as u64 {
                return Err(format!(
                    "`{}` is {} bytes; model descriptions are limited to {MAX_SPAWN_BYTES} bytes",
                    path.display(),
                    meta.len()
                ));
            }
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            (text, Some(path))
        }
        (true, true) => {
            return Err("the request has neither `sdf` text nor an `sdf_filename`".into());
        }
    };
    if text.len() > MAX_SPAWN_BYTES {
        return Err(format!(
            "the SDF text is {} bytes; model descriptions are limited to {MAX_SPAWN_BYTES} bytes",
            text.len()
        ));
    }
    let mut model =
        crate::sdf::parse_model_str(&text, file.as_deref()).map_err(|e| e.render(None))?;
    if !request.name.is_empty() {
        let name = request.name.as_str();
        if name.contains("::") || name.trim() != name || name == "world" || name.starts_with("__") {
            return Err(format!(
                "model name `{name}` is not allowed: it must not contain `::`, start with `__`, \
                 be `world` or have surrounding spaces"
            ));
        }
        model.name = name.to_string();
    }
    let taken = |n: &str| physics.entity_id(n).is_some() || claimed.contains(n);
    if taken(&model.name) {
        if !request.allow_renaming {
            return Err(format!(
                "a model named `{}` already exists; choose another name or allow renaming",
                model.name
            ));
        }
        let base = model.name.clone();
        let mut k = 1;
        while taken(&format!("{base}_{k}")) {
            k += 1;
        }
        model.name = format!("{base}_{k}");
    }
    let pose = request.pose;
    let finite = [
        pose.position.x,
        pose.position.y,
        pose.position.z,
        pose.orientation.x,
        pose.orientation.y,
        pose.orientation.z,
        pose.orientation.w,
    ]
    .iter()
    .all(|v| v.is_finite());
    if !finite {
        return Err("the request's pose is not finite".into());
    }
    if pose != sim_plugin_api::Pose::IDENTITY || !request.relative_to.is_empty() {
        let frame = match request.relative_to.as_str() {
            "" | "world" => sim_plugin_api::Pose::IDENTITY,
            name => {
                let id = physics
                    .entity_id(name)
                    .ok_or_else(|| format!("relative_to names no entity: `{name}`"))?;
                physics
                    .kinematics_of(id)
                    .map(|k| k.pose)
                    .unwrap_or_default()
            }
        };
        let mut local = pose;
        let q = local.orientation;
        let norm = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
        if norm < 1e-9 {
            return Err("the request's pose has a zero rotation quaternion".into());
        }
        local.orientation = q.normalized();
        model.pose = frame.compose(local);
    }
    let mut pending = Pending {
        sensors: Vec::new(),
        systems: Vec::new(),
        problems: Vec::new(),
    };
    resolve_model(registry, physics, world, &model, &[], options, &mut pending);
    if !pending.problems.is_empty() {
        return Err(pending
            .problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n"));
    }
    Ok(model)
}

/// Finds a model file named in a creation request: absolute as given; relative beside the
/// world file first, then in the working directory; then, as an `<include>` `<uri>` would be
/// (`model://NAME`, a model name or a model directory, through its `model.config`), on the
/// resource search path (`SIMCORE_RESOURCE_PATH`, `GZ_SIM_RESOURCE_PATH`, `SDF_PATH`, the
/// `models/` directories at or above the world file).
fn find_model_file(name: &str, world: &World) -> Result<std::path::PathBuf, String> {
    let path = std::path::Path::new(name);
    if path.is_absolute() && path.is_file() {
        return Ok(path.to_path_buf());
    }
    let world_dir = world.span.file.as_ref().and_then(|f| f.parent());
    let mut tried = Vec::new();
    if !name.contains("://") && !path.is_absolute() {
        if let Some(dir) = world_dir {
            let p = dir.join(path);
            if p.is_file() {
                return Ok(p);
            }
            tried.push(format!("`{}`", p.display()));
        }
        if path.is_file() {
            return Ok(path.to_path_buf());
        }
        tried.push(format!("`{}`", path.display()));
    }
    let resources = crate::sdf::LoadOptions::default().resource_path();
    match resources.resolve(name, world_dir) {
        Ok(found) if found.is_dir() => crate::resources::model_file(&found)
            .map(|m| m.path)
            .map_err(|e| format!("model `{name}`: {e}; {}", e.hint())),
        Ok(found) => Ok(found),
        Err(e) => Err(format!(
            "no model file `{name}`{}: {e}; {}",
            if tried.is_empty() {
                String::new()
            } else {
                format!(" (looked for {})", tried.join(", "))
            },
            e.hint()
        )),
    }
}

/// Creates the resolved plugins and registers them; returns every problem (resolution
/// problems first, then creation errors).
fn create_plugins(
    mut pending: Pending<'_>,
    world_name: &str,
    physics: &Physics,
    bus: &mut Bus,
    sensors: &mut SensorManager,
    systems: &mut SystemManager,
) -> Vec<PluginProblem> {
    let mut problems = std::mem::take(&mut pending.problems);
    for (setup, r) in pending.sensors {
        let config = setup.config(world_name);
        let view = physics.view(&setup.scoped_name);
        let created = (r.library.module.create_sensor())(
            RStr::from_str(&r.factory.name),
            &config,
            WorldView_TO::from_ptr(&view, TD_Opaque),
        );
        match created.into_result() {
            Ok(plugin) => sensors.add(setup, plugin, r.library.file_name.clone(), bus),
            Err(e) => problems.push(PluginProblem {
                span: setup.span.clone(),
                subject: sensor_subject(&setup),
                message: format!("{} (from {})", e.message, r.library.file_name),
            }),
        }
    }
    for (setup, r) in pending.systems {
        let config = SystemConfig {
            name: RStr::from_str(&setup.name),
            filename: RStr::from_str(&setup.filename),
            entity: setup.entity,
            entity_name: RStr::from_str(&setup.entity_name),
            world_name: RStr::from_str(world_name),
            seed: setup.seed,
            sdf: RStr::from_str(&setup.sdf),
            source: source_location(&setup.span),
        };
        let view = physics.view(&setup.name);
        let created = (r.library.module.create_system())(
            RStr::from_str(&r.factory.name),
            &config,
            WorldView_TO::from_ptr(&view, TD_Opaque),
        );
        let subject = format!("plugin `{}` (filename `{}`)", setup.name, setup.filename);
        let span = setup.span.clone();
        match created.into_result() {
            Ok(plugin) => {
                if let Err(message) = systems.add(setup, plugin, r.library.file_name.clone(), bus) {
                    problems.push(PluginProblem {
                        span,
                        subject,
                        message,
                    });
                }
            }
            Err(e) => problems.push(PluginProblem {
                span,
                subject,
                message: format!("{} (from {})", e.message, r.library.file_name),
            }),
        }
    }
    problems
}

fn sleep_until(target: Instant) {
    // Sleep most of the way, then spin for accuracy (as Gazebo's pacing).
    let now = Instant::now();
    if target > now + Duration::from_micros(300) {
        std::thread::sleep(target - now - Duration::from_micros(200));
    }
    while Instant::now() < target {
        std::hint::spin_loop();
    }
}

/// How long to run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunLimit {
    /// A number of steps.
    Steps(u64),
    /// A sim-time duration.
    Duration(SimTime),
    /// Until stopped.
    Forever,
}

impl RunLimit {
    fn reached(&self, done: u64, step: SimTime) -> bool {
        match *self {
            RunLimit::Steps(n) => done >= n,
            RunLimit::Duration(d) => done as i128 * step.nanos as i128 >= d.nanos as i128,
            RunLimit::Forever => false,
        }
    }
}

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

fn sensor_subject(s: &SensorSetup) -> String {
    format!("sensor `{}` (type `{}`)", s.scoped_name, s.sensor_type)
}

fn resolve_system<'a>(
    registry: &'a Registry,
    p: &PluginSpec,
    entity: EntityId,
    entity_name: &str,
    namespace: &str,
    options: &SimOptions,
    pending: &mut Pending<'a>,
) {
    let setup = SystemSetup {
        entity,
        entity_name: entity_name.to_string(),
        name: p.name.clone(),
        filename: p.filename.clone(),
        sdf: p.sdf.clone(),
        span: p.span.clone(),
        seed: derive_seed(options.seed, &format!("{entity_name}::plugin::{}", p.name)),
        namespace: namespace.to_string(),
    };
    match registry.system_factory(&p.filename, &p.name) {
        Ok(r) => pending.systems.push((setup, r)),
        Err(message) => pending.problems.push(PluginProblem {
            span: p.span.clone(),
            subject: format!("plugin `{}` (filename `{}`)", p.name, p.filename),
            message,
        }),
    }
}

fn resolve_model<'a>(
    registry: &'a Registry,
    physics: &Physics,
    world: &World,
    model: &Model,
    parents: &[&str],
    options: &SimOptions,
    pending: &mut Pending<'a>,
) {
    let mut path: Vec<&str> = parents.to_vec();
    path.push(&model.name);
    let scoped_model = path.join("::");
    let model_id = physics.entity_id(&scoped_model).unwrap_or(EntityId::NONE);
    let model_ns = format!(
        "/model/{}",
        path.iter()
            .map(|p| crate::transport::sanitize_topic_part(p))
            .collect::<Vec<_>>()
            .join("/model/")
    );
    // Link sensors, then joint sensors (attached to the joint's child link, posed in it):
    // (sensor, scoped name, link entity, pose in the link, default topic).
    let mut sensors = Vec::new();
    for link in &model.links {
        let scoped_link = format!("{scoped_model}::{}", link.name);
        let link_id = physics.entity_id(&scoped_link).unwrap_or(EntityId::NONE);
        for s in &link.sensors {
            let topic =
                default_sensor_topic(&world.name, &path, &link.name, &s.name, &s.sensor_type);
            let scoped = format!("{scoped_link}::{}", s.name);
            sensors.push((s, scoped, link_id, s.pose, topic));
        }
        for p in &link.plugins {
            resolve_system(
                registry,
                p,
                link_id,
                &scoped_link,
                &model_ns,
                options,
                pending,
            );
        }
    }
    for joint in &model.joints {
        let scoped_child = format!("{scoped_model}::{}", joint.child_link);
        let link_id = physics.entity_id(&scoped_child).unwrap_or(EntityId::NONE);
        for s in &joint.sensors {
            let topic = default_joint_sensor_topic(
                &world.name,
                &path,
                &joint.name,
                &s.name,
                &s.sensor_type,
            );
            let scoped = format!("{scoped_model}::{}::{}", joint.name, s.name);
            sensors.push((s, scoped, link_id, joint.pose.compose(s.pose), topic));
        }
    }
    for (s, scoped, link_id, pose, default_topic) in sensors {
        let entity = physics.entity_id(&scoped).unwrap_or(EntityId::NONE);
        // A user-given topic must be valid; the defaults are built valid.
        let checked = |given: &Option<String>, fix: &str| match given {
            Some(t) => validate_topic(t).map(Some).map_err(|e| PluginProblem {
                span: s.span.clone(),
                subject: format!("sensor `{scoped}` (type `{}`)", s.sensor_type),
                message: format!("{e}; {fix}"),
            }),
            None => Ok(None),
        };
        let topic = match checked(&s.topic, "fix <topic> or remove it to use the default name") {
            Ok(t) => t.unwrap_or(default_topic),
            Err(p) => {
                pending.problems.push(p);
                continue;
            }
        };
        let trigger_topic = match checked(&s.trigger_topic, "fix <trigger_topic>") {
            Ok(t) => t.unwrap_or_else(|| format!("{topic}/trigger")),
            Err(p) => {
                pending.problems.push(p);
                continue;
            }
        };
        let setup = SensorSetup {
            entity,
            link: link_id,
            model: model_id,
            name: s.name.clone(),
            scoped_name: scoped.clone(),
            sensor_type: s.sensor_type.clone(),
            topic,
            frame_id: s.frame_id.clone().unwrap_or_else(|| scoped.clone()),
            update_rate: s.update_rate,
            active: s.active,
            triggered: s.triggered,
            trigger_topic,
            enable_metrics: s.enable_metrics,
            pose,
            sdf: s.sdf.clone(),
            span: s.span.clone(),
            seed: derive_seed(options.seed, &scoped),
        };
        match registry.routed_sensor_factory(&s.sensor_type) {
            Ok(Some(r)) => pending.sensors.push((setup, r)),
            Ok(None) => pending.problems.push(PluginProblem {
                span: s.span.clone(),
                subject: sensor_subject(&setup),
                message: no_sensor_library(registry, &s.sensor_type),
            }),
            Err(message) => pending.problems.push(PluginProblem {
                span: s.span.clone(),
                subject: sensor_subject(&setup),
                message,
            }),
        }
        for p in &s.plugins {
            resolve_system(registry, p, entity, &scoped, &model_ns, options, pending);
        }
    }
    for p in &model.plugins {
        resolve_system(
            registry,
            p,
            model_id,
            &scoped_model,
            &model_ns,
            options,
            pending,
        );
    }
    for nested in &model.models {
        resolve_model(registry, physics, world, nested, &path, options, pending);
    }
}

fn no_sensor_library(registry: &Registry, sensor_type: &str) -> String {
    let served = registry.served_sensor_types();
    let mut m = format!(
        "no plugin library serves sensor type `{sensor_type}`; types served: {}; plugin search path: [{}]",
        if served.is_empty() {
            "none".to_string()
        } else {
            served.join(", ")
        },
        registry.search_path
    );
    if !registry.refused.is_empty() {
        let refused: Vec<String> = registry
            .refused
            .iter()
            .map(|r| format!("{} ({})", r.path.display(), r.reason))
            .collect();
        m.push_str(&format!("; refused libraries: {}", refused.join("; ")));
    }
    m.push_str("; add the directory of the plugin that serves it with --plugin-path or SIMCORE_PLUGIN_PATH");
    m
}

/// Sets `stop` on Ctrl-C (once per process; later calls reuse the first flag).
pub fn install_ctrl_c(stop: Arc<AtomicBool>) {
    let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
}
