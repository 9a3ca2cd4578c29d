//! The pan-tilt-zoom system.

use crate::config::{Pid, PtzConfig};
use sim_plugin_api::{
    abi_stable::std_types::{RSlice, RSliceMut, RStr},
    prelude::*,
};
use simcore_plugin_common::gz::find_named;
use simcore_plugin_common::{Throttle, period_ns, plugin_document};

/// A pan-tilt-zoom head attached to a model (see the crate documentation).
pub struct PanTiltZoom {
    config: PtzConfig,
    /// Pan joint, tilt joint.
    joints: [EntityId; 2],
    camera: Option<EntityId>,
    pids: [Pid; 2],
    states: [JointState; 2],
    /// Commanded angles after clamping (set from the joints' angles at the first step).
    targets: Option<[f64; 2]>,
    /// The field of view last sent to the camera (or commanded, without a camera).
    zoom: Option<f64>,
    /// A zoom still to be sent.
    zoom_pending: bool,
    publish: Throttle,
    state_topic: SharedStr,
}

impl PanTiltZoom {
    /// Creates the system from its `<plugin>` element; it must be attached to a model with
    /// the named joints (and camera sensor).
    pub fn create(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let model = simcore_plugin_common::attached_model(config, world, "PanTiltZoom")?;
        let who = format!("{model}: PanTiltZoom");
        let doc = plugin_document(config, &who)?;
        let parsed = PtzConfig::read(&doc.root())?;
        let find = |name: &str, kind, tag: &str| find_named(world, model, name, kind, tag, &who);
        let pan = find(&parsed.pan_joint, EntityKind::JOINT, "pan_joint")?;
        let tilt = find(&parsed.tilt_joint, EntityKind::JOINT, "tilt_joint")?;
        let camera = parsed
            .camera
            .as_deref()
            .map(|c| find(c, EntityKind::SENSOR, "camera"))
            .transpose()?;
        let system = PanTiltZoom::new(parsed, [pan, tilt], camera);
        sim_plugin_api::declare_outputs(world, &[(system.state_topic.as_str(), "Vector3d")]);
        simcore_plugin_common::declare_inputs(world, &system, &["Vector3d"]);
        Ok(system)
    }

    /// Builds the system from a parsed configuration, the pan and tilt joints and the camera.
    pub fn new(config: PtzConfig, joints: [EntityId; 2], camera: Option<EntityId>) -> Self {
        PanTiltZoom {
            pids: [config.pid(), config.pid()],
            joints,
            camera,
            states: [JointState::default(); 2],
            targets: None,
            zoom: config.initial_zoom,
            zoom_pending: config.initial_zoom.is_some(),
            publish: Throttle::default(),
            state_topic: SharedStr::new("ptz/state"),
            config,
        }
    }

    /// The commanded (clamped) pan and tilt angles, once known.
    pub fn targets(&self) -> Option<[f64; 2]> {
        self.targets
    }

    fn read(&mut self, world: &WorldRef<'_>) -> Result<(), PluginError> {
        let known = world.joint_states(
            RSlice::from_slice(&self.joints),
            RSliceMut::from_mut_slice(&mut self.states),
        );
        if known != 2 {
            return Err(PluginError::runtime(
                "PanTiltZoom: the pan or tilt joint is gone",
            ));
        }
        Ok(())
    }

    fn limits(&self) -> [(f64, f64); 2] {
        [self.config.pan_limits, self.config.tilt_limits]
    }
}

impl System for PanTiltZoom {
    fn subscriptions(&self) -> Vec<String> {
        vec!["ptz/cmd".into()]
    }

    fn pre_step(
        &mut self,
        ctx: &StepContext,
        inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        self.read(world)?;
        let limits = self.limits();
        let mut targets = self.targets.unwrap_or_else(|| {
            [
                self.states[0].position[0].clamp(limits[0].0, limits[0].1),
                self.states[1].position[0].clamp(limits[1].0, limits[1].1),
            ]
        });
        for m in inbox {
            if let Ok(Payload::Vector3(v)) = m.payload.as_enum() {
                if v.x.is_finite() && v.y.is_finite() {
                    targets = [
                        v.x.clamp(limits[0].0, limits[0].1),
                        v.y.clamp(limits[1].0, limits[1].1),
                    ];
                }
                if v.z.is_finite() && v.z > 0.0 {
                    let (lo, hi) = self.config.zoom_limits;
                    let z = v.z.clamp(lo, hi);
                    if self.zoom != Some(z) {
                        self.zoom = Some(z);
                        self.zoom_pending = true;
                    }
                }
            }
        }
        self.targets = Some(targets);
        let dt = ctx.step.as_secs_f64();
        for (((pid, joint), state), target) in self
            .pids
            .iter_mut()
            .zip(self.joints)
            .zip(&self.states)
            .zip(targets)
        {
            let velocity = pid.update(target - state.position[0], dt);
            commands.joint_command(&JointCommand {
                joint,
                axis: 0,
                mode: JointCommandMode::VELOCITY,
                target: velocity,
                max_force: self.config.max_torque,
                stiffness: 0.0,
                damping: 0.0,
            });
        }
        if std::mem::take(&mut self.zoom_pending)
            && let (Some(camera), Some(z)) = (self.camera, self.zoom)
        {
            let value = format!("{z}");
            commands.set_sensor_parameter(
                camera,
                RStr::from_str("horizontal_fov"),
                RStr::from_str(&value),
            );
        }
        Ok(())
    }

    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        if !self
            .publish
            .due(period_ns(self.config.publish_frequency), ctx)
        {
            return Ok(());
        }
        self.read(world)?;
        out.publish(
            self.state_topic.clone(),
            Payload::Vector3(Vec3::new(
                self.states[0].position[0],
                self.states[1].position[0],
                self.zoom.unwrap_or(0.0),
            )),
        );
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.targets = None;
        for p in &mut self.pids {
            p.reset();
        }
        self.zoom = self.config.initial_zoom;
        self.zoom_pending = self.zoom.is_some();
        self.publish.reset();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::SystemSetup;

    #[test]
    fn errors_name_the_file_and_line() {
        let setup = SystemSetup::on_model("simcore::PanTiltZoom", "cam")
            .at_line(50)
            .with(2, EntityKind::JOINT, "p")
            .with(3, EntityKind::JOINT, "t");
        let create = |body: &str| {
            let sdf = format!(
                "<plugin name=\"simcore::PanTiltZoom\" filename=\"f\">\n\
                 <pan_joint>p</pan_joint>\n<tilt_joint>t</tilt_joint>\n{body}</plugin>"
            );
            let config = setup.config(&sdf);
            setup
                .world
                .with(|w| PanTiltZoom::create(&config, &w).map(|_| ()))
        };
        assert_eq!(
            create("<max_torque>0</max_torque>\n")
                .unwrap_err()
                .message
                .as_str(),
            "cam: PanTiltZoom: <max_torque> must be positive, found \"0\" at world.sdf:53"
        );
        assert!(create("").is_ok());
    }
}
