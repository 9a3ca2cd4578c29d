//! The joints a gz-sim joint controller drives together: all get the same command, and the
//! first one is measured.

use crate::gz::drive;
use sim_plugin_api::abi_stable::std_types::{RSlice, RSliceMut};
use sim_plugin_api::prelude::*;

/// The joints a gz-sim joint controller names with its `<joint_name>`s (resolved with
/// [`joints`](crate::gz::joints)), with their states as last read.
#[derive(Clone, Debug)]
pub struct JointGroup {
    ids: Vec<EntityId>,
    states: Vec<JointState>,
}

impl JointGroup {
    /// The group of `ids` (at least one), in the order named.
    pub fn new(ids: Vec<EntityId>) -> Self {
        JointGroup {
            states: vec![JointState::default(); ids.len()],
            ids,
        }
    }

    /// The joints, in the order named.
    pub fn ids(&self) -> &[EntityId] {
        &self.ids
    }

    /// Reads the joints' states; the first joint's (gz-sim's controllers measure it), or `None`
    /// when a joint is gone (or the group is empty).
    pub fn first_state(&mut self, world: &WorldRef<'_>) -> Option<JointState> {
        let known = world.joint_states(
            RSlice::from_slice(&self.ids),
            RSliceMut::from_mut_slice(&mut self.states),
        );
        self.first_if_all(known)
    }

    /// The first joint's state when the engine knew all `known` of them.
    fn first_if_all(&self, known: u32) -> Option<JointState> {
        if known as usize != self.ids.len() {
            return None;
        }
        self.states.first().copied()
    }

    /// Drives axis `axis` of every joint in `mode` to `target` ([`drive`]).
    pub fn drive(
        &self,
        commands: &mut CommandsMut<'_>,
        axis: u32,
        mode: JointCommandMode,
        target: f64,
    ) {
        for joint in &self.ids {
            commands.joint_command(&drive(*joint, axis, mode, target));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::abi_stable::sabi_trait::TD_Opaque;
    use sim_plugin_api::abi_stable::std_types::{ROption, RStr};
    use sim_plugin_api::testing::StaticWorld;
    use sim_plugin_api::{Commands, Commands_TO, EntityFactory, Extension};

    #[test]
    fn the_first_state_only_when_every_joint_is_known() {
        let mut group = JointGroup::new(vec![EntityId(2), EntityId(3)]);
        assert_eq!(group.ids(), [EntityId(2), EntityId(3)]);
        group.states[0].dof = 1;
        group.states[0].position[0] = 0.5;
        assert_eq!(group.first_if_all(2), Some(group.states[0]));
        assert_eq!(group.first_if_all(1), None);
        assert_eq!(JointGroup::new(Vec::new()).first_if_all(0), None);
        // The static world knows no joint states: the group reads none.
        let w = StaticWorld::default();
        assert_eq!(w.with(|world| group.first_state(&world)), None);
    }

    /// Commands that keep the joint commands.
    #[derive(Default)]
    struct Recorded(Vec<JointCommand>);

    impl Commands for Recorded {
        fn set_pose(&mut self, _: EntityId, _: Pose) {}
        fn set_velocity(&mut self, _: EntityId, _: Vec3, _: Vec3) {}
        fn apply_wrench(&mut self, _: EntityId, _: Vec3, _: Vec3) {}
        fn joint_command(&mut self, command: &JointCommand) {
            self.0.push(*command);
        }
        fn spawn(&mut self, _: &EntityFactory) -> u64 {
            0
        }
        fn remove(&mut self, _: EntityId) {}
        fn publish(&mut self, _: Message) {}
        fn set_sensor_active(&mut self, _: EntityId, _: bool) {}
        fn set_sensor_parameter(&mut self, _: EntityId, _: RStr<'_>, _: RStr<'_>) {}
        fn extension(&mut self, _: RStr<'_>) -> ROption<Extension<'_>> {
            ROption::RNone
        }
    }

    #[test]
    fn every_joint_gets_the_command() {
        let group = JointGroup::new(vec![EntityId(2), EntityId(3)]);
        let mut recorded = Recorded::default();
        {
            let mut commands: CommandsMut<'_> = Commands_TO::from_ptr(&mut recorded, TD_Opaque);
            group.drive(&mut commands, 1, JointCommandMode::FORCE, 2.5);
        }
        assert_eq!(
            recorded.0,
            [
                drive(EntityId(2), 1, JointCommandMode::FORCE, 2.5),
                drive(EntityId(3), 1, JointCommandMode::FORCE, 2.5)
            ]
        );
    }
}
