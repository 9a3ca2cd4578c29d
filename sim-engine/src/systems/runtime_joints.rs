//! The engine's side of the `simcore.runtime_joints.v1` extension: the fixed joints systems
//! ask for during their `pre_step`, as physics commands.

use sim_physics::PhysicsCommand;
use sim_plugin_api::{EntityId, RuntimeJoints};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Ids of run-time joints, unique in the process (0 is never one).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The requests of one step's `pre_step` hooks, in issue order.
#[derive(Debug, Default)]
pub struct JointRequests {
    queued: RefCell<Vec<PhysicsCommand>>,
}

impl JointRequests {
    /// The commands queued since the last call.
    pub fn take(&self) -> Vec<PhysicsCommand> {
        std::mem::take(&mut self.queued.borrow_mut())
    }
}

impl RuntimeJoints for JointRequests {
    fn attach_fixed(&self, parent: EntityId, child: EntityId) -> u64 {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        self.queued
            .borrow_mut()
            .push(PhysicsCommand::AttachFixed { id, parent, child });
        id
    }

    fn detach(&self, id: u64) {
        self.queued.borrow_mut().push(PhysicsCommand::Detach(id));
    }
}
