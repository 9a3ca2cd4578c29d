//! One ray per pixel, cast in chunks of pixels per frame.
//!
//! The sensor-frame direction of every pixel is computed once (and again only when the
//! camera model changes, e.g. on a zoom); per frame the directions are rotated into the world
//! and cast with [`cast_rays`](sim_plugin_api::WorldView::cast_rays) into buffers kept
//! between frames, one call per chunk of pixels on the engine's sensor threads (one chunk on
//! one thread, see [`simcore_plugin_common::passes`]); a camera with a `<visibility_mask>` casts through the
//! [`visibility`](sim_plugin_api::visibility) extension instead, seeing only the visuals whose
//! `<visibility_flags>` share a bit with the mask.
//!
//! A grid set to rasterise ([`RayGrid::set_raster`]) of a pinhole camera without distortion
//! asks the engine's [`raster`](sim_plugin_api::raster) extension for the same hits instead,
//! in bands of rows on the sensor threads; on an engine without it, it casts. Rays from the
//! sensor's origin are rasterised from a plane [`ORIGIN_NEAR`] in front of it.

use crate::model::{CameraModel, Intrinsics};
use sim_plugin_api::{
    EntityId, PinholeView, Pose, Ray, RayCastOptions, RayHit, RayTarget, Vec3, WorldRef,
    abi_stable::std_types::RSliceMut,
};
use simcore_plugin_common::Passes;
use simcore_plugin_common::{MaskedCast, Rotation};
use std::time::Instant;

/// Where the rays of a [`RayGrid`] start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RayStart {
    /// At the sensor's origin: geometry nearer than the near clip is hit (depth cameras,
    /// which report it as `-inf`).
    Origin,
    /// On the near clip plane: geometry nearer than it is not seen, as with a renderer's
    /// near clip (colour and segmentation cameras).
    NearPlane,
}

/// The per-pixel rays of a camera and the hits of the last frame.
#[derive(Clone, Debug)]
pub struct RayGrid {
    /// Unit directions in the sensor frame, row-major; `Vec3::ZERO` for pixels without a ray.
    dirs: Vec<Vec3>,
    /// Distance along each ray from the sensor origin to where it starts.
    start: Vec<f64>,
    rays: Vec<Ray>,
    hits: Vec<RayHit>,
    options: RayCastOptions,
    /// `<visibility_mask>`: the visuals seen are those whose flags share a bit with it.
    visibility: MaskedCast,
    normals: bool,
    near: f64,
    far: f64,
    from: RayStart,
    /// Whether to rasterise where the engine can.
    raster: bool,
    /// The model's size and intrinsics when it is a pinhole without distortion.
    pinhole: Option<(u32, u32, Intrinsics)>,
    /// The pose the rays were last turned to by the rasterising path (they stay valid while
    /// the camera does not move).
    rays_pose: Option<Pose>,
    /// How long each band of the last rasterised frame took on several threads, its `then`
    /// included (ns): the next frame hands its bands out dearest first.
    band_costs: Vec<u64>,
}

/// How far in front of the sensor's origin the rasteriser starts the rays of a grid whose
/// rays start at the origin ([`RayStart::Origin`]; the rasteriser needs a plane in front of
/// the origin), m: at most the near clip. A ray from the origin that starts inside a shape
/// meets it at distance 0 and the rasterised one at this plane, both nearer than the near
/// clip; only geometry within this distance of the lens can be seen differently.
pub const ORIGIN_NEAR: f64 = 1e-6;

/// Rows per band of a rasterised frame shared among several threads: enough bands for the
/// threads to balance, few enough that each band's setup stays small.
const BANDS_PER_THREAD: usize = 4;
/// The most pixels in a band of a rasterised frame (at least one row), on one thread too: a
/// band's hits and rays (96 bytes a pixel) stay in a core's second-level cache for what
/// [`RayGrid::cast_in_then`] does with them next on the same thread.
const BAND_PIXELS: usize = 8192;

impl RayGrid {
    /// The rays of `model` for the clip range `near..far` (z-depth along the optical axis),
    /// starting at `from`, ignoring the geometry of `exclude_model` (the camera's own model;
    /// [`EntityId::NONE`]: nothing).
    pub fn new(
        model: &CameraModel,
        near: f64,
        far: f64,
        from: RayStart,
        exclude_model: EntityId,
    ) -> Self {
        let mut g = RayGrid {
            dirs: Vec::new(),
            start: Vec::new(),
            rays: Vec::new(),
            hits: Vec::new(),
            options: RayCastOptions {
                max_distance: far,
                target: RayTarget::VISUAL,
                exclude_model,
            },
            visibility: MaskedCast::default(),
            normals: false,
            near,
            far,
            from,
            raster: false,
            pinhole: None,
            rays_pose: None,
            band_costs: Vec::new(),
        };
        g.set_model(model);
        g
    }

    /// Sees only the visuals whose `<visibility_flags>` share a bit with the mask of
    /// `visibility` (by default every visual).
    pub fn set_visibility(&mut self, visibility: MaskedCast) {
        self.visibility = visibility;
    }

