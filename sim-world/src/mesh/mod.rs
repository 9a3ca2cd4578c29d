//! Mesh files read into triangles: STL and OBJ through `mesh-loader`, COLLADA through our
//! own reader of its scene (see `collada`), with a mesh shape's `<submesh>`, centring and
//! scale applied.
//!
//! A leaf of the engine: the world builder (for its colliders) and the SDF reader (for
//! automatic inertia) both read meshes here; it knows neither.

mod collada;

use std::path::{Path, PathBuf};

use crate::input::Limits;
use crate::{MeshShape, Resource, Vec3};

/// Why a mesh could not be read into triangles.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MeshError {
    /// The mesh's URI resolved to no file (the resolver's message).
    #[error("{0}")]
    Unresolved(String),
    /// The file could not be read or parsed.
    #[error("cannot read the mesh file {}: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The file has no mesh of the `<submesh>` name asked for.
    #[error(
        "the mesh file {} has no submesh \"{name}\"; it has: {}",
        path.display(),
        listed(has)
    )]
    NoSubmesh {
        /// The file.
        path: PathBuf,
        /// The submesh asked for.
        name: String,
        /// The first name of each mesh in the file.
        has: Vec<String>,
    },
    /// A triangle names a vertex the mesh does not have.
    #[error(
        "the mesh file {} has a triangle with a vertex index out of range",
        path.display()
    )]
    IndexOutOfRange {
        /// The file.
        path: PathBuf,
    },
    /// A triangle has a corner that is not a finite number (NaN or infinite).
    #[error(
        "the mesh file {} has a vertex that is not a finite number (NaN or infinite)",
        path.display()
    )]
    NotFinite {
        /// The file.
        path: PathBuf,
    },
    /// Every triangle chosen has no area (repeated or aligned corners).
    #[error(
        "the mesh file {} has no usable triangle: all {degenerate} have no area (repeated or aligned corners)",
        path.display()
    )]
    NoArea {
        /// The file.
        path: PathBuf,
        /// How many triangles it has.
        degenerate: usize,
    },
    /// The meshes chosen have no triangle.
    #[error("the mesh file {} has no triangles{}", path.display(), in_submesh(submesh))]
    NoTriangles {
        /// The file.
        path: PathBuf,
        /// The `<submesh>` chosen, if any.
        submesh: Option<String>,
    },
}

