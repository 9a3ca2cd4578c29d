//! Reading the `<plugin>` element of an Ackermann steering, with gz-sim's defaults.

use crate::geometry::Dimensions;
use sim_plugin_api::PluginError;
use simcore_plugin_common::gz::{self, missing};
use simcore_plugin_common::{Reader, SpeedLimiter, parse_plugin_sdf};

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
    /// `<odom_publish_frequency>`, Hz (default 50).
    pub odom_frequency: f64,
    /// Command topic: `<topic>`, else `/model/<m>/<sub_topic>`, else `/model/<m>/cmd_vel`
    /// (`/model/<m>/steer_angle` when steering only).
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

impl AckermannConfig {
    /// Parses the `<plugin>` element given as XML text; `model` is the model's own name,
    /// `who` names the plugin in errors.
    pub fn parse(sdf: &str, model: &str, who: &str) -> Result<AckermannConfig, PluginError> {
        let doc = parse_plugin_sdf(sdf, who)?.ok_or_else(|| {
            missing(format!(
                "{who}: needs <left_steering_joint> and <right_steering_joint>"
            ))
        })?;
        let root = doc.root_element();
        let r = Reader::new(who);
        let all = |tag: &str| -> Vec<String> {
            root.children()
                .filter(|c| c.is_element() && c.tag_name().name() == tag)
                .map(|c| c.text().unwrap_or("").trim().to_string())
                .filter(|n| !n.is_empty())
                .collect()
        };
        let steering_only = r.boolean(root, "steering_only")?.unwrap_or(false);
        let need = |tag: &str| -> Result<Vec<String>, PluginError> {
            let v = all(tag);
            if v.is_empty() {
                return Err(missing(format!("{who}: needs a <{tag}>")));
            }
            Ok(v)
        };
        let (left_joints, right_joints) = if steering_only {
            (Vec::new(), Vec::new())
        } else {
            (need("left_joint")?, need("right_joint")?)
        };
        let positive = |tag: &str, default: f64| -> Result<f64, PluginError> {
            match r.number(root, &[tag])? {
                None => Ok(default),
                Some(v) if v > 0.0 => Ok(v),
                Some(v) => Err(r.error(&format!("<{tag}>"), "positive", &v.to_string())),
            }
        };
        let dimensions = Dimensions {
            wheel_separation: positive("wheel_separation", 1.0)?,
            kingpin_width: positive("kingpin_width", 0.8)?,
            wheel_base: positive("wheel_base", 1.0)?,
            steering_limit: positive("steering_limit", 0.5)?,
            wheel_radius: positive("wheel_radius", 0.2)?,
        };
        let num = |tag: &str, default: f64| -> Result<f64, PluginError> {
            Ok(r.number(root, &[tag])?.unwrap_or(default))
        };
        let limiter = gz::limiter(&r, root, who)?;
        let default = if steering_only {
            format!("/model/{model}/steer_angle")
        } else {
            format!("/model/{model}/cmd_vel")
        };
        let topic = gz::controller_topic(root, model, &default, who)?;
        Ok(AckermannConfig {
            steering_only,
            left_joints,
            right_joints,
            left_steering: need("left_steering_joint")?,
            right_steering: need("right_steering_joint")?,
            dimensions,
            steer_p_gain: num("steer_p_gain", 1.0)?,
            linear: limiter,
            angular: limiter,
            odom_frequency: num("odom_publish_frequency", 50.0)?,
            topic,
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

    fn parse(inner: &str) -> Result<AckermannConfig, PluginError> {
        AckermannConfig::parse(
            &format!(
                r#"<plugin name="gz::sim::systems::AckermannSteering" filename="x">{inner}</plugin>"#
            ),
            "car",
            "car: AckermannSteering",
        )
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
        assert_eq!(c.odom_frequency, 50.0);
        assert_eq!(c.topic, "/model/car/cmd_vel");
        assert_eq!(c.odom_topic, "/model/car/odometry");
        assert_eq!(c.tf_topic, "/model/car/tf");
        assert_eq!(
            (c.frame_id.as_str(), c.child_frame_id.as_str()),
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
        assert!(msg("<left_joint>a</left_joint>").contains("needs a <right_joint>"));
        assert!(msg(&format!("{JOINTS}<wheel_base>0</wheel_base>")).contains("positive"));
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
