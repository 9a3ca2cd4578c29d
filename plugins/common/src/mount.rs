//! Where a sensor sits: its link and its pose in that link, with its scoped name for the
//! messages that name it ([`SensorMount`]).
//!
//! Every sensor plugin is configured with the same three facts
//! ([`SensorConfig`]'s `scoped_name`, `link` and `pose`) and measures from the same place, the
//! sensor frame on its link (see [`crate::frame`]).

use crate::frame::sensor_frame;
use sim_plugin_api::{EntityId, KinematicState, PluginError, Pose, SensorConfig, WorldRef};

/// A sensor's place on its link: what it measures from.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorMount {
    /// The sensor's scoped name, `model::link::sensor` (for messages).
    pub scoped_name: String,
    /// The link it is attached to.
    pub link: EntityId,
    /// Its pose in the link's frame, the orientation normalised.
    pub pose_in_link: Pose,
}

impl SensorMount {
    /// The sensor `scoped_name` on `link` at `pose_in_link` (its orientation is normalised).
    pub fn new(scoped_name: &str, link: EntityId, pose_in_link: Pose) -> SensorMount {
        SensorMount {
            scoped_name: scoped_name.to_string(),
            link,
            pose_in_link: Pose::new(pose_in_link.position, pose_in_link.orientation.normalized()),
        }
    }

    /// The place of the sensor `config` configures: its scoped name, link and pose.
    pub fn of(config: &SensorConfig<'_>) -> SensorMount {
        SensorMount::new(config.scoped_name.as_str(), config.link, config.pose)
    }

    /// The motion of the sensor's link now (world frame); a run-time error naming the sensor
    /// when its link is not in the world (`m::l::s: its link (entity 5) is not in the world`).
    pub fn link_state(&self, world: &WorldRef<'_>) -> Result<KinematicState, PluginError> {
        world.kinematics_of(self.link).ok_or_else(|| {
            PluginError::runtime(format!(
                "{}: its link (entity {}) is not in the world",
                self.scoped_name, self.link.0
            ))
        })
    }

    /// The motion of the sensor frame now (world frame, see [`crate::frame`]); the error of
    /// [`SensorMount::link_state`] when its link is not in the world.
    pub fn state(&self, world: &WorldRef<'_>) -> Result<KinematicState, PluginError> {
        Ok(sensor_frame(&self.link_state(world)?, self.pose_in_link))
    }

    /// The world pose of the sensor frame now: its link's pose composed with its pose in the
    /// link ([`SensorMount::state`]'s pose).
    pub fn pose(&self, world: &WorldRef<'_>) -> Result<Pose, PluginError> {
        Ok(self.state(world)?.pose)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::testing::{StaticWorld, sensor_config};
    use sim_plugin_api::{ErrorCode, Quat, Vec3};

    #[test]
    fn the_pose_in_the_link_is_normalised_and_taken_from_the_configuration() {
        let q = Quat::from_rpy(0.1, 0.2, 0.3);
        let unnormalised = Quat {
            w: q.w * 2.0,
            x: q.x * 2.0,
            y: q.y * 2.0,
            z: q.z * 2.0,
        };
        let at = Vec3::new(1.0, 2.0, 3.0);
        let m = SensorMount::new("m::l::s", EntityId(4), Pose::new(at, unnormalised));
        assert_eq!(m.scoped_name, "m::l::s");
        assert_eq!(m.link, EntityId(4));
        assert_eq!(m.pose_in_link, Pose::new(at, unnormalised.normalized()));
        let o = m.pose_in_link.orientation;
        assert!((o.w * o.w + o.x * o.x + o.y * o.y + o.z * o.z - 1.0).abs() < 1e-12);

        let mut config = sensor_config("a::b::c", "imu", EntityId(9), "");
        config.pose = Pose::new(at, unnormalised);
        assert_eq!(
            SensorMount::of(&config),
            SensorMount::new("a::b::c", EntityId(9), Pose::new(at, unnormalised))
        );
    }

    #[test]
    fn measures_from_the_sensor_frame_on_its_link() {
        let link = KinematicState {
            pose: Pose::new(
                Vec3::new(1.0, 2.0, 3.0),
                Quat::from_rpy(0.0, 0.0, std::f64::consts::FRAC_PI_2),
            ),
            linear_velocity: Vec3::new(0.0, 0.0, -1.0),
            angular_velocity: Vec3::new(0.0, 0.0, 2.0),
            ..KinematicState::default()
        };
        let mut w = StaticWorld::default();
        w.set_kinematics(EntityId(3), link);
        let offset = Pose::new(Vec3::new(0.5, 0.0, 0.0), Quat::from_rpy(0.0, 0.3, 0.0));
        let m = SensorMount::new("m::l::s", EntityId(3), offset);
        let (link_state, state, pose) = w.with(|w| {
            (
                m.link_state(&w).unwrap(),
                m.state(&w).unwrap(),
                m.pose(&w).unwrap(),
            )
        });
        assert_eq!(link_state, link);
        assert_eq!(state, sensor_frame(&link, m.pose_in_link));
        assert_eq!(pose, link.pose.compose(m.pose_in_link));
        // 0.5 m along the link's x, which points along the world's y.
        assert!((pose.position - Vec3::new(1.0, 2.5, 3.0)).length() < 1e-12);
    }

    #[test]
    fn a_link_not_in_the_world_is_a_runtime_error_naming_the_sensor() {
        let m = SensorMount::new("m::l::s", EntityId(5), Pose::IDENTITY);
        let w = StaticWorld::default();
        for e in [
            w.with(|w| m.link_state(&w).map(|_| ())).unwrap_err(),
            w.with(|w| m.state(&w).map(|_| ())).unwrap_err(),
            w.with(|w| m.pose(&w).map(|_| ())).unwrap_err(),
        ] {
            assert_eq!(e.code, ErrorCode::RUNTIME);
            assert_eq!(
                e.message.as_str(),
                "m::l::s: its link (entity 5) is not in the world"
            );
        }
    }
}
