//! The solid a closed triangle mesh encloses: volume, centroid and inertia tensor, for the
//! automatic inertia of a link with a mesh collision (SDF 1.11 `<inertial auto="true">`, which
//! Gazebo computes for a mesh with gz-sim's mesh inertia calculator).
//!
//! The integrals over the solid become sums over its surface (divergence theorem): each
//! triangle with a reference point forms a tetrahedron whose signed volume and second moments
//! have closed forms, and their sum is the solid's, whatever the reference point. This needs a
//! closed, consistently oriented surface: every edge shared by exactly two triangles that run
//! along it in opposite directions. Vertices at the same position are one vertex (files often
//! repeat a corner for each face). A surface oriented inwards gives the same solid.

use std::collections::HashMap;

use sim_world::{Solid, Vec3};

/// Why a triangle mesh encloses no solid.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum SolidError {
    /// A vertex with a coordinate that is infinite or NaN.
    #[error("the mesh has a vertex that is not a finite number")]
    NotFinite,
    /// A triangle naming a vertex the mesh does not have.
    #[error("the mesh has a triangle with a vertex index out of range")]
    IndexOutOfRange,
    /// Edges that do not close the surface (the reasons, joined).
    #[error("the mesh is not a closed surface: {0}")]
    NotClosed(String),
    /// Every triangle has a repeated corner.
    #[error("the mesh has no triangle with an area")]
    NoArea,
    /// The enclosed volume (m³) is zero, or too small for the mesh's extent.
    #[error("the mesh encloses no volume ({0:e} m³): its triangles lie flat or cancel out")]
    NoVolume(f64),
}

/// The solid of density 1 enclosed by the triangles `faces` over `vertices` (metres), or why
/// there is none.
pub(crate) fn solid(vertices: &[Vec3], faces: &[[u32; 3]]) -> Result<Solid, SolidError> {
    // One id per distinct position.
    let mut ids: HashMap<[u64; 3], u32> = HashMap::new();
    let mut id_of = Vec::with_capacity(vertices.len());
    for v in vertices {
        if !(v.x.is_finite() && v.y.is_finite() && v.z.is_finite()) {
            return Err(SolidError::NotFinite);
        }
        // +0.0 and -0.0 are one position.
        let key = [v.x + 0.0, v.y + 0.0, v.z + 0.0].map(f64::to_bits);
        let next = ids.len() as u32;
        id_of.push(*ids.entry(key).or_insert(next));
    }
    let mut triangles = Vec::with_capacity(faces.len());
    let mut edges: HashMap<(u32, u32), u32> = HashMap::new();
    for f in faces {
        let Some(&[a, b, c]) = f
            .iter()
            .map(|&i| id_of.get(i as usize).copied())
            .collect::<Option<Vec<u32>>>()
            .as_deref()
        else {
            return Err(SolidError::IndexOutOfRange);
        };
        // A triangle with a repeated corner encloses nothing and joins nothing.
        if a == b || b == c || c == a {
            continue;
        }
        for e in [(a, b), (b, c), (c, a)] {
            *edges.entry(e).or_insert(0) += 1;
        }
        triangles.push(f.map(|i| vertices[i as usize]));
    }
    let open = edges
        .keys()
        .filter(|&&(a, b)| !edges.contains_key(&(b, a)))
        .count();
    let shared = edges.values().filter(|&&n| n > 1).count();
    if open > 0 || shared > 0 {
        let mut why = Vec::new();
        if open > 0 {
            why.push(format!(
                "{open} edge{} border{} a single triangle (a hole, or neighbours facing opposite ways)",
                if open == 1 { "" } else { "s" },
                if open == 1 { "s" } else { "" },
            ));
        }
        if shared > 0 {
            why.push(format!(
                "{shared} edge{} run{} the same way in several triangles (more than two faces \
                 meet there, or neighbours face opposite ways)",
                if shared == 1 { "" } else { "s" },
                if shared == 1 { "s" } else { "" },
            ));
        }
        return Err(SolidError::NotClosed(why.join("; ")));
    }
    if triangles.is_empty() {
        return Err(SolidError::NoArea);
    }

    // Sums relative to a point of the mesh, which keeps them well conditioned far from the
    // file's origin.
    let o = triangles[0][0];
    let mut volume = 0.0;
    let mut first = Vec3::ZERO;
    let mut second = [[0.0f64; 3]; 3];
    for t in &triangles {
        let [a, b, c] = t.map(|v| v - o);
        let v = a.dot(b.cross(c)) / 6.0;
        let s = a + b + c;
        volume += v;
        first = first + s.scale(v / 4.0);
        let (a, b, c, s) = (a.to_array(), b.to_array(), c.to_array(), s.to_array());
        for i in 0..3 {
            for j in 0..3 {
                second[i][j] += v / 20.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
            }
        }
    }
    // Inward-facing triangles give the same solid with every sum negated.
    if volume < 0.0 {
        volume = -volume;
        first = first.scale(-1.0);
        for row in &mut second {
            for x in row {
                *x = -*x;
            }
        }
    }
    let extent = triangles
        .iter()
        .flatten()
        .map(|v| (*v - o).length())
        .fold(0.0, f64::max);
    if !(volume > 1e-12 * extent.powi(3) && volume.is_finite()) {
        return Err(SolidError::NoVolume(volume));
    }
    let g = first.scale(1.0 / volume).to_array();
    // Second moments about the centroid, then the inertia tensor: tr(C) E - C.
    let mut c = second;
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] -= volume * g[i] * g[j];
        }
    }
    let trace = c[0][0] + c[1][1] + c[2][2];
    Ok(Solid {
        volume,
        centroid: o + Vec3::new(g[0], g[1], g[2]),
        inertia: [
            trace - c[0][0],
            -c[0][1],
            -c[0][2],
            trace - c[1][1],
            -c[1][2],
            trace - c[2][2],
        ],
    })
}
