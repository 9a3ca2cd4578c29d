//! The Thermal system on visuals (`gz::sim::systems::Thermal`) and the world's
//! `<atmosphere><temperature>`: the temperatures thermal cameras see.
//!
//! As gz-sim's Thermal system, a `<heat_signature>` wins over a `<temperature>`; a Thermal
//! plugin with neither is an error here (gz-sim logs one and gives the visual none).

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::reader::{Reader, children};
use super::scene::is_system_library;
use sim_world::VisualThermal;

/// The ambient temperature without an `<atmosphere><temperature>`, K (SDF's default).
pub const DEFAULT_ATMOSPHERE_TEMPERATURE: f64 = 288.15;

/// The Thermal system's class names (gz-sim and its Ignition predecessor).
const THERMAL_NAMES: [&str; 2] = [
    "gz::sim::systems::Thermal",
    "ignition::gazebo::systems::Thermal",
];

/// Whether `plugin` is the Thermal system (by class name or library).
pub(super) fn is_thermal_plugin(plugin: Node) -> bool {
    THERMAL_NAMES.contains(&plugin.attribute("name").unwrap_or("").trim())
        || is_system_library(plugin.attribute("filename").unwrap_or(""), "thermal")
}

impl Reader<'_> {
    /// The world `node`'s `<atmosphere><temperature>`, K: a number of at least 0.
    pub(super) fn atmosphere_temperature(&self, node: Node) -> Result<f64, SdfError> {
        let Some(t) = self
            .child(node, "atmosphere")
            .and_then(|a| self.child(a, "temperature"))
        else {
            return Ok(DEFAULT_ATMOSPHERE_TEMPERATURE);
        };
        match self.f64_of(Some(t))? {
            Some(v) if v >= 0.0 => Ok(v),
            Some(_) => Err(self.error(
                t,
                ErrorKind::Invalid,
                format!(
                    "<atmosphere><temperature> must be at least 0 K, found {}",
                    self.written(t)
                ),
                "give the ambient temperature in kelvin, e.g. 288.15",
            )),
            None => Ok(DEFAULT_ATMOSPHERE_TEMPERATURE),
        }
    }

    /// The temperature the last Thermal `<plugin>` of the visual `node` gives it, if any.
    pub(super) fn element_thermal(&self, node: Node) -> Result<Option<VisualThermal>, SdfError> {
        let mut thermal = None;
        for p in children(node, "plugin").filter(|p| is_thermal_plugin(*p)) {
            thermal = Some(self.thermal_plugin(p)?);
        }
        Ok(thermal)
    }

    /// What the Thermal `<plugin>` element `plugin` says.
    fn thermal_plugin(&self, plugin: Node) -> Result<VisualThermal, SdfError> {
        if let Some(h) = self.child(plugin, "heat_signature") {
            return Ok(VisualThermal::HeatSignature {
                texture: self.text(h).trimmed().to_string(),
                min: self.f64_of(self.child(plugin, "min_temp"))?,
                max: self.f64_of(self.child(plugin, "max_temp"))?,
            });
        }
        match self.f64_of(self.child(plugin, "temperature"))? {
            Some(t) => Ok(VisualThermal::Uniform(t)),
            None => Err(self.error(
                plugin,
                ErrorKind::Missing,
                "the Thermal plugin has neither <temperature> nor <heat_signature>",
                "give the visual's temperature in kelvin: <temperature>310</temperature>",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_str;
    use sim_world::World;

    const WORLD: &str = r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="w">
    <atmosphere type="adiabatic"><temperature>300</temperature></atmosphere>
    <model name="outer">
      <model name="inner"><link name="l">
        <visual name="hot"><plugin filename="gz-sim-thermal-system" name="gz::sim::systems::Thermal"><temperature>600</temperature></plugin></visual>
      </link></model>
      <link name="l">
        <visual name="warm"><plugin filename="libignition-gazebo6-thermal-system.so" name="x"><temperature>310.5</temperature></plugin></visual>
        <visual name="textured"><plugin filename="gz-sim-thermal-system" name="gz::sim::systems::Thermal"><temperature>400</temperature><heat_signature>heat.png</heat_signature><min_temp>350</min_temp></plugin></visual>
        <visual name="plain"><plugin filename="gz-sim-thermal-sensor-system" name="gz::sim::systems::ThermalSensor"><temperature>1</temperature></plugin></visual>
      </link>
    </model>
  </world>
</sdf>"#;

    fn read(text: &str) -> Result<World, String> {
        parse_str(text, None).map_err(|e| e.render(None))
    }

    #[test]
    fn thermal_plugins_give_visuals_their_temperature() {
        let w = read(WORLD).unwrap();
        assert_eq!(w.atmosphere_temperature, 300.0);
        let outer = &w.models[0];
        let inner = &outer.models[0].links[0].visuals[0];
        assert_eq!(inner.thermal, Some(VisualThermal::Uniform(600.0)));
        let v = &outer.links[0].visuals;
        assert_eq!(v[0].thermal, Some(VisualThermal::Uniform(310.5)));
        assert_eq!(
            v[1].thermal,
            Some(VisualThermal::HeatSignature {
                texture: "heat.png".into(),
                min: Some(350.0),
                max: None,
            }),
            "a heat signature wins over a temperature"
        );
        assert_eq!(v[2].thermal, None, "ThermalSensor is another system");
        let none = read(r#"<sdf version="1.9"><world name="w"/></sdf>"#).unwrap();
        assert_eq!(none.atmosphere_temperature, DEFAULT_ATMOSPHERE_TEMPERATURE);
    }

    #[test]
    fn bad_temperatures_are_errors_with_their_place() {
        let bad = WORLD.replace(">600<", ">scorching<");
        let e = read(&bad).unwrap_err();
        assert!(e.contains("\"scorching\"") && e.contains(":7"), "{e}");
        let e = read(&WORLD.replace(
            "<temperature>300</temperature>",
            "<temperature>-1</temperature>",
        ))
        .unwrap_err();
        assert!(e.contains("at least 0 K"), "{e}");
        let e = read(&WORLD.replace("<temperature>310.5</temperature>", "")).unwrap_err();
        assert!(
            e.contains("neither <temperature> nor <heat_signature>"),
            "{e}"
        );
        // Below absolute zero on a visual (gz-sim's thermal_invalid world): kept.
        let cold = read(&WORLD.replace(">600<", ">-10<")).unwrap();
        let inner = &cold.models[0].models[0].links[0].visuals[0];
        assert_eq!(inner.thermal, Some(VisualThermal::Uniform(-10.0)));
    }
}
