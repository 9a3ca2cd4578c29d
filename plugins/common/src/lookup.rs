//! Finding what a model system names in its `<plugin>` element: the model it is attached to,
//! and its joints (or sensors) by name.

use sim_plugin_api::{EntityId, EntityKind, PluginError, SystemConfig, WorldRef};

/// A model system's identity: the scoped name of the model it is attached to, how its
/// messages name it (`model: Plugin`) and the model's own name (see [`attached`]).
#[derive(Clone, Debug)]
pub struct Attached<'c> {
    /// The scoped name of the model.
    pub scoped: &'c str,
    /// `"<scoped>: <plugin>"`, the prefix of its messages.
    pub who: String,
    /// The model's own name (its last scope), as gz-sim's default topics use it.
    pub model: String,
}

/// [`attached_model`], with the names a model system's configuration and messages use.
pub fn attached<'c>(
    config: &'c SystemConfig<'_>,
    world: &WorldRef<'_>,
    plugin: &str,
) -> Result<Attached<'c>, PluginError> {
    let scoped = attached_model(config, world, plugin)?;
    Ok(Attached {
        scoped,
        who: format!("{scoped}: {plugin}"),
        model: own_name(world, config.entity, scoped),
    })
}

/// The scoped name of the model a model system is attached to; a configuration error naming
/// `plugin` when `config` attaches it to anything else (the world, a link...).
pub fn attached_model<'c>(
    config: &'c SystemConfig<'_>,
    world: &WorldRef<'_>,
    plugin: &str,
) -> Result<&'c str, PluginError> {
    let model = config.entity_name.as_str();
    if !on_model(config, world) {
        return Err(PluginError::config(format!(
            "{plugin} must be attached to a model, not to `{model}`"
        )));
    }
    Ok(model)
}

/// Whether `config` attaches the system to a model (not to the world, a link...).
pub fn on_model(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> bool {
    let kind = world
        .entity_info(config.entity)
        .into_option()
        .map(|i| i.kind);
    kind == Some(EntityKind::MODEL)
}

/// Whether `config` attaches the system to the world (gz-sim's world systems).
pub fn on_world(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> bool {
    let kind = world
        .entity_info(config.entity)
        .into_option()
        .map(|i| i.kind);
    kind == Some(EntityKind::WORLD)
}

/// Why [`find_in_model`] found no entity of the kind asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotFound {
    /// `candidate` (the name tried) is an entity of another kind.
    WrongKind {
        /// The scoped name that was found.
        candidate: String,
        /// What it is.
        kind: EntityKind,
    },
    /// No entity has the name, scoped or as written.
    Missing,
}

impl NotFound {
    /// The configuration error for the element `<tag>` of a plugin, `prefix` being
    /// `"{model}: {plugin}: <{tag}>"`: "`x` is a link, not a joint" or "`x`: no such joint in
    /// the model".
    pub fn element_error(&self, prefix: &str, name: &str, kind: EntityKind) -> PluginError {
        match self {
            NotFound::WrongKind {
                candidate,
                kind: found,
            } => PluginError::config(format!(
                "{prefix} `{candidate}` is a {}, not a {}",
                found.name(),
                kind.name()
            )),
            NotFound::Missing => PluginError::config(format!(
                "{prefix} `{name}`: no such {} in the model",
                kind.name()
            )),
        }
    }
}

/// Finds the entity `name` of kind `kind` in `model`: scoped below the model first, then as
/// written. The first name that exists decides: an entity of another kind is
/// [`NotFound::WrongKind`].
pub fn find_in_model(
    world: &WorldRef<'_>,
    model: &str,
    name: &str,
    kind: EntityKind,
) -> Result<EntityId, NotFound> {
    for candidate in [format!("{model}::{name}"), name.to_string()] {
        let id = world.entity_by_name(candidate.as_str().into());
        if id.is_none() {
            continue;
        }
        match world.entity_info(id).into_option() {
            Some(info) if info.kind == kind => return Ok(id),
            Some(info) => {
                return Err(NotFound::WrongKind {
                    candidate,
                    kind: info.kind,
                });
            }
            None => {}
        }
    }
    Err(NotFound::Missing)
}

/// [`find_in_model`] for a name the system `who` (`rover: Plugin`) read from its element
/// `<tag>`: the entity, or the configuration error [`NotFound::element_error`] words
/// (`rover: Plugin: <tag> `x`: no such joint in the model`).
pub fn find_named(
    world: &WorldRef<'_>,
    model: &str,
    name: &str,
    kind: EntityKind,
    tag: &str,
    who: &str,
) -> Result<EntityId, PluginError> {
    find_in_model(world, model, name, kind)
        .map_err(|e| e.element_error(&format!("{who}: <{tag}>"), name, kind))
}

/// The own name of the entity a system is attached to (gz-sim's `Model::Name`, which the
/// default topics use), or `scoped` when the engine does not know it.
pub fn own_name(world: &WorldRef<'_>, entity: EntityId, scoped: &str) -> String {
    world
        .entity_info(entity)
        .into_option()
        .map(|i| i.name.to_string())
        .unwrap_or_else(|| scoped.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::SystemSetup;
    use sim_plugin_api::ErrorCode;

    #[test]
    fn named_entities_and_the_errors_naming_the_element() {
        let setup = SystemSetup::on_model("P", "rover")
            .with(2, EntityKind::JOINT, "wheel")
            .with(3, EntityKind::LINK, "base");
        setup.world.with(|world| {
            let find =
                |name: &str, kind| find_named(&world, "rover", name, kind, "tag", "rover: P");
            assert_eq!(find("wheel", EntityKind::JOINT).unwrap(), EntityId(2));
            assert_eq!(
                find("rover::wheel", EntityKind::JOINT).unwrap(),
                EntityId(2)
            );
            let e = find("base", EntityKind::JOINT).unwrap_err();
            assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
            assert_eq!(
                e.message.as_str(),
                "rover: P: <tag> `rover::base` is a link, not a joint"
            );
            assert_eq!(
                find("arm", EntityKind::LINK).unwrap_err().message.as_str(),
                "rover: P: <tag> `arm`: no such link in the model"
            );
        });
    }
}
