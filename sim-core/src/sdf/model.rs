//! `<model>`, `<link>`, `<inertial>`.

use std::collections::HashMap;

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::include::{Included, Site};
use super::reader::{MAX_MODEL_DEPTH, Reader, Version, children, is_sdf_element, keep, tag};
use super::unflatten::{Parts, Plan};
use crate::world::{AutoInertia, Frame, Geometry, Inertial, Link, Model, RawPose, Solid};

/// The names already used by siblings of one kind (links of a model, models of a world...),
/// with the line each was defined on.
#[derive(Default)]
pub(crate) struct Siblings(HashMap<String, u32>);

impl Siblings {
    /// Records `name` for `node`; fails if a sibling of the same kind already has it.
    pub(crate) fn insert(
        &mut self,
        r: &Reader,
        node: Node,
        name: &str,
        scope: &str,
    ) -> Result<(), SdfError> {
        self.insert_as(r, node, tag(node), name, scope)
    }

    /// Records `name` for a `<kind>` brought in by `node` (the element itself, or the
    /// `<include>` that brought it); fails if a sibling of the same kind already has it.
    pub(crate) fn insert_as(
        &mut self,
        r: &Reader,
        node: Node,
        kind: &str,
        name: &str,
        scope: &str,
    ) -> Result<(), SdfError> {
        let line = r.span(node).line;
        if let Some(first) = self.0.get(name) {
            return Err(r.attr_error(
                node,
                "name",
                ErrorKind::Duplicate,
                format!(
                    "a <{kind}> named \"{name}\" already exists in this {scope} (line {first})"
                ),
                format!("give each <{kind}> in the same {scope} a different name"),
            ));
        }
        self.0.insert(name.to_string(), line);
        Ok(())
    }
}

