//! System (world and model) plugins: their hooks around the physics step and the queue of
//! commands they issue.
//!
//! Per step, in load order: each system's `pre_step` receives the messages that arrived on
//! its subscriptions since the previous step and queues commands; the engine then applies all
//! commands in order (plugin order, then issue order) and steps the physics; then each
//! system's `post_step` reads the new state and publishes. A system that errors or panics is
//! disabled and reported, and so is one that publishes on an empty or invalid topic.
//!
//! Every hook is timed against the [`Guards`] budget and every message checked against
//! their size limit (see [`crate::guard`]).

mod commands;
mod declared;
mod inputs;
mod report;
mod runtime_joints;
mod setup;

pub use commands::{CommandQueue, PrepareModel, QueuedCommand, Spawner, resolve_topic};
pub use declared::{DeclaredInput, InputDeclarations, MAX_DECLARED_TOPIC_BYTES};
pub use inputs::{InputType, declarable, kind_type};
pub use report::SystemReport;
pub use runtime_joints::JointRequests;
pub use setup::SystemSetup;

use crate::guard::{Guards, HookClock, SizeGate, Throttle, held_note};
use crate::outputs::{DeclaredOutput, Direction, ServedService, ServedTopic};
use sim_physics::Physics;
use sim_plugin_api::{
    EntityId, Message, ModelFactory_TO, PluginError, RuntimeJoints_TO, SharedStr, SimTime,
    StepContext, SystemBox, WorldView_TO,
    abi_stable::{sabi_trait::TD_Opaque, std_types::RVec},
};
use sim_transport::{Bus, Subscription, TopicId, validate_topic};
use sim_world::Span;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Why a service call got no reply.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ServiceError {
    /// No plugin offers the service.
    #[error("no service `{service}` (services: {known})")]
    Unknown {
        /// The service called.
        service: String,
        /// The services offered, comma-separated (`none`).
        known: String,
    },
    /// The plugin offering it was disabled.
    #[error("the plugin serving `{0}` is disabled")]
    Disabled(String),
    /// The plugin answered with an error (its message).
    #[error("{0}")]
    Failed(String),
    /// The reply came after the caller's deadline and was dropped.
    #[error(
        "`{service}` did not answer within {:.3} s (it took {:.3} s); its reply was dropped",
        timeout.as_secs_f64(),
        took.as_secs_f64()
    )]
    Timeout {
        /// The service called.
        service: String,
        /// The deadline.
        timeout: std::time::Duration,
        /// How long the plugin took.
        took: std::time::Duration,
    },
}

/// Why a created system could not be registered.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AddError {
    /// A service or subscription topic it asks for is invalid.
    #[error(transparent)]
    Topic(#[from] sim_transport::TopicError),
    /// Another plugin already offers one of its services.
    #[error("service `{service}` is already provided by plugin `{plugin}` on {entity}")]
    ServiceTaken {
        /// The service.
        service: String,
        /// The plugin offering it.
        plugin: String,
        /// That plugin's entity.
        entity: String,
    },
}

/// A system plugin disabled during a step.
#[derive(Clone, Debug, PartialEq)]
pub struct SystemFailure {
    /// `<plugin name>` and its entity.
    pub name: String,
    /// Where it was declared.
    pub span: Span,
    /// The plugin's error.
    pub error: String,
}

struct Slot {
    setup: SystemSetup,
    plugin: Option<SystemBox>,
    subscriptions: Vec<Subscription>,
    /// The topics of [`SystemSetup::post_step_serves`], resolved and interned.
    serves: Vec<TopicId>,
    /// The type it declared for each subscription (by index).
    declared: Vec<Option<InputType>>,
    /// The outputs it declared.
    outputs: Vec<DeclaredOutput>,
    seq: HashMap<TopicId, u64>,
    report: SystemReport,
    out: RVec<Message>,
    /// `plugin NAME (on ENTITY)`, as warnings name it.
    who: String,
    clock: HookClock,
    size: SizeGate,
    /// Warnings about its commands.
    command_warnings: Throttle,
}

