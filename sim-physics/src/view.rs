//! What plugins see: the [`WorldView`] of a [`Physics`], and its extensions (scene,
//! visibility rays, model links, raster).

use super::convert::*;
use super::entities::EntityData;
use super::query::unpack_model;
use super::workers::Workers;
use super::{GROUP_COLLISION, GROUP_QUERY, Physics};
use rapier3d::prelude::*;
use sim_plugin_api::{
    ALL_VISIBLE, Aabb, EntityId, EntityInfo, EntityKind, Extension, JointState, KinematicState,
    LinkEntry, LogLevel, MECHANICS_EXTENSION, MODEL_LINKS_EXTENSION, MODEL_PLUGINS_EXTENSION,
    Mechanics_TO, MechanicsRef, ModelInfo, ModelLinks, ModelLinks_TO, ModelLinksRef, NO_LABEL,
    RASTER_EXTENSION, Raster_TO, RasterRef, Ray as ApiRay, RayCastOptions, RayHit, SCAN_EXTENSION,
    SCENE_EXTENSION, SENSOR_THREADS_EXTENSION, Scan_TO, ScanRef, SceneInfo, SceneRef, SceneView,
    SceneView_TO, SensorThreads_TO, SensorThreadsRef, SharedStr, SimTime, SphericalCoordinates,
    SurfaceInfo, VISIBILITY_RAYS_EXTENSION, VISUAL_BOXES_EXTENSION, VISUAL_TEMPERATURES_EXTENSION,
    Vec3, VisibilityRays, VisibilityRays_TO, VisibilityRaysRef, VisualBox, VisualBoxes,
    VisualBoxes_TO, VisualBoxesRef, VisualTemperatures_TO, VisualTemperaturesRef, WorldView,
    abi_stable::{
        RRef,
        sabi_trait::TD_Opaque,
        std_types::{ROption, RSlice, RSliceMut, RStr, RVec},
    },
};

/// Default diffuse colour of surfaces without a material.
pub const DEFAULT_DIFFUSE: [f32; 4] = [0.7, 0.7, 0.7, 1.0];

impl Physics {
    /// The read-only view plugins see, attributing log records to `caller`.
    pub fn view<'a>(&'a self, caller: &'a str) -> PhysicsView<'a> {
        self.view_for(Caller::Str(caller))
    }

    /// [`Physics::view`] for a caller named by a shared string (read only when it logs).
    pub fn view_shared<'a>(&'a self, caller: &'a sim_plugin_api::SharedStr) -> PhysicsView<'a> {
        self.view_for(Caller::Shared(caller))
    }

    /// The view for `caller`, casting on the calling thread alone.
    fn view_for<'a>(&'a self, caller: Caller<'a>) -> PhysicsView<'a> {
        PhysicsView {
            physics: self,
            caller,
            workers: &super::workers::NO_POOL,
            threads: std::mem::ManuallyDrop::new(SensorThreads_TO::from_ptr(
                RRef::new(&super::workers::NO_POOL),
                TD_Opaque,
            )),
            scene: std::mem::ManuallyDrop::new(SceneView_TO::from_ptr(RRef::new(self), TD_Opaque)),
            visibility: std::mem::ManuallyDrop::new(VisibilityRays_TO::from_ptr(
                RRef::new(self),
                TD_Opaque,
            )),
            links: std::mem::ManuallyDrop::new(ModelLinks_TO::from_ptr(RRef::new(self), TD_Opaque)),
            boxes: std::mem::ManuallyDrop::new(VisualBoxes_TO::from_ptr(
                RRef::new(self),
                TD_Opaque,
            )),
            mechanics: std::mem::ManuallyDrop::new(Mechanics_TO::from_ptr(
                RRef::new(self),
                TD_Opaque,
            )),
            temperatures: std::mem::ManuallyDrop::new(VisualTemperatures_TO::from_ptr(
                RRef::new(self),
                TD_Opaque,
            )),
            raster: std::mem::ManuallyDrop::new(Raster_TO::from_ptr(RRef::new(self), TD_Opaque)),
            scan: std::mem::ManuallyDrop::new(Scan_TO::from_ptr(RRef::new(self), TD_Opaque)),
            extra: [None; 2],
        }
    }

