//! The diff drive system: commands in, wheel commands and odometry out.

use crate::config::DiffDriveConfig;
use crate::kinematics::{StallDetector, WheelOdometry, WheelTracker, wheel_speeds};
use sim_plugin_api::{
    abi_stable::std_types::{RSlice, RSliceMut},
    prelude::*,
};
use simcore_plugin_common::gz::{GzSystem, OdometryOutput, mean_twist};
use simcore_plugin_common::{
    NotFound, Throttle, accepted_twist, attached_model, find_in_model, period_ns, plugin_document,
};

/// A differential drive attached to a model (see the crate documentation).
pub struct DiffDrive {
    config: DiffDriveConfig,
    /// Left joints, then right joints.
    joints: Vec<EntityId>,
    left_count: usize,
    /// Last received command (linear x, angular z).
    target: (f64, f64),
    /// Whether the motors have power (see `power_topic`).
    powered: bool,
    /// Command applied in the last step, after limits.
    applied: (f64, f64),
    /// Wheel speed targets of the last step, per joint.
    wheel_targets: Vec<f64>,
    states: Vec<JointState>,
    /// Whether `states` has been read (after the first step).
    states_read: bool,
    trackers: Vec<WheelTracker>,
    odometry: WheelOdometry,
    stall: StallDetector,
    /// Travel and turn since the last odometry message, and the time it covers.
    window: (f64, f64, f64),
    odom_publish: Throttle,
    odom_output: OdometryOutput,
    stall_topic: SharedStr,
}

/// Finds the joint `name` of `model`: scoped below the model first, then as written.
fn resolve_joint(world: &WorldRef<'_>, model: &str, name: &str) -> Result<EntityId, PluginError> {
    find_in_model(world, model, name, EntityKind::JOINT).map_err(|e| match e {
        NotFound::WrongKind { candidate, kind } => PluginError::config(format!(
            "{model}: DiffDrive: `{candidate}` is a {}, not a joint",
            kind.name()
        )),
        NotFound::Missing => PluginError::config(format!(
            "{model}: DiffDrive: no joint `{name}` in the model"
        )),
    })
}

impl GzSystem for DiffDrive {
    /// Creates the system from its `<plugin>` element; it must be attached to a model whose
    /// wheel joints exist.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let model = attached_model(config, world, "DiffDrive")?;
        let who = format!("{model}: DiffDrive");
        let doc = plugin_document(config, &who)?;
        let parsed = DiffDriveConfig::read(&doc.root(), model)?;
        let mut joints = Vec::new();
        for name in parsed.left_joints.iter().chain(&parsed.right_joints) {
            joints.push(resolve_joint(world, model, name)?);
        }
        let system = DiffDrive::new(parsed, joints);
        simcore_plugin_common::declare_inputs(world, &system, &["Twist", "Boolean"]);
        Ok(system)
    }

    /// The odometry (`Odometry`), its transform (`Pose_V`) and the stall flag (`Boolean`).
    fn outputs(&self) -> Vec<(String, &'static str)> {
        let mut outputs = self.odom_output.outputs();
        outputs.push((self.config.stall_topic.clone(), "Boolean"));
        outputs
    }
}

impl DiffDrive {
    /// Builds the system from a parsed configuration and the resolved joints (left ones first,
    /// as many as `config` names).
    pub fn new(config: DiffDriveConfig, joints: Vec<EntityId>) -> Self {
        let n = joints.len();
        DiffDrive {
            left_count: config.left_joints.len(),
            joints,
            target: (0.0, 0.0),
            powered: true,
            applied: (0.0, 0.0),
            wheel_targets: vec![0.0; n],
            states: vec![JointState::default(); n],
            states_read: false,
            trackers: vec![WheelTracker::default(); n],
            odometry: WheelOdometry::new(config.wheel_separation, config.wheel_radius),
            stall: StallDetector::default(),
            window: (0.0, 0.0, 0.0),
            odom_publish: Throttle::default(),
            odom_output: OdometryOutput::new(&config.odometry),
            stall_topic: SharedStr::new(&config.stall_topic),
            config,
        }
    }

    /// The command applied in the last step (linear m/s, angular rad/s), after limits.
    pub fn applied_command(&self) -> (f64, f64) {
        self.applied
    }

    /// Whether the motors have power (no `Boolean(false)` on the power topic, or a `true`
    /// since).
    pub fn powered(&self) -> bool {
        self.powered
    }

    /// Reads the wheel joints' states.
    fn read_states(&mut self, world: &WorldRef<'_>) -> Result<(), PluginError> {
        let known = world.joint_states(
            RSlice::from_slice(&self.joints),
            RSliceMut::from_mut_slice(&mut self.states),
        );
        if known as usize != self.joints.len() {
            return Err(PluginError::runtime(format!(
                "{}: DiffDrive: a wheel joint is gone",
                self.odom_output.child()
            )));
        }
        self.states_read = true;
        Ok(())
    }

