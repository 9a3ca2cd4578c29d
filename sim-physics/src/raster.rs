//! The raster extension (`simcore.raster.v1`): a pinhole camera's primary visibility by
//! rasterising the visual geometry into its pixel grid, instead of one ray per pixel.
//!
//! A call rasterises one band of image rows, in three passes over the visual colliders the
//! camera sees (its own model and the visuals its mask leaves out skipped, as the ray cast
//! skips them). What a view's depth pass draws (the faces, the triangles projected into the
//! image, the shapes left to parry) depends on the view and the world alone: it is made once
//! by the first band of a frame to need it ([`Frames`]) and shared by the others, on
//! whichever threads they run, until a step or a change of the world.
//!
//! 1. **Depth.** Every planar face (a plane, a cuboid's six, a mesh's triangles) has its
//!    depth key, `1/z` of the point its plane shows at a pixel centre (`-z` along parallel
//!    rays), which is affine in the image coordinates: it is evaluated at the pixel centres
//!    in double precision, keeping per pixel the face of the largest key (the nearest). A
//!    plane (half-space) covers every pixel whose ray meets it; the triangles of cuboids and
//!    meshes are clipped at the near plane, projected, and cover the pixel centres inside
//!    them. A collider whose projected box misses the image is skipped before its triangles
//!    are looked at.
//! 2. **Hits.** A pixel's distance is its face's `z` times the length of the pixel's ray per
//!    unit of `z`, the normal its face's. A ray that starts inside a half-space hits where it
//!    starts with a zero normal, as parry's solid casts do.
//! 3. **Curved and other shapes** (balls, cylinders, capsules, cones, convex hulls, compound
//!    shapes, height fields, and cuboids that may hold the start of rays, meeting the near
//!    plane's part in the image): parry's own ray cast of that one shape, for each pixel of
//!    the box the shape projects to (its part in front of the near plane), replacing the
//!    pixel's hit where nearer. These hits are exactly the ray cast's.
//!
//! A hit deeper than the far clip is a miss. [`Raster::depths`] runs passes 1 and 3 with
//! parallel rays (the optical axis along them, the near plane their plane of origin) and
//! writes the distances along them.

use super::convert::{pose_from_rapier, vec_from_rapier, vec_to_rapier};
use super::query::unpack_model;
use super::{GROUP_VISUAL, Physics};
use rapier3d::prelude::{Collider, ColliderHandle, Ray, TypedShape};
use sim_plugin_api::{
    ALL_VISIBLE, EntityId, OrthoView, PinholeView, Raster, RayHit, Vec3,
    abi_stable::std_types::RSliceMut,
};
use std::sync::{Arc, Mutex, OnceLock};

/// The most views whose depth pass is kept at once (the cameras and shadow maps of a step).
const MAX_FRAMES: usize = 8;

/// The depth passes made since the world last changed, by view (and whether its rays are
/// parallel): kept in the ray index, which forgets them with its trees.
#[derive(Default)]
pub(super) struct Frames(Mutex<Vec<Frame>>);

/// A view, whether its rays are parallel, and its depth pass (made once).
type Frame = (PinholeView, bool, Arc<OnceLock<Projected>>);

/// A triangle in image coordinates, its face's depth key and its face.
type Projection = ([(f64, f64); 3], Affine, u32);

