//! SDF geometry -> rapier shapes, with the files they read (meshes, height-map images) loaded
//! once and the resulting shapes shared.
//!
//! - Meshes (STL, OBJ, COLLADA, through `mesh-loader`) become triangle meshes: rapier's own
//!   accelerated structure (a BVH over the triangles) answers ray casts and contacts. The
//!   collisions of dynamic links use the mesh's convex decomposition instead (see
//!   [`ShapeCache::shape`]). The link's mass and inertia come from its `<inertial>` as for
//!   every shape (for `<inertial auto="true">`, the reader computed them from the solid the
//!   mesh encloses, with [`mesh_triangles`]). Files are read once per world; a shape used many times (same file, scale and
//!   submesh) is one [`SharedShape`] referenced by every collider.
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
use std::sync::Arc;

use rapier3d::prelude::*;

use super::convert::vec_to_rapier;
use crate::world::{Geometry, HeightmapShape, MeshShape, Polyline, Pose, Quat, Span, Vec3};

/// One mesh of a file: vertices (in the file's frame, metres) and triangles.
#[derive(Debug)]
pub(super) struct FileMesh {
    /// The names `<submesh><name>` may use for it (for COLLADA: the geometry's id and name,
    /// and the scene node placing it; for OBJ: the object or group name).
    pub names: Vec<String>,
    pub vertices: Vec<[f32; 3]>,
    pub faces: Vec<[u32; 3]>,
}

/// Identity of a built shape: the file and everything applied to it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ShapeKey {
    path: PathBuf,
    submesh: Option<String>,
    center: bool,
    /// Scale (or heightmap size and position) as bit patterns.
    params: [u64; 6],
    /// Whether the shape is the convex decomposition of the mesh (see [`ShapeCache::shape`]).
    solid: bool,
}

/// Files read and shapes built for one world (kept for models spawned later).
#[derive(Default)]
pub(crate) struct ShapeCache {
    files: HashMap<PathBuf, Arc<Vec<FileMesh>>>,
    shapes: HashMap<ShapeKey, SharedShape>,
}

