//! The battery system: draws power every step, publishes its state, acts when drained.

use crate::config::BatteryConfig;
use crate::model::LinearBattery;
use sim_plugin_api::{
    abi_stable::std_types::{RBox, RSlice, RSliceMut},
    msgs::BatteryState,
    prelude::*,
};
use simcore_plugin_common::gz::{GzSystem, find_named};
use simcore_plugin_common::{Throttle, attached_model, period_ns, plugin_document};

/// How many unknown ids in a row end the scan for the model's sensors.
const SCAN_GAP: u64 = 64;

/// A linear battery attached to a model (see the crate documentation).
pub struct Battery {
    config: BatteryConfig,
    model: EntityId,
    model_name: String,
    joints: Vec<EntityId>,
    states: Vec<JointState>,
    battery: LinearBattery,
    topic: SharedStr,
    publish: Throttle,
    /// Drained, and the motors / sensors have not been told yet.
    drain_pending: bool,
}

impl GzSystem for Battery {
    /// Creates the system from its `<plugin>` element; it must be attached to a model.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let model = attached_model(config, world, "LinearBattery")?;
        let who = format!("{model}: LinearBattery");
        let doc = plugin_document(config, &who)?;
        let parsed = BatteryConfig::read(&doc.root())?;
        let joints = parsed
            .motor_joints
            .iter()
            .map(|j| find_named(world, model, j, EntityKind::JOINT, "motor_joint", &who))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Battery::new(parsed, config.entity, model, joints))
    }

    /// The state topic (`BatteryState`), and the power topic (`Boolean`) when the battery
    /// stops the motors.
    fn outputs(&self) -> Vec<(String, &'static str)> {
        let mut outputs = vec![(self.topic.as_str().to_string(), "BatteryState")];
        if self.config.stop_motors {
            outputs.push((self.config.power_topic.clone(), "Boolean"));
        }
        outputs
    }
}

impl Battery {
    /// Builds the system for `model` (its scoped name `model_name`) from a parsed
    /// configuration and the resolved motor joints.
    pub fn new(
        config: BatteryConfig,
        model: EntityId,
        model_name: &str,
        joints: Vec<EntityId>,
    ) -> Self {
        Battery {
            states: vec![JointState::default(); joints.len()],
            joints,
            battery: initial(&config),
            topic: SharedStr::from(format!("battery/{}/state", config.name)),
            publish: Throttle::default(),
            drain_pending: false,
            model,
            model_name: model_name.to_string(),
            config,
        }
    }

    /// The battery's state.
    pub fn battery(&self) -> &LinearBattery {
        &self.battery
    }

    /// Electrical power of the motor joints over the last step, W.
    fn motor_power(&mut self, world: &WorldRef<'_>) -> f64 {
        if self.joints.is_empty() {
            return 0.0;
        }
        world.joint_states(
            RSlice::from_slice(&self.joints),
            RSliceMut::from_mut_slice(&mut self.states),
        );
        self.states
            .iter()
            .map(|s| (s.effort[0] * s.velocity[0]).abs())
            .sum::<f64>()
            / self.config.motor_efficiency
    }

    /// The sensors of the model and of the models nested in it. Plugins cannot list an
    /// entity's children, so ids are scanned (they are given out in order, never reused).
    fn sensors(&self, world: &WorldRef<'_>) -> Vec<EntityId> {
        let mut out = Vec::new();
        let (mut id, mut gap) = (self.model.0 + 1, 0);
        while gap < SCAN_GAP {
            match world.entity_info(EntityId(id)).into_option() {
                Some(info) => {
                    gap = 0;
                    if info.kind == EntityKind::SENSOR && self.owns(world, info.parent) {
                        out.push(EntityId(id));
                    }
                }
                None => gap += 1,
            }
            id += 1;
        }
        out
    }

    /// Whether `id` is this model or lies inside it.
    fn owns(&self, world: &WorldRef<'_>, mut id: EntityId) -> bool {
        for _ in 0..64 {
            if id == self.model {
                return true;
            }
            match world.entity_info(id).into_option() {
                Some(info) if info.kind != EntityKind::WORLD => id = info.parent,
                _ => return false,
            }
        }
        false
    }
}

fn initial(c: &BatteryConfig) -> LinearBattery {
    LinearBattery::new(
        c.e0,
        c.e1,
        c.capacity,
        c.resistance,
        c.tau,
        c.initial_charge,
    )
}

impl System for Battery {
    fn pre_step(
        &mut self,
        _ctx: &StepContext,
        _inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        if !std::mem::take(&mut self.drain_pending) {
            return Ok(());
        }
        if self.config.stop_motors {
            commands.publish(Message::new(
                SharedStr::from(self.config.power_topic.as_str()),
                Payload::Boolean(false),
            ));
        }
        if self.config.disable_sensors {
            for s in self.sensors(world) {
                commands.set_sensor_active(s, false);
            }
        }
        world.log_message(
            sim_plugin_api::LogLevel::WARN,
            &format!(
                "{}: battery `{}` drained",
                self.model_name, self.config.name
            ),
        );
        Ok(())
    }

    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let was_drained = self.battery.drained();
        let power = self.config.power_load + self.motor_power(world);
        self.battery.step(power, ctx.step.as_secs_f64());
        if self.battery.drained() && !was_drained {
            self.drain_pending = true;
        }
        if !self
            .publish
            .due(period_ns(self.config.publish_frequency), ctx)
        {
            return Ok(());
        }
        let b = &self.battery;
        let status = if b.current_smooth > 0.0 {
            2 // discharging
        } else {
            3 // not charging
        };
        out.publish(
            self.topic.clone(),
            Payload::BatteryState(RBox::new(BatteryState {
                voltage: b.voltage,
                current: -b.current_smooth,
                charge: b.charge,
                capacity: b.capacity,
                percentage: b.charge / b.capacity,
                power_supply_status: status,
            })),
        );
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.battery = initial(&self.config);
        self.publish.reset();
        self.drain_pending = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::gz::OrIdle;
    use simcore_plugin_common::testing::SystemSetup;

    const PLUGIN: &str = "<plugin name=\"simcore::LinearBattery\" filename=\"f\">\n\
        <battery_name>b</battery_name>\n\
        <open_circuit_voltage_constant_coef>12</open_circuit_voltage_constant_coef>\n";

    fn created(body: &str) -> Result<OrIdle<Battery>, PluginError> {
        SystemSetup::on_model("simcore::LinearBattery", "robot")
            .create::<Battery>(&format!("{PLUGIN}{body}</plugin>"))
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let Err(e) = created("<capacity>x</capacity>\n") else {
            panic!("a capacity that is not a number is refused");
        };
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "robot: LinearBattery: <capacity> must be a finite number in Ah, found \"x\" at world.sdf:43"
        );
        let Err(e) = created("<capacity>1</capacity>\n<motor_joint>none</motor_joint>\n") else {
            panic!("an unknown motor joint is refused, not left idle");
        };
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert!(
            e.message.contains("<motor_joint> `none`: no such joint"),
            "{}",
            e.message
        );
        let Ok(OrIdle::Active(b)) = created("<capacity>1</capacity>\n") else {
            panic!("a valid battery is created");
        };
        assert_eq!(
            b.outputs(),
            [
                ("battery/b/state".to_string(), "BatteryState"),
                ("power/enabled".to_string(), "Boolean")
            ]
        );
    }
}