impl Frames {
    /// Forgets every pass: the world moved or changed.
    pub fn clear(&mut self) {
        self.0.get_mut().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// The pass of `view` (made by `make` unless it is kept), one of at most [`MAX_FRAMES`].
    fn get(
        &self,
        view: &PinholeView,
        ortho: bool,
        make: impl FnOnce() -> Projected,
    ) -> Arc<OnceLock<Projected>> {
        let cell = {
            let mut frames = self.0.lock().unwrap_or_else(|e| e.into_inner());
            match frames.iter().find(|(v, o, _)| v == view && *o == ortho) {
                Some((_, _, c)) => c.clone(),
                None => {
                    if frames.len() >= MAX_FRAMES {
                        frames.remove(0);
                    }
                    let c = Arc::new(OnceLock::new());
                    frames.push((*view, ortho, c.clone()));
                    c
                }
            }
        };
        // The other bands of the frame wait here while the first makes it.
        cell.get_or_init(make);
        cell
    }
}

/// What the depth pass of a view draws, in the whole image: the bands of a frame each
/// take their rows of it.
pub(super) struct Projected {
    faces: Vec<Face>,
    /// Half-spaces: which side of each the pixels' rays start on, their depth key, and their
    /// faces (`f` its surface, `f + 1` its inside).
    planes: Vec<(Affine, Option<Affine>, u32)>,
    /// Triangles in image coordinates, each with its face's depth key and index.
    triangles: Vec<Projection>,
    /// The colliders parry casts at instead.
    others: Vec<ColliderHandle>,
}

/// Primary visibility of a pinhole camera (see the module docs).
impl Raster for Physics {
    fn rasterize(
        &self,
        view: &PinholeView,
        first_row: u32,
        mut hits: RSliceMut<'_, RayHit>,
    ) -> u32 {
        self.rasterize_rows(view, first_row, hits.as_mut_slice())
    }
    fn depths(&self, view: &OrthoView, first_row: u32, mut out: RSliceMut<'_, f32>) -> u32 {
        self.depth_rows(view, first_row, out.as_mut_slice())
    }
}

/// The camera of one call: its frame and projection, and the band of rows.
struct Camera {
    origin: Vec3,
    /// Sensor frame to world, row-major.
    rot: [[f64; 3]; 3],
    fx: f64,
    fy: f64,
    cx: f64,
    cy: f64,
    skew: f64,
    near: f64,
    far: f64,
    width: usize,
    first_row: usize,
    rows: usize,
    /// Parallel rays along the optical axis (`fx`, `fy` in pixels per metre), instead of
    /// rays from the origin.
    ortho: bool,
}

/// One pixel's ray: its cosine to the optical axis (1 for parallel rays), where it leaves
/// the plane of the camera's origin, and its world direction.
#[derive(Clone, Copy)]
struct Px {
    dx: f64,
    origin: Vec3,
    dir: Vec3,
}

/// An affine function of the image coordinates `(u, v)`: `a·u + b·v + c`.
#[derive(Clone, Copy, Debug)]
struct Affine([f64; 3]);

impl Affine {
    #[inline]
    fn at(&self, u: f64, v: f64) -> f64 {
        self.0[0] * u + self.0[1] * v + self.0[2]
    }
}

impl Camera {
    /// The camera of the rows of `view` from `first_row` that fit in `len` pixels (parallel
    /// rays when `ortho`), or None when there are none.
    fn band(view: &PinholeView, first_row: u32, len: usize, ortho: bool) -> Option<Camera> {
        let (width, height, first) = (
            view.width as usize,
            view.height as usize,
            first_row as usize,
        );
        if width == 0 || first >= height {
            return None;
        }
        Some(Camera {
            origin: view.pose.position,
            rot: view.pose.orientation.normalized().to_matrix(),
            fx: view.fx,
            fy: view.fy,
            cx: view.cx,
            cy: view.cy,
            skew: view.skew,
            near: view.near.max(0.0),
            far: view.far,
            width,
            first_row: first,
            rows: (len / width).min(height - first),
            ortho,
        })
    }

    /// `p` (world) in the optical frame: x right, y down, z forward.
    #[inline]
    fn optical(&self, p: Vec3) -> [f64; 3] {
        let d = p - self.origin;
        let r = &self.rot;
        // The transpose turns world into sensor axes.
        let sx = r[0][0] * d.x + r[1][0] * d.y + r[2][0] * d.z;
        let sy = r[0][1] * d.x + r[1][1] * d.y + r[2][1] * d.z;
        let sz = r[0][2] * d.x + r[1][2] * d.y + r[2][2] * d.z;
        [-sy, -sz, sx]
    }

