//! The physics adapter: the only module that names rapier types.
//!
//! [`Physics::build`] turns a [`World`] into a rapier [`PhysicsWorld`]: one rigid body per
//! link (fixed for static models but for the links their joints drive, which move only
//! through their joints; position-based kinematic for `<kinematic>` links), one
//! collider per `<collision>` (mass comes from `<inertial>`, not from collider density), and
//! one visual-only collider per `<visual>` in its own interaction group, so that visuals never
//! touch anything but can be ray cast. [`Physics::step`] advances one fixed step and computes
//! each link's acceleration by finite difference of the velocity of its origin across the
//! step. [`Physics::view`] gives the read-only [`WorldView`] plugins see.

mod collada;
mod convert;
mod entities;
mod joints;
mod shapes;

use crate::world::{Geometry, Joint, Link, Model, World};
use convert::*;
pub(crate) use entities::{Entities, Entity, EntityData};
use rapier3d::parry::partitioning::TraversalAction;
use rapier3d::prelude::*;
use rayon::prelude::*;
pub(crate) use shapes::mesh_triangles;
use sim_plugin_api::{
    Aabb, EntityId, EntityInfo, EntityKind, Extension, JointState, KinematicState, LogLevel,
    MODEL_PLUGINS_EXTENSION, ModelInfo, ModelPlugins, NO_LABEL, PluginElement, Pose, Ray as ApiRay,
    RayCastOptions, RayHit, RayTarget, SCENE_EXTENSION, SceneInfo, SceneRef, SceneView,
    SceneView_TO, SimTime, SphericalCoordinates, SurfaceInfo, Vec3, WorldView,
    abi_stable::{
        RRef,
        sabi_trait::TD_Opaque,
        std_types::{ROption, RSlice, RSliceMut, RStr, RVec},
    },
};

/// Collision colliders are members of this group (and collide with each other).
const GROUP_COLLISION: Group = Group::GROUP_1;
/// Visual colliders are members of this group (and collide with nothing).
const GROUP_VISUAL: Group = Group::GROUP_2;
/// A bit no collider is a member of: only queries carry it, so visuals can be found by
/// ray casts without ever forming contact pairs.
const GROUP_QUERY: Group = Group::GROUP_32;

/// Below this many rays a batch is cast on the calling thread; above, it is split over the
/// simulation's worker pool when the caller runs on it.
const PARALLEL_RAY_THRESHOLD: usize = 512;

/// Default diffuse colour of surfaces without a material.
pub const DEFAULT_DIFFUSE: [f32; 4] = [0.7, 0.7, 0.7, 1.0];

/// A world that could not be built in rapier.
#[derive(Debug, thiserror::Error)]
#[error("{span}: {message}")]
pub struct BuildError {
    /// Where the offending element is.
    pub span: crate::world::Span,
    /// What is wrong.
    pub message: String,
}

/// Motion bookkeeping of one link, for finite-difference accelerations.
#[derive(Clone, Debug)]
struct LinkMotion {
    body: RigidBodyHandle,
    /// The pose of the link after the last step (valid while `Physics::motion_fresh`).
    pose: Pose,
    velocity: Vec3,
    angular_velocity: Vec3,
    acceleration: Vec3,
    angular_acceleration: Vec3,
}

/// The geometry of a collision or visual, as declared.
struct ShapeSpec<'a> {
    name: &'a str,
    pose: Pose,
    geometry: &'a Geometry,
    span: &'a crate::world::Span,
}

/// A command for the physics world, queued by plugins and applied before a step.
#[derive(Clone, Debug, PartialEq)]
pub enum PhysicsCommand {
    /// Teleport a model or link.
    SetPose(EntityId, Pose),
    /// Set the velocity of a model or link (of its origin, world frame).
    SetVelocity(EntityId, Vec3, Vec3),
    /// Apply a force at the link origin and a torque for the next step.
    ApplyWrench(EntityId, Vec3, Vec3),
}

/// The simulated world in rapier, with the entity table.
pub struct Physics {
    pw: PhysicsWorld,
    pub(crate) entities: Entities,
    motion: Vec<LinkMotion>,
    /// Whether each link's pose and velocities in `motion` are those of its body: true from
    /// the end of a step until anything moves, adds or removes a body. Sensors then read one
    /// compact record per link instead of the body's scattered fields.
    motion_fresh: bool,
    time: SimTime,
    step: SimTime,
    iteration: u64,
    gravity: Vec3,
    magnetic_field: Vec3,
    spherical: Option<SphericalCoordinates>,
    world_name: String,
    /// The `<scene>`, for the scene extension.
    scene: SceneInfo,
    /// World-level lights, world frame, for the scene extension.
    lights: Vec<sim_plugin_api::Light>,
    wrenched: Vec<RigidBodyHandle>,
    /// A fixed body at the world origin, for joints whose parent is `world`.
    world_anchor: Option<RigidBodyHandle>,
    /// Per joint axis (joint, axis number): the last raw angle and the whole turns counted,
    /// so that rotations report an unwrapped position.
    joint_turns: Vec<(EntityId, usize, f64, f64)>,
    /// The screw and gearbox couplings, solved after each step.
    couplings: Vec<joints::Coupling>,
    /// The universal and revolute2 joints, whose frames follow their angles (see `joints`).
    two_axes: Vec<joints::TwoAxes>,
    /// Mesh and height-map files read, and the shapes built from them.
    shapes: shapes::ShapeCache,
    /// The initial world pose of each link (in f64, for building joints between links of
    /// different models).
    link_initial: std::collections::HashMap<EntityId, Pose>,
    /// The `<plugin>` elements of each model, for the model plugins extension.
    model_plugins: ModelPlugins,
}

