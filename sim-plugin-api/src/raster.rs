//! The `simcore.raster.v1` extension: the primary visibility of a pinhole camera, rasterised
//! by the engine, which holds the visual geometry, instead of one ray cast per pixel.
//!
//! A [`PinholeView`] is a camera without distortion: its pose (the sensor frame, x forward
//! along the optical axis, y left, z up), image size, intrinsics (pixel `(i, j)` is seen
//! through its centre `(i + ½, j + ½)` as `u = fx·X/Z + s·Y/Z + cx`, `v = fy·Y/Z + cy` in the
//! optical frame), clip range, the model whose geometry it ignores (its own) and its
//! `<visibility_mask>`. [`Raster::rasterize`] writes, for a band of image rows, what a ray
//! cast per pixel from the near clip plane gives: per pixel a [`RayHit`] whose distance
//! counts from the camera's origin along the unit ray through the pixel centre, the visual
//! and model hit, and (when asked for) the surface normal in the world. As with such a cast:
//!
//! - geometry nearer than the near clip (its z-depth, along the optical axis) is not seen;
//!   a pixel whose ray starts inside a solid shape hits it where the ray starts, with a zero
//!   normal;
//! - a pixel whose nearest hit is beyond the far clip (z-depth) is a miss
//!   ([`RayHit::MISS`]);
//! - only visual geometry is seen, and only the visuals whose `<visibility_flags>` share a
//!   bit with the mask.
//!
//! The engine's hits equal those of the ray cast to within a few millionths of the distance
//! (the rasteriser works in single and double precision, rapier's casts in single); a pixel
//! centre within that of an edge between two surfaces may see the other surface.
//!
//! [`Raster::depths`] rasterises the distances along parallel rays ([`OrthoView`]): the
//! shadow map of a directional light.
//!
//! The rows of one frame can be rasterised as separate bands on several threads; each band's
//! output depends on the view and its rows alone.
//!
//! ```
//! # use sim_plugin_api::{testing::StaticWorld, EntityId, Pose, RayHit, PinholeView, ALL_VISIBLE};
//! # let world = StaticWorld::default();
//! # world.with(|world| {
//! let view = PinholeView {
//!     pose: Pose::IDENTITY,
//!     width: 4,
//!     height: 3,
//!     fx: 2.0,
//!     fy: 2.0,
//!     cx: 2.0,
//!     cy: 1.5,
//!     skew: 0.0,
//!     near: 0.1,
//!     far: 100.0,
//!     exclude_model: EntityId::NONE,
//!     mask: ALL_VISIBLE,
//!     normals: true,
//! };
//! let mut hits = vec![RayHit::MISS; 12];
//! match world.raster() {
//!     Some(raster) => {
//!         raster.rasterize(&view, 0, hits.as_mut_slice().into());
//!     }
//!     None => { /* an engine without the extension: cast one ray per pixel */ }
//! }
//! # });
//! ```
//!
//! An engine appends methods to [`Raster`] only after its last one, so a plugin built against
//! this version keeps working with later engines.

use crate::{EntityId, Pose, RayHit};
use abi_stable::{RRef, StableAbi, sabi_trait, std_types::RSliceMut};

/// The name under which the engine offers [`Raster`].
pub const RASTER_EXTENSION: &str = "simcore.raster.v1";

/// A pinhole camera without distortion, as [`Raster::rasterize`] sees it (see the
/// [module docs](self)).
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq)]
pub struct PinholeView {
    /// The sensor frame in the world: x forward (the optical axis), y left, z up.
    pub pose: Pose,
    /// Image width, pixels.
    pub width: u32,
    /// Image height, pixels.
    pub height: u32,
    /// Focal length along u, pixels.
    pub fx: f64,
    /// Focal length along v, pixels.
    pub fy: f64,
    /// Principal point u, pixels.
    pub cx: f64,
    /// Principal point v, pixels.
    pub cy: f64,
    /// Skew.
    pub skew: f64,
    /// Near clip: the z-depth (along the optical axis) where the pixels' rays start, m.
    pub near: f64,
    /// Far clip: hits deeper than this z-depth are misses, m.
    pub far: f64,
    /// Geometry of this model and of the models nested in it is not seen
    /// ([`EntityId::NONE`]: all is).
    pub exclude_model: EntityId,
    /// The `<visibility_mask>`: only visuals whose flags share a bit with it are seen.
    pub mask: u32,
    /// Whether the hits carry their surface normals (else zero).
    pub normals: bool,
}

/// A view along parallel rays (a shadow map's, from a directional light), as
/// [`Raster::depths`] sees it.
///
/// Pixel `(i, j)` is the ray along the pose's x axis from the point of the pose's `x = 0`
/// plane at `y = -(i + ½ - width/2) / scale`, `z = -(j + ½ - height/2) / scale` (columns
/// run to the right of x, rows down, as a camera's).
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq)]
pub struct OrthoView {
    /// The view's frame: x along the rays, the image centred on the x axis.
    pub pose: Pose,
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// Pixels per metre across the rays.
    pub scale: f64,
    /// How far along the rays surfaces are seen, m.
    pub depth: f64,
}

/// Primary visibility by rasterisation (see the [module docs](self)).
#[sabi_trait]
pub trait Raster: Send + Sync {
    /// Writes into `hits` the hits of the pixels of rows `first_row..` of `view`, row-major
    /// from column 0 (`hits.len() / view.width` whole rows, within the image); returns how
    /// many pixels hit something.
    fn rasterize(&self, view: &PinholeView, first_row: u32, hits: RSliceMut<'_, RayHit>) -> u32;

    /// Writes into `depths` the distance along each ray of rows `first_row..` of `view` to
    /// the nearest visual surface within `view.depth` (every visual, as shadow rays see
    /// them; `+inf` where none; 0 where the ray starts inside a solid), row-major as
    /// [`Raster::rasterize`]; returns how many rays met a surface. A shadow map: a point
    /// whose distance along the rays exceeds its pixel's depth has a surface between it and
    /// a light shining along them.
    #[sabi(last_prefix_field)]
    fn depths(&self, view: &OrthoView, first_row: u32, depths: RSliceMut<'_, f32>) -> u32;
}

/// The raster extension as plugins receive it.
pub type RasterRef<'a> = Raster_TO<'a, RRef<'a, ()>>;

impl<'w> crate::WorldRef<'w> {
    /// The [`RASTER_EXTENSION`] of this world, or `None` when the engine does not offer it
    /// (or offers an incompatible version).
    pub fn raster(&self) -> Option<&RasterRef<'_>> {
        self.extension(RASTER_EXTENSION.into())
            .into_option()
            .and_then(|e| e.get::<RasterRef<'_>>())
    }
}