impl std::fmt::Debug for ShapeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShapeCache")
            .field("files", &self.files.len())
            .field("shapes", &self.shapes.len())
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
                SharedShape::cuboid(
                    size.x as f32 / 2.0,
                    size.y as f32 / 2.0,
                    size.z as f32 / 2.0,
                ),
                Pose::IDENTITY,
            ),
            Geometry::Sphere { radius } => (SharedShape::ball(*radius as f32), Pose::IDENTITY),
            Geometry::Cylinder { radius, length } => (
                SharedShape::cylinder(*length as f32 / 2.0, *radius as f32),
                along_z,
            ),
            Geometry::Cone { radius, length } => (
                SharedShape::cone(*length as f32 / 2.0, *radius as f32),
                along_z,
            ),
            Geometry::Capsule { radius, length } => (
                SharedShape::capsule_z(*length as f32 / 2.0, *radius as f32),
                Pose::IDENTITY,
            ),
            Geometry::Ellipsoid { radii } => (ellipsoid(*radii).map_err(err)?, Pose::IDENTITY),
            Geometry::Plane { normal, .. } => {
                let n = normal.normalized();
                if n.length() == 0.0 {
                    return Err(err("a plane's normal must not be zero".into()));
                }
                (
                    SharedShape::halfspace(vec_to_rapier(n).normalize()),
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
        if built.0.as_halfspace().is_none() {
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

    /// The meshes of the file at `path`, read once.
    fn file(&mut self, path: &Path) -> Result<Arc<Vec<FileMesh>>, String> {
        if let Some(f) = self.files.get(path) {
            return Ok(f.clone());
        }
        let meshes = Arc::new(read_file(path)?);
        self.files.insert(path.to_path_buf(), meshes.clone());
        Ok(meshes)
    }

    fn mesh(&mut self, m: &MeshShape, solid: bool) -> Result<SharedShape, String> {
        let path = mesh_path(&m.resource)?;
        let key = ShapeKey {
            path: path.clone(),
            submesh: m.submesh.clone(),
            center: m.center_submesh,
            params: [m.scale.x, m.scale.y, m.scale.z, 0.0, 0.0, 0.0].map(f64::to_bits),
            solid,
        };
        if let Some(s) = self.shapes.get(&key) {
            return Ok(s.clone());
        }
        let file = self.file(&path)?;
        let (vertices, indices) = triangles(&file, m, &path)?;
        let points: Vec<Vector> = vertices.into_iter().map(vec_to_rapier).collect();
        let shape = if solid {
            SharedShape::convex_decomposition(&points, &indices)
        } else {
            SharedShape::trimesh(points, indices)
                .map_err(|e| format!("cannot build the mesh of {}: {e}", path.display()))?
        };
        self.shapes.insert(key, shape.clone());
        Ok(shape)
    }

    fn heightmap(&mut self, h: &HeightmapShape) -> Result<SharedShape, String> {
        let path = mesh_path(&h.resource)?;
        let key = ShapeKey {
            path: path.clone(),
            submesh: None,
            center: false,
            params: [h.size.x, h.size.y, h.size.z, 0.0, 0.0, 0.0].map(f64::to_bits),
            solid: false,
        };
        if let Some(s) = self.shapes.get(&key) {
            return Ok(s.clone());
        }
        let image = GreyImage::read(&path)?;
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
        self.shapes.insert(key, shape.clone());
        Ok(shape)
    }
}

/// The meshes of the file at `path`: COLLADA through our own reader (units, node transforms),
/// the other formats through `mesh-loader`.
fn read_file(path: &Path) -> Result<Vec<FileMesh>, String> {
    let is_collada = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("dae"));
    if is_collada {
        return super::collada::read(path);
    }
    let scene = mesh_loader::Loader::default()
        .merge_meshes(false)
        .load(path)
        .map_err(|e| format!("cannot read the mesh file {}: {e}", path.display()))?;
    Ok(scene
        .meshes
        .into_iter()
        .map(|m| FileMesh {
            names: vec![m.name],
            vertices: m.vertices,
            faces: m.faces,
        })
        .collect())
}

/// The triangles of the mesh shape `m` made of the meshes of its file (read from `path`):
/// its `<submesh>` (or every mesh), centred if asked, scaled; vertices in metres in the
/// shape's frame.
fn triangles(
    file: &[FileMesh],
    m: &MeshShape,
    path: &Path,
) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), String> {
    let chosen: Vec<&FileMesh> = match &m.submesh {
        Some(name) => {
            let found: Vec<&FileMesh> = file.iter().filter(|f| f.names.contains(name)).collect();
            if found.is_empty() {
                let names: Vec<&str> = file.iter().map(|f| f.names[0].as_str()).collect();
                return Err(format!(
                    "the mesh file {} has no submesh \"{name}\"; it has: {}",
                    path.display(),
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ));
            }
            found
        }
        None => file.iter().collect(),
    };
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for f in chosen {
        let base = vertices.len() as u32;
        for tri in &f.faces {
            if tri.iter().any(|&i| i as usize >= f.vertices.len()) {
                return Err(format!(
                    "the mesh file {} has a triangle with a vertex index out of range",
                    path.display()
                ));
            }
            indices.push([tri[0] + base, tri[1] + base, tri[2] + base]);
        }
        vertices.extend(
            f.vertices
                .iter()
                .map(|v| Vec3::new(v[0].into(), v[1].into(), v[2].into())),
        );
    }
    if indices.is_empty() {
        return Err(format!(
            "the mesh file {} has no triangles{}",
            path.display(),
            match &m.submesh {
                Some(s) => format!(" in submesh \"{s}\""),
                None => String::new(),
            }
        ));
    }
    let offset = if m.center_submesh {
        let (lo, hi) = bounds(&vertices);
        (lo + hi) * 0.5
    } else {
        Vec3::ZERO
    };
    let vertices = vertices
        .iter()
        .map(|v| {
            let c = *v - offset;
            Vec3::new(c.x * m.scale.x, c.y * m.scale.y, c.z * m.scale.z)
        })
        .collect();
    Ok((vertices, indices))
}

/// The triangles of the mesh shape `m` (as [`ShapeCache`] builds them: submesh, centring and
/// scale applied), read from its file. For what needs a mesh's geometry before a world is
/// built (a link's automatic inertia).
pub(crate) fn mesh_triangles(m: &MeshShape) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), String> {
    let path = mesh_path(&m.resource)?;
    let file = read_file(&path)?;
    triangles(&file, m, &path)
}