    /// Image coordinates of an optical-frame point in front of the camera.
    #[inline]
    fn project(&self, p: [f64; 3]) -> (f64, f64) {
        let (x, y) = if self.ortho {
            (p[0], p[1])
        } else {
            (p[0] / p[2], p[1] / p[2])
        };
        (self.fx * x + self.skew * y + self.cx, self.fy * y + self.cy)
    }

    /// The depth key of an optical z: linear in image coordinates, larger when nearer.
    #[inline]
    fn key(&self, z: f64) -> f64 {
        if self.ortho { -z } else { 1.0 / z }
    }

    /// The optical-frame `(x/z, y/z)` of a perspective pixel, or the optical `(x, y)` of a
    /// parallel ray, as affine functions of `(u, v)`.
    fn normalised(&self) -> (Affine, Affine) {
        let yn = Affine([0.0, 1.0 / self.fy, -self.cy / self.fy]);
        let s = self.skew / (self.fx * self.fy);
        let xn = Affine([1.0 / self.fx, -s, -self.cx / self.fx + s * self.cy]);
        (xn, yn)
    }

    /// The plane `normal · x = offset` as the camera sees it: which side of it each pixel's
    /// ray starts on (negative: behind it, inside a solid) and its depth key, affine in
    /// `(u, v)`; no key when the plane holds the camera's origin (perspective) or the
    /// rays (parallel), where it shows no area.
    fn plane(&self, normal: Vec3, offset: f64) -> (Affine, Option<Affine>) {
        let r = &self.rot;
        // The normal in the sensor frame.
        let n = Vec3::new(
            r[0][0] * normal.x + r[1][0] * normal.y + r[2][0] * normal.z,
            r[0][1] * normal.x + r[1][1] * normal.y + r[2][1] * normal.z,
            r[0][2] * normal.x + r[1][2] * normal.y + r[2][2] * normal.z,
        );
        let d = offset - normal.dot(self.origin);
        let (xn, yn) = self.normalised();
        // n · (0, -xn, -yn), affine.
        let across = Affine(std::array::from_fn(|k| -n.y * xn.0[k] - n.z * yn.0[k]));
        if self.ortho {
            // Rays along x from o + (0, -x, -y): side = n·start - offset.
            let side = Affine([across.0[0], across.0[1], across.0[2] - d]);
            let key = (n.x.abs() > 1e-12).then(|| Affine(side.0.map(|c| c / n.x)));
            return (side, key);
        }
        // Rays along e = (1, -xn, -yn) from o + near·e: n·e and side = near·n·e - d.
        let ne = Affine([across.0[0], across.0[1], across.0[2] + n.x]);
        let side = Affine([
            self.near * ne.0[0],
            self.near * ne.0[1],
            self.near * ne.0[2] - d,
        ]);
        let key = (d.abs() > 1e-12).then(|| Affine(ne.0.map(|c| c / d)));
        (side, key)
    }

    /// The distance along pixel `(i, j)`'s unit ray from the camera's origin (its plane for
    /// parallel rays) to the point of depth key `key`.
    #[inline]
    fn distance(&self, xn: &Affine, yn: &Affine, i: usize, j: usize, key: f64) -> f64 {
        if self.ortho {
            return -key;
        }
        let (u, v) = (i as f64 + 0.5, j as f64 + 0.5);
        let (x, y) = (xn.at(u, v), yn.at(u, v));
        (1.0 + x * x + y * y).sqrt() / key
    }

    /// `v` (sensor frame) in the world frame.
    #[inline]
    fn turn(&self, v: Vec3) -> Vec3 {
        let [a, b, c] = self.rot;
        Vec3::new(
            a[0] * v.x + a[1] * v.y + a[2] * v.z,
            b[0] * v.x + b[1] * v.y + b[2] * v.z,
            c[0] * v.x + c[1] * v.y + c[2] * v.z,
        )
    }

