//! Reading the `<plugin>` element of an odometry publisher, with gz-sim's defaults.

use sim_plugin_api::sdf::Element;
use sim_plugin_api::{PluginError, Pose, Quat, Vec3};
use simcore_plugin_common::gz::{OdometrySettings, topic_or, valid_topic};
use simcore_plugin_common::sdf::owner;

/// The parsed configuration of an odometry publisher.
#[derive(Clone, Debug, PartialEq)]
pub struct OdometryConfig {
    /// The odometry: `<odom_publish_frequency>`, Hz (default 50; 0 or below: every step);
    /// `<odom_topic>` (default `/model/<m>/odometry`); `<tf_topic>` (default
    /// `/model/<m>/pose`); `<odom_frame>` (default `<m>/odom`) as the frame id;
    /// `<robot_base_frame>` (default `<m>/base_footprint`) as the child frame id.
    pub odometry: OdometrySettings,
    /// `<dimensions>`: 2 (default) or 3.
    pub dimensions: u32,
    /// `<xyz_offset>` and `<rpy_offset>`: composed after the model's pose.
    pub offset: Pose,
    /// `<gaussian_noise>`: standard deviation added to each twist component (default 0).
    pub gaussian_noise: f64,
}

impl OdometryConfig {
    /// Reads the `<plugin>` element `root` (its messages name the system,
    /// `rover: OdometryPublisher`); `model` is the model's own name (for the defaults).
    pub fn read(root: &Element<'_, '_>, model: &str) -> Result<OdometryConfig, PluginError> {
        // A frame written empty is empty, as gz-sim takes it.
        let frame =
            |tag: &str, default: String| root.child(tag).map_or(default, |e| e.text().to_string());
        let topic = |tag: &str, default: String| -> Result<String, PluginError> {
            if root.has(tag) {
                return Ok(topic_or(root, tag, default)?);
            }
            valid_topic(&default).ok_or_else(|| {
                PluginError::config(format!(
                    "{}: the default topic `{default}` of <{tag}> is not a valid topic name",
                    owner(root)
                ))
            })
        };
        let dimensions = root
            .param::<f64>("dimensions")
            .check("2 or 3", |d| *d == 2.0 || *d == 3.0)
            .or(2.0)?;
        let mut offset = Pose::default();
        if let Some(p) = root.get::<Vec3>("xyz_offset")? {
            offset.position = p;
        }
        if let Some(a) = root.get::<Vec3>("rpy_offset")? {
            offset.orientation = Quat::from_rpy(a.x, a.y, a.z);
        }
        Ok(OdometryConfig {
            odometry: OdometrySettings {
                frame_id: frame("odom_frame", format!("{model}/odom")),
                child_frame_id: frame("robot_base_frame", format!("{model}/base_footprint")),
                frequency: root.get_or("odom_publish_frequency", 50.0)?,
                topic: topic("odom_topic", format!("/model/{model}/odometry"))?,
                tf_topic: topic("tf_topic", format!("/model/{model}/pose"))?,
            },
            dimensions: dimensions as u32,
            offset,
            gaussian_noise: root.param::<f64>("gaussian_noise").at_least(0.0).or(0.0)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    fn read_model(inner: &str, model: &str) -> Result<OdometryConfig, PluginError> {
        let text = format!(
            r#"<plugin name="gz::sim::systems::OdometryPublisher" filename="x">{inner}</plugin>"#
        );
        let doc = SdfDocument::parse(&text, Origin::new("rover: OdometryPublisher"))?;
        OdometryConfig::read(&doc.root(), model)
    }

    fn parse(inner: &str) -> Result<OdometryConfig, PluginError> {
        read_model(inner, "rover")
    }

    #[test]
    fn defaults_as_gazebo() {
        let c = parse("").unwrap();
        assert_eq!(c.odometry.frame_id, "rover/odom");
        assert_eq!(c.odometry.child_frame_id, "rover/base_footprint");
        assert_eq!(c.odometry.frequency, 50.0);
        assert_eq!(c.odometry.topic, "/model/rover/odometry");
        assert_eq!(c.odometry.tf_topic, "/model/rover/pose");
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
        let o = &c.odometry;
        assert_eq!(
            (o.frame_id.as_str(), o.child_frame_id.as_str()),
            ("odom", "base")
        );
        assert_eq!(o.frequency, 10.0);
        assert_eq!((o.topic.as_str(), o.tf_topic.as_str()), ("/odom", "/tf"));
        assert_eq!(c.dimensions, 3);
        assert_eq!(c.offset.position, Vec3::new(1.0, 0.0, 0.0));
        assert!((c.offset.orientation.to_rpy().2 - 1.5).abs() < 1e-12);
        assert_eq!(c.gaussian_noise, 0.1);
        let msg = |inner: &str| parse(inner).unwrap_err().message.to_string();
        assert_eq!(
            msg("<dimensions>4</dimensions>"),
            "rover: OdometryPublisher: <dimensions> must be 2 or 3, found \"4\""
        );
        assert_eq!(
            msg("<gaussian_noise>-1</gaussian_noise>"),
            "rover: OdometryPublisher: <gaussian_noise> must be at least 0, found \"-1\""
        );
        assert_eq!(
            msg("<xyz_offset>1 2</xyz_offset>"),
            "rover: OdometryPublisher: <xyz_offset> must be three numbers (x y z), found \"1 2\""
        );
        assert_eq!(
            msg("<odom_topic>a//b</odom_topic>"),
            "rover: OdometryPublisher: <odom_topic> must be a valid topic name (no `//`, not empty), found \"a//b\""
        );
    }

    #[test]
    fn frames_written_empty_and_default_topics_made_valid() {
        let c = read_model(
            "<odom_frame/><robot_base_frame> </robot_base_frame>",
            "my rover",
        )
        .unwrap();
        let o = &c.odometry;
        assert_eq!((o.frame_id.as_str(), o.child_frame_id.as_str()), ("", ""));
        assert_eq!(o.topic, "/model/my_rover/odometry");
        assert_eq!(o.tf_topic, "/model/my_rover/pose");
        assert_eq!(parse("<dimensions>3.0</dimensions>").unwrap().dimensions, 3);
        assert_eq!(
            read_model("", "a//b").unwrap_err().message.as_str(),
            "rover: OdometryPublisher: the default topic `/model/a//b/odometry` of <odom_topic> is not a valid topic name"
        );
    }
}
