//! Reading the `<plugin>` element of a buoyancy system, with gz-sim's defaults.

use crate::volume::Layers;
use sim_plugin_api::PluginError;
use simcore_plugin_common::sdf::parse_f64;
use simcore_plugin_common::{Reader, parse_plugin_sdf, text};

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
    /// Parses the `<plugin>` element given as XML text; `who` names the plugin in errors.
    pub fn parse(sdf: &str, who: &str) -> Result<BuoyancyConfig, PluginError> {
        let mut c = BuoyancyConfig {
            fluid: Fluid::Uniform(1000.0),
            enabled: Vec::new(),
            defaulted: true,
        };
        let Some(doc) = parse_plugin_sdf(sdf, who)? else {
            return Ok(c);
        };
        let root = doc.root_element();
        let r = Reader::new(who);
        let graded = root
            .children()
            .find(|n| n.is_element() && n.tag_name().name() == "graded_buoyancy");
        if let Some(rho) = r.number(root, &["uniform_fluid_density"])? {
            c.fluid = Fluid::Uniform(rho);
            c.defaulted = false;
        } else if let Some(g) = graded {
            let mut layers = Layers {
                default_density: r.number(g, &["default_density"])?.unwrap_or(1000.0),
                changes: Vec::new(),
            };
            for d in g
                .children()
                .filter(|n| n.is_element() && n.tag_name().name() == "density_change")
            {
                if layers.changes.len() == MAX_LAYERS {
                    return Err(PluginError::config(format!(
                        "{who}: more than {MAX_LAYERS} <density_change> layers"
                    )));
                }
                let num = |tag: &str| -> Result<f64, PluginError> {
                    match text(d, tag) {
                        None => Ok(0.0),
                        Some(t) => parse_f64(t).ok_or_else(|| {
                            r.error(&format!("<density_change><{tag}>"), "a number", t)
                        }),
                    }
                };
                layers.set(num("above_depth")?, num("density")?);
            }
            c.fluid = Fluid::Graded(layers);
            c.defaulted = false;
        }
        c.enabled = root
            .children()
            .filter(|n| n.is_element() && n.tag_name().name() == "enable")
            .map(|n| n.text().unwrap_or("").trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(inner: &str) -> Result<BuoyancyConfig, PluginError> {
        BuoyancyConfig::parse(
            &format!(r#"<plugin name="gz::sim::systems::Buoyancy" filename="x">{inner}</plugin>"#),
            "test: Buoyancy",
        )
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
        assert!(e.unwrap_err().message.contains("<density>"));
        assert!(parse("<uniform_fluid_density>x</uniform_fluid_density>").is_err());
    }
}
