//! The odometry messages of gz-sim's drive systems, and the checks on their commands.

use sim_plugin_api::abi_stable::std_types::{RBox, RVec};
use sim_plugin_api::msgs::NamedPose;
use sim_plugin_api::prelude::*;

/// Whether every component of a commanded twist is a finite number (gz-sim's systems would
/// pass a NaN on to the physics; here such a command is ignored).
pub fn finite_twist(t: &Twist) -> bool {
    [t.linear, t.angular]
        .iter()
        .all(|v| v.x.is_finite() && v.y.is_finite() && v.z.is_finite())
}

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

/// The odometry message of gz-sim's drive systems on `topic` and its transform on `tf`: the
/// pose (as one pose named `child`) and the twist, both with `header.frame_id` = `frame`.
pub fn odometry_messages(
    topic: &SharedStr,
    tf: &SharedStr,
    frame: &SharedStr,
    child: &SharedStr,
    pose: Pose,
    twist: Twist,
) -> [Message; 2] {
    let mut odom = Message::new(
        topic.clone(),
        Payload::Odometry(RBox::new(Odometry { pose, twist })),
    );
    odom.header.frame_id = frame.clone();
    let mut transform = Message::new(
        tf.clone(),
        Payload::PoseList(RBox::new(RVec::from(vec![NamedPose {
            name: child.clone(),
            pose,
        }]))),
    );
    transform.header.frame_id = frame.clone();
    [odom, transform]
}