impl Reader<'_> {
    /// `<model name>`, at nesting `depth` (1 for a top-level model), read and resolved
    /// (see `frames`): on return every pose inside the model is resolved, and the model's
    /// own `pose` is its `raw_pose` with the placement frame applied, which the enclosing
    /// scope re-resolves when the pose is relative to another frame.
    pub(super) fn model(&self, node: Node, depth: usize) -> Result<Model, SdfError> {
        self.model_unflattening(node, depth, false)
    }

    /// [`Reader::model`]; with `unflatten`, the nested models flattened into it (an SDF < 1.8
    /// model of a world, see `unflatten`) are rebuilt.
    pub(super) fn model_unflattening(
        &self,
        node: Node,
        depth: usize,
        unflatten: bool,
    ) -> Result<Model, SdfError> {
        if depth > MAX_MODEL_DEPTH {
            return Err(self.error(
                node,
                ErrorKind::Invalid,
                format!("models are nested more than {MAX_MODEL_DEPTH} deep"),
                "flatten the model hierarchy",
            ));
        }
        let name = self.entity_name(node, true)?;
        let attr = |a: &str| node.attribute(a).map(str::trim).unwrap_or("").to_string();
        let placement_frame = attr("placement_frame");
        let canonical_link = attr("canonical_link");
        let raw_namespace = node.attribute("namespace").map(str::to_string);
        // The model's own values and its elements are read on, each on its own, after an
        // error, so that every independent error of the model is reported.
        let mut errors = Vec::new();
        let raw_pose = keep(&mut errors, self.raw_pose(node), RawPose::default());
        let is_static = keep(&mut errors, self.child_bool(node, "static", false), false);
        let self_collide = keep(
            &mut errors,
            self.child_bool(node, "self_collide", false),
            false,
        );

        let mut links = Vec::new();
        let mut joints = Vec::new();
        let mut models = Vec::new();
        let mut frames = Vec::new();
        let mut plugins = Vec::new();
        let (mut link_names, mut model_names, mut joint_names, mut frame_names) = (
            Siblings::default(),
            Siblings::default(),
            Siblings::default(),
            Siblings::default(),
        );
        let mut label = None;
        let plan = if unflatten && self.version < Version::new(1, 8) {
            Plan::of(node)
        } else {
            Plan::default()
        };
        // An element with an error is skipped and its siblings are still read, so that every
        // independent error of the model is reported.
        let mut read = |c: Node| -> Result<(), SdfError> {
            match tag(c) {
                "link" => {
                    let link = self.link(c)?;
                    link_names.insert(self, c, &link.name, "model")?;
                    links.push(link);
                }
                "model" => {
                    let nested =
                        self.model_unflattening(c, depth + 1, plan.recurses_into(c.id()))?;
                    model_names.insert(self, c, &nested.name, "model")?;
                    models.push(nested);
                }
                "joint" => {
                    let joint = self.joint(c)?;
                    joint_names.insert(self, c, &joint.name, "model")?;
                    joints.push(joint);
                }
                "frame" => {
                    let frame = self.frame(c)?;
                    if frame.name.ends_with("::__model__") && !plan.rebuilds(&frame.name) {
                        // libsdformat rebuilds the nested model such a frame marks only in
                        // the models of a world (see `unflatten`); read flat, its frames would
                        // not mean what they meant.
                        return Err(self.attr_error(
                            c,
                            "name",
                            ErrorKind::Unsupported,
                            format!(
                                "frame \"{}\" marks a flattened nested model, which is rebuilt \
                                 only in a <world> of an SDF < 1.8 file, before the world's first \
                                 nested <model> with a plain name",
                                frame.name
                            ),
                            "write the nested model as a <model> inside its parent",
                        ));
                    }
                    frame_names.insert(self, c, &frame.name, "model")?;
                    frames.push(frame);
                }
                "plugin" => match self.label_plugin(c)? {
                    Some(l) => label = Some(l),
                    None => plugins.push(self.plugin(c)?),
                },
                "include" => {
                    let site = Site {
                        in_world: false,
                        depth: depth + 1,
                    };
                    match self.include(c, &site)? {
                        Included::Model(nested) => {
                            model_names.insert_as(self, c, "model", &nested.name, "model")?;
                            models.push(nested);
                        }
                        Included::Merged(parts) => {
                            for link in parts.links {
                                link_names.insert_as(self, c, "link", &link.name, "model")?;
                                links.push(link);
                            }
                            for nested in parts.models {
                                model_names.insert_as(self, c, "model", &nested.name, "model")?;
                                models.push(nested);
                            }
                            for joint in parts.joints {
                                joint_names.insert_as(self, c, "joint", &joint.name, "model")?;
                                joints.push(joint);
                            }
                            for frame in parts.frames {
                                frame_names.insert_as(self, c, "frame", &frame.name, "model")?;
                                frames.push(frame);
                            }
                            plugins.extend(parts.plugins);
                        }
                        Included::Light(_) | Included::Actor(_) => {}
                    }
                }
                _ => {}
            }
            Ok(())
        };
        // A plain loop: nested models recurse through here, and iterator adapters would add
        // stack frames to every level.
        for c in node.children().filter(|c| is_sdf_element(*c)) {
            if let Err(e) = read(c) {
                errors.push(e);
            }
        }
        let mut errors = errors.into_iter();
        if let Some(first) = errors.next() {
            return Err(first.with_others(errors));
        }
        if !plan.is_empty() {
            let parts = Parts {
                links: &mut links,
                joints: &mut joints,
                frames: &mut frames,
                models: &mut models,
            };
            self.unflatten(&plan, parts, &self.span(node))?;
        }
        let mut model = Model {
            name,
            pose: raw_pose.pose,
            raw_pose,
            canonical_link,
            placement_frame,
            is_static,
            self_collide,
            links,
            joints,
            models,
            frames,
            plugins,
            label,
            raw_namespace,
            span: self.span(node),
        };
        self.resolve_model(&mut model)?;
        Ok(model)
    }

    /// `<frame name attached_to>` of a model or world (resolved with its scope).
    pub(super) fn frame(&self, node: Node) -> Result<Frame, SdfError> {
        let name = self.entity_name(node, true)?;
        let attached_to = node
            .attribute("attached_to")
            .map(str::trim)
            .unwrap_or("")
            .to_string();
        let raw_pose = self.raw_pose(node)?;
        Ok(Frame {
            name,
            attached_to,
            attached_to_body: String::new(),
            pose: raw_pose.pose,
            raw_pose,
            span: self.span(node),
        })
    }

    /// `<link name>` (its poses are resolved with its model).
    fn link(&self, node: Node) -> Result<Link, SdfError> {
        let name = self.entity_name(node, true)?;
        // The link's own values and its elements are read on, each on its own, after an
        // error, so that every independent error of the link is reported.
        let mut errors = Vec::new();
        let raw_pose = keep(&mut errors, self.raw_pose(node), RawPose::default());
        let mut inertial = match self.child(node, "inertial") {
            Some(i) => keep(&mut errors, self.inertial(i, &name), Inertial::default()),
            None => Inertial::default(),
        };
        let gravity = keep(&mut errors, self.child_bool(node, "gravity", true), true);
        let kinematic = keep(
            &mut errors,
            self.child_bool(node, "kinematic", false),
            false,
        );
        let self_collide = keep(&mut errors, self.link_self_collide(node), None);
        let velocity_decay = self.velocity_decay(node);

        let (mut collisions, mut visuals, mut sensors) = (Vec::new(), Vec::new(), Vec::new());
        let mut plugins = Vec::new();
        let (mut collision_names, mut visual_names, mut sensor_names) = (
            Siblings::default(),
            Siblings::default(),
            Siblings::default(),
        );
        // A faulty collision, visual or sensor does not hide the errors of its siblings.
        let mut read = |c: Node| -> Result<(), SdfError> {
            match tag(c) {
                "collision" => {
                    let collision = self.collision(c)?;
                    collision_names.insert(self, c, &collision.name, "link")?;
                    collisions.push(collision);
                }
                "visual" => {
                    let visual = self.visual(c)?;
                    visual_names.insert(self, c, &visual.name, "link")?;
                    visuals.push(visual);
                }
                "sensor" => {
                    let sensor = self.sensor(c)?;
                    sensor_names.insert(self, c, &sensor.name, "link")?;
                    sensors.push(sensor);
                }
                "plugin" => plugins.push(self.plugin(c)?),
                _ => {}
            }
            Ok(())
        };
        // A plain loop: nested models recurse through here, and iterator adapters would add
        // stack frames to every level.
        for c in node.children().filter(|c| is_sdf_element(*c)) {
            if let Err(e) = read(c) {
                errors.push(e);
            }
        }
        let mut errors = errors.into_iter();
        if let Some(first) = errors.next() {
            return Err(first.with_others(errors));
        }
        if let Some(auto) = inertial.auto.as_mut() {
            (auto.densities, auto.solids) =
                self.auto_inertia_densities(node, &name, &collisions)?;
        }
        Ok(Link {
            name,
            pose: raw_pose.pose,
            raw_pose,
            inertial,
            gravity,
            kinematic,
            self_collide,
            velocity_decay,
            collisions,
            visuals,
            sensors,
            plugins,
            span: self.span(node),
        })
    }

    /// `<inertial>` of the link named `link`: every error among its values is reported.
    fn inertial(&self, node: Node, link: &str) -> Result<Inertial, SdfError> {
        let mut errors = Vec::new();
        let auto = keep(&mut errors, self.bool_attr(node, "auto", false), false);
        let defaults = Inertial::default();
        let mass = match self.child(node, "mass") {
            Some(m) => {
                let mass = self.f64_of(Some(m)).and_then(|v| {
                    let v = v.unwrap_or(defaults.mass);
                    if v <= 0.0 {
                        return Err(self.error_at(
                            self.text(m).start(),
                            m,
                            ErrorKind::Invalid,
                            format!(
                                "the mass of link \"{link}\" must be greater than 0, found {v}"
                            ),
                            "give the mass in kg; for a body that must not move, make the model \
                             <static>",
                        ));
                    }
                    Ok(v)
                });
                keep(&mut errors, mass, defaults.mass)
            }
            None => defaults.mass,
        };
        let raw_pose = keep(&mut errors, self.raw_pose(node), RawPose::default());
        let inertia = match self.child(node, "inertia") {
            Some(i) => {
                let d = defaults.inertia;
                let before = errors.len();
                let inertia = [
                    ("ixx", d[0]),
                    ("ixy", d[1]),
                    ("ixz", d[2]),
                    ("iyy", d[3]),
                    ("iyz", d[4]),
                    ("izz", d[5]),
                ]
                .map(|(name, default)| {
                    keep(&mut errors, self.child_f64(i, name, default), default)
                });
                // The tensor as a whole, once each of its values reads.
                if errors.len() == before
                    && let Some(problem) = inertia_problem(inertia)
                {
                    errors.push(self.error(
                        i,
                        ErrorKind::Invalid,
                        format!("invalid inertia for link \"{link}\": {problem}"),
                        "give the moments of inertia (kg·m²) about the centre of mass: ixx, iyy, izz > 0, \
                         each at most the sum of the other two, with small products ixy, ixz, iyz",
                    ));
                }
                inertia
            }
            None => defaults.inertia,
        };
        super::with_problems(
            Ok(Inertial {
                mass,
                pose: raw_pose.pose,
                raw_pose,
                inertia,
                auto: auto.then(|| AutoInertia {
                    mass: self.child(node, "mass").map(|_| mass),
                    densities: Vec::new(),
                    solids: Vec::new(),
                }),
            }),
            errors,
        )
    }
}

