//! COLLADA scenes: the placement of each geometry.
//!
//! `mesh-loader` reads the triangles of each COLLADA `<geometry>`, but places instanced
//! geometries wrongly (a node's `<translate>` is not scaled by the document's `<unit>`, and a
//! geometry instanced by several nodes gets one placement). So the geometries are read from
//! the document with its scene removed, and this module walks the `<visual_scene>` itself:
//! every `<instance_geometry>` (also through `<instance_node>`) becomes one mesh, transformed
//! by its node chain (`<matrix>`, `<translate>`, `<rotate>`, `<scale>`) and by the unit.
//! Materials and effects are not read: a shape is its triangles.
//!
//! A COLLADA file may come from anyone, and `mesh-loader` takes its counts at their word (a
//! 1 KB file whose `<float_array count="4000000000">` had 16 GB allocated) and its indices too
//! (an index past the points panicked). So every count and index the loader would use is
//! checked first against what the file holds ([`check_counts`]), and a panic of the loader
//! all the same is a refusal of the mesh, naming the file, never the end of the process.

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
    check_counts(&doc).map_err(|e| fail(&e))?;
    let loaded = std::panic::catch_unwind(|| {
        mesh_loader::Loader::default()
            .merge_meshes(false)
            .load_collada_from_slice(geometry_only.as_bytes(), path)
    });
    let scene = match loaded {
        Ok(scene) => scene.map_err(|e| fail(&e))?,
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            return Err(fail(&format!(
                "the COLLADA reader could not read it ({why}); the file is malformed"
            )));
        }
    };
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

/// The number of values in the text of `node`.
fn tokens(node: roxmltree::Node) -> u64 {
    node.text().unwrap_or("").split_whitespace().count() as u64
}

/// The whole number in attribute `name` of `node` (`default` when absent), or an error
/// naming the element, the attribute and the text.
fn whole(node: roxmltree::Node, name: &str, default: u64) -> Result<u64, String> {
    match node.attribute(name) {
        None => Ok(default),
        Some(t) => t.trim().parse::<u64>().map_err(|_| {
            format!(
                "<{} {name}=\"{t}\"> (line {}) is not a whole number",
                node.tag_name().name(),
                line(node)
            )
        }),
    }
}

/// The line of `node` in its document.
fn line(node: roxmltree::Node) -> u32 {
    node.document().text_pos_at(node.range().start).row
}

