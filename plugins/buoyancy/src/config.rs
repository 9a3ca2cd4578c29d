//! Reading the `<plugin>` element of a buoyancy system, with gz-sim's defaults.

use crate::volume::Layers;
use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::Element;

/// The fluid the world is filled with.
#[derive(Clone, Debug, PartialEq)]
pub enum Fluid {
    /// `<uniform_fluid_density>` (default 1000 kg/m³): every link is wholly immersed.
    Uniform(f64),
    /// `<graded_buoyancy>`: densities by height.
    Graded(Layers),
}

/// The parsed configuration of a buoyancy system.
#[derive(Clone, Debug, PartialEq)]
pub struct BuoyancyConfig {
    /// The fluid.
    pub fluid: Fluid,
    /// `<enable>` names (scoped, without the world): only these links and the links of these
    /// models feel the fluid; empty: every link.
    pub enabled: Vec<String>,
    /// Whether neither a uniform nor a graded fluid was given (gz-sim warns and uses water).
    pub defaulted: bool,
}

/// The largest number of `<density_change>` layers read.
pub const MAX_LAYERS: usize = 256;

impl BuoyancyConfig {
    /// Reads the `<plugin>` element `root`.
    pub fn read(root: &Element<'_, '_>) -> Result<BuoyancyConfig, PluginError> {
        let mut c = BuoyancyConfig {
            fluid: Fluid::Uniform(1000.0),
            enabled: Vec::new(),
            defaulted: true,
        };
        if let Some(rho) = root.get::<f64>("uniform_fluid_density")? {
            c.fluid = Fluid::Uniform(rho);
            c.defaulted = false;
        } else if let Some(g) = root.child("graded_buoyancy") {
            let layers = g.children_named("density_change").count();
            if layers > MAX_LAYERS {
                return Err(g
                    .error(
                        format!("at most {MAX_LAYERS} <density_change> layers"),
                        layers.to_string(),
                    )
                    .into());
            }
            let mut layers = Layers {
                default_density: g.get_or("default_density", 1000.0)?,
                changes: Vec::new(),
            };
            for d in g.children_named("density_change") {
                layers.set(d.get_or("above_depth", 0.0)?, d.get_or("density", 0.0)?);
            }
            c.fluid = Fluid::Graded(layers);
            c.defaulted = false;
        }
        c.enabled = root
            .children_named("enable")
            .map(|n| n.text().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::sdf::{Origin, SdfDocument};
    use sim_plugin_api::testing::system_config;
    use sim_plugin_api::{EntityId, ErrorCode};
    use simcore_plugin_common::plugin_document;

    fn parse(inner: &str) -> Result<BuoyancyConfig, PluginError> {
        let text =
            format!(r#"<plugin name="gz::sim::systems::Buoyancy" filename="x">{inner}</plugin>"#);
        let doc = SdfDocument::parse(&text, Origin::new("test: Buoyancy"))?;
        BuoyancyConfig::read(&doc.root())
    }

    #[test]
    fn uniform_graded_and_defaults() {
        let c = parse("").unwrap();
        assert_eq!((c.fluid, c.defaulted), (Fluid::Uniform(1000.0), true));
        let c = parse("<uniform_fluid_density>1025</uniform_fluid_density><enable>boat</enable>")
            .unwrap();
        assert_eq!(c.fluid, Fluid::Uniform(1025.0));
        assert_eq!(c.enabled, ["boat"]);
        let c = parse(
            "<graded_buoyancy><default_density>1000</default_density>\
             <density_change><above_depth>0</above_depth><density>1</density></density_change>\
             <density_change><above_depth>-5</above_depth><density>999</density></density_change>\
             </graded_buoyancy>",
        )
        .unwrap();
        let Fluid::Graded(l) = c.fluid else { panic!() };
        assert_eq!(l.default_density, 1000.0);
        assert_eq!(l.changes, [(-5.0, 999.0), (0.0, 1.0)], "sorted by height");
        let e = parse(
            "<graded_buoyancy><density_change><density>x</density></density_change></graded_buoyancy>",
        );
        assert_eq!(
            e.unwrap_err().message.as_str(),
            "test: Buoyancy: <graded_buoyancy><density_change><density> must be a finite number, \
             found \"x\""
        );
        assert!(parse("<uniform_fluid_density>x</uniform_fluid_density>").is_err());
        let many = "<density_change/>".repeat(MAX_LAYERS + 1);
        assert_eq!(
            parse(&format!("<graded_buoyancy>{many}</graded_buoyancy>"))
                .unwrap_err()
                .message
                .as_str(),
            "test: Buoyancy: <graded_buoyancy> must be at most 256 <density_change> layers, \
             found \"257\""
        );
        assert!(
            parse(&format!(
                "<graded_buoyancy>{}</graded_buoyancy>",
                &many[17..]
            ))
            .is_ok()
        );
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let sdf = "<plugin name=\"gz::sim::systems::Buoyancy\" filename=\"f\">\n  \
                   <graded_buoyancy>\n    <default_density>heavy</default_density>\n  \
                   </graded_buoyancy>\n</plugin>";
        let config = system_config("gz::sim::systems::Buoyancy", EntityId(1), "sea", sdf)
            .with_source("world.sdf", 40);
        let doc = plugin_document(&config, "sea: Buoyancy").unwrap();
        let e = BuoyancyConfig::read(&doc.root()).unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "sea: Buoyancy: <graded_buoyancy><default_density> must be a finite number, \
             found \"heavy\" at world.sdf:42"
        );
    }
}
