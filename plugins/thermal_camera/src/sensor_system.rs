//! The `gz::sim::systems::ThermalSensor` system: in Gazebo it hands a thermal camera its
//! range and resolution. Here the thermal camera reads them from the `<plugin>` inside its
//! own `<sensor>` ([`ThermalParams`]); the system exists so that the element is served and
//! checked when the world loads, and does nothing at run time.

use crate::params::ThermalParams;
use sim_plugin_api::prelude::*;
use simcore_plugin_common::gz::GzSystem;
use simcore_plugin_common::plugin_document;

/// The ThermalSensor system (no run-time behaviour; see the module documentation).
#[derive(Debug)]
pub struct ThermalSensorSystem {
    /// The parameters its element gives.
    pub params: ThermalParams,
}

impl GzSystem for ThermalSensorSystem {
    /// Checks the element: `<min_temp>`, `<max_temp>` and `<resolution>`, when given, must be
    /// numbers (the values Gazebo ignores are the camera's to warn about); messages name the
    /// sensor and the system (`model::link::sensor: ThermalSensor`).
    fn build(config: &SystemConfig<'_>, _world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let who = format!("{}: ThermalSensor", config.entity_name);
        let doc = plugin_document(config, &who)?;
        let mut params = ThermalParams::new(false);
        params.read_plugin(&doc.root())?;
        params.warnings.clear();
        Ok(ThermalSensorSystem { params })
    }
}

impl System for ThermalSensorSystem {}
