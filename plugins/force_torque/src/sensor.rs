//! The force-torque sensor: what it measures and how.
//!
//! The engine reports, per joint, the constraint wrench `(f, τ)` the joint applied on its
//! child link over the last step (reaction, limit and motor forces together), with the torque
//! about the joint origin `O`, world frame. Per update the sensor:
//!
//! 1. picks the direction: `parent_to_child` reports `(f, τ)`, the parent's action on the
//!    child; `child_to_parent` (the default) reports `(-f, -τ)`, the child's action on the
//!    parent (a weight hanging below the joint reads a downward force of `m g`);
//! 2. takes the torque about the sensor origin `S` instead of `O`: `τ_S = τ_O + (O - S) × f`;
//! 3. expresses force and torque in the axes of the child link, the parent link (the world
//!    for a joint to `world`) or the sensor frame (`<frame>`);
//! 4. adds per-axis noise (`<force><x|y|z><noise>`, `<torque><x|y|z><noise>`), with the time
//!    since the previous update as `dt`, so that dynamic bias drifts as in Gazebo.
//!
//! The sensor finds its joint as its entity's parent (a sensor inside a `<joint>`) and the
//! joint's parent link under the engine's name `model::joint::__parent__`.

use crate::config::{ForceTorqueConfig, Frame, MeasureDirection};
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{
    Wrench,
    abi_stable::std_types::{RBox, RSlice, RSliceMut},
    prelude::*,
};
use simcore_plugin_common::{NoiseChannel, SdfSensor, axis_channels};

/// Noise stream numbers (with the sensor's seed) of the force x, y, z.
pub const FORCE_STREAMS: [u64; 3] = [0, 1, 2];
/// Noise stream numbers of the torque x, y, z.
pub const TORQUE_STREAMS: [u64; 3] = [3, 4, 5];

/// Where the sensor is at one update, all world frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// The joint origin, about which the engine's torque is taken.
    pub joint_origin: Vec3,
    /// The sensor's world pose (its origin is where the torque is reported about).
    pub sensor: Pose,
    /// Orientation of the child link.
    pub child: Quat,
    /// Orientation of the parent link (identity for the world).
    pub parent: Quat,
}

/// A force-torque sensor (SDF `<sensor type="force_torque">` inside a `<joint>`).
#[derive(Clone, Debug)]
pub struct ForceTorqueSensor {
    scoped_name: String,
    joint: EntityId,
    child_link: EntityId,
    parent_link: EntityId,
    pose_in_child: Pose,
    frame: Frame,
    direction: MeasureDirection,
    /// Force x, y, z.
    force_noise: [NoiseChannel; 3],
    /// Torque x, y, z.
    torque_noise: [NoiseChannel; 3],
}

impl SdfSensor for ForceTorqueSensor {
    /// Reads `<force_torque>`. The sensor measures when it is inside a simulated `<joint>` (its
    /// entity's parent is a joint); elsewhere it is created with a warning and never publishes,
    /// as in gz-sim.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let scoped_name = config.scoped_name.as_str();
        let ft = ForceTorqueConfig::read(sdf)?;
        let joint = world
            .entity_info(config.sensor)
            .into_option()
            .and_then(|s| world.entity_info(s.parent).into_option())
            .filter(|j| j.kind == EntityKind::JOINT);
        let Some(joint) = joint else {
            world.log_message(
                LogLevel::WARN,
                &format!(
                    "{scoped_name}: a force_torque sensor measures only inside a <joint> of a \
                     model that is not static; it does not update (move the <sensor> into the \
                     joint whose wrench it measures)"
                ),
            );
            return Ok(ForceTorqueSensor::new(
                &ft,
                scoped_name,
                (EntityId::NONE, config.link, EntityId::NONE),
                config.pose,
                config.seed,
            ));
        };
        let parent_link =
            world.entity_by_name(format!("{}::__parent__", joint.scoped_name).as_str().into());
        if ft.frame == Frame::Parent && parent_link == EntityId::NONE {
            let frame = sdf.find("force_torque/frame").unwrap_or(*sdf);
            let expected = format!(
                "child or sensor, as the parent link of joint `{}` is not known",
                joint.scoped_name
            );
            return Err(frame.error(expected, frame.text()).into());
        }
        Ok(ForceTorqueSensor::new(
            &ft,
            scoped_name,
            (joint.id, config.link, parent_link),
            config.pose,
            config.seed,
        ))
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(String::new(), "Wrench")]
    }
}

