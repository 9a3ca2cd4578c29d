//! Helpers for testing a plugin without the engine: a fixed [`StaticWorld`] and functions to
//! build a configuration ([`sensor_config`], [`system_config`]) and run one update ([`run_update`], or [`try_update`] for an update
//! that may fail).

use crate::{
    Aabb, ChunkTaskRef, EntityId, EntityInfo, EntityKind, Extension, KinematicState, Light,
    LinkEntry, LogLevel, MODEL_LINKS_EXTENSION, Message, ModelInfo, ModelLinks, ModelLinks_TO,
    ModelLinksRef, NO_LABEL, Outputs, PluginError, Pose, Ray, RayCastOptions, RayHit,
    SCENE_EXTENSION, SceneInfo, SceneRef, SceneView, SceneView_TO, Sensor, SensorConfig,
    SensorThreads, SensorThreads_TO, SensorThreadsRef, SharedStr, SimTime, SourceLocation,
    SphericalCoordinates, SurfaceInfo, SystemConfig, UpdateContext, Vec3, WorldRef, WorldView,
    WorldView_TO,
};
use abi_stable::{
    RRef,
    sabi_trait::TD_Opaque,
    std_types::{ROption, RSlice, RSliceMut, RStr, RVec},
};
use std::collections::HashMap;
use std::sync::Mutex;

/// Answers one ray of a [`StaticWorld`] (see [`StaticWorld::set_ray_caster`]).
pub type RayCaster = Box<dyn Fn(&Ray, &RayCastOptions) -> RayHit + Send + Sync>;

/// What a plugin asked a [`StaticWorld`], for tests of how a sensor batches its queries (see
/// [`StaticWorld::queries`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Queries {
    /// How many `entity_info` calls.
    pub entity_info: usize,
    /// How many `models` calls.
    pub models: usize,
    /// The box of every `models_in_aabb` call.
    pub models_in_aabb: Vec<Aabb>,
    /// The ids of every `surfaces` call.
    pub surfaces: Vec<Vec<EntityId>>,
}

/// An entity added with [`StaticWorld::set_entity`].
#[derive(Clone, Debug)]
struct Entity {
    kind: EntityKind,
    parent: EntityId,
    scoped_name: String,
    /// When it was first set: the order [`ModelLinks::links_of`] reports a model's links in.
    order: u64,
}

impl Entity {
    /// Its own name: the last `::` segment of its scoped name.
    fn name(&self) -> &str {
        self.scoped_name.rsplit("::").next().unwrap_or("")
    }
}

/// A world that does not move: fixed time, gravity and entity states. Every ray misses unless
/// a ray caster is set; the scene extension ([`SCENE_EXTENSION`]) reports [`StaticWorld::scene`],
/// [`StaticWorld::lights`] and the labels set with [`StaticWorld::set_label`]. It knows the
/// entities and models added with [`StaticWorld::set_entity`] and [`StaticWorld::add_model`]:
/// `entity_info` and `entity_by_name` find what `set_entity` set, and the model links
/// extension ([`MODEL_LINKS_EXTENSION`], [`WorldRef::links_of`]) reports the links set with a
/// model as their parent, so a system that finds its links through it can be created in a
/// unit test. It records what it was asked ([`StaticWorld::queries`]). With
/// [`StaticWorld::set_sensor_threads`] it offers the sensor threads extension
/// ([`SENSOR_THREADS_EXTENSION`](crate::SENSOR_THREADS_EXTENSION)) on that many threads of its
/// own.
pub struct StaticWorld {
    /// Sim time reported.
    pub time: SimTime,
    /// Step size reported.
    pub step: SimTime,
    /// Gravity reported.
    pub gravity: Vec3,
    /// Magnetic field reported.
    pub magnetic_field: Vec3,
    /// Spherical coordinates reported.
    pub spherical: Option<SphericalCoordinates>,
    states: HashMap<EntityId, KinematicState>,
    /// Log records written by the plugin.
    pub logs: Mutex<Vec<(LogLevel, String)>>,
    /// The scene reported through the scene extension.
    pub scene: SceneInfo,
    /// The lights reported through the scene extension.
    pub lights: Vec<Light>,
    labels: HashMap<EntityId, u32>,
    surfaces: HashMap<EntityId, SurfaceInfo>,
    caster: Option<RayCaster>,
    entities: HashMap<EntityId, Entity>,
    /// The `order` the next new entity gets.
    next_order: u64,
    models: Vec<ModelInfo>,
    always_in_aabb: Vec<EntityId>,
    queries: Mutex<Queries>,
    threads: usize,
}

