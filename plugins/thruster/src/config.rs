//! Reading the `<plugin>` element of a thruster, with gz-sim's defaults and topics.

use crate::propeller::Propeller;
use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::Element;
use simcore_plugin_common::Pid;
use simcore_plugin_common::gz::{required_name, topic_from};

/// What the command topic carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Thrust, N (`cmd_thrust`; the feedback is the propeller's angular velocity).
    Thrust,
    /// Angular velocity, rad/s (`<use_angvel_cmd>`, `cmd_vel`; the feedback is the thrust).
    AngularVelocity,
}

/// The parsed configuration of a thruster.
#[derive(Clone, Debug, PartialEq)]
pub struct ThrusterConfig {
    /// `<joint_name>` (required).
    pub joint: String,
    /// The propeller.
    pub propeller: Propeller,
    /// The command kind.
    pub command: Command,
    /// `<min_thrust_cmd>`, `<max_thrust_cmd>` (±1000): bounds of the command, N or rad/s.
    pub cmd_min: f64,
    /// See `cmd_min`.
    pub cmd_max: f64,
    /// `<deadband>`, N, and whether it is on (it is when given).
    pub deadband: f64,
    /// See `deadband`.
    pub deadband_on: bool,
    /// `<velocity_control>`: command the joint's velocity instead of a PID torque.
    pub velocity_control: bool,
    /// The propeller's PID: `<p_gain>` (0.1); gz-sim reads no integral or derivative gain.
    pub pid: Pid,
    /// The command, feedback and deadband topics.
    pub topics: [String; 3],
}

impl ThrusterConfig {
    /// Reads the `<plugin>` element `root` of a thruster of the model named `model`.
    pub fn read(root: &Element<'_, '_>, model: &str) -> Result<ThrusterConfig, PluginError> {
        // gz-sim reads the first <joint_name>.
        let joint_element = required_name(root, "joint_name")?;
        let joint = joint_element.text().to_string();
        let num = |tag: &str| root.get::<f64>(tag);
        let mut propeller = Propeller::default();
        if let Some(ct) = num("thrust_coefficient")? {
            propeller.thrust_coefficient = ct;
            propeller.coefficient_set = true;
        }
        propeller.diameter = num("propeller_diameter")?.unwrap_or(propeller.diameter);
        propeller.fluid_density = num("fluid_density")?.unwrap_or(propeller.fluid_density);
        propeller.wake_fraction = num("wake_fraction")?.unwrap_or(propeller.wake_fraction);
        propeller.alpha1 = num("alpha_1")?.unwrap_or(propeller.alpha1);
        propeller.alpha2 = num("alpha_2")?.unwrap_or(propeller.alpha2);
        let command = if root.get_or("use_angvel_cmd", false)? {
            Command::AngularVelocity
        } else {
            Command::Thrust
        };
        let (mut cmd_min, mut cmd_max) = (-1000.0, 1000.0);
        let (lo, hi) = (
            num("min_thrust_cmd")?.unwrap_or(cmd_min),
            num("max_thrust_cmd")?.unwrap_or(cmd_max),
        );
        // gz-sim reports max < min and keeps the defaults.
        if hi >= lo {
            (cmd_min, cmd_max) = (lo, hi);
        }
        let deadband = num("deadband")?;
        let velocity_control = root.get_or("velocity_control", false)?;
        let pid = Pid::new(
            num("p_gain")?.unwrap_or(0.1),
            0.0,
            0.0,
            1.0,
            -1.0,
            propeller.spin_for(cmd_max),
            propeller.spin_for(cmd_min),
            0.0,
        );
        let namespace = root.child("namespace");
        let ns = namespace.map_or(model, |n| n.text());
        let (cmd, feedback) = match command {
            Command::Thrust => ("cmd_thrust", "ang_vel"),
            Command::AngularVelocity => ("cmd_vel", "force"),
        };
        let custom = root.child("topic");
        let base = match custom {
            Some(t) => format!("{ns}/{}", t.text()),
            None => format!("/model/{ns}/joint/{joint}"),
        };
        // An invalid topic is blamed on the element it is made from: the <topic>, else the
        // <namespace>, else the <joint_name>.
        let culprit = custom.or(namespace).unwrap_or(joint_element);
        let topic = |suffix: &str| {
            let t = if custom.is_some() && suffix == cmd {
                base.clone()
            } else {
                format!("{base}/{suffix}")
            };
            topic_from(&culprit, &t)
        };
        Ok(ThrusterConfig {
            joint,
            propeller,
            command,
            cmd_min,
            cmd_max,
            deadband: deadband.unwrap_or(0.0),
            deadband_on: deadband.is_some(),
            velocity_control,
            pid,
            topics: [topic(cmd)?, topic(feedback)?, topic("enable_deadband")?],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::ErrorCode;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    fn parse(inner: &str) -> Result<ThrusterConfig, PluginError> {
        let text =
            format!(r#"<plugin name="gz::sim::systems::Thruster" filename="x">{inner}</plugin>"#);
        let doc = SdfDocument::parse(&text, Origin::new("sub: Thruster"))?;
        ThrusterConfig::read(&doc.root(), "sub")
    }

    #[test]
    fn defaults_topics_and_limits_as_gazebo() {
        let c = parse("<joint_name>prop</joint_name>").unwrap();
        assert_eq!(c.propeller, Propeller::default());
        assert_eq!(c.command, Command::Thrust);
        assert_eq!(
            (c.cmd_min, c.cmd_max, c.deadband_on),
            (-1000.0, 1000.0, false)
        );
        assert_eq!(
            c.topics,
            [
                "/model/sub/joint/prop/cmd_thrust",
                "/model/sub/joint/prop/ang_vel",
                "/model/sub/joint/prop/enable_deadband"
            ]
        );
        let c = parse(
            "<joint_name>prop</joint_name><use_angvel_cmd>true</use_angvel_cmd>\
             <namespace>auv</namespace><topic>thrust</topic><max_thrust_cmd>-5</max_thrust_cmd><min_thrust_cmd>0</min_thrust_cmd>\
             <thrust_coefficient>0.004</thrust_coefficient><deadband>1</deadband>",
        )
        .unwrap();
        assert_eq!(c.command, Command::AngularVelocity);
        assert_eq!(
            c.topics,
            [
                "/auv/thrust",
                "/auv/thrust/force",
                "/auv/thrust/enable_deadband"
            ]
        );
        assert_eq!(
            (c.cmd_min, c.cmd_max),
            (-1000.0, 1000.0),
            "max < min: the defaults"
        );
        assert!(c.propeller.coefficient_set && c.deadband_on);
        let e = parse("").unwrap_err();
        assert_eq!(e.code, ErrorCode::NOT_FOUND);
        assert_eq!(e.message.as_str(), "sub: Thruster: needs a <joint_name>");
        assert_eq!(
            parse("<joint_name>p</joint_name><fluid_density>x</fluid_density>")
                .unwrap_err()
                .message
                .as_str(),
            "sub: Thruster: <fluid_density> must be a finite number, found \"x\""
        );
        assert_eq!(
            parse("<joint_name>p</joint_name><namespace/>")
                .unwrap_err()
                .message
                .as_str(),
            "sub: Thruster: <namespace> must be a name making a valid topic \
             (not `/model//joint/p/cmd_thrust`), found \"\""
        );
    }
}
