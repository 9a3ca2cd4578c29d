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
//! With shadow maps ([`Shader::set_shadow_maps`], on an engine with the
//! [`raster`](sim_plugin_api::raster) extension) the shadows of directional lights are
//! looked up first in a map rendered per frame and light: the depths along the light of the
//! surfaces nearest to it, over the box of the frame's points as the light sees them (of the
//! last frame's points for a frame shaded as it is cast, [`Shader::as_cast`]), about
//! one texel per pixel. A point is lit when none of the four texels around it holds a
//! surface nearer to the light (by more than 0.5 mm) than the plane of the point's own
//! surface there, in shadow when all four do; otherwise (a shadow's edge, a contact, light
//! at less than 3° to the surface, a point outside the map) its shadow ray decides. Only an
//! occluder or a gap narrower than a texel can make the two disagree.
//!
//! A frame is shaded in chunks of pixels on the engine's sensor threads (one chunk on one
//! thread, see [`simcore_plugin_common::passes`]): the scene, the lights and the diffuse colours of the
//! entities hit are read once per frame before ([`Shader::prepare`]) and only read inside
//! the chunks; each chunk shades its pixels, casts its own shadow rays and adds the light
//! of those that reach it. A camera may shade each chunk as soon as it is cast instead
//! ([`Shader::as_cast`]), while its rays and hits are still in the cache, and bound its
//! points for the next frame's shadow maps in the same pass. Within a chunk, the
//! neighbouring pixels that see one face from one side (up to 64) are shaded together,
//! light by light, their shadow-map lookups four at a time: each pixel's colour is the
//! one it gets shaded alone.
//!
//! Colours are linear, clamped to [0, 1] when encoded (no gamma, no specular term, alpha
//! ignored). Pixels without a hit get the scene's background colour. Without the engine's
//! scene extension the scene defaults apply and there are no lights (ambient only).

