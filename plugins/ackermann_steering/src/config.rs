//! Reading the `<plugin>` element of an Ackermann steering, with gz-sim's defaults.

use crate::geometry::Dimensions;
use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::Element;
use simcore_plugin_common::SpeedLimiter;
use simcore_plugin_common::gz::{self, OdometrySettings, names};

/// The parsed configuration of an Ackermann steering.
#[derive(Clone, Debug, PartialEq)]
pub struct AckermannConfig {
    /// `<steering_only>`: steer to a `Double` angle, drive no wheels.
    pub steering_only: bool,
    /// `<left_joint>` and `<right_joint>` wheel joints (required unless steering only).
    pub left_joints: Vec<String>,
    /// See `left_joints`.
    pub right_joints: Vec<String>,
    /// `<left_steering_joint>` and `<right_steering_joint>` (required).
    pub left_steering: Vec<String>,
    /// See `left_steering`.
    pub right_steering: Vec<String>,
    /// The dimensions: `<wheel_separation>` 1, `<kingpin_width>` 0.8, `<wheel_base>` 1,
    /// `<steering_limit>` 0.5, `<wheel_radius>` 0.2 by default.
    pub dimensions: Dimensions,
    /// `<steer_p_gain>`: steering joint speed per radian of error (default 1).
    pub steer_p_gain: f64,
    /// Limits of the forward speed (`<min|max_velocity>`, `<min|max_acceleration>`).
    pub linear: SpeedLimiter,
    /// Limits of the yaw rate, or in steering-only mode of the angle (the same elements).
    pub angular: SpeedLimiter,
    /// Command topic: `<topic>`, else `/model/<m>/<sub_topic>`, else `/model/<m>/cmd_vel`
    /// (`/model/<m>/steer_angle` when steering only).
    pub topic: String,
    /// The odometry: `<odom_publish_frequency>` (default 50 Hz), `<odom_topic>` (default
    /// `/model/<m>/odometry`), `<tf_topic>` (default `/model/<m>/tf`), `<frame_id>` (default
    /// `<m>/odom`), `<child_frame_id>` (default `<m>`).
    pub odometry: OdometrySettings,
}

impl AckermannConfig {
    /// Reads the `<plugin>` element `root`; `model` is the model's own name (for the default
    /// topics and frames).
    pub fn read(root: &Element<'_, '_>, model: &str) -> Result<AckermannConfig, PluginError> {
        let steering_only = root.get_or("steering_only", false)?;
        let (left_joints, right_joints) = if steering_only {
            (Vec::new(), Vec::new())
        } else {
            (names(root, "left_joint")?, names(root, "right_joint")?)
        };
        let positive = |tag: &str, default: f64| root.param::<f64>(tag).positive().or(default);
        let dimensions = Dimensions {
            wheel_separation: positive("wheel_separation", 1.0)?,
            kingpin_width: positive("kingpin_width", 0.8)?,
            wheel_base: positive("wheel_base", 1.0)?,
            steering_limit: positive("steering_limit", 0.5)?,
            wheel_radius: positive("wheel_radius", 0.2)?,
        };
        let limiter = gz::limiter(root)?;
        let default = if steering_only {
            format!("/model/{model}/steer_angle")
        } else {
            format!("/model/{model}/cmd_vel")
        };
        let topic = gz::controller_topic(root, model, &default)?;
        Ok(AckermannConfig {
            steering_only,
            left_joints,
            right_joints,
            left_steering: names(root, "left_steering_joint")?,
            right_steering: names(root, "right_steering_joint")?,
            dimensions,
            steer_p_gain: root.get_or("steer_p_gain", 1.0)?,
            linear: limiter,
            angular: limiter,
            topic,
            odometry: OdometrySettings::read(root, model)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::ErrorCode;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    fn parse(inner: &str) -> Result<AckermannConfig, PluginError> {
        let text = format!(
            r#"<plugin name="gz::sim::systems::AckermannSteering" filename="x">{inner}</plugin>"#
        );
        let doc = SdfDocument::parse(&text, Origin::new("car: AckermannSteering"))?;
        AckermannConfig::read(&doc.root(), "car")
    }

    const JOINTS: &str = "<left_joint>rl</left_joint><right_joint>rr</right_joint>\
        <left_steering_joint>sl</left_steering_joint><right_steering_joint>sr</right_steering_joint>";

    #[test]
    fn defaults_as_gazebo() {
        let c = parse(JOINTS).unwrap();
        assert!(!c.steering_only);
        assert_eq!(
            (c.left_joints.as_slice(), c.right_joints.as_slice()),
            (&["rl".to_string()][..], &["rr".to_string()][..])
        );
        assert_eq!(
            c.dimensions,
            Dimensions {
                wheel_separation: 1.0,
                kingpin_width: 0.8,
                wheel_base: 1.0,
                steering_limit: 0.5,
                wheel_radius: 0.2
            }
        );
        assert_eq!(c.steer_p_gain, 1.0);
        assert_eq!(c.linear, SpeedLimiter::UNLIMITED);
        assert_eq!(c.odometry.frequency, 50.0);
        assert_eq!(c.topic, "/model/car/cmd_vel");
        assert_eq!(c.odometry.topic, "/model/car/odometry");
        assert_eq!(c.odometry.tf_topic, "/model/car/tf");
        assert_eq!(
            (
                c.odometry.frame_id.as_str(),
                c.odometry.child_frame_id.as_str()
            ),
            ("car/odom", "car")
        );
    }

    #[test]
    fn steering_only_and_errors() {
        let c = parse(
            "<steering_only>true</steering_only><left_steering_joint>sl</left_steering_joint>\
             <right_steering_joint>sr</right_steering_joint><max_velocity>0.3</max_velocity>",
        )
        .unwrap();
        assert!(c.steering_only && c.left_joints.is_empty());
        assert_eq!(c.topic, "/model/car/steer_angle");
        assert_eq!(c.angular.max_velocity, 0.3);
        let msg = |inner: &str| parse(inner).unwrap_err().message.to_string();
        assert_eq!(
            msg("<left_joint>a</left_joint>"),
            "car: AckermannSteering: needs a <right_joint>"
        );
        assert_eq!(
            parse("<left_joint>a</left_joint>").unwrap_err().code,
            ErrorCode::NOT_FOUND
        );
        assert_eq!(
            msg(&format!("{JOINTS}<wheel_base>0</wheel_base>")),
            "car: AckermannSteering: <wheel_base> must be positive, found \"0\""
        );
        assert!(
            msg(&format!(
                "{JOINTS}<min_velocity>2</min_velocity><max_velocity>1</max_velocity>"
            ))
            .contains("above")
        );
        assert_eq!(
            parse(&format!("{JOINTS}<sub_topic>drive</sub_topic>"))
                .unwrap()
                .topic,
            "/model/car/drive"
        );
    }
}