impl core::fmt::Debug for StaticWorld {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StaticWorld")
            .field("time", &self.time)
            .field("states", &self.states.len())
            .field("scene", &self.scene)
            .field("lights", &self.lights.len())
            .field("ray_caster", &self.caster.is_some())
            .finish()
    }
}

impl Default for StaticWorld {
    fn default() -> Self {
        StaticWorld {
            time: SimTime::ZERO,
            step: SimTime::from_nanos(1_000_000),
            gravity: Vec3::new(0.0, 0.0, -9.8),
            magnetic_field: Vec3::new(5.5645e-6, 22.8758e-6, -42.3884e-6),
            spherical: None,
            states: HashMap::new(),
            logs: Mutex::new(Vec::new()),
            scene: SceneInfo::default(),
            lights: Vec::new(),
            labels: HashMap::new(),
            surfaces: HashMap::new(),
            caster: None,
            entities: HashMap::new(),
            next_order: 0,
            models: Vec::new(),
            always_in_aabb: Vec::new(),
            queries: Mutex::new(Queries::default()),
            threads: 0,
        }
    }
}

impl StaticWorld {
    /// Sets the state reported for `id`.
    pub fn set_kinematics(&mut self, id: EntityId, state: KinematicState) {
        self.states.insert(id, state);
    }
    /// Sets the segmentation label reported for the visual `id`.
    pub fn set_label(&mut self, id: EntityId, label: u32) {
        self.labels.insert(id, label);
    }
    /// Sets the surface properties reported for the collision or visual `id`.
    pub fn set_surface(&mut self, id: EntityId, surface: SurfaceInfo) {
        self.surfaces.insert(id, surface);
    }
    /// Makes ray casts answer with `caster` (called once per ray) instead of missing.
    pub fn set_ray_caster(
        &mut self,
        caster: impl Fn(&Ray, &RayCastOptions) -> RayHit + Send + Sync + 'static,
    ) {
        self.caster = Some(Box::new(caster));
    }
    /// Makes `entity_info` report `id`: its kind, parent and scoped name (its name is the
    /// last `::` segment); `entity_by_name(scoped)` finds it. A link (kind
    /// [`EntityKind::LINK`]) whose parent is a model set here is one of that model's links
    /// for the model links extension ([`WorldRef::links_of`]), in the order the links were
    /// first set. Setting an id again replaces what it reports and keeps its place in that
    /// order.
    pub fn set_entity(&mut self, id: EntityId, kind: EntityKind, parent: EntityId, scoped: &str) {
        let order = match self.entities.get(&id) {
            Some(e) => e.order,
            None => {
                self.next_order += 1;
                self.next_order
            }
        };
        let entity = Entity {
            kind,
            parent,
            scoped_name: scoped.to_string(),
            order,
        };
        self.entities.insert(id, entity);
    }
    /// Adds a model that `models` reports, in the order added, and `models_in_aabb` when it
    /// has collisions and its box overlaps the query's (or it is listed with
    /// [`StaticWorld::set_always_in_aabb`]).
    pub fn add_model(&mut self, model: ModelInfo) {
        self.models.push(model);
    }
    /// Forgets the entity `id`: its state, entity info and model (as if it had been removed
    /// from the world).
    pub fn remove_entity(&mut self, id: EntityId) {
        self.states.remove(&id);
        self.entities.remove(&id);
        self.models.retain(|m| m.id != id);
    }
    /// Makes `models_in_aabb` report these models whatever the box (to play a conservative
    /// broad phase).
    pub fn set_always_in_aabb(&mut self, models: Vec<EntityId>) {
        self.always_in_aabb = models;
    }
    /// Offers the sensor threads extension, running a plugin's chunks on `threads` threads
    /// (0: not offered, as by an engine without it).
    pub fn set_sensor_threads(&mut self, threads: usize) {
        self.threads = threads;
    }
    /// What the plugin has asked so far.
    pub fn queries(&self) -> Queries {
        self.record(|q| q.clone())
    }
    fn record<R>(&self, f: impl FnOnce(&mut Queries) -> R) -> R {
        f(&mut self.queries.lock().unwrap_or_else(|e| e.into_inner()))
    }
    /// Runs `f` with this world as a plugin sees it.
    pub fn with<R>(&self, f: impl FnOnce(WorldRef<'_>) -> R) -> R {
        let view = StaticView {
            world: self,
            scene: SceneView_TO::from_ptr(RRef::new(self), TD_Opaque),
            threads: SensorThreads_TO::from_ptr(RRef::new(self), TD_Opaque),
            links: ModelLinks_TO::from_ptr(RRef::new(self), TD_Opaque),
        };
        f(WorldView_TO::from_ptr(RRef::new(&view), TD_Opaque))
    }
}

impl SceneView for StaticWorld {
    fn scene(&self) -> SceneInfo {
        self.scene
    }
    fn lights(&self, out: &mut RVec<Light>) {
        out.clear();
        out.extend(self.lights.iter().cloned());
    }
    fn labels(&self, ids: RSlice<'_, EntityId>, mut out: RSliceMut<'_, u32>) -> u32 {
        let mut known = 0;
        for (id, o) in ids.iter().zip(out.iter_mut()) {
            *o = match self.labels.get(id) {
                Some(l) => {
                    known += 1;
                    *l
                }
                None => NO_LABEL,
            };
        }
        known
    }
}

/// The sensor threads of [`StaticWorld::set_sensor_threads`]: scoped threads taking the
/// next chunk until none is left.
impl SensorThreads for StaticWorld {
    fn threads(&self) -> usize {
        self.threads.max(1)
    }
    fn run_chunks(&self, count: usize, task: ChunkTaskRef<'_>) {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let work = || {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= count {
                    break;
                }
                task.run_chunk(i);
            }
        };
        std::thread::scope(|s| {
            for _ in 1..self.threads.min(count) {
                s.spawn(work);
            }
            work();
        });
    }
}