    /// [`Physics::view_shared`] for a plugin that shares its work with `workers`: a large
    /// ray batch, and the chunks of the sensor threads extension, run on them.
    pub fn view_on<'a>(
        &'a self,
        caller: &'a sim_plugin_api::SharedStr,
        workers: &'a Workers<'a>,
    ) -> PhysicsView<'a> {
        PhysicsView {
            workers,
            threads: std::mem::ManuallyDrop::new(SensorThreads_TO::from_ptr(
                RRef::new(workers),
                TD_Opaque,
            )),
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
                aabb_grow(&mut acc, collider_aabb(c));
            }
        }
        acc
    }

    /// The contact points of the last step involving a collision entity (see
    /// [`WorldView::contacts`]).
    pub fn contacts_of(&self, id: EntityId, out: &mut RVec<sim_plugin_api::ContactPoint>) {
        let Some(EntityData::Collision { collider, .. }) = self.entities.get(id).map(|e| &e.data)
        else {
            return;
        };
        let dt = self.clock.step.as_secs_f64();
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
}

/// Grows `acc` (nothing yet: `None`) to hold `b` too.
pub fn aabb_grow(acc: &mut Option<Aabb>, b: Aabb) {
    *acc = Some(match *acc {
        None => b,
        Some(a) => Aabb {
            min: Vec3::new(
                a.min.x.min(b.min.x),
                a.min.y.min(b.min.y),
                a.min.z.min(b.min.z),
            ),
            max: Vec3::new(
                a.max.x.max(b.max.x),
                a.max.y.max(b.max.y),
                a.max.z.max(b.max.z),
            ),
        },
    });
}

