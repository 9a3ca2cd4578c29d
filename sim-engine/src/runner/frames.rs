//! The frames a run publishes: the sensors' frames for `/tf_static` and the models' and
//! links' frames that moved for `/tf`, read from the engine's state (the ROS encoding is
//! [`sim_codec::encode_tf`]).

use crate::runner::Simulation;
use sim_codec::{FrameTransform, Moved};
use sim_physics::Physics;
use sim_plugin_api::{EntityId, Pose, SimTime};
use std::sync::Arc;

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
/// [`MovedFrames::clear`]), in [`WORLD_FRAME`](sim_codec::WORLD_FRAME), from the engine's truth whatever plugins the
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
        Moved::new(stamp, self.names.clone(), poses)
    }
}

#[cfg(test)]
#[path = "frames_tests.rs"]
mod tests;
