//! Reading the `<plugin>` element of the truth widget / pose publisher.

use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::Element;

/// The parsed configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct TruthConfig {
    /// `<update_frequency>`, Hz (default 50; 0 or negative: every step).
    pub update_frequency: f64,
    /// `<publish_model_pose>` (default true): the models themselves.
    pub publish_model_pose: bool,
    /// `<publish_link_pose>` (default false): the links of the published models.
    pub publish_link_pose: bool,
    /// `<publish_nested_model_pose>` (default false): models nested in the published ones.
    pub publish_nested_model_pose: bool,
}

impl Default for TruthConfig {
    fn default() -> Self {
        TruthConfig {
            update_frequency: 50.0,
            publish_model_pose: true,
            publish_link_pose: false,
            publish_nested_model_pose: false,
        }
    }
}

impl TruthConfig {
    /// Reads the `<plugin>` element `root` (its messages name the system,
    /// `w: gz::sim::systems::PosePublisher`).
    pub fn read(root: &Element<'_, '_>) -> Result<TruthConfig, PluginError> {
        let d = TruthConfig::default();
        Ok(TruthConfig {
            update_frequency: root.get_or("update_frequency", d.update_frequency)?,
            publish_model_pose: root.get_or("publish_model_pose", d.publish_model_pose)?,
            publish_link_pose: root.get_or("publish_link_pose", d.publish_link_pose)?,
            publish_nested_model_pose: root
                .get_or("publish_nested_model_pose", d.publish_nested_model_pose)?,
        })
    }

    /// The publishing period in nanoseconds (0: every step).
    pub fn period_ns(&self) -> i64 {
        simcore_plugin_common::period_ns(self.update_frequency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::ErrorCode;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    fn parse(text: &str, who: &str) -> Result<TruthConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new(who))?;
        TruthConfig::read(&doc.root())
    }

    #[test]
    fn defaults_and_values() {
        assert_eq!(parse("", "w").unwrap(), TruthConfig::default());
        let c = parse(
            "<plugin name=\"p\"><update_frequency>10</update_frequency>\
             <publish_link_pose>true</publish_link_pose>\
             <publish_nested_model_pose>1</publish_nested_model_pose>\
             <publish_model_pose>false</publish_model_pose></plugin>",
            "w",
        )
        .unwrap();
        assert_eq!(c.update_frequency, 10.0);
        assert_eq!(c.period_ns(), 100_000_000);
        assert!(c.publish_link_pose && c.publish_nested_model_pose && !c.publish_model_pose);
        let every = parse(
            "<plugin><update_frequency>-1</update_frequency></plugin>",
            "w",
        )
        .unwrap();
        assert_eq!(every.period_ns(), 0);
    }

    #[test]
    fn errors() {
        let e = parse(
            "<plugin><publish_link_pose>yes</publish_link_pose></plugin>",
            "w: PosePublisher",
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "w: PosePublisher: <publish_link_pose> must be true, false, 1 or 0, found \"yes\""
        );
        let e = parse(
            "<plugin><update_frequency>often</update_frequency></plugin>",
            "w",
        )
        .unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "w: <update_frequency> must be a finite number, found \"often\""
        );
        assert!(
            parse("<plugin>", "w")
                .unwrap_err()
                .message
                .starts_with("w: the element is not valid XML")
        );
    }
}