impl Reader<'_> {
    /// The density of each collision of a link with `<inertial auto="true">`, and the solid
    /// of each mesh collision (read from its file), checking that there are collisions and
    /// that each shape's inertia can be computed.
    #[allow(clippy::type_complexity)]
    fn auto_inertia_densities(
        &self,
        link: Node,
        name: &str,
        collisions: &[crate::world::Collision],
    ) -> Result<(Vec<f64>, Vec<Option<Solid>>), SdfError> {
        let inertial = self.child(link, "inertial").unwrap_or(link);
        if collisions.is_empty() {
            return Err(self.attr_error(
                inertial,
                "auto",
                ErrorKind::Missing,
                format!(
                    "link \"{name}\": the inertia is automatic (auto=\"true\") but the link has \
                     no <collision> to compute it from"
                ),
                "add the link's <collision> elements, or give <mass> and <inertia>",
            ));
        }
        let link_density = self.positive_density(inertial, name, 1000.0)?;
        let nodes: Vec<Node> = children(link, "collision").collect();
        let mut out = Vec::new();
        let mut solids = Vec::new();
        for (c, n) in collisions.iter().zip(nodes) {
            let geometry = self.child(n, "geometry").unwrap_or(n);
            let solid = match &c.geometry {
                Geometry::Box { .. }
                | Geometry::Sphere { .. }
                | Geometry::Cylinder { .. }
                | Geometry::Capsule { .. }
                | Geometry::Ellipsoid { .. }
                | Geometry::Cone { .. } => None,
                Geometry::Mesh(mesh) => {
                    let mesh_node = self.child(geometry, "mesh").unwrap_or(geometry);
                    // A file that cannot be found or read, or a mesh that encloses nothing.
                    // Each mesh shape is read once per load.
                    let key = format!(
                        "{:?} {:?} {} {:?}",
                        mesh.resource.resolved,
                        mesh.submesh,
                        mesh.center_submesh,
                        mesh.scale.to_array().map(f64::to_bits)
                    );
                    let cached = self.loader.solids.borrow().get(&key).cloned();
                    let solid = match cached {
                        Some(solid) => Ok(solid),
                        None => match crate::mesh::mesh_triangles(mesh) {
                            Err(why) if mesh.resource.resolved.is_err() => {
                                Err((ErrorKind::NotFound, why.to_string()))
                            }
                            Err(why) => Err((ErrorKind::Invalid, why.to_string())),
                            Ok((v, f)) => super::mesh_inertia::solid(&v, &f).map_err(|why| {
                                (
                                    ErrorKind::Invalid,
                                    format!("{why} (mesh \"{}\")", mesh.resource.uri),
                                )
                            }),
                        },
                    };
                    if let Ok(solid) = &solid {
                        self.loader.solids.borrow_mut().insert(key, solid.clone());
                    }
                    match solid {
                        Ok(solid) => Some(solid),
                        Err((kind, why)) => {
                            return Err(self.error(
                                self.child(mesh_node, "uri").unwrap_or(mesh_node),
                                kind,
                                format!(
                                    "link \"{name}\": automatic inertia cannot be computed from \
                                     collision \"{}\": {why}",
                                    c.name
                                ),
                                "the inertia of a mesh is that of the solid it encloses: give a \
                                 closed mesh (every edge shared by two triangles), or the link's \
                                 <mass> and <inertia> explicitly (auto=\"false\")",
                            ));
                        }
                    }
                }
                _ => {
                    return Err(self.error(
                        geometry,
                        ErrorKind::Unsupported,
                        format!(
                            "link \"{name}\": automatic inertia cannot be computed from \
                             collision \"{}\": this geometry type has no volume to compute it \
                             from (libsdformat cannot either)",
                            c.name
                        ),
                        "give the link's <mass> and <inertia> explicitly (auto=\"false\")",
                    ));
                }
            };
            out.push(self.positive_density(n, name, link_density)?);
            solids.push(solid);
        }
        Ok((out, solids))
    }

    /// `<density>` of `node` (kg/m³), `default` when absent; it must be positive.
    fn positive_density(&self, node: Node, link: &str, default: f64) -> Result<f64, SdfError> {
        let v = self.child_f64(node, "density", default)?;
        if !(v > 0.0 && v.is_finite()) {
            return Err(self.error(
                self.child(node, "density").unwrap_or(node),
                ErrorKind::Invalid,
                format!("link \"{link}\": <density> must be a positive number, got {v}"),
                "give the density in kg/m³ (water is 1000)",
            ));
        }
        Ok(v)
    }
}

