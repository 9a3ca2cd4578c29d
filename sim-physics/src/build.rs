//! Building a [`World`] in rapier: models, links with their collisions, visuals and sensors,
//! and the joints of each model (see the `joints` module).

use super::contacts::ContactHooks;
use super::convert::*;
use super::entities::{Entities, Entity, EntityData};
use super::environment::Environment;
use super::query::pack_user_data;
use super::state::{Clock, LinkMotion};
use super::{GROUP_COLLISION, GROUP_QUERY, GROUP_VISUAL, Physics, shapes};
use rapier3d::prelude::*;
use sim_plugin_api::{EntityId, EntityKind, ModelPlugins, PluginElement, Pose, SimTime};
use sim_world::{Geometry, Inertial, Joint, Link, Model, Surface, World};

/// A world that could not be built in rapier.
#[derive(Debug, thiserror::Error)]
#[error("{span}: {message}")]
pub struct BuildError {
    /// Where the offending element is.
    pub span: sim_world::Span,
    /// What is wrong.
    pub message: String,
}

/// The geometry of a collision or visual, as declared.
struct ShapeSpec<'a> {
    name: &'a str,
    pose: Pose,
    geometry: &'a Geometry,
    span: &'a sim_world::Span,
    /// A collision's surface, and whether its link touches the other links of its model.
    contact: Option<(&'a Surface, bool)>,
}

/// The model a link is added to.
struct LinkContext<'a> {
    model: EntityId,
    model_scoped: &'a str,
    model_pose: Pose,
    model_label: Option<u32>,
    /// Whether the link touches the other links of its model (those no joint joins it to).
    self_collide: bool,
}

impl Physics {
    /// Builds `world` in rapier.
    pub fn build(world: &World) -> Result<Physics, BuildError> {
        let step_s = world.physics.max_step_size;
        if !(step_s.is_finite() && step_s > 0.0) {
            return Err(BuildError {
                span: world.span.clone(),
                message: format!("max_step_size must be positive, got {step_s}"),
            });
        }
        let mut pw = PhysicsWorld {
            gravity: vec_to_rapier(world.gravity),
            narrow_phase: NarrowPhase::with_query_dispatcher(super::dispatch::ShapeDispatcher),
            ..Default::default()
        };
        // Each broad-phase box grows by 12.5 % of its collider's smallest extent (between 4
        // and 25 cm) rather than rapier's fixed 4 cm: a falling or sliding body leaves its box,
        // and the tree is updated, some three times less often. Pairs are made a little
        // earlier; contacts are computed as before (only within the prediction distance).
        pw.broad_phase.adaptive_change_detection_margin = true;
        let ip = &mut pw.integration_parameters;
        ip.dt = step_s as f32;
        // SDF worlds are in metres; Gazebo caps neither speed nor rotation per step, so
        // lift rapier's safety caps (400 m/s by default; rotation is uncapped per body below).
        ip.length_unit = 1.0;
        ip.normalized_max_linear_velocity = 1.0e6;
        stiff_contacts(ip);
        if let Some(iterations) = world.physics.solver_iterations {
            ip.num_solver_iterations = iterations as usize;
        }

        let mut physics = Physics {
            pw,
            entities: Entities::default(),
            links: Default::default(),
            clock: Clock::new(SimTime::from_nanos((step_s * 1e9).round() as i64)),
            environment: Environment::of(world),
            joints: Default::default(),
            leads: Default::default(),
            planes: Default::default(),
            hooks: Default::default(),
            shapes: shapes::ShapeCache::new(world.limits.clone()),
            model_plugins: ModelPlugins::new(),
            rays: Default::default(),
            scans: Default::default(),
            lenses: Default::default(),
            wrenched: Vec::new(),
            revision: 0,
        };
        let world_id = physics.entities.add(Entity {
            kind: EntityKind::WORLD,
            parent: EntityId::NONE,
            name: world.name.clone(),
            scoped_name: world.name.clone(),
            model: EntityId::NONE,
            data: EntityData::World,
        });
        debug_assert_eq!(world_id, EntityId::WORLD);
        for model in &world.models {
            physics.joints.reduced = super::joints::reducible(model);
            physics.add_model(model, EntityId::WORLD, "", Pose::IDENTITY, None)?;
            physics.joints.reduced = false;
        }
        for joint in world.joints.iter().filter(|j| !joins_itself(j)) {
            physics.add_joint(joint, EntityId::WORLD, "")?;
        }
        physics.check_overlapping_pairs(&world.limits, &world.span, "this world")?;
        physics.refresh_queries();
        Ok(physics)
    }

