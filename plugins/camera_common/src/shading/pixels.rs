//! A chunk of a frame's pixels shaded (see the [module docs](super)): the pixels that see
//! one face from one side, up to [`RUN`], shaded together light by light; a directional
//! light's shadow map looked up four pixels at a time, a shadow ray cast where it cannot
//! tell, the chunk's shadow rays in one batch.

use super::{SHADOW_DISTANCE, SurfaceCache};
use crate::shadow_map::{BoundsSlot, ShadowMap, Slope, lifted};
use sim_plugin_api::{
    EntityId, Light, LightKind, Ray, RayCastOptions, RayHit, SceneInfo, Vec3, WorldRef,
};
use std::sync::atomic::AtomicBool;

/// One pending shadow test: the pixel (in its chunk), the light's contribution if
/// unoccluded, and how far the light is.
#[derive(Copy, Clone, Debug)]
struct Pending {
    pixel: u32,
    contribution: [f32; 3],
    limit: f64,
}

/// The shadow tests of one chunk of pixels, kept between frames.
#[derive(Clone, Debug, Default)]
pub(super) struct ShadowBatch {
    pending: Vec<Pending>,
    rays: Vec<Ray>,
    hits: Vec<RayHit>,
}

/// The light arriving at a point (before shadows), and the unit vector and distance towards
/// the light.
type Arriving = ([f32; 3], Vec3, f64);

/// The light from `light` reaching point `p` with normal `n` (before shadows), and the unit
/// vector and distance towards the light.
#[inline]
fn incoming(light: &Light, p: Vec3, n: Vec3) -> Option<Arriving> {
    let (l, dist, atten) = if light.kind == LightKind::DIRECTIONAL {
        (-light.direction, SHADOW_DISTANCE, 1.0)
    } else {
        let to = light.pose.position - p;
        let d = to.length();
        if (light.range > 0.0 && d > light.range) || d <= 0.0 {
            return None;
        }
        let den = light.constant + light.linear * d + light.quadratic * d * d;
        let mut a = if den > 0.0 { 1.0 / den } else { 1.0 };
        let l = to.scale(1.0 / d);
        if light.kind == LightKind::SPOT {
            let cos = (-l).dot(light.direction);
            let (ci, co) = (light.spot_inner_angle.cos(), light.spot_outer_angle.cos());
            if cos < co {
                return None;
            }
            if cos < ci {
                a *= ((cos - co) / (ci - co)).powf(light.spot_falloff);
            }
        }
        (l, d, a)
    };
    let lambert = n.dot(l);
    if lambert <= 0.0 {
        return None;
    }
    let s = (light.intensity * atten * lambert) as f32;
    let c = light.diffuse;
    Some(([c[0] * s, c[1] * s, c[2] * s], l, dist))
}

/// What a directional light gives the surfaces of one normal (a bit pattern): the light
/// arriving ([`incoming`], which for such a light does not depend on the point) and its
/// shadow map's slope.
#[derive(Clone, Copy, Default)]
struct Facing {
    normal: Option<[u64; 3]>,
    arriving: Option<Arriving>,
    slope: Option<Slope>,
}

/// Pixels shaded together at most: a run of pixels that see one face.
const RUN: usize = 64;

/// A run's pixels whose shadow-map lookups are made together
/// ([`ShadowMap::reaches_four`]).
const LANES: usize = 4;

/// A run of a chunk's pixels that see one face from one side: the first's index in the
/// chunk, their rays and hits, the face's diffuse colour and its normal turned to face the
/// rays.
struct Run<'r> {
    first: usize,
    rays: &'r [Ray],
    hits: &'r [RayHit],
    colour: [f32; 4],
    normal: Vec3,
}

/// One chunk of a frame's pixels: their rays and hits, their colours to write, and the
/// chunk's buffers of shadow rays.
pub(super) struct Chunk<'c> {
    pub(super) rays: &'c [Ray],
    pub(super) hits: &'c [RayHit],
    pub(super) out: &'c mut [[f32; 3]],
    pub(super) batch: &'c mut ShadowBatch,
    /// Where the chunk's points are bounded as it is shaded: its first pixel's index in
    /// the frame and its slot of the frame's bounds.
    pub(super) bounds: Option<(usize, BoundsSlot<'c>)>,
}

/// Whether shading runs the baseline build even where the CPU has AVX2 (for the test that
/// compares the two).
#[cfg(test)]
pub(crate) static BASELINE: AtomicBool = AtomicBool::new(false);

#[inline]
fn baseline() -> bool {
    #[cfg(test)]
    return BASELINE.load(std::sync::atomic::Ordering::Relaxed);
    #[cfg(not(test))]
    false
}

