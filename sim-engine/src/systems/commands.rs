//! The queue of commands a system issues in a hook ([`CommandQueue`], the plugin's
//! `Commands`), what it queues ([`QueuedCommand`]), and the factory through which it creates
//! models ([`Spawner`]).

use sim_physics::PhysicsCommand;
use sim_plugin_api::{
    Commands, Commands_TO, CommandsMut, CreatedModel, EntityFactory, EntityId, Extension,
    JointCommand, MODEL_FACTORY_EXTENSION, Message, ModelFactory, ModelFactoryRef, Pose,
    RUNTIME_JOINTS_EXTENSION, RuntimeJointsRef, SharedStr, Vec3,
    abi_stable::{
        sabi_trait::TD_Opaque,
        std_types::{RErr, ROk, ROption, RResult, RStr, RString},
    },
};
use sim_world::Model;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;

/// A command a system queued.
#[derive(Clone, Debug)]
pub enum QueuedCommand {
    /// A change to the physics world.
    Physics(PhysicsCommand),
    /// A joint command.
    Joint(JointCommand),
    /// A request to create a model, checked when it is applied.
    Spawn(EntityFactory, u64),
    /// A model checked when it was requested (through the model factory extension): final
    /// name and pose set; built when applied. With its ticket.
    Create(Box<Model>, u64),
    /// A request to remove a model.
    Remove(EntityId),
    /// A message to publish (topic resolved).
    Publish(String, Message),
    /// Pause or resume a sensor.
    SensorActive(EntityId, bool),
    /// A run-time sensor parameter.
    SensorParameter(EntityId, String, String),
}

/// Checks a creation request against the current world: returns the model to build (final
/// name and world pose set) or the full diagnostic. The set holds names already claimed by
/// earlier requests of the same step.
pub type PrepareModel<'a> = dyn Fn(&EntityFactory, &HashSet<String>) -> Result<Model, String> + 'a;

/// The engine's [`ModelFactory`]: checks requests at once with a [`PrepareModel`] and keeps
/// the accepted models until the caller takes them as commands.
pub struct Spawner<'a> {
    prepare: &'a PrepareModel<'a>,
    claimed: RefCell<HashSet<String>>,
    accepted: RefCell<Vec<QueuedCommand>>,
    next_ticket: Cell<u64>,
}

impl std::fmt::Debug for Spawner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spawner")
            .field("claimed", &self.claimed)
            .finish()
    }
}

impl<'a> Spawner<'a> {
    /// A spawner checking requests with `prepare`; tickets count from `first_ticket`.
    pub fn new(prepare: &'a PrepareModel<'a>, first_ticket: u64) -> Self {
        Spawner {
            prepare,
            claimed: RefCell::new(HashSet::new()),
            accepted: RefCell::new(Vec::new()),
            next_ticket: Cell::new(first_ticket),
        }
    }

    /// The creations accepted since the last call, as commands.
    pub fn take_accepted(&self) -> Vec<QueuedCommand> {
        std::mem::take(&mut *self.accepted.borrow_mut())
    }

    /// The next ticket number it would give.
    pub fn next_ticket(&self) -> u64 {
        self.next_ticket.get()
    }
}

impl ModelFactory for Spawner<'_> {
    fn create(&self, request: &EntityFactory) -> RResult<CreatedModel, RString> {
        let prepared = (self.prepare)(request, &self.claimed.borrow());
        match prepared {
            Ok(model) => {
                let ticket = self.next_ticket.get();
                self.next_ticket.set(ticket + 1);
                self.claimed.borrow_mut().insert(model.name.clone());
                let created = CreatedModel {
                    name: RString::from(model.name.as_str()),
                    pose: model.pose,
                    ticket,
                };
                self.accepted
                    .borrow_mut()
                    .push(QueuedCommand::Create(Box::new(model), ticket));
                ROk(created)
            }
            Err(e) => RErr(RString::from(e)),
        }
    }
}

/// The engine's implementation of [`Commands`]: a queue.
pub struct CommandQueue<'q, 'f> {
    namespace: String,
    next_ticket: u64,
    factory: Option<&'q ModelFactoryRef<'f>>,
    joints: Option<&'q RuntimeJointsRef<'f>>,
    /// Commands in issue order.
    pub commands: Vec<QueuedCommand>,
}

