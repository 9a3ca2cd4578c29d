//! Reading the `<plugin>` element of a linear battery.

use sim_plugin_api::PluginError;
use simcore_plugin_common::{Reader, parse_plugin_sdf, text};

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

impl BatteryConfig {
    /// Parses the `<plugin>` element given as XML text; `model` names the plugin in errors.
    pub fn parse(plugin_sdf: &str, model: &str) -> Result<BatteryConfig, PluginError> {
        let who = format!("{model}: LinearBattery");
        let need = |what: &str| PluginError::config(format!("{who}: needs <{what}>"));
        let Some(doc) = parse_plugin_sdf(plugin_sdf, &who)? else {
            return Err(need("battery_name"));
        };
        let root = doc.root_element();
        let r = Reader::new(&who);
        let name = text(root, "battery_name")
            .filter(|n| !n.is_empty())
            .ok_or_else(|| need("battery_name"))?;
        if name.contains('/') || name.contains(char::is_whitespace) {
            return Err(r.error("<battery_name>", "a name without `/` or spaces", name));
        }
        let e0 = r
            .number(root, &["open_circuit_voltage_constant_coef"])?
            .ok_or_else(|| need("open_circuit_voltage_constant_coef"))?;
        let e1 = r
            .number(root, &["open_circuit_voltage_linear_coef"])?
            .unwrap_or(0.0);
        let capacity = r
            .number(root, &["capacity"])?
            .ok_or_else(|| need("capacity"))?;
        if capacity <= 0.0 {
            return Err(r.error("<capacity>", "positive (Ah)", &capacity.to_string()));
        }
        let initial_charge = r.number(root, &["initial_charge"])?.unwrap_or(capacity);
        if !(0.0..=capacity).contains(&initial_charge) {
            return Err(r.error(
                "<initial_charge>",
                &format!("within [0, capacity = {capacity}] (Ah)"),
                &initial_charge.to_string(),
            ));
        }
        let non_negative = |tag: &str, default: f64| -> Result<f64, PluginError> {
            let v = r.number(root, &[tag])?.unwrap_or(default);
            if v < 0.0 {
                return Err(r.error(&format!("<{tag}>"), "zero or positive", &v.to_string()));
            }
            Ok(v)
        };
        let resistance = non_negative("resistance", 0.0)?;
        let power_load = non_negative("power_load", 0.0)?;
        let tau = r.number(root, &["smooth_current_tau"])?.unwrap_or(1.0);
        if tau <= 0.0 {
            return Err(r.error("<smooth_current_tau>", "positive (s)", &tau.to_string()));
        }
        let motor_efficiency = r.number(root, &["motor_efficiency"])?.unwrap_or(1.0);
        if motor_efficiency <= 0.0 || motor_efficiency > 1.0 {
            return Err(r.error(
                "<motor_efficiency>",
                "in (0, 1]",
                &motor_efficiency.to_string(),
            ));
        }
        let motor_joints = root
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "motor_joint")
            .map(|c| c.text().unwrap_or("").trim().to_string())
            .collect::<Vec<_>>();
        if motor_joints.iter().any(|j| j.is_empty()) {
            return Err(r.error("<motor_joint>", "a joint name", ""));
        }
        Ok(BatteryConfig {
            name: name.to_string(),
            e0,
            e1,
            capacity,
            initial_charge,
            resistance,
            tau,
            power_load,
            motor_joints,
            motor_efficiency,
            publish_frequency: r
                .number(root, &["state_publish_frequency"])?
                .unwrap_or(10.0),
            stop_motors: r
                .boolean(root, "stop_motors_on_drained_battery")?
                .unwrap_or(true),
            disable_sensors: r
                .boolean(root, "disable_sensors_on_drained_battery")?
                .unwrap_or(false),
            power_topic: match text(root, "power_topic") {
                None => "power/enabled".to_string(),
                Some("") => return Err(r.error("<power_topic>", "a topic name", "")),
                Some(t) if t.starts_with('/') => t.to_string(),
                Some(t) => format!("/{t}"),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: &str = "<battery_name>main</battery_name>\
        <open_circuit_voltage_constant_coef>12.6</open_circuit_voltage_constant_coef>\
        <capacity>1.2</capacity>";

    fn parse(extra: &str) -> Result<BatteryConfig, PluginError> {
        BatteryConfig::parse(&format!("<plugin name='p'>{MIN}{extra}</plugin>"), "robot")
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
             <motor_efficiency>0.8</motor_efficiency><disable_sensors_on_drained_battery>true</disable_sensors_on_drained_battery>",
        )
        .unwrap();
        assert_eq!(c.motor_joints, ["l", "r"]);
        assert_eq!(
            (c.e1, c.initial_charge, c.motor_efficiency),
            (-2.0, 0.5, 0.8)
        );
        assert!(c.disable_sensors);
    }

    #[test]
    fn errors_name_the_element() {
        let e = BatteryConfig::parse("<plugin/>", "robot").unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "robot: LinearBattery: needs <battery_name>"
        );
        let e = parse("<initial_charge>2</initial_charge>").unwrap_err();
        assert!(
            e.message
                .contains("<initial_charge> must be within [0, capacity = 1.2]"),
            "{}",
            e.message
        );
        let e = parse("<smooth_current_tau>0</smooth_current_tau>").unwrap_err();
        assert!(e.message.contains("<smooth_current_tau> must be positive"));
        let e = parse("<motor_efficiency>1.5</motor_efficiency>").unwrap_err();
        assert!(e.message.contains("<motor_efficiency> must be in (0, 1]"));
        let e = BatteryConfig::parse(
            "<plugin><battery_name>b</battery_name><capacity>1</capacity></plugin>",
            "robot",
        )
        .unwrap_err();
        assert!(
            e.message
                .contains("needs <open_circuit_voltage_constant_coef>")
        );
    }
}