/// What shading reads of a frame, shared by its chunks.
pub(super) struct Frame<'a> {
    pub(super) scene: &'a SceneInfo,
    pub(super) lights: &'a [Light],
    /// The shadow maps of directional lights.
    pub(super) maps: &'a [ShadowMap],
    pub(super) surfaces: &'a SurfaceCache,
    /// Set when a pixel sees a surface `surfaces` does not know.
    pub(super) unknown: &'a AtomicBool,
    /// The options of shadow rays (their length set per batch).
    pub(super) shadow: RayCastOptions,
}

impl Frame<'_> {
    /// Shades one chunk of pixels into its `out` (as long as its `rays`), casting its shadow
    /// rays in one batch with the buffers of its `batch`; compiled for AVX2 as well, and run
    /// so where the CPU has it.
    pub(super) fn shade(&self, world: &WorldRef<'_>, chunk: Chunk<'_>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && !baseline() {
            // SAFETY: the CPU running this has AVX2 (detected just above), the one feature
            // `shade_avx2` enables beyond the build's.
            #[allow(unsafe_code)]
            return unsafe { self.shade_avx2(world, chunk) };
        }
        self.shade_in::<false>(world, chunk)
    }

    /// [`Frame::shade`] compiled for AVX2, its shadow maps looked up in AVX2 vectors: the
    /// same operations, so the same colours.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn shade_avx2(&self, world: &WorldRef<'_>, chunk: Chunk<'_>) {
        self.shade_in::<true>(world, chunk)
    }

    /// [`Frame::shade`], with the shadow maps looked up in AVX2 vectors where `AVX2` (see
    /// [`ShadowMap::reaches_four`]).
    #[inline(always)]
    fn shade_in<const AVX2: bool>(&self, world: &WorldRef<'_>, chunk: Chunk<'_>) {
        let Chunk {
            rays,
            hits,
            out,
            batch,
            mut bounds,
        } = chunk;
        batch.pending.clear();
        batch.rays.clear();
        let n = rays.len().min(hits.len()).min(out.len());
        let (rays, hits, out) = (&rays[..n], &hits[..n], &mut out[..n]);
        let bg = self.scene.background;
        let mut max_limit: f64 = 0.0;
        let mut last = (EntityId::NONE, [0.0f32; 4]);
        // Each light's shadow map, found once for the chunk.
        let map_of: Vec<Option<&ShadowMap>> = (0..self.lights.len())
            .map(|li| self.maps.iter().find(|m| m.light == li))
            .collect();
        // What a directional light gives a surface depends on its normal alone: kept per
        // light while the runs' normals stay the same (a flat surface's pixels).
        let mut facing: Vec<Facing> = vec![Facing::default(); self.lights.len()];
        // The light a run's pixels get through the shadow maps.
        let mut mapped = [[0.0f32; 3]; RUN];
        let mut k = 0;
        while k < n {
            let hit = &hits[k];
            if !hit.distance.is_finite() {
                // Misses come in runs too (the sky).
                out[k] = [bg[0], bg[1], bg[2]];
                k += 1;
                while k < n && !hits[k].distance.is_finite() {
                    out[k] = [bg[0], bg[1], bg[2]];
                    k += 1;
                }
                continue;
            }
            // Neighbouring pixels mostly hit the same entity.
            if hit.entity != last.0 {
                last = (
                    hit.entity,
                    self.surfaces.looked_up(hit.entity, self.unknown),
                );
            }
            // The run: the pixels from this one on that see the same face (entity and
            // normal) from the same side, shaded together.
            let away = |k: usize| hits[k].normal.dot(rays[k].direction) > 0.0;
            let side = away(k);
            let mut end = k + 1;
            while end < n && end - k < RUN && same_face(hit, &hits[end]) && away(end) == side {
                end += 1;
            }
            let run = Run {
                first: k,
                rays: &rays[k..end],
                hits: &hits[k..end],
                colour: last.1,
                normal: if side { -hit.normal } else { hit.normal },
            };
            if let Some((first, slot)) = &mut bounds {
                slot.add_hits(*first + k, &rays[k..end], &hits[k..end]);
            }
            let limit = self.shade_run::<AVX2>(
                run,
                (&map_of, &mut facing),
                batch,
                &mut out[k..end],
                &mut mapped,
            );
            max_limit = max_limit.max(limit);
            k = end;
        }
        if batch.rays.is_empty() {
            return;
        }
        // A light is reached when nothing is hit nearer than it: a ray's result within its
        // own limit does not depend on how far the batch looks.
        let options = RayCastOptions {
            max_distance: max_limit,
            ..self.shadow
        };
        world.cast_ray_batch(&batch.rays, &options, &mut batch.hits);
        for (p, h) in batch.pending.iter().zip(&batch.hits) {
            if h.distance >= p.limit {
                let px = &mut out[p.pixel as usize];
                for (a, b) in px.iter_mut().zip(p.contribution) {
                    *a += b;
                }
            }
        }
    }

    /// Shades a run of pixels that see one face (`run`) into `out`, light by light, each
    /// pixel's light added in the lights' order (`out` holds the light until the run's
    /// colour multiplies it, `mapped` the light through shadow maps); pushes the shadow
    /// rays it needs onto `batch` and returns the farthest light they look for (0 for
    /// none). `map_of` holds each light's shadow map, `facing` what each gives the last
    /// normal.
    #[inline(always)]
    fn shade_run<const AVX2: bool>(
        &self,
        run: Run<'_>,
        (map_of, facing): (&[Option<&ShadowMap>], &mut [Facing]),
        batch: &mut ShadowBatch,
        out: &mut [[f32; 3]],
        mapped: &mut [[f32; 3]; RUN],
    ) -> f64 {
        let Run {
            first,
            rays,
            hits,
            colour: c,
            normal: n,
        } = run;
        let m = rays.len().min(hits.len()).min(out.len()).min(RUN);
        let amb = self.scene.ambient;
        let shadows = self.scene.shadows;
        let (light, mapped) = (&mut out[..m], &mut mapped[..m]);
        light.fill([amb[0], amb[1], amb[2]]);
        mapped.fill([0.0; 3]);
        let mut max_limit: f64 = 0.0;
        let normal = [n.x.to_bits(), n.y.to_bits(), n.z.to_bits()];
        let point = |i: usize| rays[i].origin + rays[i].direction.scale(hits[i].distance);
        let start = |i: usize, p: Vec3| lifted(p, n, hits[i].distance);
        let mut shadow_ray = |i: usize, from: Vec3, (contribution, dir, dist): Arriving| {
            batch.rays.push(Ray {
                origin: from,
                direction: dir,
            });
            batch.pending.push(Pending {
                pixel: (first + i) as u32,
                contribution: tinted(contribution, c),
                limit: dist,
            });
            max_limit = max_limit.max(dist);
        };
        for ((l, map), f) in self.lights.iter().zip(map_of).zip(facing.iter_mut()) {
            let casts = shadows && l.cast_shadows;
            if l.kind != LightKind::DIRECTIONAL {
                for (i, total) in light.iter_mut().enumerate() {
                    let p = point(i);
                    let Some(arriving) = incoming(l, p, n) else {
                        continue;
                    };
                    if casts {
                        shadow_ray(i, start(i, p), arriving);
                    } else {
                        for (a, b) in total.iter_mut().zip(arriving.0) {
                            *a += b;
                        }
                    }
                }
                continue;
            }
            if f.normal != Some(normal) {
                *f = Facing {
                    normal: Some(normal),
                    arriving: incoming(l, point(0), n),
                    slope: map.and_then(|m| m.slope(n)),
                };
            }
            let Some(arriving) = f.arriving else {
                continue;
            };
            let contribution = arriving.0;
            if !casts {
                for total in light.iter_mut() {
                    for (a, b) in total.iter_mut().zip(contribution) {
                        *a += b;
                    }
                }
                continue;
            }
            let Some((map, slope)) = map.zip(f.slope) else {
                for i in 0..m {
                    shadow_ray(i, start(i, point(i)), arriving);
                }
                continue;
            };
            // The shadow map, looked up for `LANES` pixels at a time; a ray where it cannot
            // tell. The light of a lit pixel is added after the rest, as a shadow ray's is.
            let lit = tinted(contribution, c);
            for lane0 in (0..m).step_by(LANES) {
                let lanes = (m - lane0).min(LANES);
                // A run's last lanes repeat its last pixel.
                let i = [0, 1, 2, 3].map(|j| lane0 + j.min(lanes - 1));
                let reached = map.reaches_four(
                    i.map(|i| &rays[i]),
                    i.map(|i| hits[i].distance),
                    n,
                    slope,
                    AVX2,
                );
                for (j, (reached, i)) in reached.into_iter().zip(i).take(lanes).enumerate() {
                    match reached {
                        Some(true) => {
                            for (a, b) in mapped[lane0 + j].iter_mut().zip(lit) {
                                *a += b;
                            }
                        }
                        Some(false) => {}
                        None => shadow_ray(i, start(i, point(i)), arriving),
                    }
                }
            }
        }
        for (px, extra) in light.iter_mut().zip(mapped.iter()) {
            *px = tinted(*px, c);
            if *extra != [0.0; 3] {
                for (a, b) in px.iter_mut().zip(extra) {
                    *a += b;
                }
            }
        }
        max_limit
    }
}

/// `light` on a surface of diffuse colour `c`.
#[inline(always)]
fn tinted(light: [f32; 3], c: [f32; 4]) -> [f32; 3] {
    [light[0] * c[0], light[1] * c[1], light[2] * c[2]]
}

/// Whether two hits are on the same face: the same entity and normal (both hits).
#[inline(always)]
fn same_face(a: &RayHit, b: &RayHit) -> bool {
    b.distance.is_finite()
        && a.entity == b.entity
        && a.normal.x.to_bits() == b.normal.x.to_bits()
        && a.normal.y.to_bits() == b.normal.y.to_bits()
        && a.normal.z.to_bits() == b.normal.z.to_bits()
}
