//! The plugin side of the ABI: the traits plugin authors implement ([`Sensor`], [`System`]),
//! the configuration they are created from, and the root module a library exports.

use crate::{
    CommandsMut, EntityId, ErrorCode, Extension, Message, Payload, PluginError, Pose, SharedStr,
    SimTime, SourceLocation, WorldRef,
};
use abi_stable::{
    StableAbi, declare_root_module_statics,
    library::RootModule,
    package_version_strings, sabi_trait,
    sabi_types::VersionStrings,
    std_types::{RBox, RErr, ROk, ROption, RResult, RSlice, RStr, RString, RVec},
};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a factory makes. A newtype so that later versions can add kinds.
#[repr(transparent)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PluginKind(pub u32);

impl PluginKind {
    /// A sensor, created for each SDF `<sensor type>` the factory serves.
    pub const SENSOR: PluginKind = PluginKind(1);
    /// A system (world or model plugin), created for each `<plugin name>` it serves.
    pub const SYSTEM: PluginKind = PluginKind(2);

    /// `"sensor"`, `"system"` or `"unknown"`.
    pub fn name(self) -> &'static str {
        match self {
            PluginKind::SENSOR => "sensor",
            PluginKind::SYSTEM => "system",
            _ => "unknown",
        }
    }
}

/// One factory a library provides.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug)]
pub struct FactoryInfo {
    /// Factory name, unique within the library.
    pub name: RStr<'static>,
    /// Sensor or system.
    pub kind: PluginKind,
    /// SDF sensor types (for sensors) or `<plugin name>` values (for systems) it serves.
    pub serves: RSlice<'static, RStr<'static>>,
    /// Version of the factory (usually the crate version).
    pub version: RStr<'static>,
    /// One line on what it does.
    pub description: RStr<'static>,
}

/// Everything a sensor plugin is configured from. Borrowed for the call to `create_sensor`.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug)]
pub struct SensorConfig<'a> {
    /// The sensor's own name (`<sensor name>`).
    pub name: RStr<'a>,
    /// Its scoped name, `model::link::sensor` (`model::joint::sensor` for a sensor inside a
    /// `<joint>`).
    pub scoped_name: RStr<'a>,
    /// The SDF type as written (`imu`, `ray`, ...).
    pub sensor_type: RStr<'a>,
    /// The resolved topic the sensor publishes on (default or `<topic>`).
    pub topic: RStr<'a>,
    /// The frame id stamped on its messages.
    pub frame_id: RStr<'a>,
    /// The world's name.
    pub world_name: RStr<'a>,
    /// The sensor entity. For a sensor inside a `<joint>`, its parent
    /// (`world.entity_info(config.sensor).parent`) is the joint entity (or the child link when
    /// the joint is not simulated, as in a static model).
    pub sensor: EntityId,
    /// The link it is attached to: for a sensor inside a `<joint>`, the joint's child link.
    pub link: EntityId,
    /// The model that link belongs to.
    pub model: EntityId,
    /// Pose of the sensor in its link's frame (for a sensor inside a `<joint>`: the joint's
    /// pose in the child link composed with the sensor's pose in the joint frame).
    pub pose: Pose,
    /// `<update_rate>` in Hz (0: every step).
    pub update_rate: f64,
    /// Seed for this sensor's random streams, derived by the engine from the run seed and the
    /// scoped name (so results do not depend on thread scheduling).
    pub seed: u64,
    /// The whole `<sensor>` element as XML text (the plugin reads its type-specific element).
    pub sdf: RStr<'a>,
    /// Where the `<sensor>` element is, for diagnostics.
    pub source: SourceLocation<'a>,
}

/// Everything a system plugin is configured from. Borrowed for the call to `create_system`.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug)]
pub struct SystemConfig<'a> {
    /// `<plugin name>`.
    pub name: RStr<'a>,
    /// `<plugin filename>`.
    pub filename: RStr<'a>,
    /// The entity the plugin is attached to (world, model, link or sensor).
    pub entity: EntityId,
    /// Scoped name of that entity.
    pub entity_name: RStr<'a>,
    /// The world's name.
    pub world_name: RStr<'a>,
    /// Seed for the plugin's random streams.
    pub seed: u64,
    /// The whole `<plugin>` element as XML text.
    pub sdf: RStr<'a>,
    /// Where the `<plugin>` element is, for diagnostics.
    pub source: SourceLocation<'a>,
}

/// Timing of one sensor update.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq)]
pub struct UpdateContext {
    /// Sim time of this update.
    pub now: SimTime,
    /// Sim time since this sensor's previous update (0 on the first update and after a reset).
    pub dt: SimTime,
    /// The physics step.
    pub step: SimTime,
    /// Updates of this sensor before this one.
    pub update_count: u64,
    /// Whether the update was forced or triggered rather than due on the rate.
    pub forced: bool,
}

