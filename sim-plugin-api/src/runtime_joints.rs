//! The `simcore.runtime_joints.v1` extension of [`Commands`](crate::Commands): fixed joints
//! created and removed while the world runs, as gz-sim's DetachableJoint needs.
//!
//! [`RuntimeJoints::attach_fixed`] queues a fixed joint holding two links in the pose they are
//! in when the commands are applied, and answers its id; [`RuntimeJoints::detach`] queues its
//! removal. The engine offers it to systems' `pre_step` hooks; both take effect with the other
//! commands of the step, before the physics step. A
//! joint whose link is removed goes with it. An engine without the extension answers `None`
//! from [`runtime_joints`].
//!
//! An engine appends methods to [`RuntimeJoints`] only after its last one, so a plugin built
//! against this version keeps working with later engines.

use crate::{CommandsMut, EntityId};
use abi_stable::{RRef, sabi_trait};

/// The name under which the engine offers [`RuntimeJoints`] through
/// [`Commands::extension`](crate::Commands::extension).
pub const RUNTIME_JOINTS_EXTENSION: &str = "simcore.runtime_joints.v1";

/// Run-time fixed joints (see the [module docs](self)).
#[sabi_trait]
pub trait RuntimeJoints {
    /// Queues a fixed joint between the links `parent` and `child` (each of any model),
    /// keeping their relative pose of the moment it is applied; the joint's id (never 0). A
    /// link that does not exist when it is applied makes it a warning and no joint.
    fn attach_fixed(&self, parent: EntityId, child: EntityId) -> u64;
    /// Queues the removal of the joint `id` (nothing if it is gone).
    #[sabi(last_prefix_field)]
    fn detach(&self, id: u64);
}

/// The run-time joints extension as plugins receive it.
pub type RuntimeJointsRef<'a> = RuntimeJoints_TO<'a, RRef<'a, ()>>;

/// The [`RUNTIME_JOINTS_EXTENSION`] of `commands`, or `None` when the engine does not offer
/// it (or offers an incompatible version).
pub fn runtime_joints<'c>(commands: &'c mut CommandsMut<'_>) -> Option<&'c RuntimeJointsRef<'c>> {
    commands
        .extension(RUNTIME_JOINTS_EXTENSION.into())
        .into_option()
        .and_then(|e| e.get::<RuntimeJointsRef<'_>>())
}
