//! `<world>`, `<physics>`, `<spherical_coordinates>` (`<scene>` and `<light>`: see `scene`).

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::frames::frame_in_world;
use super::include::{Included, Site};
use super::parse::with_problems;
use super::reader::{Reader, children, each_child, keep, tag};
use super::siblings::Siblings;
use super::version::Version;
use sim_world::{Physics, Scene, SphericalCoordinates, Vec3, World};

/// SDF's default gravity, m/s².
pub(crate) const DEFAULT_GRAVITY: Vec3 = Vec3::new(0.0, 0.0, -9.8);
/// SDF 1.12's default magnetic field, T.
pub(crate) const DEFAULT_MAGNETIC_FIELD: Vec3 = Vec3::new(5.5645e-6, 22.8758e-6, -42.3884e-6);
/// WGS84 semi-major (equatorial) axis, m.
pub(crate) const WGS84_EQUATORIAL: f64 = 6_378_137.0;
/// WGS84 semi-minor (polar) axis, m.
pub(crate) const WGS84_POLAR: f64 = 6_356_752.314245;

/// The surface models `<spherical_coordinates><surface_model>` may name.
const SURFACE_MODELS: [&str; 3] = ["EARTH_WGS84", "MOON_SCS", "CUSTOM_SURFACE"];

/// The smallest `<max_step_size>`, s (1 µs: the simulation clock counts nanoseconds).
pub const MIN_STEP_SIZE: f64 = 1e-6;

/// The largest `<max_step_size>`, s.
pub const MAX_STEP_SIZE: f64 = 10.0;