/// Whether the triangle `t` has an area (its corners are distinct and not on one line).
fn has_area(t: [[f32; 3]; 3]) -> bool {
    let d = |a: [f32; 3], b: [f32; 3]| {
        [
            f64::from(b[0]) - f64::from(a[0]),
            f64::from(b[1]) - f64::from(a[1]),
            f64::from(b[2]) - f64::from(a[2]),
        ]
    };
    let (u, v) = (d(t[0], t[1]), d(t[0], t[2]));
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let area2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    let scale =
        (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    area2 > 0.0 && area2 > scale * 1e-12
}

/// `names` comma-separated, or `none`.
fn listed(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// ` in submesh "name"` for a chosen submesh, else nothing.
fn in_submesh(submesh: &Option<String>) -> String {
    match submesh {
        Some(s) => format!(" in submesh \"{s}\""),
        None => String::new(),
    }
}

/// One mesh of a file: vertices (in the file's frame, metres) and triangles.
#[derive(Debug)]
pub struct FileMesh {
    /// The names `<submesh><name>` may use for it (for COLLADA: the geometry's id and name,
    /// and the scene node placing it; for OBJ: the object or group name).
    pub names: Vec<String>,
    /// Vertices, in the file's frame (metres).
    pub vertices: Vec<[f32; 3]>,
    /// Triangles, as indices into `vertices`.
    pub faces: Vec<[u32; 3]>,
}

/// The meshes of the file at `path` (a regular file of at most `limits.max_mesh_bytes`, see
/// [`crate::input::read_regular`]): COLLADA through our own reader (units, node transforms),
/// STL and OBJ through `mesh-loader` (an OBJ's material files are not read).
pub fn read_file(path: &Path, limits: &Limits) -> Result<Vec<FileMesh>, MeshError> {
    let fail = |message: String| MeshError::Read {
        path: path.to_path_buf(),
        message,
    };
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if !matches!(extension.as_str(), "stl" | "obj" | "dae") {
        return Err(fail(format!(
            "the format `{}` is not read (meshes are STL, OBJ or COLLADA: .stl, .obj, .dae)",
            if extension.is_empty() {
                "(no extension)"
            } else {
                &extension
            }
        )));
    }
    let max = limits.max_mesh_bytes;
    let bytes = crate::input::read_regular(path, max).map_err(|e| fail(e.to_string()))?;
    if extension == "dae" {
        let text = String::from_utf8(bytes).map_err(|e| fail(e.to_string()))?;
        return collada::read(path, &text);
    }
    let scene = mesh_loader::Loader::default()
        .merge_meshes(false)
        // An OBJ's material files (`mtllib`) only colour it, which the engine does not use:
        // they are never read, wherever they point.
        .load_from_slice_with_reader(&bytes, path, |_: &Path| -> std::io::Result<Vec<u8>> {
            Err(std::io::Error::other("material files are not read"))
        })
        .map_err(|e| fail(e.to_string()))?;
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
pub fn triangles(
    file: &[FileMesh],
    m: &MeshShape,
    path: &Path,
) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), MeshError> {
    let chosen: Vec<&FileMesh> = match &m.submesh {
        Some(name) => {
            let found: Vec<&FileMesh> = file.iter().filter(|f| f.names.contains(name)).collect();
            if found.is_empty() {
                return Err(MeshError::NoSubmesh {
                    path: path.to_path_buf(),
                    name: name.clone(),
                    has: file.iter().map(|f| f.names[0].clone()).collect(),
                });
            }
            found
        }
        None => file.iter().collect(),
    };
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    let mut degenerate = 0usize;
    for f in chosen {
        let base = vertices.len() as u32;
        for tri in &f.faces {
            if tri.iter().any(|&i| i as usize >= f.vertices.len()) {
                return Err(MeshError::IndexOutOfRange {
                    path: path.to_path_buf(),
                });
            }
            let corners = tri.map(|i| f.vertices[i as usize]);
            if corners.iter().flatten().any(|c| !c.is_finite()) {
                return Err(MeshError::NotFinite {
                    path: path.to_path_buf(),
                });
            }
            // A triangle without area (repeated or aligned corners) adds nothing to the
            // surface, and a solid of only such triangles has no shape at all.
            if !has_area(corners) {
                degenerate += 1;
                continue;
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
        return Err(if degenerate > 0 {
            MeshError::NoArea {
                path: path.to_path_buf(),
                degenerate,
            }
        } else {
            MeshError::NoTriangles {
                path: path.to_path_buf(),
                submesh: m.submesh.clone(),
            }
        });
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

/// The triangles of the mesh shape `m` (as the world builder builds them: submesh,
/// centring and scale applied), read from its file. For what needs a mesh's geometry before a world is
/// built (a link's automatic inertia).
pub fn mesh_triangles(
    m: &MeshShape,
    limits: &Limits,
) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), MeshError> {
    let path = mesh_path(&m.resource)?;
    let file = read_file(&path, limits)?;
    triangles(&file, m, &path)
}

/// The file a mesh URI resolved to, or why there is none.
pub fn mesh_path(r: &Resource) -> Result<PathBuf, MeshError> {
    r.resolved.clone().map_err(MeshError::Unresolved)
}

/// The corners of the box around `v`.
fn bounds(v: &[Vec3]) -> (Vec3, Vec3) {
    let mut lo = Vec3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY);
    let mut hi = -lo;
    for p in v {
        lo = Vec3::new(lo.x.min(p.x), lo.y.min(p.y), lo.z.min(p.z));
        hi = Vec3::new(hi.x.max(p.x), hi.y.max(p.y), hi.z.max(p.z));
    }
    (lo, hi)
}
