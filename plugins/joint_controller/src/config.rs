//! Reading the `<plugin>` element of a joint controller, with gz-sim's defaults.

use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::Element;
use simcore_plugin_common::Pid;
use simcore_plugin_common::gz::{self, controller_topic, names};

/// gz-sim's PID gains and limits of the joint controller's force mode.
pub const DEFAULT_PID: Pid = Pid::new(1.0, 0.0, 0.0, 1.0, -1.0, 1000.0, -1000.0, 0.0);

/// The parsed configuration of a joint controller.
#[derive(Clone, Debug, PartialEq)]
pub struct VelocityConfig {
    /// `<joint_name>`s (at least one), as written; all get the same command.
    pub joints: Vec<String>,
    /// `<initial_velocity>`: the target before any command (default 0).
    pub initial_velocity: f64,
    /// The force PID of `<use_force_commands>`; `None` in velocity mode. Defaults: `<p_gain>`
    /// 1, `<i_gain>` 0, `<d_gain>` 0, `<i_max>` 1, `<i_min>` −1, `<cmd_max>` 1000,
    /// `<cmd_min>` −1000, `<cmd_offset>` 0.
    pub force_pid: Option<Pid>,
    /// `<disable_braking>` (force mode): no force while the joint turns faster than its
    /// target in the target's direction, nor for a zero target.
    pub disable_braking: bool,
    /// The command topic: `<topic>`, else `/model/<m>/<sub_topic>`, else
    /// `/model/<m>/joint/<first joint>/cmd_vel`.
    pub topic: String,
}

impl VelocityConfig {
    /// Reads the `<plugin>` element `root`; `model` is the model's own name (for the default
    /// topic).
    pub fn read(root: &Element<'_, '_>, model: &str) -> Result<VelocityConfig, PluginError> {
        let joints = names(root, "joint_name")?;
        let force_pid = if root.get_or("use_force_commands", false)? {
            Some(gz::pid(root, &DEFAULT_PID)?)
        } else {
            None
        };
        let default = format!("/model/{model}/joint/{}/cmd_vel", joints[0]);
        Ok(VelocityConfig {
            initial_velocity: root.get_or("initial_velocity", 0.0)?,
            disable_braking: force_pid.is_some() && root.get_or("disable_braking", false)?,
            force_pid,
            topic: controller_topic(root, model, &default)?,
            joints,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::ErrorCode;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    fn parse(inner: &str) -> Result<VelocityConfig, PluginError> {
        let text = format!(
            r#"<plugin name="gz::sim::systems::JointController" filename="x">{inner}</plugin>"#
        );
        let doc = SdfDocument::parse(&text, Origin::new("rover: JointController"))?;
        VelocityConfig::read(&doc.root(), "rover")
    }

    #[test]
    fn defaults_as_gazebo() {
        let c = parse("<joint_name>wheel</joint_name>").unwrap();
        assert_eq!(c.joints, ["wheel"]);
        assert_eq!(c.initial_velocity, 0.0);
        assert_eq!(c.force_pid, None);
        assert!(!c.disable_braking);
        assert_eq!(c.topic, "/model/rover/joint/wheel/cmd_vel");
        let f =
            parse("<joint_name>w</joint_name><use_force_commands>1</use_force_commands>").unwrap();
        assert_eq!(
            f.force_pid,
            Some(Pid::new(1.0, 0.0, 0.0, 1.0, -1.0, 1000.0, -1000.0, 0.0))
        );
    }

    #[test]
    fn everything_set() {
        let c = parse(
            "<joint_name>a</joint_name><joint_name>b</joint_name><initial_velocity>2</initial_velocity>\
             <use_force_commands>true</use_force_commands><p_gain>3</p_gain><i_gain>0.5</i_gain>\
             <d_gain>0.1</d_gain><i_max>4</i_max><i_min>-4</i_min><cmd_max>9</cmd_max><cmd_min>-8</cmd_min>\
             <cmd_offset>0.2</cmd_offset><disable_braking>true</disable_braking><topic>/w</topic>",
        )
        .unwrap();
        assert_eq!(c.joints, ["a", "b"]);
        assert_eq!(c.initial_velocity, 2.0);
        assert_eq!(
            c.force_pid,
            Some(Pid::new(3.0, 0.5, 0.1, 4.0, -4.0, 9.0, -8.0, 0.2))
        );
        assert!(c.disable_braking);
        assert_eq!(c.topic, "/w");
    }

    #[test]
    fn errors() {
        let msg = |inner: &str| parse(inner).unwrap_err().message.to_string();
        assert_eq!(msg(""), "rover: JointController: needs a <joint_name>");
        assert_eq!(parse("").unwrap_err().code, ErrorCode::NOT_FOUND);
        assert_eq!(
            msg("<joint_name>j</joint_name><initial_velocity>fast</initial_velocity>"),
            "rover: JointController: <initial_velocity> must be a finite number, found \"fast\""
        );
    }
}
