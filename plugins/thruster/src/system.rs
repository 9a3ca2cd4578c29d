//! The thruster: commands from its topic, thrust and spin on the propeller link each step.

use crate::config::{Command, ThrusterConfig};
use sim_plugin_api::{JointAxis, prelude::*};
use simcore_plugin_common::gz::{
    GzSystem, entity, last_finite_double, lever_torque, mechanics, missing,
};
use simcore_plugin_common::{Attached, attached, plugin_document};

/// A propeller on a joint (see the crate documentation).
pub struct Thruster {
    config: ThrusterConfig,
    joint: EntityId,
    axis: JointAxis,
    /// The commanded thrust, N, and the propeller's angular velocity for it, rad/s.
    thrust: f64,
    spin: f64,
    /// The link's speed after the previous step (for the advance ratio).
    speed: f64,
}

impl GzSystem for Thruster {
    /// Creates the system from its `<plugin>` element; it must be attached to a model that
    /// has the joint, and the engine must give its axis.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, model } = attached(config, world, "Thruster")?;
        let doc = plugin_document(config, &who)?;
        let parsed = ThrusterConfig::read(&doc.root(), &model)?;
        let joint = entity(
            world,
            scoped,
            &parsed.joint,
            EntityKind::JOINT,
            "joint_name",
            &who,
        )?;
        let mech = mechanics(world, &who, "joint axes")?;
        let axis = mech
            .joint_axis(joint, 0)
            .into_option()
            .ok_or_else(|| missing(format!("{who}: joint `{}` has no axis", parsed.joint)))?;
        let system = Thruster {
            config: parsed,
            joint,
            axis,
            thrust: 0.0,
            spin: 0.0,
            speed: 0.0,
        };
        simcore_plugin_common::declare_inputs(world, &system, &["Double", "Boolean"]);
        Ok(system)
    }

    /// The feedback: the angular velocity (or the thrust) each step.
    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(self.config.topics[1].clone(), "Double")]
    }
}

impl Thruster {
    /// The command, feedback and deadband topics.
    pub fn topics(&self) -> &[String; 3] {
        &self.config.topics
    }

    /// Takes a command value (NaN is 0, as gz-math's `fixnan`), clamped to the limits.
    fn command(&mut self, v: f64) {
        let v = if v.is_nan() { 0.0 } else { v };
        let v = v.clamp(self.config.cmd_min, self.config.cmd_max);
        match self.config.command {
            Command::Thrust => {
                self.thrust = v;
                self.spin = self.config.propeller.spin_for(v);
            }
            Command::AngularVelocity => {
                self.spin = v;
                self.thrust = self.config.propeller.thrust(v);
            }
        }
    }
}

impl System for Thruster {
    fn subscriptions(&self) -> Vec<String> {
        vec![self.config.topics[0].clone(), self.config.topics[2].clone()]
    }

    fn pre_step(
        &mut self,
        ctx: &StepContext,
        inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        let [cmd_topic, feedback, deadband_topic] = self.config.topics.clone();
        let commands_in: Vec<Message> = inbox
            .iter()
            .filter(|m| m.topic.as_str() == cmd_topic)
            .cloned()
            .collect();
        if let Some(v) = last_finite_double(&commands_in) {
            self.command(v);
        }
        for m in inbox.iter().filter(|m| m.topic.as_str() == deadband_topic) {
            if let Ok(Payload::Boolean(b)) = m.payload.as_enum() {
                self.config.deadband_on = *b;
            }
        }
        let link = self.axis.child_link;
        let Some(state) = world.kinematics_of(link) else {
            return Ok(());
        };
        let unit = state.pose.orientation.rotate(self.axis.axis).normalized();
        // As gz-sim: the spin is recomputed from the thrust each step (following the advance
        // ratio when no coefficient was given).
        let p = &mut self.config.propeller;
        p.follow_advance(self.speed, self.spin);
        self.spin = p.spin_for(self.thrust);
        let (mut thrust, mut spin) = (self.thrust, self.spin);
        if self.config.deadband_on && thrust.abs() < self.config.deadband {
            (thrust, spin) = (0.0, 0.0);
        }
        let dt = ctx.step.as_secs_f64();
        let (torque, angvel) = if self.config.velocity_control {
            commands.joint_command(&simcore_plugin_common::gz::drive(
                self.joint,
                0,
                JointCommandMode::VELOCITY,
                spin,
            ));
            (0.0, spin)
        } else {
            let current = state.angular_velocity.dot(unit);
            let error = current - spin;
            let t = if error.abs() > 0.1 {
                self.config.pid.update(error, dt)
            } else {
                0.0
            };
            (t, current)
        };
        let value = match self.config.command {
            Command::Thrust => angvel,
            Command::AngularVelocity => thrust,
        };
        let mut m = Message::new(feedback.as_str(), Payload::Double(value));
        m.header.stamp = ctx.now;
        commands.publish(m);
        // The thrust acts at the link's centre of mass, along the axis.
        let force = unit.scale(thrust);
        let lever = lever_torque(world, link, state.pose, force, Vec3::ZERO);
        commands.apply_wrench(link, force, unit.scale(torque) + lever);
        self.speed = state.linear_velocity.length();
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        (self.thrust, self.spin, self.speed) = (0.0, 0.0, 0.0);
        self.config.pid.reset();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::SystemSetup;

    #[test]
    fn errors_name_the_file_and_line() {
        let sdf = "<plugin name=\"gz::sim::systems::Thruster\" filename=\"f\">\n  \
                   <joint_name>prop</joint_name>\n  <topic>a//b</topic>\n</plugin>";
        let e = SystemSetup::on_model("gz::sim::systems::Thruster", "sub")
            .create_error::<Thruster>(sdf);
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "sub: Thruster: <topic> must be a name making a valid topic (not `sub/a//b`), \
             found \"a//b\" at world.sdf:42"
        );
    }
}