    /// Whether the hits carry their surface normals (for shading; off by default).
    pub fn set_normals(&mut self, normals: bool) {
        self.normals = normals;
    }

    /// Whether the hits come from the engine's raster extension where it has one and the
    /// camera is a pinhole without distortion (off by default). The hits are the rays' to
    /// within a few millionths of the distance (see [`ORIGIN_NEAR`] for rays from the
    /// origin).
    pub fn set_raster(&mut self, raster: bool) {
        self.raster = raster;
    }

    /// Whether [`RayGrid::cast_in`] rasterises in `world` (see [`RayGrid::set_raster`]).
    pub fn rasterises_in(&self, world: &WorldRef<'_>) -> bool {
        self.raster && self.pinhole.is_some() && world.raster().is_some()
    }

    /// Recomputes the pixel directions for a changed camera model (size may change too).
    pub fn set_model(&mut self, model: &CameraModel) {
        self.rays_pose = None;
        self.pinhole = (!model.distortion.is_active()).then_some((
            model.width,
            model.height,
            model.intrinsics,
        ));
        self.dirs = model.pixel_directions();
        let n = self.dirs.len();
        // The smallest cosine to the optical axis bounds the ray length to the far plane.
        let min_cos = self
            .dirs
            .iter()
            .map(|d| d.x)
            .filter(|c| *c > 0.0)
            .fold(1.0f64, f64::min);
        self.start = self
            .dirs
            .iter()
            .map(|d| match self.from {
                RayStart::NearPlane if d.x > 0.0 => self.near / d.x,
                _ => 0.0,
            })
            .collect();
        self.options.max_distance = self.far / min_cos;
        self.rays = vec![Ray::default(); n];
        self.hits = vec![RayHit::MISS; n];
    }

    /// The unit ray directions in the sensor frame, row-major.
    pub fn directions(&self) -> &[Vec3] {
        &self.dirs
    }

    /// The hits of the last [`RayGrid::cast`], with distances from the sensor origin; pixels
    /// whose hit lies beyond the far clip are misses.
    pub fn hits(&self) -> &[RayHit] {
        &self.hits
    }

    /// The rays of the last [`RayGrid::cast`] in the world, all from the sensor origin (hit
    /// distances count from there).
    pub fn rays(&self) -> &[Ray] {
        &self.rays
    }

    /// The near and far clip distances.
    pub fn clip(&self) -> (f64, f64) {
        (self.near, self.far)
    }

    /// The z-depth (along the optical axis) of the hit of pixel `k`, `+inf` for a miss.
    #[inline]
    pub fn depth(&self, k: usize) -> f64 {
        self.hits[k].distance * self.dirs[k].x
    }

    /// Casts every pixel's ray from a camera at world pose `pose` (see [`RayGrid::cast_in`]).
    pub fn cast(&mut self, world: &WorldRef<'_>, pose: Pose) {
        self.cast_in(&Passes::new(world), pose);
    }

    /// Casts every pixel's ray from a camera at world pose `pose` in the chunks of pixels of
    /// `passes`, each chunk turning its directions into the world, casting them and fixing up
    /// its hits.
    pub fn cast_in(&mut self, passes: &Passes<'_, '_>, pose: Pose) {
        self.cast_in_then(passes, pose, std::iter::empty::<()>(), |_, _, _, _, ()| {});
    }

    /// The pixels per chunk of [`RayGrid::cast_in`] in `passes`: a band of rows where the frame
    /// is rasterised, else [`Passes::chunk_len`].
    pub fn chunk_len_in(&self, passes: &Passes<'_, '_>) -> usize {
        match (self.rasterises_in(passes.world()), self.pinhole) {
            (true, Some((width, height, _))) => {
                Self::band_rows(passes, width, height) * width as usize
            }
            _ => passes.chunk_len(self.dirs.len()),
        }
    }

    /// Rows per band of a rasterised frame of `width` x `height` pixels.
    fn band_rows(passes: &Passes<'_, '_>, width: u32, height: u32) -> usize {
        let bands = match passes.threads() {
            1 => 1,
            t => t * BANDS_PER_THREAD,
        };
        (height as usize)
            .div_ceil(bands)
            .min(BAND_PIXELS / (width as usize).max(1))
            .max(1)
    }