/// The file a mesh or height-map URI resolved to, or why there is none.
fn mesh_path(r: &crate::world::Resource) -> Result<PathBuf, String> {
    r.resolved.clone()
}

fn bounds(v: &[Vec3]) -> (Vec3, Vec3) {
    let mut lo = Vec3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY);
    let mut hi = -lo;
    for p in v {
        lo = Vec3::new(lo.x.min(p.x), lo.y.min(p.y), lo.z.min(p.z));
        hi = Vec3::new(hi.x.max(p.x), hi.y.max(p.y), hi.z.max(p.z));
    }
    (lo, hi)
}

/// A grey-scale reading of an image: the first channel of each pixel in [0, 1], row-major.
struct GreyImage {
    width: usize,
    height: usize,
    values: Vec<f64>,
}

impl GreyImage {
    fn read(path: &Path) -> Result<GreyImage, String> {
        let what = |e: &dyn std::fmt::Display| {
            format!(
                "cannot read the height-map image {}: {e} (a PNG image is expected)",
                path.display()
            )
        };
        let file = std::fs::File::open(path).map_err(|e| what(&e))?;
        let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
        // Palettes and sub-byte depths are expanded to 8 bits; 16 bits are kept.
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().map_err(|e| what(&e))?;
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

#[cfg(test)]
mod tests {
    use super::super::Physics;
    use crate::world::Vec3;
    use sim_plugin_api::{
        EntityId, Ray, RayCastOptions, RayHit, RayTarget, WorldView,
        abi_stable::std_types::{RSlice, RSliceMut},
    };
    use std::path::Path;

    /// A shape far larger than single precision can simulate is a build error at its geometry
    /// (the contact solver panicked on such shapes), not a panic; a large ground plane is fine.
    #[test]
    fn shapes_too_large_to_simulate_are_refused_where_they_are_written() {
        let text = "<sdf version=\"1.9\"><world name=\"w\">\n<model name=\"ground\"><static>true</static><link name=\"l\"><collision name=\"p\"><geometry><plane><normal>0 0 1</normal><size>1e9 1e9</size></plane></geometry></collision></link></model>\n<model name=\"m\"><link name=\"l\">\n<collision name=\"c\"><geometry><cylinder><radius>18446744073709551616</radius><length>0.3</length></cylinder></geometry></collision>\n<collision name=\"d\"><geometry><cylinder><radius>0.1</radius><length>0.3</length></cylinder></geometry></collision>\n</link></model>\n</world></sdf>";
        let world = crate::sdf::parse_str(text, None).unwrap();
        let Err(e) = Physics::build(&world) else {
            panic!("a shape 3.7e19 m across was accepted")
        };
        assert_eq!(e.span.line, 4, "{e}");
        assert!(e.message.contains("larger than the 1e6 m"), "{e}");
        let fine = text.replace("18446744073709551616", "1000");
        let world = crate::sdf::parse_str(&fine, None).unwrap();
        assert!(Physics::build(&world).is_ok());
    }

    /// The 12 triangles of an axis-aligned box from `lo` to `hi`, outward facing.
    fn box_triangles(lo: [f64; 3], hi: [f64; 3]) -> (Vec<[f64; 3]>, Vec<[usize; 3]>) {
        let v: Vec<[f64; 3]> = (0..8)
            .map(|i| {
                [
                    if i & 1 == 0 { lo[0] } else { hi[0] },
                    if i & 2 == 0 { lo[1] } else { hi[1] },
                    if i & 4 == 0 { lo[2] } else { hi[2] },
                ]
            })
            .collect();
        let quads = [
            [0, 2, 3, 1], // -z
            [4, 5, 7, 6], // +z
            [0, 1, 5, 4], // -y
            [2, 6, 7, 3], // +y
            [0, 4, 6, 2], // -x
            [1, 3, 7, 5], // +x
        ];
        let mut f = Vec::new();
        for q in quads {
            f.push([q[0], q[1], q[2]]);
            f.push([q[0], q[2], q[3]]);
        }
        (v, f)
    }

    fn write_stl(path: &Path, lo: [f64; 3], hi: [f64; 3]) {
        let (v, f) = box_triangles(lo, hi);
        let mut s = String::from("solid box\n");
        for t in f {
            s += "facet normal 0 0 0\nouter loop\n";
            for i in t {
                s += &format!("vertex {} {} {}\n", v[i][0], v[i][1], v[i][2]);
            }
            s += "endloop\nendfacet\n";
        }
        s += "endsolid box\n";
        std::fs::write(path, s).unwrap();
    }

    fn write_obj(path: &Path, lo: [f64; 3], hi: [f64; 3]) {
        let (v, f) = box_triangles(lo, hi);
        let mut s = String::from("o cube\n");
        for p in &v {
            s += &format!("v {} {} {}\n", p[0], p[1], p[2]);
        }
        for t in f {
            s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
        }
        std::fs::write(path, s).unwrap();
    }

    /// A COLLADA file with two box geometries, `low` (0..1 in z) and `high` (offset by a node
    /// translation of 5 m along z), in centimetres (`<unit meter="0.01">`).
    fn write_dae(path: &Path) {
        let geometry = |id: &str| {
            let (v, f) = box_triangles([-50.0, -50.0, 0.0], [50.0, 50.0, 100.0]);
            let pos: Vec<String> = v.iter().flatten().map(|x| x.to_string()).collect();
            let idx: Vec<String> = f.iter().flatten().map(|x| x.to_string()).collect();
            format!(
                r##"<geometry id="{id}" name="{id}"><mesh>
  <source id="{id}-pos"><float_array id="{id}-arr" count="{n}">{pos}</float_array>
    <technique_common><accessor source="#{id}-arr" count="8" stride="3">
      <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
    </accessor></technique_common></source>
  <vertices id="{id}-v"><input semantic="POSITION" source="#{id}-pos"/></vertices>
  <triangles count="12"><input semantic="VERTEX" source="#{id}-v" offset="0"/><p>{idx}</p></triangles>
</mesh></geometry>"##,
                n = pos.len(),
                pos = pos.join(" "),
                idx = idx.join(" ")
            )
        };
        let doc = format!(
            r##"<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><unit meter="0.01" name="centimeter"/><up_axis>Z_UP</up_axis></asset>
<library_geometries>{}{}</library_geometries>
<library_visual_scenes><visual_scene id="Scene" name="Scene">
  <node id="n_low" name="n_low"><instance_geometry url="#low"/></node>
  <node id="n_high" name="n_high"><translate>0 0 500</translate><instance_geometry url="#high"/></node>
</visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>"##,
            geometry("low"),
            geometry("high")
        );
        std::fs::write(path, doc).unwrap();
    }

    fn world_with(dir: &Path, geometry: &str, pose: &str) -> std::path::PathBuf {
        let path = dir.join("w.sdf");
        std::fs::write(
            &path,
            format!(
                r#"<sdf version="1.9"><world name="w">
                <model name="thing"><static>true</static><pose>{pose}</pose><link name="l">
                  <collision name="c"><geometry>{geometry}</geometry></collision>
                  <visual name="v"><geometry>{geometry}</geometry></visual>
                </link></model></world></sdf>"#
            ),
        )
        .unwrap();
        path
    }

    fn build(path: &Path) -> Physics {
        let world = crate::sdf::load(path).unwrap_or_else(|e| panic!("{}", e.render(None)));
        Physics::build(&world).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Distances along each ray (`inf` for a miss), collision and visual geometry.
    fn cast(p: &Physics, rays: &[(Vec3, Vec3)], target: RayTarget) -> Vec<f64> {
        let rays: Vec<Ray> = rays
            .iter()
            .map(|&(origin, d)| Ray {
                origin,
                direction: d.normalized(),
            })
            .collect();
        let mut hits = vec![RayHit::MISS; rays.len()];
        let opts = RayCastOptions {
            max_distance: 100.0,
            target,
            exclude_model: EntityId::NONE,
        };
        p.view("test").cast_rays(
            RSlice::from_slice(&rays),
            &opts,
            RSliceMut::from_mut_slice(&mut hits),
        );
        hits.iter().map(|h| h.distance).collect()
    }

    fn down(x: f64, y: f64) -> (Vec3, Vec3) {
        (Vec3::new(x, y, 10.0), Vec3::new(0.0, 0.0, -1.0))
    }

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn stl_and_obj_meshes_are_hit_where_their_triangles_are_with_scale_and_pose() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("meshes")).unwrap();
        write_stl(
            &dir.path().join("meshes/box.stl"),
            [-0.5, -0.5, 0.0],
            [0.5, 0.5, 1.0],
        );
        write_obj(
            &dir.path().join("meshes/box.obj"),
            [-0.5, -0.5, 0.0],
            [0.5, 0.5, 1.0],
        );
        for file in ["meshes/box.stl", "meshes/box.obj"] {
            let w = world_with(
                dir.path(),
                &format!("<mesh><uri>{file}</uri><scale>2 1 3</scale></mesh>"),
                "1 0 0 0 0 0",
            );
            let p = build(&w);
            // Scaled to 2 x 1 x 3 m, at x = 1: top at z = 3, sides at x = 0 and 2, y = +-0.5.
            for target in [RayTarget::COLLISION, RayTarget::VISUAL] {
                let d = cast(
                    &p,
                    &[
                        down(1.0, 0.0),
                        down(0.05, 0.45),
                        down(-0.05, 0.0),
                        down(1.0, 0.55),
                        (Vec3::new(-5.0, 0.0, 1.0), Vec3::new(1.0, 0.0, 0.0)),
                    ],
                    target,
                );
                assert!(near(d[0], 7.0), "{file}: top at z = 3: {d:?}");
                assert!(near(d[1], 7.0), "{file}: {d:?}");
                assert_eq!(d[2], f64::INFINITY, "{file}: beside it: {d:?}");
                assert_eq!(d[3], f64::INFINITY, "{file}: beside it: {d:?}");
                assert!(near(d[4], 5.0), "{file}: the -x face at x = 0: {d:?}");
            }
        }
    }

    #[test]
    fn collada_units_node_transforms_and_submeshes_are_applied() {
        let dir = tempfile::tempdir().unwrap();
        write_dae(&dir.path().join("two.dae"));
        // Both boxes: 1 m cube 0..1 in z, and the second one 5 m higher.
        let p = build(&world_with(
            dir.path(),
            "<mesh><uri>two.dae</uri></mesh>",
            "0 0 0 0 0 0",
        ));
        let up = (Vec3::new(0.0, 0.0, 2.0), Vec3::new(0.0, 0.0, 1.0));
        let d = cast(
            &p,
            &[down(0.0, 0.0), up, down(0.6, 0.0)],
            RayTarget::COLLISION,
        );
        assert!(near(d[0], 4.0), "top of the high box at z = 6: {d:?}");
        assert!(near(d[1], 3.0), "bottom of the high box at z = 5: {d:?}");
        assert_eq!(d[2], f64::INFINITY, "{d:?}");

        // Only the `low` submesh, centred on its bounding box.
        let p = build(&world_with(
            dir.path(),
            "<mesh><uri>two.dae</uri><submesh><name>low</name><center>true</center></submesh></mesh>",
            "0 0 0 0 0 0",
        ));
        let d = cast(&p, &[down(0.0, 0.0), up], RayTarget::COLLISION);
        assert!(near(d[0], 9.5), "centred: top at z = 0.5: {d:?}");
        assert_eq!(d[1], f64::INFINITY, "the high box is not part of it: {d:?}");

        let w = world_with(
            dir.path(),
            "<mesh><uri>two.dae</uri><submesh><name>middle</name></submesh></mesh>",
            "0 0 0 0 0 0",
        );
        let err = Physics::build(&crate::sdf::load(&w).unwrap()).unwrap_err();
        assert!(
            err.message.contains("no submesh \"middle\"") && err.message.contains("low, high")
                || err.message.contains("high, low"),
            "{err}"
        );
        assert!(err.span.line > 1, "the error points into the SDF: {err}");
    }

    #[test]
    fn a_missing_mesh_is_an_error_naming_the_uri_and_where_it_was_looked_for() {
        let dir = tempfile::tempdir().unwrap();
        let w = world_with(
            dir.path(),
            "<mesh><uri>model://robot/meshes/arm.dae</uri></mesh>",
            "0 0 0 0 0 0",
        );
        let err = Physics::build(&crate::sdf::load(&w).unwrap()).unwrap_err();
        assert!(
            err.message.contains("model://robot/meshes/arm.dae"),
            "{err}"
        );
        assert!(err.message.contains("SIMCORE_RESOURCE_PATH"), "{err}");
        assert_eq!(err.span.line, 3, "{err}");
    }

    #[test]
    fn one_mesh_used_by_many_models_is_read_and_built_once() {
        let dir = tempfile::tempdir().unwrap();
        write_stl(&dir.path().join("m.stl"), [0.0; 3], [1.0; 3]);
        let models: String = (0..50)
            .map(|i| {
                format!(
                    r#"<model name="m{i}"><static>true</static><pose>{i} 0 0 0 0 0</pose><link name="l">
                    <collision name="c"><geometry><mesh><uri>m.stl</uri></mesh></geometry></collision>
                    <visual name="v"><geometry><mesh><uri>m.stl</uri></mesh></geometry></visual>
                    </link></model>"#
                )
            })
            .collect();
        let path = dir.path().join("w.sdf");
        std::fs::write(
            &path,
            format!("<sdf version='1.9'><world name='w'>{models}</world></sdf>"),
        )
        .unwrap();
        let p = build(&path);
        assert_eq!(p.shapes.files.len(), 1);
        assert_eq!(p.shapes.shapes.len(), 1);
        let d = cast(&p, &[down(49.5, 0.5)], RayTarget::COLLISION);
        assert!(near(d[0], 9.0), "{d:?}");
    }

    #[test]
    fn dynamic_meshes_collide_as_convex_parts_and_rest_on_the_ground() {
        let dir = tempfile::tempdir().unwrap();
        write_stl(&dir.path().join("m.stl"), [-0.5; 3], [0.5; 3]);
        let path = dir.path().join("w.sdf");
        let mesh = "<geometry><mesh><uri>m.stl</uri></mesh></geometry>";
        std::fs::write(
            &path,
            format!(
                r#"<sdf version="1.9"><world name="w">
                <model name="ground"><static>true</static><link name="l"><collision name="c">
                  <geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link></model>
                <model name="fixed"><static>true</static><pose>5 0 0.5 0 0 0</pose><link name="l">
                  <collision name="c">{mesh}</collision></link></model>
                <model name="crate"><pose>0 0 2 0 0 0</pose><link name="l">
                  <inertial><mass>1</mass><inertia><ixx>0.17</ixx><iyy>0.17</iyy><izz>0.17</izz></inertia></inertial>
                  <collision name="c">{mesh}</collision><visual name="v">{mesh}</visual></link></model>
                </world></sdf>"#
            ),
        )
        .unwrap();
        let mut p = build(&path);
        let kind = |p: &super::super::Physics, name: &str| {
            let id = p.entity_id(name).unwrap();
            let handle =
                p.pw.colliders
                    .iter()
                    .find(|(_, c)| c.user_data as u64 == id.0)
                    .map(|(h, _)| h)
                    .unwrap();
            p.pw.colliders[handle].shape().shape_type()
        };
        use rapier3d::prelude::ShapeType;
        assert_eq!(
            kind(&p, "crate::l::c"),
            ShapeType::Compound,
            "dynamic: convex parts"
        );
        assert_eq!(
            kind(&p, "crate::l::v"),
            ShapeType::TriMesh,
            "visuals keep the triangles"
        );
        assert_eq!(
            kind(&p, "fixed::l::c"),
            ShapeType::TriMesh,
            "static: the triangles"
        );
        for _ in 0..2000 {
            p.step();
        }
        let id = p.entity_id("crate").unwrap();
        let z = p.kinematics_of(id).unwrap().pose.position.z;
        assert!(
            (z - 0.5).abs() < 0.02,
            "the 1 m mesh cube rests on the ground: z = {z}"
        );
    }

    #[test]
    fn heightmaps_follow_the_image_with_the_top_row_at_plus_y() {
        let dir = tempfile::tempdir().unwrap();
        // 3 x 3 image: the top row white, the rest black except a grey centre.
        let pixels: [u8; 9] = [255, 255, 255, 0, 128, 0, 0, 0, 0];
        let file = std::fs::File::create(dir.path().join("h.png")).unwrap();
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), 3, 3);
        enc.set_color(png::ColorType::Grayscale);
        enc.set_depth(png::BitDepth::Eight);
        enc.write_header()
            .unwrap()
            .write_image_data(&pixels)
            .unwrap();

