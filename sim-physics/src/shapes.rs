//! SDF geometry -> rapier shapes, with the files they read (meshes, height-map images) loaded
//! once and the resulting shapes shared.
//!
//! - Meshes (STL, OBJ, COLLADA, read by [`sim_world::mesh`]) become triangle meshes: rapier's own
//!   accelerated structure (a BVH over the triangles) answers ray casts and contacts. The
//!   collisions of dynamic links use the mesh's convex decomposition instead (see
//!   [`ShapeCache::shape`]). The link's mass and inertia come from its `<inertial>` as for
//!   every shape (for `<inertial auto="true">`, the reader computed them from the solid the
//!   mesh encloses, with [`mesh_triangles`](sim_world::mesh::mesh_triangles)). Files are read
//!   once per world; a shape used many times (same file, scale and submesh) is one
//!   [`SharedShape`] referenced by every collider.
//! - Height maps become rapier height fields: the image's first channel, scaled so that the
//!   brightest pixel is `size.z` high (Gazebo's rule), the image's top row on the +y edge,
//!   the terrain spanning exactly `size.x` x `size.y` centred at `pos` (Gazebo classic spaced
//!   samples `size / samples`, one cell short of the size; ours spans the size it is given).
//!   Unlike Gazebo, images need not be square nor 2^n+1 wide.
//! - Polylines are extruded into closed triangle meshes; a polyline inside another is a hole.
//! - Cylinders and cones are along Y in rapier and along Z in SDF: [`ShapeCache::shape`]
//!   returns the offset that turns one into the other.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rapier3d::prelude::*;

use super::convert::vec_to_rapier;
use sim_world::input::Limits;
use sim_world::mesh::{FileMesh, MeshError, mesh_path, read_file, triangles};
use sim_world::{Geometry, HeightmapShape, MeshShape, Polyline, Pose, Quat, Span, Vec3};

/// Identity of a built shape: the file and everything applied to it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct ShapeKey {
    path: PathBuf,
    submesh: Option<String>,
    center: bool,
    /// Scale (or heightmap size and position) as bit patterns.
    params: [u64; 6],
    /// Whether the shape is the convex decomposition of the mesh (see [`ShapeCache::shape`]).
    solid: bool,
}

/// Files read and shapes built for one world (kept for models spawned later). Clones share
/// one store, so that a model built apart to check it (see `Physics::check_model`) leaves
/// its shapes for the build that follows.
#[derive(Clone, Default)]
pub(crate) struct ShapeCache {
    store: Arc<Mutex<Store>>,
    /// The bounds on the files read and the shapes built.
    pub(super) limits: Limits,
}

/// What a [`ShapeCache`] keeps.
#[derive(Default)]
pub(super) struct Store {
    pub(super) files: HashMap<PathBuf, Arc<Vec<FileMesh>>>,
    pub(super) shapes: HashMap<ShapeKey, SharedShape>,
    /// Primitive shapes by kind and dimensions (see [`Primitive`]).
    pub(super) primitives: HashMap<Primitive, SharedShape>,
}

/// Identity of a primitive shape: its kind and its dimensions' bit patterns, as rapier is
/// given them. The colliders of equal primitives share one [`SharedShape`], so that a world
/// of many equal boxes reads one shape where the narrow phase would read one per collider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Primitive {
    kind: PrimitiveKind,
    dimensions: [u32; 3],
}

/// The kinds of [`Primitive`], each with the dimensions rapier builds it from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum PrimitiveKind {
    /// Half extents.
    Cuboid,
    /// Radius.
    Ball,
    /// Half height and radius, along Y.
    Cylinder,
    /// Half height and radius, along Y.
    Cone,
    /// Half height and radius, along Z.
    Capsule,
}

impl Primitive {
    fn new(kind: PrimitiveKind, dimensions: [f32; 3]) -> Primitive {
        Primitive {
            kind,
            dimensions: dimensions.map(f32::to_bits),
        }
    }

    /// The shape.
    fn build(self) -> SharedShape {
        let [a, b, c] = self.dimensions.map(f32::from_bits);
        match self.kind {
            PrimitiveKind::Cuboid => SharedShape::cuboid(a, b, c),
            PrimitiveKind::Ball => SharedShape::ball(a),
            PrimitiveKind::Cylinder => SharedShape::cylinder(a, b),
            PrimitiveKind::Cone => SharedShape::cone(a, b),
            PrimitiveKind::Capsule => SharedShape::capsule_z(a, b),
        }
    }
}

