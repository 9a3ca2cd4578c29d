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

mod pixels;

#[cfg(test)]
pub(crate) use pixels::BASELINE;
use pixels::{Chunk, Frame, ShadowBatch};

use crate::shadow_map::{
    BoundsSlot, FrameBounds, MAP_SIDE, MAP_TEXELS_PER_PIXEL, MapFrame, ShadowMap, seen_bounds,
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