use crate::shadow_map::{
    BoundsSlot, FrameBounds, MAP_SIDE, MAP_TEXELS_PER_PIXEL, MapFrame, ShadowMap, Slope,
    seen_bounds,
};
use sim_plugin_api::{
    EntityId, Light, LightKind, OrthoView, Pose, Ray, RayCastOptions, RayHit, RayTarget, SceneInfo,
    Vec3, WorldRef,
    abi_stable::std_types::{RSliceMut, RVec},
};
use simcore_plugin_common::EntitySurfaces;
use simcore_plugin_common::Passes;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

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

    /// The diffuse colour of `entity` (black for no entity, a miss); black with `missed` set
    /// when it was not looked up yet (the caller fills the cache and goes again).
    #[inline]
    pub fn looked_up(&self, entity: EntityId, missed: &AtomicBool) -> [f32; 4] {
        if entity.is_none() {
            return [0.0; 4];
        }
        self.0.get(entity).unwrap_or_else(|| {
            missed.store(true, Ordering::Relaxed);
            [0.0; 4]
        })
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

/// The shadow-test buffers of a frame's chunks, one a chunk, each locked by the chunk that
/// uses it (a clone starts without buffers).
#[derive(Debug, Default)]
struct Batches(Vec<Mutex<ShadowBatch>>);

impl Clone for Batches {
    fn clone(&self) -> Self {
        Batches::default()
    }
}

impl Batches {
    /// At least `n` batches.
    fn at_least(&mut self, n: usize) {
        if self.0.len() < n {
            self.0.resize_with(n, Mutex::default);
        }
    }
}

/// Shades the hits of a frame into linear RGB colours. Keeps its buffers between frames.
#[derive(Clone, Debug, Default)]
pub struct Shader {
    scene: SceneInfo,
    lights: RVec<Light>,
    surfaces: SurfaceCache,
    /// One batch of shadow tests per chunk of pixels.
    batches: Batches,
    /// Whether directional lights' shadows are first looked up in shadow maps.
    shadow_maps: bool,
    /// The shadow maps of the last frame (their buffers kept).
    maps: Vec<ShadowMap>,
    /// The boxes of the last frame's points along each mapped light (the light's index),
    /// over which the next frame shaded as it is cast renders its maps.
    last_boxes: Vec<(usize, (Vec3, Vec3))>,
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

    /// Whether the shadows of directional lights are first looked up in a shadow map that
    /// the engine's raster extension renders per frame (where it has one; off by default):
    /// a shadow ray is cast only where the map cannot tell (see the module docs).
    pub fn set_shadow_maps(&mut self, on: bool) {
        self.shadow_maps = on;
    }

    /// The directional lights whose shadows are mapped in `world` this frame (see
    /// [`Shader::set_shadow_maps`]), each with the frame of its map.
    fn mapped_lights(&self, world: &WorldRef<'_>) -> Vec<(usize, MapFrame)> {
        if !(self.shadow_maps && self.scene.shadows && world.raster().is_some()) {
            return Vec::new();
        }
        self.lights
            .iter()
            .enumerate()
            .filter(|(_, l)| l.kind == LightKind::DIRECTIONAL && l.cast_shadows)
            .filter_map(|(li, l)| Some((li, MapFrame::along(l.direction)?)))
            .collect()
    }

    /// The boxes of the points a frame of `chunks` chunks of pixels sees, for the shadow maps
    /// of this frame in `world`, to be found chunk by chunk
    /// ([`BoundsSlot::add`](crate::shadow_map::BoundsSlot::add)) as the frame is cast and
    /// handed to [`Shader::shade_bounded`]. Call after [`Shader::prepare`].
    pub fn frame_bounds(&self, world: &WorldRef<'_>, chunks: usize) -> FrameBounds {
        let axes: Vec<[Vec3; 3]> = self
            .mapped_lights(world)
            .iter()
            .map(|(_, f)| f.axes)
            .collect();
        FrameBounds::new(axes, chunks)
    }

    /// Renders the shadow map of every directional light that casts shadows, over the box
    /// of the points of `rays` and `hits` as the light sees them (`bounds`, when they were
    /// found as the frame was cast).
    fn render_maps(
        &mut self,
        passes: &Passes<'_, '_>,
        rays: &[Ray],
        hits: &[RayHit],
        bounds: Option<&FrameBounds>,
    ) {
        let mapped = self.mapped_lights(passes.world());
        let boxes: Vec<_> = mapped
            .iter()
            .enumerate()
            .map(|(i, (li, frame))| {
                let b = match bounds {
                    Some(b) if b.lights() > i => b.merged(i),
                    _ => seen_bounds(passes, rays, hits, frame.axes),
                };
                (*li, b)
            })
            .collect();
        self.render_maps_over(passes, rays.len(), mapped, &boxes);
        self.last_boxes = boxes;
    }

    /// Renders the shadow map of each of the `mapped` lights over its box in `boxes` (the
    /// same order), for a frame of `pixels` pixels.
    fn render_maps_over(
        &mut self,
        passes: &Passes<'_, '_>,
        pixels: usize,
        mapped: Vec<(usize, MapFrame)>,
        boxes: &[(usize, (Vec3, Vec3))],
    ) {
        let world = passes.world();
        let mut kept = std::mem::take(&mut self.maps);
        let Some(raster) = world.raster().filter(|_| !mapped.is_empty()) else {
            kept.clear();
            self.maps = kept;
            return;
        };
        let mut maps = Vec::new();
        for ((li, frame), (_, (lo, hi))) in mapped.into_iter().zip(boxes) {
            let (q, [x, y, z]) = (frame.rotation, frame.axes);
            let (lo, hi) = (*lo, *hi);
            if lo.x > hi.x {
                continue;
            }
            let (ea, eb) = ((hi.y - lo.y).max(1e-3), (hi.z - lo.z).max(1e-3));
            let texels = (pixels as f64 * MAP_TEXELS_PER_PIXEL).max(4096.0);
            let side = (MAP_SIDE - 2) as f64;
            let scale = (texels / (ea * eb)).sqrt().min(side / ea).min(side / eb);
            let (width, height) = (
                (ea * scale).ceil() as usize + 2,
                (eb * scale).ceil() as usize + 2,
            );
            let centre = y.scale((lo.y + hi.y) / 2.0) + z.scale((lo.z + hi.z) / 2.0);
            let origin = centre + x.scale(lo.x - SHADOW_DISTANCE - 1.0);
            let view = OrthoView {
                pose: Pose::new(origin, q),
                width: width as u32,
                height: height as u32,
                scale,
                depth: hi.x - lo.x + SHADOW_DISTANCE + 2.0,
            };
            let mut map = kept.pop().unwrap_or_default();
            // The last frame's buffer, each band set to "no surface" on its own thread
            // before it is rasterised.
            map.depths.resize(width * height, f32::INFINITY);
            let bands = passes.threads() * 4;
            let rows = height.div_ceil(bands).max(1);
            let chunks: Vec<_> = map.depths.chunks_mut(rows * width).enumerate().collect();
            passes.run(chunks, |(band, depths)| {
                depths.fill(f32::INFINITY);
                raster.depths(
                    &view,
                    (band * rows) as u32,
                    RSliceMut::from_mut_slice(depths),
                );
            });
            maps.push(ShadowMap {
                light: li,
                origin,
                x,
                y,
                z,
                width,
                height,
                scale,
                depths: std::mem::take(&mut map.depths),
            });
        }
        self.maps = maps;
    }

    /// Reads the scene and lights (call once per frame before [`Shader::shade`], which looks
    /// up the surfaces it meets for the first time).
    pub fn prepare(&mut self, world: &WorldRef<'_>) {
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
        self.shade_with(passes, rays, hits, out, None);
    }

    /// [`Shader::shade`] with the shadow maps' `bounds` found as the frame was cast (see
    /// [`Shader::frame_bounds`]) instead of in a pass of their own: the same colours.
    pub fn shade_bounded(
        &mut self,
        passes: &Passes<'_, '_>,
        rays: &[Ray],
        hits: &[RayHit],
        out: &mut Vec<[f32; 3]>,
        bounds: &FrameBounds,
    ) {
        self.shade_with(passes, rays, hits, out, Some(bounds));
    }

    fn shade_with(
        &mut self,
        passes: &Passes<'_, '_>,
        rays: &[Ray],
        hits: &[RayHit],
        out: &mut Vec<[f32; 3]>,
        bounds: Option<&FrameBounds>,
    ) {
        let n = rays.len().min(hits.len());
        // Every pixel is written by the shading below: a buffer of the frame's size is
        // reused as it is.
        out.resize(n, [0.0; 3]);
        let chunk = passes.chunk_len(n);
        let count = n.div_ceil(chunk);
        self.batches.at_least(count);
        let (rays, hits) = (&rays[..n], &hits[..n]);
        self.render_maps(passes, rays, hits, bounds);
        if self.shade_chunks(passes, rays, hits, out, chunk) {
            // The frame met surfaces not seen before (its first frames, new models): they
            // are looked up in one call and the frame shaded again.
            self.surfaces.fill(hits, passes.world());
            self.shade_chunks(passes, rays, hits, out, chunk);
        }
    }

    /// What shading reads of this frame in `world`, with `unknown` to set where a pixel
    /// meets a surface not looked up yet.
    fn frame<'a>(&'a self, world: &WorldRef<'_>, unknown: &'a AtomicBool) -> Frame<'a> {
        Frame {
            scene: &self.scene,
            lights: &self.lights,
            maps: &self.maps,
            surfaces: &self.surfaces,
            unknown,
            shadow: RayCastOptions {
                max_distance: 0.0,
                target: RayTarget::VISUAL,
                exclude_model: EntityId::NONE,
            }
            .without_normals_in(world),
        }
    }

    /// Prepares a frame of `pixels` pixels in `chunks` chunks to be shaded chunk by chunk as
    /// it is cast ([`AsCast::shade`]: each chunk's rays and hits are shaded while they are
    /// still in the cache) and renders its shadow maps over the boxes of the last frame's
    /// points as the lights see them (a point outside them has its shadow ray cast). Call
    /// after [`Shader::prepare`] and end the frame with [`Shader::finish_as_cast`]. None for
    /// a frame whose maps need its own points first (the first with shadow maps, or the
    /// mapped lights changed): cast it and shade it with [`Shader::shade_bounded`].
    pub fn as_cast(
        &mut self,
        passes: &Passes<'_, '_>,
        pixels: usize,
        chunks: usize,
    ) -> Option<AsCast<'_>> {
        let mapped = self.mapped_lights(passes.world());
        if mapped
            .iter()
            .map(|(li, _)| *li)
            .ne(self.last_boxes.iter().map(|(li, _)| *li))
        {
            return None;
        }
        let boxes = std::mem::take(&mut self.last_boxes);
        self.render_maps_over(passes, pixels, mapped, &boxes);
        self.last_boxes = boxes;
        self.batches.at_least(chunks);
        Some(AsCast {
            shader: self,
            unknown: AtomicBool::new(false),
        })
    }

    /// Ends a frame shaded as it was cast (see [`Shader::as_cast`]), whose `rays` and
    /// `hits` were shaded into `out` and whose points' boxes are `bounds`: where a pixel met a
    /// surface not looked up yet (`unknown`, from [`AsCast::unknown`]), the frame's surfaces
    /// are looked up and it is shaded again. The boxes are kept for the next frame's maps.
    pub fn finish_as_cast(
        &mut self,
        passes: &Passes<'_, '_>,
        rays: &[Ray],
        hits: &[RayHit],
        out: &mut [[f32; 3]],
        bounds: &FrameBounds,
        unknown: bool,
    ) {
        if unknown {
            let n = rays.len().min(hits.len()).min(out.len());
            let chunk = passes.chunk_len(n);
            self.batches.at_least(n.div_ceil(chunk));
            self.surfaces.fill(&hits[..n], passes.world());
            self.shade_chunks(passes, &rays[..n], &hits[..n], &mut out[..n], chunk);
        }
        for (i, (_, b)) in self.last_boxes.iter_mut().enumerate() {
            if bounds.lights() > i {
                *b = bounds.merged(i);
            }
        }
    }

    /// Shades `rays`' hits into `out` in chunks of `chunk` pixels; whether a pixel saw a
    /// surface whose colour was not looked up (shaded black).
    fn shade_chunks(
        &mut self,
        passes: &Passes<'_, '_>,
        rays: &[Ray],
        hits: &[RayHit],
        out: &mut [[f32; 3]],
        chunk: usize,
    ) -> bool {
        let world = passes.world();
        let unknown = AtomicBool::new(false);
        let mut batches = std::mem::take(&mut self.batches);
        let frame = self.frame(world, &unknown);
        let chunks: Vec<_> = rays
            .chunks(chunk)
            .zip(hits.chunks(chunk))
            .zip(out.chunks_mut(chunk))
            .zip(
                batches
                    .0
                    .iter_mut()
                    .map(|b| b.get_mut().unwrap_or_else(|e| e.into_inner())),
            )
            .collect();
        passes.run(chunks, |(((rays, hits), out), batch)| {
            frame.shade(
                world,
                Chunk {
                    rays,
                    hits,
                    out,
                    batch,
                    bounds: None,
                },
            );
        });
        self.batches = batches;
        unknown.into_inner()
    }
}