/// Checks the counts and indices `mesh-loader` would believe against what the document holds,
/// before it sees them: each array's `count` is at most the values it holds; each accessor
/// (`count` x `stride` + `offset`, a `stride` of at least 1) fits in its array; each
/// primitive's `count`, `<vcount>` and `<input offset>` fit the indices of its `<p>`; and
/// every index is below the count of the source it points into. The error names the element
/// and its line.
pub(super) fn check_counts(doc: &roxmltree::Document) -> Result<(), String> {
    let at = |n: roxmltree::Node| format!("<{}> (line {})", n.tag_name().name(), line(n));
    let by_id: HashMap<&str, roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.is_element())
        .filter_map(|n| Some((n.attribute("id")?, n)))
        .collect();
    // Arrays: a count beyond the values held is what the loader would allocate.
    let mut held: HashMap<&str, u64> = HashMap::new();
    for n in doc.descendants().filter(|n| n.is_element()) {
        if !n.tag_name().name().ends_with("_array") {
            continue;
        }
        let count = whole(n, "count", 0)?;
        let values = tokens(n);
        if count > values {
            return Err(format!(
                "{} says count=\"{count}\" but holds {values} values",
                at(n)
            ));
        }
        if let Some(id) = n.attribute("id") {
            // Without a count (which the loader wants), the values themselves.
            held.insert(id, n.attribute("count").map_or(values, |_| count));
        }
    }
    // Accessors: the elements they describe must lie in their array.
    let mut elements: HashMap<&str, u64> = HashMap::new();
    for n in doc.descendants().filter(|n| n.has_tag_name("accessor")) {
        let count = whole(n, "count", 0)?;
        let stride = whole(n, "stride", 1)?;
        let offset = whole(n, "offset", 0)?;
        if stride == 0 {
            return Err(format!("{} has a stride of 0", at(n)));
        }
        let array = id_of(n.attribute("source").unwrap_or(""));
        let Some(&values) = held.get(array) else {
            continue;
        };
        let needs = count
            .checked_mul(stride)
            .and_then(|v| v.checked_add(offset));
        if needs.is_none_or(|v| v > values) {
            return Err(format!(
                "{} describes {count} elements of stride {stride} from offset {offset}, \
                 past the {values} values of its array \"{array}\"",
                at(n)
            ));
        }
        if let Some(source) = n
            .ancestors()
            .find(|a| a.has_tag_name("source"))
            .and_then(|s| s.attribute("id"))
        {
            elements.insert(source, count);
        }
    }
    // Positions: the loader reads them only from a float array through an accessor of three
    // or more float params, and indexes what it read (nothing, otherwise) with <p>.
    for v in doc.descendants().filter(|n| n.has_tag_name("vertices")) {
        let Some(position) = v
            .children()
            .find(|c| c.has_tag_name("input") && c.attribute("semantic") == Some("POSITION"))
        else {
            continue;
        };
        let source = id_of(position.attribute("source").unwrap_or(""));
        let Some(accessor) = by_id
            .get(source)
            .and_then(|s| s.descendants().find(|d| d.has_tag_name("accessor")))
        else {
            continue;
        };
        let params: Vec<roxmltree::Node> = accessor
            .children()
            .filter(|c| c.has_tag_name("param"))
            .collect();
        let array = by_id.get(id_of(accessor.attribute("source").unwrap_or("")));
        let not_float = params.iter().find(|p| p.attribute("type") != Some("float"));
        if whole(accessor, "stride", 1)? < 3 || params.len() < 3 || not_float.is_some() {
            return Err(format!(
                "{} of the positions \"{source}\" must give 3 values a vertex, each a                  <param type=\"float\"> (it has stride {} and {} params{})",
                at(accessor),
                whole(accessor, "stride", 1)?,
                params.len(),
                not_float.map_or(String::new(), |p| format!(
                    ", one of type \"{}\"",
                    p.attribute("type").unwrap_or("")
                ))
            ));
        }
        if array.is_some_and(|a| !a.has_tag_name("float_array")) {
            return Err(format!(
                "{} of the positions \"{source}\" reads a <{}>, not a <float_array>",
                at(accessor),
                array.map_or("", |a| a.tag_name().name())
            ));
        }
    }
    // A primitive's vertices are its own mesh's <vertices> (the loader reads no other).
    for input in doc
        .descendants()
        .filter(|n| n.has_tag_name("input") && n.attribute("semantic") == Some("VERTEX"))
    {
        let own = input
            .ancestors()
            .find(|a| a.has_tag_name("mesh"))
            .and_then(|m| child(m, "vertices"))
            .and_then(|v| v.attribute("id"));
        let named = id_of(input.attribute("source").unwrap_or(""));
        if own != Some(named) {
            return Err(format!(
                "{} reads the vertices \"{named}\", not its own mesh's <vertices>{}",
                at(input),
                own.map_or(String::new(), |o| format!(" (\"{o}\")"))
            ));
        }
    }
    // The elements an input reads: a source's accessor count; for a <vertices>, the least of
    // its inputs' (None when unknown: the loader says what is missing).
    let count_of = |url: &str| -> Option<u64> {
        let target = by_id.get(id_of(url))?;
        if target.has_tag_name("vertices") {
            target
                .children()
                .filter(|c| c.has_tag_name("input"))
                .filter_map(|c| elements.get(id_of(c.attribute("source")?)).copied())
                .min()
        } else {
            elements.get(id_of(url)).copied()
        }
    };
    const PRIMITIVES: [&str; 7] = [
        "triangles",
        "lines",
        "polylist",
        "polygons",
        "tristrips",
        "trifans",
        "linestrips",
    ];
    for prim in doc
        .descendants()
        .filter(|n| n.is_element() && PRIMITIVES.contains(&n.tag_name().name()))
    {
        let inputs: Vec<roxmltree::Node> = prim
            .children()
            .filter(|c| c.has_tag_name("input"))
            .collect();
        let mut limits: Vec<Option<u64>> = vec![None; inputs.len().max(1)];
        for i in &inputs {
            let offset = whole(*i, "offset", 0)?;
            if offset >= inputs.len() as u64 {
                return Err(format!(
                    "{} has offset=\"{offset}\", past its primitive's {} inputs",
                    at(*i),
                    inputs.len()
                ));
            }
            if let Some(c) = count_of(i.attribute("source").unwrap_or("")) {
                let l = &mut limits[offset as usize];
                *l = Some(l.map_or(c, |l| l.min(c)));
            }
        }
        let stride = inputs
            .iter()
            .filter_map(|i| whole(*i, "offset", 0).ok())
            .max()
            .map_or(1, |o| o as usize + 1);
        let ps: Vec<roxmltree::Node> = prim.children().filter(|c| c.has_tag_name("p")).collect();
        let indices: u64 = ps.iter().map(|p| tokens(*p)).sum();
        // What the loader reserves: `count` primitives (of 3 or 2 corners, or as many as
        // <vcount> says), each corner `stride` indices.
        let count = whole(prim, "count", 0)?;
        let corners = match prim.tag_name().name() {
            "triangles" => count.checked_mul(3),
            "lines" => count.checked_mul(2),
            "polylist" => child(prim, "vcount").map_or(Some(0), |v| {
                v.text()
                    .unwrap_or("")
                    .split_whitespace()
                    .map(|t| t.parse::<u64>().unwrap_or(u64::MAX))
                    .try_fold(0u64, |a, b| a.checked_add(b))
            }),
            _ => Some(count),
        };
        let reserved = corners.and_then(|c| c.checked_mul(stride as u64));
        if count > indices || reserved.is_none_or(|r| r > indices) {
            return Err(format!(
                "{} says count=\"{count}\" (with its <vcount> and {stride} inputs a corner), \
                 more than the {indices} indices its <p> holds",
                at(prim)
            ));
        }
        for p in ps {
            for (k, t) in p.text().unwrap_or("").split_whitespace().enumerate() {
                // A text that is no index is the loader's to refuse.
                let Ok(index) = t.parse::<u64>() else {
                    continue;
                };
                if let Some(limit) = limits[k % stride]
                    && index >= limit
                {
                    return Err(format!(
                        "{} holds the index {index}, past the {limit} elements it points into",
                        at(p)
                    ));
                }
            }
        }
    }
    Ok(())
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
