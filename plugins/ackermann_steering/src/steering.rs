//! The Ackermann steering system: commands in, steering and wheel joint commands and
//! odometry out.

use crate::config::AckermannConfig;
use crate::geometry::{steer, steering_angles, turning_radius};
use sim_plugin_api::{
    abi_stable::std_types::{RSlice, RSliceMut},
    prelude::*,
};
use simcore_plugin_common::gz::{GzSystem, OdometryOutput, drive, joints, mean_twist};
use simcore_plugin_common::{
    Attached, Throttle, accepted_twist, accepted_value, attached, period_ns, plugin_document,
};

/// Dead reckoning from the wheels and the steering angle, as gz-sim integrates it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SteeredOdometry {
    last_wheels: Option<(f64, f64)>,
    /// x, m.
    pub x: f64,
    /// y, m.
    pub y: f64,
    /// Heading, rad, in (−π, π].
    pub yaw: f64,
}

impl SteeredOdometry {
    /// Advances by the rotation of the first left and right wheels (rad, `left`, `right`) at
    /// the mean steering angle `phi`; returns the distance travelled and the turn.
    pub fn update(
        &mut self,
        left: f64,
        right: f64,
        phi: f64,
        radius: f64,
        base: f64,
    ) -> (f64, f64) {
        let Some((l0, r0)) = self.last_wheels.replace((left, right)) else {
            return (0.0, 0.0);
        };
        let dist = 0.5 * radius * ((left - l0) + (right - r0));
        let turn_radius = base / phi.tan();
        let turn = if turn_radius.is_finite() {
            dist / turn_radius
        } else {
            0.0
        };
        self.yaw = normalized(self.yaw + turn);
        self.x += dist * self.yaw.cos();
        self.y += dist * self.yaw.sin();
        (dist, turn)
    }
}

fn normalized(a: f64) -> f64 {
    let r = a.rem_euclid(std::f64::consts::TAU);
    if r > std::f64::consts::PI {
        r - std::f64::consts::TAU
    } else {
        r
    }
}

/// An Ackermann steering attached to a model (see the crate documentation).
pub struct AckermannSteering {
    config: AckermannConfig,
    /// Left wheels, right wheels, left steering, right steering.
    groups: [Vec<EntityId>; 4],
    /// The first joint of each group, for the states read.
    firsts: Vec<EntityId>,
    states: Vec<JointState>,
    /// Last command: forward speed and yaw rate (or steering angle).
    target: (f64, f64),
    /// The command applied in the last step, after limits.
    applied: (f64, f64),
    odometry: SteeredOdometry,
    throttle: Throttle,
    last_odom: Option<f64>,
    odom_output: OdometryOutput,
}

impl GzSystem for AckermannSteering {
    /// Creates the system from its `<plugin>` element; it must be attached to a model whose
    /// joints exist.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, model } = attached(config, world, "AckermannSteering")?;
        let doc = plugin_document(config, &who)?;
        let c = AckermannConfig::read(&doc.root(), &model)?;
        let find = |names: &[String], tag: &str| joints(world, scoped, names, tag, &who);
        let groups = [
            find(&c.left_joints, "left_joint")?,
            find(&c.right_joints, "right_joint")?,
            find(&c.left_steering, "left_steering_joint")?,
            find(&c.right_steering, "right_steering_joint")?,
        ];
        let kind = if c.steering_only { "Double" } else { "Twist" };
        let system = AckermannSteering::new(c, groups);
        simcore_plugin_common::declare_inputs(world, &system, &[kind]);
        Ok(system)
    }

    /// The odometry and its transform (none when steering only).
    fn outputs(&self) -> Vec<(String, &'static str)> {
        if self.config.steering_only {
            return Vec::new();
        }
        self.odom_output.outputs()
    }
}

impl AckermannSteering {
    /// Builds the system from a parsed configuration and the resolved joints (left wheels,
    /// right wheels, left steering, right steering; the wheels empty when steering only).
    pub fn new(config: AckermannConfig, groups: [Vec<EntityId>; 4]) -> Self {
        let firsts: Vec<EntityId> = groups.iter().filter_map(|g| g.first().copied()).collect();
        AckermannSteering {
            states: vec![JointState::default(); firsts.len()],
            firsts,
            groups,
            target: (0.0, 0.0),
            applied: (0.0, 0.0),
            odometry: SteeredOdometry::default(),
            throttle: Throttle::default(),
            last_odom: None,
            odom_output: OdometryOutput::new(&config.odometry),
            config,
        }
    }

    /// Reads the first joint of each group; `false` when one is gone.
    fn read(&mut self, world: &WorldRef<'_>) -> bool {
        let known = world.joint_states(
            RSlice::from_slice(&self.firsts),
            RSliceMut::from_mut_slice(&mut self.states),
        );
        known as usize == self.firsts.len() && self.states.iter().all(|s| s.dof > 0)
    }

