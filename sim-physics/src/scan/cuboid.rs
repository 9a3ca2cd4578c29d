//! A row's rays cast at a cuboid eight at a time.
//!
//! [`Row::test`] casts each ray of a footprint's columns at its shape through
//! [`PreparedShape::cast`]: the ray turned into the shape's frame by glam's product of a
//! quaternion and a vector, then parry's slab test of the cuboid's box. For a cuboid, when
//! no normals are asked for, [`Row::cuboid`] makes the same operations on the same values for
//! eight rays at a time, lane by lane, in loops the compiler turns into vector instructions
//! (compiled for AVX2 as well, and run so where the CPU has it). A ray the lanes would not
//! decide as the cast does goes to [`Row::test`]: one with a zero component of its direction
//! in the shape's frame (parry tests that slab differently), and a hit exactly as near as a
//! best hit already held (the rule for ties looks at the colliders).

use super::super::ray_shape::PreparedShape;
use super::row::{L, NO_SHAPE, Row, RowRays, group_verdicts, lanes, select, unreachable};
use rapier3d::prelude::*;

/// A cuboid as the lanes cast at it: its half extents, the inverse of its rotation (x, y, z
/// and w), whether that is the identity, its translation, and glam's two terms of the
/// rotation that depend on the quaternion alone (`w² - |b|²` and `2w`).
#[derive(Clone, Copy)]
struct Lanes {
    half: [Real; 3],
    q: [Real; 4],
    identity: bool,
    at: [Real; 3],
    scale: Real,
    w2: Real,
}

impl Lanes {
    fn of(shape: &PreparedShape<'_>) -> Option<Self> {
        let (half, inverse, identity, at) = shape.cuboid()?;
        let q = [inverse.x, inverse.y, inverse.z, inverse.w];
        let [x, y, z, w] = q;
        Some(Lanes {
            half: half.to_array(),
            q,
            identity,
            at: at.to_array(),
            // As glam's `Quat::mul_vec3a` (SSE2): `w * w - dot3(b, b)`, and `w * 2`.
            scale: w * w - ((x * x + y * y) + z * z),
            w2: w * 2.0,
        })
    }

    /// `(x, y, z)` turned by the inverse rotation as [`PreparedShape::cast`] turns it:
    /// glam's `(v · (w² - |b|²) + b · 2(v · b)) + (b × v) · 2w`, each operation as glam makes
    /// it; by the identity, a vector without a zero component as it is. Scalars in and out,
    /// so that the loops over the lanes compile to vector instructions.
    #[inline(always)]
    fn unrotate(&self, vx: Real, vy: Real, vz: Real) -> (Real, Real, Real) {
        let [x, y, z, _] = self.q;
        let d2 = ((vx * x + vy * y) + vz * z) * 2.0;
        let (cx, cy, cz) = (
            neg_mul_sub(vy, z, y * vz),
            neg_mul_sub(vz, x, z * vx),
            neg_mul_sub(vx, y, x * vy),
        );
        let tx = (vx * self.scale + x * d2) + cx * self.w2;
        let ty = (vy * self.scale + y * d2) + cy * self.w2;
        let tz = (vz * self.scale + z * d2) + cz * self.w2;
        let keep = self.identity & (vx != 0.0) & (vy != 0.0) & (vz != 0.0);
        let pick = |v: Real, t: Real| Real::from_bits(select(keep, v.to_bits(), t.to_bits()));
        (pick(vx, tx), pick(vy, ty), pick(vz, tz))
    }
}

/// One slab of parry's `Aabb::cast_local_ray`: the ray's origin `o` and direction `d` (not
/// zero) along an axis of the box's half extent `h`, narrowing `(tmin, tmax)`.
#[inline(always)]
fn slab((tmin, tmax): (Real, Real), o: Real, d: Real, h: Real) -> (Real, Real) {
    let denom = 1.0 / d;
    let near = (-h - o) * denom;
    let far = (h - o) * denom;
    let (lo, hi) = if near > far { (far, near) } else { (near, far) };
    (tmin.max(lo), tmax.min(hi))
}

