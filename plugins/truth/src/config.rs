//! Reading the `<plugin>` element of the truth widget / pose publisher.

use sim_plugin_api::PluginError;
use simcore_plugin_common::Reader;
use simcore_plugin_common::parse_plugin_sdf;

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
    /// Parses the `<plugin>` element given as XML text; `who` names the plugin in errors.
    pub fn parse(plugin_sdf: &str, who: &str) -> Result<TruthConfig, PluginError> {
        let Some(doc) = parse_plugin_sdf(plugin_sdf, who)? else {
            return Ok(TruthConfig::default());
        };
        let root = doc.root_element();
        let r = Reader::new(who);
        let d = TruthConfig::default();
        Ok(TruthConfig {
            update_frequency: r
                .number(root, &["update_frequency"])?
                .unwrap_or(d.update_frequency),
            publish_model_pose: r
                .boolean(root, "publish_model_pose")?
                .unwrap_or(d.publish_model_pose),
            publish_link_pose: r
                .boolean(root, "publish_link_pose")?
                .unwrap_or(d.publish_link_pose),
            publish_nested_model_pose: r
                .boolean(root, "publish_nested_model_pose")?
                .unwrap_or(d.publish_nested_model_pose),
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

    #[test]
    fn defaults_and_values() {
        assert_eq!(TruthConfig::parse("", "w").unwrap(), TruthConfig::default());
        let c = TruthConfig::parse(
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
        let every = TruthConfig::parse(
            "<plugin><update_frequency>-1</update_frequency></plugin>",
            "w",
        )
        .unwrap();
        assert_eq!(every.period_ns(), 0);
    }

    #[test]
    fn errors() {
        let e = TruthConfig::parse(
            "<plugin><publish_link_pose>yes</publish_link_pose></plugin>",
            "w: PosePublisher",
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "w: PosePublisher: <publish_link_pose> must be true, false, 1 or 0, found \"yes\""
        );
        let e = TruthConfig::parse(
            "<plugin><update_frequency>often</update_frequency></plugin>",
            "w",
        )
        .unwrap_err();
        assert!(e.message.contains("finite number"));
        assert!(TruthConfig::parse("<plugin>", "w").is_err());
    }
}