impl std::fmt::Debug for Physics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Physics")
            .field("world", &self.world_name)
            .field("time", &self.time)
            .field("bodies", &self.pw.bodies.len())
            .field("colliders", &self.pw.colliders.len())
            .finish()
    }
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
            ..Default::default()
        };
        let ip = &mut pw.integration_parameters;
        ip.dt = step_s as f32;
        // SDF worlds are in metres; Gazebo caps neither speed nor rotation per step, so
        // lift rapier's safety caps (400 m/s by default; rotation is uncapped per body below).
        ip.length_unit = 1.0;
        ip.normalized_max_linear_velocity = 1.0e6;

        let mut physics = Physics {
            pw,
            entities: Entities::default(),
            motion: Vec::new(),
            motion_fresh: false,
            time: SimTime::ZERO,
            step: SimTime::from_nanos((step_s * 1e9).round() as i64),
            iteration: 0,
            gravity: world.gravity,
            magnetic_field: world.magnetic_field,
            spherical: world
                .spherical_coordinates
                .as_ref()
                .map(|s| SphericalCoordinates {
                    latitude_deg: s.latitude_deg,
                    longitude_deg: s.longitude_deg,
                    elevation: s.elevation,
                    heading_deg: s.heading_deg,
                    equatorial_axis: s.equatorial_axis,
                    polar_axis: s.polar_axis,
                }),
            world_name: world.name.clone(),
            scene: SceneInfo {
                ambient: world.scene.ambient,
                background: world.scene.background,
                shadows: world.scene.shadows,
            },
            lights: world.lights.iter().map(api_light).collect(),
            wrenched: Vec::new(),
            world_anchor: None,
            joint_turns: Vec::new(),
            couplings: Vec::new(),
            two_axes: Vec::new(),
            shapes: shapes::ShapeCache::default(),
            link_initial: std::collections::HashMap::new(),
            model_plugins: ModelPlugins::new(),
        };
        let world_id = physics.entities.add(Entity {
            kind: EntityKind::WORLD,
            parent: EntityId::NONE,
            name: world.name.clone(),
            scoped_name: world.name.clone(),
            model: EntityId::NONE,
            data: EntityData::World,
            removed: false,
        });
        debug_assert_eq!(world_id, EntityId::WORLD);
        for model in &world.models {
            physics.add_model(model, EntityId::WORLD, "", Pose::IDENTITY, None)?;
        }
        for joint in &world.joints {
            physics.add_joint(joint, EntityId::WORLD, "")?;
        }
        physics.refresh_queries();
        Ok(physics)
    }

    /// Adds a model: its links and nested models, then the joints of all of them (a joint may
    /// join links of different nested models).
    fn add_model(
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
        for joint in &model.joints {
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
            removed: false,
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
        for link in &model.links {
            links.push(self.add_link(link, id, &scoped, pose, statics, label)?);
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
                    let x_wl = *self.link_initial.get(&l)?;
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
        model: EntityId,
        model_scoped: &str,
        model_pose: Pose,
        statics: Option<&std::collections::HashSet<String>>,
        model_label: Option<u32>,
    ) -> Result<EntityId, BuildError> {
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
        let inertial = &link.inertial;
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
        let mprops = MassProperties::with_inertia_matrix(
            vec_to_rapier(inertial.pose.position),
            inertial.mass as f32,
            mat,
        );
        let body = builder
            .pose(pose_to_rapier(pose))
            .additional_mass_properties(mprops)
            .gravity_scale(if link.gravity && !driven { 1.0 } else { 0.0 })
            .allow_fast_rotation(true)
            .user_data(id_guess.0 as u128)
            .build();
        let handle = self.pw.bodies.insert(body);
        let slot = self.motion.len();
        self.motion.push(LinkMotion {
            body: handle,
            pose: Pose::IDENTITY,
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            acceleration: Vec3::ZERO,
            angular_acceleration: Vec3::ZERO,
        });
        let id = self.entities.add(Entity {
            kind: EntityKind::LINK,
            parent: model,
            name: link.name.clone(),
            scoped_name: scoped.clone(),
            model,
            data: EntityData::Link { body: handle, slot },
            removed: false,
        });
        debug_assert_eq!(id, id_guess);
        self.link_initial.insert(id, pose);
        for c in &link.collisions {
            let data = EntityData::Collision {
                collider: ColliderHandle::invalid(),
                link: id,
                pose: c.pose,
                laser_retro: c.laser_retro,
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
            };
            let groups =
                InteractionGroups::new(GROUP_VISUAL, GROUP_QUERY, InteractionTestMode::And);
            let shape = ShapeSpec {
                name: &v.name,
                pose: v.pose,
                geometry: &v.geometry,
                span: &v.span,
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
                removed: false,
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
                removed: false,
            });
        }
    }

    /// The contact points of the last step involving a collision entity (see
    /// [`WorldView::contacts`]).
    pub fn contacts_of(&self, id: EntityId, out: &mut RVec<sim_plugin_api::ContactPoint>) {
        let Some(EntityData::Collision { collider, .. }) = self.entities.get(id).map(|e| &e.data)
        else {
            return;
        };
        let dt = self.step.as_secs_f64();
        for pair in self.pw.narrow_phase.contact_pairs_with(*collider) {
            let PairContacts::Rigid(rc) = &pair.contacts else {
                continue;
            };
            let (me_first, other) = if pair.collider1 == *collider {
                (true, pair.collider2)
            } else {
                (false, pair.collider1)
            };
            let Some(other_c) = self.pw.colliders.get(other) else {
                continue;
            };
            // Only collision geometry makes contacts; its entity id is in the user data.
            let other_id = EntityId(other_c.user_data as u64);
            let Some(c1) = self.pw.colliders.get(pair.collider1) else {
                continue;
            };
            let c1_pose = pose_from_rapier(c1.position());
            for m in rc.solver_manifolds() {
                let n = vec_from_rapier(m.data.normal);
                let normal = if me_first { n } else { -n };
                for pt in &m.points {
                    let impulse = pt.data.impulse as f64;
                    if pt.dist > self.pw.integration_parameters.prediction_distance() {
                        continue;
                    }
                    out.push(sim_plugin_api::ContactPoint {
                        collision1: id,
                        collision2: other_id,
                        position: c1_pose.transform_point(vec_from_rapier(pt.local_p1)),
                        normal,
                        depth: (-pt.dist as f64).max(0.0),
                        // The impulse pushes the bodies apart along the normal: on the first
                        // collider it acts against the normal.
                        force: normal.scale(-impulse / dt),
                    });
                }
            }
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
        let collider = ColliderBuilder::new(built)
            .position(pose_to_rapier(shape.pose.compose(offset)))
            .density(0.0)
            .friction(1.0)
            .collision_groups(groups)
            .user_data(pack_user_data(id, model))
            .build();
        let handle = self
            .pw
            .colliders
            .insert_with_parent(collider, body, &mut self.pw.bodies);
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
            removed: false,
        });
        Ok(())
    }

    /// Moves the colliders of `bodies` to their bodies' current poses in the broad phase, so
    /// that ray casts see bodies created or teleported at run time before the next step. Only
    /// the query structures are touched: the next step does its own bookkeeping of these
    /// bodies (running rapier's collision pipeline here would register contacts for bodies
    /// the island manager does not know yet).
    fn sync_for_queries(&mut self, bodies: &[RigidBodyHandle]) {
        for &bh in bodies {
            let Some(b) = self.pw.bodies.get(bh) else {
                continue;
            };
            let pose = *b.position();
            let colliders: Vec<ColliderHandle> = b.colliders().to_vec();
            for ch in colliders {
                let Some(c) = self.pw.colliders.get_mut(ch) else {
                    continue;
                };
                let local = c.position_wrt_parent().copied().unwrap_or_default();
                c.set_position(pose * local);
                let aabb = c.compute_aabb();
                self.pw
                    .broad_phase
                    .set_aabb(&self.pw.integration_parameters, ch, aabb);
            }
        }
    }

    /// Brings the broad phase up to date without integrating, so that ray casts see the
    /// bodies of a world just built, before its first step.
    ///
    /// rapier's collision pipeline consumes the "modified" marks of bodies without telling the
    /// island manager (it passes no islands), so a body inserted or moved and then refreshed
    /// this way would never be simulated. Marking every body modified again hands them to the
    /// next physics step's own bookkeeping.
    fn refresh_queries(&mut self) {
        self.pw.detect_collisions(&(), &());
        let handles: Vec<RigidBodyHandle> = self.pw.bodies.iter().map(|(h, _)| h).collect();
        for h in handles {
            // `get_mut` re-queues the body in the modified set.
            let _ = self.pw.bodies.get_mut(h);
        }
    }

    /// Current sim time.
    pub fn time(&self) -> SimTime {
        self.time
    }

    /// The fixed step.
    pub fn step_size(&self) -> SimTime {
        self.step
    }

    /// Steps completed.
    pub fn iteration(&self) -> u64 {
        self.iteration
    }

    /// Number of rigid bodies and colliders (for summaries).
    pub fn counts(&self) -> (usize, usize) {
        (self.pw.bodies.len(), self.pw.colliders.len())
    }

    /// Looks up an entity id by scoped name.
    pub fn entity_id(&self, scoped_name: &str) -> Option<EntityId> {
        self.entities.by_name(scoped_name)
    }

    /// Scoped name of an entity.
    pub fn scoped_name(&self, id: EntityId) -> Option<&str> {
        self.entities.get(id).map(|e| e.scoped_name.as_str())
    }

    /// Advances one fixed step and updates the finite-difference accelerations.
    pub fn step(&mut self) {
        self.update_two_axes();
        self.pw.step();
        let dt = self.step.as_secs_f64();
        for m in &mut self.motion {
            let Some(body) = self.pw.bodies.get(m.body) else {
                continue; // removed
            };
            let (v, w) = origin_velocity(body);
            m.acceleration = (v - m.velocity).scale(1.0 / dt);
            m.angular_acceleration = (w - m.angular_velocity).scale(1.0 / dt);
            m.velocity = v;
            m.angular_velocity = w;
            m.pose = pose_from_rapier(body.position());
        }
        self.update_joint_turns();
        self.solve_couplings();
        // Screw and gearbox couplings change velocities after the record above.
        self.motion_fresh = self.couplings.is_empty();
        for h in self.wrenched.drain(..) {
            if let Some(b) = self.pw.bodies.get_mut(h) {
                b.reset_forces(false);
                b.reset_torques(false);
            }
        }
        self.time = SimTime::from_nanos(self.time.nanos + self.step.nanos);
        self.iteration += 1;
    }

    /// Adds a top-level model at run time (its pose is in the world frame). Rays see it at
    /// once; it moves from the next step.
    pub fn spawn_model(&mut self, model: &Model) -> Result<EntityId, BuildError> {
        self.motion_fresh = false;
        match self.add_model(model, EntityId::WORLD, "", Pose::IDENTITY, None) {
            Ok(id) => {
                let bodies: Vec<RigidBodyHandle> = self
                    .rigid_targets(id)
                    .map(|t| t.iter().map(|(_, h)| *h).collect())
                    .unwrap_or_default();
                self.sync_for_queries(&bodies);
                Ok(id)
            }
            Err(e) => {
                // Take back what was built before the error.
                if let Some(id) = self.entity_id(&model.name) {
                    let _ = self.remove_model(id);
                }
                Err(e)
            }
        }
    }

    /// Removes a model with everything in it (links, collisions, visuals, sensors and nested
    /// models). Returns the removed entities; their ids are never reused.
    pub fn remove_model(&mut self, id: EntityId) -> Result<Vec<EntityId>, String> {
        self.motion_fresh = false;
        let e = self.entities.get(id).ok_or_else(|| unknown(id))?;
        if e.kind != EntityKind::MODEL {
            return Err(format!(
                "`{}` is a {}; only models can be removed",
                e.scoped_name,
                e.kind.name()
            ));
        }
        let doomed: Vec<EntityId> = self
            .entities
            .iter()
            .filter(|(eid, e)| {
                let owner = if e.kind == EntityKind::MODEL {
                    *eid
                } else {
                    e.model
                };
                self.entities.is_within(owner, id)
            })
            .map(|(eid, _)| eid)
            .collect();
        for d in &doomed {
            let Some(EntityData::Link { body, .. }) = self.entities.get(*d).map(|e| &e.data) else {
                continue;
            };
            let body = *body;
            self.pw.remove_body(body);
        }
        self.couplings.retain(|c| !doomed.contains(&c.joint));
        self.two_axes.retain(|t| !doomed.contains(&t.joint));
        for d in &doomed {
            self.entities.remove(*d);
            self.model_plugins.remove(*d);
        }
        // Queries skip colliders that are no longer in the collider set, so rays cast before
        // the next step already miss the removed bodies.
        Ok(doomed)
    }

    /// Applies a queued command. Returns a message for the user when it cannot be applied.
    pub fn apply(&mut self, command: &PhysicsCommand) -> Result<(), String> {
        self.motion_fresh = false;
        match *command {
            PhysicsCommand::SetPose(id, pose) => {
                let targets = self.rigid_targets(id)?;
                let current = self.frame_pose(id).ok_or_else(|| unknown(id))?;
                let delta = pose.compose(current.inverse());
                let handles: Vec<RigidBodyHandle> = targets.iter().map(|(_, h)| *h).collect();
                for (_, h) in targets {
                    if let Some(b) = self.pw.bodies.get_mut(h) {
                        let p = delta.compose(pose_from_rapier(b.position()));
                        b.set_position(pose_to_rapier(p), true);
                        if b.is_kinematic() {
                            b.set_next_kinematic_position(pose_to_rapier(p));
                        }
                    }
                }
                // Queries in this tick must see the teleported bodies.
                self.sync_for_queries(&handles);
                Ok(())
            }
            PhysicsCommand::SetVelocity(id, lin, ang) => {
                let origin = self.frame_pose(id).ok_or_else(|| unknown(id))?.position;
                for (_, h) in self.rigid_targets(id)? {
                    if let Some(b) = self.pw.bodies.get_mut(h) {
                        let com = vec_from_rapier(b.center_of_mass());
                        let v = lin + ang.cross(com - origin);
                        b.set_linvel(vec_to_rapier(v), true);
                        b.set_angvel(vec_to_rapier(ang), true);
                    }
                }
                Ok(())
            }
            PhysicsCommand::ApplyWrench(id, force, torque) => {
                let entity = self.entities.get(id).ok_or_else(|| unknown(id))?;
                let EntityData::Link { body, .. } = entity.data else {
                    return Err(format!(
                        "a wrench can only be applied to a link; `{}` is a {}",
                        entity.scoped_name,
                        entity.kind.name()
                    ));
                };
                if let Some(b) = self.pw.bodies.get_mut(body) {
                    let origin = b.translation();
                    b.add_force_at_point(vec_to_rapier(force), origin, true);
                    b.add_torque(vec_to_rapier(torque), true);
                    self.wrenched.push(body);
                }
                Ok(())
            }
        }
    }

    /// Bodies that move with an entity: a link's body, or every body of a model and the
    /// models nested in it.
    fn rigid_targets(&self, id: EntityId) -> Result<Vec<(EntityId, RigidBodyHandle)>, String> {
        let e = self.entities.get(id).ok_or_else(|| unknown(id))?;
        match &e.data {
            EntityData::Link { body, .. } => Ok(vec![(id, *body)]),
            EntityData::Model { .. } => Ok(self
                .entities
                .iter()
                .filter_map(|(lid, l)| match l.data {
                    EntityData::Link { body, .. } if self.entities.is_within(l.model, id) => {
                        Some((lid, body))
                    }
                    _ => None,
                })
                .collect()),
            _ => Err(format!(
                "`{}` is a {}; only models and links can be moved",
                e.scoped_name,
                e.kind.name()
            )),
        }
    }

    fn frame_pose(&self, id: EntityId) -> Option<Pose> {
        self.kinematics_of(id).map(|k| k.pose)
    }

    fn link_state(&self, link: EntityId) -> Option<KinematicState> {
        let EntityData::Link { body, slot } = self.entities.get(link)?.data else {
            return None;
        };
        let mut state = KinematicState::default();
        self.body_state_into(body, slot, &mut state)
            .then_some(state)
    }

    /// The motion of a link's body into `out`; false if the body is gone.
    #[inline]
    fn body_state_into(
        &self,
        body: RigidBodyHandle,
        slot: usize,
        out: &mut KinematicState,
    ) -> bool {
        let m = &self.motion[slot];
        if self.motion_fresh {
            out.pose = m.pose;
            out.linear_velocity = m.velocity;
            out.angular_velocity = m.angular_velocity;
            out.linear_acceleration = m.acceleration;
            out.angular_acceleration = m.angular_acceleration;
            return true;
        }
        let Some(b) = self.pw.bodies.get(body) else {
            return false;
        };
        let (v, w) = origin_velocity(b);
        out.pose = pose_from_rapier(b.position());
        out.linear_velocity = v;
        out.angular_velocity = w;
        out.linear_acceleration = m.acceleration;
        out.angular_acceleration = m.angular_acceleration;
        true
    }

    /// [`Physics::kinematics_of`] written into `out` (left as it was when `id` is unknown):
    /// the path of the per-update sensor reads, which ask for links.
    #[inline]
    pub fn kinematics_into(&self, id: EntityId, out: &mut KinematicState) -> bool {
        match self.entities.get(id).map(|e| &e.data) {
            Some(EntityData::Link { body, slot }) => self.body_state_into(*body, *slot, out),
            Some(_) => match self.kinematics_of(id) {
                Some(k) => {
                    *out = k;
                    true
                }
                None => false,
            },
            None => false,
        }
    }

    /// The motion of any entity's frame (see [`WorldView::kinematics`]).
    pub fn kinematics_of(&self, id: EntityId) -> Option<KinematicState> {
        let e = self.entities.get(id)?;
        match &e.data {
            EntityData::World => Some(KinematicState::default()),
            EntityData::Link { .. } => self.link_state(id),
            EntityData::Model {
                canonical,
                initial_pose,
                ..
            } => match canonical {
                Some((link, offset)) => Some(offset_state(self.link_state(*link)?, *offset)),
                None => Some(KinematicState {
                    pose: *initial_pose,
                    ..Default::default()
                }),
            },
            EntityData::Collision { link, pose, .. }
            | EntityData::Visual { link, pose, .. }
            | EntityData::Sensor { link, pose } => {
                Some(offset_state(self.link_state(*link)?, *pose))
            }
            EntityData::Joint {
                child_link, frame2, ..
            } => Some(offset_state(self.link_state(*child_link)?, *frame2)),
        }
    }

    /// The read-only view plugins see, attributing log records to `caller`.
    pub fn view<'a>(&'a self, caller: &'a str) -> PhysicsView<'a> {
        PhysicsView {
            physics: self,
            caller: Caller::Str(caller),
            pool: None,
            scene: std::mem::ManuallyDrop::new(SceneView_TO::from_ptr(RRef::new(self), TD_Opaque)),
        }
    }

    /// [`Physics::view`] for a caller named by a shared string (read only when it logs).
    pub fn view_shared<'a>(&'a self, caller: &'a sim_plugin_api::SharedStr) -> PhysicsView<'a> {
        PhysicsView {
            physics: self,
            caller: Caller::Shared(caller),
            pool: None,
            scene: std::mem::ManuallyDrop::new(SceneView_TO::from_ptr(RRef::new(self), TD_Opaque)),
        }
    }

    /// [`Physics::view_shared`] for a plugin called on the simulation thread while `pool`
    /// is idle: a large ray batch is cast by this thread and the pool's workers together.
    pub fn view_on<'a>(
        &'a self,
        caller: &'a sim_plugin_api::SharedStr,
        pool: Option<&'a rayon::ThreadPool>,
    ) -> PhysicsView<'a> {
        PhysicsView {
            pool,
            ..self.view_shared(caller)
        }
    }

    /// What [`WorldView::models`] reports for one model.
    fn model_info(&self, id: EntityId) -> Option<ModelInfo> {
        let e = self.entities.get(id)?;
        let EntityData::Model {
            links, is_static, ..
        } = &e.data
        else {
            return None;
        };
        let aabb = self.model_aabb(links);
        Some(ModelInfo {
            id,
            parent: e.parent,
            is_static: *is_static,
            has_collision: aabb.is_some(),
            aabb: aabb.unwrap_or_default(),
        })
    }

    fn model_aabb(&self, links: &[EntityId]) -> Option<Aabb> {
        let mut acc: Option<Aabb> = None;
        for l in links {
            let Some(EntityData::Link { body, .. }) = self.entities.get(*l).map(|e| &e.data) else {
                continue;
            };
            let Some(b) = self.pw.bodies.get(*body) else {
                continue;
            };
            for ch in b.colliders() {
                let Some(c) = self.pw.colliders.get(*ch) else {
                    continue;
                };
                if c.collision_groups().memberships != GROUP_COLLISION {
                    continue;
                }
                let bb = collider_aabb(c);
                acc = Some(match acc {
                    Some(a) => Aabb {
                        min: Vec3::new(
                            a.min.x.min(bb.min.x),
                            a.min.y.min(bb.min.y),
                            a.min.z.min(bb.min.z),
                        ),
                        max: Vec3::new(
                            a.max.x.max(bb.max.x),
                            a.max.y.max(bb.max.y),
                            a.max.z.max(bb.max.z),
                        ),
                    },
                    None => bb,
                });
            }
        }
        acc
    }

    fn cast(
        &self,
        rays: &[ApiRay],
        options: &RayCastOptions,
        hits: &mut [RayHit],
        pool: Option<&rayon::ThreadPool>,
    ) -> u32 {
        let target = if options.target == RayTarget::VISUAL {
            GROUP_VISUAL
        } else {
            GROUP_COLLISION
        };
        let groups = InteractionGroups::new(GROUP_QUERY, target, InteractionTestMode::And);
        let mut exclude = options.exclude_model;
        let entities = &self.entities;
        // A model without geometry of the target kind (a camera on a bare link) excludes
        // nothing: skip the per-candidate test. One pass over the colliders per batch is far
        // cheaper than testing every candidate of every ray.
        if !exclude.is_none()
            && !self.pw.colliders.iter().any(|(_, c)| {
                c.collision_groups().memberships == target
                    && entities.is_within(unpack_model(c.user_data), exclude)
            })
        {
            exclude = EntityId::NONE;
        }
        let not_excluded = move |_h: ColliderHandle, c: &Collider| {
            !entities.is_within(unpack_model(c.user_data), exclude)
        };
        let max = options.max_distance.min(f32::MAX as f64) as f32;
        let cast_chunk = |rays: &[ApiRay], hits: &mut [RayHit]| -> u32 {
            let mut filter = QueryFilter::default().groups(groups);
            if !exclude.is_none() {
                filter = filter.predicate(&not_excluded);
            }
            let qp = self.pw.broad_phase.as_query_pipeline(
                self.pw.narrow_phase.query_dispatcher(),
                &self.pw.bodies,
                &self.pw.colliders,
                filter,
            );
            let mut n = 0;
            let mut packet = Packet::default();
            for (rays, hits) in rays.chunks(PACKET).zip(hits.chunks_mut(PACKET)) {
                packet.rays.clear();
                packet.rays.extend(rays.iter().map(|r| {
                    Ray::new(
                        vec_to_rapier(r.origin),
                        vec_to_rapier(r.direction.normalized()),
                    )
                }));
                packet.cast(&qp, max);
                for ((ray, found), h) in packet.rays.iter().zip(&packet.found).zip(hits) {
                    // The nearest hit first (the search without normals is much cheaper),
                    // then the normal from that one shape.
                    *h = match *found {
                        Some((ch, toi)) => {
                            n += 1;
                            let c = self.pw.colliders.get(ch);
                            let ud = c.map(|c| c.user_data).unwrap_or(0);
                            let normal = c
                                .and_then(|c| {
                                    c.shape().cast_ray_and_get_normal(
                                        c.position(),
                                        ray,
                                        toi * 1.0001 + 1e-5,
                                        true,
                                    )
                                })
                                .map_or(Vec3::ZERO, |i| vec_from_rapier(i.normal));
                            RayHit {
                                distance: toi as f64,
                                normal,
                                entity: EntityId(ud as u64),
                                model: unpack_model(ud),
                            }
                        }
                        None => RayHit::MISS,
                    };
                }
            }
            n
        };
        let len = rays.len().min(hits.len());
        let (rays, hits) = (&rays[..len], &mut hits[..len]);
        // Split the batch only when the simulation runs its sensors with a worker pool
        // (`--threads` > 1): on a worker, across the pool; on the simulation thread given
        // the idle pool, by this thread and the workers together, each taking the next chunk
        // until none is left (this thread starts at once, the workers as they wake).
        if len < PARALLEL_RAY_THRESHOLD {
            cast_chunk(rays, hits)
        } else if rayon::current_thread_index().is_some() {
            rays.par_chunks(RAY_CHUNK)
                .zip(hits.par_chunks_mut(RAY_CHUNK))
                .map(|(r, h)| cast_chunk(r, h))
                .sum()
        } else if let Some(pool) = pool.filter(|p| p.current_num_threads() > 1) {
            let chunks: Vec<ChunkSlot<'_>> = rays
                .chunks(RAY_CHUNK)
                .zip(hits.chunks_mut(RAY_CHUNK))
                .map(|c| std::sync::Mutex::new(Some(c)))
                .collect();
            let next = std::sync::atomic::AtomicUsize::new(0);
            let found = std::sync::atomic::AtomicU32::new(0);
            let work = || {
                let mut n = 0;
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(chunk) = chunks.get(i) else { break };
                    let taken = chunk.lock().unwrap_or_else(|e| e.into_inner()).take();
                    if let Some((r, h)) = taken {
                        n += cast_chunk(r, h);
                    }
                }
                found.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            };
            pool.in_place_scope(|scope| {
                for _ in 1..pool.current_num_threads() {
                    scope.spawn(|_| work());
                }
                work();
            });
            found.into_inner()
        } else {
            cast_chunk(rays, hits)
        }
    }
}

