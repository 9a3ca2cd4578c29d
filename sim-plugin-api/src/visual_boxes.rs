//! The `simcore.visual_boxes.v1` extension: every visual's whole geometry as a box (its local
//! bounding box and its world pose), for sensors that report what a visual is, not only the
//! part their rays see, such as the bounding box camera's `full_2d` and `3d` boxes.
//!
//! ```
//! # use sim_plugin_api::testing::StaticWorld;
//! # let world = StaticWorld::default();
//! # world.with(|world| {
//! match world.visual_boxes() {
//!     Some(boxes) => {
//!         for b in boxes {
//!             // The box's centre in the world frame.
//!             let _ = b.pose.transform_point(b.center);
//!         }
//!     }
//!     None => { /* an engine without the extension */ }
//! }
//! # });
//! ```
//!
//! An engine appends methods to [`VisualBoxes`] only after its last one, so a plugin built
//! against this version keeps working with later engines.

use crate::{EntityId, Pose, Vec3};
use abi_stable::{RRef, StableAbi, sabi_trait, std_types::RVec};

/// The name under which the engine offers [`VisualBoxes`].
pub const VISUAL_BOXES_EXTENSION: &str = "simcore.visual_boxes.v1";

/// The box of one visual: the smallest box aligned with the visual's frame that holds its
/// geometry.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct VisualBox {
    /// The visual.
    pub visual: EntityId,
    /// The model it belongs to (as [`RayHit::model`](crate::RayHit::model) names it).
    pub model: EntityId,
    /// Its segmentation label, or [`NO_LABEL`](crate::NO_LABEL).
    pub label: u32,
    /// The box's centre in the visual's frame.
    pub center: Vec3,
    /// Half the box's size along each axis of the visual's frame.
    pub half_extents: Vec3,
    /// The visual's frame in the world now.
    pub pose: Pose,
}

/// The boxes of the world's visuals (see the [module docs](self)).
#[sabi_trait]
pub trait VisualBoxes: Send + Sync {
    /// Fills `out` with the box of every visual that has a bounded shape (planes and empty
    /// geometry have none), in creation order.
    #[sabi(last_prefix_field)]
    fn visual_boxes(&self, out: &mut RVec<VisualBox>);
}

/// The visual boxes extension as plugins receive it.
pub type VisualBoxesRef<'a> = VisualBoxes_TO<'a, RRef<'a, ()>>;

impl<'w> crate::WorldRef<'w> {
    /// The [`VISUAL_BOXES_EXTENSION`] of this world, or `None` when the engine does not offer
    /// it (or offers an incompatible version).
    pub fn visual_boxes_ext(&self) -> Option<&VisualBoxesRef<'_>> {
        self.extension(VISUAL_BOXES_EXTENSION.into())
            .into_option()
            .and_then(|e| e.get::<VisualBoxesRef<'_>>())
    }

    /// The boxes of the world's visuals now, or `None` when the engine lacks the extension.
    pub fn visual_boxes(&self) -> Option<Vec<VisualBox>> {
        let ext = self.visual_boxes_ext()?;
        let mut out = RVec::new();
        ext.visual_boxes(&mut out);
        Some(out.into_vec())
    }
}