    /// Adds a model: its links and nested models, then the joints of all of them (a joint may
    /// join links of different nested models).
    pub(super) fn add_model(
        &mut self,
        model: &Model,
        parent: EntityId,
        prefix: &str,
        parent_pose: Pose,
        parent_label: Option<u32>,
    ) -> Result<EntityId, BuildError> {
        let id = self.add_model_links(model, parent, prefix, parent_pose, None, parent_label)?;
        self.add_model_joints(model, prefix)?;
        Ok(id)
    }

    /// The joints (and joint sensors) of `model` and its nested models, whose links exist.
    fn add_model_joints(&mut self, model: &Model, prefix: &str) -> Result<(), BuildError> {
        let scoped = if prefix.is_empty() {
            model.name.clone()
        } else {
            format!("{prefix}::{}", model.name)
        };
        let id = self.entity_id(&scoped).unwrap_or(EntityId::NONE);
        for joint in model.joints.iter().filter(|j| !joins_itself(j)) {
            // The joints of a static model are built too: they move the links they drive
            // (see `driven_links`); between fixed bodies they never move, but they exist,
            // report their (zero) state and carry their sensors.
            let joint_id = self.add_joint(joint, id, &scoped)?;
            self.add_joint_sensors(joint, joint_id, id, &scoped);
        }
        for nested in &model.models {
            self.add_model_joints(nested, &scoped)?;
        }
        Ok(())
    }

    /// Adds a model's entities and bodies (links, shapes, sensors) and those of its nested
    /// models, without joints. `statics` is, inside a static model, the links its joints
    /// drive (see [`driven_links`]); `None` outside static models.
    fn add_model_links(
        &mut self,
        model: &Model,
        parent: EntityId,
        prefix: &str,
        parent_pose: Pose,
        statics: Option<&std::collections::HashSet<String>>,
        parent_label: Option<u32>,
    ) -> Result<EntityId, BuildError> {
        let label = model.label.or(parent_label);
        let scoped = if prefix.is_empty() {
            model.name.clone()
        } else {
            format!("{prefix}::{}", model.name)
        };
        let pose = parent_pose.compose(model.pose);
        let own;
        let statics = match statics {
            None if model.is_static => {
                own = driven_links(model, &scoped);
                Some(&own)
            }
            statics => statics,
        };
        let is_static = statics.is_some();
        let id = self.entities.add(Entity {
            kind: EntityKind::MODEL,
            parent,
            name: model.name.clone(),
            scoped_name: scoped.clone(),
            model: EntityId::NONE,
            data: EntityData::Model {
                links: Vec::new(),
                canonical: None,
                initial_pose: pose,
                is_static,
            },
        });
        if let Some(e) = self.entities.get_mut(id) {
            e.model = id;
        }
        self.model_plugins.insert(
            id,
            model
                .plugins
                .iter()
                .map(|p| PluginElement {
                    name: p.name.as_str().into(),
                    filename: p.filename.as_str().into(),
                    sdf: p.sdf.as_str().into(),
                })
                .collect(),
        );
        let mut links = Vec::new();
        let self_collides = |l: &Link| l.self_collide.unwrap_or(model.self_collide);
        let joined = |a: &str, b: &str| {
            model.joints.iter().any(|j| {
                (j.parent_link == a && j.child_link == b)
                    || (j.parent_link == b && j.child_link == a)
            })
        };
        for link in &model.links {
            // A link that does not self-collide needs its collisions filtered only when its
            // model has another such link that no joint joins it to (joined links never touch).
            let self_collide = self_collides(link)
                || !model.links.iter().any(|o| {
                    o.name != link.name && !self_collides(o) && !joined(&link.name, &o.name)
                });
            let context = LinkContext {
                model: id,
                model_scoped: &scoped,
                model_pose: pose,
                model_label: label,
                self_collide,
            };
            links.push(self.add_link(link, &context, statics)?);
        }
        for nested in &model.models {
            self.add_model_links(nested, id, &scoped, pose, statics, label)?;
        }
        // The model frame follows its canonical link (which may be a nested model's).
        let canonical = if model.canonical_link.is_empty() {
            None
        } else {
            self.entity_id(&format!("{scoped}::{}", model.canonical_link))
                .and_then(|l| {
                    let x_wl = *self.links.initial.get(&l)?;
                    Some((l, x_wl.inverse().compose(pose)))
                })
        };
        if let Some(Entity {
            data:
                EntityData::Model {
                    links: l,
                    canonical: c,
                    ..
                },
            ..
        }) = self.entities.get_mut(id)
        {
            *l = links;
            *c = canonical;
        }
        Ok(id)
    }