/// Rays per chunk of a batch split across threads.
const RAY_CHUNK: usize = 256;

/// A chunk of a batch (its rays and their hits), taken by the first thread to claim it.
type ChunkSlot<'r> = std::sync::Mutex<Option<(&'r [ApiRay], &'r mut [RayHit])>>;

/// Rays cast together as one [`Packet`] (consecutive rays of a batch).
const PACKET: usize = 64;

/// Packets of fewer rays than this are cast ray by ray through the query pipeline.
const MIN_PACKET: usize = 8;

/// Consecutive rays of a batch cast together.
///
/// Sensors cast batches of rays from one origin whose neighbours point almost the same way
/// (a lidar row, a camera image row). For such a packet the colliders any of its rays can hit
/// are gathered once, by one walk of the broad phase's tree that keeps the nodes whose
/// bounding sphere meets the cone around the packet's directions, and sorted by their
/// distance from the origin. Each ray then tests only those candidates, nearest first, and
/// stops at the first candidate farther than its best hit: the same leaf boxes, the same
/// shape ray casts and the same filter as a search of the whole tree per ray, so the same
/// nearest hit, with the tree walked and the filter (and its exclusion predicate) run once
/// per packet rather than once per ray. Other packets (origins that differ, directions
/// spread wider than 60 degrees, few rays) are cast ray by ray.
#[derive(Default)]
struct Packet<'c> {
    rays: Vec<Ray>,
    /// The nearest hit of each ray: collider and distance.
    found: Vec<Option<(ColliderHandle, Real)>>,
    /// Per ray while casting: the distance within which a nearer hit is still sought
    /// (negative once the ray is done), and the nearest hit so far.
    best: Vec<(Real, Option<(ColliderHandle, Real)>)>,
    candidates: Vec<Candidate<'c>>,
}

