//! The `simcore.mechanics.v1` extension: what gz-sim's physical systems read of bodies beyond
//! their motion: a link's mass properties and collision shapes, a model's joints, a joint's
//! axis.
//!
//! Buoyancy needs the volume of a link's collisions, ApplyLinkWrench the link's centre of
//! mass (and a model's canonical link), JointStatePublisher the joints of a model, Buoyancy
//! the links of every model, Thruster a joint's axis. None of it fits the frozen
//! [`WorldView`](crate::WorldView), so it travels through this extension: an engine without it
//! answers `None` from [`WorldRef::mechanics`], for the plugin to report what it cannot do.
//!
//! ```
//! # use sim_plugin_api::{testing::StaticWorld, EntityId};
//! # let world = StaticWorld::default();
//! # world.with(|world| {
//! let link = EntityId(7);
//! match world.mechanics() {
//!     Some(m) => {
//!         let _mass = m.inertial(link).into_option().map(|i| i.mass);
//!         let mut shapes = Default::default();
//!         let _known = m.collision_shapes(link, &mut shapes);
//!     }
//!     None => { /* an engine without the extension */ }
//! }
//! # });
//! ```
//!
//! An engine appends methods to [`Mechanics`] only after its last one, so a plugin built
//! against this version keeps working with later engines.

use crate::{EntityId, Pose, Vec3, WorldRef};
use abi_stable::{
    RRef, StableAbi, sabi_trait,
    std_types::{ROption, RVec},
};

/// The name under which the engine offers [`Mechanics`].
pub const MECHANICS_EXTENSION: &str = "simcore.mechanics.v1";

/// The kind of a collision's geometry. A newtype so that later versions can add kinds.
#[repr(transparent)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ShapeKind(pub u32);

impl ShapeKind {
    /// A kind this version does not name.
    pub const OTHER: ShapeKind = ShapeKind(0);
    /// `<box>`: `size` holds the edge lengths.
    pub const BOX: ShapeKind = ShapeKind(1);
    /// `<sphere>`: `size.x` is the radius.
    pub const SPHERE: ShapeKind = ShapeKind(2);
    /// `<cylinder>` along local Z: `size.x` is the radius, `size.y` the length.
    pub const CYLINDER: ShapeKind = ShapeKind(3);
    /// `<capsule>` along local Z: `size.x` is the radius, `size.y` the cylinder's length.
    pub const CAPSULE: ShapeKind = ShapeKind(4);
    /// `<ellipsoid>`: `size` holds the semi-axes.
    pub const ELLIPSOID: ShapeKind = ShapeKind(5);
    /// `<plane>`: no volume.
    pub const PLANE: ShapeKind = ShapeKind(6);
    /// `<mesh>` (its volume and centre of volume are those of the mesh's convex hull; 0 for
    /// a flat mesh).
    pub const MESH: ShapeKind = ShapeKind(7);
    /// `<cone>` along local Z: `size.x` is the base radius, `size.y` the length.
    pub const CONE: ShapeKind = ShapeKind(8);
}

/// One `<collision>` of a link as the engine collides with it.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct CollisionShape {
    /// The collision entity.
    pub collision: EntityId,
    /// Its geometry's kind.
    pub kind: ShapeKind,
    /// The collision's pose in its link's frame (the SDF `<pose>`).
    pub pose: Pose,
    /// The dimensions of the geometry (see [`ShapeKind`]); zero for kinds without them.
    pub size: Vec3,
    /// The volume of the solid, m³ (0 for planes and height maps).
    pub volume: f64,
    /// The centre of that volume in the link's frame.
    pub center_of_volume: Vec3,
}

/// A link's mass properties, from its `<inertial>`.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct LinkInertial {
    /// Mass, kg (0 for a static or massless link).
    pub mass: f64,
    /// The centre of mass in the link's frame.
    pub center_of_mass: Vec3,
    /// The inertia matrix about the centre of mass in the link's frame, as
    /// `[ixx, iyy, izz, ixy, ixz, iyz]`, kg m².
    pub inertia: [f64; 6],
}

/// One axis of a joint, as the link it moves carries it.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct JointAxis {
    /// The joint's child link.
    pub child_link: EntityId,
    /// The joint's origin in the child link's frame.
    pub origin: Vec3,
    /// The unit axis in the child link's frame.
    pub axis: Vec3,
    /// Whether the axis slides (prismatic) rather than turns.
    pub linear: bool,
}

/// The extension's capabilities (see the [module docs](self)).
#[sabi_trait]
pub trait Mechanics: Send + Sync {
    /// The mass properties of `link`; `None` when it is not a link.
    fn inertial(&self, link: EntityId) -> ROption<LinkInertial>;
    /// Replaces the contents of `out` with the collisions of `link`, in document order;
    /// `false` (and `out` empty) when it is not a link.
    fn collision_shapes(&self, link: EntityId, out: &mut RVec<CollisionShape>) -> bool;
    /// Replaces the contents of `out` with the joints declared directly in `model` (not in
    /// its nested models), in document order; `false` when it is not a model.
    fn model_joints(&self, model: EntityId, out: &mut RVec<EntityId>) -> bool;
    /// The canonical link of `model` (the link its frame follows); [`EntityId::NONE`] when it
    /// is not a model or has no links.
    fn canonical_link(&self, model: EntityId) -> EntityId;
    /// Replaces the contents of `out` with the links declared directly in `model` (not in its
    /// nested models), in document order; `false` when it is not a model.
    fn model_links(&self, model: EntityId, out: &mut RVec<EntityId>) -> bool;
    /// Axis `axis` (0 or 1) of `joint`: its child link, and the joint's origin and the unit
    /// axis in that link's frame; `None` for an unknown joint or an axis it lacks.
    #[sabi(last_prefix_field)]
    fn joint_axis(&self, joint: EntityId, axis: u32) -> ROption<JointAxis>;
}

/// The mechanics extension as plugins receive it.
pub type MechanicsRef<'a> = Mechanics_TO<'a, RRef<'a, ()>>;

impl<'w> WorldRef<'w> {
    /// The [`MECHANICS_EXTENSION`] of this world, or `None` when the engine does not offer it
    /// (or offers an incompatible version).
    pub fn mechanics(&self) -> Option<&MechanicsRef<'_>> {
        self.extension(MECHANICS_EXTENSION.into())
            .into_option()
            .and_then(|e| e.get::<MechanicsRef<'_>>())
    }
}

impl LinkInertial {
    /// The inertia matrix as rows.
    pub fn inertia_matrix(&self) -> [[f64; 3]; 3] {
        let [xx, yy, zz, xy, xz, yz] = self.inertia;
        [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]
    }
}
