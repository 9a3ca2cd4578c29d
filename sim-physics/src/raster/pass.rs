//! The depth pass of a view: its faces, half-spaces and triangles projected into the whole
//! image, made once per frame and kept for its bands ([`Frames`]), and scan converted per band
//! into the nearest face at each pixel.

use super::camera::{Affine, Camera, centre, pixel_range};
use rapier3d::prelude::ColliderHandle;
use sim_plugin_api::{EntityId, PinholeView, Vec3};

/// The depth passes made since the world last changed, by view (and whether its rays are
/// parallel).
pub(crate) type Frames = crate::kept::Kept<(PinholeView, bool), Projected>;

/// A triangle in image coordinates, its face's depth key and its face.
pub(super) type Projection = ([(f64, f64); 3], Affine, u32);

/// What the depth pass of a view draws, in the whole image: the bands of a frame each
/// take their rows of it.
pub(crate) struct Projected {
    pub(super) faces: Vec<Face>,
    /// Half-spaces: which side of each the pixels' rays start on, their depth key, and their
    /// faces (`f` its surface, `f + 1` its inside).
    pub(super) planes: Vec<(Affine, Option<Affine>, u32)>,
    /// Triangles in image coordinates, each with its face's depth key and index.
    pub(super) triangles: Vec<Projection>,
    /// The colliders parry casts at instead.
    pub(super) others: Vec<ColliderHandle>,
}

/// A planar surface the depth pass found nearest at a pixel.
#[derive(Clone, Copy)]
pub(super) struct Face {
    /// Unit normal in the world (zero for the inside of a half-space, seen where the rays
    /// start).
    pub(super) normal: Vec3,
    /// Whether the rays seeing it start inside it (a half-space's inside).
    pub(super) inside: bool,
    pub(super) entity: EntityId,
    pub(super) model: EntityId,
}

/// No face at a pixel.
pub(super) const NO_FACE: u32 = u32::MAX;

/// The per-pixel state of a band's depth pass.
pub(super) struct Depths {
    /// The largest depth key (see [`Camera::key`]) found at each pixel.
    pub(super) key: Vec<f64>,
    /// The face it belongs to.
    pub(super) face: Vec<u32>,
}

/// The nearest face of `pass` at each pixel of the band of `cam`: compiled for AVX2 as well,
/// and run so where the CPU has it (the same operations, so the same keys and faces; a W2
/// depth frame about 5 % faster).
pub(super) fn band_depths(cam: &Camera, pass: &Projected) -> Depths {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU running this has AVX2 (detected just above), the one feature
        // `band_depths_avx2` enables beyond the build's.
        #[allow(unsafe_code)]
        return unsafe { band_depths_avx2(cam, pass) };
    }
    band_depths_in(cam, pass)
}

/// [`band_depths`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn band_depths_avx2(cam: &Camera, pass: &Projected) -> Depths {
    band_depths_in(cam, pass)
}

#[inline(always)]
fn band_depths_in(cam: &Camera, pass: &Projected) -> Depths {
    let n = cam.rows * cam.width;
    let mut depths = Depths {
        key: vec![f64::NEG_INFINITY; n],
        face: vec![NO_FACE; n],
    };
    for (n, &(side, key, f)) in pass.planes.iter().enumerate() {
        plane_depths(cam, side, key, f, n == 0, &mut depths);
    }
    for &(t, key, f) in &pass.triangles {
        scan(cam, t, key, f, &mut depths);
    }
    depths
}