/// The model links extension of a [`StaticWorld`]: the links set with [`StaticWorld::set_entity`]
/// whose parent is the model, in the order they were first set.
impl ModelLinks for StaticWorld {
    fn links_of(&self, model: EntityId, out: &mut RVec<LinkEntry>) -> bool {
        out.clear();
        if self.entities.get(&model).map(|e| e.kind) != Some(EntityKind::MODEL) {
            return false;
        }
        let mut links: Vec<(&EntityId, &Entity)> = self
            .entities
            .iter()
            .filter(|(_, e)| e.kind == EntityKind::LINK && e.parent == model)
            .collect();
        links.sort_by_key(|(_, e)| e.order);
        out.extend(links.into_iter().map(|(id, e)| LinkEntry {
            name: SharedStr::new(e.name()),
            id: *id,
        }));
        true
    }
}

/// The view [`StaticWorld::with`] hands out: the world plus its extension objects.
struct StaticView<'a> {
    world: &'a StaticWorld,
    scene: SceneRef<'a>,
    threads: SensorThreadsRef<'a>,
    links: ModelLinksRef<'a>,
}

impl WorldView for StaticView<'_> {
    fn sim_time(&self) -> SimTime {
        self.world.sim_time()
    }
    fn step_size(&self) -> SimTime {
        self.world.step_size()
    }
    fn world_name(&self) -> RStr<'_> {
        self.world.world_name()
    }
    fn gravity(&self) -> Vec3 {
        self.world.gravity()
    }
    fn magnetic_field(&self) -> Vec3 {
        self.world.magnetic_field()
    }
    fn spherical_coordinates(&self) -> ROption<SphericalCoordinates> {
        self.world.spherical_coordinates()
    }
    fn entity_by_name(&self, scoped_name: RStr<'_>) -> EntityId {
        self.world.entity_by_name(scoped_name)
    }
    fn entity_info(&self, id: EntityId) -> ROption<EntityInfo<'_>> {
        self.world.entity_info(id)
    }
    fn models(&self, out: &mut RVec<ModelInfo>) {
        self.world.models(out)
    }
    fn models_in_aabb(&self, aabb: Aabb, out: &mut RVec<ModelInfo>) {
        self.world.models_in_aabb(aabb, out)
    }
    fn kinematics(&self, ids: RSlice<'_, EntityId>, out: RSliceMut<'_, KinematicState>) -> u32 {
        self.world.kinematics(ids, out)
    }
    fn joint_states(
        &self,
        ids: RSlice<'_, EntityId>,
        out: RSliceMut<'_, crate::JointState>,
    ) -> u32 {
        self.world.joint_states(ids, out)
    }
    fn joint_wrenches(&self, ids: RSlice<'_, EntityId>, out: RSliceMut<'_, crate::Wrench>) -> u32 {
        self.world.joint_wrenches(ids, out)
    }
    fn contacts(&self, collisions: RSlice<'_, EntityId>, out: &mut RVec<crate::ContactPoint>) {
        self.world.contacts(collisions, out)
    }
    fn surfaces(&self, ids: RSlice<'_, EntityId>, out: RSliceMut<'_, SurfaceInfo>) -> u32 {
        self.world.surfaces(ids, out)
    }
    fn cast_rays(
        &self,
        rays: RSlice<'_, Ray>,
        options: &RayCastOptions,
        hits: RSliceMut<'_, RayHit>,
    ) -> u32 {
        self.world.cast_rays(rays, options, hits)
    }
    fn log(&self, level: LogLevel, message: RStr<'_>) {
        self.world.log(level, message)
    }
    fn extension(&self, name: RStr<'_>) -> ROption<Extension<'_>> {
        match name.as_str() {
            SCENE_EXTENSION => ROption::RSome(Extension::new(&self.scene)),
            MODEL_LINKS_EXTENSION => ROption::RSome(Extension::new(&self.links)),
            crate::SENSOR_THREADS_EXTENSION if self.world.threads > 0 => {
                ROption::RSome(Extension::new(&self.threads))
            }
            _ => ROption::RNone,
        }
    }
}

