//! The raster extension (`simcore.raster.v1`): a pinhole camera's primary visibility by
//! rasterising the visual geometry into its pixel grid, instead of one ray per pixel.
//!
//! A call rasterises one band of image rows, in three passes over the visual colliders the
//! camera sees (its own model and the visuals its mask leaves out skipped, as the ray cast
//! skips them). What a view's depth pass draws (the faces, the triangles projected into the
//! image, the shapes left to parry) depends on the view and the world alone: it is made once
//! by the first band of a frame to need it ([`pass::Frames`]) and shared by the others, on
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
use rapier3d::prelude::{Collider, Ray, TypedShape};
use sim_plugin_api::{
    ALL_VISIBLE, EntityId, OrthoView, PinholeView, Raster, RayHit, Vec3,
    abi_stable::std_types::RSliceMut,
};
use std::sync::{Arc, OnceLock};

mod camera;
pub(super) mod pass;

use camera::Camera;
use pass::{Depths, Face, NO_FACE, Projected, band_depths, planar_face, triangle};

/// The most pixels of an image whose rays' lengths are kept ([`Physics::lengths`]: 16 MB,
/// a 1920 x 1080 image's; at most eight images are kept): a larger image's are computed
/// pixel by pixel.
const MAX_LENGTHS: usize = 1 << 21;

/// The rays' lengths per unit of depth of each image, by its size and intrinsics: kept while
/// the world changes (a camera's lens does not).
pub(crate) type Lenses = crate::kept::Kept<Lens, Vec<f64>>;

/// What the lengths of an image's rays depend on: its size and intrinsics (their bits).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Lens([u64; 6]);

impl Lens {
    fn of(view: &PinholeView) -> Self {
        Lens([
            u64::from(view.width) << 32 | u64::from(view.height),
            view.fx.to_bits(),
            view.fy.to_bits(),
            view.cx.to_bits(),
            view.cy.to_bits(),
            view.skew.to_bits(),
        ])
    }
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
        let lengths = self.lengths(view, &cam);
        let lengths = lengths
            .as_ref()
            .and_then(|l| l.get())
            .map(|l| &l[cam.first_row * cam.width..][..hits.len()]);
        // Every pixel written once (a miss or a hit), and the hits counted on the way.
        let mut seen = resolve(&cam, &pass.faces, &depths, view.normals, lengths, hits);
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
        // The rays start on the near plane, `near` 0: a pixel that sees the inside of a
        // half-space has the key of depth 0 (`plane_depths`), and its depth is 0 as any
        // other face's, `-key`, without looking its face up (a loop the compiler vectorises).
        debug_assert_eq!(cam.key(cam.near).to_bits(), (-0.0f64).to_bits());
        let mut seen = 0u32;
        for (o, (&f, &key)) in out.iter_mut().zip(depths.face.iter().zip(&depths.key)) {
            *o = if f == NO_FACE || key < far {
                f32::INFINITY
            } else {
                -key as f32
            };
            seen += u32::from(o.is_finite());
        }
        if pass.others.is_empty() {
            return seen;
        }
        for c in pass.others.iter().filter_map(|&h| self.pw.colliders.get(h)) {
            exact_depths(&cam, c, out);
        }
        out.iter().filter(|d| d.is_finite()).count() as u32
    }

    /// The length of each pixel's ray per unit of depth in `view`'s image, row by row
    /// ([`Camera::length`]; `cam`, any band of it), made by the first band that needs it and
    /// kept, while the world changes, for the views of the same size and intrinsics (`None`
    /// for an image of more than [`MAX_LENGTHS`] pixels).
    fn lengths(&self, view: &PinholeView, cam: &Camera) -> Option<Arc<OnceLock<Vec<f64>>>> {
        let (w, h) = (view.width as usize, view.height as usize);
        w.checked_mul(h).filter(|p| *p <= MAX_LENGTHS)?;
        Some(self.lenses.get(&Lens::of(view), || {
            // The intrinsics alone: the same for every band.
            let (xn, yn) = cam.normalised();
            (0..h)
                .flat_map(|j| (0..w).map(move |i| (i, j)))
                .map(|(i, j)| Camera::length(&xn, &yn, i, j))
                .collect()
        }))
    }

    /// The depth pass of `view` over the whole image, made by the first band that needs it
    /// and kept for the others (`None` for an image without pixels).
    fn projected(&self, view: &PinholeView, ortho: bool) -> Option<Arc<OnceLock<Projected>>> {
        let pixels = (view.width as usize).saturating_mul(view.height as usize);
        let whole = Camera::band(view, 0, pixels, ortho)?;
        Some(
            self.rays
                .frames()
                .get(&(*view, ortho), || self.depth_pass(&whole, view)),
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

/// Writes every pixel of the band: the hit of the face the depth pass found (within the far
/// clip), with its normal when `normals`, or a miss. Returns the number of hits. `lengths`:
/// the band's pixels' [`Camera::length`]s, where they are kept.
fn resolve(
    cam: &Camera,
    faces: &[Face],
    depths: &Depths,
    normals: bool,
    lengths: Option<&[f64]>,
    hits: &mut [RayHit],
) -> usize {
    let (xn, yn) = cam.normalised();
    let (far, near) = (cam.key(cam.far), cam.key(cam.near));
    let mut seen = 0;
    let w = cam.width;
    let rows = hits
        .chunks_exact_mut(w)
        .zip(depths.face.chunks_exact(w).zip(depths.key.chunks_exact(w)));
    for (r, (hits, (faces_at, keys))) in rows.enumerate() {
        let j = cam.first_row + r;
        // Neighbouring pixels mostly show the same face: its hit but for the distance is
        // made once for each run of them.
        let mut last = (NO_FACE, RayHit::MISS, false);
        for (i, (h, (&f, &key))) in hits.iter_mut().zip(faces_at.iter().zip(keys)).enumerate() {
            if f == NO_FACE || key < far {
                *h = RayHit::MISS;
                continue;
            }
            if f != last.0 {
                let face = &faces[f as usize];
                let hit = RayHit {
                    distance: 0.0,
                    normal: if normals { face.normal } else { Vec3::ZERO },
                    entity: face.entity,
                    model: face.model,
                };
                last = (f, hit, face.inside);
            }
            let key = if last.2 { near } else { key };
            let distance = match lengths {
                Some(l) => l[r * w + i] / key,
                None => cam.distance(&xn, &yn, i, j, key),
            };
            seen += usize::from(distance.is_finite());
            *h = RayHit { distance, ..last.1 };
        }
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
