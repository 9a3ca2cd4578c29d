//! Checked model creation: the `simcore.factory.v1` extension of
//! [`Commands`](crate::Commands). See [`ModelFactory`].

use crate::{CommandsMut, EntityFactory, Pose};
use abi_stable::{
    RRef, StableAbi, sabi_trait,
    std_types::{RResult, RString},
};

/// The name under which [`Commands::extension`](crate::Commands::extension) hands out a
/// [`ModelFactoryRef`].
pub const MODEL_FACTORY_EXTENSION: &str = "simcore.factory.v1";

/// What [`ModelFactory::create`] accepted.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct CreatedModel {
    /// The model's final name (after the override and renaming).
    pub name: RString,
    /// Its world pose when created.
    pub pose: Pose,
    /// A number identifying the request in the engine's log.
    pub ticket: u64,
}

/// Checked model creation: the `simcore.factory.v1` extension of [`Commands`](crate::Commands).
///
/// [`Commands::spawn`](crate::Commands::spawn) only queues a request: whether the model could
/// be built is known after the plugin's hook has returned, too late for a service reply. A
/// factory (a world plugin answering `/world/<w>/create`) needs the verdict at once, so the
/// engine offers a [`ModelFactory`] through [`Commands::extension`](crate::Commands::extension)
/// under the name [`MODEL_FACTORY_EXTENSION`]:
///
/// - [`ModelFactory::create`] checks the request *during the call*: it reads the SDF text or
///   file (at most 1 MiB; a relative `sdf_filename` is looked up beside the world file, then
///   in the working directory), parses it with the engine's SDF reader, applies the name override
///   and `allow_renaming` (a name clash becomes `name_1`, `name_2`, ...; names claimed by
///   earlier requests of the same step count as taken), resolves the pose against
///   `relative_to`, and checks that a plugin library serves every sensor type and plugin the
///   model needs. On success it returns the model's final name and world pose; on failure the
///   full diagnostic (for SDF errors: file, line, column, the offending source line and a
///   suggested fix).
/// - The model itself is built when the engine applies the plugin's commands (after all
///   `pre_step` hooks, or right after a service call): it is in the world, with its sensors
///   and plugins created, for the next physics step, and ray casts see it at once. The only
///   failure left for that moment is a plugin of the new model refusing its own configuration;
///   the engine then takes the model back out and logs the plugin's error.
///
/// ```ignore
/// fn call(&mut self, _s: &str, request: &EntityFactory, _w: &WorldRef<'_>, commands: &mut CommandsMut<'_>)
///     -> Result<Message, PluginError>
/// {
///     let Some(factory) = model_factory(commands) else { /* engine older than 1.x with it */ };
///     match factory.create(request) { ROk(created) => ..., RErr(diagnostic) => ... }
/// }
/// ```
///
/// Implemented by the engine; reached through [`model_factory`].
#[sabi_trait]
pub trait ModelFactory {
    /// Checks `request` now and, when it is acceptable, queues the model's creation. Returns
    /// the final name and pose, or the full diagnostic.
    #[sabi(last_prefix_field)]
    fn create(&self, request: &EntityFactory) -> RResult<CreatedModel, RString>;
}

/// The model factory as plugins receive it.
pub type ModelFactoryRef<'a> = ModelFactory_TO<'a, RRef<'a, ()>>;

/// The engine's [`ModelFactory`] for this command queue, or `None` when the engine does not
/// offer one (an engine older than the extension, or a queue outside a system hook).
pub fn model_factory<'c>(commands: &'c mut CommandsMut<'_>) -> Option<&'c ModelFactoryRef<'c>> {
    commands
        .extension(MODEL_FACTORY_EXTENSION.into())
        .into_option()
        .and_then(|e| e.get::<ModelFactoryRef<'c>>())
}
