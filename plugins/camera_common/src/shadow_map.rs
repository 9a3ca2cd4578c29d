//! Shadow maps: the depths along a directional light of the surfaces nearest to it, over the
//! box of the points a frame sees, in which [`Shader`](crate::Shader) looks shadows up before
//! casting a shadow ray (see the [shading module](crate::shading)).

use sim_plugin_api::{Quat, Ray, RayHit, Vec3};
use simcore_plugin_common::Passes;

/// Shadow map texels per pixel of the frame (over the box of the points it shades). An
/// occluder narrower than a texel can fall between the four texels a point looks up, so a
/// coarser map is not only cheaper but wrong more often: 0.5 shaded the W2 RGB frame in 7 %
/// fewer instructions with the same image, and changed 761 pixels of the
/// `worlds/sensors_demo.sdf` picture.
pub(crate) const MAP_TEXELS_PER_PIXEL: f64 = 1.0;
/// The largest shadow map side, texels.
pub(crate) const MAP_SIDE: usize = 4096;
/// Every this many pixels' points bound the shadow map (points outside it cast rays).
pub(crate) const BOUND_STRIDE: usize = 3;
/// Below this cosine between a surface and a light the shadow ray decides.
const MAP_MIN_COS: f64 = 0.05;
/// A shadow map texel nearer to the light than a point's surface by more than this, m,
/// is a surface between them.
const MAP_MARGIN: f64 = 5e-4;

/// The shadow map of one directional light for one frame: the depths, along the light, of
/// the surfaces nearest to it over the box of the frame's points (see
/// [`Shader::shade`](crate::Shader::shade)).
#[derive(Clone, Debug, Default)]
pub(crate) struct ShadowMap {
    /// The light (index in the frame's lights).
    pub(crate) light: usize,
    /// The map's frame: `x` along the light's direction, the map centred on its x axis.
    pub(crate) origin: Vec3,
    pub(crate) x: Vec3,
    pub(crate) y: Vec3,
    pub(crate) z: Vec3,
    pub(crate) width: usize,
    pub(crate) height: usize,
    /// Texels per metre.
    pub(crate) scale: f64,
    pub(crate) depths: Vec<f32>,
}

impl ShadowMap {
    /// Whether the light reaches the point `p` (lifted off its surface, unit normal `n`
    /// facing the light): `Some(true)` when none of the four texels around it has a surface
    /// nearer to the light than the plane of `p`'s surface there, `Some(false)` when all
    /// four have, `None` (a shadow ray decides) otherwise, outside the map or at grazing
    /// light.
    #[cfg(test)]
    pub(crate) fn reaches(&self, p: Vec3, n: Vec3) -> Option<bool> {
        self.reaches_lanes(&[[p.x], [p.y], [p.z]], self.slope(n)?)[0]
    }

    /// What [`ShadowMap::reaches`] needs of a normal `n` (the same for every point of a
    /// flat surface): how the depth of its tangent plane moves per texel along u and v, or
    /// `None` at grazing light.
    #[inline]
    pub(crate) fn slope(&self, n: Vec3) -> Option<Slope> {
        let nx = n.dot(self.x);
        if nx > -MAP_MIN_COS {
            return None;
        }
        let k = 1.0 / (self.scale * nx);
        Some(Slope {
            du: n.dot(self.y) * k,
            dv: n.dot(self.z) * k,
        })
    }