impl std::fmt::Debug for ShapeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let store = self.store();
        f.debug_struct("ShapeCache")
            .field("files", &store.files.len())
            .field("shapes", &store.shapes.len())
            .finish()
    }
}

/// The largest size of a shape, in metres (an infinite plane aside): 1000 km.
pub(crate) const MAX_SHAPE_EXTENT: f32 = 1.0e6;

/// Rapier's cylinders and cones are along Y; SDF's along Z.
fn y_to_z() -> Quat {
    Quat::from_rpy(std::f64::consts::FRAC_PI_2, 0.0, 0.0)
}

impl ShapeCache {
    /// A cache reading files and building shapes within `limits`.
    pub(crate) fn new(limits: Limits) -> ShapeCache {
        ShapeCache {
            limits,
            ..ShapeCache::default()
        }
    }

    /// The files and shapes kept (never held while a file is read or a shape built).
    pub(super) fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The rapier shape of `g` and the pose of that shape in the SDF shape's frame; `None`
    /// for `<empty>`. `span` locates the geometry for error messages.
    ///
    /// `solid`: the shape is the collision of a dynamic body. A mesh is then built as its
    /// convex decomposition (rapier's VHACD), not as a triangle mesh: triangle meshes touching
    /// each other make contact manifolds per pair of triangles, which in a pile of dynamic
    /// meshes costs gigabytes and seconds per step, and they have no inside to push out of.
    /// Static and kinematic bodies and every visual keep the exact triangles (cameras, and
    /// ray sensors set to see visuals, always see those; a ray sensor seeing collisions sees
    /// the convex parts of a dynamic mesh).
    pub(crate) fn shape(
        &mut self,
        g: &Geometry,
        span: &Span,
        solid: bool,
    ) -> Result<Option<(SharedShape, Pose)>, super::BuildError> {
        let err = |message: String| super::BuildError {
            span: span.clone(),
            message,
        };
        let along_z = Pose::new(Vec3::ZERO, y_to_z());
        let built = match g {
            Geometry::Box { size } => (
                self.primitive(Primitive::new(
                    PrimitiveKind::Cuboid,
                    [size.x, size.y, size.z].map(|s| s as f32 / 2.0),
                )),
                Pose::IDENTITY,
            ),
            Geometry::Sphere { radius } => (
                self.primitive(Primitive::new(
                    PrimitiveKind::Ball,
                    [*radius as f32, 0.0, 0.0],
                )),
                Pose::IDENTITY,
            ),
            Geometry::Cylinder { radius, length } => (
                self.primitive(Primitive::new(
                    PrimitiveKind::Cylinder,
                    [*length as f32 / 2.0, *radius as f32, 0.0],
                )),
                along_z,
            ),
            Geometry::Cone { radius, length } => (
                self.primitive(Primitive::new(
                    PrimitiveKind::Cone,
                    [*length as f32 / 2.0, *radius as f32, 0.0],
                )),
                along_z,
            ),
            Geometry::Capsule { radius, length } => (
                self.primitive(Primitive::new(
                    PrimitiveKind::Capsule,
                    [*length as f32 / 2.0, *radius as f32, 0.0],
                )),
                Pose::IDENTITY,
            ),
            Geometry::Ellipsoid { radii } => (ellipsoid(*radii).map_err(err)?, Pose::IDENTITY),
            Geometry::Plane { normal, .. } => {
                let n = normal.normalized();
                if n.length() == 0.0 {
                    return Err(err("a plane's normal must not be zero".into()));
                }
                (
                    SharedShape::new(super::plane::Plane::new(vec_to_rapier(n).normalize())),
                    Pose::IDENTITY,
                )
            }
            Geometry::Mesh(mesh) => (self.mesh(mesh, solid).map_err(err)?, Pose::IDENTITY),
            Geometry::Heightmap(h) => {
                let shape = self.heightmap(h).map_err(err)?;
                // Rapier's height field is along +Y with rows along +Z: turned about X by
                // +90 degrees its heights point along +Z and row 0 lies on the +Y edge.
                (shape, Pose::new(h.pos, y_to_z()))
            }
            Geometry::Polyline(lines) => (polyline(lines).map_err(err)?, Pose::IDENTITY),
            Geometry::Empty => return Ok(None),
        };
        // The engine computes in single precision: far larger shapes lose all precision, and
        // the contact solver's numerics break down on them.
        if super::plane::half_space_of(&*built.0).is_none() {
            let aabb = built.0.compute_local_aabb();
            let extent = (aabb.maxs - aabb.mins).max_element();
            if !(extent.is_finite() && extent <= MAX_SHAPE_EXTENT) {
                return Err(err(format!(
                    "the shape is {extent:e} m across, larger than the {MAX_SHAPE_EXTENT:e} m this engine simulates"
                )));
            }
        }
        Ok(Some(built))
    }