impl WorldView for StaticWorld {
    fn sim_time(&self) -> SimTime {
        self.time
    }
    fn step_size(&self) -> SimTime {
        self.step
    }
    fn world_name(&self) -> RStr<'_> {
        RStr::from_str("static")
    }
    fn gravity(&self) -> Vec3 {
        self.gravity
    }
    fn magnetic_field(&self) -> Vec3 {
        self.magnetic_field
    }
    fn spherical_coordinates(&self) -> ROption<SphericalCoordinates> {
        self.spherical.into()
    }
    fn entity_by_name(&self, scoped_name: RStr<'_>) -> EntityId {
        // The lowest id of that name, so that a test that set one name twice gets the same
        // answer every time.
        self.entities
            .iter()
            .filter(|(_, e)| e.scoped_name == scoped_name.as_str())
            .map(|(id, _)| *id)
            .min_by_key(|id| id.0)
            .unwrap_or(EntityId::NONE)
    }
    fn entity_info(&self, id: EntityId) -> ROption<EntityInfo<'_>> {
        self.record(|q| q.entity_info += 1);
        self.entities
            .get(&id)
            .map(|e| EntityInfo {
                id,
                kind: e.kind,
                parent: e.parent,
                name: RStr::from_str(e.name()),
                scoped_name: RStr::from_str(&e.scoped_name),
            })
            .into()
    }
    fn models(&self, out: &mut RVec<ModelInfo>) {
        self.record(|q| q.models += 1);
        out.clear();
        out.extend(self.models.iter().copied());
    }
    fn models_in_aabb(&self, aabb: Aabb, out: &mut RVec<ModelInfo>) {
        self.record(|q| q.models_in_aabb.push(aabb));
        out.clear();
        out.extend(
            self.models
                .iter()
                .filter(|m| {
                    self.always_in_aabb.contains(&m.id)
                        || (m.has_collision && overlaps(&m.aabb, &aabb))
                })
                .copied(),
        );
    }
    fn kinematics(&self, ids: RSlice<'_, EntityId>, mut out: RSliceMut<'_, KinematicState>) -> u32 {
        let mut known = 0;
        for (id, o) in ids.iter().zip(out.iter_mut()) {
            match self.states.get(id) {
                Some(s) => {
                    *o = *s;
                    known += 1;
                }
                None => {
                    *o = KinematicState {
                        pose: Pose::IDENTITY,
                        ..Default::default()
                    }
                }
            }
        }
        known
    }
    fn joint_states(
        &self,
        _ids: RSlice<'_, EntityId>,
        _out: RSliceMut<'_, crate::JointState>,
    ) -> u32 {
        0
    }
    fn surfaces(&self, ids: RSlice<'_, EntityId>, mut out: RSliceMut<'_, SurfaceInfo>) -> u32 {
        self.record(|q| q.surfaces.push(ids.to_vec()));
        let mut known = 0;
        for (id, o) in ids.iter().zip(out.iter_mut()) {
            *o = match self.surfaces.get(id) {
                Some(s) => {
                    known += 1;
                    *s
                }
                None => SurfaceInfo::default(),
            };
        }
        known
    }
    fn joint_wrenches(
        &self,
        _ids: RSlice<'_, EntityId>,
        _out: RSliceMut<'_, crate::Wrench>,
    ) -> u32 {
        0
    }
    fn contacts(&self, _collisions: RSlice<'_, EntityId>, out: &mut RVec<crate::ContactPoint>) {
        out.clear();
    }
    fn cast_rays(
        &self,
        rays: RSlice<'_, Ray>,
        options: &RayCastOptions,
        mut hits: RSliceMut<'_, RayHit>,
    ) -> u32 {
        let mut n = 0;
        for (i, h) in hits.iter_mut().enumerate() {
            *h = match (&self.caster, rays.get(i)) {
                (Some(c), Some(r)) => c(r, options),
                _ => RayHit::MISS,
            };
            if h.distance.is_finite() {
                n += 1;
            }
        }
        n
    }
    fn log(&self, level: LogLevel, message: RStr<'_>) {
        self.logs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((level, message.to_string()));
    }
    fn extension(&self, _name: RStr<'_>) -> ROption<Extension<'_>> {
        ROption::RNone
    }
}