/// A collider some ray of a packet may hit.
struct Candidate<'c> {
    /// No ray of the packet can hit it nearer than this.
    nearest: Real,
    /// Its box in the broad phase.
    aabb: rapier3d::parry::bounding_volume::Aabb,
    handle: ColliderHandle,
    collider: &'c Collider,
}

/// The cone from a common origin that holds every direction of a packet.
struct Cone {
    origin: Vector,
    axis: Vector,
    cos: Real,
    sin: Real,
}

impl Cone {
    /// The cone of `rays` (unit directions), if they share their origin and their directions
    /// spread less than 60 degrees from their mean.
    fn of(rays: &[Ray]) -> Option<Cone> {
        let origin = rays.first()?.origin;
        if rays.iter().any(|r| r.origin != origin) {
            return None;
        }
        let sum = rays.iter().fold(Vector::ZERO, |a, r| a + r.dir);
        let len = sum.length();
        if len.is_nan() || len <= 0.0 {
            return None;
        }
        let axis = sum / len;
        let cos = rays.iter().fold(1.0, |c: Real, r| c.min(r.dir.dot(axis)));
        // Widened a little for rounding: a wider cone only keeps more candidates.
        let cos = cos - 1e-3;
        if cos.is_nan() || cos <= 0.5 {
            return None;
        }
        Some(Cone {
            origin,
            axis,
            cos,
            sin: (1.0 - cos * cos).sqrt(),
        })
    }

    /// Whether some ray in the cone may meet `aabb` (through its bounding sphere).
    fn may_hit(&self, aabb: &rapier3d::parry::bounding_volume::Aabb) -> bool {
        let (c, r) = (aabb.center(), aabb.half_extents().length());
        if !(c.is_finite() && r.is_finite()) {
            return true;
        }
        let v = c - self.origin;
        let d2 = v.length_squared();
        if d2 <= r * r {
            return true;
        }
        // The sphere is seen under the half-angle b (sin b = r / d); a ray at most `acos(cos)`
        // from the axis can reach it only if the sphere's centre is at most that plus b from
        // the axis.
        let d = d2.sqrt();
        let sin_b = r / d;
        let cos_b = (1.0 - sin_b * sin_b).max(0.0).sqrt();
        v.dot(self.axis) / d >= self.cos * cos_b - self.sin * sin_b - 1e-4
    }
}

/// Whether `ray` (with `inv` the reciprocals of its direction's components) may cross `aabb`
/// nearer than `best`: the slab test, with a little slack so that rounding never drops a
/// box the ray touches. Directions with a zero component (infinite reciprocals, where the
/// slab products can be undefined) take parry's own test.
#[inline]
fn may_cross(
    aabb: &rapier3d::parry::bounding_volume::Aabb,
    ray: &Ray,
    inv: Vector,
    best: Real,
) -> bool {
    if !inv.is_finite() {
        return aabb.cast_local_ray(ray, best, true).is_some();
    }
    let t1 = (aabb.mins - ray.origin) * inv;
    let t2 = (aabb.maxs - ray.origin) * inv;
    let near = t1.min(t2).max_element().max(0.0);
    let far = t1.max(t2).min_element();
    far + 1e-3 >= near && near <= best
}

/// The distance from `p` to the box (0 inside).
fn distance_to_aabb(p: Vector, aabb: &rapier3d::parry::bounding_volume::Aabb) -> Real {
    (aabb.mins - p)
        .max(p - aabb.maxs)
        .max(Vector::ZERO)
        .length()
}

impl<'c> Packet<'c> {
    /// Fills `found` with the nearest hit of each ray within `max`, solid shapes.
    fn cast(&mut self, qp: &QueryPipeline<'c>, max: Real) {
        self.found.clear();
        let cone = (self.rays.len() >= MIN_PACKET)
            .then(|| Cone::of(&self.rays))
            .flatten();
        let Some(cone) = cone else {
            self.found
                .extend(self.rays.iter().map(|r| qp.cast_ray(r, max, true)));
            return;
        };
        // The colliders are gathered in bands of distance from the origin, nearest band
        // first: a ray whose best hit is within the bands gathered so far is done, since
        // every other candidate is farther. In a dense scene most rays end in the first
        // bands, and the far part of the tree is never walked.
        let n = self.rays.len();
        self.best.clear();
        self.best.resize(n, (max, None));
        let mut open = n;
        let (mut lo, mut hi) = (0.0, FIRST_BAND.min(max));
        loop {
            self.candidates.clear();
            let candidates = &mut self.candidates;
            qp.bvh.traverse(|node| {
                let aabb = node.aabb();
                let nearest = distance_to_aabb(cone.origin, &aabb);
                if nearest >= hi || !cone.may_hit(&aabb) {
                    return TraversalAction::Prune;
                }
                if let Some(leaf) = node.leaf_data()
                    && nearest >= lo
                    && let Some((collider, handle)) = qp.colliders.get_unknown_gen(leaf)
                    && qp.filter.test(qp.bodies, handle, collider)
                {
                    candidates.push(Candidate {
                        // Rounding of the directions' length: never above a true hit
                        // distance.
                        nearest: (nearest * 0.9999 - 1e-4).max(0.0),
                        aabb,
                        handle,
                        collider,
                    });
                }
                TraversalAction::Continue
            });
            candidates.sort_unstable_by(|a, b| a.nearest.total_cmp(&b.nearest));
            for (ray, (best, hit)) in self.rays.iter().zip(self.best.iter_mut()) {
                if *best < 0.0 {
                    continue; // done in an earlier band
                }
                let inv = ray.dir.recip();
                for c in candidates.iter() {
                    if c.nearest >= *best {
                        break;
                    }
                    if !may_cross(&c.aabb, ray, inv, *best) {
                        continue;
                    }
                    if let Some(t) =
                        c.collider
                            .shape()
                            .cast_ray(c.collider.position(), ray, *best, true)
                        && t < *best
                    {
                        *best = t;
                        *hit = Some((c.handle, t));
                    }
                }
                // Every candidate of a later band is at least `hi` away (less the
                // rounding margin of `nearest`).
                if *best <= hi * 0.9999 - 1e-4 {
                    open -= 1;
                    *best = Real::NEG_INFINITY; // done (its hit is kept)
                }
            }
            if open == 0 || hi >= max {
                break;
            }
            (lo, hi) = (hi, (hi * BAND_GROWTH).min(max));
        }
        self.found.extend(self.best.iter().map(|(_, hit)| *hit));
    }
}

/// The first distance band of a packet's candidates, m (see [`Packet::cast`]).
const FIRST_BAND: Real = 5.0;

/// How much farther each band reaches than the previous one.
const BAND_GROWTH: Real = 3.0;

/// The world AABB of a collider. rapier bounds a half-space (an SDF plane) by a huge box in
/// every direction; an axis-aligned plane's half-space is bounded exactly instead (infinite
/// along the plane, ending at it), so that box queries find a ground plane only where they
/// reach it. A tilted plane stays unbounded.
fn collider_aabb(c: &Collider) -> Aabb {
    if let Some(h) = c.shape().as_halfspace() {
        let n = quat_from_rapier(c.position().rotation).rotate(vec_from_rapier(h.normal));
        let p = vec_from_rapier(c.position().translation);
        let inf = f64::INFINITY;
        let mut min = Vec3::new(-inf, -inf, -inf);
        let mut max = Vec3::new(inf, inf, inf);
        let axes = [n.x, n.y, n.z];
        let off = [p.x, p.y, p.z];
        if let Some(k) = (0..3).find(|&k| (axes[k].abs() - 1.0).abs() < 1e-9) {
            // The solid side is opposite the outward normal.
            let (lo, hi) = if axes[k] > 0.0 {
                (-inf, off[k])
            } else {
                (off[k], inf)
            };
            match k {
                0 => (min.x, max.x) = (lo, hi),
                1 => (min.y, max.y) = (lo, hi),
                _ => (min.z, max.z) = (lo, hi),
            }
        }
        return Aabb { min, max };
    }
    let a = c.compute_aabb();
    Aabb {
        min: vec_from_rapier(a.mins),
        max: vec_from_rapier(a.maxs),
    }
}

