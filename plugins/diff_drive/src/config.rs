//! Reading the `<plugin>` element of a diff drive.
//!
//! Parsed once, when the system is created. Invalid values are configuration errors whose
//! message names the model, the element and the text found there.

use crate::kinematics::SpeedLimiter;
use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::{Element, SdfError};
use simcore_plugin_common::gz::{OdometrySettings, absolute_topic_or, drive_frames, joint_names};
use simcore_plugin_common::sdf::{at, owner};

/// Wheel torque limit used when `<max_wheel_torque>` is absent, N·m.
pub const DEFAULT_MAX_WHEEL_TORQUE: f64 = 20.0;

/// The parsed configuration of a diff drive.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffDriveConfig {
    /// `<left_joint>` names (at least one), as written.
    pub left_joints: Vec<String>,
    /// `<right_joint>` names (at least one), as written.
    pub right_joints: Vec<String>,
    /// `<wheel_separation>`, m (default 1.0, as Gazebo).
    pub wheel_separation: f64,
    /// `<wheel_radius>`, m (default 0.2, as Gazebo).
    pub wheel_radius: f64,
    /// `<max_wheel_torque>`, N·m (default [`DEFAULT_MAX_WHEEL_TORQUE`]).
    pub max_wheel_torque: f64,
    /// Limits of the linear command (`<min|max_linear_velocity>`,
    /// `<min|max_linear_acceleration>`).
    pub linear: SpeedLimiter,
    /// Limits of the angular command (`<min|max_angular_velocity>`,
    /// `<min|max_angular_acceleration>`).
    pub angular: SpeedLimiter,
    /// Command topic: `<topic>` made absolute, or `cmd_vel` (relative to the model).
    pub topic: String,
    /// Stall flag topic: `<stall_topic>` made absolute, or `stall` (relative to the model).
    pub stall_topic: String,
    /// Motor power switch topic: `<power_topic>` made absolute, or `power/enabled` (relative
    /// to the model). `Boolean(false)` there stops the drive (a battery publishes it when
    /// drained); `Boolean(true)` lets it drive again.
    pub power_topic: String,
    /// The odometry: `<odom_publish_frequency>`, Hz (default 50; 0 or negative: every step);
    /// `<odom_topic>` made absolute, or `odometry` (relative to the model); `<tf_topic>` made
    /// absolute, or `tf` (relative to the model); `<frame_id>` (default `<model>/odom`);
    /// `<child_frame_id>` (default `<model>`).
    pub odometry: OdometrySettings,
}

impl DiffDriveConfig {
    /// Reads the `<plugin>` element `root` (its messages name the system, `rover: DiffDrive`);
    /// `model` (the scoped model name) gives the default frame ids.
    pub fn read(root: &Element<'_, '_>, model: &str) -> Result<DiffDriveConfig, PluginError> {
        let joints = |tag: &str| -> Result<Vec<String>, PluginError> {
            if !root.has(tag) {
                return Err(PluginError::config(format!(
                    "{}: needs at least one <{tag}>{}",
                    owner(root),
                    at(root)
                )));
            }
            Ok(joint_names(root, tag)?)
        };
        let left_joints = joints("left_joint")?;
        let right_joints = joints("right_joint")?;
        let positive = |tag: &str, default: f64| root.param::<f64>(tag).positive().or(default);
        let wheel_separation = positive("wheel_separation", 1.0)?;
        let wheel_radius = positive("wheel_radius", 0.2)?;
        let max_wheel_torque = positive("max_wheel_torque", DEFAULT_MAX_WHEEL_TORQUE)?;
        let odom_publish_frequency = root.get_or("odom_publish_frequency", 50.0)?;
        // Gazebo's older `<max_velocity>` / `<max_acceleration>` name the linear limits.
        let bound = |tags: &[&str]| -> Result<Option<Bound<'_, '_>>, SdfError> {
            for t in tags {
                if let Some(e) = root.child(t) {
                    return Ok(Some((e.value::<f64>()?, e)));
                }
            }
            Ok(None)
        };
        let linear = limiter(
            [
                bound(&["min_linear_velocity", "min_velocity"])?,
                bound(&["max_linear_velocity", "max_velocity"])?,
                bound(&["min_linear_acceleration", "min_acceleration"])?,
                bound(&["max_linear_acceleration", "max_acceleration"])?,
            ],
            "linear",
        )?;
        let angular = limiter(
            [
                bound(&["min_angular_velocity"])?,
                bound(&["max_angular_velocity"])?,
                bound(&["min_angular_acceleration"])?,
                bound(&["max_angular_acceleration"])?,
            ],
            "angular",
        )?;
        let topic = |tag: &str, default: &str| absolute_topic_or(root, tag, default);
        let command_topic = topic("topic", "cmd_vel")?;
        let odom_topic = topic("odom_topic", "odometry")?;
        let tf_topic = topic("tf_topic", "tf")?;
        let stall_topic = topic("stall_topic", "stall")?;
        let power_topic = topic("power_topic", "power/enabled")?;
        let (frame_id, child_frame_id) = drive_frames(root, model);
        Ok(DiffDriveConfig {
            left_joints,
            right_joints,
            wheel_separation,
            wheel_radius,
            max_wheel_torque,
            linear,
            angular,
            topic: command_topic,
            stall_topic,
            power_topic,
            odometry: OdometrySettings {
                frequency: odom_publish_frequency,
                topic: odom_topic,
                tf_topic,
                frame_id,
                child_frame_id,
            },
        })
    }
}