impl ForceTorqueSensor {
    /// Builds the sensor from a parsed configuration: `joint`, `child_link` and `parent_link`
    /// are the entities it reads, `pose_in_child` its pose in the child link's frame, `seed`
    /// the seed of its noise streams.
    pub fn new(
        ft: &ForceTorqueConfig,
        scoped_name: &str,
        (joint, child_link, parent_link): (EntityId, EntityId, EntityId),
        pose_in_child: Pose,
        seed: u64,
    ) -> Self {
        ForceTorqueSensor {
            scoped_name: scoped_name.to_string(),
            joint,
            child_link,
            parent_link,
            pose_in_child: Pose::new(
                pose_in_child.position,
                pose_in_child.orientation.normalized(),
            ),
            frame: ft.frame,
            direction: ft.direction,
            force_noise: axis_channels(&ft.force_noise, seed, FORCE_STREAMS),
            torque_noise: axis_channels(&ft.torque_noise, seed, TORQUE_STREAMS),
        }
    }

    /// The sensor's pose in its child link's frame.
    pub fn pose_in_child(&self) -> Pose {
        self.pose_in_child
    }

    /// One reading from `on_child`, the wrench the joint applied on its child link (world
    /// frame, torque about the joint origin), with the sensor placed as `at`; `dt` (s) is
    /// the time since the previous reading (0 for the first).
    pub fn measure(&mut self, on_child: Wrench, at: &Placement, dt: f64) -> Wrench {
        let (f, t) = match self.direction {
            MeasureDirection::ParentToChild => (on_child.force, on_child.torque),
            MeasureDirection::ChildToParent => (-on_child.force, -on_child.torque),
        };
        let t = t + (at.joint_origin - at.sensor.position).cross(f);
        let axes = match self.frame {
            Frame::Child => at.child,
            Frame::Parent => at.parent,
            Frame::Sensor => at.sensor.orientation,
        }
        .inverse();
        let (f, t) = (axes.rotate(f), axes.rotate(t));
        let [nfx, nfy, nfz] = &mut self.force_noise;
        let [ntx, nty, ntz] = &mut self.torque_noise;
        Wrench {
            force: Vec3::new(nfx.apply(f.x, dt), nfy.apply(f.y, dt), nfz.apply(f.z, dt)),
            torque: Vec3::new(ntx.apply(t.x, dt), nty.apply(t.y, dt), ntz.apply(t.z, dt)),
        }
    }
}