    /// The ray through pixel centre `(i + ½, j + ½)`: from the origin along the unit
    /// direction of the camera model's formula, or, for parallel rays, along the optical axis
    /// from the point of the origin's plane the pixel covers.
    #[inline]
    fn ray(&self, i: usize, j: usize) -> Px {
        let (u, v) = (i as f64 + 0.5, j as f64 + 0.5);
        let yn = (v - self.cy) / self.fy;
        let xn = (u - self.cx - self.skew * yn) / self.fx;
        if self.ortho {
            return Px {
                dx: 1.0,
                origin: self.origin + self.turn(Vec3::new(0.0, -xn, -yn)),
                dir: self.turn(Vec3::new(1.0, 0.0, 0.0)),
            };
        }
        let d = Vec3::new(1.0, -xn, -yn).normalized();
        Px {
            dx: d.x,
            origin: self.origin,
            dir: self.turn(d),
        }
    }

    /// Whether a world box may hold the start of a pixel's ray: whether it meets the box
    /// around the rays' starts (the near plane's part in the image, or the plane of
    /// parallel rays').
    fn holds_starts(&self, lo: Vec3, hi: Vec3) -> bool {
        let (xn, yn) = self.normalised();
        let (w, h) = (self.width as f64, (self.first_row + self.rows) as f64);
        let v0 = self.first_row as f64;
        let inf = f64::INFINITY;
        let (mut a, mut b) = (Vec3::new(inf, inf, inf), Vec3::new(-inf, -inf, -inf));
        for (u, v) in [(0.0, v0), (w, v0), (0.0, h), (w, h)] {
            let (x, y) = (xn.at(u, v), yn.at(u, v));
            // The sensor-frame start: (near, -x near, -y near), or (0, -x, -y).
            let s = if self.ortho {
                Vec3::new(0.0, -x, -y)
            } else {
                Vec3::new(1.0, -x, -y).scale(self.near)
            };
            let p = self.origin + self.turn(s);
            a = Vec3::new(a.x.min(p.x), a.y.min(p.y), a.z.min(p.z));
            b = Vec3::new(b.x.max(p.x), b.y.max(p.y), b.z.max(p.z));
        }
        lo.x <= b.x && hi.x >= a.x && lo.y <= b.y && hi.y >= a.y && lo.z <= b.z && hi.z >= a.z
    }

    /// The pixels of the band a world box may cover, as `(columns, rows)` ranges of image
    /// coordinates; `None` when it is wholly behind the near plane, beyond the far plane or
    /// outside the band. A box across the near plane is bounded by its part in front: its
    /// corners there and where its edges cross the plane.
    fn rect(&self, lo: Vec3, hi: Vec3) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        let band = self.first_row..self.first_row + self.rows;
        let (mut umin, mut umax, mut vmin, mut vmax) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        let corners: [[f64; 3]; 8] = std::array::from_fn(|k| {
            let pick = |bit: u32, a: f64, b: f64| if k & (1 << bit) == 0 { a } else { b };
            self.optical(Vec3::new(
                pick(0, lo.x, hi.x),
                pick(1, lo.y, hi.y),
                pick(2, lo.z, hi.z),
            ))
        });
        let zmin = corners.iter().map(|p| p[2]).fold(f64::MAX, f64::min);
        let zmax = corners.iter().map(|p| p[2]).fold(f64::MIN, f64::max);
        if zmax < self.near || zmin > self.far || zmax.is_nan() {
            return None;
        }
        let mut add = |p: [f64; 3]| {
            let (u, v) = self.project(p);
            umin = umin.min(u);
            umax = umax.max(u);
            vmin = vmin.min(v);
            vmax = vmax.max(v);
        };
        for (k, a) in corners.iter().enumerate() {
            if a[2] >= self.near {
                add(*a);
            }
            // The edges from this corner to the corners one bit above it.
            for bit in 0..3 {
                if k & (1 << bit) != 0 {
                    continue;
                }
                let b = corners[k | (1 << bit)];
                if (a[2] < self.near) != (b[2] < self.near) {
                    let t = (self.near - a[2]) / (b[2] - a[2]);
                    add([
                        a[0] + t * (b[0] - a[0]),
                        a[1] + t * (b[1] - a[1]),
                        self.near,
                    ]);
                }
            }
        }
        // Pixel i's centre is at i + ½; one pixel more each side for rounding.
        let cols = pixel_range(umin, umax, self.width);
        let lo_row = pixel_range(vmin, vmax, band.end);
        let rows = lo_row.start.max(band.start)..lo_row.end;
        (!cols.is_empty() && !rows.is_empty()).then_some((cols, rows))
    }
}