/// The mass properties of a link with automatic inertia (see [`AutoInertia`]): each
/// collision's solid at its resolved pose, summed about the common centre of mass in the link
/// frame, as libsdformat's `Link::ResolveAutoInertials` (shape formulas as gz-math's; a cone's
/// centre of mass is taken at its origin, as libsdformat does; a mesh is the solid it
/// encloses, see `mesh_inertia`). Returns the mass, the centre of
/// mass and the inertia in the link frame, or why they cannot be.
pub(crate) fn auto_inertial(
    collisions: &[crate::world::Collision],
    auto: &AutoInertia,
) -> Result<(f64, crate::world::Vec3, [f64; 6]), String> {
    use std::f64::consts::PI;
    let mut parts = Vec::new();
    let solids = auto.solids.iter().chain(std::iter::repeat(&None));
    for ((c, &rho), solid) in collisions.iter().zip(&auto.densities).zip(solids) {
        // A mesh: its solid, read with the link.
        if let Some(solid) = solid {
            let m = rho * solid.volume;
            if !(m > 0.0 && m.is_finite()) {
                return Err(format!(
                    "collision \"{}\" has no volume, so it gives no mass",
                    c.name
                ));
            }
            let [xx, xy, xz, yy, yz, zz] = solid.inertia.map(|v| v * rho);
            parts.push((
                m,
                [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]],
                c.pose.transform_point(solid.centroid),
                c.pose.orientation,
            ));
            continue;
        }
        // Mass and principal moments about the shape's own axes.
        let (m, [ix, iy, iz]) = match c.geometry {
            Geometry::Box { size } => {
                let m = rho * size.x * size.y * size.z;
                let (x2, y2, z2) = (size.x * size.x, size.y * size.y, size.z * size.z);
                (
                    m,
                    [
                        m / 12.0 * (y2 + z2),
                        m / 12.0 * (x2 + z2),
                        m / 12.0 * (x2 + y2),
                    ],
                )
            }
            Geometry::Sphere { radius: r } => {
                let m = rho * 4.0 / 3.0 * PI * r.powi(3);
                (m, [0.4 * m * r * r; 3])
            }
            Geometry::Cylinder {
                radius: r,
                length: l,
            } => {
                let m = rho * PI * r * r * l;
                let i = m / 12.0 * (3.0 * r * r + l * l);
                (m, [i, i, 0.5 * m * r * r])
            }
            Geometry::Capsule {
                radius: r,
                length: l,
            } => {
                let mc = rho * PI * r * r * l;
                let ms = rho * 4.0 / 3.0 * PI * r.powi(3);
                let i = mc * (l * l / 12.0 + r * r / 4.0)
                    + ms * (0.4 * r * r + 0.375 * r * l + 0.25 * l * l);
                (mc + ms, [i, i, r * r * (0.5 * mc + 0.4 * ms)])
            }
            Geometry::Ellipsoid { radii: a } => {
                let m = rho * 4.0 / 3.0 * PI * a.x * a.y * a.z;
                let (x2, y2, z2) = (a.x * a.x, a.y * a.y, a.z * a.z);
                (
                    m,
                    [
                        m / 5.0 * (y2 + z2),
                        m / 5.0 * (x2 + z2),
                        m / 5.0 * (x2 + y2),
                    ],
                )
            }
            Geometry::Cone {
                radius: r,
                length: l,
            } => {
                let m = rho * PI * r * r * l / 3.0;
                let i = 3.0 / 20.0 * m * r * r + 3.0 / 80.0 * m * l * l;
                (m, [i, i, 0.3 * m * r * r])
            }
            _ => {
                return Err(format!(
                    "collision \"{}\" has no computable inertia",
                    c.name
                ));
            }
        };
        if !(m > 0.0 && m.is_finite()) {
            return Err(format!(
                "collision \"{}\" has no volume, so it gives no mass",
                c.name
            ));
        }
        parts.push((
            m,
            [[ix, 0.0, 0.0], [0.0, iy, 0.0], [0.0, 0.0, iz]],
            c.pose.position,
            c.pose.orientation,
        ));
    }
    let total: f64 = parts.iter().map(|p| p.0).sum();
    let com = parts
        .iter()
        .fold(crate::world::Vec3::ZERO, |acc, (m, _, at, _)| {
            acc + at.scale(*m / total)
        });
    let mut i = [[0.0f64; 3]; 3];
    for (m, d, at, orientation) in &parts {
        let r = orientation.to_matrix();
        let off = *at - com;
        let o = [off.x, off.y, off.z];
        for a in 0..3 {
            for b in 0..3 {
                // R D R^T, plus the parallel axis term m (|o|^2 E - o o^T).
                let rot: f64 = (0..3)
                    .flat_map(|k| (0..3).map(move |l| (k, l)))
                    .map(|(k, l)| r[a][k] * d[k][l] * r[b][l])
                    .sum();
                let shift = m * (if a == b { off.dot(off) } else { 0.0 } - o[a] * o[b]);
                i[a][b] += rot + shift;
            }
        }
    }
    let (mass, k) = match auto.mass {
        Some(given) => (given, given / total),
        None => (total, 1.0),
    };
    Ok((
        mass,
        com,
        [
            i[0][0] * k,
            i[0][1] * k,
            i[0][2] * k,
            i[1][1] * k,
            i[1][2] * k,
            i[2][2] * k,
        ],
    ))
}