    fn add_link(
        &mut self,
        link: &Link,
        context: &LinkContext<'_>,
        statics: Option<&std::collections::HashSet<String>>,
    ) -> Result<EntityId, BuildError> {
        let LinkContext {
            model,
            model_scoped,
            model_pose,
            model_label,
            self_collide,
        } = *context;
        let scoped = format!("{model_scoped}::{}", link.name);
        let pose = model_pose.compose(link.pose);
        let id_guess = self.entities.next_id();
        // A static model stays where it is, but its joints still move: the links its
        // joints drive are bodies that neither fall nor yield to contacts (the highest
        // dominance), moved only through their joints.
        let is_static = statics.is_some();
        let driven = statics.is_some_and(|d| d.contains(&scoped));
        let builder = if driven {
            RigidBodyBuilder::dynamic().dominance_group(i8::MAX)
        } else if is_static {
            RigidBodyBuilder::fixed()
        } else if link.kinematic {
            RigidBodyBuilder::kinematic_position_based()
        } else {
            RigidBodyBuilder::dynamic()
        };
        let mprops = mass_properties(&link.inertial);
        let body = builder
            .pose(pose_to_rapier(pose))
            .additional_mass_properties(mprops)
            .gravity_scale(if link.gravity && !driven { 1.0 } else { 0.0 })
            .allow_fast_rotation(true)
            .linear_damping(link.velocity_decay.linear as f32)
            .angular_damping(link.velocity_decay.angular as f32)
            .user_data(id_guess.0 as u128)
            .build();
        let handle = self.pw.bodies.insert(body);
        let motion = LinkMotion::new(
            handle,
            mprops.local_com == Vector::ZERO,
            is_static && !driven,
        );
        let slot = self.links.add(motion);
        let id = self.entities.add(Entity {
            kind: EntityKind::LINK,
            parent: model,
            name: link.name.clone(),
            scoped_name: scoped.clone(),
            model,
            data: EntityData::Link { body: handle, slot },
        });
        debug_assert_eq!(id, id_guess);
        self.links.initial.insert(id, pose);
        for c in &link.collisions {
            let data = EntityData::Collision {
                collider: ColliderHandle::invalid(),
                link: id,
                pose: c.pose,
                laser_retro: c.laser_retro,
                shape: super::summary::ShapeSummary::of(&c.geometry),
            };
            let groups = InteractionGroups::new(
                GROUP_COLLISION,
                GROUP_COLLISION | GROUP_QUERY,
                InteractionTestMode::And,
            );
            let shape = ShapeSpec {
                name: &c.name,
                pose: c.pose,
                geometry: &c.geometry,
                span: &c.span,
                contact: Some((&c.surface, self_collide)),
            };
            self.add_shape(
                shape,
                EntityKind::COLLISION,
                groups,
                handle,
                (id, &scoped, model),
                data,
            )?;
        }
        for v in &link.visuals {
            let data = EntityData::Visual {
                link: id,
                pose: v.pose,
                diffuse: v.diffuse,
                laser_retro: v.laser_retro,
                label: v.label.or(model_label),
                visibility_flags: v.visibility_flags,
                thermal: v.thermal.clone(),
                geometry: std::sync::Arc::new(v.geometry.clone()),
            };
            let groups =
                InteractionGroups::new(GROUP_VISUAL, GROUP_QUERY, InteractionTestMode::And);
            let shape = ShapeSpec {
                name: &v.name,
                pose: v.pose,
                geometry: &v.geometry,
                span: &v.span,
                contact: None,
            };
            self.add_shape(
                shape,
                EntityKind::VISUAL,
                groups,
                handle,
                (id, &scoped, model),
                data,
            )?;
        }
        for s in &link.sensors {
            self.entities.add(Entity {
                kind: EntityKind::SENSOR,
                parent: id,
                name: s.name.clone(),
                scoped_name: format!("{scoped}::{}", s.name),
                model,
                data: EntityData::Sensor {
                    link: id,
                    pose: s.pose,
                },
            });
        }
        Ok(id)
    }