/// Timing of one step, for system hooks.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq)]
pub struct StepContext {
    /// Sim time after this step.
    pub now: SimTime,
    /// The physics step.
    pub step: SimTime,
    /// Steps completed before this one.
    pub iteration: u64,
    /// The entity the system is attached to.
    pub entity: EntityId,
}

/// The ABI form of a sensor (what crosses the boundary). Plugin authors implement
/// [`Sensor`] instead; [`export_plugin!`](crate::export_plugin) wraps it.
#[sabi_trait]
pub trait SensorAbi: Send {
    /// See [`Sensor::update`].
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: WorldRef<'_>,
        out: &mut RVec<Message>,
    ) -> RResult<(), PluginError>;
    /// See [`Sensor::set_parameter`].
    fn set_parameter(
        &mut self,
        key: RStr<'_>,
        value: RStr<'_>,
        world: WorldRef<'_>,
    ) -> RResult<(), PluginError>;
    /// See [`Sensor::reset`].
    fn reset(&mut self, world: WorldRef<'_>) -> RResult<(), PluginError>;
    /// See [`Sensor::extension`].
    #[sabi(last_prefix_field)]
    fn extension(&self, name: RStr<'_>) -> ROption<Extension<'_>>;
}

/// An owned sensor object from a plugin library.
pub type SensorBox = SensorAbi_TO<'static, RBox<()>>;

/// The ABI form of a system (world or model plugin). Plugin authors implement [`System`].
#[sabi_trait]
pub trait SystemAbi: Send {
    /// See [`System::subscriptions`].
    fn subscriptions(&self) -> RVec<RString>;
    /// See [`System::services`].
    fn services(&self) -> RVec<RString>;
    /// See [`System::pre_step`].
    fn pre_step(
        &mut self,
        ctx: &StepContext,
        inbox: RSlice<'_, Message>,
        world: WorldRef<'_>,
        commands: CommandsMut<'_>,
    ) -> RResult<(), PluginError>;
    /// See [`System::post_step`].
    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: WorldRef<'_>,
        out: &mut RVec<Message>,
    ) -> RResult<(), PluginError>;
    /// See [`System::call`].
    fn call(
        &mut self,
        service: RStr<'_>,
        request: &Message,
        world: WorldRef<'_>,
        commands: CommandsMut<'_>,
    ) -> RResult<Message, PluginError>;
    /// See [`System::reset`].
    fn reset(&mut self, world: WorldRef<'_>) -> RResult<(), PluginError>;
    /// See [`System::extension`].
    #[sabi(last_prefix_field)]
    fn extension(&self, name: RStr<'_>) -> ROption<Extension<'_>>;
}

/// An owned system object from a plugin library.
pub type SystemBox = SystemAbi_TO<'static, RBox<()>>;

/// The root module every plugin library exports (through [`export_plugin!`](crate::export_plugin)).
///
/// A prefix type: later 1.x versions may only append fields after `extension`, and the
/// engine reads them as optional.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginModule_Ref)))]
#[sabi(missing_field(option))]
pub struct PluginModule {
    /// The factories the library provides.
    pub factories: extern "C" fn() -> RSlice<'static, FactoryInfo>,
    /// Creates a sensor with the named factory.
    pub create_sensor: extern "C" fn(
        factory: RStr<'_>,
        config: &SensorConfig<'_>,
        world: WorldRef<'_>,
    ) -> RResult<SensorBox, PluginError>,
    /// Creates a system with the named factory.
    pub create_system: extern "C" fn(
        factory: RStr<'_>,
        config: &SystemConfig<'_>,
        world: WorldRef<'_>,
    ) -> RResult<SystemBox, PluginError>,
    /// Library-level extensions (none are defined in 1.0).
    #[sabi(last_prefix_field)]
    pub extension: extern "C" fn(name: RStr<'_>) -> ROption<Extension<'static>>,
}

impl RootModule for PluginModule_Ref {
    declare_root_module_statics! {PluginModule_Ref}
    const BASE_NAME: &'static str = "simcore_plugin";
    const NAME: &'static str = "simcore plugin";
    const VERSION_STRINGS: VersionStrings = package_version_strings!();
}

/// `Header::seq` of a message that the engine hands back to the sensor that published it,
/// for reuse (see [`Outputs::republish`]). Such messages sit at the front of the output
/// buffer on entry to [`SensorAbi::update`]; the engine assigns every real sequence number
/// itself, so no published message carries this value.
pub const RECLAIMABLE_SEQ: u64 = u64::MAX;

/// Where a plugin puts the messages of one update or step.
///
/// When nobody received a sensor's messages of its previous update, the engine may hand them
/// back at the front of the buffer instead of freeing them; [`Outputs::republish`] lets the
/// sensor refill one in place and send it again, so that a sensor nobody listens to does
/// not allocate and free its messages at every update. Engines and plugins of any 1.x
/// version agree on this: with an engine that hands nothing back, or a plugin that never
/// republishes, messages are simply allocated anew.
pub struct Outputs<'a> {
    messages: &'a mut RVec<Message>,
    /// The messages at the front of `messages` handed back by the engine.
    handed_back: usize,
}

impl<'a> Outputs<'a> {
    /// Wraps an output buffer (the engine's, or a test's).
    pub fn new(messages: &'a mut RVec<Message>) -> Self {
        let handed_back = messages
            .iter()
            .take_while(|m| m.header.seq == RECLAIMABLE_SEQ)
            .count();
        Outputs {
            messages,
            handed_back,
        }
    }
    /// Publishes `payload` on `topic`; the engine fills the header. How the engine reads
    /// `topic` depends on who publishes (see the guide's
    /// [topics and namespaces](crate::guide::topics)):
    ///
    /// - a sensor: empty is the sensor's own topic ([`SensorConfig::topic`]), a relative
    ///   name is below it (`points` -> `<topic>/points`), `/...` is absolute;
    /// - a system (in `post_step`): a relative name is below the plugin's namespace
    ///   (`/model/<model>` or `/world/<world>`: `pose` -> `/model/robot/pose`), `/...` is
    ///   absolute. A system has no topic of its own: an empty topic, or one that is not a
    ///   valid topic name once resolved, is an error: the engine disables the plugin at that
    ///   step and delivers nothing it published in that hook.
    ///
    /// On a hot path pass a [`SharedStr`] built once (`&self.points_topic`): a `&str` topic
    /// other than `""` is copied per call.
    pub fn publish(&mut self, topic: impl Into<SharedStr>, payload: Payload) {
        self.messages.push(Message::new(topic, payload));
    }
    /// Publishes a complete message (to set the header's frame id yourself).
    pub fn push(&mut self, message: Message) {
        self.messages.push(message);
    }
    /// This sensor's previous message on `topic` (the topic string it was published with),
    /// if nobody received it and the engine handed it back: it is published again in this
    /// update, with the payload as the caller leaves it (the header as it was). `None`
    /// otherwise: publish a new message instead. The payload is the one this sensor sent
    /// last time on that topic, so a sensor refills every field it sends:
    ///
    /// ```
    /// # use sim_plugin_api::{Outputs, Payload, Imu, abi_stable::std_types::{RBox, RVec}};
    /// # let mut buffer = RVec::new();
    /// # let mut out = Outputs::new(&mut buffer);
    /// # let reading = Imu::default();
    /// if let Some(Payload::Imu(imu)) = out.republish("") {
    ///     **imu = reading; // refill in place: no allocation
    /// } else {
    ///     out.publish("", Payload::Imu(RBox::new(reading)));
    /// }
    /// ```
    ///
    /// Messages republished in an update come before those published with
    /// [`Outputs::publish`] in it.
    pub fn republish(&mut self, topic: &str) -> Option<&mut Payload> {
        let m = self.messages[..self.handed_back].iter_mut().find(|m| {
            m.header.seq == RECLAIMABLE_SEQ
                && m.topic.len() == topic.len()
                && (topic.is_empty() || m.topic.as_str() == topic)
        })?;
        m.payload.as_enum().ok()?;
        m.header.seq = 0;
        m.payload.as_enum_mut().ok()
    }
}

/// A sensor plugin. Created by its factory from a [`SensorConfig`]; the engine calls
/// [`Sensor::update`] whenever the sensor is due by the timing rules.
///
/// Panics are caught at the boundary and reported as [`ErrorCode::PANIC`]; the engine then
/// disables the sensor.
pub trait Sensor: Send + 'static {
    /// Produces this update's messages from the post-step world.
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError>;

    /// Changes a parameter at run time (e.g. a camera's `horizontal_fov` when zooming).
    fn set_parameter(
        &mut self,
        key: &str,
        _value: &str,
        _world: &WorldRef<'_>,
    ) -> Result<(), PluginError> {
        Err(PluginError::unsupported(format!(
            "this sensor has no run-time parameter `{key}`"
        )))
    }

    /// Sim time went backwards: forget history (reference poses, noise state as needed).
    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        Ok(())
    }

    /// Extensions this sensor offers to the engine (none in 1.0).
    fn extension(&self, _name: &str) -> Option<Extension<'_>> {
        None
    }
}

