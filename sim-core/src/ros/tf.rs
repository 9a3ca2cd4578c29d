//! `tf2_msgs/msg/TFMessage`: frame transforms, as `/tf` and `/tf_static` carry them.

use super::catalog as t;
use super::encode::{quaternion, time, vector3};
use super::{CdrWriter, RosType};
use crate::physics::Physics;
use crate::runner::Simulation;
use sim_plugin_api::{EntityId, Pose, SimTime};
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
/// last call (all of them on the first call, after the world's models changed, or after
/// [`MovedFrames::clear`]), in [`WORLD_FRAME`], from the engine's truth whatever plugins the
/// world has.
///
/// The frames' names are looked up once per model revision of the engine
/// ([`Physics::revision`]) into a shared table; each step costs one pose comparison per
/// frame, and what it returns ([`Moved`]) holds only (frame, pose) pairs, encoded where it
/// is sent.
#[derive(Debug, Default)]
pub struct MovedFrames {
    /// The model revision the table is of (None: build it at the next call).
    revision: Option<u64>,
    /// The frames' entities, in the engine's frame order.
    ids: Vec<EntityId>,
    /// Their names, by the same index.
    names: Arc<[Box<str>]>,
    /// The pose each was last given at (None: give it at the next call).
    sent: Vec<Option<Pose>>,
}

impl MovedFrames {
    /// Forgets the poses sent, so that the next call gives every frame (a message was lost,
    /// or a new listener needs them all).
    pub fn clear(&mut self) {
        self.sent.iter_mut().for_each(|p| *p = None);
    }

    /// The frames of `physics` that moved since the last call, stamped `stamp`.
    pub fn moved(&mut self, physics: &Physics, stamp: SimTime) -> Moved {
        if self.revision != Some(physics.revision()) {
            self.revision = Some(physics.revision());
            let (ids, names): (Vec<EntityId>, Vec<Box<str>>) = physics
                .frames()
                .map(|f| (f.id, f.scoped_name.into()))
                .unzip();
            self.sent = vec![None; ids.len()];
            self.ids = ids;
            self.names = names.into();
        }
        let mut poses = Vec::new();
        for (i, (id, sent)) in self.ids.iter().zip(&mut self.sent).enumerate() {
            let Some(pose) = physics.pose_of(*id) else {
                continue;
            };
            if *sent != Some(pose) {
                *sent = Some(pose);
                if poses.is_empty() {
                    // One allocation for the step, none when nothing moved.
                    poses.reserve(self.ids.len() - i);
                }
                poses.push((i, pose));
            }
        }
        Moved {
            stamp,
            names: self.names.clone(),
            poses,
        }
    }
}

/// The frames [`MovedFrames::moved`] gives for one step: poses in [`WORLD_FRAME`], each
/// of a frame of the table it shares with the other steps of the same model revision.
#[derive(Clone, Debug)]
pub struct Moved {
    stamp: SimTime,
    names: Arc<[Box<str>]>,
    poses: Vec<(usize, Pose)>,
}

impl Moved {
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

#[cfg(test)]
#[path = "tf_tests.rs"]
mod tests;
