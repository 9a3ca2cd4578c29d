//! Fixed joints made and removed while the world runs (the `simcore.runtime_joints.v1`
//! extension, for gz-sim's DetachableJoint).

use super::Physics;
use super::commands::{CommandError, unknown};
use super::convert::*;
use super::entities::EntityData;
use rapier3d::prelude::*;
use sim_plugin_api::{EntityId, Pose};

impl Physics {
    /// The body of the link `id`.
    fn joinable(&self, id: EntityId) -> Result<RigidBodyHandle, CommandError> {
        let e = self.entities.get(id).ok_or_else(|| unknown(id))?;
        match e.data {
            EntityData::Link { body, .. } => Ok(body),
            _ => Err(CommandError::NotJoinable {
                name: e.scoped_name.clone(),
                kind: e.kind.name(),
            }),
        }
    }

    /// Holds `child` to `parent` by a fixed joint in their present relative pose, known by
    /// `id` (an earlier joint of that id is replaced). The two links no longer collide.
    pub(super) fn attach_fixed(
        &mut self,
        id: u64,
        parent: EntityId,
        child: EntityId,
    ) -> Result<(), CommandError> {
        let (b1, b2) = (self.joinable(parent)?, self.joinable(child)?);
        let pose = |h: RigidBodyHandle| {
            self.pw
                .bodies
                .get(h)
                .map(|b| pose_from_rapier(b.position()))
                .unwrap_or(Pose::IDENTITY)
        };
        let frame1 = pose(b1).inverse().compose(pose(b2));
        let joint = GenericJointBuilder::new(JointAxesMask::LOCKED_FIXED_AXES)
            .local_frame1(pose_to_rapier(frame1))
            .local_frame2(pose_to_rapier(Pose::IDENTITY))
            .contacts_enabled(false);
        self.detach(id);
        let handle = self.pw.impulse_joints.insert(b1, b2, joint, true);
        self.joints.runtime.insert(id, handle);
        Ok(())
    }

    /// Removes the run-time joint `id`, if it is there (a removed link took its joints).
    pub(super) fn detach(&mut self, id: u64) {
        if let Some(h) = self.joints.runtime.remove(&id) {
            self.pw.impulse_joints.remove(h, true);
        }
    }
}