/// A system (world or model) plugin.
pub trait System: Send + 'static {
    /// Absolute topics whose messages are delivered to [`System::pre_step`].
    fn subscriptions(&self) -> Vec<String> {
        Vec::new()
    }
    /// Absolute service names this system answers through [`System::call`].
    fn services(&self) -> Vec<String> {
        Vec::new()
    }
    /// Before the physics step: reads the messages received since the last step and queues
    /// commands.
    fn pre_step(
        &mut self,
        _ctx: &StepContext,
        _inbox: &[Message],
        _world: &WorldRef<'_>,
        _commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        Ok(())
    }
    /// After the physics step: reads the world and publishes.
    fn post_step(
        &mut self,
        _ctx: &StepContext,
        _world: &WorldRef<'_>,
        _out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        Ok(())
    }
    /// Answers a service request.
    fn call(
        &mut self,
        service: &str,
        _request: &Message,
        _world: &WorldRef<'_>,
        _commands: &mut CommandsMut<'_>,
    ) -> Result<Message, PluginError> {
        Err(PluginError::new(
            ErrorCode::NOT_FOUND,
            format!("no service `{service}`"),
        ))
    }
    /// Sim time went backwards.
    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        Ok(())
    }
    /// Extensions this system offers to the engine (none in 1.0).
    fn extension(&self, _name: &str) -> Option<Extension<'_>> {
        None
    }
}

