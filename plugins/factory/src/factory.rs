//! The factory system: `create` and `remove` services on the world.

use sim_plugin_api::{
    abi_stable::std_types::{RBox, RErr, ROk},
    model_factory,
    msgs::NamedPose,
    prelude::*,
};
use simcore_plugin_common::topic_part;

/// Creates and removes models on request (see the crate documentation).
pub struct Factory {
    create_service: String,
    remove_service: String,
}

fn bad_request(message: impl Into<String>) -> PluginError {
    PluginError::new(ErrorCode::BAD_REQUEST, message)
}

fn type_name(request: &Message) -> &'static str {
    request
        .payload
        .as_enum()
        .map(|p| p.type_name())
        .unwrap_or("an unknown payload")
}

impl Factory {
    /// Creates the system; it must be attached to the world.
    pub fn create(config: &SystemConfig<'_>, _world: &WorldRef<'_>) -> Result<Self, PluginError> {
        if config.entity != EntityId::WORLD {
            return Err(PluginError::config(format!(
                "{}: {}: the factory must be attached to the world, not to a model",
                config.entity_name, config.name
            )));
        }
        Ok(Factory::new(config.world_name.as_str()))
    }

    /// The factory of the world named `world_name`.
    pub fn new(world_name: &str) -> Self {
        Factory {
            create_service: format!("/world/{}/create", topic_part(world_name)),
            remove_service: format!("/world/{}/remove", topic_part(world_name)),
        }
    }

    fn create_model(
        &self,
        request: &Message,
        commands: &mut CommandsMut<'_>,
    ) -> Result<Message, PluginError> {
        let service = &self.create_service;
        let Ok(Payload::EntityFactory(req)) = request.payload.as_enum() else {
            return Err(bad_request(format!(
                "{service} takes an EntityFactory {{sdf | sdf_filename, name, pose, relative_to, allow_renaming}}, got {}",
                type_name(request)
            )));
        };
        let Some(factory) = model_factory(commands) else {
            return Err(PluginError::unsupported(format!(
                "{service}: this engine does not offer checked model creation ({})",
                sim_plugin_api::MODEL_FACTORY_EXTENSION
            )));
        };
        match factory.create(req) {
            ROk(created) => Ok(Message::new(
                "",
                Payload::Pose(RBox::new(NamedPose {
                    name: SharedStr::from(created.name.as_str()),
                    pose: created.pose,
                })),
            )),
            RErr(diagnostic) => Err(bad_request(format!(
                "{service}: the model was not created:\n{diagnostic}"
            ))),
        }
    }

    fn remove_model(
        &self,
        request: &Message,
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<Message, PluginError> {
        let service = &self.remove_service;
        let (id, what) = match request.payload.as_enum() {
            Ok(Payload::Text(name)) => (
                world.entity_by_name(name.as_str().into()),
                format!("`{name}`"),
            ),
            Ok(Payload::Int64(id)) if *id > 0 => (EntityId(*id as u64), format!("id {id}")),
            _ => {
                return Err(bad_request(format!(
                    "{service} takes a model's scoped name (StringMsg) or its id (Int64), got {}",
                    type_name(request)
                )));
            }
        };
        match world.entity_info(id).into_option().map(|i| i.kind) {
            Some(EntityKind::MODEL) => {
                commands.remove(id);
                Ok(Message::new("", Payload::Boolean(true)))
            }
            Some(kind) => Err(bad_request(format!(
                "{service}: {what} is a {}, not a model",
                kind.name()
            ))),
            None => Err(bad_request(format!("{service}: no model {what}"))),
        }
    }
}

impl System for Factory {
    fn services(&self) -> Vec<String> {
        vec![self.create_service.clone(), self.remove_service.clone()]
    }

    fn call(
        &mut self,
        service: &str,
        request: &Message,
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<Message, PluginError> {
        if service == self.create_service {
            self.create_model(request, commands)
        } else if service == self.remove_service {
            self.remove_model(request, world, commands)
        } else {
            Err(PluginError::new(
                ErrorCode::NOT_FOUND,
                format!("no service `{service}`"),
            ))
        }
    }
}