    /// Positions of the first left and right steering joints.
    fn steering_positions(&self) -> (f64, f64) {
        let n = self.states.len();
        (
            self.states[n - 2].position[0],
            self.states[n - 1].position[0],
        )
    }
}

fn velocity(joint: EntityId, target: f64) -> JointCommand {
    drive(joint, 0, JointCommandMode::VELOCITY, target)
}

impl System for AckermannSteering {
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
        // A command out of range is refused with a warning; the drive keeps its last one.
        let topic = &self.config.topic;
        for m in inbox {
            match m.payload.as_enum() {
                Ok(Payload::Twist(t))
                    if !self.config.steering_only && accepted_twist(world, topic, t) =>
                {
                    self.target = (t.linear.x, t.angular.z)
                }
                Ok(Payload::Double(a))
                    if self.config.steering_only && accepted_value(world, topic, *a) =>
                {
                    self.target.1 = *a
                }
                _ => {}
            }
        }
        if !self.read(world) {
            return Ok(());
        }
        let dt = ctx.step.as_secs_f64();
        let d = self.config.dimensions;
        let angular = self.config.angular.limit(self.target.1, self.applied.1, dt);
        let (left_angle, right_angle) = if self.config.steering_only {
            let a = angular.clamp(-d.steering_limit, d.steering_limit);
            self.applied = (0.0, a);
            steering_angles(&d, a)
        } else {
            let linear = self.config.linear.limit(self.target.0, self.applied.0, dt);
            self.applied = (linear, angular);
            let s = steer(&d, linear, turning_radius(&d, linear, angular));
            for j in &self.groups[0] {
                commands.joint_command(&velocity(*j, s.left_speed));
            }
            for j in &self.groups[1] {
                commands.joint_command(&velocity(*j, s.right_speed));
            }
            (s.left_angle, s.right_angle)
        };
        let (left_now, right_now) = self.steering_positions();
        let gain = self.config.steer_p_gain;
        for j in &self.groups[2] {
            commands.joint_command(&velocity(*j, gain * (left_angle - left_now)));
        }
        for j in &self.groups[3] {
            commands.joint_command(&velocity(*j, gain * (right_angle - right_now)));
        }
        Ok(())
    }

    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        if self.config.steering_only || !self.read(world) {
            return Ok(());
        }
        let (sl, sr) = self.steering_positions();
        let phi = 0.5 * (sl + sr);
        let d = self.config.dimensions;
        let (dist, turn) = self.odometry.update(
            self.states[0].position[0],
            self.states[1].position[0],
            phi,
            d.wheel_radius,
            d.wheel_base,
        );
        let now = ctx.now.as_secs_f64();
        let span = self.last_odom.replace(now).map_or(0.0, |t| now - t);
        if !self
            .throttle
            .due(period_ns(self.config.odometry.frequency), ctx)
        {
            return Ok(());
        }
        // As gz-sim: the twist is that of the last step.
        let twist = mean_twist(dist, turn, span);
        let o = &self.odometry;
        self.odom_output.publish_planar(out, o.x, o.y, o.yaw, twist);
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.applied = (0.0, 0.0);
        self.odometry = SteeredOdometry::default();
        self.throttle.reset();
        self.last_odom = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::SystemSetup;

    #[test]
    fn errors_name_the_file_and_line() {
        let sdf = "<plugin name=\"gz::sim::systems::AckermannSteering\" filename=\"f\">\n  \
                   <steering_only>1</steering_only>\n  <tf_topic>a//b</tf_topic>\n  \
                   <left_steering_joint>l</left_steering_joint>\n  \
                   <right_steering_joint>r</right_steering_joint>\n</plugin>";
        let e = SystemSetup::on_model("gz::sim::systems::AckermannSteering", "car")
            .create_error::<AckermannSteering>(sdf);
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "car: AckermannSteering: <tf_topic> must be a valid topic name (no `//`, not empty), \
             found \"a//b\" at world.sdf:42"
        );
    }

    #[test]
    fn odometry_along_a_circle() {
        // Wheels of radius 0.5 on a car with a 1 m base steered to phi: a circle of radius
        // 1 / tan(phi); a quarter of it ends at (R, R).
        let (radius, base) = (0.5, 1.0);
        let phi = (1.0f64 / 4.0).atan();
        let mut o = SteeredOdometry::default();
        o.update(0.0, 0.0, phi, radius, base);
        let n = 10_000;
        let arc = 4.0 * std::f64::consts::FRAC_PI_2;
        for i in 1..=n {
            let wheel = arc * i as f64 / n as f64 / radius;
            o.update(wheel, wheel, phi, radius, base);
        }
        assert!(
            (o.yaw - std::f64::consts::FRAC_PI_2).abs() < 1e-9,
            "{}",
            o.yaw
        );
        assert!(
            (o.x - 4.0).abs() < 1e-3 && (o.y - 4.0).abs() < 1e-3,
            "{o:?}"
        );
        assert!((normalized(3.0 * std::f64::consts::PI) - std::f64::consts::PI).abs() < 1e-12);
    }
}