/// The pixels whose centres may lie in `[a, b]`, within `0..n`, one more on each side.
fn pixel_range(a: f64, b: f64, n: usize) -> std::ops::Range<usize> {
    if !(a.is_finite() && b.is_finite()) {
        return 0..n;
    }
    let lo = (a - 1.5).ceil().max(0.0);
    let hi = (b + 0.5).floor().min(n as f64);
    if hi < lo {
        return 0..0;
    }
    lo as usize..hi as usize
}

/// A planar surface the depth pass found nearest at a pixel.
#[derive(Clone, Copy)]
struct Face {
    /// Unit normal in the world (zero for the inside of a half-space, seen where the rays
    /// start).
    normal: Vec3,
    /// Whether the rays seeing it start inside it (a half-space's inside).
    inside: bool,
    entity: EntityId,
    model: EntityId,
}

/// No face at a pixel.
const NO_FACE: u32 = u32::MAX;

/// The per-pixel state of a band's depth pass.
struct Depths {
    /// The largest depth key (see [`Camera::key`]) found at each pixel.
    key: Vec<f64>,
    /// The face it belongs to.
    face: Vec<u32>,
}

impl Physics {
    /// [`Raster::rasterize`]: the hits of rows `first_row..` of `view` into `hits`.
    pub fn rasterize_rows(&self, view: &PinholeView, first_row: u32, hits: &mut [RayHit]) -> u32 {
        let Some(cam) = Camera::band(view, first_row, hits.len(), false) else {
            return 0;
        };
        let Some(pass) = self.projected(view, false) else {
            return 0;
        };
        let Some(pass) = pass.get() else {
            return 0;
        };
        let hits = &mut hits[..cam.rows * cam.width];
        let depths = band_depths(&cam, pass);
        // Every pixel written once (a miss or a hit), and the hits counted on the way.
        let mut seen = resolve(&cam, &pass.faces, &depths, view.normals, hits);
        for c in pass.others.iter().filter_map(|&h| self.pw.colliders.get(h)) {
            seen += exact(&cam, c, view.normals, hits);
        }
        seen as u32
    }

    /// [`Raster::depths`]: the depths of rows `first_row..` of `view` into `out`.
    pub fn depth_rows(&self, view: &OrthoView, first_row: u32, out: &mut [f32]) -> u32 {
        if view.scale.is_nan() || view.scale <= 0.0 {
            return 0;
        }
        // Every visual, seen along parallel rays `scale` pixels per metre apart.
        let every = PinholeView {
            pose: view.pose,
            width: view.width,
            height: view.height,
            fx: view.scale,
            fy: view.scale,
            cx: f64::from(view.width) / 2.0,
            cy: f64::from(view.height) / 2.0,
            skew: 0.0,
            near: 0.0,
            far: view.depth,
            exclude_model: EntityId::NONE,
            mask: ALL_VISIBLE,
            normals: false,
        };
        let Some(cam) = Camera::band(&every, first_row, out.len(), true) else {
            return 0;
        };
        let Some(pass) = self.projected(&every, true) else {
            return 0;
        };
        let Some(pass) = pass.get() else {
            return 0;
        };
        let out = &mut out[..cam.rows * cam.width];
        let depths = band_depths(&cam, pass);
        let far = cam.key(cam.far);
        for (o, (&f, &key)) in out.iter_mut().zip(depths.face.iter().zip(&depths.key)) {
            *o = if f == NO_FACE || key < far {
                f32::INFINITY
            } else if pass.faces[f as usize].inside {
                0.0
            } else {
                -key as f32
            };
        }
        for c in pass.others.iter().filter_map(|&h| self.pw.colliders.get(h)) {
            exact_depths(&cam, c, out);
        }
        out.iter().filter(|d| d.is_finite()).count() as u32
    }

