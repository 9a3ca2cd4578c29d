//! `tf2_msgs/msg/TFMessage`: frame transforms, as `/tf` and `/tf_static` carry them.

use super::catalog as t;
use super::write::{quaternion, time, vector3};
use super::{CdrWriter, RosType};
use sim_plugin_api::{Pose, SimTime};
use std::sync::Arc;

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
    let frames = transforms
        .iter()
        .map(|tr| (tr.stamp, tr.parent.as_str(), tr.child.as_str(), &tr.pose));
    encode_frames(transforms.len(), frames, out)
}

/// Encodes a `tf2_msgs/msg/TFMessage` of `len` transforms, each (stamp, parent, child,
/// pose), at the end of `out`.
fn encode_frames<'a>(
    len: usize,
    frames: impl Iterator<Item = (SimTime, &'a str, &'a str, &'a Pose)>,
    out: &mut Vec<u8>,
) -> &'static RosType {
    let mut w = CdrWriter::new(out);
    w.sequence_len(len);
    for (stamp, parent, child, pose) in frames {
        time(&mut w, stamp); // std_msgs/Header: stamp, frame_id
        w.string(parent);
        w.string(child);
        vector3(&mut w, &pose.position);
        quaternion(&mut w, &pose.orientation);
    }
    &t::TF_MESSAGE
}

/// The frames that moved in one step: poses in [`WORLD_FRAME`], each of a frame of a name
/// table shared with the other steps of the same model revision (the engine's
/// `runner::MovedFrames` gives them).
#[derive(Clone, Debug)]
pub struct Moved {
    stamp: SimTime,
    names: Arc<[Box<str>]>,
    poses: Vec<(usize, Pose)>,
}

impl Moved {
    /// The frames `poses` moved to at `stamp`: each (index into `names`, pose).
    pub fn new(stamp: SimTime, names: Arc<[Box<str>]>, poses: Vec<(usize, Pose)>) -> Moved {
        Moved {
            stamp,
            names,
            poses,
        }
    }

    /// When the poses hold.
    pub fn stamp(&self) -> SimTime {
        self.stamp
    }

    /// How many frames moved.
    pub fn len(&self) -> usize {
        self.poses.len()
    }

    /// Whether no frame moved.
    pub fn is_empty(&self) -> bool {
        self.poses.is_empty()
    }

    /// Each frame that moved: its name and its pose in [`WORLD_FRAME`].
    pub fn frames(&self) -> impl Iterator<Item = (&str, &Pose)> {
        self.poses.iter().map(|(i, p)| (&*self.names[*i], p))
    }

    /// The same frames as [`FrameTransform`]s.
    pub fn transforms(&self) -> Vec<FrameTransform> {
        self.frames()
            .map(|(child, pose)| FrameTransform {
                stamp: self.stamp,
                parent: WORLD_FRAME.to_string(),
                child: child.to_string(),
                pose: *pose,
            })
            .collect()
    }

    /// Encodes them as a `tf2_msgs/msg/TFMessage` (the bytes [`encode_tf`] writes for
    /// [`Moved::transforms`]) at the end of `out`.
    pub fn encode(&self, out: &mut Vec<u8>) -> &'static RosType {
        Moved::encode_steps(std::slice::from_ref(self), out)
    }

    /// Encodes the frames of several steps as one `tf2_msgs/msg/TFMessage` at the end of
    /// `out`: every step's transforms in the order of `steps`, each stamped with its own
    /// step's stamp (the bytes [`encode_tf`] writes for their [`Moved::transforms`] one
    /// after the other; for one step, those of [`Moved::encode`]).
    pub fn encode_steps(steps: &[Moved], out: &mut Vec<u8>) -> &'static RosType {
        let len = steps.iter().map(Moved::len).sum();
        let frames = steps.iter().flat_map(|m| {
            m.frames()
                .map(move |(child, pose)| (m.stamp, WORLD_FRAME, child, pose))
        });
        encode_frames(len, frames, out)
    }
}