impl Slot {
    fn book(&mut self, hook: &str, started: Instant, budget: Duration) {
        self.clock.book(&self.who, hook, started.elapsed(), budget);
    }

    /// Checks what a hook published or queued for publication: an empty or invalid topic is
    /// an error (the plugin is disabled), a message over the size limit is dropped.
    fn screen(
        &mut self,
        topic: &str,
        written: &str,
        m: &Message,
        max: u64,
    ) -> Result<bool, String> {
        if let Err(e) = validate_topic(topic) {
            return Err(format!(
                "it published on the topic `{written}`, which is {}: {e}",
                if written.is_empty() {
                    "empty".to_string()
                } else {
                    format!("`{topic}` in its namespace")
                }
            ));
        }
        Ok(self.size.pass(&self.who, topic, m, max))
    }
}

/// The timing the hooks of the system `setup` get at `now`, after `iteration` steps.
fn step_context(
    setup: &SystemSetup,
    now: SimTime,
    physics: &Physics,
    iteration: u64,
) -> StepContext {
    StepContext {
        now,
        step: physics.step_size(),
        iteration,
        entity: setup.entity,
    }
}

/// All system plugins of a simulation.
#[derive(Default)]
pub struct SystemManager {
    slots: Vec<Slot>,
    services: HashMap<String, usize>,
    command_seq: HashMap<TopicId, u64>,
    guards: Guards,
}

impl std::fmt::Debug for SystemManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SystemManager")
            .field("systems", &self.slots.len())
            .finish()
    }
}

impl SystemManager {
    /// An empty manager.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the budget and size limit its plugins run within.
    pub fn set_guards(&mut self, guards: Guards) {
        self.guards = guards;
    }

    /// Warns about a command system `by` (an index in [`SystemManager::pre_step`]'s output)
    /// issued that could not be applied: naming the plugin, at most once per
    /// [`WARNING_INTERVAL`](crate::guard::WARNING_INTERVAL) for it.
    pub fn command_warning(&mut self, by: usize, warning: &str) {
        if let Some(s) = self.slots.get_mut(by)
            && let Some(held) = s.command_warnings.allow()
        {
            tracing::warn!("{}: {warning}{}", s.who, held_note(held));
        }
    }

    /// Registers a created system and subscribes to the topics it asks for. An invalid topic
    /// name is an error.
    pub fn add(
        &mut self,
        setup: SystemSetup,
        plugin: SystemBox,
        library: String,
        bus: &mut Bus,
    ) -> Result<(), AddError> {
        self.add_declared(setup, plugin, library, bus, Vec::new(), Vec::new())
    }

    /// [`SystemManager::add`] for a system that declared the types of its inputs and its
    /// outputs while it was created ([`InputDeclarations`], [`OutputDeclarations`]). An input
    /// declaration for a topic it does not subscribe to is dropped with a warning naming the
    /// plugin and the topic.
    ///
    /// [`OutputDeclarations`]: crate::outputs::OutputDeclarations
    pub fn add_declared(
        &mut self,
        setup: SystemSetup,
        plugin: SystemBox,
        library: String,
        bus: &mut Bus,
        inputs: Vec<DeclaredInput>,
        outputs: Vec<DeclaredOutput>,
    ) -> Result<(), AddError> {
        let mut services = Vec::new();
        for name in plugin.services() {
            let name = validate_topic(&resolve_topic(&setup.namespace, &name))?;
            if let Some(&other) = self.services.get(&name) {
                return Err(AddError::ServiceTaken {
                    service: name,
                    plugin: self.slots[other].setup.name.clone(),
                    entity: self.slots[other].setup.entity_name.clone(),
                });
            }
            services.push(name);
        }
        let mut topics = Vec::new();
        for t in plugin.subscriptions() {
            topics.push(validate_topic(&resolve_topic(&setup.namespace, &t))?);
        }
        let who = setup.who();
        let mut declared = vec![None; topics.len()];
        for d in inputs {
            let Some(i) = topics.iter().position(|t| *t == d.topic) else {
                tracing::warn!(
                    "{who}: declared the input type {} for `{}`, which it does not subscribe \
                     to (its subscriptions: {}); the declaration is ignored",
                    d.ty.message,
                    d.topic,
                    if topics.is_empty() {
                        "none".to_string()
                    } else {
                        topics.join(", ")
                    }
                );
                continue;
            };
            declared[i] = Some(d.ty);
        }
        let subscriptions = topics.iter().map(|t| bus.subscribe(t, 1024)).collect();
        // Interned now, so that the topics are listed (and a transport can subscribe to
        // them) before the hook ever publishes.
        let mut serves = Vec::new();
        for t in &setup.post_step_serves {
            serves.push(bus.intern(&validate_topic(&resolve_topic(&setup.namespace, t))?));
        }
        let report = SystemReport {
            name: setup.name.clone(),
            entity_name: setup.entity_name.clone(),
            library,
            ..Default::default()
        };
        for name in services {
            self.services.insert(name, self.slots.len());
        }
        self.slots.push(Slot {
            who,
            setup,
            plugin: Some(plugin),
            subscriptions,
            serves,
            declared,
            outputs,
            seq: HashMap::new(),
            report,
            out: RVec::new(),
            clock: HookClock::default(),
            size: SizeGate::default(),
            command_warnings: Throttle::default(),
        });
        Ok(())
    }