    /// [`ShadowMap::reaches`] for the shadow rays' starts of four pixels of one face (unit
    /// normal `n`, turned to face the rays; [`ShadowMap::slope`] `slope`): the points its
    /// `rays` see at distances `t`, [`lifted`] off the surface. With `avx2` (where the CPU
    /// has it) in AVX2 vectors, the same operations in each lane: the same results.
    #[inline(always)]
    pub(crate) fn reaches_four(
        &self,
        rays: [&Ray; 4],
        t: [f64; 4],
        n: Vec3,
        slope: Slope,
        avx2: bool,
    ) -> [Option<bool>; 4] {
        #[cfg(target_arch = "x86_64")]
        if avx2 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU running this has AVX2 (detected just above), the one feature
            // `reaches_four_avx2` enables beyond the build's.
            #[allow(unsafe_code)]
            return unsafe { self.reaches_four_avx2(rays, t, n, slope) };
        }
        let _ = avx2;
        let mut from = [[0.0; 4]; 3];
        for (k, (ray, t)) in rays.iter().zip(t).enumerate() {
            let p = lifted(ray.origin + ray.direction.scale(t), n, t);
            [from[0][k], from[1][k], from[2][k]] = p.to_array();
        }
        self.reaches_lanes(&from, slope)
    }

    /// [`ShadowMap::reaches_four`] in AVX2 vectors, a pixel a lane: each operation of
    /// [`ShadowMap::reaches_lanes`] in the same order, so the same results.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn reaches_four_avx2(
        &self,
        rays: [&Ray; 4],
        t: [f64; 4],
        n: Vec3,
        slope: Slope,
    ) -> [Option<bool>; 4] {
        use std::arch::x86_64::*;
        // Lane k of a vector is pixel k.
        macro_rules! lanes {
            (|$k:ident| $e:expr) => {{
                let at = |$k: usize| -> f64 { $e };
                _mm256_set_pd(at(3), at(2), at(1), at(0))
            }};
        }
        let all = |x: f64| _mm256_set1_pd(x);
        let (add, sub, mul) = (_mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd);
        let t4 = lanes!(|k| t[k]);
        let lift = add(all(1e-3), mul(all(2e-4), t4));
        let start = |o: __m256d, d: __m256d, n: f64| add(add(o, mul(d, t4)), mul(all(n), lift));
        let fx = start(
            lanes!(|k| rays[k].origin.x),
            lanes!(|k| rays[k].direction.x),
            n.x,
        );
        let fy = start(
            lanes!(|k| rays[k].origin.y),
            lanes!(|k| rays[k].direction.y),
            n.y,
        );
        let fz = start(
            lanes!(|k| rays[k].origin.z),
            lanes!(|k| rays[k].direction.z),
            n.z,
        );
        let o = self.origin;
        let r = [sub(fx, all(o.x)), sub(fy, all(o.y)), sub(fz, all(o.z))];
        let dot = |a: Vec3| {
            add(
                add(mul(r[0], all(a.x)), mul(r[1], all(a.y))),
                mul(r[2], all(a.z)),
            )
        };
        let (w, h) = (f64::from(self.width as u32), f64::from(self.height as u32));
        let sign = all(-0.0);
        let u = sub(
            add(
                mul(_mm256_xor_pd(dot(self.y), sign), all(self.scale)),
                all(w / 2.0),
            ),
            all(0.5),
        );
        let v = sub(
            add(
                mul(_mm256_xor_pd(dot(self.z), sign), all(self.scale)),
                all(h / 2.0),
            ),
            all(0.5),
        );
        let depth = dot(self.x);
        let inside = _mm256_and_pd(
            _mm256_and_pd(
                _mm256_cmp_pd::<_CMP_GE_OQ>(u, all(0.0)),
                _mm256_cmp_pd::<_CMP_GE_OQ>(v, all(0.0)),
            ),
            _mm256_and_pd(
                _mm256_cmp_pd::<_CMP_LT_OQ>(u, all(w - 1.0)),
                _mm256_cmp_pd::<_CMP_LT_OQ>(v, all(h - 1.0)),
            ),
        );
        // Outside the map: texel (0, 0), its results dropped.
        let ti = _mm256_cvttpd_epi32(_mm256_and_pd(u, inside));
        let tj = _mm256_cvttpd_epi32(_mm256_and_pd(v, inside));
        let (fi, fj) = (_mm256_cvtepi32_pd(ti), _mm256_cvtepi32_pd(tj));
        let index = |k: i32| -> usize {
            let (i, j) = match k {
                0 => (_mm_extract_epi32::<0>(ti), _mm_extract_epi32::<0>(tj)),
                1 => (_mm_extract_epi32::<1>(ti), _mm_extract_epi32::<1>(tj)),
                2 => (_mm_extract_epi32::<2>(ti), _mm_extract_epi32::<2>(tj)),
                _ => (_mm_extract_epi32::<3>(ti), _mm_extract_epi32::<3>(tj)),
            };
            j as usize * self.width + i as usize
        };
        let texels = self.texels([index(0), index(1), index(2), index(3)]);
        let Slope { du, dv } = slope;
        let mut occluded = _mm256_setzero_si256();
        for (c, (di, dj)) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
            .into_iter()
            .enumerate()
        {
            let own = add(
                add(depth, mul(all(du), sub(add(fi, all(di)), u))),
                mul(all(dv), sub(add(fj, all(dj)), v)),
            );
            let texel = lanes!(|k| texels[c][k]);
            let nearer = _mm256_cmp_pd::<_CMP_LT_OQ>(texel, sub(own, all(MAP_MARGIN)));
            // A lane's mask is -1 where nearer: subtracted, it counts.
            occluded = _mm256_sub_epi64(occluded, _mm256_castpd_si256(nearer));
        }
        let inside = _mm256_movemask_pd(inside);
        let count = [
            _mm256_extract_epi64::<0>(occluded),
            _mm256_extract_epi64::<1>(occluded),
            _mm256_extract_epi64::<2>(occluded),
            _mm256_extract_epi64::<3>(occluded),
        ];
        let mut reached = [None; 4];
        for (k, (reached, count)) in reached.iter_mut().zip(count).enumerate() {
            *reached = verdict(inside >> k & 1 == 1, count);
        }
        reached
    }

    /// The four texels around each of `N` points, the first of each at `at` (two of its row
    /// and two of the row below, by corner: `[0]` the first's, `[1]` the one after it, `[2]`
    /// and `[3]` below them); +inf where they would lie outside the map.
    #[inline(always)]
    fn texels<const N: usize>(&self, at: [usize; N]) -> [[f64; N]; 4] {
        let mut texels = [[f64::INFINITY; N]; 4];
        for (k, at) in at.into_iter().enumerate() {
            if let Some(q) = self.depths.get(at..at + self.width + 2) {
                texels[0][k] = f64::from(q[0]);
                texels[1][k] = f64::from(q[1]);
                texels[2][k] = f64::from(q[self.width]);
                texels[3][k] = f64::from(q[self.width + 1]);
            }
        }
        texels
    }

    /// [`ShadowMap::reaches`] for `N` points of one surface of [`ShadowMap::slope`]
    /// `slope` at once, given by coordinate (`points[0]` their x), each lane independent of
    /// the others: made lane by lane and without branches, so that it is vectorised.
    #[inline(always)]
    pub(crate) fn reaches_lanes<const N: usize>(
        &self,
        points: &[[f64; N]; 3],
        slope: Slope,
    ) -> [Option<bool>; N] {
        let Slope { du, dv } = slope;
        // A side is at most `MAP_SIDE` texels: it converts through `u32` (cheaper than from
        // `usize`) to the same value.
        let (w, h) = (f64::from(self.width as u32), f64::from(self.height as u32));
        let ([x, y, z], o) = ([self.x, self.y, self.z], self.origin);
        let (mut u, mut v, mut depth) = ([0.0; N], [0.0; N], [0.0; N]);
        for k in 0..N {
            // r = p - origin, its dot products with the map's axes as `Vec3::dot` makes them.
            let r = [points[0][k] - o.x, points[1][k] - o.y, points[2][k] - o.z];
            u[k] = -(r[0] * y.x + r[1] * y.y + r[2] * y.z) * self.scale + w / 2.0 - 0.5;
            v[k] = -(r[0] * z.x + r[1] * z.y + r[2] * z.z) * self.scale + h / 2.0 - 0.5;
            depth[k] = r[0] * x.x + r[1] * x.y + r[2] * x.z;
        }
        // Points outside the map look up its first texels, and their results are dropped.
        let (mut inside, mut fi, mut fj, mut at) = ([false; N], [0.0; N], [0.0; N], [0; N]);
        for k in 0..N {
            inside[k] = (u[k] >= 0.0) & (v[k] >= 0.0) & (u[k] < w - 1.0) & (v[k] < h - 1.0);
            let (ti, tj) = (
                if inside[k] { u[k] } else { 0.0 } as i32,
                if inside[k] { v[k] } else { 0.0 } as i32,
            );
            (fi[k], fj[k]) = (f64::from(ti), f64::from(tj));
            at[k] = tj as usize * self.width + ti as usize;
        }
        let texels = self.texels(at);
        let mut occluded = [0u8; N];
        for (c, (di, dj)) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
            .into_iter()
            .enumerate()
        {
            for k in 0..N {
                let own = depth[k] + du * (fi[k] + di - u[k]) + dv * (fj[k] + dj - v[k]);
                occluded[k] += u8::from(texels[c][k] < own - MAP_MARGIN);
            }
        }
        let mut reached = [None; N];
        for k in 0..N {
            reached[k] = verdict(inside[k], occluded[k].into());
        }
        reached
    }
}

