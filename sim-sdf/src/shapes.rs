//! `<collision>`, `<visual>`, `<geometry>`, `<material>`.

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::reader::{Reader, is_sdf_element, tag};
use sim_world::{
    Collision, Geometry, HeightmapShape, MeshShape, Polyline, Pose, Resource, Vec3, Visual,
};

/// The shapes this reader builds.
const SHAPES: [&str; 11] = [
    "box",
    "sphere",
    "cylinder",
    "capsule",
    "ellipsoid",
    "cone",
    "plane",
    "mesh",
    "heightmap",
    "polyline",
    "empty",
];
/// Shapes of SDF that this reader does not build.
const LATER_SHAPES: [&str; 1] = ["image"];

/// The diffuse colour of a visual without `<material><diffuse>`: opaque mid grey.
pub(crate) const DEFAULT_DIFFUSE: [f32; 4] = [0.7, 0.7, 0.7, 1.0];

impl Reader<'_> {
    /// `<collision name>` of a link (its pose is resolved with the link's model).
    pub(super) fn collision(&self, node: Node) -> Result<Collision, SdfError> {
        let name = self.entity_name(node, false)?;
        Ok(Collision {
            raw_pose: self.raw_pose(node)?,
            pose: Pose::IDENTITY,
            geometry: self.geometry(node)?,
            laser_retro: self.child_f64(node, "laser_retro", 0.0)?,
            surface: self.surface(node)?,
            span: self.span(node),
            name,
        })
    }

    /// `<visual name>` of a link (its pose is resolved with the link's model).
    pub(super) fn visual(&self, node: Node) -> Result<Visual, SdfError> {
        let name = self.entity_name(node, false)?;
        let visibility_flags = match self.child(node, "visibility_flags") {
            Some(flags) => self.visibility_bits(flags)?,
            None => sim_plugin_api::ALL_VISIBLE,
        };
        let diffuse = match self
            .child(node, "material")
            .and_then(|m| self.child(m, "diffuse"))
        {
            Some(d) => match self.numbers(d, &[3, 4], "red green blue [alpha], from 0 to 1")? {
                Some(v) => [
                    v[0] as f32,
                    v[1] as f32,
                    v[2] as f32,
                    v.get(3).map_or(1.0, |&a| a as f32),
                ],
                None => DEFAULT_DIFFUSE,
            },
            None => DEFAULT_DIFFUSE,
        };
        Ok(Visual {
            raw_pose: self.raw_pose(node)?,
            pose: Pose::IDENTITY,
            geometry: self.geometry(node)?,
            diffuse,
            laser_retro: self.child_f64(node, "laser_retro", 0.0)?,
            label: self.element_label(node)?,
            visibility_flags,
            thermal: self.element_thermal(node)?,
            span: self.span(node),
            name,
        })
    }

    /// The `<geometry>` of a collision or visual `owner`: exactly one shape. As libsdformat,
    /// an absent `<geometry>` is the empty shape (a visual may exist only to carry plugins);
    /// a `<geometry>` without a shape this reader recognises is an error (likely a typo).
    fn geometry(&self, owner: Node) -> Result<Geometry, SdfError> {
        let Some(g) = self.child(owner, "geometry") else {
            return Ok(Geometry::Empty);
        };
        let elements: Vec<Node> = g.children().filter(|c| is_sdf_element(*c)).collect();
        let shapes: Vec<Node> = elements
            .iter()
            .copied()
            .filter(|c| SHAPES.contains(&tag(*c)) || LATER_SHAPES.contains(&tag(*c)))
            .collect();
        match shapes.as_slice() {
            [] => {
                let found = match elements.first() {
                    Some(e) => format!(" (<{}> is not a shape)", tag(*e)),
                    None => String::new(),
                };
                Err(self.error(
                    g,
                    ErrorKind::Missing,
                    format!("<geometry> has no shape{found}"),
                    format!(
                        "use one of {}; <empty/> for no shape",
                        SHAPES[..SHAPES.len() - 1].join(", ")
                    ),
                ))
            }
            [shape] => self.shape(*shape),
            // Several <polyline>s make one extruded shape (inner ones are holes).
            many if many.iter().all(|n| tag(*n) == "polyline") => many
                .iter()
                .map(|n| self.polyline(*n))
                .collect::<Result<Vec<_>, _>>()
                .map(Geometry::Polyline),
            [first, second, ..] => Err(self.error(
                *second,
                ErrorKind::Invalid,
                format!(
                    "<geometry> has more than one shape (<{}> and <{}>)",
                    tag(*first),
                    tag(*second)
                ),
                "a <geometry> holds one shape: put the other in its own <collision> or <visual>",
            )),
        }
    }

    /// One shape element.
    fn shape(&self, s: Node) -> Result<Geometry, SdfError> {
        let metres = "sizes are in metres and must be positive";
        Ok(match tag(s) {
            "box" => Geometry::Box {
                size: self.child_positive_vec3(s, "size", Vec3::new(1.0, 1.0, 1.0), metres)?,
            },
            "sphere" => Geometry::Sphere {
                radius: self.child_positive(s, "radius", 1.0, metres)?,
            },
            "cylinder" => Geometry::Cylinder {
                radius: self.child_positive(s, "radius", 1.0, metres)?,
                length: self.child_positive(s, "length", 1.0, metres)?,
            },
            "capsule" => Geometry::Capsule {
                radius: self.child_positive(s, "radius", 0.5, metres)?,
                length: self.child_positive(s, "length", 1.0, metres)?,
            },
            "ellipsoid" => Geometry::Ellipsoid {
                radii: self.child_positive_vec3(s, "radii", Vec3::new(1.0, 1.0, 1.0), metres)?,
            },
            "plane" => {
                let normal = self.child_vec3(s, "normal", Vec3::new(0.0, 0.0, 1.0))?;
                if normal.length() == 0.0 {
                    let at = self.child(s, "normal").map_or(s, |n| n);
                    return Err(self.error_at(
                        self.text(at).start(),
                        at,
                        ErrorKind::Invalid,
                        "the normal of a <plane> must not be zero",
                        "give the direction the plane faces, e.g. 0 0 1",
                    ));
                }
                let size = match self.child(s, "size") {
                    Some(n) => {
                        match self.numbers(n, &[2], "x y")? {
                            Some(v) if v[0] > 0.0 && v[1] > 0.0 => [v[0], v[1]],
                            Some(v) => {
                                return Err(self.error_at(
                                self.text(n).start(),
                                n,
                                ErrorKind::Invalid,
                                format!("both components of <size> must be greater than 0, found {} {}", v[0], v[1]),
                                metres,
                            ));
                            }
                            None => [1.0, 1.0],
                        }
                    }
                    None => [1.0, 1.0],
                };
                Geometry::Plane { normal, size }
            }
            "cone" => Geometry::Cone {
                radius: self.child_positive(s, "radius", 0.5, metres)?,
                length: self.child_positive(s, "length", 1.0, metres)?,
            },
            "mesh" => {
                let (submesh, center_submesh) = match self.child(s, "submesh") {
                    Some(sub) => (
                        self.child_string(sub, "name"),
                        self.child_bool(sub, "center", false)?,
                    ),
                    None => (None, false),
                };
                let scale = self.child_vec3(s, "scale", Vec3::new(1.0, 1.0, 1.0))?;
                if scale.to_array().contains(&0.0) {
                    let at = self.child(s, "scale").unwrap_or(s);
                    return Err(self.error_at(
                        self.text(at).start(),
                        at,
                        ErrorKind::Invalid,
                        format!(
                            "a mesh <scale> must not have a zero component, found {} {} {}",
                            scale.x, scale.y, scale.z
                        ),
                        "scale factors multiply the mesh's coordinates: use 1 1 1 to keep its size",
                    ));
                }
                let mesh = MeshShape {
                    resource: self.resource(s)?,
                    scale,
                    submesh,
                    center_submesh,
                };
                if self.submesh_missing(s, &mesh) {
                    Geometry::Empty
                } else {
                    Geometry::Mesh(mesh)
                }
            }
            "heightmap" => Geometry::Heightmap(HeightmapShape {
                resource: self.resource(s)?,
                size: self.child_positive_vec3(s, "size", Vec3::new(1.0, 1.0, 1.0), metres)?,
                pos: self.child_vec3(s, "pos", Vec3::ZERO)?,
            }),
            "polyline" => Geometry::Polyline(vec![self.polyline(s)?]),
            "empty" => Geometry::Empty,
            other => {
                let what = match self.child_string(s, "uri") {
                    Some(uri) => format!("<{other}> geometry (\"{uri}\") is"),
                    None => format!("<{other}> geometry is"),
                };
                return Err(self.unsupported(
                    s,
                    &what,
                    "convert the image to a <heightmap> or a <mesh>",
                ));
            }
        })
    }

    /// Whether `mesh` (read from the `<mesh>` element `node`) names a `<submesh>` that its file
    /// lacks. Gazebo then logs an error and loads the world without that geometry (ardupilot's
    /// zephyr names a propeller its wing's file does not hold), and so does this reader, with
    /// a warning naming the file and the submeshes it has. A file that cannot be found or read
    /// is not judged here: building the world reports it.
    fn submesh_missing(&self, node: Node, mesh: &MeshShape) -> bool {
        let (Some(name), Ok(path)) = (&mesh.submesh, &mesh.resource.resolved) else {
            return false;
        };
        let names = self
            .loader
            .mesh_names
            .borrow_mut()
            .entry(path.clone())
            .or_insert_with(|| {
                sim_world::mesh::read_file(path, &self.loader.limits)
                    .ok()
                    .map(|meshes| meshes.into_iter().map(|m| m.names).collect())
            })
            .clone();
        let Some(names) = names else {
            return false;
        };
        if names.iter().any(|n| n.contains(name)) {
            return false;
        }
        let has: Vec<&str> = names
            .iter()
            .filter_map(|n| n.first().map(String::as_str))
            .collect();
        let at = self
            .child(node, "submesh")
            .and_then(|s| self.child(s, "name"))
            .unwrap_or(node);
        self.loader.warn(self.error(
            at,
            ErrorKind::NotFound,
            format!(
                "the mesh file {} has no submesh \"{name}\" (it has: {}); as Gazebo does, the \
                 world is loaded without this geometry",
                path.display(),
                if has.is_empty() {
                    "none".to_string()
                } else {
                    has.join(", ")
                }
            ),
            "name one of the file's submeshes in <submesh><name>, or remove <submesh> to use \
             the whole file",
        ));
        true
    }

    /// The required `<uri>` of a mesh or heightmap, resolved to a file where possible (a file
    /// that cannot be found is reported when the world is built, so that a world can still
    /// be checked and inspected without its meshes).
    fn resource(&self, shape: Node) -> Result<Resource, SdfError> {
        let Some(node) = self.child(shape, "uri") else {
            return Err(self.error(
                shape,
                ErrorKind::Missing,
                format!("<{}> has no <uri>", tag(shape)),
                "name the file, e.g. <uri>model://my_model/meshes/part.dae</uri> or a path \
                 relative to this SDF file",
            ));
        };
        let uri = self.text(node).trimmed().to_string();
        let resolved = self
            .loader
            .resources
            .resolve(&uri, self.base_dir())
            .map_err(|e| format!("{e}; {}", e.hint()))
            .and_then(|p| {
                self.loader.confine(p, self.base_dir()).map_err(|e| {
                    format!("{e}; put the file beside the world or on the resource path")
                })
            });
        Ok(Resource { uri, resolved })
    }

    /// One `<polyline>`: at least three `<point>`s and a positive `<height>`.
    fn polyline(&self, node: Node) -> Result<Polyline, SdfError> {
        let mut points = Vec::new();
        for p in super::reader::children(node, "point") {
            if let Some(v) = self.numbers(p, &[2], "x y")? {
                points.push([v[0], v[1]]);
            }
        }
        if points.len() < 3 {
            return Err(self.error(
                node,
                ErrorKind::Invalid,
                format!(
                    "a <polyline> needs at least 3 <point>s, found {}",
                    points.len()
                ),
                "list the corners of the outline in order, one <point>x y</point> each",
            ));
        }
        Ok(Polyline {
            points,
            height: self.child_positive(
                node,
                "height",
                1.0,
                "the height is in metres and must be positive",
            )?,
        })
    }
}