    /// Disables the systems attached to entities in `removed` (their model was removed) and
    /// withdraws their services. Their objects are dropped.
    pub fn remove(&mut self, removed: &[EntityId]) {
        for (i, s) in self.slots.iter_mut().enumerate() {
            if removed.contains(&s.setup.entity) && s.plugin.take().is_some() {
                s.report.disabled = Some("its model was removed".into());
                self.services.retain(|_, v| *v != i);
                s.subscriptions.clear();
            }
        }
    }

    /// Every service offered, sorted.
    pub fn services(&self) -> Vec<String> {
        let mut v: Vec<String> = self.services.keys().cloned().collect();
        v.sort();
        v
    }

    /// The services offered, each with its plugin.
    pub fn served_services(&self) -> Vec<ServedService> {
        self.services
            .iter()
            .map(|(name, &i)| ServedService {
                name: name.clone(),
                by: self.slots[i].who.clone(),
            })
            .collect()
    }

    /// The topics the active systems serve (see [`crate::runner::Served`]): each one's
    /// subscriptions (listened to, typed as [`SystemManager::input_types`] types them), the
    /// outputs it declared, and the other topics it published on so far.
    pub fn served_topics(&self, bus: &Bus, out: &mut Vec<ServedTopic>) {
        for s in self.slots.iter().filter(|s| s.plugin.is_some()) {
            let row = |topic: &str, direction, kind| ServedTopic {
                topic: topic.to_string(),
                direction,
                kind,
                by: s.who.clone(),
            };
            for (i, sub) in s.subscriptions.iter().enumerate() {
                let ty = s.declared[i];
                out.push(row(sub.topic(), Direction::In, ty.map(|t| t.message)));
            }
            for o in &s.outputs {
                out.push(row(&o.topic, Direction::Out, Some(o.kind)));
            }
            for &t in s.seq.keys() {
                let name = bus.name(t);
                if !s.outputs.iter().any(|o| o.topic == name) {
                    out.push(row(name, Direction::Out, None));
                }
            }
        }
    }