/// Where a shadow ray starts: the point `p` seen at distance `t` along its ray, lifted off
/// its surface (unit normal `n`, facing the ray) by 1 mm + 0.02 % of `t`, so that curved
/// surfaces, whose hits rapier computes in single precision, do not shadow themselves.
#[inline(always)]
pub(crate) fn lifted(p: Vec3, n: Vec3, t: f64) -> Vec3 {
    p + n.scale(1e-3 + 2e-4 * t)
}

/// What a point's look-up says, from whether it lies inside the map and how many of its
/// four texels hold a surface nearer to the light: lit (none), in shadow (all four), or
/// `None` (a shadow ray decides).
#[inline(always)]
fn verdict(inside: bool, occluded: i64) -> Option<bool> {
    match (inside, occluded) {
        (true, 0) => Some(true),
        (true, 4) => Some(false),
        _ => None,
    }
}

/// How the depth of a surface's tangent plane moves per texel of a shadow map, along u and
/// v (see [`ShadowMap::slope`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Slope {
    du: f64,
    dv: f64,
}

/// The frame of a directional light's shadow map: its rotation and, as the engine will turn
/// it, its axes (x along the light).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MapFrame {
    pub(crate) rotation: Quat,
    pub(crate) axes: [Vec3; 3],
}

impl MapFrame {
    /// The frame of the map of a directional light shining along `direction`; none for
    /// no direction.
    pub(crate) fn along(direction: Vec3) -> Option<Self> {
        let length = direction.length();
        if length.is_nan() || length <= 1e-12 {
            return None;
        }
        let x = direction.scale(1.0 / length);
        let a = if x.z.abs() < 0.9 {
            Vec3::new(0.0, 0.0, 1.0)
        } else {
            Vec3::new(1.0, 0.0, 0.0)
        };
        let y = a.cross(x).normalized();
        let rotation = frame_rotation(x, y, x.cross(y));
        let m = rotation.to_matrix();
        let axis = |c: usize| Vec3::new(m[0][c], m[1][c], m[2][c]);
        Some(MapFrame {
            rotation,
            axes: [axis(0), axis(1), axis(2)],
        })
    }
}

