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
use super::convert::pose_from_rapier;
use super::query::{CastSetup, unpack_model};
use super::ray_packet::{gap_to_aabb, nearer};
use super::ray_shape::PreparedShape;
use super::workers::NO_POOL;
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::partitioning::{BvhNode, BvhNodeIndex, TraversalAction};
use rapier3d::prelude::*;
use sim_plugin_api::{
    EntityId, Pose, Ray as ApiRay, RayHit, Scan, ScanAngles, ScanView, Vec3,
    abi_stable::std_types::RSliceMut,
};
use std::f64::consts::{FRAC_PI_2, PI, TAU};
use std::sync::{Arc, OnceLock};

/// How much wider than the bounds worked out a footprint is, rad: far above the rounding
/// of the rays' directions (single precision) and of the boxes' corners.
const ANGLE_MARGIN: f64 = 1e-5;

/// How much larger than its shape's box the box a footprint is made from is, m.
const BOX_MARGIN: f64 = 1e-3;

/// The most rays of a grid whose footprints, angles and rays are kept (16 M, ten times a
/// 128-ring lidar's 2048 columns): a larger grid is cast ray by ray, band by band, so that
/// what is kept stays bounded whatever a plugin asks for.
const MAX_GRID_RAYS: u64 = 1 << 24;

/// Column spans a footprint holds at most (a grid that wraps around more than once may
/// need more: such a footprint takes every column).
const MAX_SPANS: usize = 3;

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
        self.footprints.clear();
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

/// The rays of a row: their origins and directions component by component (x, y, z of the
/// origins, then of the directions).
#[derive(Default)]
struct RowRays {
    soa: [Vec<f32>; 6],
}

impl RowRays {
    /// How many rays.
    fn len(&self) -> usize {
        self.soa[0].len()
    }

    /// Ray `k`.
    #[inline(always)]
    fn ray(&self, k: usize) -> Ray {
        let [ox, oy, oz, dx, dy, dz] = &self.soa;
        Ray::new(
            Vector::new(ox[k], oy[k], oz[k]),
            Vector::new(dx[k], dy[k], dz[k]),
        )
    }
}

/// What the bands of one scan share: the grid's angles, its rotation, and the shapes seen
/// with their footprints.
pub(crate) struct Footprints {
    angles: Arc<OnceLock<Angles>>,
    /// The view's rotation matrix.
    matrix: [[f64; 3]; 3],
    /// Shapes without a finite box (half-spaces), tested on every ray.
    unbounded: Vec<ColliderHandle>,
    /// The other shapes the scan may see, nearest first.
    shapes: Vec<Footprint>,
    /// Per row, the shapes whose footprint holds it, nearest first.
    by_row: Vec<Vec<u32>>,
}

/// A shape and the part of the grid whose rays may meet it.
struct Footprint {
    handle: ColliderHandle,
    /// No ray meets it nearer than this to the sensor origin, m.
    nearest: Real,
    /// First and last row.
    rows: (u32, u32),
    /// Column spans (first, last); `spans` of them are used.
    cols: [(u32, u32); MAX_SPANS],
    spans: usize,
}