/// The world AABB of a collider. rapier bounds a half-space (an SDF plane) by a huge box in
/// every direction; an axis-aligned plane's half-space is bounded exactly instead (infinite
/// along the plane, ending at it), so that box queries find a ground plane only where they
/// reach it. A tilted plane stays unbounded.
pub(super) fn collider_aabb(c: &Collider) -> Aabb {
    if let Some(h) = super::plane::half_space_of(c.shape()) {
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

/// The [`WorldView`] of a [`Physics`] for one plugin.
pub struct PhysicsView<'a> {
    physics: &'a Physics,
    caller: Caller<'a>,
    /// The threads a large ray batch and the plugin's chunks run on (see
    /// [`Physics::view_on`]).
    workers: &'a Workers<'a>,
    /// The `simcore.sensor_threads.v1` extension object, of `workers`.
    threads: std::mem::ManuallyDrop<SensorThreadsRef<'a>>,
    /// The `simcore.scene.v1` extension object handed out by [`WorldView::extension`]. It
    /// only borrows the physics (an `RRef`), so it owns nothing to drop; `ManuallyDrop` keeps
    /// the view free of drop glue, so that it stops borrowing its caller's name at last use.
    scene: std::mem::ManuallyDrop<SceneRef<'a>>,
    /// The `simcore.visibility_rays.v1` extension object, borrowing the physics as `scene`
    /// does.
    visibility: std::mem::ManuallyDrop<VisibilityRaysRef<'a>>,
    /// The `simcore.model_links.v1` extension object, borrowing the physics as `scene` does.
    links: std::mem::ManuallyDrop<ModelLinksRef<'a>>,
    /// The `simcore.visual_boxes.v1` extension object, borrowing the physics as `scene` does.
    boxes: std::mem::ManuallyDrop<VisualBoxesRef<'a>>,
    /// The `simcore.mechanics.v1` extension object, borrowing the physics as `scene` does.
    mechanics: std::mem::ManuallyDrop<MechanicsRef<'a>>,
    /// The `simcore.visual_temperatures.v1` extension object, borrowing the physics as
    /// `scene` does.
    temperatures: std::mem::ManuallyDrop<VisualTemperaturesRef<'a>>,
    /// The `simcore.raster.v1` extension object, borrowing the physics as `scene` does.
    raster: std::mem::ManuallyDrop<RasterRef<'a>>,
    /// The `simcore.scan.v1` extension object, borrowing the physics as `scene` does.
    scan: std::mem::ManuallyDrop<ScanRef<'a>>,
    /// Up to two more extensions, of the caller's (see [`PhysicsView::with_extension`]).
    extra: [Option<(&'a str, Extension<'a>)>; 2],
}

impl<'a> PhysicsView<'a> {
    /// This view, also handing out `extension` under `name`: an object of the caller's
    /// that only this call of the plugin gets (a factory's input and output types). A view
    /// holds two such extensions; a third replaces the second.
    pub fn with_extension(mut self, name: &'a str, extension: Extension<'a>) -> Self {
        let free = self.extra.iter().position(Option::is_none).unwrap_or(1);
        self.extra[free] = Some((name, extension));
        self
    }
}

/// The links extension ([`MODEL_LINKS_EXTENSION`]): a model's own links, in declaration
/// order.
impl ModelLinks for Physics {
    fn links_of(&self, model: EntityId, out: &mut RVec<LinkEntry>) -> bool {
        out.clear();
        let Some(EntityData::Model { links, .. }) = self.entities.get(model).map(|e| &e.data)
        else {
            return false;
        };
        for &id in links {
            if let Some(l) = self.entities.get(id) {
                out.push(LinkEntry {
                    name: SharedStr::new(&l.name),
                    id,
                });
            }
        }
        true
    }
}

/// The visual boxes extension ([`VISUAL_BOXES_EXTENSION`]): every bounded visual's local box
/// and world pose, in creation order.
impl VisualBoxes for Physics {
    fn visual_boxes(&self, out: &mut RVec<VisualBox>) {
        out.clear();
        out.extend(self.visuals().filter_map(|v| self.visual_box(v.id)));
    }
}

/// The visibility extension ([`VISIBILITY_RAYS_EXTENSION`]): casts that see only the visuals
/// a mask selects. They run on the calling thread, or across the pool when called on one of
/// its workers (the view's idle pool is not borrowed by this object).
impl VisibilityRays for Physics {
    fn cast_rays_masked(
        &self,
        rays: RSlice<'_, ApiRay>,
        options: &RayCastOptions,
        mask: u32,
        mut hits: RSliceMut<'_, RayHit>,
    ) -> u32 {
        self.cast(
            rays.as_slice(),
            options,
            mask,
            hits.as_mut_slice(),
            &super::workers::NO_POOL,
        )
    }
}

/// The scene extension ([`SCENE_EXTENSION`]): the world's scene, lights and visual labels.
impl SceneView for Physics {
    fn scene(&self) -> SceneInfo {
        self.environment.scene
    }
    fn lights(&self, out: &mut RVec<sim_plugin_api::Light>) {
        out.clear();
        out.extend(self.environment.lights.iter().cloned());
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

/// The ray target flags this engine honours (see `sim_plugin_api::RAY_FLAGS_EXTENSION`).
static RAY_FLAGS: u32 = sim_plugin_api::RayTarget::NO_NORMALS;

impl WorldView for PhysicsView<'_> {
    fn sim_time(&self) -> SimTime {
        self.physics.clock.time
    }
    fn step_size(&self) -> SimTime {
        self.physics.clock.step
    }
    fn world_name(&self) -> RStr<'_> {
        RStr::from_str(&self.physics.environment.name)
    }
    fn gravity(&self) -> Vec3 {
        self.physics.environment.gravity
    }
    fn magnetic_field(&self) -> Vec3 {
        self.physics.environment.magnetic_field
    }
    fn spherical_coordinates(&self) -> ROption<SphericalCoordinates> {
        self.physics.environment.spherical.into()
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
        self.physics.cast(
            rays.as_slice(),
            options,
            ALL_VISIBLE,
            hits.as_mut_slice(),
            self.workers,
        )
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
        if let Some((_, e)) = self
            .extra
            .iter()
            .flatten()
            .find(|(extra, _)| *extra == name.as_str())
        {
            return ROption::RSome(*e);
        }
        match name.as_str() {
            MODEL_PLUGINS_EXTENSION => ROption::RSome(Extension::new(&self.physics.model_plugins)),
            SCENE_EXTENSION => ROption::RSome(Extension::new(&*self.scene)),
            sim_plugin_api::RAY_FLAGS_EXTENSION => ROption::RSome(Extension::new(&RAY_FLAGS)),
            VISIBILITY_RAYS_EXTENSION => ROption::RSome(Extension::new(&*self.visibility)),
            MODEL_LINKS_EXTENSION => ROption::RSome(Extension::new(&*self.links)),
            VISUAL_BOXES_EXTENSION => ROption::RSome(Extension::new(&*self.boxes)),
            MECHANICS_EXTENSION => ROption::RSome(Extension::new(&*self.mechanics)),
            VISUAL_TEMPERATURES_EXTENSION => ROption::RSome(Extension::new(&*self.temperatures)),
            SENSOR_THREADS_EXTENSION => ROption::RSome(Extension::new(&*self.threads)),
            RASTER_EXTENSION => ROption::RSome(Extension::new(&*self.raster)),
            SCAN_EXTENSION => ROption::RSome(Extension::new(&*self.scan)),
            _ => ROption::RNone,
        }
    }
}
