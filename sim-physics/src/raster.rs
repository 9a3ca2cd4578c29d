//! The raster extension (`simcore.raster.v1`): a pinhole camera's primary visibility by
//! rasterising the visual geometry into its pixel grid, instead of one ray per pixel.
//!
//! A call rasterises one band of image rows, in three passes over the visual colliders the
//! camera sees (its own model and the visuals its mask leaves out skipped, as the ray cast
//! skips them):
//!
//! 1. **Depth.** Planes (half-spaces) are intersected with each pixel's ray; cuboids (12
//!    triangles) and triangle meshes are clipped at the near plane, projected and scan
//!    converted over the pixel centres of the band, keeping per pixel the nearest surface
//!    (largest interpolated `1/z`). A collider whose projected box misses the band is
//!    skipped before its triangles are looked at.
//! 2. **Hits.** Each pixel's surface is intersected with the pixel's ray in double precision
//!    (the ray from the near plane, as the camera casts it): the hit distance and the face's
//!    normal. A ray that starts inside a half-space hits where it starts with a zero normal,
//!    as parry's solid casts do.
//! 3. **Curved and other shapes** (balls, cylinders, capsules, cones, convex hulls, compound
//!    shapes, height fields, and cuboids reaching across the near plane, which may hold the
//!    start of rays): parry's own ray cast of that one shape, for each pixel of the box the
//!    shape projects to, replacing the pixel's hit where nearer. These hits are exactly the
//!    ray cast's.
//!
//! A hit deeper than the far clip is a miss.

use super::convert::{pose_from_rapier, vec_from_rapier, vec_to_rapier};
use super::query::unpack_model;
use super::{GROUP_VISUAL, Physics};
use rapier3d::prelude::{Collider, Ray, TypedShape};
use sim_plugin_api::{
    ALL_VISIBLE, EntityId, OrthoView, PinholeView, Raster, RayHit, Vec3,
    abi_stable::std_types::RSliceMut,
};

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

impl Camera {
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

    /// Whether a corner of a world box is not in front of the near plane.
    fn behind_near(&self, lo: Vec3, hi: Vec3) -> bool {
        (0..8).any(|k| {
            let pick = |bit: u32, a: f64, b: f64| if k & (1 << bit) == 0 { a } else { b };
            let c = Vec3::new(
                pick(0, lo.x, hi.x),
                pick(1, lo.y, hi.y),
                pick(2, lo.z, hi.z),
            );
            self.optical(c)[2] <= self.near
        })
    }

    /// The pixels of the band a world box may cover, as `(columns, rows)` ranges of image
    /// coordinates; `None` when it is wholly behind the near plane, beyond the far plane or
    /// outside the band.
    fn rect(&self, lo: Vec3, hi: Vec3) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        let band = self.first_row..self.first_row + self.rows;
        let (mut umin, mut umax, mut vmin, mut vmax) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        let (mut zmin, mut zmax) = (f64::MAX, f64::MIN);
        let mut straddles = false;
        for k in 0..8 {
            let pick = |bit: u32, a: f64, b: f64| if k & (1 << bit) == 0 { a } else { b };
            let c = Vec3::new(
                pick(0, lo.x, hi.x),
                pick(1, lo.y, hi.y),
                pick(2, lo.z, hi.z),
            );
            let p = self.optical(c);
            zmin = zmin.min(p[2]);
            zmax = zmax.max(p[2]);
            if p[2] <= self.near {
                straddles = true;
                continue;
            }
            let (u, v) = self.project(p);
            umin = umin.min(u);
            umax = umax.max(u);
            vmin = vmin.min(v);
            vmax = vmax.max(v);
        }
        if !(zmax >= self.near) || zmin > self.far {
            return None;
        }
        if straddles {
            return Some((0..self.width, band));
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
    /// Unit normal in the world (outward for a solid), and the plane `normal · x = offset`.
    normal: Vec3,
    offset: f64,
    /// Whether the shape is solid: a ray starting behind the face (inside) hits at its start.
    solid: bool,
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
        let width = view.width as usize;
        let first = first_row as usize;
        if width == 0 || first >= view.height as usize {
            return 0;
        }
        let rows = (hits.len() / width).min(view.height as usize - first);
        let cam = Camera {
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
            rows,
            ortho: false,
        };
        self.raster_band(&cam, view, &mut hits[..rows * width])
    }

