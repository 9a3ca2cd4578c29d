//! Reading the `<plugin>` element of a linear battery.

use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::Element;
use simcore_plugin_common::gz::{absolute_topic_or, joint_names, required_text};

/// The parsed configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct BatteryConfig {
    /// `<battery_name>` (required): names the state topic.
    pub name: String,
    /// `<open_circuit_voltage_constant_coef>` `e0`, V (required).
    pub e0: f64,
    /// `<open_circuit_voltage_linear_coef>` `e1`, V (default 0).
    pub e1: f64,
    /// `<capacity>` `c`, Ah (required, positive).
    pub capacity: f64,
    /// `<initial_charge>`, Ah (default: the capacity; within [0, capacity]).
    pub initial_charge: f64,
    /// `<resistance>` `r`, ohm (default 0, not negative).
    pub resistance: f64,
    /// `<smooth_current_tau>`, s (default 1, positive).
    pub tau: f64,
    /// `<power_load>`: a constant consumer, W (default 0, not negative).
    pub power_load: f64,
    /// `<motor_joint>` names (any number): their motor power is drawn.
    pub motor_joints: Vec<String>,
    /// `<motor_efficiency>` in (0, 1] (default 1): electrical power = mechanical / efficiency.
    pub motor_efficiency: f64,
    /// `<state_publish_frequency>`, Hz (default 10; 0 or negative: every step).
    pub publish_frequency: f64,
    /// `<stop_motors_on_drained_battery>` (default true).
    pub stop_motors: bool,
    /// `<disable_sensors_on_drained_battery>` (default false).
    pub disable_sensors: bool,
    /// `<power_topic>`: where motor power is switched off when drained (default
    /// `power/enabled`, below the model; a given topic is absolute, a leading `/` is added).
    pub power_topic: String,
}

/// What `<battery_name>` must be, in messages.
const NAME: &str = "a name without `/` or spaces";

