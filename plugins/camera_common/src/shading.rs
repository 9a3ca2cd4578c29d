//! Colours of the pixels: Lambert shading of the material diffuse colours by the world's
//! lights, plus ambient light, with shadows by a second ray towards each shadow-casting light.
//!
//! For a pixel whose ray hits a visual with diffuse colour `c` and unit normal `n` (turned to
//! face the camera) at point `p`:
//!
//! `colour = c · (ambient + Σ_lights intensity · diffuse_light · max(0, n·l) · attenuation · lit)`
//!
//! - `l` is the unit vector towards the light: `-direction` for a directional light, towards
//!   its position for point and spot lights;
//! - attenuation is 1 for directional lights; for point and spot lights
//!   `1 / (constant + linear·d + quadratic·d²)` (1 where that sum is not positive) within the
//!   light's range `d ≤ range` (unlimited for a range ≤ 0), 0 beyond,
//!   times, for spot lights, 1 inside the inner angle, 0 outside the outer angle and
//!   `((cos θ − cos outer) / (cos inner − cos outer))^falloff` between;
//! - `lit` is 0 when the light casts shadows (`<cast_shadows>` and the scene's `<shadows>`)
//!   and a ray from `p` towards the light hits a visual before reaching it, else 1. The ray
//!   starts 1 mm + 0.02 % of the hit distance off the surface along `n`, so that curved
//!   surfaces (whose hits rapier computes in single precision) do not shadow themselves.
//!   The shadow rays of each chunk of pixels are cast in one batch.
//!
//! A frame is shaded in chunks of pixels on the engine's sensor threads (one chunk on one
//! thread, see [`simcore_plugin_common::passes`]): the scene, the lights and the diffuse colours of the
//! entities hit are read once per frame before ([`Shader::prepare`]) and only read inside
//! the chunks; each chunk shades its pixels, casts its own shadow rays and adds the light
//! of those that reach it.
//!
//! Colours are linear, clamped to [0, 1] when encoded (no gamma, no specular term, alpha
//! ignored). Pixels without a hit get the scene's background colour. Without the engine's
//! scene extension the scene defaults apply and there are no lights (ambient only).

use sim_plugin_api::{
    EntityId, Light, LightKind, Ray, RayCastOptions, RayHit, RayTarget, SceneInfo, Vec3, WorldRef,
    abi_stable::std_types::RVec,
};
use simcore_plugin_common::EntitySurfaces;
use simcore_plugin_common::Passes;

/// How far a shadow ray towards a directional light looks for an occluder, m.
pub const SHADOW_DISTANCE: f64 = 1000.0;

/// Diffuse colours of the entities hit, looked up in batches and kept.
#[derive(Clone, Debug)]
pub struct SurfaceCache(EntitySurfaces<[f32; 4]>);

impl Default for SurfaceCache {
    fn default() -> Self {
        SurfaceCache(EntitySurfaces::new(|s| s.diffuse))
    }
}

impl SurfaceCache {
    /// Looks up, in one `surfaces` call, every entity in `hits` not seen before.
    pub fn fill(&mut self, hits: &[RayHit], world: &WorldRef<'_>) {
        self.0.fill(hits, world);
    }

    /// The diffuse colour of `entity` (black when unknown).
    #[inline]
    pub fn diffuse(&self, entity: EntityId) -> [f32; 4] {
        self.0.get(entity).unwrap_or([0.0; 4])
    }