impl Reader<'_> {
    /// `<world name>`.
    pub(super) fn world(&self, node: Node) -> Result<World, SdfError> {
        let name = self.entity_name(node, false)?;
        // The world's settings, each read on its own so that every error among them (and
        // among the world's elements) is reported.
        let mut errors = Vec::new();
        let physics_node = keep(&mut errors, self.chosen_physics(node), None);
        let physics = match physics_node {
            Some(p) => keep(&mut errors, self.physics(p), Physics::default()),
            None => Physics::default(),
        };
        // SDF 1.5 and older kept gravity and the magnetic field inside <physics>.
        let legacy = |name: &str| {
            physics_node
                .filter(|_| self.version <= Version::new(1, 5))
                .and_then(|p| self.child(p, name))
        };
        let gravity = match self.child(node, "gravity").or_else(|| legacy("gravity")) {
            Some(g) => keep(
                &mut errors,
                self.vec3_of(g, DEFAULT_GRAVITY),
                DEFAULT_GRAVITY,
            ),
            None => DEFAULT_GRAVITY,
        };
        let magnetic_field = match self
            .child(node, "magnetic_field")
            .or_else(|| legacy("magnetic_field"))
        {
            Some(m) => keep(
                &mut errors,
                self.vec3_of(m, DEFAULT_MAGNETIC_FIELD),
                DEFAULT_MAGNETIC_FIELD,
            ),
            None => DEFAULT_MAGNETIC_FIELD,
        };
        let atmosphere_temperature = keep(
            &mut errors,
            self.atmosphere_temperature(node),
            super::thermal::DEFAULT_ATMOSPHERE_TEMPERATURE,
        );
        let spherical_coordinates = match self.child(node, "spherical_coordinates") {
            Some(s) => keep(&mut errors, self.spherical_coordinates(s).map(Some), None),
            None => None,
        };

        let scene = match self.child(node, "scene") {
            Some(s) => keep(&mut errors, self.scene(s), Scene::default()),
            None => Scene::default(),
        };

        let mut models = Vec::new();
        let mut frames = Vec::new();
        let mut joints = Vec::new();
        let mut plugins = Vec::new();
        let (mut model_names, mut frame_names, mut joint_names) = (
            Siblings::default(),
            Siblings::default(),
            Siblings::default(),
        );
        let mut lights = Vec::new();
        let mut actors = Vec::new();
        let mut light_nodes = Vec::new();
        let mut light_names = Siblings::default();
        // An element with an error is skipped and its siblings are still read, so that every
        // independent error of the world is reported.
        let read = |c: Node| -> Result<(), SdfError> {
            match tag(c) {
                "model" => {
                    let model = self.model_unflattening(c, 1, true)?;
                    model_names.insert(self, c, &model.name, "world")?;
                    models.push(model);
                }
                "plugin" => plugins.push(self.plugin(c)?),
                "include" => {
                    let site = Site {
                        in_world: true,
                        depth: 1,
                    };
                    match self.include(c, &site)? {
                        Included::Model(model) => {
                            model_names.insert_as(self, c, "model", &model.name, "world")?;
                            models.push(model);
                        }
                        Included::Merged(parts) => {
                            for model in parts.models {
                                model_names.insert_as(self, c, "model", &model.name, "world")?;
                                models.push(model);
                            }
                            plugins.extend(parts.plugins);
                        }
                        Included::Light(light) => {
                            light_names.insert(self, c, &light.name, "world")?;
                            lights.push(light);
                            light_nodes.push(c.id());
                        }
                        Included::Actor(name) => actors.push(name),
                    }
                }
                "joint" => {
                    if self.version < Version::new(1, 10) {
                        return Err(self.error(
                                c,
                                ErrorKind::Invalid,
                                format!(
                                    "a <joint> directly in the <world> needs SDF 1.10 or newer (this file declares {})",
                                    self.version
                                ),
                                "move the joint into the model that holds its child link, or declare <sdf version=\"1.10\">",
                            ));
                    }
                    let joint = self.joint(c)?;
                    if let Some(x) = children(c, "sensor").next() {
                        return Err(self.unsupported(
                                x,
                                "sensors in world-level joints are",
                                "move the joint (with its sensor) into the model that holds its child link",
                            ));
                    }
                    joint_names.insert(self, c, &joint.name, "world")?;
                    joints.push(joint);
                }
                "frame" => {
                    let frame = self.frame(c)?;
                    frame_names.insert(self, c, &frame.name, "world")?;
                    frames.push(frame);
                }
                "light" => {
                    let light = self.light(c)?;
                    light_names.insert(self, c, &light.name, "world")?;
                    lights.push(light);
                    light_nodes.push(c.id());
                }
                "actor" => actors.push(self.entity_name(c, false)?),
                "population" => {
                    return Err(self.unsupported(
                        c,
                        "<population> is",
                        "write the models of the population out one by one",
                    ));
                }
                _ => {}
            }
            Ok(())
        };
        errors.extend(each_child(node, read));

        SdfError::from_all(errors)?;

        let mut world = World {
            name,
            sdf_version: self.version.to_string(),
            physics,
            gravity,
            magnetic_field,
            atmosphere_temperature,
            spherical_coordinates,
            scene,
            lights,
            actors,
            models,
            frames,
            joints,
            plugins,
            span: self.span(node),
            limits: self.loader.limits.clone(),
            resources: self.loader.resources.clone(),
        };
        self.resolve_world(&mut world)?;
        // Lights posed relative to a frame of the world (a model, a link, a <frame>).
        let mut placed = Vec::new();
        for (k, id) in light_nodes.iter().enumerate() {
            let Some(light_node) = node.document().get_node(*id) else {
                continue;
            };
            let raw = self.raw_pose(light_node)?;
            if raw.relative_to.is_empty() || raw.relative_to == "world" {
                continue;
            }
            let Some(frame) = frame_in_world(&world, &raw.relative_to) else {
                return Err(self.error_span(
                    &raw.span,
                    super::reader::describe(light_node),
                    ErrorKind::UnknownReference,
                    format!(
                        "relative_to \"{}\" is not a frame in the world",
                        raw.relative_to
                    ),
                    "name a model, a link (model::link) or a <frame> of the world",
                ));
            };
            placed.push((k, frame.compose(raw.pose)));
        }
        for (k, pose) in placed {
            world.lights[k].pose = pose;
        }
        Ok(world)
    }

    /// The `<physics>` the world runs with: the one with `default="true"`, else the first.
    fn chosen_physics<'n>(&self, world: Node<'n, 'n>) -> Result<Option<Node<'n, 'n>>, SdfError> {
        let mut first = None;
        for p in children(world, "physics") {
            if self.bool_attr(p, "default", false)? {
                return Ok(Some(p));
            }
            first = first.or(Some(p));
        }
        Ok(first)
    }

    /// `<physics type>`.
    fn physics(&self, node: Node) -> Result<Physics, SdfError> {
        let defaults = Physics::default();
        // Each value on its own, so that every error is reported.
        let mut errors = Vec::new();
        let max_step_size = self.child_positive(
            node,
            "max_step_size",
            defaults.max_step_size,
            "the step size is in seconds, e.g. 0.001",
        );
        let max_step_size = max_step_size.and_then(|v| {
            if (MIN_STEP_SIZE..=MAX_STEP_SIZE).contains(&v) {
                return Ok(v);
            }
            let at = self.child(node, "max_step_size").unwrap_or(node);
            Err(self.error_at(
                self.text(at).start(),
                at,
                ErrorKind::Invalid,
                format!(
                    "<max_step_size> must be from {MIN_STEP_SIZE:e} s to {MAX_STEP_SIZE} s, found {}",
                    self.written(at)
                ),
                "the simulation clock counts whole nanoseconds: a step under a microsecond \
                 rounds away, one over 10 s is not a physics step; 0.001 is usual",
            ))
        });
        let max_step_size = keep(&mut errors, max_step_size, defaults.max_step_size);
        let real_time_factor = match self.child(node, "real_time_factor") {
            Some(n) => {
                // As gz-sim: a factor of 0 or below runs as fast as possible.
                let v = self.f64_of(Some(n)).map(|v| {
                    let v = v.unwrap_or(defaults.real_time_factor);
                    if v < 0.0 {
                        self.loader.warn(self.error_at(
                            self.text(n).start(),
                            n,
                            ErrorKind::Invalid,
                            format!(
                                "<real_time_factor> {v} is negative: the world runs as fast as \
                                 possible, as with 0"
                            ),
                            "1 runs at real time, 2 twice as fast; 0 runs as fast as possible",
                        ));
                        return 0.0;
                    }
                    v
                });
                keep(&mut errors, v, defaults.real_time_factor)
            }
            None => defaults.real_time_factor,
        };
        let solver_iterations = keep(&mut errors, self.solver_iterations(node), None);
        let engine = match node.attribute("type").map(str::trim) {
            Some(t) if !t.is_empty() => t.to_string(),
            _ => defaults.engine,
        };
        with_problems(
            Ok(Physics {
                max_step_size,
                real_time_factor,
                engine,
                solver_iterations,
            }),
            errors,
        )
    }

    /// `<spherical_coordinates>`.
    fn spherical_coordinates(&self, node: Node) -> Result<SphericalCoordinates, SdfError> {
        let surface_model = match self.child(node, "surface_model") {
            Some(n) => {
                let text = self.text(n);
                let value = text.trimmed();
                if value.is_empty() {
                    SURFACE_MODELS[0].to_string()
                } else if SURFACE_MODELS.contains(&value) {
                    value.to_string()
                } else {
                    return Err(self.error_at(
                        text.start(),
                        n,
                        ErrorKind::Invalid,
                        format!("unknown surface model \"{value}\""),
                        format!("use one of {}", SURFACE_MODELS.join(", ")),
                    ));
                }
            }
            None => SURFACE_MODELS[0].to_string(),
        };
        let axis_hint = "the axes of the reference ellipsoid are in metres";
        Ok(SphericalCoordinates {
            surface_model,
            latitude_deg: self.child_f64(node, "latitude_deg", 0.0)?,
            longitude_deg: self.child_f64(node, "longitude_deg", 0.0)?,
            elevation: self.child_f64(node, "elevation", 0.0)?,
            heading_deg: self.child_f64(node, "heading_deg", 0.0)?,
            equatorial_axis: self.child_positive(
                node,
                "surface_axis_equatorial",
                WGS84_EQUATORIAL,
                axis_hint,
            )?,
            polar_axis: self.child_positive(node, "surface_axis_polar", WGS84_POLAR, axis_hint)?,
        })
    }
}