/// A limit written in the SDF: its value and its element.
type Bound<'a, 't> = (f64, Element<'a, 't>);

/// Builds a limiter from the optional bounds `[min velocity, max velocity, min acceleration,
/// max acceleration]` of the `what` (`linear`, `angular`) command: a missing minimum is the
/// negated maximum, a missing bound no limit. A minimum above its maximum is an error.
fn limiter(bounds: [Option<Bound<'_, '_>>; 4], what: &str) -> Result<SpeedLimiter, SdfError> {
    let [min_v, max_v, min_a, max_a] = bounds;
    let pair = |min: Option<Bound<'_, '_>>, max: Option<Bound<'_, '_>>, kind: &str| {
        let max_value = max.map_or(f64::INFINITY, |(v, _)| v);
        match (min, max) {
            (Some((v, e)), _) if v > max_value => Err(e.error(
                format!("at most <max_{what}_{kind}> ({max_value})"),
                e.text(),
            )),
            (Some((v, _)), _) => Ok((v, max_value)),
            // Without a minimum, a negative maximum would leave no speed at all.
            (None, Some((v, e))) if v < 0.0 => Err(e.error(
                format!("zero or positive without <min_{what}_{kind}> (the minimum is then its negation)"),
                e.text(),
            )),
            (None, _) => Ok((-max_value, max_value)),
        }
    };
    let (min_velocity, max_velocity) = pair(min_v, max_v, "velocity")?;
    let (min_acceleration, max_acceleration) = pair(min_a, max_a, "acceleration")?;
    Ok(SpeedLimiter {
        min_velocity,
        max_velocity,
        min_acceleration,
        max_acceleration,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::ErrorCode;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    fn read_text(text: &str) -> Result<DiffDriveConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new("rover: DiffDrive"))?;
        DiffDriveConfig::read(&doc.root(), "rover")
    }

    fn parse(inner: &str) -> Result<DiffDriveConfig, PluginError> {
        read_text(&format!(
            r#"<plugin name="gz::sim::systems::DiffDrive" filename="x">{inner}</plugin>"#
        ))
    }

    const JOINTS: &str = "<left_joint>l</left_joint><right_joint>r</right_joint>";

    #[test]
    fn defaults_as_gazebo() {
        let c = parse(JOINTS).unwrap();
        assert_eq!(c.left_joints, ["l"]);
        assert_eq!(c.right_joints, ["r"]);
        assert_eq!(c.wheel_separation, 1.0);
        assert_eq!(c.wheel_radius, 0.2);
        assert_eq!(c.odometry.frequency, 50.0);
        assert_eq!(c.max_wheel_torque, DEFAULT_MAX_WHEEL_TORQUE);
        assert_eq!(c.linear, SpeedLimiter::UNLIMITED);
        assert_eq!(c.angular, SpeedLimiter::UNLIMITED);
        assert_eq!(c.topic, "cmd_vel");
        assert_eq!(c.odometry.topic, "odometry");
        assert_eq!(c.odometry.tf_topic, "tf");
        assert_eq!(c.stall_topic, "stall");
        assert_eq!(c.power_topic, "power/enabled");
        assert_eq!(c.odometry.frame_id, "rover/odom");
        assert_eq!(c.odometry.child_frame_id, "rover");
    }

    #[test]
    fn everything_set() {
        let c = parse(
            "<left_joint>fl</left_joint><left_joint>rl</left_joint>\
             <right_joint>fr</right_joint><right_joint>rr</right_joint>\
             <wheel_separation>0.4</wheel_separation><wheel_radius>0.1</wheel_radius>\
             <odom_publish_frequency>10</odom_publish_frequency>\
             <max_wheel_torque>5</max_wheel_torque>\
             <max_linear_velocity>1</max_linear_velocity><min_linear_velocity>-0.5</min_linear_velocity>\
             <max_angular_velocity>2</max_angular_velocity>\
             <max_linear_acceleration>3</max_linear_acceleration>\
             <max_angular_acceleration>4</max_angular_acceleration>\
             <topic>cmd</topic><odom_topic>/odom</odom_topic><power_topic>power</power_topic>\
             <frame_id>odom</frame_id><child_frame_id>base_link</child_frame_id>",
        )
        .unwrap();
        assert_eq!(c.left_joints, ["fl", "rl"]);
        assert_eq!(c.right_joints, ["fr", "rr"]);
        assert_eq!((c.wheel_separation, c.wheel_radius), (0.4, 0.1));
        assert_eq!(c.odometry.frequency, 10.0);
        assert_eq!(c.max_wheel_torque, 5.0);
        assert_eq!((c.linear.min_velocity, c.linear.max_velocity), (-0.5, 1.0));
        assert_eq!(
            (c.angular.min_velocity, c.angular.max_velocity),
            (-2.0, 2.0)
        );
        assert_eq!(
            (c.linear.min_acceleration, c.linear.max_acceleration),
            (-3.0, 3.0)
        );
        assert_eq!(c.angular.max_acceleration, 4.0);
        assert_eq!(c.topic, "/cmd");
        assert_eq!(c.odometry.topic, "/odom");
        assert_eq!(c.power_topic, "/power");
        assert_eq!(c.odometry.frame_id, "odom");
        assert_eq!(c.odometry.child_frame_id, "base_link");
    }

    #[test]
    fn legacy_limit_names() {
        let c = parse(&format!(
            "{JOINTS}<max_velocity>2</max_velocity><max_acceleration>1</max_acceleration>"
        ))
        .unwrap();
        assert_eq!(c.linear.max_velocity, 2.0);
        assert_eq!(c.linear.min_acceleration, -1.0);
    }

    #[test]
    fn errors() {
        let msg = |inner: &str| {
            let e = parse(inner).unwrap_err();
            assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
            e.message.to_string()
        };
        assert_eq!(
            msg("<right_joint>r</right_joint>"),
            "rover: DiffDrive: needs at least one <left_joint>"
        );
        assert_eq!(
            msg("<left_joint>l</left_joint>"),
            "rover: DiffDrive: needs at least one <right_joint>"
        );
        assert_eq!(
            msg("<left_joint> </left_joint><right_joint>r</right_joint>"),
            "rover: DiffDrive: <left_joint> must be a joint name, found \"\""
        );
        assert_eq!(
            msg(&format!("{JOINTS}<wheel_radius>0</wheel_radius>")),
            "rover: DiffDrive: <wheel_radius> must be positive, found \"0\""
        );
        assert_eq!(
            msg(&format!(
                "{JOINTS}<wheel_separation>wide</wheel_separation>"
            )),
            "rover: DiffDrive: <wheel_separation> must be a finite number, found \"wide\""
        );
        assert_eq!(
            msg(&format!(
                "{JOINTS}<min_linear_velocity>2</min_linear_velocity><max_linear_velocity>1</max_linear_velocity>"
            )),
            "rover: DiffDrive: <min_linear_velocity> must be at most <max_linear_velocity> (1), found \"2\""
        );
        assert_eq!(
            msg(&format!(
                "{JOINTS}<min_acceleration>2</min_acceleration><max_acceleration>1</max_acceleration>"
            )),
            "rover: DiffDrive: <min_acceleration> must be at most <max_linear_acceleration> (1), found \"2\""
        );
        assert_eq!(
            msg(&format!(
                "{JOINTS}<max_angular_velocity>-1</max_angular_velocity>"
            )),
            "rover: DiffDrive: <max_angular_velocity> must be zero or positive without \
             <min_angular_velocity> (the minimum is then its negation), found \"-1\""
        );
        assert_eq!(
            msg(&format!("{JOINTS}<topic> </topic>")),
            "rover: DiffDrive: <topic> must be a topic name, found \"\""
        );
        assert_eq!(
            read_text("").unwrap_err().message.as_str(),
            "rover: DiffDrive: needs at least one <left_joint>"
        );
        assert!(msg("<left_joint>").contains("not valid XML"));
    }
}