    /// [`Raster::depths`]: the depths of rows `first_row..` of `view` into `out`.
    pub fn depth_rows(&self, view: &OrthoView, first_row: u32, out: &mut [f32]) -> u32 {
        let width = view.width as usize;
        let first = first_row as usize;
        if width == 0 || first >= view.height as usize || !(view.scale > 0.0) {
            return 0;
        }
        let rows = (out.len() / width).min(view.height as usize - first);
        let cam = Camera {
            origin: view.pose.position,
            rot: view.pose.orientation.normalized().to_matrix(),
            fx: view.scale,
            fy: view.scale,
            cx: f64::from(view.width) / 2.0,
            cy: f64::from(view.height) / 2.0,
            skew: 0.0,
            near: 0.0,
            far: view.depth,
            width,
            first_row: first,
            rows,
            ortho: true,
        };
        let every = PinholeView {
            pose: view.pose,
            width: view.width,
            height: view.height,
            fx: view.scale,
            fy: view.scale,
            cx: cam.cx,
            cy: cam.cy,
            skew: 0.0,
            near: 0.0,
            far: view.depth,
            exclude_model: EntityId::NONE,
            mask: ALL_VISIBLE,
            normals: false,
        };
        let mut hits = vec![RayHit::MISS; rows * width];
        let n = self.raster_band(&cam, &every, &mut hits);
        for (o, h) in out.iter_mut().zip(&hits) {
            *o = h.distance as f32;
        }
        n
    }

    /// The hits of the band of `cam`, seeing what `view`'s exclusion and mask leave, with
    /// normals when `view` asks for them.
    fn raster_band(&self, cam: &Camera, view: &PinholeView, hits: &mut [RayHit]) -> u32 {
        let (width, rows, first) = (cam.width, cam.rows, cam.first_row);
        hits.fill(RayHit::MISS);
        let exclude = view.exclude_model;
        let masked = view.mask != ALL_VISIBLE;
        let entities = &self.entities;
        let seen = |c: &Collider| {
            c.is_enabled()
                && c.collision_groups().memberships == GROUP_VISUAL
                && (exclude.is_none() || !entities.is_within(unpack_model(c.user_data), exclude))
                && (!masked
                    || entities.visibility_flags(EntityId(c.user_data as u64)) & view.mask != 0)
        };
        // Each pixel's ray, once.
        let px: Vec<Px> = (0..rows * width)
            .map(|k| cam.ray(k % width, first + k / width))
            .collect();
        let mut depths = Depths {
            key: vec![f64::NEG_INFINITY; rows * width],
            face: vec![NO_FACE; rows * width],
        };
        let mut faces: Vec<Face> = Vec::new();
        let mut others: Vec<&Collider> = Vec::new();
        for (_, c) in self.pw.colliders.iter() {
            if !seen(c) {
                continue;
            }
            let pose = pose_from_rapier(c.position());
            let ud = c.user_data;
            let (entity, model) = (EntityId(ud as u64), unpack_model(ud));
            if let Some(h) = super::plane::half_space_of(c.shape()) {
                let normal = pose.orientation.rotate(vec_from_rapier(h.normal));
                faces.push(Face {
                    normal,
                    offset: normal.dot(pose.position),
                    solid: true,
                    entity,
                    model,
                });
                plane_depths(
                    cam,
                    &px,
                    faces[faces.len() - 1],
                    (faces.len() - 1) as u32,
                    &mut depths,
                );
                continue;
            }
            let aabb = c.compute_aabb();
            let (lo, hi) = (vec_from_rapier(aabb.mins), vec_from_rapier(aabb.maxs));
            if cam.rect(lo, hi).is_none() {
                continue;
            }
            // A solid reaching across the near plane may hold where rays start: parry's
            // cast of that shape tells which.
            let across = cam.behind_near(lo, hi);
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
                        faces.push(Face {
                            normal,
                            offset: normal.dot(p[q[0]]),
                            solid: true,
                            entity,
                            model,
                        });
                        let f = (faces.len() - 1) as u32;
                        triangle(cam, [p[q[0]], p[q[1]], p[q[2]]], f, &mut depths);
                        triangle(cam, [p[q[0]], p[q[2]], p[q[3]]], f, &mut depths);
                    }
                }
                TypedShape::TriMesh(m) => {
                    for t in m.triangles() {
                        let v = [t.a, t.b, t.c].map(|v| pose.transform_point(vec_from_rapier(v)));
                        let n = (v[1] - v[0]).cross(v[2] - v[0]);
                        let len = n.length();
                        if !(len > 0.0) {
                            continue;
                        }
                        let normal = n.scale(1.0 / len);
                        faces.push(Face {
                            normal,
                            offset: normal.dot(v[0]),
                            solid: false,
                            entity,
                            model,
                        });
                        triangle(cam, v, (faces.len() - 1) as u32, &mut depths);
                    }
                }
                _ => others.push(c),
            }
        }
        resolve(cam, &px, &faces, &depths, hits);
        for c in others {
            exact(cam, &px, c, hits);
        }
        let mut n = 0;
        for (k, h) in hits.iter_mut().enumerate() {
            if !h.distance.is_finite() {
                continue;
            }
            if h.distance * px[k].dx > cam.far {
                *h = RayHit::MISS;
            } else {
                if !view.normals {
                    h.normal = Vec3::ZERO;
                }
                n += 1;
            }
        }
        n
    }
}

