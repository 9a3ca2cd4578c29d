//! The `simcore.visibility_rays.v1` extension: ray casts that see only the visuals a sensor's
//! `<visibility_mask>` selects.
//!
//! As in Gazebo, a visual is seen by a camera or a visual-geometry lidar when its
//! `<visibility_flags>` and the sensor's `<visibility_mask>` share a bit
//! (`flags & mask != 0`); both default to every bit ([`ALL_VISIBLE`]). Collisions carry no
//! flags: a cast against collision geometry sees them all, whatever the mask.
//!
//! The mask travels through this extension, not through [`RayCastOptions`], so that no layout
//! of the 1.x boundary changes: an engine without it answers `None`, and
//! [`WorldRef::cast_rays_seen_by`](crate::WorldRef::cast_rays_seen_by) says so, for the plugin
//! to fall back to an unmasked [`WorldView::cast_rays`](crate::WorldView::cast_rays) (and warn).
//!
//! ```
//! # use sim_plugin_api::{testing::StaticWorld, Ray, RayCastOptions, RayHit, RayTarget, EntityId};
//! # let world = StaticWorld::default();
//! # world.with(|world| {
//! let options = RayCastOptions {
//!     max_distance: 10.0,
//!     target: RayTarget::VISUAL,
//!     exclude_model: EntityId::NONE,
//! };
//! let (rays, mut hits) = ([Ray::default()], [RayHit::MISS]);
//! match world.cast_rays_seen_by(&rays, &options, 0x1, &mut hits) {
//!     Some(hit) => assert_eq!(hit, 0),
//!     None => { /* an engine without the extension: cast unmasked, and warn */ }
//! }
//! # });
//! ```
//!
//! An engine appends methods to [`VisibilityRays`] only after its last one, so a plugin built
//! against this version keeps working with later engines.

use crate::{Ray, RayCastOptions, RayHit};
use abi_stable::{
    RRef, sabi_trait,
    std_types::{RSlice, RSliceMut},
};

/// The name under which the engine offers [`VisibilityRays`].
pub const VISIBILITY_RAYS_EXTENSION: &str = "simcore.visibility_rays.v1";

/// The default `<visibility_mask>` and `<visibility_flags>`: every bit, all visuals seen.
pub const ALL_VISIBLE: u32 = u32::MAX;

/// The value of a `<visibility_mask>` or `<visibility_flags>`: an unsigned 32-bit number,
/// decimal or hexadecimal with `0x` (as Gazebo's example worlds write them: `0x01`),
/// surrounding whitespace allowed; `None` for anything else.
pub fn parse_visibility_bits(text: &str) -> Option<u32> {
    let t = text.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) if !hex.starts_with('+') => u32::from_str_radix(hex, 16).ok(),
        Some(_) => None,
        None if !t.starts_with('+') => t.parse().ok(),
        None => None,
    }
}

/// Ray casts filtered by visibility flags (see the [module docs](self)).
#[sabi_trait]
pub trait VisibilityRays: Send + Sync {
    /// [`WorldView::cast_rays`](crate::WorldView::cast_rays), where a cast against visual
    /// geometry sees only the visuals whose `<visibility_flags>` share a bit with `mask`
    /// (a cast against collisions sees every collision).
    #[sabi(last_prefix_field)]
    fn cast_rays_masked(
        &self,
        rays: RSlice<'_, Ray>,
        options: &RayCastOptions,
        mask: u32,
        hits: RSliceMut<'_, RayHit>,
    ) -> u32;
}

/// The visibility extension as plugins receive it.
pub type VisibilityRaysRef<'a> = VisibilityRays_TO<'a, RRef<'a, ()>>;

impl<'w> crate::WorldRef<'w> {
    /// The [`VISIBILITY_RAYS_EXTENSION`] of this world, or `None` when the engine does not
    /// offer it (or offers an incompatible version).
    pub fn visibility_rays(&self) -> Option<&VisibilityRaysRef<'_>> {
        self.extension(VISIBILITY_RAYS_EXTENSION.into())
            .into_option()
            .and_then(|e| e.get::<VisibilityRaysRef<'_>>())
    }

    /// Casts `rays` into `hits` (at least as long) seeing only the visuals `mask` selects:
    /// a plain [`WorldView::cast_rays`](crate::WorldView::cast_rays) when `mask` is
    /// [`ALL_VISIBLE`], else through the extension. Returns how many rays hit, or `None`
    /// (nothing cast) when the mask is not all bits and the engine lacks the extension.
    pub fn cast_rays_seen_by(
        &self,
        rays: &[Ray],
        options: &RayCastOptions,
        mask: u32,
        hits: &mut [RayHit],
    ) -> Option<u32> {
        let (rays, out) = (RSlice::from_slice(rays), RSliceMut::from_mut_slice(hits));
        if mask == ALL_VISIBLE {
            return Some(self.cast_rays(rays, options, out));
        }
        let ext = self.visibility_rays()?;
        Some(ext.cast_rays_masked(rays, options, mask, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility_bits_are_decimal_or_hexadecimal() {
        for (text, value) in [
            ("0", 0),
            (" 4294967295 ", u32::MAX),
            ("0x01", 1),
            ("0XfF", 255),
            ("0xFFFFFFFF", u32::MAX),
        ] {
            assert_eq!(parse_visibility_bits(text), Some(value), "{text}");
        }
        for text in [
            "",
            "-1",
            "+1",
            "4294967296",
            "0x100000000",
            "0x",
            "0x+1",
            "1.0",
            "one",
        ] {
            assert_eq!(parse_visibility_bits(text), None, "{text}");
        }
    }
}