/// A frame shaded chunk by chunk as it is cast (see [`Shader::as_cast`]).
pub struct AsCast<'s> {
    shader: &'s Shader,
    unknown: AtomicBool,
}

impl AsCast<'_> {
    /// Shades the frame's `k`-th chunk of pixels, whose first is the frame's `first`, its
    /// `rays` and `hits`, into `out` (as long), casting the chunk's shadow rays in one
    /// batch: the colours [`Shader::shade`] gives them. Bounds the chunk's points into its
    /// slot of the frame's bounds as it goes, as [`BoundsSlot::add`] does.
    #[allow(clippy::too_many_arguments)]
    pub fn shade(
        &self,
        world: &WorldRef<'_>,
        k: usize,
        first: usize,
        rays: &[Ray],
        hits: &[RayHit],
        out: &mut [[f32; 3]],
        bounds: BoundsSlot<'_>,
    ) {
        // A chunk past those prepared (a caller's mistake) has a batch of its own.
        let mut own = ShadowBatch::default();
        let mut kept =
            (self.shader.batches.0.get(k)).map(|b| b.lock().unwrap_or_else(|e| e.into_inner()));
        let batch = match kept.as_deref_mut() {
            Some(b) => b,
            None => &mut own,
        };
        let n = rays.len().min(hits.len()).min(out.len());
        self.shader.frame(world, &self.unknown).shade(
            world,
            Chunk {
                rays: &rays[..n],
                hits: &hits[..n],
                out: &mut out[..n],
                batch,
                bounds: Some((first, bounds)),
            },
        );
    }

    /// Whether a pixel met a surface not looked up yet (shaded black; see
    /// [`Shader::finish_as_cast`]).
    pub fn unknown(self) -> bool {
        self.unknown.into_inner()
    }
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
struct Chunk<'c> {
    rays: &'c [Ray],
    hits: &'c [RayHit],
    out: &'c mut [[f32; 3]],
    batch: &'c mut ShadowBatch,
    /// Where the chunk's points are bounded as it is shaded: its first pixel's index in
    /// the frame and its slot of the frame's bounds.
    bounds: Option<(usize, BoundsSlot<'c>)>,
}