    /// Adds the entities of a joint's sensors (scoped `model::joint::sensor`): attached to the
    /// joint's child link, at the joint pose composed with the sensor's pose, with the joint
    /// entity (`joint_id`) as their parent.
    fn add_joint_sensors(
        &mut self,
        joint: &Joint,
        joint_id: EntityId,
        model: EntityId,
        model_scoped: &str,
    ) {
        let Some(child) = self.entity_id(&scoped_in(model_scoped, &joint.child_link)) else {
            return;
        };
        for s in &joint.sensors {
            self.entities.add(Entity {
                kind: EntityKind::SENSOR,
                parent: joint_id,
                name: s.name.clone(),
                scoped_name: format!("{}::{}", scoped_in(model_scoped, &joint.name), s.name),
                model,
                data: EntityData::Sensor {
                    link: child,
                    pose: joint.pose.compose(s.pose),
                },
            });
        }
    }

    /// Counts the collision collider `h` of `link` in how far the link's collisions reach
    /// from its origin (the planes' reach, see `plane`).
    fn reach_with(&mut self, link: EntityId, h: ColliderHandle) {
        let Some(c) = self.pw.colliders.get(h) else {
            return;
        };
        let local = c.position_wrt_parent().copied().unwrap_or_default();
        let ball = c.shape().compute_bounding_sphere(&local);
        let reach = ball.center().length() + ball.radius();
        if let Some(EntityData::Link { slot, .. }) = self.entities.get(link).map(|e| &e.data) {
            let m = &mut self.links.records[*slot];
            m.reach = m.reach.max(reach);
        }
    }

    /// Adds one collision or visual: its collider on the link's body (no mass: the link's
    /// `<inertial>` is its mass) and its entity.
    fn add_shape(
        &mut self,
        shape: ShapeSpec<'_>,
        kind: EntityKind,
        groups: InteractionGroups,
        body: RigidBodyHandle,
        (link, link_scoped, model): (EntityId, &str, EntityId),
        data: EntityData,
    ) -> Result<(), BuildError> {
        let solid = kind == EntityKind::COLLISION
            && self.pw.bodies.get(body).is_some_and(|b| b.is_dynamic());
        let Some((built, offset)) = self.shapes.shape(shape.geometry, shape.span, solid)? else {
            return Ok(());
        };
        let id = self.entities.next_id();
        let default_surface = Surface::default();
        let (surface, self_collide) = shape.contact.unwrap_or((&default_surface, true));
        // DART combines two surfaces' friction by the smaller and restitution by the product.
        let collider = ColliderBuilder::new(built)
            .position(pose_to_rapier(shape.pose.compose(offset)))
            .density(0.0)
            .friction(surface.mu as f32)
            .friction_combine_rule(CoefficientCombineRule::Min)
            .restitution(surface.restitution as f32)
            .restitution_combine_rule(CoefficientCombineRule::Multiply)
            .active_hooks(ContactHooks::needed(surface, self_collide))
            .collision_groups(groups)
            .user_data(pack_user_data(id, model))
            // A visual is no part of the physics: out of rapier's broad phase and narrow
            // phase (disabled), it still follows its body (rapier moves a disabled collider
            // with it) for the ray trees, which hold it (`ray_index`).
            .enabled(kind != EntityKind::VISUAL)
            .build();
        let handle = self
            .pw
            .colliders
            .insert_with_parent(collider, body, &mut self.pw.bodies);
        if shape.contact.is_some() {
            self.hooks
                .register(handle, surface, self_collide, offset.orientation);
        }
        if kind == EntityKind::COLLISION && !self.planes.add(&mut self.pw.colliders, handle) {
            self.reach_with(link, handle);
        }
        self.order_first(handle);
        let mut data = data;
        if let EntityData::Collision { collider, .. } = &mut data {
            *collider = handle;
        }
        self.entities.add(Entity {
            kind,
            parent: link,
            name: shape.name.to_string(),
            scoped_name: format!("{link_scoped}::{}", shape.name),
            model,
            data,
        });
        Ok(())
    }
}

/// rapier's default contacts (30 Hz, 60 Hz against fixed bodies) are soft for a robot
/// simulator: a tower of ten unit boxes sinks 19 mm and leans 8 mm in 10 s. The contact
/// spring's natural frequency is raised to a quarter of the step rate, at most 300 Hz (twice
/// that against fixed bodies), never below rapier's default; the damping ratio stays rapier's.
/// rapier's constraint regularization is implicit, so a stiffer spring is no less stable.
pub(super) const CONTACT_HZ_PER_STEP_RATE: f32 = 0.25;

/// The highest contact natural frequency, Hz (see [`CONTACT_HZ_PER_STEP_RATE`]).
pub(super) const MAX_CONTACT_HZ: f32 = 300.0;

