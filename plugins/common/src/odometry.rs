//! The odometry messages of gz-sim's drive systems and where they go.

use crate::gz::{text_or, topic_or};
use sim_plugin_api::abi_stable::std_types::{RBox, RVec};
use sim_plugin_api::msgs::NamedPose;
use sim_plugin_api::prelude::*;
use sim_plugin_api::sdf::{Element, SdfError};

/// The pose of a planar odometry at `x`, `y` heading `yaw` (z, roll and pitch 0).
pub fn planar_pose(x: f64, y: f64, yaw: f64) -> Pose {
    Pose::new(Vec3::new(x, y, 0.0), Quat::from_rpy(0.0, 0.0, yaw))
}

/// The body twist of travelling `travel` m forward while turning `turn` rad in `span` s
/// (zero for no time).
pub fn mean_twist(travel: f64, turn: f64, span: f64) -> Twist {
    if span > 0.0 {
        Twist {
            linear: Vec3::new(travel / span, 0.0, 0.0),
            angular: Vec3::new(0.0, 0.0, turn / span),
        }
    } else {
        Twist::default()
    }
}

/// How often and where a system publishes its odometry: the settings the drive systems and
/// the odometry publisher read from their elements.
#[derive(Clone, Debug, PartialEq)]
pub struct OdometrySettings {
    /// The frequency, Hz (0 or negative: every step).
    pub frequency: f64,
    /// The odometry topic.
    pub topic: String,
    /// The transform topic.
    pub tf_topic: String,
    /// The odometry frame (`header.frame_id` of both messages).
    pub frame_id: String,
    /// The child frame: the robot's (naming the transform's pose).
    pub child_frame_id: String,
}

impl OdometrySettings {
    /// The settings of gz-sim's AckermannSteering and MecanumDrive on the model named `model`:
    /// `<odom_publish_frequency>` (default 50), `<odom_topic>` (default
    /// `/model/<m>/odometry`) and `<tf_topic>` (default `/model/<m>/tf`), each made valid
    /// ([`topic_or`]), and the frames of [`drive_frames`].
    pub fn read(root: &Element<'_, '_>, model: &str) -> Result<OdometrySettings, SdfError> {
        let frequency = root.get_or("odom_publish_frequency", 50.0)?;
        let topic = topic_or(root, "odom_topic", format!("/model/{model}/odometry"))?;
        let tf_topic = topic_or(root, "tf_topic", format!("/model/{model}/tf"))?;
        let (frame_id, child_frame_id) = drive_frames(root, model);
        Ok(OdometrySettings {
            frequency,
            topic,
            tf_topic,
            frame_id,
            child_frame_id,
        })
    }
}

/// The frames of gz-sim's drive systems on the model named `model`: `<frame_id>` (default
/// `<m>/odom`) and `<child_frame_id>` (default `<m>`), a frame written empty taking its
/// default ([`text_or`]).
pub fn drive_frames(root: &Element<'_, '_>, model: &str) -> (String, String) {
    (
        text_or(root, "frame_id", format!("{model}/odom")),
        text_or(root, "child_frame_id", model.to_string()),
    )
}

/// Where a system publishes its odometry: the odometry topic, the transform topic, the
/// odometry frame and the child frame (the robot's).
#[derive(Clone, Debug)]
pub struct OdometryOutput {
    topic: SharedStr,
    tf: SharedStr,
    frame: SharedStr,
    child: SharedStr,
}

impl OdometryOutput {
    /// The odometry and its transform on the topics of `settings`, in its frames.
    pub fn new(settings: &OdometrySettings) -> Self {
        OdometryOutput {
            topic: SharedStr::new(&settings.topic),
            tf: SharedStr::new(&settings.tf_topic),
            frame: SharedStr::new(&settings.frame_id),
            child: SharedStr::new(&settings.child_frame_id),
        }
    }

    /// The child frame.
    pub fn child(&self) -> &str {
        self.child.as_str()
    }