/// Why the inertia tensor `[ixx, ixy, ixz, iyy, iyz, izz]` cannot be a rigid body's, if it
/// cannot: it must be positive definite and its principal moments must satisfy the triangle
/// inequality (as gz-math's `MassMatrix3::IsValid`, with a small relative tolerance).
pub(crate) fn inertia_problem(i: [f64; 6]) -> Option<String> {
    let [ixx, ixy, ixz, iyy, iyz, izz] = i;
    let m = [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]];
    let mut moments = symmetric_eigenvalues(m);
    if !moments.iter().all(|v| v.is_finite()) {
        return Some("its values are too large to be a body's inertia".to_string());
    }
    moments.sort_by(f64::total_cmp);
    let [a, b, c] = moments;
    let scale = ixx.abs().max(iyy.abs()).max(izz.abs());
    let tolerance = 1e-12 * scale;
    let shown = format!("{}, {}, {}", fmt_g(a), fmt_g(b), fmt_g(c));
    if a <= 0.0 {
        Some(format!(
            "the tensor is not positive definite (principal moments {shown})"
        ))
    } else if a + b + tolerance < c {
        Some(format!(
            "the principal moments {shown} break the triangle inequality ({} + {} < {})",
            fmt_g(a),
            fmt_g(b),
            fmt_g(c)
        ))
    } else {
        None
    }
}

