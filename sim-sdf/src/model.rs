//! `<model>`, `<link>`, `<inertial>`.

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::include::{Included, Site};
use super::inertia::inertia_problem;
use super::parse::with_problems;
use super::reader::{MAX_MODEL_DEPTH, Reader, children, each_child, is_sdf_element, keep, tag};
use super::siblings::Siblings;
use super::unflatten::{Parts, Plan};
use super::version::Version;
use sim_world::{AutoInertia, Frame, Geometry, Inertial, Link, Model, RawPose, Solid};

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
        SdfError::from_all(errors)?;
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
        self.resolve_model(&mut model, depth == 1)?;
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
        let read = |c: Node| -> Result<(), SdfError> {
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
        errors.extend(each_child(node, read));
        SdfError::from_all(errors)?;
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
                                "the mass of link \"{link}\" must be greater than 0, found {}",
                                self.written(m)
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
        with_problems(
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
        collisions: &[sim_world::Collision],
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
                        None => match sim_world::mesh::mesh_triangles(mesh, &self.loader.limits) {
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
            let at = self.child(node, "density").unwrap_or(node);
            return Err(self.error(
                at,
                ErrorKind::Invalid,
                format!(
                    "link \"{link}\": <density> must be a positive number, got {}",
                    self.written(at)
                ),
                "give the density in kg/m³ (water is 1000)",
            ));
        }
        Ok(v)
    }
}
