//! The scan extension (`simcore.scan.v1`): a lidar's rays, on a grid of horizontal and
//! vertical angles from one point, cast shape by shape rather than ray by ray.
//!
//! A scan's rays are known before they are cast: from the view alone, each shape the scan
//! may see gets its *footprint*, the rows and columns of the grid whose directions can meet
//! it. The shape's box (its own, posed) is taken into the sensor frame; its elevations lie
//! between `atan2(z, ρ)` of its lowest and highest corner, `ρ` the nearest or farthest
//! distance of the box from the sensor's vertical axis (whichever bounds the angle), and its
//! azimuths between those of its corners, seen from outside (a box around the axis covers
//! every column). Both are widened by a margin far above the rounding of the rays'
//! directions. A box of the ray trees whose elevations fall between two rows, or that lies
//! beyond the scan's range, is skipped with everything below it in the tree: in a world of
//! boxes on the ground, what is far enough to fall between the rows is never looked at.
//!
//! The footprints (and the grid's sines and cosines) are made once per view and world
//! state, by the first band of a scan to need them, and shared by the others. A band then
//! builds its rays exactly as the view defines them, tests the unbounded shapes
//! (half-spaces) on every ray, and each shape of a footprint, nearest first, on the rays of
//! the footprint in the band whose best hit is not nearer than the shape can be: with the
//! same prepared shape casts, the same filter and the same rule for ties as the ray cast
//! (see `ray_packet`), so every hit is the one that cast gives, bit for bit.
//!
//! A view whose grid is not one of directions by azimuth and elevation (a vertical angle
//! beyond ±90°, non-finite values) is cast ray by ray.

use super::Physics;
use super::query::unpack_model;
use super::ray_shape::PreparedShape;
use super::workers::NO_POOL;
use rapier3d::prelude::*;
use sim_plugin_api::{
    EntityId, Pose, Ray as ApiRay, RayHit, Scan, ScanAngles, ScanView, Vec3,
    abi_stable::std_types::RSliceMut,
};
use std::f64::consts::FRAC_PI_2;
use std::sync::OnceLock;

mod cuboid;
mod footprint;
mod row;

use footprint::Footprints;
use row::{NO_SHAPE, ROW, Row, RowRays, row_rays};

/// The most rays of a grid whose footprints, angles and rays are kept (about a million, four
/// times a 128-ring lidar's 2,048 columns; its rays take 24 MB, and at most eight views are
/// kept): a larger grid is cast ray by ray, band by band, so that what is kept stays bounded
/// whatever a plugin asks for.
const MAX_GRID_RAYS: u64 = 1 << 20;

/// What the scans keep: the footprints of each view since the world last changed (a step,
/// shapes moved or changed), and, through such changes, the grids' angles and the rays of
/// each pose and grid.
#[derive(Default)]
pub(crate) struct ScanKept {
    footprints: Scans,
    grids: Grids,
    rays: ScanRays,
}

impl ScanKept {
    /// Forgets the footprints: the world stepped, or shapes moved or changed.
    pub(crate) fn world_changed(&mut self) {
        self.footprints.forget();
    }
}

/// The scans' footprints made since the world last changed, by view.
type Scans = crate::kept::Kept<ScanView, Footprints>;

/// The sines and cosines of the grids' angles, by grid: kept while the world changes (a
/// lidar's grid does not).
type Grids = crate::kept::Kept<(ScanAngles, ScanAngles), Angles>;

/// Per row, the sine and cosine of its vertical angle; per column, of its horizontal.
pub(crate) struct Angles {
    rows: Vec<(f64, f64)>,
    sin_h: Vec<f64>,
    cos_h: Vec<f64>,
}

/// The rays of the scans, by pose, grid and minimum range: a lidar that has not moved casts
/// the rays it cast before, a step or a change of the world between.
type ScanRays = crate::kept::Kept<(Pose, ScanAngles, ScanAngles, u64), ViewRays>;

/// The rays of one view, row by row, each made by the first band to need it.
pub(crate) struct ViewRays {
    rows: Vec<OnceLock<RowRays>>,
}

impl Scan for Physics {
    fn scan(&self, view: &ScanView, first_row: u32, mut hits: RSliceMut<'_, RayHit>) -> u32 {
        self.scan_rows(view, first_row, hits.as_mut_slice())
    }
}

impl Physics {
    /// [`Scan::scan`]: the hits of rows `first_row..` of `view` into `hits`.
    pub fn scan_rows(&self, view: &ScanView, first_row: u32, hits: &mut [RayHit]) -> u32 {
        let cols = view.horizontal.samples as usize;
        let left = view.vertical.samples.saturating_sub(first_row) as usize;
        let Some(rows) = (hits.len().checked_div(cols)).map(|r| r.min(left)) else {
            return 0;
        };
        if rows == 0 {
            return 0;
        }
        let hits = &mut hits[..rows * cols];
        let band = first_row..first_row + rows as u32;
        if !regular(view) {
            let m = view.pose.orientation.to_matrix();
            let rays: Vec<ApiRay> = band
                .flat_map(|r| (0..cols as u32).map(move |c| (r, c)))
                .map(|(r, c)| view.ray(&m, view.local_direction(r, c)))
                .collect();
            return self.cast(&rays, &view.options, view.mask, hits, &NO_POOL);
        }
        let setup = self.cast_setup(&view.options, view.mask);
        let kept = self
            .scans
            .footprints
            .get(view, || self.footprints(view, &setup));
        let Some(prints) = kept.get() else {
            return 0;
        };
        let (max, normals) = (setup.max, setup.normals);
        // Each thread keeps one row's buffers for every band it scans.
        ROW.with_borrow_mut(|row| self.scan_band(view, prints, band, hits, (max, normals), row))
    }