    /// The depth pass of `view` over the whole image, made by the first band that needs it
    /// and kept for the others (`None` for an image without pixels).
    fn projected(&self, view: &PinholeView, ortho: bool) -> Option<Arc<OnceLock<Projected>>> {
        let pixels = (view.width as usize).saturating_mul(view.height as usize);
        let whole = Camera::band(view, 0, pixels, ortho)?;
        Some(
            self.rays
                .frames()
                .get(view, ortho, || self.depth_pass(&whole, view)),
        )
    }

    /// The depth pass of the whole image of `cam` over the visuals `view` sees: the faces,
    /// the half-spaces and the triangles in image coordinates, and the colliders to cast at
    /// instead.
    fn depth_pass(&self, cam: &Camera, view: &PinholeView) -> Projected {
        let exclude = view.exclude_model;
        let masked = view.mask != ALL_VISIBLE;
        let entities = &self.entities;
        // Visuals are disabled colliders (out of the physics): every one is drawn.
        let seen = |c: &Collider| {
            c.collision_groups().memberships == GROUP_VISUAL
                && (exclude.is_none() || !entities.is_within(unpack_model(c.user_data), exclude))
                && (!masked
                    || entities.visibility_flags(EntityId(c.user_data as u64)) & view.mask != 0)
        };
        let mut pass = Projected {
            faces: Vec::new(),
            planes: Vec::new(),
            triangles: Vec::new(),
            others: Vec::new(),
        };
        for (handle, c) in self.pw.colliders.iter() {
            if !seen(c) {
                continue;
            }
            let pose = pose_from_rapier(c.position());
            let ud = c.user_data;
            let (entity, model) = (EntityId(ud as u64), unpack_model(ud));
            if let Some(h) = super::plane::half_space_of(c.shape()) {
                let normal = pose.orientation.rotate(vec_from_rapier(h.normal));
                let (side, key) = cam.plane(normal, normal.dot(pose.position));
                let f = pass.faces.len() as u32;
                for inside in [false, true] {
                    pass.faces.push(Face {
                        normal: if inside { Vec3::ZERO } else { normal },
                        inside,
                        entity,
                        model,
                    });
                }
                pass.planes.push((side, key, f));
                continue;
            }
            let aabb = c.compute_aabb();
            let (lo, hi) = (vec_from_rapier(aabb.mins), vec_from_rapier(aabb.maxs));
            if cam.rect(lo, hi).is_none() {
                continue;
            }
            // A solid that may hold where rays start: parry's cast of that shape tells
            // which rays do.
            let across = cam.holds_starts(lo, hi);
            match c.shape().as_typed_shape() {
                TypedShape::Cuboid(b) if !across => {
                    let h = vec_from_rapier(b.half_extents);
                    let corner = |k: usize| {
                        pose.transform_point(Vec3::new(
                            if k & 1 == 0 { -h.x } else { h.x },
                            if k & 2 == 0 { -h.y } else { h.y },
                            if k & 4 == 0 { -h.z } else { h.z },
                        ))
                    };
                    let p: [Vec3; 8] = std::array::from_fn(corner);
                    // Each face: its outward local axis and its corners in order around it.
                    const QUADS: [([f64; 3], [usize; 4]); 6] = [
                        ([-1.0, 0.0, 0.0], [0, 4, 6, 2]),
                        ([1.0, 0.0, 0.0], [1, 3, 7, 5]),
                        ([0.0, -1.0, 0.0], [0, 1, 5, 4]),
                        ([0.0, 1.0, 0.0], [2, 6, 7, 3]),
                        ([0.0, 0.0, -1.0], [0, 2, 3, 1]),
                        ([0.0, 0.0, 1.0], [4, 5, 7, 6]),
                    ];
                    for (axis, q) in QUADS {
                        let normal = pose
                            .orientation
                            .rotate(Vec3::new(axis[0], axis[1], axis[2]));
                        let Some((f, key)) =
                            planar_face(cam, &mut pass.faces, normal, p[q[0]], (entity, model))
                        else {
                            continue;
                        };
                        let out = &mut pass.triangles;
                        triangle(cam, [p[q[0]], p[q[1]], p[q[2]]], key, f, out);
                        triangle(cam, [p[q[0]], p[q[2]], p[q[3]]], key, f, out);
                    }
                }
                TypedShape::TriMesh(m) => {
                    for t in m.triangles() {
                        let v = [t.a, t.b, t.c].map(|v| pose.transform_point(vec_from_rapier(v)));
                        let n = (v[1] - v[0]).cross(v[2] - v[0]);
                        let len = n.length();
                        if len.is_nan() || len <= 0.0 {
                            continue;
                        }
                        let normal = n.scale(1.0 / len);
                        let Some((f, key)) =
                            planar_face(cam, &mut pass.faces, normal, v[0], (entity, model))
                        else {
                            continue;
                        };
                        triangle(cam, v, key, f, &mut pass.triangles);
                    }
                }
                _ => pass.others.push(handle),
            }
        }
        pass
    }
}