    /// Calls a service: the plugin that offers it answers `request` against the current
    /// state and may queue commands (returned for the caller to apply). A plugin error is the
    /// reply's error; a panic also disables the plugin.
    pub fn call(
        &mut self,
        service: &str,
        request: &Message,
        physics: &Physics,
        spawner: Option<&Spawner<'_>>,
    ) -> (
        Result<Message, ServiceError>,
        Vec<QueuedCommand>,
        Option<SystemFailure>,
    ) {
        let Some(&i) = self.services.get(service) else {
            let known = self.services();
            let known = if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            };
            return (
                Err(ServiceError::Unknown {
                    service: service.to_string(),
                    known,
                }),
                Vec::new(),
                None,
            );
        };
        let s = &mut self.slots[i];
        let Some(plugin) = s.plugin.as_mut() else {
            return (
                Err(ServiceError::Disabled(service.to_string())),
                Vec::new(),
                None,
            );
        };
        let view = physics.view(&s.setup.name);
        let factory = spawner.map(|sp| ModelFactory_TO::from_ptr(sp, TD_Opaque));
        let mut queue = CommandQueue::with_factory(&s.setup.namespace, factory.as_ref());
        let started = Instant::now();
        let r = queue
            .with(|cmds| {
                plugin.call(
                    service.into(),
                    request,
                    WorldView_TO::from_ptr(&view, TD_Opaque),
                    cmds,
                )
            })
            .into_result();
        s.book(
            &format!("the call of `{service}`"),
            started,
            self.guards.hook_budget,
        );
        match r {
            Ok(reply) => {
                let mut commands = queue.commands;
                commands.extend(spawner.map(|sp| sp.take_accepted()).unwrap_or_default());
                s.report.commands += commands.len() as u64;
                (Ok(reply), commands, None)
            }
            Err(e) if e.code == sim_plugin_api::ErrorCode::PANIC => {
                let f = disable(s, e);
                self.services.retain(|_, v| *v != i);
                (
                    Err(ServiceError::Failed(f.error.clone())),
                    Vec::new(),
                    Some(f),
                )
            }
            Err(e) => (
                Err(ServiceError::Failed(e.message.to_string())),
                Vec::new(),
                None,
            ),
        }
    }

    /// Number of systems.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Runs every system's `pre_step` and returns the commands they queued, in order, each
    /// with the index of the system that issued it (for [`SystemManager::command_warning`]).
    pub fn pre_step(
        &mut self,
        now: SimTime,
        iteration: u64,
        physics: &Physics,
        spawner: Option<&Spawner<'_>>,
    ) -> (Vec<(usize, QueuedCommand)>, Vec<SystemFailure>) {
        let mut all = Vec::new();
        let mut failures = Vec::new();
        let guards = self.guards;
        let requests = JointRequests::default();
        let joints = RuntimeJoints_TO::from_ptr(&requests, TD_Opaque);
        for (i, s) in self.slots.iter_mut().enumerate() {
            let Some(plugin) = s.plugin.as_mut() else {
                continue;
            };
            let mut inbox: Vec<Message> = Vec::new();
            for sub in &s.subscriptions {
                for env in sub.drain() {
                    let mut m = env.message.clone();
                    m.topic = SharedStr::from(&*env.topic);
                    inbox.push(m);
                }
            }
            let ctx = step_context(&s.setup, now, physics, iteration);
            let view = physics.view(&s.setup.name);
            let factory = spawner.map(|sp| ModelFactory_TO::from_ptr(sp, TD_Opaque));
            let mut queue = CommandQueue::with_factory(&s.setup.namespace, factory.as_ref())
                .with_joints(Some(&joints));
            let started = Instant::now();
            let r = queue
                .with(|cmds| {
                    plugin.pre_step(
                        &ctx,
                        inbox.as_slice().into(),
                        WorldView_TO::from_ptr(&view, TD_Opaque),
                        cmds,
                    )
                })
                .into_result();
            s.book("pre_step", started, guards.hook_budget);
            let r = r.map_err(|e| e.message.to_string()).and_then(|()| {
                let mut kept = Vec::with_capacity(queue.commands.len());
                for c in queue.commands {
                    if let QueuedCommand::Publish(topic, m) = &c {
                        let written = m.topic.as_str().to_string();
                        if !s.screen(topic, &written, m, guards.max_message_bytes)? {
                            continue;
                        }
                    }
                    kept.push(c);
                }
                Ok(kept)
            });
            match r {
                Ok(commands) => {
                    let accepted = spawner.map(|sp| sp.take_accepted()).unwrap_or_default();
                    let attached = requests.take();
                    s.report.commands += (commands.len() + accepted.len() + attached.len()) as u64;
                    all.extend(commands.into_iter().map(|c| (i, c)));
                    all.extend(accepted.into_iter().map(|c| (i, c)));
                    all.extend(attached.into_iter().map(|c| (i, QueuedCommand::Physics(c))));
                }
                Err(e) => {
                    // The commands of a failed hook are dropped, creations included.
                    drop(spawner.map(|sp| sp.take_accepted()));
                    drop(requests.take());
                    failures.push(disable(s, PluginError::runtime(e)));
                }
            }
        }
        (all, failures)
    }

    /// Runs every system's `post_step` and publishes what they output; a system whose hook
    /// only publishes ([`SystemSetup::post_step_serves`]) is skipped while nobody listens.
    pub fn post_step(
        &mut self,
        iteration: u64,
        physics: &Physics,
        bus: &mut Bus,
    ) -> Vec<SystemFailure> {
        let now = physics.time();
        let mut failures = Vec::new();
        let guards = self.guards;
        for s in &mut self.slots {
            let Some(plugin) = s.plugin.as_mut() else {
                continue;
            };
            if !s.serves.is_empty() && !s.serves.iter().any(|t| bus.has_subscribers_of(*t)) {
                continue;
            }
            let ctx = step_context(&s.setup, now, physics, iteration);
            let view = physics.view(&s.setup.name);
            s.out.clear();
            let started = Instant::now();
            let r = plugin
                .post_step(&ctx, WorldView_TO::from_ptr(&view, TD_Opaque), &mut s.out)
                .into_result();
            s.book("post_step", started, guards.hook_budget);
            if let Err(e) = r {
                failures.push(disable(s, e));
                continue;
            }
            let outputs: Vec<(String, Message)> = s
                .out
                .drain(..)
                .map(|m| (resolve_topic(&s.setup.namespace, &m.topic), m))
                .collect();
            // All checked first: a plugin disabled for a bad topic publishes nothing of it.
            let mut passed = Vec::with_capacity(outputs.len());
            for (topic, m) in outputs {
                match s.screen(&topic, m.topic.as_str(), &m, guards.max_message_bytes) {
                    Ok(true) => passed.push((topic, m)),
                    Ok(false) => {}
                    Err(e) => {
                        failures.push(disable(s, PluginError::runtime(e)));
                        passed.clear();
                        break;
                    }
                }
            }
            for (topic, m) in passed {
                publish_from(s, &topic, m, now, bus);
            }
        }
        failures
    }

    /// Publishes a message a system queued with [`Commands::publish`](sim_plugin_api::Commands::publish) (topic resolved).
    pub fn publish_command(
        &mut self,
        topic: &str,
        mut message: Message,
        now: SimTime,
        bus: &mut Bus,
    ) {
        let key = bus.intern(topic);
        let seq = self.command_seq.entry(key).or_insert(0);
        message.header.stamp = now;
        message.header.seq = *seq;
        *seq += 1;
        bus.publish(key, message);
    }

    /// Per-system counters.
    pub fn reports(&self) -> Vec<SystemReport> {
        self.slots
            .iter()
            .map(|s| SystemReport {
                hook_time: s.clock.total,
                slow_hooks: s.clock.over,
                refused: s.size.refused,
                ..s.report.clone()
            })
            .collect()
    }
}

fn publish_from(s: &mut Slot, topic: &str, mut m: Message, now: SimTime, bus: &mut Bus) {
    let key = bus.intern(topic);
    let seq = s.seq.entry(key).or_insert(0);
    m.header.stamp = now;
    m.header.seq = *seq;
    *seq += 1;
    m.topic = SharedStr::EMPTY;
    s.report.messages += 1;
    bus.publish(key, m);
}

fn disable(s: &mut Slot, e: PluginError) -> SystemFailure {
    let error = e.message.to_string();
    s.report.disabled = Some(error.clone());
    if let Some(p) = s.plugin.take() {
        std::mem::forget(p);
    }
    SystemFailure {
        name: format!("{} (on {})", s.setup.name, s.setup.entity_name),
        span: s.setup.span.clone(),
        error,
    }
}