    /// [`RayGrid::cast_in`], and on each chunk's thread, as soon as the chunk is cast, `then`
    /// with the chunk's first pixel, its rays (from the sensor origin), hits and sensor-frame
    /// directions, and the chunk's one of `items` (in order: the `k`-th chunk of
    /// [`RayGrid::chunk_len_in`] pixels takes the `k`-th item; chunks past the items are
    /// only cast). A frame's later passes done here find its hits in the cache.
    pub fn cast_in_then<T: Send>(
        &mut self,
        passes: &Passes<'_, '_>,
        pose: Pose,
        items: impl IntoIterator<Item = T>,
        then: impl Fn(usize, &[Ray], &[RayHit], &[Vec3], T) + Sync,
    ) {
        let mut items = items.into_iter();
        let mut item = move || items.next();
        if self.rasterises_in(passes.world()) {
            self.raster_in(passes, pose, &mut item, &then);
            return;
        }
        self.rays_pose = None;
        let world = passes.world();
        // The sensor-frame directions turned by the pose's matrix, computed once per frame.
        let rotation = Rotation::new(pose.orientation);
        let o = pose.position;
        let axis = rotation.apply(Vec3::new(1.0, 0.0, 0.0));
        let options = if self.normals {
            self.options
        } else {
            self.options.without_normals_in(world)
        };
        let mask = self.visibility.resolve(world);
        let far = self.far;
        let chunk = passes.chunk_len(self.dirs.len());
        let chunks: Vec<_> = self
            .rays
            .chunks_mut(chunk)
            .zip(self.hits.chunks_mut(chunk))
            .zip(self.dirs.chunks(chunk))
            .zip(self.start.chunks(chunk))
            .enumerate()
            .map(|(k, c)| (k, c, item()))
            .collect();
        passes.run(chunks, |(k, (((rays, hits), dirs), start), item)| {
            // Local copies: the loops below keep them in registers.
            let (rotation, o, axis, far) = (rotation, o, axis, far);
            for ((ray, d), s) in rays.iter_mut().zip(dirs).zip(start) {
                let dw = if d.x > 0.0 { rotation.apply(*d) } else { axis };
                *ray = Ray {
                    origin: o + dw.scale(*s),
                    direction: dw,
                };
            }
            // `resolve` gave a mask this engine casts with.
            world.cast_rays_seen_by(rays, &options, mask, hits);
            for (((h, d), s), ray) in hits.iter_mut().zip(dirs).zip(start).zip(rays.iter_mut()) {
                ray.origin = o;
                if d.x <= 0.0 {
                    *h = RayHit::MISS;
                    continue;
                }
                h.distance += s;
                if h.distance * d.x > far {
                    *h = RayHit::MISS;
                }
            }
            if let Some(item) = item {
                then(k * chunk, rays, hits, dirs, item);
            }
        });
    }

    /// [`RayGrid::cast_in`] through the engine's raster extension: bands of rows, each
    /// rasterised and its rays (from the sensor origin) written beside.
    fn raster_in<T: Send>(
        &mut self,
        passes: &Passes<'_, '_>,
        pose: Pose,
        item: &mut impl FnMut() -> Option<T>,
        then: &(impl Fn(usize, &[Ray], &[RayHit], &[Vec3], T) + Sync),
    ) {
        let world = passes.world();
        let Some((width, height, k)) = self.pinhole else {
            return;
        };
        let view = PinholeView {
            pose,
            width,
            height,
            fx: k.fx,
            fy: k.fy,
            cx: k.cx,
            cy: k.cy,
            skew: k.s,
            near: match self.from {
                RayStart::NearPlane => self.near,
                RayStart::Origin if self.near > 0.0 => self.near.min(ORIGIN_NEAR),
                RayStart::Origin => ORIGIN_NEAR,
            },
            far: self.far,
            exclude_model: self.options.exclude_model,
            mask: self.visibility.resolve(world),
            normals: self.normals,
        };
        let rotation = Rotation::new(pose.orientation);
        let o = pose.position;
        let w = width as usize;
        let rows = Self::band_rows(passes, width, height);
        let bands = self.dirs.len().div_ceil(rows * w);
        self.band_costs.resize(bands, 0);
        let mut chunks: Vec<_> = self
            .rays
            .chunks_mut(rows * w)
            .zip(self.hits.chunks_mut(rows * w))
            .zip(self.dirs.chunks(rows * w))
            .zip(self.band_costs.iter_mut())
            .enumerate()
            .map(|(band, (c, cost))| (band, c, cost, item()))
            .collect();
        // The threads take the bands in turn, the dearest of the last frame first, so that
        // the last taken are cheap and the threads end together (each band is cast, and
        // its `then` called, the same in any order).
        let timed = passes.threads() > 1;
        if timed {
            chunks.sort_by_key(|(_, _, cost, _)| std::cmp::Reverse(**cost));
        }
        // The rays of a camera that has not moved are those of its last frame.
        let turn = self.rays_pose != Some(pose);
        self.rays_pose = Some(pose);
        passes.run(chunks, |(band, ((rays, hits), dirs), cost, item)| {
            let started = timed.then(Instant::now);
            let (rotation, o) = (rotation, o);
            if let Some(raster) = world.raster() {
                raster.rasterize(&view, (band * rows) as u32, RSliceMut::from_mut_slice(hits));
            }
            if turn {
                for (ray, d) in rays.iter_mut().zip(dirs) {
                    *ray = Ray {
                        origin: o,
                        direction: rotation.apply(*d),
                    };
                }
            }
            if let Some(item) = item {
                then(band * rows * w, rays, hits, dirs, item);
            }
            if let Some(t) = started {
                *cost = t.elapsed().as_nanos() as u64;
            }
        });
    }
}