/// The nearest face of `pass` at each pixel of the band of `cam`.
fn band_depths(cam: &Camera, pass: &Projected) -> Depths {
    let n = cam.rows * cam.width;
    let mut depths = Depths {
        key: vec![f64::NEG_INFINITY; n],
        face: vec![NO_FACE; n],
    };
    for &(side, key, f) in &pass.planes {
        plane_depths(cam, side, key, f, &mut depths);
    }
    for &(t, key, f) in &pass.triangles {
        scan(cam, t, key, f, &mut depths);
    }
    depths
}

/// The depth pass of a half-space (faces `f`, its surface, and `f + 1`, its inside): every
/// pixel whose ray meets it, from outside (`side` ≥ 0 where the ray starts) or from
/// inside (where it starts).
fn plane_depths(cam: &Camera, side: Affine, key: Option<Affine>, f: u32, depths: &mut Depths) {
    let start = cam.key(cam.near);
    for r in 0..cam.rows {
        let v = (cam.first_row + r) as f64 + 0.5;
        let row = r * cam.width;
        for i in 0..cam.width {
            let u = i as f64 + 0.5;
            let (k, face) = if side.at(u, v) < 0.0 {
                (start, f + 1)
            } else {
                // Seen from outside only in front of where the rays start.
                match key {
                    Some(key) => {
                        let k = key.at(u, v);
                        if k > start || !(cam.ortho || k > 0.0) {
                            continue;
                        }
                        (k, f)
                    }
                    _ => continue,
                }
            };
            let p = row + i;
            if k > depths.key[p] {
                depths.key[p] = k;
                depths.face[p] = face;
            }
        }
    }
}