        let p = build(&world_with(
            dir.path(),
            "<heightmap><uri>h.png</uri><size>10 20 2</size><pos>1 0 0.5</pos></heightmap>",
            "0 0 0 0 0 0",
        ));
        // Samples every 5 m in x (from -4 to 6) and 10 m in y (from -10 to 10); along the
        // sample line x = 1 heights are linear between the rows.
        let grey = 2.0 * 128.0 / 255.0;
        let d = cast(
            &p,
            &[
                down(1.0, 0.0),
                down(1.0, 9.9),
                down(1.0, 5.0),
                down(1.0, -9.9),
            ],
            RayTarget::COLLISION,
        );
        assert!(near(d[0], 10.0 - (0.5 + grey)), "centre: {d:?}");
        assert!(
            near(d[1], 10.0 - (0.5 + grey + 0.99 * (2.0 - grey))),
            "the top row is +y, full height 2 above 0.5: {d:?}"
        );
        assert!(near(d[2], 10.0 - (0.5 + (grey + 2.0) / 2.0)), "{d:?}");
        assert!(
            near(d[3], 10.0 - (0.5 + 0.01 * grey)),
            "the bottom row is black: {d:?}"
        );
        assert_eq!(
            cast(&p, &[down(7.0, 0.0)], RayTarget::COLLISION)[0],
            f64::INFINITY
        );
    }

    #[test]
    fn polylines_are_extruded_with_holes_and_cones_point_up() {
        let dir = tempfile::tempdir().unwrap();
        let square = |h: f64| {
            format!(
                "<polyline><point>-{h} -{h}</point><point>{h} -{h}</point><point>{h} {h}</point><point>-{h} {h}</point><height>2</height></polyline>"
            )
        };
        let p = build(&world_with(
            dir.path(),
            &format!("{}{}", square(2.0), square(1.0)),
            "0 0 1 0 0 0",
        ));
        let d = cast(
            &p,
            &[
                down(1.5, 0.0),
                down(0.0, 0.0),
                down(2.5, 0.0),
                (Vec3::new(0.0, 0.0, 1.5), Vec3::new(1.0, 0.0, 0.0)),
            ],
            RayTarget::COLLISION,
        );
        assert!(near(d[0], 7.0), "the ring is 2 m high from z = 1: {d:?}");
        assert_eq!(d[1], f64::INFINITY, "the hole: {d:?}");
        assert_eq!(d[2], f64::INFINITY, "{d:?}");
        assert!(near(d[3], 1.0), "the inner wall of the hole: {d:?}");

        // A concave (L-shaped) outline.
        let l = "<polyline><point>0 0</point><point>2 0</point><point>2 1</point><point>1 1</point><point>1 2</point><point>0 2</point><height>1</height></polyline>";
        let p = build(&world_with(dir.path(), l, "0 0 0 0 0 0"));
        let d = cast(
            &p,
            &[down(0.5, 1.5), down(1.5, 1.5), down(1.5, 0.5)],
            RayTarget::COLLISION,
        );
        assert!(
            near(d[0], 9.0) && d[1] == f64::INFINITY && near(d[2], 9.0),
            "{d:?}"
        );

        let p = build(&world_with(
            dir.path(),
            "<cone><radius>1</radius><length>2</length></cone>",
            "0 0 1 0 0 0",
        ));
        // Base at z = 0 (radius 1), apex at z = 2: at z = 1.5 the radius is 0.25.
        let d = cast(
            &p,
            &[
                down(0.0, 0.0),
                (Vec3::new(-5.0, 0.0, 1.5), Vec3::new(1.0, 0.0, 0.0)),
            ],
            RayTarget::COLLISION,
        );
        assert!(near(d[0], 8.0), "apex at z = 2: {d:?}");
        assert!(near(d[1], 4.75), "{d:?}");
    }
}