/// The boxes, along each mapped light's axes, of the points a frame sees, found chunk by
/// chunk of its pixels (see [`Shader::frame_bounds`](crate::Shader::frame_bounds)).
#[derive(Clone, Debug)]
pub struct FrameBounds {
    axes: Vec<[Vec3; 3]>,
    /// Per chunk, per light: the box (low, high corners) of the chunk's points.
    boxes: Vec<Vec<(Vec3, Vec3)>>,
}

/// One chunk's share of a [`FrameBounds`].
#[derive(Debug)]
pub struct BoundsSlot<'a> {
    axes: &'a [[Vec3; 3]],
    boxes: &'a mut [(Vec3, Vec3)],
}

impl FrameBounds {
    /// Empty boxes for `chunks` chunks, along each of `axes` (one set a light).
    pub(crate) fn new(axes: Vec<[Vec3; 3]>, chunks: usize) -> Self {
        FrameBounds {
            boxes: vec![vec![EMPTY_BOX; axes.len()]; chunks],
            axes,
        }
    }

    /// How many lights' boxes are found.
    pub(crate) fn lights(&self) -> usize {
        self.axes.len()
    }

    /// The chunks' slots, in order.
    pub fn slots(&mut self) -> Vec<BoundsSlot<'_>> {
        let axes = &self.axes;
        self.boxes
            .iter_mut()
            .map(|boxes| BoundsSlot { axes, boxes })
            .collect()
    }

    /// The box of light `i` over every chunk.
    pub(crate) fn merged(&self, i: usize) -> (Vec3, Vec3) {
        self.boxes.iter().map(|b| b[i]).fold(EMPTY_BOX, merge_boxes)
    }
}