impl Sensor for ForceTorqueSensor {
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        if self.joint == EntityId::NONE {
            return Ok(());
        }
        let mut wrench = [Wrench::default()];
        let known = world.joint_wrenches(
            RSlice::from_slice(&[self.joint]),
            RSliceMut::from_mut_slice(&mut wrench),
        );
        let gone = |what: &str, id: EntityId| {
            PluginError::runtime(format!(
                "{}: its {what} (entity {}) is not in the world",
                self.scoped_name, id.0
            ))
        };
        if known != 1 {
            return Err(gone("joint", self.joint));
        }
        let joint = world
            .kinematics_of(self.joint)
            .ok_or_else(|| gone("joint", self.joint))?;
        let child = world
            .kinematics_of(self.child_link)
            .ok_or_else(|| gone("child link", self.child_link))?;
        let parent = match self.frame {
            Frame::Parent => {
                world
                    .kinematics_of(self.parent_link)
                    .ok_or_else(|| gone("parent link", self.parent_link))?
                    .pose
                    .orientation
            }
            _ => Quat::IDENTITY,
        };
        let at = Placement {
            joint_origin: joint.pose.position,
            sensor: child.pose.compose(self.pose_in_child),
            child: child.pose.orientation,
            parent,
        };
        let reading = self.measure(wrench[0], &at, ctx.dt.as_secs_f64());
        out.publish("", Payload::Wrench(RBox::new(reading)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ForceTorqueConfig;
    use sim_plugin_api::noise::{NoiseKind, NoiseParams};
    use std::f64::consts::FRAC_PI_2;

    fn close(a: Vec3, b: Vec3) {
        assert!((a - b).length() < 1e-9, "{a:?} != {b:?}");
    }

    fn sensor(frame: Frame, direction: MeasureDirection) -> ForceTorqueSensor {
        let c = ForceTorqueConfig {
            frame,
            direction,
            ..Default::default()
        };
        ForceTorqueSensor::new(
            &c,
            "m::j::ft",
            (EntityId(5), EntityId(3), EntityId(2)),
            Pose::IDENTITY,
            1,
        )
    }

    /// A 2 kg weight hanging from a joint at the origin: the joint holds it up with +m g.
    const HOLD: Wrench = Wrench {
        force: Vec3::new(0.0, 0.0, 19.6),
        torque: Vec3::new(0.0, 0.0, 0.0),
    };

    fn upright() -> Placement {
        Placement {
            joint_origin: Vec3::new(0.0, 0.0, 1.0),
            sensor: Pose::new(Vec3::new(0.0, 0.0, 1.0), Quat::IDENTITY),
            child: Quat::IDENTITY,
            parent: Quat::IDENTITY,
        }
    }

    #[test]
    fn directions() {
        let mut c2p = sensor(Frame::Child, MeasureDirection::ChildToParent);
        close(
            c2p.measure(HOLD, &upright(), 0.0).force,
            Vec3::new(0.0, 0.0, -19.6),
        );
        let mut p2c = sensor(Frame::Child, MeasureDirection::ParentToChild);
        close(
            p2c.measure(HOLD, &upright(), 0.0).force,
            Vec3::new(0.0, 0.0, 19.6),
        );
    }

    #[test]
    fn frames() {
        // Child rolled +90° about x: the world z axis is its +y axis.
        let roll = Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), FRAC_PI_2);
        let yaw = Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), FRAC_PI_2);
        let at = Placement {
            child: roll,
            parent: yaw,
            sensor: Pose::new(Vec3::new(0.0, 0.0, 1.0), roll * yaw),
            ..upright()
        };
        let down = Vec3::new(0.0, 0.0, -19.6);
        let mut s = sensor(Frame::Child, MeasureDirection::ChildToParent);
        close(s.measure(HOLD, &at, 0.0).force, roll.inverse().rotate(down));
        close(s.measure(HOLD, &at, 0.0).force, Vec3::new(0.0, -19.6, 0.0));
        let mut s = sensor(Frame::Parent, MeasureDirection::ChildToParent);
        close(s.measure(HOLD, &at, 0.0).force, down);
        let mut s = sensor(Frame::Sensor, MeasureDirection::ChildToParent);
        close(
            s.measure(HOLD, &at, 0.0).force,
            (roll * yaw).inverse().rotate(down),
        );
    }

    #[test]
    fn torque_is_taken_about_the_sensor_origin() {
        // The sensor 0.5 m along +x from the joint origin; the joint pushes up 10 N on the child.
        let on_child = Wrench {
            force: Vec3::new(0.0, 0.0, 10.0),
            torque: Vec3::new(1.0, 0.0, 0.0),
        };
        let at = Placement {
            sensor: Pose::new(Vec3::new(0.5, 0.0, 1.0), Quat::IDENTITY),
            ..upright()
        };
        let mut s = sensor(Frame::Child, MeasureDirection::ParentToChild);
        let w = s.measure(on_child, &at, 0.0);
        // About S, the upward force at O (0.5 m towards -x) turns about +y: (O - S) × f.
        close(w.torque, Vec3::new(1.0, 5.0, 0.0));
        let mut s = sensor(Frame::Child, MeasureDirection::ChildToParent);
        close(
            s.measure(on_child, &at, 0.0).torque,
            Vec3::new(-1.0, -5.0, 0.0),
        );
    }

    /// The documented difference from gz-sim, whose `ForceTorquePrivate::Update` computes
    /// `τ = R_JSᵀ τ_J − p_JS × (R_JSᵀ f_J)`, crossing the offset in joint axes with the force
    /// in sensor axes. With an offset and no rotation (or a rotation and no offset) both agree;
    /// for a sensor both offset and rotated, simcore takes the torque about the sensor origin
    /// in sensor axes, `R_JSᵀ (τ_J − p_JS × f_J)`.
    #[test]
    fn a_rotated_and_offset_sensor_frame_gets_the_torque_about_its_origin() {
        // Joint frame = world at the origin; sensor 0.5 m along +x, yawed +90°.
        let yaw = Quat::from_axis_angle(Vec3::new(0.0, 0.0, 1.0), FRAC_PI_2);
        let p = Vec3::new(0.5, 0.0, 0.0);
        let at = Placement {
            joint_origin: Vec3::ZERO,
            sensor: Pose::new(p, yaw),
            child: Quat::IDENTITY,
            parent: Quat::IDENTITY,
        };
        let on_child = Wrench {
            force: Vec3::new(0.0, 0.0, 10.0),
            torque: Vec3::ZERO,
        };
        let mut s = sensor(Frame::Sensor, MeasureDirection::ParentToChild);
        let w = s.measure(on_child, &at, 0.0);
        let r = yaw.inverse();
        let ours = r.rotate(Vec3::ZERO - p.cross(on_child.force));
        close(w.torque, ours);
        // World (0, 5, 0): the upward force at the joint, 0.5 m behind S, turns about +y,
        // which is the sensor's +x. Gazebo's formula gives the sensor's +y (the world's -x).
        close(w.torque, Vec3::new(5.0, 0.0, 0.0));
        let gazebo = r.rotate(on_child.torque) - p.cross(r.rotate(on_child.force));
        close(gazebo, Vec3::new(0.0, 5.0, 0.0));
        // Offset only: the two agree.
        let at = Placement {
            sensor: Pose::new(p, Quat::IDENTITY),
            ..at
        };
        let w = s.measure(on_child, &at, 0.0);
        close(w.torque, on_child.torque - p.cross(on_child.force));
    }

    #[test]
    fn a_parent_frame_needs_the_parent_link() {
        use sim_plugin_api::testing::{StaticWorld, sensor_config};
        let mut w = StaticWorld::default();
        w.set_entity(EntityId(5), EntityKind::JOINT, EntityId(1), "arm::wrist");
        w.set_entity(
            EntityId(9),
            EntityKind::SENSOR,
            EntityId(5),
            "arm::wrist::ft",
        );
        let text = "<sensor name=\"ft\" type=\"force_torque\">\n  <force_torque>\n    \
                    <frame>parent</frame>\n  </force_torque>\n</sensor>";
        let mut config = sensor_config("arm::wrist::ft", "force_torque", EntityId(3), text)
            .with_source("world.sdf", 40);
        config.sensor = EntityId(9);
        let e = w
            .with(|w| ForceTorqueSensor::create(&config, &w))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "arm::wrist::ft: <force_torque><frame> must be child or sensor, as the parent link of \
             joint `arm::wrist` is not known, found \"parent\" at world.sdf:42"
        );
        // With the parent link known, it is created.
        w.set_entity(
            EntityId(2),
            EntityKind::LINK,
            EntityId(1),
            "arm::wrist::__parent__",
        );
        w.with(|w| ForceTorqueSensor::create(&config, &w)).unwrap();
    }

    #[test]
    fn noise_statistics_per_axis() {
        let g = |mean, stddev| NoiseParams {
            kind: NoiseKind::Gaussian,
            mean,
            stddev,
            ..Default::default()
        };
        let c = ForceTorqueConfig {
            force_noise: [g(0.0, 0.5), NoiseParams::default(), g(1.0, 0.0)],
            torque_noise: [NoiseParams::default(), g(0.0, 0.2), NoiseParams::default()],
            ..Default::default()
        };
        let mut s = ForceTorqueSensor::new(
            &c,
            "m::j::ft",
            (EntityId(5), EntityId(3), EntityId(2)),
            Pose::IDENTITY,
            7,
        );
        let n = 20_000;
        let (mut sx, mut sxx, mut sty, mut styy) = (0.0, 0.0, 0.0, 0.0);
        for _ in 0..n {
            let w = s.measure(HOLD, &upright(), 0.001);
            sx += w.force.x;
            sxx += w.force.x * w.force.x;
            sty += w.torque.y;
            styy += w.torque.y * w.torque.y;
            assert_eq!(w.force.y, 0.0);
            assert!((w.force.z - (-19.6 + 1.0)).abs() < 1e-12);
            assert_eq!((w.torque.x, w.torque.z), (0.0, 0.0));
        }
        let n = n as f64;
        let (mx, my) = (sx / n, sty / n);
        let (sdx, sdy) = ((sxx / n - mx * mx).sqrt(), (styy / n - my * my).sqrt());
        assert!(mx.abs() < 0.02 && (sdx - 0.5).abs() < 0.02, "{mx} {sdx}");
        assert!(my.abs() < 0.01 && (sdy - 0.2).abs() < 0.01, "{my} {sdy}");
        // The same seed gives the same readings; another seed others.
        let mut a = ForceTorqueSensor::new(
            &c,
            "a",
            (EntityId(5), EntityId(3), EntityId(2)),
            Pose::IDENTITY,
            7,
        );
        let mut b = ForceTorqueSensor::new(
            &c,
            "b",
            (EntityId(5), EntityId(3), EntityId(2)),
            Pose::IDENTITY,
            7,
        );
        let mut d = ForceTorqueSensor::new(
            &c,
            "d",
            (EntityId(5), EntityId(3), EntityId(2)),
            Pose::IDENTITY,
            8,
        );
        let wa = a.measure(HOLD, &upright(), 0.0);
        assert_eq!(wa, b.measure(HOLD, &upright(), 0.0));
        assert_ne!(wa, d.measure(HOLD, &upright(), 0.0));
    }
}