/// The grid of a view, for footprints.
struct Grid<'v> {
    view: &'v ScanView,
    /// The sensor origin and the view's rotation matrix.
    origin: Vec3,
    matrix: [[f64; 3]; 3],
    /// The cosine of the steepest row: how much an angle across a column can shrink.
    min_cos: f64,
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
        let setup = self.cast_setup(&view.options, view.mask);
        if !regular(view) {
            let m = view.pose.orientation.to_matrix();
            let rays: Vec<ApiRay> = band
                .flat_map(|r| (0..cols as u32).map(move |c| (r, c)))
                .map(|(r, c)| view.ray(&m, view.local_direction(r, c)))
                .collect();
            return self.cast(&rays, &view.options, view.mask, hits, &NO_POOL);
        }
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

    /// Forgets the scans' footprints and rays, as a step and a move of every lidar do: the
    /// next scans make them afresh (for measuring what a scan costs a lidar that moves).
    pub fn forget_scans(&self) {
        self.scans.footprints.forget();
        self.scans.rays.forget();
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
        // Every shape the band may see, prepared once: the unbounded ones first.
        let colliders = &self.pw.colliders;
        let unbounded: Vec<_> = prints
            .unbounded
            .iter()
            .filter_map(|&h| Some((h, colliders.get(h)?)))
            .map(|(h, c)| (h, c.user_data, PreparedShape::new(c, None)))
            .collect();
        let mut shapes: Vec<Option<(ColliderHandle, u128, PreparedShape<'_>)>> =
            vec![None; prints.shapes.len()];
        for (slot, f) in shapes.iter_mut().zip(&prints.shapes) {
            if f.rows.0 < band.end
                && f.rows.1 >= band.start
                && let Some(c) = colliders.get(f.handle)
            {
                *slot = Some((f.handle, c.user_data, PreparedShape::new(c, None)));
            }
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
            for (k, (handle, _, shape)) in unbounded.iter().enumerate() {
                if k > 0 || !row.first_plane(rays, shape, *handle) {
                    row.test(rays, shape, *handle, k as u32, 0..cols, None);
                }
            }
            for &s in &prints.by_row[r as usize] {
                let (f, Some((handle, _, shape))) =
                    (&prints.shapes[s as usize], &shapes[s as usize])
                else {
                    continue;
                };
                let id = (unbounded.len() + s as usize) as u32;
                for &(a, b) in &f.cols[..f.spans] {
                    row.test(
                        rays,
                        shape,
                        *handle,
                        id,
                        a as usize..b as usize + 1,
                        Some((f.nearest, start)),
                    );
                }
            }
            // The hits, as the ray cast writes them.
            for (k, h) in hits.iter_mut().enumerate() {
                let id = row.shape[k];
                if id == NO_SHAPE {
                    *h = RayHit::MISS;
                    continue;
                }
                seen += 1;
                let (handle, ud) = match unbounded.get(id as usize) {
                    Some(&(h, ud, _)) => (h, ud),
                    None => match shapes[id as usize - unbounded.len()] {
                        Some((h, ud, _)) => (h, ud),
                        None => continue,
                    },
                };
                *h = if normals {
                    self.ray_hit(
                        Some((handle, row.best[k], row.normals[k])),
                        &rays.ray(k),
                        true,
                    )
                } else {
                    RayHit {
                        distance: f64::from(row.best[k]),
                        normal: Vec3::ZERO,
                        entity: EntityId(ud as u64),
                        model: unpack_model(ud),
                    }
                };
            }
        }
        seen
    }

    /// The footprints of `view` (see the module docs): the shapes of the ray trees the
    /// cast `setup` sees.
    fn footprints(&self, view: &ScanView, setup: &CastSetup<'_>) -> Footprints {
        let sin_cos = |a: &ScanAngles| (0..a.samples).map(|i| a.angle(i).sin_cos()).collect();
        let angles = self.scans.grids.get(&(view.vertical, view.horizontal), || {
            let cols: Vec<(f64, f64)> = sin_cos(&view.horizontal);
            Angles {
                rows: sin_cos(&view.vertical),
                sin_h: cols.iter().map(|a| a.0).collect(),
                cos_h: cols.iter().map(|a| a.1).collect(),
            }
        });
        let steepest = (0..view.vertical.samples)
            .map(|i| view.vertical.angle(i).abs())
            .fold(0.0, f64::max);
        let grid = Grid {
            view,
            origin: view.pose.position,
            matrix: view.pose.orientation.to_matrix(),
            min_cos: steepest.cos(),
        };
        let seen = |_: ColliderHandle, c: &Collider| setup.sees(c);
        let filter = setup.filter(&seen);
        let reach = view.start + f64::from(setup.max);
        let reach2 = (reach * reach) as Real;
        let origin = super::convert::vec_to_rapier(grid.origin);
        let mut prints = Footprints {
            angles,
            matrix: grid.matrix,
            unbounded: Vec::new(),
            shapes: Vec::new(),
            by_row: vec![Vec::new(); view.vertical.samples as usize],
        };
        for tree in setup.trees {
            for &handle in &tree.unbounded {
                if let Some(c) = self.pw.colliders.get(handle)
                    && filter.test(&self.pw.bodies, handle, c)
                {
                    prints.unbounded.push(handle);
                }
            }
            let mut visit = |node: &BvhNode, _: BvhNodeIndex| {
                let aabb = node.aabb();
                let gap = gap_to_aabb(origin, &aabb);
                // (A NaN gap is out of reach too.)
                let within = gap <= reach2;
                if !within || grid.rows_of(&world_corners(&aabb)).is_none() {
                    return TraversalAction::Prune;
                }
                if let Some(leaf) = node.leaf_data()
                    && let Some(&(handle, leaf_box)) = tree.leaves.get(leaf as usize)
                    && let Some(c) = self.pw.colliders.get(handle)
                    && filter.test(&self.pw.bodies, handle, c)
                    && let Some(f) = grid.footprint(c, handle, &leaf_box)
                {
                    prints.shapes.push(f);
                }
                TraversalAction::Continue
            };
            tree.bvh.traverse_indexed(None, &mut visit);
        }
        prints
            .shapes
            .sort_unstable_by(|a, b| a.nearest.total_cmp(&b.nearest));
        for (k, f) in prints.shapes.iter().enumerate() {
            for row in &mut prints.by_row[f.rows.0 as usize..=f.rows.1 as usize] {
                row.push(k as u32);
            }
        }
        prints
    }
}