impl BoundsSlot<'_> {
    /// Bounds the points of the chunk whose first pixel is `first` (its `rays` and `hits`):
    /// those of the frame's every third pixel (`BOUND_STRIDE`), as
    /// [`Shader::shade`](crate::Shader::shade) samples.
    pub fn add(mut self, first: usize, rays: &[Ray], hits: &[RayHit]) {
        self.add_hits(first, rays, hits);
    }

    /// [`BoundsSlot::add`] for a piece of a chunk, the frame's pixels from `first` on (their
    /// `rays` and `hits`): called on the pieces of a chunk in their order, the same boxes as
    /// on the whole chunk.
    #[inline(always)]
    pub(crate) fn add_hits(&mut self, first: usize, rays: &[Ray], hits: &[RayHit]) {
        let skip = (BOUND_STRIDE - first % BOUND_STRIDE) % BOUND_STRIDE;
        for (axes, (lo, hi)) in self.axes.iter().zip(self.boxes.iter_mut()) {
            let (mut l, mut h) = (lo.to_array(), hi.to_array());
            let mut k = skip;
            while let (Some(ray), Some(hit)) = (rays.get(k), hits.get(k)) {
                bound(&mut l, &mut h, ray, hit, *axes);
                k += BOUND_STRIDE;
            }
            (*lo, *hi) = (Vec3::new(l[0], l[1], l[2]), Vec3::new(h[0], h[1], h[2]));
        }
    }
}

/// Moves the box `lo`..`hi` (along `axes`) out to the point `ray` sees at `hit`, if any.
#[inline(always)]
fn bound(lo: &mut [f64; 3], hi: &mut [f64; 3], ray: &Ray, hit: &RayHit, [x, y, z]: [Vec3; 3]) {
    if !hit.distance.is_finite() {
        return;
    }
    let p = ray.origin + ray.direction.scale(hit.distance);
    // Comparisons rather than `min` and `max`, which also sort out NaN: a NaN
    // coordinate fails both, and is dropped as `min` and `max` drop it.
    for (k, c) in [p.dot(x), p.dot(y), p.dot(z)].into_iter().enumerate() {
        if c < lo[k] {
            lo[k] = c;
        }
        if c > hi[k] {
            hi[k] = c;
        }
    }
}

/// The box of no point (low, high corners): low above high on every axis, so that merging
/// any box into it gives that box.
const EMPTY_BOX: (Vec3, Vec3) = (
    Vec3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY),
    Vec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY),
);

/// The smallest box holding two boxes (low, high corners).
fn merge_boxes((lo, hi): (Vec3, Vec3), (a, b): (Vec3, Vec3)) -> (Vec3, Vec3) {
    (
        Vec3::new(lo.x.min(a.x), lo.y.min(a.y), lo.z.min(a.z)),
        Vec3::new(hi.x.max(b.x), hi.y.max(b.y), hi.z.max(b.z)),
    )
}

/// The box, along `axes`, of the points every [`BOUND_STRIDE`]-th of `rays` and `hits`
/// sees, from the first (low above high when none is seen).
fn sampled_bounds(rays: &[Ray], hits: &[RayHit], axes: [Vec3; 3]) -> (Vec3, Vec3) {
    let (mut lo, mut hi) = (EMPTY_BOX.0.to_array(), EMPTY_BOX.1.to_array());
    for (ray, hit) in rays.iter().zip(hits).step_by(BOUND_STRIDE) {
        bound(&mut lo, &mut hi, ray, hit, axes);
    }
    (
        Vec3::new(lo[0], lo[1], lo[2]),
        Vec3::new(hi[0], hi[1], hi[2]),
    )
}

/// The box, along `axes`, of the points every [`BOUND_STRIDE`]-th pixel of a frame sees
/// (`rays` and their `hits`), as (low, high) corners (low above high when none is seen):
/// each chunk of `passes` bounds its pixels and the boxes are merged (minima and maxima, so
/// the same box at every thread count).
pub(crate) fn seen_bounds(
    passes: &Passes<'_, '_>,
    rays: &[Ray],
    hits: &[RayHit],
    axes: [Vec3; 3],
) -> (Vec3, Vec3) {
    // Chunks of whole strides, so that the pixels sampled are those of one pass.
    let chunk = (passes.chunk_len(rays.len()).div_ceil(BOUND_STRIDE) * BOUND_STRIDE).max(1);
    let mut boxes = vec![EMPTY_BOX; rays.len().div_ceil(chunk)];
    let chunks: Vec<_> = rays
        .chunks(chunk)
        .zip(hits.chunks(chunk))
        .zip(boxes.iter_mut())
        .collect();
    passes.run(chunks, |((rays, hits), bounds)| {
        *bounds = sampled_bounds(rays, hits, axes);
    });
    boxes.into_iter().fold(EMPTY_BOX, merge_boxes)
}