    /// Forgets what the sensors' views keep from one update to the next (the scans'
    /// footprints and rays, the rasteriser's depth passes), as a step and a move of every
    /// sensor do: the next updates make them afresh (for measuring what an update costs a
    /// sensor that moves).
    pub fn forget_views(&self) {
        self.scans.footprints.forget();
        self.scans.rays.forget();
        self.rays.frames().forget();
    }

    /// The rows `band` of `view` into `hits`, with the shapes of `prints`: see
    /// [`Physics::scan_rows`].
    fn scan_band(
        &self,
        view: &ScanView,
        prints: &Footprints,
        band: std::ops::Range<u32>,
        hits: &mut [RayHit],
        (max, normals): (Real, bool),
        row: &mut Row,
    ) -> u32 {
        let cols = view.horizontal.samples as usize;
        let mut seen = 0;
        // Every shape the band may see, numbered: the unbounded ones first, then the
        // footprints' (prepared where the band holds them).
        let colliders = &self.pw.colliders;
        let unbounded: Vec<_> = prints
            .unbounded
            .iter()
            .filter_map(|&h| Some((h, colliders.get(h)?)))
            .collect();
        row.numbered.clear();
        row.numbered
            .extend(unbounded.iter().map(|(h, c)| (*h, c.user_data)));
        let unbounded: Vec<_> = unbounded
            .into_iter()
            .map(|(_, c)| PreparedShape::new(c, None))
            .collect();
        let mut shapes: Vec<Option<PreparedShape<'_>>> = Vec::with_capacity(prints.shapes.len());
        for f in &prints.shapes {
            let c = colliders.get(f.handle);
            row.numbered.push((f.handle, c.map_or(0, |c| c.user_data)));
            let held = f.rows.0 < band.end && f.rows.1 >= band.start;
            shapes.push(c.filter(|_| held).map(|c| PreparedShape::new(c, None)));
        }
        let start = view.start as Real;
        // The rays, kept while the view's pose and grid stay the same.
        let key = (
            view.pose,
            view.vertical,
            view.horizontal,
            view.start.to_bits(),
        );
        let rays = self.scans.rays.get(&key, || ViewRays {
            rows: (0..view.vertical.samples)
                .map(|_| OnceLock::new())
                .collect(),
        });
        let Some(rays) = rays.get() else {
            return 0;
        };
        for (r, hits) in band.clone().zip(hits.chunks_exact_mut(cols)) {
            let rays = rays.rows[r as usize].get_or_init(|| row_rays(prints, view, r as usize));
            row.begin(rays.len(), max, normals);
            // The unbounded shapes, on every ray; then the footprints of this row, nearest
            // first.
            for (k, shape) in unbounded.iter().enumerate() {
                if k > 0 || !row.first_plane(rays, shape) {
                    row.test(rays, shape, k as u32, 0..cols, None);
                }
            }
            for &s in &prints.by_row[r as usize] {
                let (f, Some(shape)) = (&prints.shapes[s as usize], &shapes[s as usize]) else {
                    continue;
                };
                let id = (unbounded.len() + s as usize) as u32;
                for &(a, b) in &f.cols[..f.spans] {
                    let (cols, skip) = (a as usize..b as usize + 1, (f.nearest, start));
                    if !row.cuboid(rays, shape, id, cols.clone(), skip) {
                        row.test(rays, shape, id, cols, Some(skip));
                    }
                }
            }
            // The hits, as the ray cast writes them.
            let shot = hits.iter_mut().zip(&row.shape).zip(&row.best);
            if normals {
                for (k, ((h, &id), &best)) in shot.enumerate() {
                    if id == NO_SHAPE {
                        *h = RayHit::MISS;
                        continue;
                    }
                    seen += 1;
                    let found = Some((row.numbered[id as usize].0, best, row.normals[k]));
                    *h = self.ray_hit(found, &rays.ray(k), true);
                }
            } else {
                for ((h, &id), &best) in shot {
                    if id == NO_SHAPE {
                        *h = RayHit::MISS;
                        continue;
                    }
                    seen += 1;
                    let ud = row.numbered[id as usize].1;
                    *h = RayHit {
                        distance: f64::from(best),
                        normal: Vec3::ZERO,
                        entity: EntityId(ud as u64),
                        model: unpack_model(ud),
                    };
                }
            }
        }
        seen
    }
}

/// Whether `view`'s grid is one of directions by azimuth and elevation, every value finite,
/// of at most [`MAX_GRID_RAYS`] rays starting at or beyond the origin.
fn regular(view: &ScanView) -> bool {
    let (h, v) = (&view.horizontal, &view.vertical);
    if u64::from(h.samples) * u64::from(v.samples) > MAX_GRID_RAYS {
        return false;
    }
    let last = |a: &ScanAngles| a.angle(a.samples.saturating_sub(1));
    let p = view.pose;
    [h.min, h.step, last(h), v.min, v.step, view.start]
        .iter()
        .all(|x| x.is_finite())
        && [v.min, last(v)].iter().all(|a| a.abs() <= FRAC_PI_2)
        // Rays that start behind the origin may meet what lies behind it.
        && view.start >= 0.0
        && [p.position.x, p.position.y, p.position.z]
            .iter()
            .chain(&[
                p.orientation.w,
                p.orientation.x,
                p.orientation.y,
                p.orientation.z,
            ])
            .all(|x| x.is_finite())
}
