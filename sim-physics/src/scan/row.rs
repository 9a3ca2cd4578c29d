//! A row of a scan's band while it is cast: its rays, made as the view defines them, and
//! each ray's nearest hit as shapes are cast at it.

use super::super::ray_packet::nearer;
use super::super::ray_shape::PreparedShape;
use super::{Angles, Footprints};
use rapier3d::prelude::*;
use sim_plugin_api::{ScanView, Vec3};

/// The rays of a row: their origins and directions component by component (x, y, z of the
/// origins, then of the directions).
#[derive(Default)]
pub(super) struct RowRays {
    pub(super) soa: [Vec<f32>; 6],
}

impl RowRays {
    /// How many rays.
    pub(super) fn len(&self) -> usize {
        self.soa[0].len()
    }

    /// Ray `k`.
    #[inline(always)]
    pub(super) fn ray(&self, k: usize) -> Ray {
        let [ox, oy, oz, dx, dy, dz] = &self.soa;
        Ray::new(
            Vector::new(ox[k], oy[k], oz[k]),
            Vector::new(dx[k], dy[k], dz[k]),
        )
    }
}

/// A row of rays: the sine and cosine of its vertical angle, the view's rotation matrix,
/// the sensor origin and how far along each direction its ray starts.
type RowOf<'m> = ((f64, f64), &'m [[f64; 3]; 3], Vec3, f64);

/// The rays of row `r` of `view`, exactly as [`ScanView::ray`] of
/// [`ScanView::local_direction`] and the ray cast's conversion (`ray_to_rapier`) make them
/// (the same operations on the same values), compiled for AVX2 as well and run so where the
/// CPU has it.
pub(super) fn row_rays(prints: &Footprints, view: &ScanView, r: usize) -> RowRays {
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

/// Rays and casts go this many columns at a time.
pub(super) const L: usize = 8;

/// The rays of a row into `out` (see [`Row::rays`]): eight columns at a time, each step a
/// loop over the eight that compiles to vector instructions.
#[inline(always)]
fn row_rays_in(out: &mut RowRays, angles: &Angles, row: RowOf<'_>) {
    let len = (angles.sin_h.len().min(angles.cos_h.len())).min(out.len());
    // Whole groups, then the last, shorter one: each group's copies have a fixed size
    // where it is whole (no call to copy them).
    let whole = len - len % L;
    for first in (0..whole).step_by(L) {
        row_rays_group(out, angles, row, first, L);
    }
    if whole < len {
        row_rays_group(out, angles, row, whole, len - whole);
    }
}

/// The rays of the `n` (at most [`L`]) columns of a row from `first` (see
/// [`row_rays_in`]).
#[inline(always)]
fn row_rays_group(
    out: &mut RowRays,
    angles: &Angles,
    ((sv, cv), m, p, start): RowOf<'_>,
    first: usize,
    n: usize,
) {
    let [a, b, c] = *m;
    let (mut sh, mut ch) = ([0.0; L], [0.0; L]);
    sh[..n].copy_from_slice(&angles.sin_h[first..first + n]);
    ch[..n].copy_from_slice(&angles.cos_h[first..first + n]);
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

/// [`plane_in`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn plane_avx2(soa: &[Vec<f32>; 6], plane: (Vector, Vector), row: &mut Row, zero: &mut Vec<usize>) {
    plane_in(soa, plane, row, zero);
}

/// The cast of a row's rays (`soa`, nothing hit yet) at a half-space not turned (`plane`:
/// its normal and position), as [`PreparedShape::cast`] makes it, into `row` as shape 0;
/// the rays with a zero component into `zero`, uncast.
#[inline(always)]
fn plane_in(soa: &[Vec<f32>; 6], plane: (Vector, Vector), row: &mut Row, zero: &mut Vec<usize>) {
    let len = soa.iter().map(Vec::len).fold(row.best.len(), usize::min);
    // Whole groups, then the last, shorter one (see `row_rays_in`). Written out here too:
    // through a shared helper taking the group as a closure, the closure was left out of
    // line, compiled without AVX2 and its copies calls again.
    let whole = len - len % L;
    for first in (0..whole).step_by(L) {
        plane_group(soa, plane, row, zero, first, L);
    }
    if whole < len {
        plane_group(soa, plane, row, zero, whole, len - whole);
    }
}

/// [`plane_in`] for the `m` (at most [`L`]) rays from `first`.
#[inline(always)]
fn plane_group(
    soa: &[Vec<f32>; 6],
    (n, at): (Vector, Vector),
    row: &mut Row,
    zero: &mut Vec<usize>,
    first: usize,
    m: usize,
) {
    let [ox, oy, oz, dx, dy, dz] = soa;
    let lane = |v: &[f32]| lanes(v, first, m);
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
        // Divided in every lane and chosen after (0.0 is all bits clear).
        let q = side / along;
        t[k] = f32::from_bits(select(inside, 0, q.to_bits()));
        hit[k] = inside || (t[k] >= 0.0 && t[k] <= best[k]);
    }
    group_verdicts(row, zero, (first, m), 0, best, (&plain, &hit, &t));
}