/// Adds the face of outward unit `normal` through world point `point` of visual `entity`
/// (of `model`) to `faces`: its index and its depth key, or `None` (nothing added) where
/// the camera sees its plane edge-on.
fn planar_face(
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
fn triangle(cam: &Camera, v: [Vec3; 3], key: Affine, f: u32, out: &mut Vec<Projection>) {
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
    let e0 = Edge::new(t[1], t[2], inside);
    let e1 = Edge::new(t[2], t[0], inside);
    let e2 = Edge::new(t[0], t[1], inside);
    for j in rows {
        let v = j as f64 + 0.5;
        let row = (j - cam.first_row) * cam.width;
        for i in cols.clone() {
            let u = i as f64 + 0.5;
            if !(e0.covers(u, v) && e1.covers(u, v) && e2.covers(u, v)) {
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
}

/// Writes every pixel of the band: the hit of the face the depth pass found (within the far
/// clip), with its normal when `normals`, or a miss. Returns the number of hits.
fn resolve(
    cam: &Camera,
    faces: &[Face],
    depths: &Depths,
    normals: bool,
    hits: &mut [RayHit],
) -> usize {
    let (xn, yn) = cam.normalised();
    let far = cam.key(cam.far);
    let mut seen = 0;
    for (k, (h, (&f, &key))) in hits
        .iter_mut()
        .zip(depths.face.iter().zip(&depths.key))
        .enumerate()
    {
        if f == NO_FACE || key < far {
            *h = RayHit::MISS;
            continue;
        }
        let face = faces[f as usize];
        let (i, j) = (k % cam.width, cam.first_row + k / cam.width);
        let key = if face.inside { cam.key(cam.near) } else { key };
        let distance = cam.distance(&xn, &yn, i, j, key);
        seen += usize::from(distance.is_finite());
        *h = RayHit {
            distance,
            normal: if normals { face.normal } else { Vec3::ZERO },
            entity: face.entity,
            model: face.model,
        };
    }
    seen
}

/// [`exact`] for the depths along parallel rays.
fn exact_depths(cam: &Camera, c: &Collider, out: &mut [f32]) {
    let aabb = c.compute_aabb();
    let Some((cols, rows)) = cam.rect(vec_from_rapier(aabb.mins), vec_from_rapier(aabb.maxs))
    else {
        return;
    };
    for j in rows {
        for i in cols.clone() {
            let k = (j - cam.first_row) * cam.width + i;
            let p = cam.ray(i, j);
            let ray = Ray::new(vec_to_rapier(p.origin), vec_to_rapier(p.dir));
            let limit = cam.far.min(f32::MAX as f64) as f32;
            if let Some(t) = c.shape().cast_ray(c.position(), &ray, limit, true)
                && t < out[k]
            {
                out[k] = t;
            }
        }
    }
}

/// Casts the pixels of the box `c` projects to at its shape with parry, keeping nearer hits.
/// Returns the number of pixels that were misses and now hit.
fn exact(cam: &Camera, c: &Collider, normals: bool, hits: &mut [RayHit]) -> usize {
    let aabb = c.compute_aabb();
    let Some((cols, rows)) = cam.rect(vec_from_rapier(aabb.mins), vec_from_rapier(aabb.maxs))
    else {
        return 0;
    };
    let mut new = 0;
    let ud = c.user_data;
    for j in rows {
        for i in cols.clone() {
            let k = (j - cam.first_row) * cam.width + i;
            let p = cam.ray(i, j);
            let s = cam.near / p.dx;
            let limit = (cam.far / p.dx - s).min(f32::MAX as f64) as f32;
            let ray = Ray::new(
                vec_to_rapier(p.origin + p.dir.scale(s)),
                vec_to_rapier(p.dir),
            );
            let Some(hit) = c
                .shape()
                .cast_ray_and_get_normal(c.position(), &ray, limit, true)
            else {
                continue;
            };
            let distance = hit.time_of_impact as f64 + s;
            if distance < hits[k].distance && distance * p.dx <= cam.far {
                new += usize::from(!hits[k].distance.is_finite());
                hits[k] = RayHit {
                    distance,
                    normal: if normals {
                        vec_from_rapier(hit.normal)
                    } else {
                        Vec3::ZERO
                    },
                    entity: EntityId(ud as u64),
                    model: unpack_model(ud),
                };
            }
        }
    }
    new
}