/// A number in the shortest form that reads back the same, rounded to 6 significant digits
/// for messages.
fn fmt_g(v: f64) -> String {
    let r = format!("{v:.6e}").parse::<f64>().unwrap_or(v);
    format!("{r}")
}

/// Eigenvalues of a symmetric 3x3 matrix (closed form, Smith 1961).
fn symmetric_eigenvalues(m: [[f64; 3]; 3]) -> [f64; 3] {
    let p1 = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
    if p1 == 0.0 {
        return [m[0][0], m[1][1], m[2][2]];
    }
    let q = (m[0][0] + m[1][1] + m[2][2]) / 3.0;
    let p2 = (m[0][0] - q).powi(2) + (m[1][1] - q).powi(2) + (m[2][2] - q).powi(2) + 2.0 * p1;
    let p = (p2 / 6.0).sqrt();
    let mut b = m;
    for (r, row) in b.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = (m[r][c] - if r == c { q } else { 0.0 }) / p;
        }
    }
    let det = b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1])
        - b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0])
        + b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]);
    let phi = (det / 2.0).clamp(-1.0, 1.0).acos() / 3.0;
    let e1 = q + 2.0 * p * phi.cos();
    let e3 = q + 2.0 * p * (phi + 2.0 * std::f64::consts::PI / 3.0).cos();
    [e1, 3.0 * q - e1 - e3, e3]
}