/// The verdicts of a group of `m` (at most [`L`]) rays from `first` cast at shape `id`, whose
/// best distances were `best`: each ray it `decided` takes its distance `t` and the shape
/// where it `hit`; the others go to `left`, to be cast one by one. A whole group decided
/// here is written at once, its values chosen lane by lane (selects, no masked stores).
#[inline(always)]
pub(super) fn group_verdicts(
    row: &mut Row,
    left: &mut Vec<usize>,
    (first, m): (usize, usize),
    id: u32,
    mut best: [Real; L],
    (decided, hit, t): (&[bool; L], &[bool; L], &[Real; L]),
) {
    if m == L && *decided == [true; L] {
        let mut shape = [NO_SHAPE; L];
        shape.copy_from_slice(&row.shape[first..first + L]);
        for k in 0..L {
            best[k] = Real::from_bits(select(hit[k], t[k].to_bits(), best[k].to_bits()));
            shape[k] = select(hit[k], id, shape[k]);
        }
        row.best[first..first + L].copy_from_slice(&best);
        row.shape[first..first + L].copy_from_slice(&shape);
        return;
    }
    for k in 0..m {
        let i = first + k;
        if !decided[k] {
            left.push(i);
        } else if hit[k] {
            row.best[i] = t[k];
            row.shape[i] = id;
        }
    }
}

/// The `m` (at most [`L`]) values of `v` from `first` as a group's lanes, the lanes past
/// them 1.
#[inline(always)]
pub(super) fn lanes(v: &[Real], first: usize, m: usize) -> [Real; L] {
    let mut a = [1.0; L];
    a[..m].copy_from_slice(&v[first..first + m]);
    a
}

/// Whether a shape that can be hit no nearer than `nearest` to the sensor is beyond a ray
/// starting `start` from it whose best hit is `best` along it: the skip of [`Row::test`],
/// with room for the rounding of the distances (never above a true hit's).
#[inline(always)]
pub(super) fn unreachable(nearest: Real, start: Real, best: Real) -> bool {
    nearest > (start + best) * 1.000_01 + 1e-5
}

/// `a` where `pick`, else `b`, by their bits: in the loops that become vector instructions,
/// a blend and a plain store where `if pick { x = a }` becomes a masked store (slow on some
/// CPUs, and slow to read back). The same values either way.
#[inline(always)]
pub(super) fn select(pick: bool, a: u32, b: u32) -> u32 {
    let mask = u32::from(pick).wrapping_neg();
    (a & mask) | (b & !mask)
}

thread_local! {
    /// The row buffers of this thread's scans.
    pub(super) static ROW: std::cell::RefCell<Row> = std::cell::RefCell::default();
}

/// No shape hit (in [`Row::shape`]).
pub(super) const NO_SHAPE: u32 = u32::MAX;