    /// The shape of a primitive, built once per world.
    fn primitive(&mut self, p: Primitive) -> SharedShape {
        if let Some(s) = self.store().primitives.get(&p) {
            return s.clone();
        }
        let built = p.build();
        self.store().primitives.entry(p).or_insert(built).clone()
    }

    /// The meshes of the file at `path`, read once.
    fn file(&mut self, path: &Path) -> Result<Arc<Vec<FileMesh>>, MeshError> {
        if let Some(f) = self.store().files.get(path) {
            return Ok(f.clone());
        }
        let meshes = Arc::new(read_file(path, &self.limits)?);
        self.store()
            .files
            .insert(path.to_path_buf(), meshes.clone());
        Ok(meshes)
    }

    fn mesh(&mut self, m: &MeshShape, solid: bool) -> Result<SharedShape, String> {
        let path = mesh_path(&m.resource).map_err(|e| e.to_string())?;
        let key = ShapeKey {
            path: path.clone(),
            submesh: m.submesh.clone(),
            center: m.center_submesh,
            params: [m.scale.x, m.scale.y, m.scale.z, 0.0, 0.0, 0.0].map(f64::to_bits),
            solid,
        };
        if let Some(s) = self.store().shapes.get(&key) {
            return Ok(s.clone());
        }
        let file = self.file(&path).map_err(|e| e.to_string())?;
        let (vertices, indices) = triangles(&file, m, &path).map_err(|e| e.to_string())?;
        let points: Vec<Vector> = vertices.into_iter().map(vec_to_rapier).collect();
        // Refused before anything is built from them: the convex decomposition sizes its
        // voxel grid from the points' extent, and overflowed on a mesh 10³⁸ m across.
        let extent = extent_of(&points);
        if !(extent.is_finite() && extent <= MAX_SHAPE_EXTENT) {
            return Err(format!(
                "the mesh {} is {extent:e} m across (scaled), larger than the \
                 {MAX_SHAPE_EXTENT:e} m this engine simulates",
                path.display()
            ));
        }
        let shape = if solid {
            solid_mesh(&points, &indices, self.limits.max_decomposition_triangles)
                .map_err(|e| format!("{} ({})", e, path.display()))?
        } else {
            SharedShape::trimesh(points, indices)
                .map_err(|e| format!("cannot build the mesh of {}: {e}", path.display()))?
        };
        self.store().shapes.insert(key, shape.clone());
        Ok(shape)
    }

    fn heightmap(&mut self, h: &HeightmapShape) -> Result<SharedShape, String> {
        let path = h.resource.resolved.clone()?;
        let key = ShapeKey {
            path: path.clone(),
            submesh: None,
            center: false,
            params: [h.size.x, h.size.y, h.size.z, 0.0, 0.0, 0.0].map(f64::to_bits),
            solid: false,
        };
        if let Some(s) = self.store().shapes.get(&key) {
            return Ok(s.clone());
        }
        let image = GreyImage::read(&path, &self.limits)?;
        if image.width < 2 || image.height < 2 {
            return Err(format!(
                "the height-map image {} is {}x{} pixels; it needs at least 2x2",
                path.display(),
                image.width,
                image.height
            ));
        }
        let brightest = image.values.iter().copied().fold(0.0f64, f64::max);
        let z_scale = if brightest > 0.0 {
            h.size.z / brightest
        } else {
            h.size.z
        };
        // Column-major: rows (image rows, along the field's +Z = world -Y), then columns.
        let (rows, cols) = (image.height, image.width);
        let mut heights = Vec::with_capacity(rows * cols);
        for c in 0..cols {
            for r in 0..rows {
                heights.push((image.values[r * cols + c] * z_scale) as f32);
            }
        }
        let shape = SharedShape::heightfield(
            rapier3d::parry::utils::Array2::new(rows, cols, heights),
            Vector::new(h.size.x as f32, 1.0, h.size.y as f32),
        );
        self.store().shapes.insert(key, shape.clone());
        Ok(shape)
    }
}

