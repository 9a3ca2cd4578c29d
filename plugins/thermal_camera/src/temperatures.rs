//! The temperatures a thermal camera sees: those the `gz::sim::systems::Thermal` system puts
//! on visuals, and the world's ambient temperature for everything else.
//!
//! ```xml
//! <world name="w">
//!   <atmosphere type="adiabatic"><temperature>300</temperature></atmosphere>  <!-- ambient, K -->
//!   <model name="engine"><link name="block">
//!     <visual name="v">
//!       ...
//!       <plugin filename="gz-sim-thermal-system" name="gz::sim::systems::Thermal">
//!         <temperature>350</temperature>                                       <!-- K -->
//!       </plugin>
//!     </visual>
//!   </link></model>
//! </world>
//! ```
//!
//! The plugin interface hands a sensor its own `<sensor>` element only, so the camera reads
//! these from the world file its `<sensor>` is in (the file of
//! [`SensorConfig::source`](sim_plugin_api::SensorConfig::source)), once, when it is created:
//! every `<visual>` of the world's models (nested ones too) with a Thermal plugin, keyed by
//! its scoped name (`model::link::visual`). A world given as text without a file, models
//! included from other files and models spawned later have no Thermal temperatures: they
//! read the ambient temperature (288.15 K without an `<atmosphere><temperature>`).
//! A `<temperature>` that is not a number is refused (one below 0 K is kept, with a
//! warning, and reads as 0 K, as gz-sim's `thermal_invalid` world expects); a Thermal plugin with a
//! `<heat_signature>` texture (not simulated) or without a temperature is ignored with a
//! warning.

use sim_plugin_api::{
    PluginError,
    sdf::{Element, Origin, SdfDocument},
};
use std::collections::HashMap;

/// The ambient temperature without an `<atmosphere><temperature>`, K (as SDF's default).
pub const DEFAULT_AMBIENT: f64 = 288.15;

/// The largest world file read, bytes (the SDF reader's limit, 16 MiB).
pub const MAX_WORLD_FILE: u64 = 16 << 20;

/// Names of the Thermal system (gz-sim and its Ignition predecessor).
pub const THERMAL_NAMES: [&str; 2] = [
    "gz::sim::systems::Thermal",
    "ignition::gazebo::systems::Thermal",
];

/// The Thermal temperatures of a world's visuals and its ambient temperature.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldTemperatures {
    /// The world's ambient temperature, K.
    pub ambient: f64,
    /// Temperature of each visual with a Thermal plugin, by scoped name, K.
    pub visuals: HashMap<String, f64>,
    /// Warnings about Thermal plugins ignored (to be logged once).
    pub warnings: Vec<String>,
}

impl Default for WorldTemperatures {
    fn default() -> Self {
        WorldTemperatures {
            ambient: DEFAULT_AMBIENT,
            visuals: HashMap::new(),
            warnings: Vec::new(),
        }
    }
}

impl WorldTemperatures {
    /// Reads the world file `file` (empty: none, the defaults); `owner` names the sensor in
    /// messages. A file that cannot be read, is larger than the SDF reader's limit or is not
    /// well-formed is an error.
    pub fn from_file(file: &str, owner: &str) -> Result<Self, PluginError> {
        if file.is_empty() {
            return Ok(WorldTemperatures::default());
        }
        let fail = |m: String| PluginError::config(format!("{owner}: world file {file}: {m}"));
        let len = std::fs::metadata(file)
            .map_err(|e| fail(e.to_string()))?
            .len();
        if len > MAX_WORLD_FILE {
            return Err(fail(format!("larger than {MAX_WORLD_FILE} bytes")));
        }
        let text = std::fs::read_to_string(file).map_err(|e| fail(e.to_string()))?;
        WorldTemperatures::from_text(
            &text,
            Origin {
                owner,
                file,
                line: 1,
            },
        )
    }

    /// Reads the temperatures of the SDF document `text` (a world file's contents).
    pub fn from_text(text: &str, origin: Origin<'_>) -> Result<Self, PluginError> {
        let doc = SdfDocument::parse(text, origin)?;
        let mut out = WorldTemperatures::default();
        let root = doc.root();
        let Some(world) = root.child("world") else {
            return Ok(out);
        };
        out.ambient = world
            .param::<f64>("atmosphere/temperature")
            .unit("kelvin")
            .non_negative()
            .or(DEFAULT_AMBIENT)?;
        for model in world.children_named("model") {
            out.read_model(&model, "")?;
        }
        Ok(out)
    }

    /// The temperature of the visual named `scoped_name`, if a Thermal plugin gave one.
    pub fn of(&self, scoped_name: &str) -> Option<f64> {
        self.visuals.get(scoped_name).copied()
    }

    fn read_model(&mut self, model: &Element<'_, '_>, prefix: &str) -> Result<(), PluginError> {
        let name = format!("{prefix}{}", model.attribute("name").unwrap_or_default());
        for nested in model.children_named("model") {
            self.read_model(&nested, &format!("{name}::"))?;
        }
        for link in model.children_named("link") {
            let link_name = link.attribute("name").unwrap_or_default();
            for visual in link.children_named("visual") {
                let scoped = format!(
                    "{name}::{link_name}::{}",
                    visual.attribute("name").unwrap_or_default()
                );
                for plugin in visual.children_named("plugin").filter(is_thermal) {
                    if plugin.has("heat_signature") {
                        self.warnings.push(format!(
                            "visual {scoped}: Thermal <heat_signature> textures are not simulated; it reads the ambient temperature"
                        ));
                        continue;
                    }
                    match plugin.param::<f64>("temperature").unit("kelvin").get()? {
                        Some(t) => {
                            if t < 0.0 {
                                self.warnings.push(format!(
                                    "visual {scoped}: Thermal <temperature> {t} K is below absolute zero; it reads as 0 K"
                                ));
                            }
                            self.visuals.insert(scoped.clone(), t);
                        }
                        None => self.warnings.push(format!(
                            "visual {scoped}: the Thermal plugin has neither <temperature> nor <heat_signature>; ignored"
                        )),
                    }
                }
            }
        }
        Ok(())
    }
}

/// Whether `p` (a `<plugin>`) is the Thermal system (not the ThermalSensor one).
fn is_thermal(p: &Element<'_, '_>) -> bool {
    p.attribute("name")
        .is_some_and(|n| THERMAL_NAMES.contains(&n))
        || p.attribute("filename").is_some_and(|f| {
            let stem = f.rsplit('/').next().unwrap_or(f);
            stem.contains("thermal-system") && !stem.contains("thermal-sensor-system")
        })
}