/// Stiffens the contacts of `ip`, whose `dt` is set (see [`CONTACT_HZ_PER_STEP_RATE`]).
fn stiff_contacts(ip: &mut IntegrationParameters) {
    let default = SpringCoefficients::<f32>::contact_defaults().natural_frequency;
    let hz = (CONTACT_HZ_PER_STEP_RATE / ip.dt).clamp(default, MAX_CONTACT_HZ.max(default));
    ip.contact_softness.natural_frequency = hz;
    ip.static_contact_softness.natural_frequency = 2.0 * hz;
}

/// A link's mass, centre of mass and inertia (`<inertial>`, its inertia in its own frame)
/// in the link frame, as rapier takes them.
fn mass_properties(inertial: &Inertial) -> MassProperties {
    let r = inertial.pose.orientation.to_matrix();
    let [ixx, ixy, ixz, iyy, iyz, izz] = inertial.inertia;
    let i = [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]];
    // Inertia in the link frame: R I R^T.
    let mut il = [[0.0f64; 3]; 3];
    for (a, row) in il.iter_mut().enumerate() {
        for (b, v) in row.iter_mut().enumerate() {
            *v = (0..3)
                .flat_map(|k| (0..3).map(move |l| (k, l)))
                .map(|(k, l)| r[a][k] * i[k][l] * r[b][l])
                .sum();
        }
    }
    let mat = rapier3d::math::Matrix::from_cols_array(&[
        il[0][0] as f32,
        il[1][0] as f32,
        il[2][0] as f32,
        il[0][1] as f32,
        il[1][1] as f32,
        il[2][1] as f32,
        il[0][2] as f32,
        il[1][2] as f32,
        il[2][2] as f32,
    ]);
    MassProperties::with_inertia_matrix(
        vec_to_rapier(inertial.pose.position),
        inertial.mass as f32,
        mat,
    )
}

/// `name` in the scope `scope` (`scope::name`, or `name` in the world's scope).
pub(super) fn scoped_in(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}::{name}")
    }
}

/// Whether `joint`'s parent and child resolve to the same link: libsdformat loads such a
/// joint, which joins nothing; the loader warns about it and the world runs without it.
fn joins_itself(joint: &sim_world::Joint) -> bool {
    joint.parent_link == joint.child_link
}

/// The links of static `model` (scoped `scoped`) that its joints, and those of its nested
/// models, move: the children of its non-fixed joints and every link hanging from those.
/// The canonical link and the links no joint has as child stay fixed, as do the links held
/// to them by fixed joints only (a loop of joints with no such root moves nothing).
fn driven_links(model: &Model, scoped: &str) -> std::collections::HashSet<String> {
    fn edges(
        m: &Model,
        scope: &str,
        out: &mut Vec<(String, String, bool)>,
        links: &mut Vec<String>,
    ) {
        links.extend(m.links.iter().map(|l| format!("{scope}::{}", l.name)));
        for j in m.joints.iter().filter(|j| !joins_itself(j)) {
            let parent = if j.parent_link == "world" {
                "world".to_string()
            } else {
                format!("{scope}::{}", j.parent_link)
            };
            let movable = j.kind != sim_world::JointKind::Fixed;
            out.push((parent, format!("{scope}::{}", j.child_link), movable));
        }
        for n in &m.models {
            edges(n, &format!("{scope}::{}", n.name), out, links);
        }
    }
    let (mut joints, mut links) = (Vec::new(), Vec::new());
    edges(model, scoped, &mut joints, &mut links);
    let canonical = match model.canonical_link.as_str() {
        "" => model.links.first().map(|l| l.name.as_str()).unwrap_or(""),
        c => c,
    };
    let canonical = format!("{scoped}::{canonical}");
    // false: fixed, true: driven.
    let mut state: std::collections::HashMap<&str, bool> = links
        .iter()
        .filter(|l| !joints.iter().any(|(_, c, _)| c == *l) || **l == canonical)
        .map(|l| (l.as_str(), false))
        .collect();
    state.insert("world", false);
    loop {
        let mut changed = false;
        for (p, c, movable) in &joints {
            if state.contains_key(c.as_str()) {
                continue;
            }
            if let Some(&parent_driven) = state.get(p.as_str()) {
                state.insert(c.as_str(), parent_driven || *movable);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    state
        .into_iter()
        .filter(|(_, driven)| *driven)
        .map(|(l, _)| l.to_string())
        .collect()
}
