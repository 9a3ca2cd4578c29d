//! `tf2_msgs/msg/TFMessage`: frame transforms, as `/tf` and `/tf_static` carry them.

use super::catalog as t;
use super::encode::{quaternion, time, vector3};
use super::{CdrWriter, RosType};
use crate::runner::Simulation;
use sim_plugin_api::{Pose, SimTime};

/// One `geometry_msgs/TransformStamped`: the pose of frame `child` in frame `parent`.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameTransform {
    /// When the pose holds.
    pub stamp: SimTime,
    /// The frame the pose is expressed in.
    pub parent: String,
    /// The frame it places.
    pub child: String,
    /// `child` in `parent`.
    pub pose: Pose,
}

/// Encodes a `tf2_msgs/msg/TFMessage` of `transforms` (CDR, encapsulation header included)
/// at the end of `out`.
pub fn encode_tf(transforms: &[FrameTransform], out: &mut Vec<u8>) -> &'static RosType {
    let mut w = CdrWriter::new(out);
    w.sequence_len(transforms.len());
    for tr in transforms {
        time(&mut w, tr.stamp); // std_msgs/Header: stamp, frame_id
        w.string(&tr.parent);
        w.string(&tr.child);
        vector3(&mut w, &tr.pose.position);
        quaternion(&mut w, &tr.pose.orientation);
    }
    &t::TF_MESSAGE
}

/// The `/tf_static` transforms of a simulation now: each sensor's frame in its link's frame,
/// stamped `stamp`; a sensor whose frame is its link's, or another entity's (which `/tf`
/// places), is left out, as is a frame placed once already.
pub fn sensor_frames(sim: &Simulation, stamp: SimTime) -> Vec<FrameTransform> {
    let physics = sim.physics();
    let mut statics: Vec<FrameTransform> = Vec::new();
    for s in sim.sensors().setups() {
        let Some(link) = physics.scoped_name(s.link) else {
            continue;
        };
        if s.frame_id == link
            || physics
                .entity_id(&s.frame_id)
                .is_some_and(|id| id != s.entity)
            || statics.iter().any(|t| t.child == s.frame_id)
        {
            continue;
        }
        statics.push(FrameTransform {
            stamp,
            parent: link.to_string(),
            child: s.frame_id.clone(),
            pose: s.pose,
        });
    }
    statics
}