/// A row of rays: the sine and cosine of its vertical angle, the view's rotation matrix,
/// the sensor origin and how far along each direction its ray starts.
type RowOf<'m> = ((f64, f64), &'m [[f64; 3]; 3], Vec3, f64);

/// The rays of row `r` of `view`, exactly as [`ScanView::ray`] of
/// [`ScanView::local_direction`] and the ray cast's conversion (`ray_to_rapier`) make them
/// (the same operations on the same values), compiled for AVX2 as well and run so where the
/// CPU has it.
fn row_rays(prints: &Footprints, view: &ScanView, r: usize) -> RowRays {
    let n = view.horizontal.samples as usize;
    let mut rays = RowRays {
        soa: std::array::from_fn(|_| vec![0.0; n]),
    };
    let Some(angles) = prints.angles.get() else {
        return rays;
    };
    let row = (
        angles.rows[r],
        &prints.matrix,
        view.pose.position,
        view.start,
    );
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU running this has AVX2 (detected just above), the one feature
        // `row_rays_avx2` enables beyond the build's.
        #[allow(unsafe_code)]
        unsafe {
            row_rays_avx2(&mut rays, angles, row)
        };
        return rays;
    }
    row_rays_in(&mut rays, angles, row);
    rays
}

/// [`row_rays_in`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn row_rays_avx2(out: &mut RowRays, angles: &Angles, row: RowOf<'_>) {
    row_rays_in(out, angles, row);
}

/// The rays of a row into `out` (see [`Row::rays`]): eight columns at a time, each step a
/// loop over the eight that compiles to vector instructions.
#[inline(always)]
fn row_rays_in(out: &mut RowRays, angles: &Angles, ((sv, cv), m, p, start): RowOf<'_>) {
    const L: usize = 8;
    let [a, b, c] = *m;
    let cols = angles.sin_h.chunks(L).zip(angles.cos_h.chunks(L));
    for (first, (sin, cos)) in cols.enumerate().map(|(k, c)| (k * L, c)) {
        let n = sin.len();
        let (mut sh, mut ch) = ([0.0; L], [0.0; L]);
        sh[..n].copy_from_slice(sin);
        ch[..n].copy_from_slice(cos);
        let mut o = [[0f32; L]; 3];
        let mut d = [[0f32; L]; 3];
        for k in 0..L {
            let (x, y, z) = (cv * ch[k], cv * sh[k], sv);
            let dx = a[0] * x + a[1] * y + a[2] * z;
            let dy = b[0] * x + b[1] * y + b[2] * z;
            let dz = c[0] * x + c[1] * y + c[2] * z;
            o[0][k] = (p.x + dx * start) as f32;
            o[1][k] = (p.y + dy * start) as f32;
            o[2][k] = (p.z + dz * start) as f32;
            // `Vec3::normalized`: a zero vector stays as it is.
            let l = (dx * dx + dy * dy + dz * dz).sqrt();
            let s = 1.0 / l;
            let unit = l > 0.0;
            d[0][k] = (if unit { dx * s } else { dx }) as f32;
            d[1][k] = (if unit { dy * s } else { dy }) as f32;
            d[2][k] = (if unit { dz * s } else { dz }) as f32;
        }
        for (v, c) in out.soa.iter_mut().zip(o.iter().chain(&d)) {
            v[first..first + n].copy_from_slice(&c[..n]);
        }
    }
}

