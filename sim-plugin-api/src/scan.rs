//! The `simcore.scan.v1` extension: a lidar's scan (rays from one point on a grid of
//! horizontal and vertical angles) cast by the engine as a whole, instead of ray by ray.
//!
//! A [`ScanView`] is the sensor frame's pose, the grid (row `j`, column `i`: vertical angle
//! `v = vertical.angle(j)`, horizontal angle `h = horizontal.angle(i)`), the minimum range
//! the rays start at, the cast options and the `<visibility_mask>`. Ray `(j, i)` is exactly
//! [`ScanView::ray`] of [`ScanView::local_direction`]: from the sensor origin plus `start`
//! along the unit direction `M (cos v cos h, cos v sin h, sin v)`, `M` the pose's rotation
//! matrix ([`Quat::to_matrix`](crate::Quat::to_matrix)). [`Scan::scan`] writes, for a band
//! of rows, the hits a [`cast_rays_seen_by`](crate::WorldRef::cast_rays_seen_by) of those
//! rays with the view's options and mask gives, bit for bit: the engine uses the grid to
//! find which rays may meet each shape, and casts each such ray at the shape exactly as the
//! ray cast does.
//!
//! The rows of one scan can be cast as separate bands on several threads; each band's output
//! depends on the view and its rows alone.
//!
//! ```
//! # use sim_plugin_api::{testing::StaticWorld, ALL_VISIBLE, EntityId, Pose, RayCastOptions,
//! #     RayHit, RayTarget, ScanAngles, ScanView};
//! # let world = StaticWorld::default();
//! # world.with(|world| {
//! let view = ScanView {
//!     pose: Pose::IDENTITY,
//!     horizontal: ScanAngles { min: -3.0, step: 0.5, samples: 13 },
//!     vertical: ScanAngles { min: -0.2, step: 0.1, samples: 5 },
//!     start: 0.1,
//!     options: RayCastOptions {
//!         max_distance: 30.0,
//!         target: RayTarget::COLLISION,
//!         exclude_model: EntityId::NONE,
//!     },
//!     mask: ALL_VISIBLE,
//! };
//! let mut hits = vec![RayHit::MISS; 13 * 5];
//! match world.scan() {
//!     Some(scan) => {
//!         scan.scan(&view, 0, hits.as_mut_slice().into());
//!     }
//!     None => { /* an engine without the extension: cast the rays of `view.ray` */ }
//! }
//! # });
//! ```
//!
//! An engine appends methods to [`Scan`] only after its last one, so a plugin built against
//! this version keeps working with later engines.

use crate::{Pose, Ray, RayCastOptions, RayHit, Vec3};
use abi_stable::{RRef, StableAbi, sabi_trait, std_types::RSliceMut};

/// The name under which the engine offers [`Scan`].
pub const SCAN_EXTENSION: &str = "simcore.scan.v1";

/// One axis of a scan's grid: `samples` angles from `min`, `step` apart (rad).
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq)]
pub struct ScanAngles {
    /// The first angle, rad.
    pub min: f64,
    /// The angle between neighbouring samples, rad.
    pub step: f64,
    /// How many samples.
    pub samples: u32,
}

impl ScanAngles {
    /// The angle of sample `i`: `min + i * step`.
    #[inline]
    pub fn angle(&self, i: u32) -> f64 {
        self.min + f64::from(i) * self.step
    }
}

/// A lidar's scan, as [`Scan::scan`] sees it (see the [module docs](self)).
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq)]
pub struct ScanView {
    /// The sensor frame in the world: the rays leave its origin.
    pub pose: Pose,
    /// The horizontal angles (the columns of a row), about the frame's z axis from its x
    /// axis.
    pub horizontal: ScanAngles,
    /// The vertical angles (the rows), up from the frame's xy plane.
    pub vertical: ScanAngles,
    /// How far from the origin along its direction each ray starts, m.
    pub start: f64,
    /// The cast's options: `max_distance` counts from the ray's start.
    pub options: RayCastOptions,
    /// The `<visibility_mask>`: a cast against visuals sees only those whose flags share a
    /// bit with it.
    pub mask: u32,
}

impl ScanView {
    /// The unit direction of row `row`, column `col` in the sensor frame:
    /// `(cos v cos h, cos v sin h, sin v)`.
    #[inline]
    pub fn local_direction(&self, row: u32, col: u32) -> Vec3 {
        let (sv, cv) = self.vertical.angle(row).sin_cos();
        let (sh, ch) = self.horizontal.angle(col).sin_cos();
        Vec3::new(cv * ch, cv * sh, sv)
    }

    /// The ray of sensor-frame direction `local` (from [`ScanView::local_direction`]), with
    /// `matrix` the pose's rotation matrix (`pose.orientation.to_matrix()`): its direction
    /// `matrix · local` (row by row, `m[0] x + m[1] y + m[2] z`), its origin the pose's
    /// position plus `start` times that direction.
    #[inline]
    pub fn ray(&self, matrix: &[[f64; 3]; 3], local: Vec3) -> Ray {
        let direction = local.by_matrix(matrix);
        Ray {
            origin: self.pose.position + direction.scale(self.start),
            direction,
        }
    }
}

/// A scan cast as a whole (see the [module docs](self)).
#[sabi_trait]
pub trait Scan: Send + Sync {
    /// Writes into `hits` the hits of the rays of rows `first_row..` of `view`, row-major
    /// from column 0 (`hits.len() / view.horizontal.samples` whole rows, within the grid);
    /// returns how many rays hit something.
    #[sabi(last_prefix_field)]
    fn scan(&self, view: &ScanView, first_row: u32, hits: RSliceMut<'_, RayHit>) -> u32;
}

/// The scan extension as plugins receive it.
pub type ScanRef<'a> = Scan_TO<'a, RRef<'a, ()>>;

impl<'w> crate::WorldRef<'w> {
    /// The [`SCAN_EXTENSION`] of this world, or `None` when the engine does not offer it
    /// (or offers an incompatible version).
    pub fn scan(&self) -> Option<&ScanRef<'_>> {
        self.extension(SCAN_EXTENSION.into())
            .into_option()
            .and_then(|e| e.get::<ScanRef<'_>>())
    }
}