/// `c - a * b` as glam's `m128_neg_mul_sub` makes it: fused where the build targets FMA.
#[inline(always)]
fn neg_mul_sub(a: Real, b: Real, c: Real) -> Real {
    #[cfg(target_feature = "fma")]
    {
        (-a).mul_add(b, c)
    }
    #[cfg(not(target_feature = "fma"))]
    {
        c - a * b
    }
}

impl Row {
    /// [`Row::test`] of the rays of `cols` at `shape` (numbered `id`) with `skip`, when
    /// `shape` is a cuboid and the hits need no normals: eight rays at a time (see the
    /// [module docs](self)). Returns whether it was such a shape.
    pub(super) fn cuboid(
        &mut self,
        rays: &RowRays,
        shape: &PreparedShape<'_>,
        id: u32,
        cols: std::ops::Range<usize>,
        skip: (Real, Real),
    ) -> bool {
        if self.with_normals {
            return false;
        }
        let Some(lanes) = Lanes::of(shape) else {
            return false;
        };
        let end = cols.end.min(rays.len()).min(self.best.len());
        if cols.start >= end {
            return true;
        }
        let group = Group {
            rays,
            lanes: &lanes,
            id,
            skip,
        };
        self.in_lanes(rays, shape, id, Some(skip), |row, left| {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU running this has AVX2 (detected just above), the one
                // feature `cuboid_avx2` enables beyond the build's.
                #[allow(unsafe_code)]
                unsafe {
                    cuboid_avx2(&group, cols.start..end, row, left)
                };
                return;
            }
            cuboid_in(&group, cols.start..end, row, left);
        });
        true
    }
}

/// What every group of a cuboid's cast shares: the row's rays, the cuboid, its number and
/// the skip of [`Row::test`] (how near to the sensor the shape can be hit, and how far from
/// it the rays start).
struct Group<'a> {
    rays: &'a RowRays,
    lanes: &'a Lanes,
    id: u32,
    skip: (Real, Real),
}

/// [`cuboid_in`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn cuboid_avx2(
    group: &Group<'_>,
    cols: std::ops::Range<usize>,
    row: &mut Row,
    left: &mut Vec<usize>,
) {
    cuboid_in(group, cols, row, left);
}

/// The casts of the rays of `cols` at the cuboid of `group` into `row`; the rays the lanes
/// leave to [`Row::test`] into `left`, uncast.
#[inline(always)]
fn cuboid_in(
    group: &Group<'_>,
    cols: std::ops::Range<usize>,
    row: &mut Row,
    left: &mut Vec<usize>,
) {
    // Whole groups, then the last, shorter one (see `row_rays_in`).
    let whole = cols.start + (cols.len() - cols.len() % L);
    for first in (cols.start..whole).step_by(L) {
        cuboid_group(group, row, left, first, L);
    }
    if whole < cols.end {
        cuboid_group(group, row, left, whole, cols.end - whole);
    }
}