/// [`plane_in`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn plane_avx2(
    soa: &[Vec<f32>; 6],
    plane: (Vector, Vector),
    handle: ColliderHandle,
    row: &mut Row,
    zero: &mut Vec<usize>,
) {
    plane_in(soa, plane, handle, row, zero);
}

/// The cast of a row's rays (`soa`, nothing hit yet) at a half-space not turned (`plane`:
/// its normal and position), as [`PreparedShape::cast`] makes it, into `row` as shape 0;
/// the rays with a zero component into `zero`, uncast.
#[inline(always)]
fn plane_in(
    soa: &[Vec<f32>; 6],
    (n, at): (Vector, Vector),
    handle: ColliderHandle,
    row: &mut Row,
    zero: &mut Vec<usize>,
) {
    const L: usize = 8;
    let [ox, oy, oz, dx, dy, dz] = soa;
    let len = row.best.len();
    let mut first = 0;
    while first < len {
        let m = (len - first).min(L);
        let lane = |v: &[f32]| {
            let mut a = [1f32; L];
            a[..m].copy_from_slice(&v[first..first + m]);
            a
        };
        let (ox, oy, oz) = (lane(ox), lane(oy), lane(oz));
        let (dx, dy, dz, best) = (lane(dx), lane(dy), lane(dz), lane(&row.best));
        let mut t = [0f32; L];
        let mut hit = [false; L];
        let mut plain = [false; L];
        for k in 0..L {
            // The origin in the shape's frame, then parry's solid half-space cast.
            let (lx, ly, lz) = (ox[k] - at.x, oy[k] - at.y, oz[k] - at.z);
            plain[k] =
                lx != 0.0 && ly != 0.0 && lz != 0.0 && dx[k] != 0.0 && dy[k] != 0.0 && dz[k] != 0.0;
            let side = (n.x * -lx) + (n.y * -ly) + (n.z * -lz);
            let along = (n.x * dx[k]) + (n.y * dy[k]) + (n.z * dz[k]);
            let inside = side > 0.0;
            t[k] = if inside { 0.0 } else { side / along };
            hit[k] = inside || (t[k] >= 0.0 && t[k] <= best[k]);
        }
        for k in 0..m {
            let i = first + k;
            if !plain[k] {
                zero.push(i);
            } else if hit[k] {
                row.best[i] = t[k];
                row.shape[i] = 0;
                row.handles[i] = Some(handle);
            }
        }
        first += m;
    }
}

thread_local! {
    /// The row buffers of this thread's scans.
    static ROW: std::cell::RefCell<Row> = std::cell::RefCell::default();
}

/// No shape hit (in [`Row::shape`]).
const NO_SHAPE: u32 = u32::MAX;

/// One row of a band while it is cast: its rays and, per ray, the nearest hit so far.
#[derive(Default)]
struct Row {
    /// The distance within which a nearer hit is still sought (the best hit's once found).
    best: Vec<Real>,
    /// The shape of the best hit (the band's unbounded shapes, then its footprints), or
    /// [`NO_SHAPE`].
    shape: Vec<u32>,
    handles: Vec<Option<ColliderHandle>>,
    /// The normal of the best hit where the cast gives it, when normals are asked for.
    normals: Vec<Option<Vector>>,
    with_normals: bool,
    /// The rays [`Row::first_plane`] leaves to [`Row::test`].
    zero: Vec<usize>,
}

impl Row {
    /// Starts the row's search: nothing hit within `max`.
    fn begin(&mut self, n: usize, max: Real, normals: bool) {
        self.best.clear();
        self.best.resize(n, max);
        self.shape.clear();
        self.shape.resize(n, NO_SHAPE);
        self.handles.clear();
        self.handles.resize(n, None);
        self.with_normals = normals;
        if normals {
            self.normals.clear();
            self.normals.resize(n, None);
        }
    }

