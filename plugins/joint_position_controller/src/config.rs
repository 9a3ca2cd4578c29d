//! Reading the `<plugin>` element of a joint position controller, with gz-sim's defaults.

use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::Element;
use simcore_plugin_common::Pid;
use simcore_plugin_common::gz::{self, controller_topic, names};

/// gz-sim's PID gains and limits of the joint position controller.
pub const DEFAULT_PID: Pid = Pid::new(1.0, 0.1, 0.01, 1.0, -1.0, 1000.0, -1000.0, 0.0);

/// The parsed configuration of a joint position controller.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionConfig {
    /// `<joint_name>`s (at least one), as written; all get the same command.
    pub joints: Vec<String>,
    /// `<joint_index>`: the axis driven (default 0).
    pub axis: u32,
    /// The PID: `<p_gain>` 1, `<i_gain>` 0.1, `<d_gain>` 0.01, `<i_max>` 1, `<i_min>` −1,
    /// `<cmd_max>` 1000, `<cmd_min>` −1000, `<cmd_offset>` 0 by default.
    pub pid: Pid,
    /// Whether `<cmd_max>` was given (it limits the speed in velocity mode only then).
    pub cmd_max_set: bool,
    /// `<use_velocity_commands>`: drive by velocity instead of force.
    pub velocity_mode: bool,
    /// `<initial_position>`: the target before any command (default 0).
    pub initial_position: f64,
    /// The command topic: `<topic>`, else `/model/<m>/<sub_topic>`, else
    /// `/model/<m>/joint/<first joint>/<joint_index>/cmd_pos`.
    pub topic: String,
}

impl PositionConfig {
    /// Reads the `<plugin>` element `root`; `model` is the model's own name (for the default
    /// topic).
    pub fn read(root: &Element<'_, '_>, model: &str) -> Result<PositionConfig, PluginError> {
        let joints = names(root, "joint_name")?;
        let axis = root
            .param::<f64>("joint_index")
            .check("0 or 1", |v| *v == 0.0 || *v == 1.0)
            .or(0.0)? as u32;
        let pid = gz::pid(root, &DEFAULT_PID)?;
        let default = format!("/model/{model}/joint/{}/{axis}/cmd_pos", joints[0]);
        Ok(PositionConfig {
            axis,
            pid,
            cmd_max_set: root.has("cmd_max"),
            velocity_mode: root.get_or("use_velocity_commands", false)?,
            initial_position: root.get_or("initial_position", 0.0)?,
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

    fn parse(inner: &str) -> Result<PositionConfig, PluginError> {
        let text = format!(
            r#"<plugin name="gz::sim::systems::JointPositionController" filename="x">{inner}</plugin>"#
        );
        let doc = SdfDocument::parse(&text, Origin::new("arm: JointPositionController"))?;
        PositionConfig::read(&doc.root(), "arm")
    }

    #[test]
    fn defaults_as_gazebo() {
        let c = parse("<joint_name>j1</joint_name>").unwrap();
        assert_eq!(c.joints, ["j1"]);
        assert_eq!(c.axis, 0);
        assert_eq!(
            c.pid,
            Pid::new(1.0, 0.1, 0.01, 1.0, -1.0, 1000.0, -1000.0, 0.0)
        );
        assert!(!c.cmd_max_set && !c.velocity_mode);
        assert_eq!(c.initial_position, 0.0);
        assert_eq!(c.topic, "/model/arm/joint/j1/0/cmd_pos");
    }

    #[test]
    fn everything_set() {
        let c = parse(
            "<joint_name>a</joint_name><joint_name>b</joint_name><joint_index>1</joint_index>\
             <p_gain>5</p_gain><i_gain>0</i_gain><d_gain>0.5</d_gain><i_max>2</i_max><i_min>-2</i_min>\
             <cmd_max>3</cmd_max><cmd_min>-3</cmd_min><cmd_offset>0.1</cmd_offset>\
             <use_velocity_commands>true</use_velocity_commands><initial_position>0.4</initial_position>\
             <sub_topic>a_pos</sub_topic>",
        )
        .unwrap();
        assert_eq!(c.joints, ["a", "b"]);
        assert_eq!(c.axis, 1);
        assert_eq!(c.pid, Pid::new(5.0, 0.0, 0.5, 2.0, -2.0, 3.0, -3.0, 0.1));
        assert!(c.cmd_max_set && c.velocity_mode);
        assert_eq!(c.initial_position, 0.4);
        assert_eq!(c.topic, "/model/arm/a_pos");
    }

    #[test]
    fn errors() {
        let msg = |inner: &str| parse(inner).unwrap_err().message.to_string();
        assert_eq!(
            msg(""),
            "arm: JointPositionController: needs a <joint_name>"
        );
        assert!(msg("<joint_name>j</joint_name><p_gain>x</p_gain>").contains("<p_gain>"));
        assert_eq!(parse("").unwrap_err().code, ErrorCode::NOT_FOUND);
        assert_eq!(
            msg("<joint_name>j</joint_name><joint_index>1.5</joint_index>"),
            "arm: JointPositionController: <joint_index> must be 0 or 1, found \"1.5\""
        );
        assert_eq!(
            parse("<joint_name>j</joint_name><joint_index>1.0</joint_index>")
                .unwrap()
                .axis,
            1
        );
        assert!(
            msg("<joint_name>j</joint_name><use_velocity_commands>yes</use_velocity_commands>")
                .contains("true, false")
        );
    }
}