/// Whether two boxes overlap (touching counts).
fn overlaps(a: &Aabb, b: &Aabb) -> bool {
    a.min.x <= b.max.x
        && a.max.x >= b.min.x
        && a.min.y <= b.max.y
        && a.max.y >= b.min.y
        && a.min.z <= b.max.z
        && a.max.z >= b.min.z
}

/// The place of a configuration built by a test: unknown (see
/// [`SensorConfig::with_source`] to give one).
const NOWHERE: SourceLocation<'static> = SourceLocation {
    file: RStr::from_str(""),
    line: 0,
    column: 0,
};

/// A sensor configuration for tests: the given scoped name, type, link and SDF text, every
/// other field at a neutral default.
pub fn sensor_config<'a>(
    scoped_name: &'a str,
    sensor_type: &'a str,
    link: EntityId,
    sdf: &'a str,
) -> SensorConfig<'a> {
    let name = scoped_name.rsplit("::").next().unwrap_or(scoped_name);
    SensorConfig {
        name: name.into(),
        scoped_name: scoped_name.into(),
        sensor_type: sensor_type.into(),
        topic: RStr::from_str("/test"),
        frame_id: scoped_name.into(),
        world_name: RStr::from_str("static"),
        sensor: EntityId::NONE,
        link,
        model: EntityId::NONE,
        pose: Pose::IDENTITY,
        update_rate: 0.0,
        seed: 0,
        sdf: sdf.into(),
        source: NOWHERE,
    }
}

/// A system configuration for tests: the given plugin name, the entity it is attached to
/// (with its scoped name) and the `<plugin>` element's text, every other field at a neutral
/// default.
pub fn system_config<'a>(
    name: &'a str,
    entity: EntityId,
    entity_name: &'a str,
    sdf: &'a str,
) -> SystemConfig<'a> {
    SystemConfig {
        name: name.into(),
        filename: name.into(),
        entity,
        entity_name: entity_name.into(),
        world_name: RStr::from_str("static"),
        seed: 0,
        sdf: sdf.into(),
        source: NOWHERE,
    }
}

/// The context of a first update at the world's time (no time since a previous one).
pub fn update_context(world: &WorldRef<'_>) -> UpdateContext {
    UpdateContext {
        now: world.sim_time(),
        dt: SimTime::ZERO,
        step: world.step_size(),
        update_count: 0,
        forced: false,
    }
}

/// Runs one update of `sensor` at the world's time (see [`update_context`]) and returns what
/// it published, or the error it returned.
pub fn try_update<S: Sensor>(
    sensor: &mut S,
    world: &WorldRef<'_>,
) -> Result<Vec<Message>, PluginError> {
    let ctx = update_context(world);
    let mut out = RVec::new();
    sensor.update(&ctx, world, &mut Outputs::new(&mut out))?;
    Ok(out.into_iter().collect())
}

/// Runs one update of `sensor` at the world's time and returns what it published; panics
/// when the update fails.
pub fn run_update<S: Sensor>(sensor: &mut S, world: &WorldRef<'_>) -> Vec<Message> {
    try_update(sensor, world).unwrap_or_else(|e| panic!("sensor update failed: {e}"))
}