    /// The first shape of a row (numbered 0) when it is a half-space not turned and the
    /// hits need no normals: the casts [`Row::test`] makes (the same operations on the same
    /// values), eight rays at a time from their components (`soa`), compiled for AVX2 as
    /// well and run so where the CPU has it; a ray with a zero component (whose turn by the
    /// identity parry computes) goes to [`Row::test`]. Returns whether it was such a shape.
    fn first_plane(
        &mut self,
        rays: &RowRays,
        shape: &PreparedShape<'_>,
        handle: ColliderHandle,
    ) -> bool {
        let Some(plane) = shape.unturned_half_space() else {
            return false;
        };
        let soa = &rays.soa;
        if self.with_normals || soa[0].len() != self.best.len() {
            return false;
        }
        let mut zero = std::mem::take(&mut self.zero);
        zero.clear();
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU running this has AVX2 (detected just above), the one feature
            // `plane_avx2` enables beyond the build's.
            #[allow(unsafe_code)]
            unsafe {
                plane_avx2(soa, plane, handle, self, &mut zero)
            };
        } else {
            plane_in(soa, plane, handle, self, &mut zero);
        }
        #[cfg(not(target_arch = "x86_64"))]
        plane_in(soa, plane, handle, self, &mut zero);
        for &k in &zero {
            self.test(rays, shape, handle, 0, k..k + 1, None);
        }
        self.zero = zero;
        true
    }

    /// Casts the rays of `cols` at `shape` (`handle`, numbered `id`), keeping each ray's
    /// nearest hit by the ray cast's rule for ties; with `skip` (how near to the sensor the
    /// shape can be hit, and how far from it the rays start) a ray whose best hit is
    /// nearer than that is not cast.
    #[inline]
    fn test(
        &mut self,
        rays: &RowRays,
        shape: &PreparedShape<'_>,
        handle: ColliderHandle,
        id: u32,
        cols: std::ops::Range<usize>,
        skip: Option<(Real, Real)>,
    ) {
        for k in cols {
            let best = self.best[k];
            // Rounding of the distances: never above a true hit's.
            if skip.is_some_and(|(nearest, start)| nearest > (start + best) * 1.000_01 + 1e-5) {
                continue;
            }
            if let Some((t, normal)) = shape.cast(&rays.ray(k), best, self.with_normals)
                && nearer(t, handle, best, self.handles[k])
            {
                self.best[k] = t;
                self.shape[k] = id;
                self.handles[k] = Some(handle);
                if self.with_normals {
                    self.normals[k] = normal;
                }
            }
        }
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

/// The eight corners of a world box.
fn world_corners(aabb: &Aabb) -> [Vec3; 8] {
    let (a, b) = (aabb.mins, aabb.maxs);
    std::array::from_fn(|i| {
        Vec3::new(
            f64::from(if i & 1 == 0 { a.x } else { b.x }),
            f64::from(if i & 2 == 0 { a.y } else { b.y }),
            f64::from(if i & 4 == 0 { a.z } else { b.z }),
        )
    })
}

/// The samples of `axis` whose angles lie in `[lo, hi]`: (first, last), if any.
fn samples_within(axis: &ScanAngles, lo: f64, hi: f64) -> Option<(u32, u32)> {
    let last = axis.samples.checked_sub(1)?;
    if axis.step == 0.0 || last == 0 {
        return (lo <= axis.min && axis.min <= hi).then_some((0, last));
    }
    let (a, b) = ((lo - axis.min) / axis.step, (hi - axis.min) / axis.step);
    let (a, b) = (
        a.min(b).ceil().max(0.0),
        a.max(b).floor().min(f64::from(last)),
    );
    (a <= b).then_some((a as u32, b as u32))
}

/// The distance from 0 to the interval `[lo, hi]`.
fn gap_1d(lo: f64, hi: f64) -> f64 {
    if lo > 0.0 {
        lo
    } else if hi < 0.0 {
        -hi
    } else {
        0.0
    }
}

impl Grid<'_> {
    /// `p` (world) in the sensor frame, relative to its origin.
    fn local(&self, p: Vec3) -> Vec3 {
        let d = p - self.origin;
        let m = &self.matrix;
        // The transpose of the rotation.
        Vec3::new(
            m[0][0] * d.x + m[1][0] * d.y + m[2][0] * d.z,
            m[0][1] * d.x + m[1][1] * d.y + m[2][1] * d.z,
            m[0][2] * d.x + m[1][2] * d.y + m[2][2] * d.z,
        )
    }

    /// The rows whose elevations may meet the box of world `corners` (first, last), and the
    /// corners in the sensor frame with the box's nearest distance from the vertical axis;
    /// none when no row does.
    fn rows_of(&self, corners: &[Vec3; 8]) -> Option<((u32, u32), [Vec3; 8], f64)> {
        let local = corners.map(|p| self.local(p));
        let (mut lo, mut hi) = (local[0], local[0]);
        let mut far = 0.0f64;
        for p in &local {
            lo = Vec3::new(lo.x.min(p.x), lo.y.min(p.y), lo.z.min(p.z));
            hi = Vec3::new(hi.x.max(p.x), hi.y.max(p.y), hi.z.max(p.z));
            far = far.max(p.x * p.x + p.y * p.y);
        }
        let far = far.sqrt();
        let (gx, gy) = (gap_1d(lo.x, hi.x), gap_1d(lo.y, hi.y));
        let near = (gx * gx + gy * gy).sqrt();
        let top = hi.z.atan2(if hi.z > 0.0 { near } else { far });
        let bottom = lo.z.atan2(if lo.z < 0.0 { near } else { far });
        if !(top.is_finite() && bottom.is_finite()) {
            let last = self.view.vertical.samples.checked_sub(1)?;
            return Some(((0, last), local, 0.0));
        }
        let rows = samples_within(
            &self.view.vertical,
            bottom - ANGLE_MARGIN,
            top + ANGLE_MARGIN,
        )?;
        Some((rows, local, near))
    }

    /// The footprint of collider `c` (`handle`, its box in the ray tree `leaf_box`), if some
    /// ray of the grid may meet it.
    fn footprint(
        &self,
        c: &Collider,
        handle: ColliderHandle,
        leaf_box: &Aabb,
    ) -> Option<Footprint> {
        let pose = pose_from_rapier(c.position());
        let shape = super::leading::Leading::unwrap(c.shape());
        let local = shape.compute_local_aabb().loosened(BOX_MARGIN as Real);
        let corners = world_corners(&local).map(|p| pose_at(&pose, p));
        let (rows, local, near) = self.rows_of(&corners)?;
        let h = &self.view.horizontal;
        let all = (0, h.samples.checked_sub(1)?);
        let mut cols = [all; MAX_SPANS];
        let mut spans = 1;
        // Across a column, an angle shrinks with the cosine of the row's elevation.
        let margin = ANGLE_MARGIN / self.min_cos.max(1e-9);
        if near > 0.0 && margin < 0.1 {
            // Seen from outside: the azimuths of the corners, about their middle one.
            let mid = local.iter().fold(Vec3::ZERO, |a, p| a + *p);
            let reference = mid.y.atan2(mid.x);
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for p in &local {
                let d = wrap(p.y.atan2(p.x) - reference);
                (lo, hi) = (lo.min(d), hi.max(d));
            }
            let (lo, hi) = (reference + lo - margin, reference + hi + margin);
            if lo.is_finite() && hi.is_finite() && hi - lo < PI {
                spans = columns(h, lo, hi, &mut cols)?;
            }
        }
        Some(Footprint {
            handle,
            // Rounding of the directions' length: never above a true hit distance.
            nearest: (gap_to_aabb(super::convert::vec_to_rapier(self.origin), leaf_box).sqrt()
                * 0.9999
                - 1e-4)
                .max(0.0),
            rows,
            cols,
            spans,
        })
    }
}

