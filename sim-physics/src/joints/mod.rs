//! Joints in rapier: building each SDF joint type, reading joint states and wrenches, driving
//! joint axes, and the velocity-level couplings of screw and gearbox joints.
//!
//! The revolute, prismatic, fixed and ball joints of the world file's models hung from the
//! world or with passive joint dynamics (see `reduced::reducible`) are built in reduced coordinates
//! where they can be (`reduced`): a rapier multibody joint carrying the
//! axis's damping, friction and spring on the joint coordinate, plus a *drive joint*, an
//! impulse joint between the same links that locks nothing and holds the limits and the
//! commands' motors (solved with the tree's inertia, its impulses read back as the effort).
//! docs/physics.md lists the joints that stay impulse joints and why. The rest of this
//! documentation describes the impulse joints:
//!
//! * revolute, continuous, prismatic, fixed and ball joints are one rapier impulse joint
//!   ([`GenericJoint`]) between the parent and child bodies, its X axis along the SDF axis;
//! * universal and revolute2 joints are one rapier joint that locks the translations and the
//!   rotation about `axis x axis2`, with X along `axis` and Y along `axis2`. rapier locks a
//!   rotation about an axis of the frame half-way between the joint's two frames, which is
//!   only the right constraint while both angles are zero; so before each step the joint's
//!   frames are turned to the joint's current angles (the parent's frame by angle 1 about
//!   axis 1, the child's back by angle 2 about axis 2), which makes axis 1 fixed in the
//!   parent, axis 2 fixed in the child and the locked direction their cross product, exactly,
//!   and the limits and spring targets are shifted by the same angles. The two axes must be
//!   perpendicular (as ODE's universal joint assumes); a revolute2 joint with oblique axes is
//!   refused when the world is built;
//! * a screw joint is a rapier cylindrical joint (rotation about and translation along the
//!   axis) plus one coupling row, `translation = pitch * angle / 2pi`;
//! * a gearbox joint is a rapier joint that locks nothing (the gears turn on their own
//!   revolute joints) plus one coupling row, `parent_angle = -ratio * child_angle`, both angles
//!   measured relative to the reference body (as Gazebo's ODE gearbox).
//!
//! The coupling rows are solved after each rapier step as velocity constraints on the bodies
//! involved (an impulse that makes the coupled velocity exact, with a Baumgarte term of
//! [`COUPLING_ERP`] per step pulling the positions back onto the coupling), so they are not
//! solved together with rapier's contacts and joints: the coupled positions lag by what one
//! step of the other constraints moves them, and return to the coupling within a few steps.

mod bounds;
mod build;
mod commands;
mod couplings;
mod readout;
mod reduced;

pub(crate) use couplings::{Coupling, TwoAxes};

use rapier3d::prelude::{ImpulseJointHandle, RigidBodyHandle};
use sim_plugin_api::EntityId;

/// The joints' bookkeeping beyond rapier's joint sets.
#[derive(Debug, Default)]
pub(crate) struct JointState {
    /// Per joint axis (joint, axis number): the last raw angle and the whole turns counted,
    /// so that rotations report an unwrapped position.
    pub turns: Vec<(EntityId, usize, f64, f64)>,
    /// Runs (first slot, length) of `turns` whose joints were removed, for the next joints
    /// added with as many axes.
    pub free_turns: Vec<(usize, usize)>,
    /// The screw and gearbox couplings, solved after each step.
    pub couplings: Vec<Coupling>,
    /// The universal and revolute2 joints, whose frames follow their angles.
    pub two_axes: Vec<TwoAxes>,
    /// The position commands on angular axes of reduced-coordinate joints: joint entity,
    /// drive joint and target, rad (see `reduced`).
    pub drive_targets: Vec<(EntityId, ImpulseJointHandle, f64)>,
    /// Whether the joints being added may be built in reduced coordinates: while the world's
    /// models are built.
    pub reduced: bool,
    /// The fixed joints made at run time, by id (see `runtime_joints`).
    pub runtime: std::collections::HashMap<u64, ImpulseJointHandle>,
    /// A fixed body at the world origin, for joints whose parent is `world`.
    pub world_anchor: Option<RigidBodyHandle>,
}
pub(crate) use reduced::reducible;
