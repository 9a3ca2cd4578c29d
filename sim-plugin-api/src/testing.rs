//! Helpers for testing a plugin without the engine: a fixed [`StaticWorld`] and functions to
//! build a configuration and run one update.

use crate::{
    EntityId, EntityInfo, Extension, KinematicState, LogLevel, Message, ModelInfo, Outputs, Pose,
    RayCastOptions, RayHit, Sensor, SensorConfig, SimTime, SourceLocation, SphericalCoordinates,
    SurfaceInfo, UpdateContext, Vec3, WorldRef, WorldView, WorldView_TO,
};
use abi_stable::{
    RRef,
    sabi_trait::TD_Opaque,
    std_types::{ROption, RSlice, RSliceMut, RStr, RVec},
};
use std::collections::HashMap;
use std::sync::Mutex;

/// A world that does not move: fixed time, gravity and entity states; every ray misses.
#[derive(Debug)]
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
        }
    }
}

impl StaticWorld {
    /// Sets the state reported for `id`.
    pub fn set_kinematics(&mut self, id: EntityId, state: KinematicState) {
        self.states.insert(id, state);
    }
    /// Runs `f` with this world as a plugin sees it.
    pub fn with<R>(&self, f: impl FnOnce(WorldRef<'_>) -> R) -> R {
        f(WorldView_TO::from_ptr(RRef::new(self), TD_Opaque))
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
    fn entity_by_name(&self, _scoped_name: RStr<'_>) -> EntityId {
        EntityId::NONE
    }
    fn entity_info(&self, _id: EntityId) -> ROption<EntityInfo<'_>> {
        ROption::RNone
    }
    fn models(&self, out: &mut RVec<ModelInfo>) {
        out.clear();
    }
    fn models_in_aabb(&self, _aabb: crate::Aabb, out: &mut RVec<ModelInfo>) {
        out.clear();
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
    fn surfaces(&self, _ids: RSlice<'_, EntityId>, _out: RSliceMut<'_, SurfaceInfo>) -> u32 {
        0
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
        _rays: RSlice<'_, crate::Ray>,
        _options: &RayCastOptions,
        mut hits: RSliceMut<'_, RayHit>,
    ) -> u32 {
        hits.iter_mut().for_each(|h| *h = RayHit::MISS);
        0
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
        source: SourceLocation {
            file: RStr::from_str(""),
            line: 0,
            column: 0,
        },
    }
}

/// Runs one update of `sensor` at the world's time and returns what it published.
pub fn run_update<S: Sensor>(sensor: &mut S, world: &WorldRef<'_>) -> Vec<Message> {
    let ctx = UpdateContext {
        now: world.sim_time(),
        dt: SimTime::ZERO,
        step: world.step_size(),
        update_count: 0,
        forced: false,
    };
    let mut out = RVec::new();
    sensor
        .update(&ctx, world, &mut Outputs::new(&mut out))
        .unwrap_or_else(|e| panic!("sensor update failed: {e}"));
    out.into_iter().collect()
}