/// `p` (in the frame of `pose`) in the world.
fn pose_at(pose: &Pose, p: Vec3) -> Vec3 {
    pose.position + pose.orientation.rotate(p)
}

/// `a` wrapped into `(-π, π]`.
fn wrap(a: f64) -> f64 {
    let w = a.rem_euclid(TAU);
    if w > PI { w - TAU } else { w }
}

/// The column spans of `h` whose angles lie in `[lo, hi]` or a whole turn from it, into
/// `out`: how many, or none if no column does. A grid that needs more than `out` holds
/// takes every column.
fn columns(h: &ScanAngles, lo: f64, hi: f64, out: &mut [(u32, u32); MAX_SPANS]) -> Option<usize> {
    let last = h.samples.checked_sub(1)?;
    let (a, b) = (h.min, h.angle(last));
    let (first, end) = (a.min(b), a.max(b));
    let turns = ((first - hi) / TAU).floor() as i64..=((end - lo) / TAU).ceil() as i64;
    let mut n = 0;
    for k in turns {
        let shift = k as f64 * TAU;
        if let Some(span) = samples_within(h, lo + shift, hi + shift) {
            if n == MAX_SPANS {
                out[0] = (0, last);
                return Some(1);
            }
            out[n] = span;
            n += 1;
        }
    }
    (n > 0).then_some(n)
}
