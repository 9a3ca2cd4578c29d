//! Reading the `<plugin>` element of a velocity control, with gz-sim's defaults.

use sim_plugin_api::sdf::Element;
use sim_plugin_api::{PluginError, Twist, Vec3};
use simcore_plugin_common::gz::{names, valid_topic};

/// The parsed configuration of a velocity control.
#[derive(Clone, Debug, PartialEq)]
pub struct VelocityControlConfig {
    /// `<initial_linear>` and `<initial_angular>`: the model's body-frame twist before any
    /// command (default zero).
    pub initial: Twist,
    /// The model's command topic: `<topic>` when it is a valid name, else
    /// `/model/<m>/cmd_vel`.
    pub topic: String,
    /// `<link_name>`s (any number, empty ones skipped), as written.
    pub links: Vec<String>,
}

impl VelocityControlConfig {
    /// Reads the `<plugin>` element `root` (its messages name the system,
    /// `cart: VelocityControl`); `model` is the model's own name (for the default topic).
    pub fn read(root: &Element<'_, '_>, model: &str) -> Result<VelocityControlConfig, PluginError> {
        let initial = Twist {
            linear: root.get_or("initial_linear", Vec3::ZERO)?,
            angular: root.get_or("initial_angular", Vec3::ZERO)?,
        };
        // gz-sim takes `<topic>` when it is a valid name, else the default.
        let topic = root
            .child("topic")
            .and_then(|t| valid_topic(t.text()))
            .unwrap_or_else(|| format!("/model/{model}/cmd_vel"));
        Ok(VelocityControlConfig {
            initial,
            topic,
            links: names(root, "link_name").unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    fn read(inner: &str) -> Result<VelocityControlConfig, PluginError> {
        let text = format!(
            r#"<plugin name="gz::sim::systems::VelocityControl" filename="x">{inner}</plugin>"#
        );
        let doc = SdfDocument::parse(&text, Origin::new("cart: VelocityControl"))?;
        VelocityControlConfig::read(&doc.root(), "cart")
    }

    #[test]
    fn defaults_as_gazebo() {
        let c = read("").unwrap();
        assert_eq!(c.initial, Twist::default());
        assert_eq!(c.topic, "/model/cart/cmd_vel");
        assert!(c.links.is_empty());
        let c = read("<topic>a//b</topic><link_name> </link_name>").unwrap();
        assert_eq!(
            c.topic, "/model/cart/cmd_vel",
            "an invalid topic is ignored"
        );
        assert!(c.links.is_empty());
    }

    #[test]
    fn everything_set_and_errors() {
        let c = read(
            "<initial_linear>1 0 0</initial_linear><initial_angular>0 0 0.5</initial_angular>\
             <topic>drive</topic><link_name>a</link_name><link_name>b</link_name>",
        )
        .unwrap();
        assert_eq!(c.initial.linear, Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(c.initial.angular, Vec3::new(0.0, 0.0, 0.5));
        assert_eq!(c.topic, "/drive");
        assert_eq!(c.links, ["a", "b"]);
        assert_eq!(
            read("<initial_angular>0 0</initial_angular>")
                .unwrap_err()
                .message
                .as_str(),
            "cart: VelocityControl: <initial_angular> must be three numbers (x y z), found \"0 0\""
        );
    }
}