/// The depth pass of a half-space (faces `f`, its surface, and `f + 1`, its inside): every
/// pixel whose ray meets it, from outside (`side` ≥ 0 where the ray starts) or from
/// inside (where it starts).
///
/// Along a row `side` and `key` are affine in the column, and each step of their evaluation
/// (a product, two sums) is monotonic in floating point too, so every test a pixel makes
/// ([`plane_pixel`]) holds on a prefix or a suffix of the row: each row is cut into its
/// intervals by binary search, with the same tests at the same pixels, and only the pixels
/// that see the plane are evaluated. A row whose values could overflow is tested pixel by
/// pixel.
///
/// `first`: no depth is set yet (every key is `-inf`, the band's first plane). The keys of a
/// row of bounded values are then finite or `start`, above `-inf`, and are written without
/// comparing them to those there (which the compiler makes masked stores, slow on some
/// CPUs): the same keys and faces.
#[inline(always)]
pub(super) fn plane_depths(
    cam: &Camera,
    side: Affine,
    key: Option<Affine>,
    f: u32,
    first: bool,
    depths: &mut Depths,
) {
    let start = cam.key(cam.near);
    let w = cam.width;
    for r in 0..cam.rows {
        let v = centre(cam.first_row + r);
        let keys = &mut depths.key[r * w..(r + 1) * w];
        let faces = &mut depths.face[r * w..(r + 1) * w];
        let put = |keys: &mut [f64], faces: &mut [u32], i: usize, k: f64, face: u32| {
            if k > keys[i] {
                keys[i] = k;
                faces[i] = face;
            }
        };
        let bounded = |a: &Affine| {
            let m = a.0[0].abs() * w as f64 + (a.0[1] * v).abs() + a.0[2].abs();
            m.is_finite() && m < 1e300
        };
        if !bounded(&side) || !key.as_ref().is_none_or(bounded) {
            for i in 0..w {
                let u = centre(i);
                if let Some((k, face)) = plane_pixel(cam, side, key, start, f, u, v) {
                    put(keys, faces, i, k, face);
                }
            }
            continue;
        }
        let at = |a: &Affine, i: usize| a.at(centre(i), v);
        // Where the rays start behind the plane: a prefix (side rising) or a suffix.
        let inside = span(w, side.0[0] < 0.0, |i| at(&side, i) < 0.0);
        let outside = if inside.start == 0 {
            inside.end..w
        } else {
            0..inside.start
        };
        if first && start > f64::NEG_INFINITY {
            keys[inside.clone()].fill(start);
            faces[inside].fill(f + 1);
        } else {
            for i in inside {
                put(keys, faces, i, start, f + 1);
            }
        }
        let Some(key) = key else {
            continue;
        };
        // Seen from outside only in front of where the rays start.
        let rising = key.0[0] < 0.0;
        let mut seen = intersect(outside, span(w, rising, |i| at(&key, i) <= start));
        if !cam.ortho {
            seen = intersect(seen, span(w, !rising, |i| at(&key, i) > 0.0));
        }
        if first {
            for i in seen {
                (keys[i], faces[i]) = (at(&key, i), f);
            }
        } else {
            for i in seen {
                put(keys, faces, i, at(&key, i), f);
            }
        }
    }
}

/// What the half-space of [`plane_depths`] gives pixel centre `(u, v)`: its depth key and
/// face, or `None` where its ray does not meet it.
fn plane_pixel(
    cam: &Camera,
    side: Affine,
    key: Option<Affine>,
    start: f64,
    f: u32,
    u: f64,
    v: f64,
) -> Option<(f64, u32)> {
    if side.at(u, v) < 0.0 {
        return Some((start, f + 1));
    }
    let k = key?.at(u, v);
    (k <= start && (cam.ortho || k > 0.0)).then_some((k, f))
}

/// The columns `0..w` where `holds`, which turns at most once along the row: from false to
/// true when `rising`, else from true to false.
fn span(w: usize, rising: bool, holds: impl Fn(usize) -> bool) -> std::ops::Range<usize> {
    span_in(0..w, rising, holds)
}