/// [`cuboid_in`] for the `m` (at most [`L`]) rays from `first`.
#[inline(always)]
fn cuboid_group(group: &Group<'_>, row: &mut Row, left: &mut Vec<usize>, first: usize, m: usize) {
    let Group {
        rays,
        lanes: c,
        id,
        skip: (nearest, start),
    } = *group;
    let c = *c;
    let [ox, oy, oz, dx, dy, dz] = &rays.soa;
    let lane = |v: &[Real]| lanes(v, first, m);
    let (ox, oy, oz) = (lane(ox), lane(oy), lane(oz));
    let (dx, dy, dz, best) = (lane(dx), lane(dy), lane(dz), lane(&row.best));
    let mut shape = [NO_SHAPE; L];
    shape[..m].copy_from_slice(&row.shape[first..first + m]);
    let ([ax, ay, az], [hx, hy, hz]) = (c.at, c.half);
    let mut t = [0.0; L];
    let mut hit = [false; L];
    let mut own = [false; L];
    for k in 0..L {
        // `Row::test`'s skip, then the ray in the shape's frame (the origin as parry's
        // `Pose::inverse_transform_point`).
        let skipped = unreachable(nearest, start, best[k]);
        let (lx, ly, lz) = c.unrotate(ox[k] - ax, oy[k] - ay, oz[k] - az);
        let (ex, ey, ez) = c.unrotate(dx[k], dy[k], dz[k]);
        // parry's `Aabb::cast_local_ray` (solid) within the best hit so far, every slab
        // tested: once the interval is empty it stays so.
        let span = slab((0.0, best[k]), lx, ex, hx);
        let span = slab(span, ly, ey, hy);
        let (tmin, tmax) = slab(span, lz, ez, hz);
        let cast = tmin <= tmax;
        t[k] = tmin;
        let free = shape[k] == NO_SHAPE;
        // `nearer`: within the best (as near, when nothing is held yet). Written without
        // `&&` and `||`, whose branches would keep the lanes from one vector.
        hit[k] = !skipped & cast & ((tmin < best[k]) | ((tmin == best[k]) & free));
        // A zero component, or a tie with a hit held: `Row::test` decides.
        let plain = (ex != 0.0) & (ey != 0.0) & (ez != 0.0);
        own[k] = skipped | (plain & !(cast & (tmin == best[k]) & !free));
    }
    group_verdicts(row, left, (first, m), id, best, (&own, &hit, &t));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift generator of values in `[0, 1)`.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> Real {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as Real / (1u64 << 24) as Real
        }

        fn within(&mut self, a: Real, b: Real) -> Real {
            a + (b - a) * self.next()
        }
    }

    /// Cuboids turned every way, not turned at all, and a quarter turn about z.
    fn cuboids() -> Vec<Collider> {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut poses = vec![
            Pose::from_translation(Vector::new(3.0, 0.5, 0.2)),
            Pose::new(Vector::new(-2.0, 1.0, 0.0), Vector::new(0.0, 0.0, 1.0)),
            Pose::new(
                Vector::new(0.0, 4.0, 0.5),
                Vector::new(0.0, 0.0, std::f32::consts::FRAC_PI_2),
            ),
        ];
        for _ in 0..6 {
            let at = Vector::new(rng.within(-5.0, 5.0), rng.within(-5.0, 5.0), rng.next());
            let turn = Vector::new(rng.within(-3.0, 3.0), rng.within(-3.0, 3.0), rng.next());
            poses.push(Pose::new(at, turn));
        }
        poses
            .into_iter()
            .map(|pose| {
                let half = Vector::new(0.5 + rng.next(), 0.3 + rng.next(), 0.2 + rng.next());
                ColliderBuilder::cuboid(half.x, half.y, half.z)
                    .position(pose)
                    .build()
            })
            .collect()
    }

    /// A row of `n` rays: origins about the cuboids (some inside one), directions at random,
    /// some with components of exactly zero (of either sign), some along an axis.
    fn rays(rng: &mut Rng, n: usize) -> RowRays {
        let mut rays = RowRays::default();
        for _ in 0..n {
            let o = [
                rng.within(-1.0, 1.0),
                rng.within(-1.0, 1.0),
                rng.within(0.0, 1.0),
            ];
            let mut d = [
                rng.within(-1.0, 1.0),
                rng.within(-1.0, 1.0),
                rng.within(-0.3, 0.3),
            ];
            match (rng.next() * 10.0) as u32 {
                0 => d[2] = 0.0,
                1 => d[0] = -0.0,
                2 => d = [0.0, 1.0, 0.0],
                _ => {}
            }
            for (v, x) in rays.soa.iter_mut().zip(o.iter().chain(&d)) {
                v.push(*x);
            }
        }
        rays
    }

    /// A row as a band leaves it before a footprint's shape is cast: nothing hit within
    /// the range, a hit of shape 0 or of shape 2 held at random distances, and some rays'
    /// best hit at exactly the distance the cuboid is hit at (ties either way).
    fn row(rng: &mut Rng, rays: &RowRays, shape: &PreparedShape<'_>) -> Row {
        let n = rays.len();
        let numbered: Vec<_> = (0..3)
            .map(|k| (ColliderHandle::from_raw_parts(k * 2, 0), 0))
            .collect();
        let empty = || {
            let mut row = Row {
                numbered: numbered.clone(),
                ..Row::default()
            };
            row.begin(n, 60.0, false);
            row
        };
        let (mut row, mut fresh) = (empty(), empty());
        fresh.test(rays, shape, 1, 0..n, None);
        for k in 0..n {
            match (rng.next() * 5.0) as u32 {
                0 => {}
                1 => (row.best[k], row.shape[k]) = (rng.within(0.0, 8.0), 0),
                2 => (row.best[k], row.shape[k]) = (rng.within(0.0, 8.0), 2),
                _ if fresh.shape[k] == 1 => {
                    row.best[k] = fresh.best[k];
                    row.shape[k] = if rng.next() < 0.5 { 0 } else { 2 };
                }
                _ => row.best[k] = rng.within(0.0, 8.0),
            }
        }
        row
    }

    #[test]
    fn cuboids_cast_in_lanes_are_the_rays_cast_one_by_one_bit_for_bit() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let (mut lanes_hit, mut left) = (0, 0);
        for collider in cuboids() {
            let shape = PreparedShape::new(&collider, None);
            let lanes = Lanes::of(&shape).expect("a cuboid");
            for n in [1, 7, 8, 9, 61, 300] {
                let rays = rays(&mut rng, n);
                let before = row(&mut rng, &rays, &shape);
                for skip in [(0.0, 0.0), (3.0, 0.1), (rng.within(0.0, 6.0), 0.5)] {
                    // Columns from the second to the end, as a footprint's span.
                    let cols = 1.min(n - 1)..n;
                    let mut expected = before.clone();
                    expected.test(&rays, &shape, 1, cols.clone(), Some(skip));
                    let group = Group {
                        rays: &rays,
                        lanes: &lanes,
                        id: 1,
                        skip,
                    };
                    let mut builds: Vec<(&str, Row)> = Vec::new();
                    let mut base = before.clone();
                    base.in_lanes(&rays, &shape, 1, Some(skip), |row, rest| {
                        cuboid_in(&group, cols.clone(), row, rest);
                        left += rest.len();
                    });
                    builds.push(("baseline", base));
                    #[cfg(target_arch = "x86_64")]
                    if std::arch::is_x86_feature_detected!("avx2") {
                        let mut avx2 = before.clone();
                        avx2.in_lanes(&rays, &shape, 1, Some(skip), |row, rest| {
                            // SAFETY: the CPU running this has AVX2 (detected just above).
                            #[allow(unsafe_code)]
                            unsafe {
                                cuboid_avx2(&group, cols.clone(), row, rest)
                            };
                        });
                        builds.push(("AVX2", avx2));
                    }
                    let mut through = before.clone();
                    assert!(through.cuboid(&rays, &shape, 1, cols.clone(), skip));
                    builds.push(("Row::cuboid", through));
                    for (build, got) in builds {
                        for k in 0..n {
                            assert_eq!(
                                (got.best[k].to_bits(), got.shape[k]),
                                (expected.best[k].to_bits(), expected.shape[k]),
                                "{build}, ray {k} of {n}, skip {skip:?}: {:?}",
                                rays.ray(k)
                            );
                        }
                    }
                    lanes_hit += (0..n)
                        .filter(|&k| expected.shape[k] == 1 && before.shape[k] != 1)
                        .count();
                }
            }
        }
        assert!(lanes_hit > 200, "the cuboids were hit ({lanes_hit} times)");
        assert!(left > 50, "rays were left to the cast one by one ({left})");
    }
}
