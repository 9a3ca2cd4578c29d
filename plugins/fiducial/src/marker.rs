//! The fiducial marker: a model plugin that carries a `<fiducial_id>`.

use sim_plugin_api::prelude::*;
use simcore_plugin_common::{parse_plugin_sdf, text};

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
        let doc = parse_plugin_sdf(config.sdf.as_str(), &who)?;
        let t = doc
            .as_ref()
            .and_then(|d| text(d.root_element(), "fiducial_id"))
            .ok_or_else(|| PluginError::config(format!("{who}: needs <fiducial_id>")))?;
        match t.parse::<i64>() {
            Ok(id) if id >= 1 => Ok(FiducialMarker { id }),
            _ => Err(PluginError::config(format!(
                "{who}: <fiducial_id> must be a whole number of at least 1, found \"{t}\""
            ))),
        }
    }
}

impl System for FiducialMarker {}