/// Runs `f`, turning a panic into a [`ErrorCode::PANIC`] error. Used by the export machinery
/// at every entry point; the panic message and location are kept when the library's panic
/// hook recorded them.
pub fn guard<T>(f: impl FnOnce() -> Result<T, PluginError>) -> RResult<T, PluginError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => ROk(v),
        Ok(Err(e)) => RErr(e),
        Err(payload) => {
            let message = crate::export::take_panic_message().unwrap_or_else(|| {
                payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic payload".to_string())
            });
            RErr(PluginError::new(
                ErrorCode::PANIC,
                format!("plugin panicked: {message}"),
            ))
        }
    }
}

/// Wraps a [`Sensor`] into its ABI form, guarding every call.
pub struct GuardedSensor<S>(pub S);

impl<S: Sensor> SensorAbi for GuardedSensor<S> {
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: WorldRef<'_>,
        out: &mut RVec<Message>,
    ) -> RResult<(), PluginError> {
        guard(|| self.0.update(ctx, &world, &mut Outputs::new(out)))
    }
    fn set_parameter(
        &mut self,
        key: RStr<'_>,
        value: RStr<'_>,
        world: WorldRef<'_>,
    ) -> RResult<(), PluginError> {
        guard(|| self.0.set_parameter(key.as_str(), value.as_str(), &world))
    }
    fn reset(&mut self, world: WorldRef<'_>) -> RResult<(), PluginError> {
        guard(|| self.0.reset(&world))
    }
    fn extension(&self, name: RStr<'_>) -> ROption<Extension<'_>> {
        catch_unwind(AssertUnwindSafe(|| self.0.extension(name.as_str())))
            .ok()
            .flatten()
            .into()
    }
}

/// Wraps a [`System`] into its ABI form, guarding every call.
pub struct GuardedSystem<S>(pub S);

impl<S: System> SystemAbi for GuardedSystem<S> {
    fn subscriptions(&self) -> RVec<RString> {
        catch_unwind(AssertUnwindSafe(|| self.0.subscriptions()))
            .unwrap_or_default()
            .into_iter()
            .map(RString::from)
            .collect()
    }
    fn services(&self) -> RVec<RString> {
        catch_unwind(AssertUnwindSafe(|| self.0.services()))
            .unwrap_or_default()
            .into_iter()
            .map(RString::from)
            .collect()
    }
    fn pre_step(
        &mut self,
        ctx: &StepContext,
        inbox: RSlice<'_, Message>,
        world: WorldRef<'_>,
        mut commands: CommandsMut<'_>,
    ) -> RResult<(), PluginError> {
        guard(|| {
            self.0
                .pre_step(ctx, inbox.as_slice(), &world, &mut commands)
        })
    }
    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: WorldRef<'_>,
        out: &mut RVec<Message>,
    ) -> RResult<(), PluginError> {
        guard(|| self.0.post_step(ctx, &world, &mut Outputs::new(out)))
    }
    fn call(
        &mut self,
        service: RStr<'_>,
        request: &Message,
        world: WorldRef<'_>,
        mut commands: CommandsMut<'_>,
    ) -> RResult<Message, PluginError> {
        guard(|| {
            self.0
                .call(service.as_str(), request, &world, &mut commands)
        })
    }
    fn reset(&mut self, world: WorldRef<'_>) -> RResult<(), PluginError> {
        guard(|| self.0.reset(&world))
    }
    fn extension(&self, name: RStr<'_>) -> ROption<Extension<'_>> {
        catch_unwind(AssertUnwindSafe(|| self.0.extension(name.as_str())))
            .ok()
            .flatten()
            .into()
    }
}