    /// Forgets everything (entities may have been replaced).
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

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
struct ShadowBatch {
    pending: Vec<Pending>,
    rays: Vec<Ray>,
    hits: Vec<RayHit>,
}

/// Shades the hits of a frame into linear RGB colours. Keeps its buffers between frames.
#[derive(Clone, Debug, Default)]
pub struct Shader {
    scene: SceneInfo,
    lights: RVec<Light>,
    surfaces: SurfaceCache,
    /// One batch of shadow tests per chunk of pixels.
    batches: Vec<ShadowBatch>,
}

/// The light from `light` reaching point `p` with normal `n` (before shadows), and the unit
/// vector and distance towards the light.
#[inline]
fn incoming(light: &Light, p: Vec3, n: Vec3) -> Option<([f32; 3], Vec3, f64)> {
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

impl Shader {
    /// The scene of the last frame.
    pub fn scene(&self) -> &SceneInfo {
        &self.scene
    }

    /// The diffuse colours seen so far.
    pub fn surfaces(&self) -> &SurfaceCache {
        &self.surfaces
    }

    /// Forgets cached surfaces.
    pub fn reset(&mut self) {
        self.surfaces.clear();
    }

    /// Reads the scene and lights and looks up the surfaces of `hits` (call once per frame
    /// before [`Shader::shade`]).
    pub fn prepare(&mut self, world: &WorldRef<'_>, hits: &[RayHit]) {
        match world.scene() {
            Some(s) => {
                self.scene = s.scene();
                s.lights(&mut self.lights);
            }
            None => {
                self.scene = SceneInfo::default();
                self.lights.clear();
            }
        }
        self.surfaces.fill(hits, world);
    }

    /// Shades the hits of rays `rays` (the rays themselves: origin and unit direction in the
    /// world; `hits[k].distance` from `rays[k].origin`) into `out` (one linear RGB colour per
    /// pixel), in the chunks of pixels of `passes`, each casting its shadow
    /// rays in one batch.
    pub fn shade(
        &mut self,
        passes: &Passes<'_, '_>,
        rays: &[Ray],
        hits: &[RayHit],
        out: &mut Vec<[f32; 3]>,
    ) {
        let n = rays.len().min(hits.len());
        out.clear();
        out.resize(n, [0.0; 3]);
        let chunk = passes.chunk_len(n);
        let count = n.div_ceil(chunk);
        if self.batches.len() < count {
            self.batches.resize_with(count, ShadowBatch::default);
        }
        let world = passes.world();
        let frame = Frame {
            scene: &self.scene,
            lights: &self.lights,
            surfaces: &self.surfaces,
            shadow: RayCastOptions {
                max_distance: 0.0,
                target: RayTarget::VISUAL,
                exclude_model: EntityId::NONE,
            }
            .without_normals_in(world),
        };
        let chunks: Vec<_> = rays[..n]
            .chunks(chunk)
            .zip(hits[..n].chunks(chunk))
            .zip(out.chunks_mut(chunk))
            .zip(self.batches.iter_mut())
            .collect();
        passes.run(chunks, |(((rays, hits), out), batch)| {
            frame.shade(world, rays, hits, out, batch);
        });
    }
}

/// What shading reads of a frame, shared by its chunks.
struct Frame<'a> {
    scene: &'a SceneInfo,
    lights: &'a [Light],
    surfaces: &'a SurfaceCache,
    /// The options of shadow rays (their length set per batch).
    shadow: RayCastOptions,
}

impl Frame<'_> {
    /// Shades one chunk of pixels into `out` (as long as `rays`), casting its shadow rays
    /// in one batch with the buffers of `batch`.
    fn shade(
        &self,
        world: &WorldRef<'_>,
        rays: &[Ray],
        hits: &[RayHit],
        out: &mut [[f32; 3]],
        batch: &mut ShadowBatch,
    ) {
        batch.pending.clear();
        batch.rays.clear();
        let bg = self.scene.background;
        let amb = self.scene.ambient;
        let shadows = self.scene.shadows;
        let mut max_limit: f64 = 0.0;
        let mut last = (EntityId::NONE, [0.0f32; 4]);
        for (k, ((ray, hit), px)) in rays.iter().zip(hits).zip(out.iter_mut()).enumerate() {
            if !hit.distance.is_finite() {
                *px = [bg[0], bg[1], bg[2]];
                continue;
            }
            // Neighbouring pixels mostly hit the same entity.
            if hit.entity != last.0 {
                last = (hit.entity, self.surfaces.diffuse(hit.entity));
            }
            let c = last.1;
            let mut n = hit.normal;
            if n.dot(ray.direction) > 0.0 {
                n = -n;
            }
            let p = ray.origin + ray.direction.scale(hit.distance);
            let mut light = [amb[0], amb[1], amb[2]];
            for l in self.lights {
                let Some((contribution, dir, dist)) = incoming(l, p, n) else {
                    continue;
                };
                if shadows && l.cast_shadows {
                    let lift = 1e-3 + 2e-4 * hit.distance;
                    batch.rays.push(Ray {
                        origin: p + n.scale(lift),
                        direction: dir,
                    });
                    batch.pending.push(Pending {
                        pixel: k as u32,
                        contribution: [
                            contribution[0] * c[0],
                            contribution[1] * c[1],
                            contribution[2] * c[2],
                        ],
                        limit: dist,
                    });
                    max_limit = max_limit.max(dist);
                } else {
                    for (a, b) in light.iter_mut().zip(contribution) {
                        *a += b;
                    }
                }
            }
            *px = [light[0] * c[0], light[1] * c[1], light[2] * c[2]];
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
}
