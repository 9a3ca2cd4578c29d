//! Reading the `<plugin>` element of a mecanum drive, with gz-sim's defaults.

use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::Element;
use simcore_plugin_common::SpeedLimiter;
use simcore_plugin_common::gz::{self, OdometrySettings, names};

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
    /// `<topic>` (default `/model/<m>/cmd_vel`).
    pub topic: String,
    /// The odometry: `<odom_publish_frequency>` (default 50 Hz), `<odom_topic>` (default
    /// `/model/<m>/odometry`), `<tf_topic>` (default `/model/<m>/tf`), `<frame_id>` (default
    /// `<m>/odom`), `<child_frame_id>` (default `<m>`).
    pub odometry: OdometrySettings,
}

/// The joint elements, in [`MecanumConfig::joints`] order.
pub const JOINT_TAGS: [&str; 4] = [
    "front_left_joint",
    "front_right_joint",
    "back_left_joint",
    "back_right_joint",
];

impl MecanumConfig {
    /// Reads the `<plugin>` element `root`; `model` is the model's own name (for the default
    /// topics and frames).
    pub fn read(root: &Element<'_, '_>, model: &str) -> Result<MecanumConfig, PluginError> {
        let joints = [
            names(root, JOINT_TAGS[0])?,
            names(root, JOINT_TAGS[1])?,
            names(root, JOINT_TAGS[2])?,
            names(root, JOINT_TAGS[3])?,
        ];
        let positive = |tag: &str, default: f64| root.param::<f64>(tag).positive().or(default);
        let limiter = gz::limiter(root)?;
        Ok(MecanumConfig {
            joints,
            wheel_separation: positive("wheel_separation", 1.0)?,
            wheelbase: positive("wheelbase", 1.0)?,
            wheel_radius: positive("wheel_radius", 0.2)?,
            linear: limiter,
            angular: limiter,
            topic: gz::topic_or(root, "topic", format!("/model/{model}/cmd_vel"))?,
            odometry: OdometrySettings::read(root, model)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::ErrorCode;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    const JOINTS: &str = "<front_left_joint>fl</front_left_joint><front_right_joint>fr</front_right_joint>\
        <back_left_joint>bl</back_left_joint><back_right_joint>br</back_right_joint>";

    fn parse(inner: &str) -> Result<MecanumConfig, PluginError> {
        let text = format!(
            r#"<plugin name="gz::sim::systems::MecanumDrive" filename="x">{inner}</plugin>"#
        );
        let doc = SdfDocument::parse(&text, Origin::new("bot: MecanumDrive"))?;
        MecanumConfig::read(&doc.root(), "bot")
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
        assert_eq!(c.odometry.topic, "/model/bot/odometry");
        assert_eq!(c.odometry.tf_topic, "/model/bot/tf");
        assert_eq!(
            (
                c.odometry.frame_id.as_str(),
                c.odometry.child_frame_id.as_str()
            ),
            ("bot/odom", "bot")
        );
        let msg = |inner: &str| parse(inner).unwrap_err().message.to_string();
        assert_eq!(
            msg("<front_left_joint>a</front_left_joint>"),
            "bot: MecanumDrive: needs a <front_right_joint>"
        );
        assert_eq!(parse("").unwrap_err().code, ErrorCode::NOT_FOUND);
        assert_eq!(
            msg(&format!("{JOINTS}<wheel_radius>-1</wheel_radius>")),
            "bot: MecanumDrive: <wheel_radius> must be positive, found \"-1\""
        );
        let c = parse(&format!(
            "{JOINTS}<topic>cmd</topic><max_velocity>2</max_velocity>"
        ))
        .unwrap();
        assert_eq!(c.topic, "/cmd");
        assert_eq!(c.linear.max_velocity, 2.0);
    }
}