/// A grey-scale reading of an image: the first channel of each pixel in [0, 1], row-major.
struct GreyImage {
    width: usize,
    height: usize,
    values: Vec<f64>,
}

impl GreyImage {
    fn read(path: &Path, limits: &Limits) -> Result<GreyImage, String> {
        let what = |e: &dyn std::fmt::Display| {
            format!(
                "cannot read the height-map image {}: {e} (a PNG image is expected)",
                path.display()
            )
        };
        let bytes =
            sim_world::input::read_regular(path, limits.max_mesh_bytes).map_err(|e| what(&e))?;
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        // Palettes and sub-byte depths are expanded to 8 bits; 16 bits are kept.
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().map_err(|e| what(&e))?;
        // The header says how large the image is: checked before anything is allocated.
        let (w, h) = (reader.info().width, reader.info().height);
        let pixels = u64::from(w) * u64::from(h);
        if pixels > limits.max_heightmap_pixels {
            return Err(what(&format_args!(
                "it is {w}x{h} pixels, more than the limit of {} pixels (raise \
                 --max-heightmap-pixels, LoadOptions::limits.max_heightmap_pixels, for a larger terrain)",
                limits.max_heightmap_pixels
            )));
        }
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| what(&"the image is too large"))?;
        let mut buf = vec![0; size];
        let info = reader.next_frame(&mut buf).map_err(|e| what(&e))?;
        let channels = info.color_type.samples();
        let (width, height) = (info.width as usize, info.height as usize);
        let wide = info.bit_depth == png::BitDepth::Sixteen;
        let mut values = Vec::with_capacity(width * height);
        for r in 0..height {
            let row = &buf[r * info.line_size..(r + 1) * info.line_size];
            for c in 0..width {
                let v = if wide {
                    let at = c * channels * 2;
                    f64::from(u16::from_be_bytes([row[at], row[at + 1]])) / 65535.0
                } else {
                    f64::from(row[c * channels]) / 255.0
                };
                values.push(v);
            }
        }
        Ok(GreyImage {
            width,
            height,
            values,
        })
    }
}

/// The largest side of the box around `points` (0 for none; infinite or NaN when a side is).
fn extent_of(points: &[Vector]) -> f32 {
    let Some(first) = points.first() else {
        return 0.0;
    };
    let (lo, hi) = points
        .iter()
        .fold((*first, *first), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    let sides = hi - lo;
    if sides.is_finite() {
        sides.max_element()
    } else {
        f32::INFINITY
    }
}

/// The collision shape of a mesh on a dynamic body (see [`ShapeCache::shape`]): its convex
/// decomposition, or its convex hull when it has more than `max_triangles` triangles (the
/// decomposition's work grows with them: a 20,000-triangle soup takes minutes) or the
/// decomposition finds no part; the triangles themselves when they enclose no volume (a
/// flat mesh). `indices` are triangles with an area, of finite vertices (see
/// [`triangles`]).
fn solid_mesh(
    points: &[Vector],
    indices: &[[u32; 3]],
    max_triangles: usize,
) -> Result<SharedShape, String> {
    if indices.len() <= max_triangles {
        let decomposition = rapier3d::parry::transformation::vhacd::VHACD::decompose(
            &rapier3d::parry::transformation::vhacd::VHACDParameters::default(),
            points,
            indices,
            true,
        );
        let parts: Vec<(rapier3d::parry::math::Pose, SharedShape)> = decomposition
            .compute_exact_convex_hulls(points, indices)
            .into_iter()
            .filter_map(|(v, i)| SharedShape::convex_mesh(v, &i))
            .map(|part| (rapier3d::parry::math::Pose::IDENTITY, part))
            .collect();
        if !parts.is_empty() {
            return Ok(SharedShape::compound(parts));
        }
    }
    let used: Vec<Vector> = {
        let mut seen = vec![false; points.len()];
        indices
            .iter()
            .flatten()
            .for_each(|&i| seen[i as usize] = true);
        points
            .iter()
            .zip(seen)
            .filter_map(|(p, s)| s.then_some(*p))
            .collect()
    };
    match SharedShape::convex_hull(&used) {
        Some(hull) => Ok(hull),
        // Flat: no hull has a volume; the triangles collide as they are.
        None => SharedShape::trimesh(points.to_vec(), indices.to_vec())
            .map_err(|e| format!("cannot build the mesh: {e}")),
    }
}

/// Rapier has no ellipsoid: the convex hull of a dense sampling of its surface.
fn ellipsoid(radii: Vec3) -> Result<SharedShape, String> {
    let mut pts = Vec::new();
    let (nu, nv) = (24, 12);
    for i in 0..=nv {
        let v = std::f64::consts::PI * i as f64 / nv as f64;
        for j in 0..nu {
            let u = 2.0 * std::f64::consts::PI * j as f64 / nu as f64;
            pts.push(Vector::new(
                (radii.x * v.sin() * u.cos()) as f32,
                (radii.y * v.sin() * u.sin()) as f32,
                (radii.z * v.cos()) as f32,
            ));
        }
    }
    SharedShape::convex_hull(&pts).ok_or_else(|| "could not build the ellipsoid's hull".into())
}

/// Whether `p` is inside the closed polygon `poly` (even-odd rule).
fn inside(p: [f64; 2], poly: &[[f64; 2]]) -> bool {
    let mut odd = false;
    let mut j = poly.len() - 1;
    for i in 0..poly.len() {
        let (a, b) = (poly[i], poly[j]);
        if (a[1] > p[1]) != (b[1] > p[1])
            && p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0]
        {
            odd = !odd;
        }
        j = i;
    }
    odd
}