    /// Mean position of the left and of the right wheels.
    fn mean_positions(&self) -> (f64, f64) {
        let mean = |s: &[JointState]| s.iter().map(|j| j.position[0]).sum::<f64>() / s.len() as f64;
        let (l, r) = self.states.split_at(self.left_count);
        (mean(l), mean(r))
    }
}

impl System for DiffDrive {
    fn subscriptions(&self) -> Vec<String> {
        vec![self.config.topic.clone(), self.config.power_topic.clone()]
    }

    fn pre_step(
        &mut self,
        ctx: &StepContext,
        inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        if !self.states_read {
            self.read_states(world)?;
        }
        for m in inbox {
            match m.payload.as_enum() {
                // One refused (with a warning) leaves the drive on its last command.
                Ok(Payload::Twist(t)) if accepted_twist(world, &self.config.topic, t) => {
                    self.target = (t.linear.x, t.angular.z)
                }
                // Only the power topic carries booleans.
                Ok(Payload::Boolean(on)) => self.powered = *on,
                _ => {}
            }
        }
        // Without power the drive brakes to a stop within its limits and ignores commands.
        let target = if self.powered {
            self.target
        } else {
            (0.0, 0.0)
        };
        let dt = ctx.step.as_secs_f64();
        let linear = self.config.linear.limit(target.0, self.applied.0, dt);
        let angular = self.config.angular.limit(target.1, self.applied.1, dt);
        self.applied = (linear, angular);
        let (left, right) = wheel_speeds(
            linear,
            angular,
            self.config.wheel_separation,
            self.config.wheel_radius,
        );
        for (i, joint) in self.joints.iter().enumerate() {
            let target = if i < self.left_count { left } else { right };
            self.wheel_targets[i] = target;
            let velocity = self.trackers[i].command(target, self.states[i].position[0], dt);
            commands.joint_command(&JointCommand {
                joint: *joint,
                axis: 0,
                mode: JointCommandMode::VELOCITY,
                target: velocity,
                max_force: self.config.max_wheel_torque,
                stiffness: 0.0,
                damping: 0.0,
            });
        }
        Ok(())
    }

    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        self.read_states(world)?;
        let now = ctx.now.as_secs_f64();
        let (l, r) = self.mean_positions();
        let (ds, dyaw) = self.odometry.update(l, r);
        self.window.0 += ds;
        self.window.1 += dyaw;
        self.window.2 += ctx.step.as_secs_f64();

        let wheels: Vec<(f64, f64)> = self
            .wheel_targets
            .iter()
            .zip(&self.states)
            .map(|(t, s)| (*t, s.velocity[0]))
            .collect();
        if let Some(stalled) = self.stall.update(now, &wheels) {
            out.publish(self.stall_topic.clone(), Payload::Boolean(stalled));
        }

        if !self
            .odom_publish
            .due(period_ns(self.config.odometry.frequency), ctx)
        {
            return Ok(());
        }
        let (travel, turn, span) = std::mem::take(&mut self.window);
        let twist = mean_twist(travel, turn, span);
        let o = &self.odometry;
        self.odom_output.publish_planar(out, o.x, o.y, o.yaw, twist);
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.applied = (0.0, 0.0);
        self.powered = true;
        self.odometry.reset();
        self.stall.reset();
        self.states_read = false;
        for t in &mut self.trackers {
            t.reset();
        }
        self.window = (0.0, 0.0, 0.0);
        self.odom_publish.reset();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::gz::OrIdle;
    use simcore_plugin_common::testing::SystemSetup;

    fn created(body: &str) -> Result<OrIdle<DiffDrive>, PluginError> {
        let sdf = format!(
            "<plugin name=\"gz::sim::systems::DiffDrive\" filename=\"f\">\n\
             <left_joint>l</left_joint>\n<right_joint>r</right_joint>\n{body}</plugin>"
        );
        SystemSetup::on_model("gz::sim::systems::DiffDrive", "rover")
            .at_line(20)
            .with(2, EntityKind::JOINT, "l")
            .with(3, EntityKind::JOINT, "r")
            .create::<DiffDrive>(&sdf)
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let Err(e) = created("<wheel_radius>0</wheel_radius>\n") else {
            panic!("a zero wheel radius is refused");
        };
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "rover: DiffDrive: <wheel_radius> must be positive, found \"0\" at world.sdf:23"
        );
        let Err(e) = created("<left_joint>none</left_joint>\n") else {
            panic!("an unknown wheel joint is refused, not left idle");
        };
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "rover: DiffDrive: no joint `none` in the model"
        );
        let Ok(OrIdle::Active(d)) = created("<odom_topic>/odom</odom_topic>\n") else {
            panic!("a valid drive is created");
        };
        assert_eq!(
            d.outputs(),
            [
                ("/odom".to_string(), "Odometry"),
                ("tf".to_string(), "Pose_V"),
                ("stall".to_string(), "Boolean")
            ]
        );
    }
}