    /// Its two outputs with their payload kinds, to declare to the engine: the odometry
    /// (`Odometry`) and the transform (`Pose_V`).
    pub fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![
            (self.topic.as_str().to_string(), "Odometry"),
            (self.tf.as_str().to_string(), "Pose_V"),
        ]
    }

    /// The odometry message and its transform: the pose (as one pose named by the child
    /// frame) and the twist, both with `header.frame_id` = the odometry frame.
    pub fn messages(&self, pose: Pose, twist: Twist) -> [Message; 2] {
        let mut odom = Message::new(
            self.topic.clone(),
            Payload::Odometry(RBox::new(Odometry { pose, twist })),
        );
        odom.header.frame_id = self.frame.clone();
        let mut transform = Message::new(
            self.tf.clone(),
            Payload::PoseList(RBox::new(RVec::from(vec![NamedPose {
                name: self.child.clone(),
                pose,
            }]))),
        );
        transform.header.frame_id = self.frame.clone();
        [odom, transform]
    }

    /// Publishes the [`messages`](OdometryOutput::messages) of the planar odometry at `x`,
    /// `y` heading `yaw` ([`planar_pose`]) moving at `twist`, as the drive systems do.
    pub fn publish_planar(&self, out: &mut Outputs<'_>, x: f64, y: f64, yaw: f64, twist: Twist) {
        for m in self.messages(planar_pose(x, y, yaw), twist) {
            out.push(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    fn settings(xml: &str, model: &str) -> Result<OdometrySettings, SdfError> {
        let doc = SdfDocument::parse(xml, Origin::new("car: X"))?;
        OdometrySettings::read(&doc.root(), model)
    }

    #[test]
    fn settings_with_gz_sims_defaults() {
        assert_eq!(
            settings("<plugin/>", "car").unwrap(),
            OdometrySettings {
                frequency: 50.0,
                topic: "/model/car/odometry".into(),
                tf_topic: "/model/car/tf".into(),
                frame_id: "car/odom".into(),
                child_frame_id: "car".into(),
            }
        );
        let s = settings(
            "<plugin><odom_publish_frequency>5</odom_publish_frequency><odom_topic>o d</odom_topic>\
             <tf_topic>/t</tf_topic><frame_id>odom</frame_id><child_frame_id> </child_frame_id></plugin>",
            "car",
        )
        .unwrap();
        assert_eq!(
            (s.frequency, s.topic.as_str(), s.tf_topic.as_str()),
            (5.0, "/o_d", "/t")
        );
        assert_eq!(
            (s.frame_id.as_str(), s.child_frame_id.as_str()),
            ("odom", "car")
        );
        assert_eq!(
            settings("<plugin><tf_topic>a//b</tf_topic></plugin>", "car")
                .unwrap_err()
                .to_string(),
            "car: X: <tf_topic> must be a valid topic name (no `//`, not empty), found \"a//b\""
        );
        assert!(
            settings(
                "<plugin><odom_publish_frequency>x</odom_publish_frequency></plugin>",
                "c"
            )
            .is_err()
        );
    }

    #[test]
    fn messages_on_the_settings_topics_in_their_frames() {
        let output = OdometryOutput::new(&OdometrySettings {
            frequency: 1.0,
            topic: "/odom".into(),
            tf_topic: "/tf".into(),
            frame_id: "world".into(),
            child_frame_id: "base".into(),
        });
        assert_eq!(output.child(), "base");
        assert_eq!(
            output.outputs(),
            [
                ("/odom".to_string(), "Odometry"),
                ("/tf".to_string(), "Pose_V")
            ]
        );
        let pose = planar_pose(1.0, 2.0, 0.5);
        let twist = mean_twist(1.0, 0.5, 2.0);
        assert_eq!(twist.linear, Vec3::new(0.5, 0.0, 0.0));
        assert_eq!(twist.angular, Vec3::new(0.0, 0.0, 0.25));
        let [odom, tf] = output.messages(pose, twist);
        assert_eq!((odom.topic.as_str(), tf.topic.as_str()), ("/odom", "/tf"));
        assert_eq!(odom.header.frame_id.as_str(), "world");
        assert_eq!(tf.header.frame_id.as_str(), "world");
        match odom.payload.as_enum() {
            Ok(Payload::Odometry(o)) => assert_eq!((o.pose, o.twist), (pose, twist)),
            _ => panic!("an odometry"),
        }
        match tf.payload.as_enum() {
            Ok(Payload::PoseList(p)) => {
                assert_eq!(p.len(), 1);
                assert_eq!((p[0].name.as_str(), p[0].pose), ("base", pose));
            }
            _ => panic!("a pose list"),
        }
        let mut buffer = RVec::new();
        output.publish_planar(&mut Outputs::new(&mut buffer), 1.0, 2.0, 0.5, twist);
        let [odom2, tf2] = output.messages(pose, twist);
        assert_eq!(buffer.len(), 2);
        assert_eq!(
            (buffer[0].topic.as_str(), buffer[1].topic.as_str()),
            ("/odom", "/tf")
        );
        let same =
            |a: &Message, b: &Message| format!("{:?}", a.payload) == format!("{:?}", b.payload);
        assert!(same(&buffer[0], &odom2) && same(&buffer[1], &tf2));
        assert_eq!(buffer[1].header.frame_id, tf2.header.frame_id);
    }
}
