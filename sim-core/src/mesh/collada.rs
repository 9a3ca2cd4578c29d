//! COLLADA scenes: the placement of each geometry.
//!
//! `mesh-loader` reads the triangles of each COLLADA `<geometry>`, but places instanced
//! geometries wrongly (a node's `<translate>` is not scaled by the document's `<unit>`, and a
//! geometry instanced by several nodes gets one placement). So the geometries are read from
//! the document with its scene removed, and this module walks the `<visual_scene>` itself:
//! every `<instance_geometry>` (also through `<instance_node>`) becomes one mesh, transformed
//! by its node chain (`<matrix>`, `<translate>`, `<rotate>`, `<scale>`) and by the unit.
//! Materials and effects are not read: a shape is its triangles.

use std::collections::HashMap;
use std::path::Path;

use super::{FileMesh, MeshError};

/// Vertices and triangles of one geometry.
type Triangles = (Vec<[f32; 3]>, Vec<[u32; 3]>);

/// A 4x4 matrix, row-major, acting on column vectors.
type Mat = [[f64; 4]; 4];

const IDENTITY: Mat = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

fn mul(a: &Mat, b: &Mat) -> Mat {
    let mut m = [[0.0; 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            *v = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    m
}

fn numbers(node: roxmltree::Node, count: usize) -> Result<Vec<f64>, String> {
    let text = node.text().unwrap_or("");
    let v: Vec<f64> = text
        .split_whitespace()
        .map(|t| t.replace(',', ".").parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| {
            format!(
                "<{}> holds a value that is not a number",
                node.tag_name().name()
            )
        })?;
    if v.len() != count {
        return Err(format!(
            "<{}> needs {count} numbers, found {}",
            node.tag_name().name(),
            v.len()
        ));
    }
    Ok(v)
}

/// The local transform of a `<node>`: its transform elements in document order.
fn local(node: roxmltree::Node) -> Result<Mat, String> {
    let mut m = IDENTITY;
    for c in node.children().filter(|c| c.is_element()) {
        let t = match c.tag_name().name() {
            "matrix" => {
                let v = numbers(c, 16)?;
                let mut t = IDENTITY;
                for (i, row) in t.iter_mut().enumerate() {
                    row.copy_from_slice(&v[i * 4..i * 4 + 4]);
                }
                t
            }
            "translate" => {
                let v = numbers(c, 3)?;
                let mut t = IDENTITY;
                for i in 0..3 {
                    t[i][3] = v[i];
                }
                t
            }
            "scale" => {
                let v = numbers(c, 3)?;
                let mut t = IDENTITY;
                for i in 0..3 {
                    t[i][i] = v[i];
                }
                t
            }
            "rotate" => {
                let v = numbers(c, 4)?;
                let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                if n == 0.0 {
                    continue;
                }
                let (x, y, z) = (v[0] / n, v[1] / n, v[2] / n);
                let (s, co) = v[3].to_radians().sin_cos();
                let k = 1.0 - co;
                [
                    [co + x * x * k, x * y * k - z * s, x * z * k + y * s, 0.0],
                    [y * x * k + z * s, co + y * y * k, y * z * k - x * s, 0.0],
                    [z * x * k - y * s, z * y * k + x * s, co + z * z * k, 0.0],
                    [0.0, 0.0, 0.0, 1.0],
                ]
            }
            "lookat" | "skew" => {
                return Err(format!(
                    "the COLLADA transform <{}> is not supported; export the mesh with \
                     matrices or translate/rotate/scale",
                    c.tag_name().name()
                ));
            }
            _ => continue,
        };
        m = mul(&m, &t);
    }
    Ok(m)
}

fn child<'a, 'i>(n: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    n.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

fn id_of(url: &str) -> &str {
    url.strip_prefix('#').unwrap_or(url)
}

/// Reads the COLLADA `text` of the file at `path`: one mesh per instanced geometry, in metres, placed by
/// the scene. Without a scene, every geometry as it is.
pub(super) fn read(path: &Path, text: &str) -> Result<Vec<FileMesh>, MeshError> {
    let fail = |e: &dyn std::fmt::Display| MeshError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let doc = roxmltree::Document::parse(text).map_err(|e| fail(&e))?;
    let root = doc.root_element();
    let unit = child(root, "asset")
        .and_then(|a| child(a, "unit"))
        .and_then(|u| u.attribute("meter"))
        .and_then(|m| m.parse::<f64>().ok())
        .filter(|m| m.is_finite() && *m > 0.0)
        .unwrap_or(1.0);

    // The geometries alone: the scene parts cut out of the text, and the materials and
    // effects, which shapes do not use (a <color> where COLLADA has a <float>, as some
    // exporters write in <shininess>, is passed over by gz-common but refused by mesh-loader).
    let mut cut: Vec<std::ops::Range<usize>> = root
        .children()
        .filter(|c| {
            c.is_element()
                && matches!(
                    c.tag_name().name(),
                    "library_visual_scenes"
                        | "library_nodes"
                        | "scene"
                        | "library_materials"
                        | "library_effects"
                )
        })
        .map(|c| c.range())
        .collect();
    cut.sort_by_key(|r| std::cmp::Reverse(r.start));
    let mut geometry_only = text.to_string();
    for r in cut {
        geometry_only.replace_range(r, "");
    }
    let scene = mesh_loader::Loader::default()
        .merge_meshes(false)
        .load_collada_from_slice(geometry_only.as_bytes(), path)
        .map_err(|e| fail(&e))?;
    let mut geometries: HashMap<String, Triangles> = HashMap::new();
    for m in scene.meshes {
        geometries.insert(m.name, (m.vertices, m.faces));
    }
    let names: HashMap<&str, &str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("geometry"))
        .filter_map(|n| Some((n.attribute("id")?, n.attribute("name").unwrap_or(""))))
        .collect();

    let scale = [
        [unit, 0.0, 0.0, 0.0],
        [0.0, unit, 0.0, 0.0],
        [0.0, 0.0, unit, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let visual_scene = child(root, "scene")
        .and_then(|s| child(s, "instance_visual_scene"))
        .and_then(|i| i.attribute("url"))
        .and_then(|url| {
            doc.descendants()
                .find(|n| n.has_tag_name("visual_scene") && n.attribute("id") == Some(id_of(url)))
        });
    let mut out = Vec::new();
    let Some(visual_scene) = visual_scene else {
        let mut ids: Vec<&String> = geometries.keys().collect();
        ids.sort();
        for id in ids {
            let (v, f) = &geometries[id];
            out.push(place(id, names.get(id.as_str()).copied(), "", v, f, &scale));
        }
        return Ok(out);
    };
    // Depth-first over the nodes, following <instance_node> (bounded against cycles).
    let mut stack: Vec<(roxmltree::Node, Mat, usize)> = visual_scene
        .children()
        .filter(|c| c.has_tag_name("node"))
        .map(|n| (n, scale, 0))
        .collect();
    stack.reverse();
    while let Some((node, parent, depth)) = stack.pop() {
        if depth > 64 {
            return Err(fail(
                &"its scene nodes are nested more than 64 deep (a cycle?)",
            ));
        }
        let m = mul(&parent, &local(node).map_err(|e| fail(&e))?);
        let node_name = node
            .attribute("name")
            .or(node.attribute("id"))
            .unwrap_or("");
        for c in node.children().filter(|c| c.is_element()) {
            match c.tag_name().name() {
                "instance_geometry" => {
                    let id = id_of(c.attribute("url").unwrap_or(""));
                    if let Some((v, f)) = geometries.get(id) {
                        out.push(place(id, names.get(id).copied(), node_name, v, f, &m));
                    }
                }
                "node" => stack.push((c, m, depth + 1)),
                "instance_node" => {
                    let id = id_of(c.attribute("url").unwrap_or(""));
                    if let Some(n) = doc
                        .descendants()
                        .find(|n| n.has_tag_name("node") && n.attribute("id") == Some(id))
                    {
                        stack.push((n, m, depth + 1));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(out)
}

fn place(
    id: &str,
    name: Option<&str>,
    node: &str,
    vertices: &[[f32; 3]],
    faces: &[[u32; 3]],
    m: &Mat,
) -> FileMesh {
    let mut names = vec![id.to_string()];
    for n in [name.unwrap_or(""), node] {
        if !n.is_empty() && !names.iter().any(|x| x == n) {
            names.push(n.to_string());
        }
    }
    let vertices = vertices
        .iter()
        .map(|p| {
            let p = [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])];
            let mut q = [0.0f32; 3];
            for (i, q) in q.iter_mut().enumerate() {
                *q = (m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2] + m[i][3]) as f32;
            }
            q
        })
        .collect();
    FileMesh {
        names,
        vertices,
        faces: faces.to_vec(),
    }
}