/// `name` in the scope `scope` (`scope::name`, or `name` in the world's scope).
fn scoped_in(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}::{name}")
    }
}

fn unknown(id: EntityId) -> String {
    format!("no entity with id {}", id.0)
}

fn pack_user_data(entity: EntityId, model: EntityId) -> u128 {
    (entity.0 as u128) | ((model.0 as u128) << 64)
}

fn unpack_model(ud: u128) -> EntityId {
    EntityId((ud >> 64) as u64)
}

/// Velocity of the body's frame origin and its angular velocity, world frame.
fn origin_velocity(b: &RigidBody) -> (Vec3, Vec3) {
    let v = b.velocity_at_point(b.translation());
    (vec_from_rapier(v), vec_from_rapier(b.angvel()))
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
        for j in &m.joints {
            let parent = if j.parent_link == "world" {
                "world".to_string()
            } else {
                format!("{scope}::{}", j.parent_link)
            };
            let movable = j.kind != crate::world::JointKind::Fixed;
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

/// The motion of a frame fixed at `offset` in a moving frame with motion `s`.
fn offset_state(s: KinematicState, offset: Pose) -> KinematicState {
    let r = s.pose.orientation.rotate(offset.position);
    let w = s.angular_velocity;
    let al = s.angular_acceleration;
    KinematicState {
        pose: s.pose.compose(offset),
        linear_velocity: s.linear_velocity + w.cross(r),
        angular_velocity: w,
        linear_acceleration: s.linear_acceleration + al.cross(r) + w.cross(w.cross(r)),
        angular_acceleration: al,
    }
}

/// The [`WorldView`] of a [`Physics`] for one plugin.
pub struct PhysicsView<'a> {
    physics: &'a Physics,
    caller: Caller<'a>,
    /// The worker pool a large ray batch cast from outside it is shared with (see
    /// [`Physics::view_on`]).
    pool: Option<&'a rayon::ThreadPool>,
    /// The `simcore.scene.v1` extension object handed out by [`WorldView::extension`]. It
    /// only borrows the physics (an `RRef`), so it owns nothing to drop; `ManuallyDrop` keeps
    /// the view free of drop glue, so that it stops borrowing its caller's name at last use.
    scene: std::mem::ManuallyDrop<SceneRef<'a>>,
}

/// The scene extension ([`SCENE_EXTENSION`]): the world's scene, lights and visual labels.
impl SceneView for Physics {
    fn scene(&self) -> SceneInfo {
        self.scene
    }
    fn lights(&self, out: &mut RVec<sim_plugin_api::Light>) {
        out.clear();
        out.extend(self.lights.iter().cloned());
    }
    fn labels(&self, ids: RSlice<'_, EntityId>, mut out: RSliceMut<'_, u32>) -> u32 {
        let mut known = 0;
        for (id, o) in ids.iter().zip(out.iter_mut()) {
            *o = match self.entities.get(*id).map(|e| &e.data) {
                Some(EntityData::Visual { label, .. }) => {
                    known += 1;
                    label.unwrap_or(NO_LABEL)
                }
                _ => NO_LABEL,
            };
        }
        known
    }
}

/// A world-level light as plugins see it: its direction in the world frame.
fn api_light(l: &crate::world::Light) -> sim_plugin_api::Light {
    use crate::world::LightKind as K;
    sim_plugin_api::Light {
        name: sim_plugin_api::SharedStr::new(&l.name),
        kind: match l.kind {
            K::Directional => sim_plugin_api::LightKind::DIRECTIONAL,
            K::Point => sim_plugin_api::LightKind::POINT,
            K::Spot => sim_plugin_api::LightKind::SPOT,
        },
        pose: l.pose,
        direction: l.world_direction(),
        diffuse: l.diffuse,
        specular: l.specular,
        intensity: l.intensity,
        range: l.range,
        constant: l.constant,
        linear: l.linear,
        quadratic: l.quadratic,
        spot_inner_angle: l.spot_inner_angle,
        spot_outer_angle: l.spot_outer_angle,
        spot_falloff: l.spot_falloff,
        cast_shadows: l.cast_shadows,
    }
}

/// Who a view's log records are attributed to.
#[derive(Clone, Copy)]
enum Caller<'a> {
    Str(&'a str),
    Shared(&'a sim_plugin_api::SharedStr),
}

impl Caller<'_> {
    fn name(&self) -> &str {
        match self {
            Caller::Str(s) => s,
            Caller::Shared(s) => s.as_str(),
        }
    }
}

impl WorldView for PhysicsView<'_> {
    fn sim_time(&self) -> SimTime {
        self.physics.time
    }
    fn step_size(&self) -> SimTime {
        self.physics.step
    }
    fn world_name(&self) -> RStr<'_> {
        RStr::from_str(&self.physics.world_name)
    }
    fn gravity(&self) -> Vec3 {
        self.physics.gravity
    }
    fn magnetic_field(&self) -> Vec3 {
        self.physics.magnetic_field
    }
    fn spherical_coordinates(&self) -> ROption<SphericalCoordinates> {
        self.physics.spherical.into()
    }
    fn entity_by_name(&self, scoped_name: RStr<'_>) -> EntityId {
        self.physics
            .entities
            .by_name(scoped_name.as_str())
            .unwrap_or(EntityId::NONE)
    }
    fn entity_info(&self, id: EntityId) -> ROption<EntityInfo<'_>> {
        self.physics
            .entities
            .get(id)
            .map(|e| EntityInfo {
                id,
                kind: e.kind,
                parent: e.parent,
                name: RStr::from_str(&e.name),
                scoped_name: RStr::from_str(&e.scoped_name),
            })
            .into()
    }
    fn models(&self, out: &mut RVec<ModelInfo>) {
        out.clear();
        for (id, e) in self.physics.entities.iter() {
            if e.kind == EntityKind::MODEL
                && let Some(info) = self.physics.model_info(id)
            {
                out.push(info);
            }
        }
    }
    fn models_in_aabb(&self, aabb: Aabb, out: &mut RVec<ModelInfo>) {
        out.clear();
        let pw = &self.physics.pw;
        let groups = InteractionGroups::new(GROUP_QUERY, GROUP_COLLISION, InteractionTestMode::And);
        let qp = pw.broad_phase.as_query_pipeline(
            pw.narrow_phase.query_dispatcher(),
            &pw.bodies,
            &pw.colliders,
            QueryFilter::default().groups(groups),
        );
        let query = rapier3d::parry::bounding_volume::Aabb::new(
            vec_to_rapier(aabb.min),
            vec_to_rapier(aabb.max),
        );
        let mut ids: Vec<EntityId> = qp
            .intersect_aabb_conservative(query)
            .map(|(_, c)| unpack_model(c.user_data))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            let Some(info) = self.physics.model_info(id) else {
                continue;
            };
            // The broad phase is conservative (enlarged boxes): keep exact intersections.
            let b = info.aabb;
            let hit = b.min.x <= aabb.max.x
                && b.max.x >= aabb.min.x
                && b.min.y <= aabb.max.y
                && b.max.y >= aabb.min.y
                && b.min.z <= aabb.max.z
                && b.max.z >= aabb.min.z;
            if info.has_collision && hit {
                out.push(info);
            }
        }
    }
    fn kinematics(&self, ids: RSlice<'_, EntityId>, mut out: RSliceMut<'_, KinematicState>) -> u32 {
        let mut known = 0;
        for (id, o) in ids.iter().zip(out.iter_mut()) {
            if self.physics.kinematics_into(*id, o) {
                known += 1;
            } else {
                *o = KinematicState::default();
            }
        }
        known
    }
    fn joint_states(&self, ids: RSlice<'_, EntityId>, mut out: RSliceMut<'_, JointState>) -> u32 {
        let mut known = 0;
        for (id, o) in ids.iter().zip(out.iter_mut()) {
            match self.physics.entities.get(*id).map(|e| e.kind) {
                Some(EntityKind::JOINT) => {
                    known += 1;
                    *o = self.physics.joint_state(*id).unwrap_or_default();
                }
                _ => *o = JointState::default(),
            }
        }
        known
    }
    fn joint_wrenches(
        &self,
        ids: RSlice<'_, EntityId>,
        mut out: RSliceMut<'_, sim_plugin_api::Wrench>,
    ) -> u32 {
        let mut known = 0;
        for (id, o) in ids.iter().zip(out.iter_mut()) {
            *o = match self.physics.joint_wrench(*id) {
                Some(w) => {
                    known += 1;
                    w
                }
                None => Default::default(),
            };
        }
        known
    }
    fn contacts(
        &self,
        collisions: RSlice<'_, EntityId>,
        out: &mut RVec<sim_plugin_api::ContactPoint>,
    ) {
        out.clear();
        for id in collisions.iter() {
            self.physics.contacts_of(*id, out);
        }
    }
    fn surfaces(&self, ids: RSlice<'_, EntityId>, mut out: RSliceMut<'_, SurfaceInfo>) -> u32 {
        let mut known = 0;
        for (id, o) in ids.iter().zip(out.iter_mut()) {
            *o = match self.physics.entities.get(*id).map(|e| &e.data) {
                Some(EntityData::Visual {
                    diffuse,
                    laser_retro,
                    ..
                }) => {
                    known += 1;
                    SurfaceInfo {
                        diffuse: *diffuse,
                        laser_retro: *laser_retro,
                    }
                }
                Some(EntityData::Collision { laser_retro, .. }) => {
                    known += 1;
                    SurfaceInfo {
                        diffuse: DEFAULT_DIFFUSE,
                        laser_retro: *laser_retro,
                    }
                }
                _ => SurfaceInfo::default(),
            };
        }
        known
    }
    fn cast_rays(
        &self,
        rays: RSlice<'_, ApiRay>,
        options: &RayCastOptions,
        mut hits: RSliceMut<'_, RayHit>,
    ) -> u32 {
        self.physics
            .cast(rays.as_slice(), options, hits.as_mut_slice(), self.pool)
    }
    fn log(&self, level: LogLevel, message: RStr<'_>) {
        let (who, msg) = (self.caller.name(), message.as_str());
        match level {
            LogLevel::ERROR => tracing::error!(target: "plugin", "{who}: {msg}"),
            LogLevel::WARN => tracing::warn!(target: "plugin", "{who}: {msg}"),
            LogLevel::INFO => tracing::info!(target: "plugin", "{who}: {msg}"),
            LogLevel::DEBUG => tracing::debug!(target: "plugin", "{who}: {msg}"),
            _ => tracing::trace!(target: "plugin", "{who}: {msg}"),
        }
    }
    fn extension(&self, name: RStr<'_>) -> ROption<Extension<'_>> {
        match name.as_str() {
            MODEL_PLUGINS_EXTENSION => ROption::RSome(Extension::new(&self.physics.model_plugins)),
            SCENE_EXTENSION => ROption::RSome(Extension::new(&*self.scene)),
            _ => ROption::RNone,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(models: &str) -> World {
        crate::sdf::parse_str(
            &format!(
                r#"<sdf version="1.9"><world name="w">
                <model name="ground"><static>true</static><link name="l">
                  <collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision>
                  <visual name="v"><geometry><plane><normal>0 0 1</normal></plane></geometry><material><diffuse>0 1 0 1</diffuse></material></visual>
                </link></model>{models}</world></sdf>"#
            ),
            None,
        )
        .expect("valid world")
    }

    const BOX: &str = r#"<model name="box"><pose>0 0 2 0 0 0</pose><link name="body">
        <inertial><mass>2</mass></inertial>
        <collision name="c"><laser_retro>7</laser_retro><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>
        <visual name="v"><geometry><sphere><radius>0.5</radius></sphere></geometry><material><diffuse>1 0 0 1</diffuse></material></visual>
        <sensor name="s" type="imu"><pose>0.1 0 0 0 0 0</pose></sensor>
        </link></model>"#;

    fn down(x: f64, y: f64, z: f64) -> ApiRay {
        ApiRay {
            origin: Vec3::new(x, y, z),
            direction: Vec3::new(0.0, 0.0, -1.0),
        }
    }

    #[test]
    fn bodies_fall_under_gravity_and_accelerations_are_finite_differences() {
        let mut p = Physics::build(&world(BOX)).unwrap();
        let id = p.entity_id("box::body").unwrap();
        for _ in 0..100 {
            p.step();
        }
        let k = p.kinematics_of(id).unwrap();
        // v = g t, z = 2 - g t^2 / 2 (semi-implicit Euler: within a step's worth).
        assert!(
            (k.linear_velocity.z + 0.98).abs() < 1e-3,
            "{:?}",
            k.linear_velocity
        );
        assert!(
            (k.pose.position.z - (2.0 - 0.5 * 9.8 * 0.01)).abs() < 1e-3,
            "{:?}",
            k.pose.position
        );
        assert!(
            (k.linear_acceleration.z + 9.8).abs() < 1e-3,
            "{:?}",
            k.linear_acceleration
        );
        assert_eq!(p.time(), SimTime::from_nanos(100_000_000));
        // The sensor frame follows the link with its offset.
        let s = p
            .kinematics_of(p.entity_id("box::body::s").unwrap())
            .unwrap();
        assert!((s.pose.position.x - 0.1).abs() < 1e-6);
        assert!((s.linear_acceleration.z + 9.8).abs() < 1e-3);
    }

    #[test]
    fn rays_see_collisions_or_visuals_before_the_first_step() {
        let p = Physics::build(&world(BOX)).unwrap();
        let view = p.view("test");
        let mut hits = [RayHit::MISS; 3];
        let rays = [
            down(0.0, 0.0, 5.0),
            down(3.0, 0.0, 5.0),
            down(0.0, 0.0, -1.0),
        ];
        let opts = RayCastOptions {
            max_distance: 100.0,
            target: RayTarget::COLLISION,
            exclude_model: EntityId::NONE,
        };
        assert_eq!(
            view.cast_rays(
                RSlice::from_slice(&rays),
                &opts,
                RSliceMut::from_mut_slice(&mut hits)
            ),
            3
        );
        assert!(
            (hits[0].distance - 2.9).abs() < 1e-5,
            "top of the 0.2 m box at z=2.1: {:?}",
            hits[0]
        );
        assert_eq!(p.scoped_name(hits[0].entity), Some("box::body::c"));
        assert_eq!(p.scoped_name(hits[0].model), Some("box"));
        assert!(
            (hits[0].normal - Vec3::new(0.0, 0.0, 1.0)).length() < 1e-5,
            "{:?}",
            hits[0].normal
        );
        assert!(
            (hits[1].normal - Vec3::new(0.0, 0.0, 1.0)).length() < 1e-5,
            "{:?}",
            hits[1].normal
        );
        assert!(
            (hits[1].distance - 5.0).abs() < 1e-5,
            "the ground: {:?}",
            hits[1]
        );
        assert_eq!(hits[2].distance, 0.0, "inside the solid ground half-space");

        let opts = RayCastOptions {
            target: RayTarget::VISUAL,
            ..opts
        };
        view.cast_rays(
            RSlice::from_slice(&rays),
            &opts,
            RSliceMut::from_mut_slice(&mut hits),
        );
        assert!(
            (hits[0].distance - 2.5).abs() < 1e-5,
            "top of the 0.5 m visual sphere: {:?}",
            hits[0]
        );
        assert_eq!(p.scoped_name(hits[0].entity), Some("box::body::v"));
        let mut surf = [SurfaceInfo::default(); 2];
        view.surfaces(
            RSlice::from_slice(&[hits[0].entity, hits[1].entity]),
            RSliceMut::from_mut_slice(&mut surf),
        );
        assert_eq!(surf[0].diffuse, [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(surf[1].diffuse, [0.0, 1.0, 0.0, 1.0]);

        let opts = RayCastOptions {
            exclude_model: p.entity_id("box").unwrap(),
            target: RayTarget::COLLISION,
            ..opts
        };
        view.cast_rays(
            RSlice::from_slice(&rays),
            &opts,
            RSliceMut::from_mut_slice(&mut hits),
        );
        assert!(
            (hits[0].distance - 5.0).abs() < 1e-5,
            "own model excluded: {:?}",
            hits[0]
        );
    }

    #[test]
    fn parallel_batches_match_serial_casts() {
        let p = Physics::build(&world(BOX)).unwrap();
        let view = p.view("test");
        let rays: Vec<ApiRay> = (0..2000)
            .map(|i| down(-1.0 + i as f64 * 0.001, 0.0, 5.0))
            .collect();
        let opts = RayCastOptions {
            max_distance: 100.0,
            target: RayTarget::COLLISION,
            exclude_model: EntityId::NONE,
        };
        let mut batch = vec![RayHit::MISS; rays.len()];
        // On a worker pool (as with --threads 2) the batch is split across threads.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            assert!(rayon::current_thread_index().is_some());
            view.cast_rays(
                RSlice::from_slice(&rays),
                &opts,
                RSliceMut::from_mut_slice(&mut batch),
            );
        });
        for (r, b) in rays.iter().zip(&batch) {
            let mut one = [RayHit::MISS];
            view.cast_rays(
                RSlice::from_slice(std::slice::from_ref(r)),
                &opts,
                RSliceMut::from_mut_slice(&mut one),
            );
            assert_eq!(one[0], *b);
        }
    }

    /// A lidar-like scan and camera-like rows from one origin, cast as packets, hit exactly
    /// what each ray cast alone (through the query pipeline's own search) hits, among boxes,
    /// spheres and cylinders placed at random (some tilted, some touching the origin's model,
    /// which is excluded), for collisions and visuals, serially and on a worker pool.
    #[test]
    fn packets_from_one_origin_match_single_rays() {
        let mut state: u64 = 7;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut models = String::from(
            r#"<model name="scanner"><static>true</static><pose>0 0 0.6 0 0 0</pose><link name="l">
            <collision name="c"><geometry><cylinder><radius>0.2</radius><length>0.3</length></cylinder></geometry></collision>
            <visual name="v"><geometry><box><size>0.3 0.3 0.3</size></box></geometry></visual></link></model>"#,
        );
        for i in 0..150 {
            let (x, y, z) = (next() * 30.0 - 15.0, next() * 30.0 - 15.0, next() * 3.0);
            let (r, p, w) = (next() * 3.0, next() * 3.0, next() * 3.0);
            let size = 0.2 + next() * 1.5;
            let geometry = match i % 3 {
                0 => format!(
                    "<box><size>{size} {} {}</size></box>",
                    size * 0.5,
                    size * 2.0
                ),
                1 => format!("<sphere><radius>{}</radius></sphere>", size * 0.5),
                _ => format!(
                    "<cylinder><radius>{}</radius><length>{size}</length></cylinder>",
                    size * 0.3
                ),
            };
            models.push_str(&format!(
                r#"<model name="m{i}"><static>true</static><pose>{x} {y} {z} {r} {p} {w}</pose><link name="l">
                <collision name="c"><geometry>{geometry}</geometry></collision>
                <visual name="v"><geometry>{geometry}</geometry></visual></link></model>"#
            ));
        }
        let p = Physics::build(&world(&models)).unwrap();
        let view = p.view("test");
        let scanner = p.entity_id("scanner").unwrap();
        let origin = Vec3::new(0.0, 0.0, 0.6);
        let mut rays = Vec::new();
        // A 360 x 16 scan, row by row.
        for j in 0..16 {
            let v = (-30.0 + j as f64 * 4.0f64).to_radians();
            for i in 0..360 {
                let h = (i as f64).to_radians();
                rays.push(ApiRay {
                    origin,
                    direction: Vec3::new(v.cos() * h.cos(), v.cos() * h.sin(), v.sin()),
                });
            }
        }
        // Camera rows looking along +x, and rays in random directions (wide packets).
        for j in 0..20 {
            for i in 0..64 {
                let (u, w) = (i as f64 / 32.0 - 1.0, j as f64 / 10.0 - 1.0);
                rays.push(ApiRay {
                    origin,
                    direction: Vec3::new(1.0, u, w * 0.5).normalized(),
                });
            }
        }
        for _ in 0..256 {
            let d = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5);
            rays.push(ApiRay {
                origin,
                direction: d.normalized(),
            });
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut hits_seen = 0;
        for (target, exclude_model) in [
            (RayTarget::COLLISION, EntityId::NONE),
            (RayTarget::COLLISION, scanner),
            (RayTarget::VISUAL, scanner),
        ] {
            let opts = RayCastOptions {
                max_distance: 12.0,
                target,
                exclude_model,
            };
            let mut serial = vec![RayHit::MISS; rays.len()];
            view.cast_rays(
                RSlice::from_slice(&rays),
                &opts,
                RSliceMut::from_mut_slice(&mut serial),
            );
            let mut parallel = vec![RayHit::MISS; rays.len()];
            pool.install(|| {
                view.cast_rays(
                    RSlice::from_slice(&rays),
                    &opts,
                    RSliceMut::from_mut_slice(&mut parallel),
                )
            });
            assert_eq!(serial, parallel);
            for (k, (r, b)) in rays.iter().zip(&serial).enumerate() {
                let mut one = [RayHit::MISS];
                view.cast_rays(
                    RSlice::from_slice(std::slice::from_ref(r)),
                    &opts,
                    RSliceMut::from_mut_slice(&mut one),
                );
                assert_eq!(
                    one[0], *b,
                    "ray {k} ({target:?}, excluding {exclude_model:?})"
                );
                if b.distance.is_finite() {
                    hits_seen += 1;
                    let model = p.entities.get(b.model).unwrap();
                    assert_ne!(
                        (exclude_model == scanner, b.model),
                        (true, scanner),
                        "the excluded model is never hit"
                    );
                    assert!(model.kind == EntityKind::MODEL);
                }
            }
        }
        // The scene is dense enough that most rays hit something, and the scanner's own
        // collision is hit when it is not excluded.
        assert!(hits_seen > rays.len(), "{hits_seen} hits");
    }

    #[test]
    fn teleport_is_seen_by_rays_at_once_and_the_body_still_simulates() {
        let mut p = Physics::build(&world(BOX)).unwrap();
        p.step();
        let model = p.entity_id("box").unwrap();
        p.apply(&PhysicsCommand::SetPose(
            model,
            Pose::from_xyz_rpy(5.0, 0.0, 3.0, 0.0, 0.0, 0.0),
        ))
        .unwrap();
        let opts = RayCastOptions {
            max_distance: 100.0,
            target: RayTarget::COLLISION,
            exclude_model: EntityId::NONE,
        };
        let mut hit = [RayHit::MISS];
        p.view("t").cast_rays(
            RSlice::from_slice(&[down(5.0, 0.0, 10.0)]),
            &opts,
            RSliceMut::from_mut_slice(&mut hit),
        );
        assert!((hit[0].distance - 6.9).abs() < 1e-4, "{:?}", hit[0]);
        let z0 = p.kinematics_of(model).unwrap().pose.position.z;
        for _ in 0..10 {
            p.step();
        }
        assert!(
            p.kinematics_of(model).unwrap().pose.position.z < z0,
            "the teleported body keeps falling"
        );
    }

    #[test]
    fn link_states_after_a_step_are_their_bodies_and_a_teleport_shows_at_once() {
        let mut p = Physics::build(&world(BOX)).unwrap();
        let model = p.entity_id("box").unwrap();
        let link = p.entity_id("box::body").unwrap();
        let read = |p: &Physics| {
            let mut k = KinematicState::default();
            assert!(p.kinematics_into(link, &mut k));
            k
        };
        let live = |p: &Physics| {
            let EntityData::Link { body, .. } = p.entities.get(link).unwrap().data else {
                panic!("not a link");
            };
            let b = p.pw.bodies.get(body).unwrap();
            (pose_from_rapier(b.position()), origin_velocity(b))
        };
        for _ in 0..20 {
            p.step();
        }
        assert!(p.motion_fresh, "the record is read after a step");
        let (k, (pose, (v, w))) = (read(&p), live(&p));
        assert_eq!(
            (k.pose, k.linear_velocity, k.angular_velocity),
            (pose, v, w)
        );
        assert!(
            k.linear_velocity.z < -0.1,
            "falling: {:?}",
            k.linear_velocity
        );
        p.apply(&PhysicsCommand::SetPose(
            model,
            Pose::from_xyz_rpy(5.0, 0.0, 3.0, 0.0, 0.0, 0.0),
        ))
        .unwrap();
        let k = read(&p);
        assert_eq!(
            k.pose,
            live(&p).0,
            "a teleport is read from the body at once"
        );
        assert!((k.pose.position.x - 5.0).abs() < 1e-6, "{:?}", k.pose);
        p.step();
        assert_eq!(read(&p).pose, live(&p).0);
    }

    #[test]
    fn models_report_collision_aabbs() {
        let p = Physics::build(&world(BOX)).unwrap();
        let mut out = RVec::new();
        p.view("t").models(&mut out);
        assert_eq!(out.len(), 2);
        let b = out
            .iter()
            .find(|m| Some(m.id) == p.entity_id("box"))
            .unwrap();
        assert!(b.has_collision && !b.is_static);
        assert!(
            (b.aabb.min.z - 1.9).abs() < 1e-4 && (b.aabb.max.z - 2.1).abs() < 1e-4,
            "{:?}",
            b.aabb
        );
    }

    #[test]
    fn broad_phase_model_query() {
        let p = Physics::build(&world(BOX)).unwrap();
        let view = p.view("t");
        let query = |min: Vec3, max: Vec3| {
            let mut out = RVec::new();
            view.models_in_aabb(Aabb { min, max }, &mut out);
            out.iter()
                .map(|m| p.scoped_name(m.id).unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            query(Vec3::new(-0.5, -0.5, 1.5), Vec3::new(0.5, 0.5, 2.5)),
            vec!["box"]
        );
        assert!(query(Vec3::new(5.0, 5.0, 1.0), Vec3::new(6.0, 6.0, 3.0)).is_empty());
        // The ground plane's box is the half-space below z = 0: found only where it reaches.
        assert_eq!(
            query(Vec3::new(50.0, 50.0, -1.0), Vec3::new(51.0, 51.0, 0.5)),
            vec!["ground"]
        );
        assert!(query(Vec3::new(50.0, 50.0, 0.5), Vec3::new(51.0, 51.0, 1.0)).is_empty());
    }

    fn joint_world(joint: &str) -> World {
        crate::sdf::parse_str(
            &format!(
                r#"<sdf version="1.9"><world name="w"><model name="arm"><pose>0 0 2 0 0 0</pose>
                <link name="base"><inertial><mass>1</mass></inertial></link>
                <link name="bob"><pose>1 0 0 0 0 0</pose><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
                  <collision name="c"><geometry><sphere><radius>0.05</radius></sphere></geometry></collision></link>
                <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
                {joint}
                </model></world></sdf>"#
            ),
            None,
        )
        .expect("valid world")
    }

    #[test]
    fn a_pendulum_swings_about_its_revolute_axis() {
        // Pivot at the base origin (the joint pose is in the bob's frame), axis y.
        let w = joint_world(
            r#"<joint name="hinge" type="revolute"><parent>base</parent><child>bob</child><pose>-1 0 0 0 0 0</pose><axis><xyz>0 1 0</xyz></axis></joint>"#,
        );
        let mut p = Physics::build(&w).unwrap();
        let bob = p.entity_id("arm::bob").unwrap();
        let hinge = p.entity_id("arm::hinge").unwrap();
        assert_swings_about_y(&mut p, bob, hinge);
    }

    /// Steps a 1 m pendulum hinged at (0, 0, 2) about +y for 1.3 s from the horizontal: the
    /// bob stays on its circle in the x-z plane, the joint's position agrees with the geometry
    /// (rotation about +y takes +x down: angle > 0), and it swings down and through.
    #[track_caller]
    fn assert_swings_about_y(p: &mut Physics, bob: EntityId, hinge: EntityId) {
        let mut max_angle: f64 = 0.0;
        for _ in 0..1300 {
            p.step();
            let pos = p.kinematics_of(bob).unwrap().pose.position;
            let r = (pos - Vec3::new(0.0, 0.0, 2.0)).length();
            assert!(
                (r - 1.0).abs() < 2e-3,
                "the bob stays 1 m from the pivot: {r}"
            );
            assert!(pos.y.abs() < 1e-3, "it swings in the x-z plane: {pos:?}");
            let s = p.joint_state(hinge).unwrap();
            // Position agrees with the geometry (rotation about +y takes +x down: angle > 0).
            let geometric = (-(pos.z - 2.0)).atan2(pos.x);
            assert!(
                (s.position[0] - geometric).abs() < 2e-3,
                "{} vs {geometric}",
                s.position[0]
            );
            max_angle = max_angle.max(s.position[0]);
        }
        assert!(max_angle > 3.0, "it swings down and through: {max_angle}");
    }

    #[test]
    fn a_pendulum_in_a_nested_model_swings_about_the_resolved_axis() {
        // The bob is a link of a nested model turned a quarter about z; the joint of the
        // outer model names it `pend::bob`, is posed relative to the outer model frame and
        // has its axis expressed in the nested model's frame (its x = the world's y). The
        // base is held by a world-level joint (SDF 1.10).
        let w = crate::sdf::parse_str(
            r#"<sdf version="1.10"><world name="w">
            <model name="arm"><pose>0 0 2 0 0 0</pose>
              <link name="base"><inertial><mass>1</mass></inertial></link>
              <model name="pend"><pose>1 0 0 0 0 1.5707963267948966</pose>
                <link name="bob"><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
                  <collision name="c"><geometry><sphere><radius>0.05</radius></sphere></geometry></collision></link>
              </model>
              <joint name="hinge" type="revolute"><parent>base</parent><child>pend::bob</child>
                <pose relative_to="__model__">0 0 0 0 0 0</pose>
                <axis><xyz expressed_in="pend">1 0 0</xyz></axis></joint>
            </model>
            <joint name="fix" type="fixed"><parent>world</parent><child>arm::base</child></joint>
            </world></sdf>"#,
            None,
        )
        .expect("valid world");
        let mut p = Physics::build(&w).unwrap();
        let bob = p.entity_id("arm::pend::bob").unwrap();
        let base = p.entity_id("arm::base").unwrap();
        let hinge = p.entity_id("arm::hinge").unwrap();
        assert!(p.entity_id("fix").is_some(), "the world joint is an entity");
        let start = p.kinematics_of(bob).unwrap().pose.position;
        assert!(
            (start - Vec3::new(1.0, 0.0, 2.0)).length() < 1e-6,
            "{start:?}"
        );
        assert_swings_about_y(&mut p, bob, hinge);
        let held = p.kinematics_of(base).unwrap().pose.position;
        assert!(
            (held - Vec3::new(0.0, 0.0, 2.0)).length() < 1e-3,
            "{held:?}"
        );
    }

    #[test]
    fn limits_stop_a_revolute_joint() {
        let w = joint_world(
            r#"<joint name="hinge" type="revolute"><parent>base</parent><child>bob</child><pose>-1 0 0 0 0 0</pose><axis><xyz>0 1 0</xyz><limit><lower>-0.2</lower><upper>0.3</upper></limit></axis></joint>"#,
        );
        let mut p = Physics::build(&w).unwrap();
        let hinge = p.entity_id("arm::hinge").unwrap();
        for _ in 0..1000 {
            p.step();
        }
        let s = p.joint_state(hinge).unwrap();
        assert!(
            (s.position[0] - 0.3).abs() < 0.02,
            "resting on the upper limit: {}",
            s.position[0]
        );
        assert!(
            s.effort[0].abs() > 1.0,
            "the limit pushes back: {}",
            s.effort[0]
        );
    }

    #[test]
    fn prismatic_joints_slide_along_their_axis_only() {
        let w = joint_world(
            r#"<joint name="slide" type="prismatic"><parent>base</parent><child>bob</child><axis><xyz>1 0 -1</xyz></axis></joint>"#,
        );
        let mut p = Physics::build(&w).unwrap();
        let bob = p.entity_id("arm::bob").unwrap();
        let slide = p.entity_id("arm::slide").unwrap();
        for _ in 0..300 {
            p.step();
        }
        let pos = p.kinematics_of(bob).unwrap().pose.position;
        let d = pos - Vec3::new(1.0, 0.0, 2.0);
        assert!(
            d.x > 0.1 && (d.x + d.z).abs() < 1e-3 && d.y.abs() < 1e-6,
            "slides down the 45 degree axis: {d:?}"
        );
        let s = p.joint_state(slide).unwrap();
        assert!(
            (s.position[0] - d.length()).abs() < 1e-3,
            "{} vs {}",
            s.position[0],
            d.length()
        );
        // Along the incline: a = g sin 45.
        let t = 0.3;
        let expected = 0.5 * 9.8 * std::f64::consts::FRAC_1_SQRT_2 * t * t;
        assert!(
            (s.position[0] - expected).abs() < 0.01,
            "{} vs {expected}",
            s.position[0]
        );
    }

    #[test]
    fn velocity_commands_drive_a_continuous_joint_past_a_turn() {
        let w = crate::sdf::parse_str(
            r#"<sdf version="1.9"><world name="w"><gravity>0 0 0</gravity><model name="m">
                <link name="base"/><link name="wheel"><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
                <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
                <joint name="axle" type="continuous"><parent>base</parent><child>wheel</child><axis><xyz>0 0 1</xyz></axis></joint>
                </model></world></sdf>"#,
            None,
        )
        .unwrap();
        let mut p = Physics::build(&w).unwrap();
        let axle = p.entity_id("m::axle").unwrap();
        let cmd = sim_plugin_api::JointCommand {
            joint: axle,
            axis: 0,
            mode: sim_plugin_api::JointCommandMode::VELOCITY,
            target: 10.0,
            max_force: 100.0,
            stiffness: 0.0,
            damping: 0.0,
        };
        p.joint_command(&cmd).unwrap();
        for _ in 0..1000 {
            p.step();
        }
        let s = p.joint_state(axle).unwrap();
        assert!((s.velocity[0] - 10.0).abs() < 0.05, "{}", s.velocity[0]);
        assert!(
            s.position[0] > 9.0 && s.position[0] < 10.1,
            "unwrapped past several turns: {}",
            s.position[0]
        );
        let bad = sim_plugin_api::JointCommand { axis: 1, ..cmd };
        assert!(p.joint_command(&bad).unwrap_err().contains("no axis 1"));
        let fix = p.entity_id("m::fix").unwrap();
        assert!(
            p.joint_command(&sim_plugin_api::JointCommand { joint: fix, ..cmd })
                .is_err()
        );
    }

    #[test]
    fn spawned_models_are_seen_at_once_and_simulate() {
        let mut p = Physics::build(&world("")).unwrap();
        for _ in 0..10 {
            p.step();
        }
        let model = crate::sdf::parse_model_str(BOX, None).unwrap();
        let id = p.spawn_model(&model).unwrap();
        let opts = RayCastOptions {
            max_distance: 100.0,
            target: RayTarget::COLLISION,
            exclude_model: EntityId::NONE,
        };
        let mut hit = [RayHit::MISS];
        p.view("t").cast_rays(
            RSlice::from_slice(&[down(0.0, 0.0, 10.0)]),
            &opts,
            RSliceMut::from_mut_slice(&mut hit),
        );
        assert!((hit[0].distance - 7.9).abs() < 1e-4, "{:?}", hit[0]);
        for _ in 0..100 {
            p.step();
        }
        assert!(
            p.kinematics_of(id).unwrap().pose.position.z < 1.99,
            "it falls"
        );
        assert!(
            p.spawn_model(&model).is_ok(),
            "building twice is the caller's naming problem, not a crash"
        );
    }

    #[test]
    fn a_fixed_joint_holding_a_mass_reads_m_g() {
        let w = crate::sdf::parse_str(
            r#"<sdf version="1.9"><world name="w"><model name="m"><pose>0 0 1 0 0 0</pose>
                <link name="weight"><inertial><mass>2</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
                <joint name="hook" type="fixed"><parent>world</parent><child>weight</child></joint>
                </model></world></sdf>"#,
            None,
        )
        .unwrap();
        let mut p = Physics::build(&w).unwrap();
        for _ in 0..200 {
            p.step();
        }
        let hook = p.entity_id("m::hook").unwrap();
        let wrench = p.joint_wrench(hook).unwrap();
        assert!(
            (wrench.force.z - 2.0 * 9.8).abs() < 1e-3,
            "holds the weight up: {wrench:?}"
        );
        assert!(
            wrench.force.x.abs() < 1e-6
                && wrench.force.y.abs() < 1e-6
                && wrench.torque.length() < 1e-3,
            "{wrench:?}"
        );
        let mut out = [sim_plugin_api::Wrench::default(); 2];
        let known = p.view("t").joint_wrenches(
            RSlice::from_slice(&[hook, p.entity_id("m::weight").unwrap()]),
            RSliceMut::from_mut_slice(&mut out),
        );
        assert_eq!(known, 1);
        assert_eq!(out[0], wrench);
    }

    #[test]
    fn contact_forces_of_a_resting_box_add_up_to_m_g() {
        let mut p = Physics::build(&world(
            r#"<model name="box"><pose>0 0 0.1 0 0 0</pose><link name="body"><inertial><mass>3</mass></inertial>
               <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision></link></model>"#,
        ))
        .unwrap();
        for _ in 0..500 {
            p.step();
        }
        let view = p.view("t");
        let boxc = p.entity_id("box::body::c").unwrap();
        let ground = p.entity_id("ground::l::c").unwrap();
        let mut out = RVec::new();
        view.contacts(RSlice::from_slice(&[boxc]), &mut out);
        assert!(out.len() >= 3, "a face resting on the plane: {out:?}");
        let total = out.iter().fold(Vec3::ZERO, |a, c| a + c.force);
        assert!(
            (total.z - 3.0 * 9.8).abs() < 0.05,
            "the ground holds the box: {total:?}"
        );
        assert!(
            out.iter()
                .all(|c| c.collision1 == boxc && c.collision2 == ground && c.normal.z < -0.99)
        );
        assert!(out.iter().all(|c| c.position.z.abs() < 0.01));
        view.contacts(RSlice::from_slice(&[ground]), &mut out);
        let total = out.iter().fold(Vec3::ZERO, |a, c| a + c.force);
        assert!(
            (total.z + 3.0 * 9.8).abs() < 0.05,
            "and the box presses on the ground: {total:?}"
        );
    }

    #[test]
    fn the_scene_extension_reports_scene_lights_and_labels() {
        let w = crate::sdf::parse_str(
            r#"<sdf version="1.12"><world name="w">
            <scene><ambient>0.1 0.2 0.3 1</ambient></scene>
            <light name="sun" type="directional"><pose>0 0 10 0 0 1.5707963267948966</pose>
              <direction>1 0 -1</direction><cast_shadows>true</cast_shadows></light>
            <model name="outer">
              <plugin filename="gz-sim-label-system" name="gz::sim::systems::Label"><label>7</label></plugin>
              <link name="l">
                <visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry></visual>
                <visual name="own"><geometry><sphere><radius>1</radius></sphere></geometry>
                  <plugin filename="gz-sim-label-system" name="gz::sim::systems::Label"><label>9</label></plugin></visual>
              </link>
              <model name="inner"><link name="l">
                <visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry></visual>
              </link></model>
            </model>
            <model name="plain"><link name="l">
              <visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry></visual>
            </link></model>
            </world></sdf>"#,
            None,
        )
        .unwrap();
        let p = Physics::build(&w).unwrap();
        let view = p.view("test");
        let world = sim_plugin_api::WorldView_TO::from_ptr(RRef::new(&view), TD_Opaque);
        let scene = world.scene().expect("the engine offers simcore.scene.v1");
        assert_eq!(scene.scene().ambient, [0.1, 0.2, 0.3, 1.0]);
        assert_eq!(scene.scene().background, [0.7, 0.7, 0.7, 1.0]);
        let mut lights = RVec::new();
        scene.lights(&mut lights);
        assert_eq!(lights.len(), 1);
        // (1, 0, -1) in the light frame, yawed +90°: (0, 1, -1) in the world, normalised.
        let s = std::f64::consts::FRAC_1_SQRT_2;
        assert!((lights[0].direction - Vec3::new(0.0, s, -s)).length() < 1e-9);
        assert!(lights[0].cast_shadows);
        assert_eq!(lights[0].pose.position, Vec3::new(0.0, 0.0, 10.0));
        let ids: Vec<EntityId> = [
            "outer::l::v",
            "outer::l::own",
            "outer::inner::l::v",
            "plain::l::v",
            "plain::l",
        ]
        .iter()
        .map(|n| p.entity_id(n).unwrap())
        .collect();
        let mut labels = [0u32; 5];
        let known = scene.labels(
            RSlice::from_slice(&ids),
            RSliceMut::from_mut_slice(&mut labels),
        );
        assert_eq!(known, 4, "the link is not a visual");
        assert_eq!(labels, [7, 9, 7, NO_LABEL, NO_LABEL]);
        assert!(world.extension("simcore.other".into()).is_none());
    }
}
