//! # simcore-plugin-common: helpers shared by the simcore sensor plugins
//!
//! The in-tree sensor plugins read their configuration the same way and measure from the same
//! place, so the pieces they share live here, once:
//!
//! - [`sdf`]: parsing the sensor's `<sensor>` element (given to a plugin as self-contained XML
//!   text), finding elements by path, reading numbers, and configuration errors that name the
//!   sensor, the element and the text found there;
//! - [`noise`]: reading a `<noise>` element into [`NoiseParams`](sim_plugin_api::noise::NoiseParams)
//!   and a [`NoiseChannel`], one seeded noise stream per measured component;
//! - [`frame`]: the motion of the sensor's own frame from the motion of its link;
//! - [`surfaces`]: a property of the surfaces rays hit, looked up in batches and kept;
//! - [`attached_model`]: the model a model system is attached to, or the error saying where
//!   it belongs.
//!
//! This is an ordinary Rust library (an `rlib`): each plugin library links its own copy, and
//! nothing here crosses the plugin boundary.

pub use roxmltree;

pub mod frame;
pub mod noise;
pub mod sdf;
pub mod surfaces;

pub use frame::{sensor_frame, sensor_state};
pub use noise::{NoiseChannel, gaussian_variance};
pub use sdf::{Reader, child, descend, parse_bool, parse_plugin_sdf, parse_sensor_sdf, text};
pub use surfaces::EntitySurfaces;

/// The scoped name of the model a model system is attached to; a configuration error naming
/// `plugin` when `config` attaches it to anything else (the world, a link...).
pub fn attached_model<'c>(
    config: &'c sim_plugin_api::SystemConfig<'_>,
    world: &sim_plugin_api::WorldRef<'_>,
    plugin: &str,
) -> Result<&'c str, sim_plugin_api::PluginError> {
    let model = config.entity_name.as_str();
    let kind = world
        .entity_info(config.entity)
        .into_option()
        .map(|i| i.kind);
    if kind != Some(sim_plugin_api::EntityKind::MODEL) {
        return Err(sim_plugin_api::PluginError::config(format!(
            "{plugin} must be attached to a model, not to `{model}`"
        )));
    }
    Ok(model)
}