/// [`span`] within the columns `cols`.
fn span_in(
    cols: std::ops::Range<usize>,
    rising: bool,
    holds: impl Fn(usize) -> bool,
) -> std::ops::Range<usize> {
    // The first column where `turned` holds, of a predicate false then true.
    let first = |turned: &dyn Fn(usize) -> bool| {
        let (mut lo, mut hi) = (cols.start, cols.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if turned(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    };
    if rising {
        first(&holds)..cols.end
    } else {
        cols.start..first(&|i| !holds(i))
    }
}

fn intersect(a: std::ops::Range<usize>, b: std::ops::Range<usize>) -> std::ops::Range<usize> {
    a.start.max(b.start)..a.end.min(b.end).max(a.start.max(b.start))
}

/// Adds the face of outward unit `normal` through world point `point` of visual `entity`
/// (of `model`) to `faces`: its index and its depth key, or `None` (nothing added) where
/// the camera sees its plane edge-on.
pub(super) fn planar_face(
    cam: &Camera,
    faces: &mut Vec<Face>,
    normal: Vec3,
    point: Vec3,
    (entity, model): (EntityId, EntityId),
) -> Option<(u32, Affine)> {
    let key = cam.plane(normal, normal.dot(point)).1?;
    faces.push(Face {
        normal,
        inside: false,
        entity,
        model,
    });
    Some(((faces.len() - 1) as u32, key))
}

/// One triangle (world vertices) of face `f` with depth key `key`: clipped at the near plane,
/// projected, and added to `out` (as two where the clip cuts a corner off).
pub(super) fn triangle(cam: &Camera, v: [Vec3; 3], key: Affine, f: u32, out: &mut Vec<Projection>) {
    let p = v.map(|v| cam.optical(v));
    if p.iter().all(|p| p[2] <= cam.near) || p.iter().all(|p| p[2] > cam.far) {
        return;
    }
    // Sutherland-Hodgman against z >= near: at most four vertices.
    let mut poly = [[0.0f64; 3]; 4];
    let mut n = 0;
    for k in 0..3 {
        let (a, b) = (p[k], p[(k + 1) % 3]);
        let (ina, inb) = (a[2] >= cam.near, b[2] >= cam.near);
        if ina {
            poly[n] = a;
            n += 1;
        }
        if ina != inb {
            let t = (cam.near - a[2]) / (b[2] - a[2]);
            poly[n] = [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), cam.near];
            n += 1;
        }
    }
    if n < 3 {
        return;
    }
    let s: [(f64, f64); 4] = std::array::from_fn(|k| cam.project(poly[k.min(n - 1)]));
    out.push(([s[0], s[1], s[2]], key, f));
    if n == 4 {
        out.push(([s[0], s[2], s[3]], key, f));
    }
}

/// Scan converts one projected triangle of face `f` (depth key `key`): the pixel centres
/// inside it or on its edges.
///
/// Watertight: triangles that share an edge (a face's two halves, a mesh's neighbours) see
/// its two projected points as the same numbers, and each edge's function is evaluated with
/// its ends in one order whichever triangle asks ([`Edge`]), so a pixel centre on the shared
/// edge gives both triangles exactly zero and is covered, never dropped by both through
/// rounding.
///
/// Along a row each edge's function is monotonic in the column (a difference, a product and
/// a difference, each monotonic in floating point too), so the centres an edge covers are a
/// prefix or a suffix of the row's: a row's covered centres are found by binary search, with
/// the same tests at the same pixels ([`Edge::span`]), and only they are tested for depth. A
/// triangle whose coordinates could overflow is tested pixel by pixel.
#[inline(always)]
fn scan(cam: &Camera, t: [(f64, f64); 3], key: Affine, f: u32, depths: &mut Depths) {
    let [(u0, v0), (u1, v1), (u2, v2)] = t;
    let area = (u1 - u0) * (v2 - v0) - (v1 - v0) * (u2 - u0);
    if area.is_nan() || area.abs() <= 1e-12 {
        return;
    }
    let umin = u0.min(u1).min(u2);
    let umax = u0.max(u1).max(u2);
    let vmin = v0.min(v1).min(v2);
    let vmax = v0.max(v1).max(v2);
    let cols = pixel_range(umin, umax, cam.width);
    let band_end = cam.first_row + cam.rows;
    let rows = pixel_range(vmin, vmax, band_end);
    let rows = rows.start.max(cam.first_row)..rows.end;
    let inside = area > 0.0;
    let edges = [
        Edge::new(t[1], t[2], inside),
        Edge::new(t[2], t[0], inside),
        Edge::new(t[0], t[1], inside),
    ];
    let by_spans = edges.iter().all(Edge::bounded);
    for j in rows {
        let v = centre(j);
        let row = (j - cam.first_row) * cam.width;
        let covered = if by_spans {
            (edges.iter()).fold(cols.clone(), |c, e| intersect(c.clone(), e.span(c, v)))
        } else {
            cols.clone()
        };
        for i in covered {
            let u = centre(i);
            // Within a span every centre is covered; else each is tested.
            if !(by_spans || edges.iter().all(|e| e.covers(u, v))) {
                continue;
            }
            let z = key.at(u, v);
            let k = row + i;
            if z > depths.key[k] {
                depths.key[k] = z;
                depths.face[k] = f;
            }
        }
    }
}

/// One edge of a projected triangle, from `a` to `b`, with its ends in a fixed order (the
/// smaller point first), so that the two triangles sharing it compute the same number at a
/// pixel, one of them negated.
#[derive(Clone, Copy)]
struct Edge {
    a: (f64, f64),
    b: (f64, f64),
    /// Whether the triangle's inside is where `(b - a) x (p - a)` is positive (after the
    /// ends' reordering).
    positive: bool,
}

impl Edge {
    /// The edge from `a` to `b` of a triangle whose inside lies left of its edges
    /// (`inside_left`: positive area) or right of them.
    fn new(a: (f64, f64), b: (f64, f64), inside_left: bool) -> Edge {
        let swap = b.0 < a.0 || (b.0 == a.0 && b.1 < a.1);
        let (a, b) = if swap { (b, a) } else { (a, b) };
        Edge {
            a,
            b,
            positive: inside_left != swap,
        }
    }

    /// Whether pixel centre `(u, v)` is on the triangle's side of the edge or on it.
    #[inline]
    fn covers(&self, u: f64, v: f64) -> bool {
        let e = (self.b.0 - self.a.0) * (v - self.a.1) - (self.b.1 - self.a.1) * (u - self.a.0);
        if self.positive { e >= 0.0 } else { e <= 0.0 }
    }

    /// Whether the edge's ends are small enough that its function is finite at every pixel
    /// centre (false for NaN), as [`Edge::span`] needs.
    fn bounded(&self) -> bool {
        [self.a.0, self.a.1, self.b.0, self.b.1]
            .iter()
            .all(|c| c.abs() < 1e100)
    }

    /// The columns of `cols` whose centres on the row at `v` the edge covers
    /// ([`Edge::covers`]) of a [`Edge::bounded`] edge: its function falls along the row
    /// where `b.1 > a.1` (then `e >= 0` holds on a prefix and `e <= 0` on a suffix), rises
    /// where `b.1 < a.1`, and is constant where they are equal.
    fn span(&self, cols: std::ops::Range<usize>, v: f64) -> std::ops::Range<usize> {
        let holds = |i: usize| self.covers(centre(i), v);
        let d = self.b.1 - self.a.1;
        if d == 0.0 {
            return match cols.clone().next() {
                Some(i) if !holds(i) => i..i,
                _ => cols,
            };
        }
        span_in(cols, (d > 0.0) != self.positive, holds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{ALL_VISIBLE, Pose, Quat};

    /// A small deterministic generator (xorshift64*), values in [0, 1).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
        }
        fn range(&mut self, lo: f64, hi: f64) -> f64 {
            lo + (hi - lo) * self.next()
        }
    }

    /// A band of a random camera (parallel rays in every third case).
    fn random_band(rng: &mut Rng, case: i32) -> Camera {
        let ortho = case % 3 == 0;
        let (width, height) = (
            1 + (rng.next() * 90.0) as u32,
            1 + (rng.next() * 70.0) as u32,
        );
        let f = rng.range(5.0, 200.0);
        let view = PinholeView {
            pose: Pose::new(
                Vec3::new(
                    rng.range(-3.0, 3.0),
                    rng.range(-3.0, 3.0),
                    rng.range(-3.0, 3.0),
                ),
                Quat::from_rpy(
                    rng.range(-3.2, 3.2),
                    rng.range(-1.6, 1.6),
                    rng.range(-3.2, 3.2),
                ),
            ),
            width,
            height,
            fx: f,
            fy: f * rng.range(0.5, 2.0),
            cx: rng.range(0.0, f64::from(width)),
            cy: rng.range(0.0, f64::from(height)),
            skew: if case % 5 == 0 {
                rng.range(-3.0, 3.0)
            } else {
                0.0
            },
            near: if case % 7 == 0 {
                0.0
            } else {
                rng.range(1e-6, 1.0)
            },
            far: 100.0,
            exclude_model: EntityId::NONE,
            mask: ALL_VISIBLE,
            normals: false,
        };
        let first = (rng.next() * f64::from(height)) as u32;
        let len = (width * height) as usize;
        Camera::band(&view, first, len, ortho).unwrap()
    }

    #[test]
    fn a_plane_row_by_intervals_is_the_plane_pixel_by_pixel() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut rows_seen = 0;
        for case in 0..400 {
            let cam = random_band(&mut rng, case);
            let normal = Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            // Some planes along an axis, as ground planes are.
            let normal = if case % 4 == 1 {
                Vec3::new(0.0, 0.0, 1.0)
            } else {
                normal.normalized()
            };
            let (side, key) = cam.plane(normal, rng.range(-4.0, 4.0));
            let n = cam.rows * cam.width;
            // Depths already there, some nearer than the plane, some farther; or none, the
            // band's first plane.
            let first = case % 3 == 2;
            let before: Vec<f64> = (0..n)
                .map(|_| match (rng.next() * 3.0) as u32 {
                    _ if first => f64::NEG_INFINITY,
                    0 => f64::NEG_INFINITY,
                    1 => rng.range(-5.0, 5.0),
                    _ => rng.range(0.0, 20.0),
                })
                .collect();
            let mut fast = Depths {
                key: before.clone(),
                face: vec![NO_FACE; n],
            };
            plane_depths(&cam, side, key, 4, first, &mut fast);
            let start = cam.key(cam.near);
            for r in 0..cam.rows {
                let v = (cam.first_row + r) as f64 + 0.5;
                for i in 0..cam.width {
                    let p = r * cam.width + i;
                    let (mut k, mut face) = (before[p], NO_FACE);
                    if let Some((pk, pf)) =
                        plane_pixel(&cam, side, key, start, 4, i as f64 + 0.5, v)
                        && pk > k
                    {
                        (k, face) = (pk, pf);
                    }
                    assert_eq!(
                        (fast.key[p].to_bits(), fast.face[p]),
                        (k.to_bits(), face),
                        "case {case}, pixel ({i}, {v})"
                    );
                }
                rows_seen += 1;
            }
        }
        assert!(rows_seen > 4000, "{rows_seen}");
    }

    /// Scan conversion by each row's span of covered centres gives every pixel the key and
    /// face that testing each pixel of the triangle's box gives it: random triangles, some
    /// thin, some level or upright, some sharing edges, some far outside the image, against
    /// depths already there.
    #[test]
    fn a_triangle_by_row_spans_is_the_triangle_pixel_by_pixel() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut covered = 0;
        for case in 0..400 {
            let cam = random_band(&mut rng, case);
            let (w, h) = (cam.width as f64, (cam.first_row + cam.rows) as f64);
            let n = cam.rows * cam.width;
            let before: Vec<f64> = (0..n)
                .map(|_| match (rng.next() * 2.0) as u32 {
                    0 => f64::NEG_INFINITY,
                    _ => rng.range(0.0, 5.0),
                })
                .collect();
            let mut fast = Depths {
                key: before.clone(),
                face: vec![NO_FACE; n],
            };
            let mut slow = Depths {
                key: before,
                face: vec![NO_FACE; n],
            };
            let spread = [1.2, 0.01, 1e3, 1e120][(case % 4) as usize];
            for f in 0..10u32 {
                let mut corner = || {
                    (
                        rng.range(-spread, 1.0 + spread) * w,
                        rng.range(-spread, 1.0 + spread) * h,
                    )
                };
                let (a, mut b, c, d) = (corner(), corner(), corner(), corner());
                match f % 5 {
                    0 => b.1 = a.1,                                  // a level edge
                    1 => b.0 = a.0,                                  // an upright one
                    2 => b = (a.0.round() + 0.5, a.1.round() + 0.5), // ends on centres
                    _ => {}
                }
                let key = Affine([
                    rng.range(-0.1, 0.1),
                    rng.range(-0.1, 0.1),
                    rng.range(0.0, 5.0),
                ]);
                for t in [[a, b, c], [a, c, d]] {
                    scan(&cam, t, key, f, &mut fast);
                    scan_pixel_by_pixel(&cam, t, key, f, &mut slow);
                }
            }
            assert_same_depths(&fast, &slow, case);
            covered += slow.face.iter().filter(|&&f| f != NO_FACE).count();
        }
        assert!(covered > 100_000, "{covered}");
    }

    /// Asserts that two depth passes give every pixel the same key (bit for bit) and face.
    fn assert_same_depths(a: &Depths, b: &Depths, case: i32) {
        let pixels = (a.key.iter().zip(&b.key)).zip(a.face.iter().zip(&b.face));
        for (k, ((ka, kb), (fa, fb))) in pixels.enumerate() {
            assert_eq!(
                (ka.to_bits(), fa),
                (kb.to_bits(), fb),
                "case {case}, pixel {k}"
            );
        }
        assert_eq!((a.key.len(), a.face.len()), (b.key.len(), b.face.len()));
    }

    /// [`scan`] as it was written first: each centre of the triangle's box tested against
    /// the three edges.
    fn scan_pixel_by_pixel(
        cam: &Camera,
        t: [(f64, f64); 3],
        key: Affine,
        f: u32,
        depths: &mut Depths,
    ) {
        let [(u0, v0), (u1, v1), (u2, v2)] = t;
        let area = (u1 - u0) * (v2 - v0) - (v1 - v0) * (u2 - u0);
        if area.is_nan() || area.abs() <= 1e-12 {
            return;
        }
        let cols = pixel_range(u0.min(u1).min(u2), u0.max(u1).max(u2), cam.width);
        let rows = pixel_range(
            v0.min(v1).min(v2),
            v0.max(v1).max(v2),
            cam.first_row + cam.rows,
        );
        let e = [
            Edge::new(t[1], t[2], area > 0.0),
            Edge::new(t[2], t[0], area > 0.0),
            Edge::new(t[0], t[1], area > 0.0),
        ];
        for j in rows.start.max(cam.first_row)..rows.end {
            let v = centre(j);
            for i in cols.clone() {
                let u = centre(i);
                let k = (j - cam.first_row) * cam.width + i;
                let z = key.at(u, v);
                if e.iter().all(|e| e.covers(u, v)) && z > depths.key[k] {
                    depths.key[k] = z;
                    depths.face[k] = f;
                }
            }
        }
    }

    /// The depth pass compiled for AVX2 (where the CPU has it) gives every pixel the key and
    /// face the baseline build gives it: random views of planes and of triangles, some
    /// across the image's edges, some sharing edges.
    #[test]
    fn a_band_by_avx2_is_the_band_by_the_baseline() {
        let mut rng = Rng(0x5851_F42D_4C95_7F2D);
        for case in 0..300 {
            let cam = random_band(&mut rng, case);
            let (w, h) = (cam.width as f64, (cam.first_row + cam.rows) as f64);
            let mut planes = Vec::new();
            for f in 0..(case % 3) as u32 {
                let n = Vec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                )
                .normalized();
                let (side, key) = cam.plane(n, rng.range(-4.0, 4.0));
                planes.push((side, key, 2 * f));
            }
            let mut triangles = Vec::new();
            for f in 0..20u32 {
                let mut corner = || (rng.range(-0.2, 1.2) * w, rng.range(-0.2, 1.2) * h);
                let (a, b, c, d) = (corner(), corner(), corner(), corner());
                let key = Affine([
                    rng.range(-0.1, 0.1),
                    rng.range(-0.1, 0.1),
                    rng.range(0.0, 5.0),
                ]);
                triangles.push(([a, b, c], key, 10 + f));
                triangles.push(([a, c, d], key, 10 + f));
            }
            let pass = Projected {
                faces: Vec::new(),
                planes,
                triangles,
                others: Vec::new(),
            };
            let baseline = band_depths_in(&cam, &pass);
            let fast = band_depths(&cam, &pass);
            assert!(baseline.face.iter().any(|&f| f != NO_FACE), "case {case}");
            assert_same_depths(&fast, &baseline, case);
        }
    }
}
