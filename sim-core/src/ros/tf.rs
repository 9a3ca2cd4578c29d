//! `tf2_msgs/msg/TFMessage`: frame transforms, as `/tf` and `/tf_static` carry them.

use super::catalog as t;
use super::encode::{quaternion, time, vector3};
use super::{CdrWriter, RosType};
use crate::physics::Physics;
use crate::runner::Simulation;
use sim_plugin_api::{EntityId, Pose, SimTime};
use std::collections::HashMap;

/// The TF frame all model and link poses are given in (`/tf`).
pub const WORLD_FRAME: &str = "world";

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

/// The `/tf` of a run: each step, the model and link frames whose pose changed since the
/// last call (all of them on the first call, or after [`MovedFrames::clear`]), in
/// [`WORLD_FRAME`], from the engine's truth whatever plugins the world has.
#[derive(Debug, Default)]
pub struct MovedFrames {
    poses: HashMap<EntityId, Pose>,
}

impl MovedFrames {
    /// Forgets the poses sent, so that the next call gives every frame (models were added
    /// or removed, or a new listener needs them all).
    pub fn clear(&mut self) {
        self.poses.clear();
    }

    /// The frames of `physics` that moved since the last call, stamped `stamp`.
    pub fn moved(&mut self, physics: &Physics, stamp: SimTime) -> Vec<FrameTransform> {
        let mut moved = Vec::new();
        for f in physics.frames() {
            if self.poses.get(&f.id) != Some(&f.pose) {
                self.poses.insert(f.id, f.pose);
                moved.push(FrameTransform {
                    stamp,
                    parent: WORLD_FRAME.to_string(),
                    child: f.scoped_name.to_string(),
                    pose: f.pose,
                });
            }
        }
        moved
    }
}
