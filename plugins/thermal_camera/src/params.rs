//! The thermal camera's parameters: the `gz::sim::systems::ThermalSensor` plugin inside its
//! `<sensor>` and the bit depth from `<camera><image><format>`.
//!
//! ```xml
//! <sensor name="thermal" type="thermal">
//!   <camera><image><format>L16</format></image></camera>   <!-- L8: 8-bit -->
//!   <plugin filename="gz-sim-thermal-sensor-system" name="gz::sim::systems::ThermalSensor">
//!     <min_temp>253.15</min_temp>     <!-- K -->
//!     <max_temp>673.15</max_temp>     <!-- K -->
//!     <resolution>3.0</resolution>    <!-- K per count -->
//!   </plugin>
//! </sensor>
//! ```
//!
//! As in gz-sim, naming either `<min_temp>` or `<max_temp>` sets the range, the other end
//! defaulting to 0 K or no upper limit; without either there is no range. The resolution
//! defaults to 0.01 K (16-bit) or 3 K (8-bit, where a resolution under 1 K is raised to
//! 3 K, as gz-sensors does). Text that does not read as a number is refused; a range whose
//! minimum exceeds its maximum and a resolution that is not positive are ignored with a
//! warning (the world still loads, as in Gazebo).

use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::{Element, SdfError};
use simcore_plugin_camera_common::ImageFormat;
use simcore_plugin_common::sdf::owner;

/// Names of the ThermalSensor system (gz-sim and its Ignition predecessor).
pub const THERMAL_SENSOR_NAMES: [&str; 2] = [
    "gz::sim::systems::ThermalSensor",
    "ignition::gazebo::systems::ThermalSensor",
];

/// The default linear resolution of a 16-bit image, K per count.
pub const DEFAULT_RESOLUTION: f64 = 0.01;
/// The resolution of an 8-bit image when the one given is under 1 K.
pub const EIGHT_BIT_RESOLUTION: f64 = 3.0;

/// What the thermal camera turns temperatures into counts with.
#[derive(Clone, Debug, PartialEq)]
pub struct ThermalParams {
    /// The range temperatures are clamped to, K (`None`: not clamped).
    pub range: Option<(f64, f64)>,
    /// Kelvin per count.
    pub resolution: f64,
    /// An 8-bit (`L_INT8`) image; else 16-bit (`L_INT16`).
    pub eight_bit: bool,
    /// Warnings about values ignored (to be logged once).
    pub warnings: Vec<String>,
}

impl ThermalParams {
    /// Gazebo's defaults: no range, 0.01 K per count (before the 8-bit adjustment).
    pub fn new(eight_bit: bool) -> Self {
        ThermalParams {
            range: None,
            resolution: DEFAULT_RESOLUTION,
            eight_bit,
            warnings: Vec::new(),
        }
    }

    /// Reads the parameters of the thermal camera `sensor` (its `<sensor>` element, holding
    /// the ThermalSensor `<plugin>`) whose image format is `format`.
    pub fn read(sensor: &Element<'_, '_>, format: ImageFormat) -> Result<Self, PluginError> {
        let name = owner(sensor);
        let eight_bit = format == ImageFormat::L8;
        let mut p = ThermalParams::new(eight_bit);
        if let Some(plugin) = sensor.children_named("plugin").find(is_thermal_sensor) {
            p.read_plugin(&plugin)?;
        }
        if eight_bit && p.resolution < 1.0 {
            p.warnings.push(format!(
                "{name}: an 8-bit thermal image needs a resolution of at least 1 K; using {EIGHT_BIT_RESOLUTION} K"
            ));
            p.resolution = EIGHT_BIT_RESOLUTION;
        }
        Ok(p)
    }

    /// Reads `<min_temp>`, `<max_temp>` and `<resolution>` of `plugin` (a ThermalSensor
    /// `<plugin>` element); warnings name its document's owner.
    pub fn read_plugin(&mut self, plugin: &Element<'_, '_>) -> Result<(), SdfError> {
        let name = owner(plugin);
        let min = plugin.param::<f64>("min_temp").unit("kelvin").get()?;
        let max = plugin.param::<f64>("max_temp").unit("kelvin").get()?;
        if min.is_some() || max.is_some() {
            let (lo, hi) = (min.unwrap_or(0.0), max.unwrap_or(f64::INFINITY));
            if lo <= hi {
                self.range = Some((lo, hi));
            } else {
                self.warnings.push(format!(
                    "{name}: ThermalSensor <min_temp> {lo} exceeds <max_temp> {hi}; temperatures are not clamped"
                ));
            }
        }
        if let Some(r) = plugin.param::<f64>("resolution").unit("kelvin").get()? {
            if r > 0.0 {
                self.resolution = r;
            } else {
                self.warnings.push(format!(
                    "{name}: ThermalSensor <resolution> must be positive, found {r}; using {DEFAULT_RESOLUTION} K"
                ));
            }
        }
        Ok(())
    }

    /// The count of temperature `kelvin`: clamped to the range, divided by the resolution,
    /// rounded, saturated to the image's bit depth.
    pub fn count(&self, kelvin: f64) -> u16 {
        let t = match self.range {
            Some((lo, hi)) => kelvin.clamp(lo, hi),
            None => kelvin,
        };
        let top = if self.eight_bit { 255.0 } else { 65535.0 };
        let c = (t / self.resolution).round();
        if c.is_nan() {
            0
        } else {
            c.clamp(0.0, top) as u16
        }
    }
}

/// Whether `p` (a `<plugin>`) is the ThermalSensor system.
pub fn is_thermal_sensor(p: &Element<'_, '_>) -> bool {
    p.attribute("name")
        .is_some_and(|n| THERMAL_SENSOR_NAMES.contains(&n))
        || p.attribute("filename").is_some_and(|f| {
            let stem = f.rsplit('/').next().unwrap_or(f);
            stem.contains("thermal-sensor-system")
        })
}
