//! The mecanum drive system: commands in, wheel commands and odometry out.

use crate::config::{JOINT_TAGS, MecanumConfig};
use crate::kinematics::{MecanumOdometry, wheel_speeds};
use sim_plugin_api::{
    abi_stable::std_types::{RSlice, RSliceMut},
    prelude::*,
};
use simcore_plugin_common::gz::{GzSystem, OdometryOutput, drive, joints};
use simcore_plugin_common::{
    Attached, Throttle, accepted_twist, attached, period_ns, plugin_document,
};

/// A mecanum drive attached to a model (see the crate documentation).
pub struct MecanumDrive {
    config: MecanumConfig,
    /// The joints of each wheel position, in [`JOINT_TAGS`] order.
    wheels: [Vec<EntityId>; 4],
    firsts: [EntityId; 4],
    states: [JointState; 4],
    /// Last command (forward, left, yaw) and the one applied after limits.
    target: (f64, f64, f64),
    applied: (f64, f64, f64),
    odometry: MecanumOdometry,
    last_time: Option<f64>,
    throttle: Throttle,
    odom_output: OdometryOutput,
}

impl GzSystem for MecanumDrive {
    /// Creates the system from its `<plugin>` element; it must be attached to a model whose
    /// wheel joints exist.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, model } = attached(config, world, "MecanumDrive")?;
        let doc = plugin_document(config, &who)?;
        let c = MecanumConfig::read(&doc.root(), &model)?;
        let find = |i: usize| joints(world, scoped, &c.joints[i], JOINT_TAGS[i], &who);
        let wheels = [find(0)?, find(1)?, find(2)?, find(3)?];
        let system = MecanumDrive::new(c, wheels);
        simcore_plugin_common::declare_inputs(world, &system, &["Twist"]);
        Ok(system)
    }

    /// The odometry and its transform.
    fn outputs(&self) -> Vec<(String, &'static str)> {
        self.odom_output.outputs()
    }
}

impl MecanumDrive {
    /// Builds the system from a parsed configuration and the resolved joints (each group
    /// non-empty).
    pub fn new(config: MecanumConfig, wheels: [Vec<EntityId>; 4]) -> Self {
        let a = 0.5 * (config.wheel_separation + config.wheelbase);
        MecanumDrive {
            firsts: std::array::from_fn(|i| wheels[i][0]),
            wheels,
            states: [JointState::default(); 4],
            target: (0.0, 0.0, 0.0),
            applied: (0.0, 0.0, 0.0),
            odometry: MecanumOdometry::new(a, config.wheel_radius),
            last_time: None,
            throttle: Throttle::default(),
            odom_output: OdometryOutput::new(&config.odometry),
            config,
        }
    }
}

impl System for MecanumDrive {
    fn subscriptions(&self) -> Vec<String> {
        vec![self.config.topic.clone()]
    }

    fn pre_step(
        &mut self,
        ctx: &StepContext,
        inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        for m in inbox {
            // A Twist out of range is refused with a warning; the drive keeps its last command.
            if let Ok(Payload::Twist(t)) = m.payload.as_enum()
                && accepted_twist(world, &self.config.topic, t)
            {
                self.target = (t.linear.x, t.linear.y, t.angular.z);
            }
        }
        let dt = ctx.step.as_secs_f64();
        let (lin, ang) = (&self.config.linear, &self.config.angular);
        self.applied = (
            lin.limit(self.target.0, self.applied.0, dt),
            lin.limit(self.target.1, self.applied.1, dt),
            ang.limit(self.target.2, self.applied.2, dt),
        );
        let a = 0.5 * (self.config.wheel_separation + self.config.wheelbase);
        let (v, l, w) = self.applied;
        let speeds = wheel_speeds(v, l, w, a, self.config.wheel_radius);
        for (group, speed) in self.wheels.iter().zip(speeds) {
            for joint in group {
                commands.joint_command(&drive(*joint, 0, JointCommandMode::VELOCITY, speed));
            }
        }
        Ok(())
    }

    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let known = world.joint_states(
            RSlice::from_slice(&self.firsts),
            RSliceMut::from_mut_slice(&mut self.states),
        );
        if known != 4 {
            return Ok(());
        }
        let now = ctx.now.as_secs_f64();
        let dt = self.last_time.replace(now).map_or(0.0, |t| now - t);
        self.odometry
            .update(std::array::from_fn(|i| self.states[i].position[0]), dt);
        if !self
            .throttle
            .due(period_ns(self.config.odometry.frequency), ctx)
        {
            return Ok(());
        }
        let (v, l, w) = self.odometry.velocities();
        let twist = Twist {
            linear: Vec3::new(v, l, 0.0),
            angular: Vec3::new(0.0, 0.0, w),
        };
        let o = &self.odometry;
        self.odom_output.publish_planar(out, o.x, o.y, o.yaw, twist);
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.applied = (0.0, 0.0, 0.0);
        self.odometry.reset();
        self.last_time = None;
        self.throttle.reset();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::SystemSetup;

    #[test]
    fn errors_name_the_file_and_line() {
        let sdf = "<plugin name=\"gz::sim::systems::MecanumDrive\" filename=\"f\">\n  \
                   <front_left_joint>fl</front_left_joint>\n  \
                   <front_right_joint>fr</front_right_joint>\n  \
                   <back_left_joint>bl</back_left_joint>\n  \
                   <back_right_joint>br</back_right_joint>\n  \
                   <wheelbase>-1</wheelbase>\n</plugin>";
        let e = SystemSetup::on_model("gz::sim::systems::MecanumDrive", "bot")
            .create_error::<MecanumDrive>(sdf);
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "bot: MecanumDrive: <wheelbase> must be positive, found \"-1\" at world.sdf:45"
        );
    }
}
