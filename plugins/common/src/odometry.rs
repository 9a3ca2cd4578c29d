//! The odometry messages of gz-sim's drive systems, and the checks on their commands.

use sim_plugin_api::abi_stable::std_types::{RBox, RVec};
use sim_plugin_api::msgs::NamedPose;
use sim_plugin_api::prelude::*;

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

/// Where a gz-sim drive system publishes its odometry: the odometry topic, the transform
/// topic, the odometry frame and the child frame (the robot's).
#[derive(Clone, Debug)]
pub struct OdometryOutput {
    topic: SharedStr,
    tf: SharedStr,
    frame: SharedStr,
    child: SharedStr,
}

impl OdometryOutput {
    /// The odometry on `topic` and its transform on `tf`, in `frame`, of `child`.
    pub fn new(topic: &str, tf: &str, frame: &str, child: &str) -> Self {
        OdometryOutput {
            topic: SharedStr::new(topic),
            tf: SharedStr::new(tf),
            frame: SharedStr::new(frame),
            child: SharedStr::new(child),
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
}