/// The rotation whose matrix has columns `x`, `y`, `z` (a right-handed orthonormal frame).
fn frame_rotation(x: Vec3, y: Vec3, z: Vec3) -> Quat {
    let (m00, m11, m22) = (x.x, y.y, z.z);
    let trace = m00 + m11 + m22;
    let q = if trace > 0.0 {
        let s = (trace + 1.0).sqrt() * 2.0;
        Quat::new((y.z - z.y) / s, (z.x - x.z) / s, (x.y - y.x) / s, 0.25 * s)
    } else if m00 > m11 && m00 > m22 {
        let s = (1.0 + m00 - m11 - m22).sqrt() * 2.0;
        Quat::new(0.25 * s, (y.x + x.y) / s, (z.x + x.z) / s, (y.z - z.y) / s)
    } else if m11 > m22 {
        let s = (1.0 + m11 - m00 - m22).sqrt() * 2.0;
        Quat::new((y.x + x.y) / s, 0.25 * s, (z.y + y.z) / s, (z.x - x.z) / s)
    } else {
        let s = (1.0 + m22 - m00 - m11).sqrt() * 2.0;
        Quat::new((z.x + x.z) / s, (z.y + y.z) / s, 0.25 * s, (x.y - y.x) / s)
    };
    q.normalized()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frames_rotation_turns_the_axes_onto_it() {
        for d in [
            Vec3::new(-0.5, 0.1, -0.9),
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.3, -0.8, 0.2),
        ] {
            let x = d.normalized();
            let a = if x.z.abs() < 0.9 {
                Vec3::new(0.0, 0.0, 1.0)
            } else {
                Vec3::new(1.0, 0.0, 0.0)
            };
            let y = a.cross(x).normalized();
            let z = x.cross(y);
            let q = frame_rotation(x, y, z);
            for (axis, want) in [
                (Vec3::new(1.0, 0.0, 0.0), x),
                (Vec3::new(0.0, 1.0, 0.0), y),
                (Vec3::new(0.0, 0.0, 1.0), z),
            ] {
                assert!((q.rotate(axis) - want).length() < 1e-12, "{d:?}");
            }
        }
    }

    #[test]
    fn bounds_found_chunk_by_chunk_are_those_of_the_whole_frame() {
        // 1,000 pixels' rays from one origin, a few misses, along two lights' axes.
        let o = Vec3::new(1.0, -2.0, 0.5);
        let rays: Vec<Ray> = (0..1000)
            .map(|k| {
                let a = k as f64 * 0.37;
                Ray {
                    origin: o,
                    direction: Vec3::new(a.cos(), a.sin(), 0.3 * (a * 0.7).sin()).normalized(),
                }
            })
            .collect();
        let hits: Vec<RayHit> = (0..1000)
            .map(|k| RayHit {
                distance: if k % 7 == 3 {
                    f64::INFINITY
                } else {
                    1.0 + (k as f64 * 1.3).sin().abs() * 20.0
                },
                ..RayHit::MISS
            })
            .collect();
        let lights = [Vec3::new(0.5, 0.3, -1.0), Vec3::new(-0.2, 0.9, -0.4)];
        let axes: Vec<[Vec3; 3]> = lights
            .iter()
            .map(|&direction| MapFrame::along(direction).expect("a direction").axes)
            .collect();
        for chunk in [1, 2, 3, 4, 7, 64, 1000, 1024] {
            let chunks = rays.len().div_ceil(chunk);
            let mut bounds = FrameBounds::new(axes.clone(), chunks);
            let slots = bounds.slots();
            for ((k, slot), (r, h)) in slots
                .into_iter()
                .enumerate()
                .zip(rays.chunks(chunk).zip(hits.chunks(chunk)))
            {
                slot.add(k * chunk, r, h);
            }
            // The same chunks bounded piece by piece as they are shaded.
            let mut pieces = FrameBounds::new(axes.clone(), chunks);
            for ((k, mut slot), (r, h)) in pieces
                .slots()
                .into_iter()
                .enumerate()
                .zip(rays.chunks(chunk).zip(hits.chunks(chunk)))
            {
                let mut at = 0;
                while at < r.len() {
                    let end = (at + 1 + (k + at) % 7).min(r.len());
                    slot.add_hits(k * chunk + at, &r[at..end], &h[at..end]);
                    at = end;
                }
            }
            for (i, a) in axes.iter().enumerate() {
                let whole = sampled_bounds(&rays, &hits, *a);
                assert!(whole.0.x < whole.1.x);
                assert_eq!(bounds.merged(i), whole, "chunks of {chunk}, light {i}");
                assert_eq!(
                    pieces.merged(i),
                    whole,
                    "pieces, chunks of {chunk}, light {i}"
                );
            }
        }
    }

    /// A 10 x 10 map straight down (one texel per metre) over a floor 1,000 m below its
    /// plane, with a block 1 m above the floor over texels 0..5 of every row.
    fn map() -> ShadowMap {
        let x = Vec3::new(0.0, 0.0, -1.0);
        let y = Vec3::new(1.0, 0.0, 0.0).cross(x).normalized();
        let z = x.cross(y);
        let mut depths = vec![1000.0f32; 100];
        for row in depths.chunks_mut(10) {
            row[..5].fill(999.0);
        }
        ShadowMap {
            light: 0,
            origin: Vec3::new(0.0, 0.0, 1000.0),
            x,
            y,
            z,
            width: 10,
            height: 10,
            scale: 1.0,
            depths,
        }
    }

    /// Whether the light reaches `p` on a surface of slope `slope`, point by point as the
    /// module docs say it (the reference for the lanes).
    fn reference(m: &ShadowMap, p: Vec3, slope: Slope) -> Option<bool> {
        let r = p - m.origin;
        let (w, h) = (m.width as f64, m.height as f64);
        let u = -r.dot(m.y) * m.scale + w / 2.0 - 0.5;
        let v = -r.dot(m.z) * m.scale + h / 2.0 - 0.5;
        if !(u >= 0.0 && v >= 0.0 && u < w - 1.0 && v < h - 1.0) {
            return None;
        }
        let (i, j) = (u.floor(), v.floor());
        let mut occluded = 0;
        for (di, dj) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
            let t = m.depths[(j + dj) as usize * m.width + (i + di) as usize];
            let own = r.dot(m.x) + slope.du * (i + di - u) + slope.dv * (j + dj - v);
            if f64::from(t) < own - MAP_MARGIN {
                occluded += 1;
            }
        }
        match occluded {
            0 => Some(true),
            4 => Some(false),
            _ => None,
        }
    }

    /// [`map`] over rough ground (depths 999 to 1001 m), and the random numbers in [0, 1)
    /// of `seed` that made it, for more.
    fn rough(seed: u64) -> (ShadowMap, impl FnMut() -> f64) {
        let mut m = map();
        let mut seed = seed;
        let mut random = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for d in &mut m.depths {
            *d = 999.0 + 2.0 * random() as f32;
        }
        (m, random)
    }

    /// Counts a look-up's result in `seen`: lit, shadowed, left to a ray.
    fn tally(seen: &mut [usize; 3], reached: Option<bool>) {
        seen[match reached {
            Some(true) => 0,
            Some(false) => 1,
            None => 2,
        }] += 1;
    }

    #[test]
    fn points_looked_up_in_lanes_are_looked_up_one_by_one() {
        // A map over rough ground (depths 999 to 1001 m) and points on tilted surfaces
        // near it: inside, outside, on texel edges, NaN.
        let (m, mut random) = rough(7);
        let mut seen = [0usize; 3];
        for round in 0..2000 {
            let n = Vec3::new(random() - 0.5, random() - 0.5, 1.0).normalized();
            let slope = m.slope(n).expect("facing the light");
            let points: [Vec3; 4] = std::array::from_fn(|k| {
                let (a, b) = (random() * 12.0 - 6.0, random() * 12.0 - 6.0);
                let edge = if k == 1 { a.round() } else { a };
                match (round % 50, k) {
                    (0, 3) => Vec3::new(f64::NAN, b, 0.0),
                    _ => Vec3::new(b, edge, random() * 2.0 - 1.0),
                }
            });
            let lanes = m.reaches_lanes(
                &[
                    points.map(|p| p.x),
                    points.map(|p| p.y),
                    points.map(|p| p.z),
                ],
                slope,
            );
            for (p, got) in points.iter().zip(lanes) {
                let want = reference(&m, *p, slope);
                assert_eq!(got, want, "{p:?} {n:?}");
                tally(&mut seen, want);
            }
        }
        assert!(seen.iter().all(|&k| k > 100), "{seen:?}");
    }

    #[test]
    fn four_pixels_looked_up_in_avx2_are_looked_up_as_in_the_baseline_build() {
        // Rays from above a rough map at many angles and distances, a few NaN, the
        // surface's normal tilted at random: the AVX2 look-up against the baseline's, and
        // the baseline's against the reference at the lifted points.
        let (m, mut random) = rough(11);
        let mut seen = [0usize; 3];
        for round in 0..3000 {
            let n = Vec3::new(random() - 0.5, random() - 0.5, 1.0).normalized();
            let slope = m.slope(n).expect("facing the light");
            let rays: Vec<Ray> = (0..4)
                .map(|_| Ray {
                    origin: Vec3::new(random() * 14.0 - 7.0, random() * 14.0 - 7.0, 2.0),
                    direction: Vec3::new(random() - 0.5, random() - 0.5, -1.0).normalized(),
                })
                .collect();
            let t = [0, 1, 2, 3].map(|k| match (round % 40, k) {
                (0, 2) => f64::NAN,
                _ => 1.0 + random() * 2.5,
            });
            let four = [&rays[0], &rays[1], &rays[2], &rays[3]];
            let baseline = m.reaches_four(four, t, n, slope, false);
            assert_eq!(
                m.reaches_four(four, t, n, slope, true),
                baseline,
                "{rays:?} {t:?}"
            );
            for ((ray, t), got) in rays.iter().zip(t).zip(baseline) {
                let p = ray.origin + ray.direction.scale(t);
                let want = reference(&m, p + n.scale(1e-3 + 2e-4 * t), slope);
                assert_eq!(got, want);
                tally(&mut seen, want);
            }
        }
        assert!(seen.iter().all(|&k| k > 100), "{seen:?}");
    }

    /// The floor point under texel column `i` (at the texel centre plus `du`) of row 4.
    fn floor_at(m: &ShadowMap, i: f64, du: f64) -> Vec3 {
        // Texel centre i is at -(i + 0.5 - 5) along y, row 4's centre -(4.5 - 5) along z.
        m.origin + m.y.scale(-(i + 0.5 + du - 5.0)) + m.z.scale(0.5) + m.x.scale(1000.0 - 1e-3)
    }

    #[test]
    fn the_map_tells_lit_and_shadowed_points_and_leaves_edges_to_rays() {
        let m = map();
        let up = Vec3::new(0.0, 0.0, 1.0);
        // Under the block: in shadow; beyond it: lit; between texels 4 and 5: a ray decides.
        assert_eq!(m.reaches(floor_at(&m, 1.0, 0.2), up), Some(false));
        assert_eq!(m.reaches(floor_at(&m, 7.0, 0.2), up), Some(true));
        assert_eq!(m.reaches(floor_at(&m, 4.0, 0.2), up), None);
        // Outside the map, or the light grazing the surface: a ray decides.
        assert_eq!(m.reaches(floor_at(&m, 9.6, 0.0), up), None);
        assert_eq!(
            m.reaches(
                floor_at(&m, 7.0, 0.2),
                Vec3::new(1.0, 0.0, 0.01).normalized()
            ),
            None
        );
        // A ramp (z = 0.4 y) is compared with its own plane: lit, not shadowed by itself,
        // though its texels downhill are nearer to the light than the point.
        let n = Vec3::new(0.0, -0.4, 1.0).normalized();
        let mut ramp = map();
        for (k, d) in ramp.depths.iter_mut().enumerate() {
            let y = -((k % 10) as f64 + 0.5 - 5.0);
            *d = (1000.0 - 0.4 * y) as f32;
        }
        // Between texels 6 (uphill) and 7.
        let p = Vec3::new(0.5, -2.0, -0.8) + n.scale(1e-3);
        assert_eq!(ramp.reaches(p, n), Some(true));
        // Compared with a level plane instead, its uphill texels would shadow it.
        assert_eq!(ramp.reaches(p, up), None);
    }
}
