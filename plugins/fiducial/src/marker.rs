//! The fiducial marker: a model plugin that carries a `<fiducial_id>`.

use sim_plugin_api::prelude::*;
use sim_plugin_api::sdf::{Element, SdfError};
use simcore_plugin_common::plugin_document;

/// What a `<fiducial_id>` must be, in messages.
const ID: &str = "a whole number of at least 1";

/// Marks its model with a fiducial id. It does nothing at run time: fiducial sensors read
/// the id from the model's `<plugin>` elements (through the engine's model plugins
/// extension); the plugin exists so that the element is checked when the world loads.
#[derive(Debug)]
pub struct FiducialMarker {
    /// The id.
    pub id: i64,
}

impl FiducialMarker {
    /// Checks the element: on a model, with a `<fiducial_id>` that is a whole number >= 1.
    pub fn create(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let who = format!("{}: FiducialMarker", config.entity_name);
        if !simcore_plugin_common::on_model(config, world) {
            return Err(PluginError::config(format!(
                "{who}: must be attached to a model"
            )));
        }
        let doc = plugin_document(config, &who)?;
        FiducialMarker::read(&doc.root())
    }

    /// Reads the `<plugin>` element `root`: its `<fiducial_id>` is required.
    pub fn read(root: &Element<'_, '_>) -> Result<Self, PluginError> {
        let id = marker_id(root)?.ok_or_else(|| root.missing("fiducial_id", ID))?;
        Ok(FiducialMarker { id })
    }
}

/// The `<fiducial_id>` child of `plugin` (a `<plugin>` element): `None` when absent, an error
/// when it is not a whole number of at least 1.
pub fn marker_id(plugin: &Element<'_, '_>) -> Result<Option<i64>, SdfError> {
    let Some(e) = plugin.child("fiducial_id") else {
        return Ok(None);
    };
    match e.text().parse::<i64>() {
        Ok(id) if id >= 1 => Ok(Some(id)),
        _ => Err(e.error(ID, e.text())),
    }
}

impl System for FiducialMarker {}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::sdf::{Origin, SdfDocument};
    use sim_plugin_api::testing::{StaticWorld, system_config};

    fn read(text: &str) -> Result<FiducialMarker, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new("tagged: FiducialMarker"))?;
        FiducialMarker::read(&doc.root())
    }

    #[test]
    fn the_id_is_a_whole_number_of_at_least_1() {
        assert_eq!(
            read("<plugin><fiducial_id> 7 </fiducial_id></plugin>")
                .unwrap()
                .id,
            7
        );
        for bad in ["0", "-2", "two", "1.5", ""] {
            let e = read(&format!(
                "<plugin><fiducial_id>{bad}</fiducial_id></plugin>"
            ))
            .unwrap_err();
            assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
            assert_eq!(
                e.message.as_str(),
                format!(
                    "tagged: FiducialMarker: <fiducial_id> must be a whole number of at least 1, \
                     found \"{bad}\""
                )
            );
        }
        assert_eq!(
            read("<plugin/>").unwrap_err().message.as_str(),
            "tagged: FiducialMarker: <fiducial_id> is required (a whole number of at least 1)"
        );
    }

    #[test]
    fn errors_name_the_place_in_the_world_file() {
        let mut world = StaticWorld::default();
        world.set_entity(
            sim_plugin_api::EntityId(4),
            EntityKind::MODEL,
            sim_plugin_api::EntityId(1),
            "tagged",
        );
        let config = system_config(
            "simcore::FiducialMarker",
            sim_plugin_api::EntityId(4),
            "tagged",
            "<plugin name=\"simcore::FiducialMarker\" filename=\"f\">\n  <fiducial_id>x</fiducial_id>\n</plugin>",
        )
        .with_source("world.sdf", 9);
        let e = world
            .with(|w| FiducialMarker::create(&config, &w).map(|_| ()))
            .unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "tagged: FiducialMarker: <fiducial_id> must be a whole number of at least 1, found \"x\" at world.sdf:10"
        );
    }
}
