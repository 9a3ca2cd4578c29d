//! Reading the `<plugin>` element of a mecanum drive, with gz-sim's defaults.

use sim_plugin_api::PluginError;
use simcore_plugin_common::gz::{self, missing, names};
use simcore_plugin_common::{Reader, SpeedLimiter, parse_plugin_sdf};

/// The parsed configuration of a mecanum drive.
#[derive(Clone, Debug, PartialEq)]
pub struct MecanumConfig {
    /// `<front_left_joint>`, `<front_right_joint>`, `<back_left_joint>`, `<back_right_joint>`
    /// names (at least one each), in that order.
    pub joints: [Vec<String>; 4],
    /// `<wheel_separation>`, m (default 1).
    pub wheel_separation: f64,
    /// `<wheelbase>`, m (default 1).
    pub wheelbase: f64,
    /// `<wheel_radius>`, m (default 0.2).
    pub wheel_radius: f64,
    /// Limits of the forward and sideways speeds (`<min|max_velocity>`,
    /// `<min|max_acceleration>`).
    pub linear: SpeedLimiter,
    /// Limits of the yaw rate (the same elements, as gz-sim reads them).
    pub angular: SpeedLimiter,
    /// `<odom_publish_frequency>`, Hz (default 50).
    pub odom_frequency: f64,
    /// `<topic>` (default `/model/<m>/cmd_vel`).
    pub topic: String,
    /// `<odom_topic>` (default `/model/<m>/odometry`).
    pub odom_topic: String,
    /// `<tf_topic>` (default `/model/<m>/tf`).
    pub tf_topic: String,
    /// `<frame_id>` (default `<m>/odom`).
    pub frame_id: String,
    /// `<child_frame_id>` (default `<m>`).
    pub child_frame_id: String,
}

/// The joint elements, in [`MecanumConfig::joints`] order.
pub const JOINT_TAGS: [&str; 4] = [
    "front_left_joint",
    "front_right_joint",
    "back_left_joint",
    "back_right_joint",
];

impl MecanumConfig {
    /// Parses the `<plugin>` element given as XML text; `model` is the model's own name,
    /// `who` names the plugin in errors.
    pub fn parse(sdf: &str, model: &str, who: &str) -> Result<MecanumConfig, PluginError> {
        let doc = parse_plugin_sdf(sdf, who)?
            .ok_or_else(|| missing(format!("{who}: needs a <front_left_joint>")))?;
        let root = doc.root_element();
        let r = Reader::new(who);
        let joints = [
            names(root, JOINT_TAGS[0], who)?,
            names(root, JOINT_TAGS[1], who)?,
            names(root, JOINT_TAGS[2], who)?,
            names(root, JOINT_TAGS[3], who)?,
        ];
        let positive = |tag: &str, default: f64| -> Result<f64, PluginError> {
            match r.number(root, &[tag])? {
                None => Ok(default),
                Some(v) if v > 0.0 => Ok(v),
                Some(v) => Err(r.error(&format!("<{tag}>"), "positive", &v.to_string())),
            }
        };
        let num = |tag: &str, default: f64| -> Result<f64, PluginError> {
            Ok(r.number(root, &[tag])?.unwrap_or(default))
        };
        let limiter = gz::limiter(&r, root, who)?;
        Ok(MecanumConfig {
            joints,
            wheel_separation: positive("wheel_separation", 1.0)?,
            wheelbase: positive("wheelbase", 1.0)?,
            wheel_radius: positive("wheel_radius", 0.2)?,
            linear: limiter,
            angular: limiter,
            odom_frequency: num("odom_publish_frequency", 50.0)?,
            topic: gz::topic_or(root, "topic", format!("/model/{model}/cmd_vel"), who)?,
            odom_topic: gz::topic_or(root, "odom_topic", format!("/model/{model}/odometry"), who)?,
            tf_topic: gz::topic_or(root, "tf_topic", format!("/model/{model}/tf"), who)?,
            frame_id: gz::text_or(root, "frame_id", format!("{model}/odom")),
            child_frame_id: gz::text_or(root, "child_frame_id", model.to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JOINTS: &str = "<front_left_joint>fl</front_left_joint><front_right_joint>fr</front_right_joint>\
        <back_left_joint>bl</back_left_joint><back_right_joint>br</back_right_joint>";

    fn parse(inner: &str) -> Result<MecanumConfig, PluginError> {
        MecanumConfig::parse(
            &format!(
                r#"<plugin name="gz::sim::systems::MecanumDrive" filename="x">{inner}</plugin>"#
            ),
            "bot",
            "bot: MecanumDrive",
        )
    }

    #[test]
    fn defaults_and_errors() {
        let c = parse(JOINTS).unwrap();
        assert_eq!(c.joints[3], ["br"]);
        assert_eq!(
            (c.wheel_separation, c.wheelbase, c.wheel_radius),
            (1.0, 1.0, 0.2)
        );
        assert_eq!(c.linear, SpeedLimiter::UNLIMITED);
        assert_eq!(c.topic, "/model/bot/cmd_vel");
        assert_eq!(c.odom_topic, "/model/bot/odometry");
        assert_eq!(c.tf_topic, "/model/bot/tf");
        assert_eq!(
            (c.frame_id.as_str(), c.child_frame_id.as_str()),
            ("bot/odom", "bot")
        );
        let msg = |inner: &str| parse(inner).unwrap_err().message.to_string();
        assert!(msg("<front_left_joint>a</front_left_joint>").contains("<front_right_joint>"));
        assert!(msg(&format!("{JOINTS}<wheel_radius>-1</wheel_radius>")).contains("positive"));
        let c = parse(&format!(
            "{JOINTS}<topic>cmd</topic><max_velocity>2</max_velocity>"
        ))
        .unwrap();
        assert_eq!(c.topic, "/cmd");
        assert_eq!(c.linear.max_velocity, 2.0);
    }
}
