//! gz-sim's way with a system whose joints, links or required elements are missing: it is
//! reported and does nothing, and the world runs ([`OrIdle`], built by [`create`]).

use sim_plugin_api::prelude::*;
use sim_plugin_api::{Extension, PluginError, WorldRef};

/// A gz-sim system built from its `<plugin>` element, served through [`create`].
pub trait GzSystem: Sized {
    /// Builds the system; a [`missing`] error where gz-sim's system would do nothing.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError>;

    /// The topics the built system publishes on, each with its payload kind
    /// ([`Payload::type_name`]), which [`create`] declares to the engine
    /// (`simcore.output_types.v1`); none by default.
    fn outputs(&self) -> Vec<(String, &'static str)> {
        Vec::new()
    }
}

/// The factory of a [`GzSystem`] (for `export_plugin!`'s `create:`): the system, with its
/// [outputs](GzSystem::outputs) declared, or, where a joint, link or element it needs is
/// missing, a warning and an idle system (see [`OrIdle`]).
pub fn create<S: GzSystem>(
    config: &SystemConfig<'_>,
    world: &WorldRef<'_>,
) -> Result<OrIdle<S>, PluginError> {
    let built = S::build(config, world);
    if let Ok(s) = &built {
        sim_plugin_api::declare_outputs(world, &s.outputs());
    }
    OrIdle::from(built, world)
}

/// A system, or nothing: what a gz-sim system is when an element or an entity it needs is
/// missing (gz-sim logs an error and the system does nothing; the world runs).
pub enum OrIdle<S> {
    /// The system.
    Active(S),
    /// Nothing: no subscriptions, no commands, no output.
    Idle,
}

impl<S> OrIdle<S> {
    /// `created` as a system, or, when it failed with [`ErrorCode::NOT_FOUND`] (a missing
    /// element or entity), a warning naming what is missing and an idle system. Other errors
    /// (malformed values) stay errors.
    pub fn from(
        created: Result<S, PluginError>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        match created {
            Ok(s) => Ok(OrIdle::Active(s)),
            Err(e) if e.code == ErrorCode::NOT_FOUND => {
                world.log_message(
                    LogLevel::WARN,
                    &format!("{}; the system does nothing (as in gz-sim)", e.message),
                );
                Ok(OrIdle::Idle)
            }
            Err(e) => Err(e),
        }
    }

    /// Whether this is [`OrIdle::Idle`].
    pub fn is_idle(&self) -> bool {
        matches!(self, OrIdle::Idle)
    }
}

impl<S: System> System for OrIdle<S> {
    fn subscriptions(&self) -> Vec<String> {
        match self {
            OrIdle::Active(s) => s.subscriptions(),
            OrIdle::Idle => Vec::new(),
        }
    }
    fn services(&self) -> Vec<String> {
        match self {
            OrIdle::Active(s) => s.services(),
            OrIdle::Idle => Vec::new(),
        }
    }
    fn pre_step(
        &mut self,
        ctx: &StepContext,
        inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        match self {
            OrIdle::Active(s) => s.pre_step(ctx, inbox, world, commands),
            OrIdle::Idle => Ok(()),
        }
    }
    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        match self {
            OrIdle::Active(s) => s.post_step(ctx, world, out),
            OrIdle::Idle => Ok(()),
        }
    }
    fn call(
        &mut self,
        service: &str,
        request: &Message,
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<Message, PluginError> {
        match self {
            OrIdle::Active(s) => s.call(service, request, world, commands),
            OrIdle::Idle => Err(PluginError::new(
                ErrorCode::NOT_FOUND,
                format!("no service `{service}`"),
            )),
        }
    }
    fn reset(&mut self, world: &WorldRef<'_>) -> Result<(), PluginError> {
        match self {
            OrIdle::Active(s) => s.reset(world),
            OrIdle::Idle => Ok(()),
        }
    }
    fn extension(&self, name: &str) -> Option<Extension<'_>> {
        match self {
            OrIdle::Active(s) => s.extension(name),
            OrIdle::Idle => None,
        }
    }
}

/// The [`ErrorCode::NOT_FOUND`] error `message`: something a gz-sim system needs is missing.
pub fn missing(message: impl Into<String>) -> PluginError {
    PluginError::new(ErrorCode::NOT_FOUND, message)
}