impl BatteryConfig {
    /// Reads the `<plugin>` element `root`, whose messages name the battery's model
    /// (`robot: LinearBattery`).
    pub fn read(root: &Element<'_, '_>) -> Result<BatteryConfig, PluginError> {
        let name = required_text(root, "battery_name", NAME)?;
        if name.text().contains('/') || name.text().contains(char::is_whitespace) {
            return Err(name.error(NAME, name.text()).into());
        }
        let e0 = root
            .param::<f64>("open_circuit_voltage_constant_coef")
            .unit("V")
            .required()?;
        let e1 = root.get_or("open_circuit_voltage_linear_coef", 0.0)?;
        let capacity = root
            .param::<f64>("capacity")
            .unit("Ah")
            .check("positive (Ah)", |c| *c > 0.0)
            .required()?;
        let initial_charge = root
            .param::<f64>("initial_charge")
            .check(
                format!("within [0, capacity = {capacity}] (Ah)"),
                move |q| (0.0..=capacity).contains(q),
            )
            .or(capacity)?;
        let resistance = root.param::<f64>("resistance").non_negative().or(0.0)?;
        let power_load = root.param::<f64>("power_load").non_negative().or(0.0)?;
        let tau = root
            .param::<f64>("smooth_current_tau")
            .check("positive (s)", |t| *t > 0.0)
            .or(1.0)?;
        let motor_efficiency = root
            .param::<f64>("motor_efficiency")
            .check("in (0, 1]", |e| *e > 0.0 && *e <= 1.0)
            .or(1.0)?;
        let motor_joints = joint_names(root, "motor_joint")?;
        Ok(BatteryConfig {
            name: name.text().to_string(),
            e0,
            e1,
            capacity,
            initial_charge,
            resistance,
            tau,
            power_load,
            motor_joints,
            motor_efficiency,
            publish_frequency: root.get_or("state_publish_frequency", 10.0)?,
            stop_motors: root.get_or("stop_motors_on_drained_battery", true)?,
            disable_sensors: root.get_or("disable_sensors_on_drained_battery", false)?,
            power_topic: absolute_topic_or(root, "power_topic", "power/enabled")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    const MIN: &str = "<battery_name>main</battery_name>\
        <open_circuit_voltage_constant_coef>12.6</open_circuit_voltage_constant_coef>\
        <capacity>1.2</capacity>";

    fn read_plugin(text: &str) -> Result<BatteryConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new("robot: LinearBattery"))?;
        BatteryConfig::read(&doc.root())
    }

    fn parse(extra: &str) -> Result<BatteryConfig, PluginError> {
        read_plugin(&format!("<plugin name='p'>{MIN}{extra}</plugin>"))
    }

    #[test]
    fn defaults_and_values() {
        let c = parse("").unwrap();
        assert_eq!(
            (c.e1, c.initial_charge, c.resistance, c.tau, c.power_load),
            (0.0, 1.2, 0.0, 1.0, 0.0)
        );
        assert!(c.stop_motors && !c.disable_sensors && c.motor_joints.is_empty());
        assert_eq!(c.power_topic, "power/enabled");
        let c = parse(
            "<open_circuit_voltage_linear_coef>-2</open_circuit_voltage_linear_coef>\
             <initial_charge>0.5</initial_charge><resistance>0.07</resistance>\
             <smooth_current_tau>2</smooth_current_tau><power_load>5</power_load>\
             <motor_joint>l</motor_joint><motor_joint>r</motor_joint>\
             <motor_efficiency>0.8</motor_efficiency><disable_sensors_on_drained_battery>true</disable_sensors_on_drained_battery>\
             <power_topic>robot/power</power_topic>",
        )
        .unwrap();
        assert_eq!(c.motor_joints, ["l", "r"]);
        assert_eq!(
            (c.e1, c.initial_charge, c.motor_efficiency),
            (-2.0, 0.5, 0.8)
        );
        assert!(c.disable_sensors);
        assert_eq!(c.power_topic, "/robot/power");
    }

    #[test]
    fn errors_name_the_element() {
        let msg = |e: PluginError| e.message.to_string();
        assert_eq!(
            msg(read_plugin("<plugin/>").unwrap_err()),
            "robot: LinearBattery: <battery_name> is required (a name without `/` or spaces)"
        );
        assert_eq!(
            msg(read_plugin("<plugin><battery_name>a b</battery_name></plugin>").unwrap_err()),
            "robot: LinearBattery: <battery_name> must be a name without `/` or spaces, found \"a b\""
        );
        assert_eq!(
            msg(parse("<initial_charge>2</initial_charge>").unwrap_err()),
            "robot: LinearBattery: <initial_charge> must be within [0, capacity = 1.2] (Ah), found \"2\""
        );
        assert_eq!(
            msg(parse("<smooth_current_tau>0</smooth_current_tau>").unwrap_err()),
            "robot: LinearBattery: <smooth_current_tau> must be positive (s), found \"0\""
        );
        assert_eq!(
            msg(parse("<motor_efficiency>1.5</motor_efficiency>").unwrap_err()),
            "robot: LinearBattery: <motor_efficiency> must be in (0, 1], found \"1.5\""
        );
        assert_eq!(
            msg(parse("<resistance>-1</resistance>").unwrap_err()),
            "robot: LinearBattery: <resistance> must be zero or positive, found \"-1\""
        );
        assert_eq!(
            msg(parse("<motor_joint> </motor_joint>").unwrap_err()),
            "robot: LinearBattery: <motor_joint> must be a joint name, found \"\""
        );
        assert_eq!(
            msg(parse("<power_topic/>").unwrap_err()),
            "robot: LinearBattery: <power_topic> must be a topic name, found \"\""
        );
        assert_eq!(
            msg(read_plugin(
                "<plugin><battery_name>b</battery_name><capacity>1</capacity></plugin>"
            )
            .unwrap_err()),
            "robot: LinearBattery: <open_circuit_voltage_constant_coef> is required (a finite number in V)"
        );
        assert_eq!(
            msg(read_plugin(
                "<plugin><battery_name>b</battery_name>\
                 <open_circuit_voltage_constant_coef>12</open_circuit_voltage_constant_coef>\
                 <capacity>0</capacity></plugin>"
            )
            .unwrap_err()),
            "robot: LinearBattery: <capacity> must be positive (Ah), found \"0\""
        );
    }
}