impl std::fmt::Debug for CommandQueue<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandQueue")
            .field("namespace", &self.namespace)
            .field("commands", &self.commands)
            .finish()
    }
}

impl<'q, 'f> CommandQueue<'q, 'f> {
    /// An empty queue resolving relative topics against `namespace`.
    pub fn new(namespace: &str) -> Self {
        CommandQueue {
            namespace: namespace.to_string(),
            next_ticket: 1,
            factory: None,
            joints: None,
            commands: Vec::new(),
        }
    }

    /// An empty queue that also hands out `factory` as the [`MODEL_FACTORY_EXTENSION`].
    pub fn with_factory(namespace: &str, factory: Option<&'q ModelFactoryRef<'f>>) -> Self {
        CommandQueue {
            factory,
            ..CommandQueue::new(namespace)
        }
    }

    /// This queue, also handing out `joints` as the [`RUNTIME_JOINTS_EXTENSION`].
    pub fn with_joints(self, joints: Option<&'q RuntimeJointsRef<'f>>) -> Self {
        CommandQueue { joints, ..self }
    }

    /// Runs `f` with this queue as a plugin sees it.
    pub fn with<R>(&mut self, f: impl FnOnce(CommandsMut<'_>) -> R) -> R {
        f(Commands_TO::from_ptr(self, TD_Opaque))
    }
}

/// Resolves a system's topic: absolute as is, relative below its namespace.
pub fn resolve_topic(namespace: &str, topic: &str) -> String {
    if topic.starts_with('/') {
        topic.to_string()
    } else {
        format!("{namespace}/{topic}")
    }
}

impl Commands for CommandQueue<'_, '_> {
    fn set_pose(&mut self, entity: EntityId, pose: Pose) {
        self.commands
            .push(QueuedCommand::Physics(PhysicsCommand::SetPose(
                entity, pose,
            )));
    }
    fn set_velocity(&mut self, entity: EntityId, linear: Vec3, angular: Vec3) {
        self.commands
            .push(QueuedCommand::Physics(PhysicsCommand::SetVelocity(
                entity, linear, angular,
            )));
    }
    fn apply_wrench(&mut self, entity: EntityId, force: Vec3, torque: Vec3) {
        self.commands
            .push(QueuedCommand::Physics(PhysicsCommand::ApplyWrench(
                entity, force, torque,
            )));
    }
    fn joint_command(&mut self, command: &JointCommand) {
        self.commands.push(QueuedCommand::Joint(*command));
    }
    fn spawn(&mut self, request: &EntityFactory) -> u64 {
        let t = self.next_ticket;
        self.next_ticket += 1;
        self.commands.push(QueuedCommand::Spawn(request.clone(), t));
        t
    }
    fn remove(&mut self, entity: EntityId) {
        self.commands.push(QueuedCommand::Remove(entity));
    }
    fn publish(&mut self, mut message: Message) {
        let topic = resolve_topic(&self.namespace, &message.topic);
        message.topic = SharedStr::EMPTY;
        self.commands.push(QueuedCommand::Publish(topic, message));
    }
    fn set_sensor_active(&mut self, sensor: EntityId, active: bool) {
        self.commands
            .push(QueuedCommand::SensorActive(sensor, active));
    }
    fn set_sensor_parameter(&mut self, sensor: EntityId, key: RStr<'_>, value: RStr<'_>) {
        self.commands.push(QueuedCommand::SensorParameter(
            sensor,
            key.to_string(),
            value.to_string(),
        ));
    }
    fn extension(&mut self, name: RStr<'_>) -> ROption<Extension<'_>> {
        match (name.as_str(), self.factory, self.joints) {
            (MODEL_FACTORY_EXTENSION, Some(f), _) => ROption::RSome(Extension::new(f)),
            (RUNTIME_JOINTS_EXTENSION, _, Some(j)) => ROption::RSome(Extension::new(j)),
            _ => ROption::RNone,
        }
    }
}