/// One row of a band while it is cast: its rays and, per ray, the nearest hit so far.
#[derive(Clone, Default)]
pub(super) struct Row {
    /// The distance within which a nearer hit is still sought (the best hit's once found).
    pub(super) best: Vec<Real>,
    /// The shape of the best hit (the band's unbounded shapes, then its footprints), or
    /// [`NO_SHAPE`].
    pub(super) shape: Vec<u32>,
    /// The band's shapes by number: collider and user data.
    pub(super) numbered: Vec<(ColliderHandle, u128)>,
    /// The normal of the best hit where the cast gives it, when normals are asked for.
    pub(super) normals: Vec<Option<Vector>>,
    pub(super) with_normals: bool,
    /// The rays a cast in lanes ([`Row::in_lanes`]) leaves to [`Row::test`] (kept for its
    /// allocation).
    pub(super) left: Vec<usize>,
}

impl Row {
    /// Starts the row's search: nothing hit within `max`.
    pub(super) fn begin(&mut self, n: usize, max: Real, normals: bool) {
        self.best.clear();
        self.best.resize(n, max);
        self.shape.clear();
        self.shape.resize(n, NO_SHAPE);
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
    pub(super) fn first_plane(&mut self, rays: &RowRays, shape: &PreparedShape<'_>) -> bool {
        let Some(plane) = shape.unturned_half_space() else {
            return false;
        };
        let soa = &rays.soa;
        if self.with_normals || soa[0].len() != self.best.len() {
            return false;
        }
        self.in_lanes(rays, shape, 0, None, |row, left| {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU running this has AVX2 (detected just above), the one
                // feature `plane_avx2` enables beyond the build's.
                #[allow(unsafe_code)]
                unsafe {
                    plane_avx2(soa, plane, row, left)
                };
                return;
            }
            plane_in(soa, plane, row, left);
        });
        true
    }

    /// A cast of shape `id` in groups of lanes (`lanes`, which pushes the rays it leaves
    /// undecided), then those rays cast one by one by [`Row::test`] with `skip`.
    #[inline(always)]
    pub(super) fn in_lanes(
        &mut self,
        rays: &RowRays,
        shape: &PreparedShape<'_>,
        id: u32,
        skip: Option<(Real, Real)>,
        lanes: impl FnOnce(&mut Row, &mut Vec<usize>),
    ) {
        let mut left = std::mem::take(&mut self.left);
        left.clear();
        lanes(self, &mut left);
        for &k in &left {
            self.test(rays, shape, id, k..k + 1, skip);
        }
        self.left = left;
    }

    /// The collider of ray `k`'s best hit so far.
    #[inline]
    fn held(&self, k: usize) -> Option<ColliderHandle> {
        let id = self.shape[k];
        (id != NO_SHAPE).then(|| self.numbered[id as usize].0)
    }

    /// Casts the rays of `cols` at `shape` (numbered `id`), keeping each ray's
    /// nearest hit by the ray cast's rule for ties; with `skip` (how near to the sensor the
    /// shape can be hit, and how far from it the rays start) a ray whose best hit is
    /// nearer than that is not cast.
    #[inline]
    pub(super) fn test(
        &mut self,
        rays: &RowRays,
        shape: &PreparedShape<'_>,
        id: u32,
        cols: std::ops::Range<usize>,
        skip: Option<(Real, Real)>,
    ) {
        let handle = self.numbered[id as usize].0;
        for k in cols {
            let best = self.best[k];
            if skip.is_some_and(|(nearest, start)| unreachable(nearest, start, best)) {
                continue;
            }
            if let Some((t, normal)) = shape.cast(&rays.ray(k), best, self.with_normals)
                && nearer(t, handle, best, self.held(k))
            {
                self.best[k] = t;
                self.shape[k] = id;
                if self.with_normals {
                    self.normals[k] = normal;
                }
            }
        }
    }
}