/// Whether shading runs the baseline build even where the CPU has AVX2 (for the test that
/// compares the two).
#[cfg(test)]
pub(crate) static BASELINE: AtomicBool = AtomicBool::new(false);

#[inline]
fn baseline() -> bool {
    #[cfg(test)]
    return BASELINE.load(Ordering::Relaxed);
    #[cfg(not(test))]
    false
}

/// What shading reads of a frame, shared by its chunks.
struct Frame<'a> {
    scene: &'a SceneInfo,
    lights: &'a [Light],
    /// The shadow maps of directional lights.
    maps: &'a [ShadowMap],
    surfaces: &'a SurfaceCache,
    /// Set when a pixel sees a surface `surfaces` does not know.
    unknown: &'a AtomicBool,
    /// The options of shadow rays (their length set per batch).
    shadow: RayCastOptions,
}

impl Frame<'_> {
    /// Shades one chunk of pixels into its `out` (as long as its `rays`), casting its shadow
    /// rays in one batch with the buffers of its `batch`; compiled for AVX2 as well, and run
    /// so where the CPU has it.
    fn shade(&self, world: &WorldRef<'_>, chunk: Chunk<'_>) {
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
    /// none). `lights` are each light's shadow map and what it gives the last normal.
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
        // Where a shadow ray starts: off the surface, so that it does not shadow itself.
        let lifted = |i: usize, p: Vec3| p + n.scale(1e-3 + 2e-4 * hits[i].distance);
        let mut shadow_ray = |i: usize, from: Vec3, (contribution, dir, dist): Arriving| {
            batch.rays.push(Ray {
                origin: from,
                direction: dir,
            });
            batch.pending.push(Pending {
                pixel: (first + i) as u32,
                contribution: [
                    contribution[0] * c[0],
                    contribution[1] * c[1],
                    contribution[2] * c[2],
                ],
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
                        shadow_ray(i, lifted(i, p), arriving);
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
                    shadow_ray(i, lifted(i, point(i)), arriving);
                }
                continue;
            };
            // The shadow map, looked up for `LANES` pixels at a time; a ray where it cannot
            // tell. The light of a lit pixel is added after the rest, as a shadow ray's is.
            let lit = [
                contribution[0] * c[0],
                contribution[1] * c[1],
                contribution[2] * c[2],
            ];
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
                        None => shadow_ray(i, lifted(i, point(i)), arriving),
                    }
                }
            }
        }
        for (px, extra) in light.iter_mut().zip(mapped.iter()) {
            *px = [px[0] * c[0], px[1] * c[1], px[2] * c[2]];
            if *extra != [0.0; 3] {
                for (a, b) in px.iter_mut().zip(extra) {
                    *a += b;
                }
            }
        }
        max_limit
    }
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
