//! Reading the `<plugin>` element of an odometry publisher, with gz-sim's defaults.

use sim_plugin_api::{PluginError, Pose, Quat};
use simcore_plugin_common::gz::valid_topic;
use simcore_plugin_common::{Reader, parse_plugin_sdf, text};

/// The parsed configuration of an odometry publisher.
#[derive(Clone, Debug, PartialEq)]
pub struct OdometryConfig {
    /// `<odom_frame>` (default `<m>/odom`).
    pub odom_frame: String,
    /// `<robot_base_frame>` (default `<m>/base_footprint`).
    pub robot_base_frame: String,
    /// `<odom_publish_frequency>`, Hz (default 50; 0 or below: every step).
    pub frequency: f64,
    /// `<odom_topic>` (default `/model/<m>/odometry`).
    pub odom_topic: String,
    /// `<tf_topic>` (default `/model/<m>/pose`).
    pub tf_topic: String,
    /// `<dimensions>`: 2 (default) or 3.
    pub dimensions: u32,
    /// `<xyz_offset>` and `<rpy_offset>`: composed after the model's pose.
    pub offset: Pose,
    /// `<gaussian_noise>`: standard deviation added to each twist component (default 0).
    pub gaussian_noise: f64,
}

impl OdometryConfig {
    /// Parses the `<plugin>` element given as XML text; `model` is the model's own name (for
    /// the defaults), `who` names the plugin in errors.
    pub fn parse(sdf: &str, model: &str, who: &str) -> Result<OdometryConfig, PluginError> {
        let doc = parse_plugin_sdf(sdf, who)?;
        let r = Reader::new(who);
        let mut c = OdometryConfig {
            odom_frame: format!("{model}/odom"),
            robot_base_frame: format!("{model}/base_footprint"),
            frequency: 50.0,
            odom_topic: format!("/model/{model}/odometry"),
            tf_topic: format!("/model/{model}/pose"),
            dimensions: 2,
            offset: Pose::default(),
            gaussian_noise: 0.0,
        };
        let Some(doc) = doc else {
            return Ok(c);
        };
        let root = doc.root_element();
        if let Some(t) = text(root, "odom_frame") {
            c.odom_frame = t.to_string();
        }
        if let Some(t) = text(root, "robot_base_frame") {
            c.robot_base_frame = t.to_string();
        }
        c.frequency = r.number(root, &["odom_publish_frequency"])?.unwrap_or(50.0);
        let topic = |tag: &str, default: &str| -> Result<String, PluginError> {
            let written = text(root, tag).unwrap_or(default);
            valid_topic(written).ok_or_else(|| {
                PluginError::config(format!(
                    "{who}: <{tag}> `{written}` is not a valid topic name"
                ))
            })
        };
        c.odom_topic = topic("odom_topic", &c.odom_topic.clone())?;
        c.tf_topic = topic("tf_topic", &c.tf_topic.clone())?;
        c.dimensions = match r.number(root, &["dimensions"])? {
            None => 2,
            Some(d) if d == 2.0 || d == 3.0 => d as u32,
            Some(d) => return Err(r.error("<dimensions>", "2 or 3", &d.to_string())),
        };
        if let Some(p) = r.vector(root, "xyz_offset")? {
            c.offset.position = p;
        }
        if let Some(a) = r.vector(root, "rpy_offset")? {
            c.offset.orientation = Quat::from_rpy(a.x, a.y, a.z);
        }
        c.gaussian_noise = match r.number(root, &["gaussian_noise"])? {
            None => 0.0,
            Some(s) if s >= 0.0 => s,
            Some(s) => return Err(r.error("<gaussian_noise>", "at least 0", &s.to_string())),
        };
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::Vec3;

    fn parse(inner: &str) -> Result<OdometryConfig, PluginError> {
        OdometryConfig::parse(
            &format!(
                r#"<plugin name="gz::sim::systems::OdometryPublisher" filename="x">{inner}</plugin>"#
            ),
            "rover",
            "rover: OdometryPublisher",
        )
    }

    #[test]
    fn defaults_as_gazebo() {
        let c = parse("").unwrap();
        assert_eq!(c.odom_frame, "rover/odom");
        assert_eq!(c.robot_base_frame, "rover/base_footprint");
        assert_eq!(c.frequency, 50.0);
        assert_eq!(c.odom_topic, "/model/rover/odometry");
        assert_eq!(c.tf_topic, "/model/rover/pose");
        assert_eq!(c.dimensions, 2);
        assert_eq!(c.offset, Pose::default());
        assert_eq!(c.gaussian_noise, 0.0);
    }

    #[test]
    fn everything_set_and_errors() {
        let c = parse(
            "<odom_frame>odom</odom_frame><robot_base_frame>base</robot_base_frame>\
             <odom_publish_frequency>10</odom_publish_frequency><odom_topic>odom</odom_topic>\
             <tf_topic>/tf</tf_topic><dimensions>3</dimensions><xyz_offset>1 0 0</xyz_offset>\
             <rpy_offset>0 0 1.5</rpy_offset><gaussian_noise>0.1</gaussian_noise>",
        )
        .unwrap();
        assert_eq!(
            (c.odom_frame.as_str(), c.robot_base_frame.as_str()),
            ("odom", "base")
        );
        assert_eq!(c.frequency, 10.0);
        assert_eq!(
            (c.odom_topic.as_str(), c.tf_topic.as_str()),
            ("/odom", "/tf")
        );
        assert_eq!(c.dimensions, 3);
        assert_eq!(c.offset.position, Vec3::new(1.0, 0.0, 0.0));
        assert!((c.offset.orientation.to_rpy().2 - 1.5).abs() < 1e-12);
        assert_eq!(c.gaussian_noise, 0.1);
        let msg = |inner: &str| parse(inner).unwrap_err().message.to_string();
        assert!(msg("<dimensions>4</dimensions>").contains("2 or 3"));
        assert!(msg("<gaussian_noise>-1</gaussian_noise>").contains("at least 0"));
        assert!(msg("<xyz_offset>1 2</xyz_offset>").contains("three numbers"));
        assert!(msg("<odom_topic>a//b</odom_topic>").contains("not a valid topic"));
    }
}
