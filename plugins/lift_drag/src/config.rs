//! Reading the `<plugin>` element of a lift-drag system, with gz-sim's defaults.

use crate::aero::Coefficients;
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{PluginError, Vec3};
use simcore_plugin_common::gz::{first_named, required_name};

/// The parsed configuration of a lift-drag system.
#[derive(Clone, Debug, PartialEq)]
pub struct LiftDragConfig {
    /// `<link_name>` (required).
    pub link: String,
    /// `<control_joint_name>`, if any.
    pub control_joint: Option<String>,
    /// The aerodynamic parameters.
    pub coefficients: Coefficients,
}

impl LiftDragConfig {
    /// Reads the `<plugin>` element `root`.
    pub fn read(root: &Element<'_, '_>) -> Result<LiftDragConfig, PluginError> {
        let num = |tag: &str, default: f64| root.get_or(tag, default);
        let unit = |tag: &str, default: Vec3| {
            let v = root
                .param::<Vec3>(tag)
                .check("a non-zero vector", |v| v.length() > 0.0);
            Ok::<_, PluginError>(v.get()?.map_or(default, Vec3::normalized))
        };
        // gz-sim reads the first <link_name>.
        let link = required_name(root, "link_name")?.text().to_string();
        let coefficients = Coefficients {
            cla: num("cla", 1.0)?,
            cda: num("cda", 0.01)?,
            cma: num("cma", 0.0)?,
            alpha_stall: num("alpha_stall", std::f64::consts::FRAC_PI_2)?,
            cla_stall: num("cla_stall", 0.0)?,
            cda_stall: num("cda_stall", 1.0)?,
            cma_stall: num("cma_stall", 0.0)?,
            rho: num("air_density", 1.2041)?,
            area: num("area", 1.0)?,
            alpha0: num("a0", 0.0)?,
            cp: root.get_or("cp", Vec3::ZERO)?,
            forward: unit("forward", Vec3::new(1.0, 0.0, 0.0))?,
            upward: unit("upward", Vec3::new(0.0, 0.0, 1.0))?,
            radial_symmetry: root.get_or("radial_symmetry", false)?,
            reversible: root.get_or("reversible", false)?,
            control_to_cl: num("control_joint_rad_to_cl", 4.0)?,
            cm_delta: num("cm_delta", 0.0)?,
        };
        Ok(LiftDragConfig {
            link,
            control_joint: first_named(root, "control_joint_name").map(|j| j.text().to_string()),
            coefficients,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::ErrorCode;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    fn parse(inner: &str) -> Result<LiftDragConfig, PluginError> {
        let text =
            format!(r#"<plugin name="gz::sim::systems::LiftDrag" filename="x">{inner}</plugin>"#);
        let doc = SdfDocument::parse(&text, Origin::new("plane: LiftDrag"))?;
        LiftDragConfig::read(&doc.root())
    }

    #[test]
    fn defaults_as_gazebo_and_errors() {
        let c = parse("<link_name>wing</link_name>").unwrap();
        assert_eq!(c.link, "wing");
        assert_eq!(c.control_joint, None);
        let k = c.coefficients;
        assert_eq!((k.cla, k.cda, k.cma), (1.0, 0.01, 0.0));
        assert_eq!(k.alpha_stall, std::f64::consts::FRAC_PI_2);
        assert_eq!((k.cla_stall, k.cda_stall, k.cma_stall), (0.0, 1.0, 0.0));
        assert_eq!((k.rho, k.area, k.alpha0), (1.2041, 1.0, 0.0));
        assert_eq!(k.forward, Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(k.upward, Vec3::new(0.0, 0.0, 1.0));
        assert!(!k.radial_symmetry && !k.reversible);
        assert_eq!((k.control_to_cl, k.cm_delta), (4.0, 0.0));
        let c = parse("<link_name>w</link_name><forward>2 0 0</forward><control_joint_name>flap</control_joint_name>").unwrap();
        assert_eq!(c.coefficients.forward, Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(c.control_joint.as_deref(), Some("flap"));
        let msg = |inner: &str| parse(inner).unwrap_err().message.to_string();
        assert_eq!(msg(""), "plane: LiftDrag: needs a <link_name>");
        assert_eq!(parse("").unwrap_err().code, ErrorCode::NOT_FOUND);
        assert_eq!(
            msg("<link_name>w</link_name><upward>0 0 0</upward>"),
            "plane: LiftDrag: <upward> must be a non-zero vector, found \"0 0 0\""
        );
        assert!(msg("<link_name>w</link_name><cla>x</cla>").contains("<cla>"));
    }
}
