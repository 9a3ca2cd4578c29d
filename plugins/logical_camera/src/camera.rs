//! The logical camera sensor: which models it sees and where they are.
//!
//! Per update, from the state sampled at the start of the iteration:
//!
//! 1. camera pose `T_wc = T_wl · T_ls` (the link's world pose and the sensor's pose in it);
//! 2. the frustum placed at `T_wc` ([`PosedFrustum`]) and its world bounding box;
//! 3. candidates: [`WorldView::models_in_aabb`]
//!    with that box (the engine's broad phase), into a buffer kept across updates;
//! 4. each candidate is judged on its own collision box (nested models have their own, which
//!    does not include their nested models): it is seen when it has collision geometry, is not
//!    the camera's own model, and its box intersects the frustum
//!    ([`PosedFrustum::intersects_aabb`]);
//! 5. the poses of the models seen, in one batched kinematics call, are reported relative to
//!    the camera (`T_wc⁻¹ · T_wm`) under their scoped names, cached per model id.

use crate::config::{LogicalCameraConfig, Parameter};
use crate::frustum::{Frustum, PosedFrustum};
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{
    ModelInfo,
    abi_stable::std_types::{RBox, RSlice, RSliceMut, RVec},
    msgs::{LogicalCameraFrustum, LogicalCameraImage, NamedPose},
    prelude::*,
};
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::SensorMount;
use std::collections::HashMap;

/// The relative topic of the frustum message (`<topic>/frustum`).
pub const FRUSTUM_TOPIC: &str = "frustum";

/// A logical camera (SDF `<sensor type="logical_camera">`).
#[derive(Debug)]
pub struct LogicalCameraSensor {
    mount: SensorMount,
    model: EntityId,
    config: LogicalCameraConfig,
    frustum: Frustum,
    frustum_topic: SharedStr,
    /// Broad-phase candidates, reused across updates.
    candidates: RVec<ModelInfo>,
    /// Models seen in this update, then their states (reused across updates).
    seen: Vec<EntityId>,
    states: Vec<KinematicState>,
    /// Scoped name per model id (ids are never reused by the engine).
    names: HashMap<EntityId, SharedStr>,
}

impl SdfSensor for LogicalCameraSensor {
    /// Reads `<logical_camera>`.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        _world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let camera = LogicalCameraConfig::read(sdf)?;
        Ok(LogicalCameraSensor::new(
            &camera,
            SensorMount::of(config),
            config.model,
        ))
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![
            (String::new(), "LogicalCameraImage"),
            (FRUSTUM_TOPIC.to_string(), "LogicalCameraSensor"),
        ]
    }
}

impl LogicalCameraSensor {
    /// Builds the sensor from a validated configuration: `mount` is where it sits on its link,
    /// `model` the model it belongs to (never reported).
    pub fn new(config: &LogicalCameraConfig, mount: SensorMount, model: EntityId) -> Self {
        LogicalCameraSensor {
            mount,
            model,
            config: *config,
            frustum: Frustum::new(config),
            frustum_topic: SharedStr::from(FRUSTUM_TOPIC),
            candidates: RVec::new(),
            seen: Vec::new(),
            states: Vec::new(),
            names: HashMap::new(),
        }
    }

    /// The frustum's configuration.
    pub fn config(&self) -> &LogicalCameraConfig {
        &self.config
    }

    /// The frustum's shape in the camera frame.
    pub fn frustum(&self) -> &Frustum {
        &self.frustum
    }

    /// The camera's world pose: its link's world pose composed with its pose in the link.
    pub fn camera_pose(&self, world: &WorldRef<'_>) -> Result<Pose, PluginError> {
        self.mount.pose(world)
    }

    /// What the camera sees now: the camera pose and the models seen, found through the
    /// engine's broad phase.
    pub fn image(&mut self, world: &WorldRef<'_>) -> Result<LogicalCameraImage, PluginError> {
        let pose = self.camera_pose(world)?;
        let posed = self.frustum.posed(pose);
        let mut candidates = std::mem::take(&mut self.candidates);
        world.models_in_aabb(posed.bounding_box(), &mut candidates);
        let image = self.observe(world, pose, &posed, &candidates);
        self.candidates = candidates;
        Ok(image)
    }

    /// Judges `candidates` (any list of models, e.g. the whole world) against the frustum
    /// posed at `camera_pose`, and reports the models seen, in candidate order, with their
    /// poses relative to the camera. Candidates the engine no longer knows are skipped.
    pub fn observe(
        &mut self,
        world: &WorldRef<'_>,
        camera_pose: Pose,
        posed: &PosedFrustum,
        candidates: &[ModelInfo],
    ) -> LogicalCameraImage {
        self.seen.clear();
        self.seen.extend(
            candidates
                .iter()
                .filter(|m| m.has_collision && m.id != self.model)
                .filter(|m| posed.intersects_aabb(&m.aabb))
                .map(|m| m.id),
        );
        self.states
            .resize(self.seen.len(), KinematicState::default());
        world.kinematics(
            RSlice::from_slice(&self.seen),
            RSliceMut::from_mut_slice(&mut self.states),
        );
        let to_camera = camera_pose.inverse();
        let mut models = RVec::with_capacity(self.seen.len());
        for (id, state) in self.seen.iter().zip(&self.states) {
            let name = match self.names.get(id) {
                Some(n) => n.clone(),
                None => match world.entity_info(*id).into_option() {
                    Some(info) => self
                        .names
                        .entry(*id)
                        .or_insert_with(|| SharedStr::new(info.scoped_name.as_str()))
                        .clone(),
                    None => continue,
                },
            };
            models.push(NamedPose {
                name,
                pose: to_camera.compose(state.pose),
            });
        }
        LogicalCameraImage {
            pose: camera_pose,
            models,
        }
    }

    /// The frustum message (`LogicalCameraSensor` in gz-msgs).
    pub fn frustum_message(&self) -> LogicalCameraFrustum {
        LogicalCameraFrustum {
            near_clip: self.config.near,
            far_clip: self.config.far,
            horizontal_fov: self.config.horizontal_fov,
            aspect_ratio: self.config.aspect_ratio,
        }
    }
}

impl Sensor for LogicalCameraSensor {
    /// Publishes the image on the sensor's topic and the frustum on `<topic>/frustum`.
    fn update(
        &mut self,
        _ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let image = self.image(world)?;
        out.publish("", Payload::LogicalCameraImage(RBox::new(image)));
        out.publish(
            &self.frustum_topic,
            Payload::LogicalCameraFrustum(RBox::new(self.frustum_message())),
        );
        Ok(())
    }

    /// Run-time parameters `near`, `far`, `horizontal_fov` and `aspect_ratio` (a number, as
    /// in SDF). The frustum as a whole must stay valid; an invalid value changes nothing.
    fn set_parameter(
        &mut self,
        key: &str,
        value: &str,
        _world: &WorldRef<'_>,
    ) -> Result<(), PluginError> {
        let Some(p) = Parameter::from_name(key) else {
            return Err(PluginError::unsupported(format!(
                "{}: no run-time parameter `{key}` (near, far, horizontal_fov, aspect_ratio)",
                self.mount.scoped_name
            )));
        };
        self.config = self
            .config
            .set(p, value, &self.mount.scoped_name)
            .map_err(|e| PluginError::new(ErrorCode::BAD_REQUEST, e.message))?;
        self.frustum = Frustum::new(&self.config);
        Ok(())
    }
}