/// The depth pass of the half-space `face` (number `f`): every pixel whose ray meets it.
fn plane_depths(cam: &Camera, px: &[Px], face: Face, f: u32, depths: &mut Depths) {
    for (k, p) in px.iter().enumerate() {
        let s = cam.near / p.dx;
        let den = face.normal.dot(p.dir);
        let side = face.normal.dot(p.origin) - face.offset + s * den;
        let dist = if side < 0.0 {
            s
        } else if den < 0.0 {
            s - side / den
        } else {
            continue;
        };
        let key = cam.key(dist * p.dx);
        if key > depths.key[k] {
            depths.key[k] = key;
            depths.face[k] = f;
        }
    }
}

/// The depth pass of one triangle (world vertices) of face `f`: clipped at the near plane,
/// projected and scan converted over the band's pixel centres.
fn triangle(cam: &Camera, v: [Vec3; 3], f: u32, depths: &mut Depths) {
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
    let s: [(f64, f64, f64); 4] = std::array::from_fn(|k| {
        let q = poly[k.min(n - 1)];
        let (u, v) = cam.project(q);
        (u, v, cam.key(q[2]))
    });
    scan(cam, [s[0], s[1], s[2]], f, depths);
    if n == 4 {
        scan(cam, [s[0], s[2], s[3]], f, depths);
    }
}

/// Scan converts one projected triangle (`(u, v, 1/z)` at its vertices).
fn scan(cam: &Camera, t: [(f64, f64, f64); 3], f: u32, depths: &mut Depths) {
    let [(u0, v0, z0), (u1, v1, z1), (u2, v2, z2)] = t;
    let area = (u1 - u0) * (v2 - v0) - (v1 - v0) * (u2 - u0);
    if !(area.abs() > 1e-12) {
        return;
    }
    let inv = 1.0 / area;
    let umin = u0.min(u1).min(u2);
    let umax = u0.max(u1).max(u2);
    let vmin = v0.min(v1).min(v2);
    let vmax = v0.max(v1).max(v2);
    let cols = pixel_range(umin, umax, cam.width);
    let band_end = cam.first_row + cam.rows;
    let rows = pixel_range(vmin, vmax, band_end);
    let rows = rows.start.max(cam.first_row)..rows.end;
    // Edge functions (as barycentric weights, scaled by 1/area) at a pixel centre.
    let edge = |ua: f64, va: f64, ub: f64, vb: f64| {
        // w(u, v) = ((ub - ua)(v - va) - (vb - va)(u - ua)) / area, linear in u and v.
        let du = -(vb - va) * inv;
        let dv = (ub - ua) * inv;
        let c = -(du * ua + dv * va);
        (du, dv, c)
    };
    let e0 = edge(u1, v1, u2, v2);
    let e1 = edge(u2, v2, u0, v0);
    let e2 = edge(u0, v0, u1, v1);
    for j in rows {
        let v = j as f64 + 0.5;
        let row = (j - cam.first_row) * cam.width;
        for i in cols.clone() {
            let u = i as f64 + 0.5;
            let w0 = e0.0 * u + e0.1 * v + e0.2;
            let w1 = e1.0 * u + e1.1 * v + e1.2;
            let w2 = e2.0 * u + e2.1 * v + e2.2;
            if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                continue;
            }
            let key = w0 * z0 + w1 * z1 + w2 * z2;
            let k = row + i;
            if key > depths.key[k] {
                depths.key[k] = key;
                depths.face[k] = f;
            }
        }
    }
}

/// The hits of the faces the depth pass found: each pixel's ray from the near plane
/// intersected with its face's plane.
fn resolve(cam: &Camera, px: &[Px], faces: &[Face], depths: &Depths, hits: &mut [RayHit]) {
    for ((h, &f), p) in hits.iter_mut().zip(&depths.face).zip(px) {
        if f == NO_FACE {
            continue;
        }
        let face = faces[f as usize];
        let s = cam.near / p.dx;
        let den = face.normal.dot(p.dir);
        let side = face.normal.dot(p.origin) - face.offset + s * den;
        let (distance, normal) = if face.solid && side < 0.0 {
            // The ray starts inside the solid.
            (s, Vec3::ZERO)
        } else if den != 0.0 {
            (s + (-side / den).max(0.0), face.normal)
        } else {
            continue;
        };
        *h = RayHit {
            distance,
            normal,
            entity: face.entity,
            model: face.model,
        };
    }
}

/// Casts the pixels of the box `c` projects to at its shape with parry, keeping nearer hits.
fn exact(cam: &Camera, px: &[Px], c: &Collider, hits: &mut [RayHit]) {
    let aabb = c.compute_aabb();
    let Some((cols, rows)) = cam.rect(vec_from_rapier(aabb.mins), vec_from_rapier(aabb.maxs))
    else {
        return;
    };
    let ud = c.user_data;
    for j in rows {
        for i in cols.clone() {
            let k = (j - cam.first_row) * cam.width + i;
            let p = px[k];
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
            if distance < hits[k].distance {
                hits[k] = RayHit {
                    distance,
                    normal: vec_from_rapier(hit.normal),
                    entity: EntityId(ud as u64),
                    model: unpack_model(ud),
                };
            }
        }
    }
}