/// Extrudes polylines into one closed triangle mesh from z = 0 to each outline's height. An
/// outline inside an odd number of others is a hole of the innermost outline around it.
fn polyline(lines: &[Polyline]) -> Result<SharedShape, String> {
    let depth: Vec<usize> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            lines
                .iter()
                .enumerate()
                .filter(|(j, o)| *j != i && inside(l.points[0], &o.points))
                .count()
        })
        .collect();
    let mut vertices: Vec<Vector> = Vec::new();
    let mut indices: Vec<[u32; 3]> = Vec::new();
    for (i, shell) in lines.iter().enumerate() {
        if depth[i] % 2 == 1 {
            continue;
        }
        // Holes of this shell: outlines one level deeper that lie inside it.
        let holes: Vec<&Polyline> = lines
            .iter()
            .enumerate()
            .filter(|(j, l)| depth[*j] == depth[i] + 1 && inside(l.points[0], &shell.points))
            .map(|(_, l)| l)
            .collect();
        let mut flat: Vec<f64> = Vec::new();
        let mut hole_starts = Vec::new();
        let mut rings: Vec<&[[f64; 2]]> = vec![&shell.points];
        for h in &holes {
            rings.push(&h.points);
        }
        for (k, ring) in rings.iter().enumerate() {
            if k > 0 {
                hole_starts.push(flat.len() / 2);
            }
            for p in ring.iter() {
                flat.extend_from_slice(p);
            }
        }
        let tris = earcutr::earcut(&flat, &hole_starts, 2)
            .map_err(|e| format!("cannot triangulate the polyline: {e:?}"))?;
        if tris.is_empty() {
            return Err("the polyline encloses no area (are its points on one line?)".into());
        }
        let n = flat.len() / 2;
        let base = vertices.len() as u32;
        let h = shell.height as f32;
        for z in [0.0, h] {
            for k in 0..n {
                vertices.push(Vector::new(flat[2 * k] as f32, flat[2 * k + 1] as f32, z));
            }
        }
        for t in tris.chunks_exact(3) {
            let (a, b, c) = (t[0] as u32, t[1] as u32, t[2] as u32);
            indices.push([base + a, base + c, base + b]); // bottom, facing down
            indices.push([
                base + n as u32 + a,
                base + n as u32 + b,
                base + n as u32 + c,
            ]);
        }
        // Side walls of every ring.
        let mut start = 0;
        for ring in &rings {
            let len = ring.len();
            for k in 0..len {
                let a = base + (start + k) as u32;
                let b = base + (start + (k + 1) % len) as u32;
                let (a2, b2) = (a + n as u32, b + n as u32);
                indices.push([a, b, b2]);
                indices.push([a, b2, a2]);
            }
            start += len;
        }
    }
    SharedShape::trimesh(vertices, indices).map_err(|e| format!("cannot build the polyline: {e}"))
}
