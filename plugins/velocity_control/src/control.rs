//! The system: body-frame twists in, velocity commands every step out.

use crate::config::VelocityControlConfig;
use sim_plugin_api::prelude::*;
use simcore_plugin_common::gz::{GzSystem, find_named, valid_topic};
use simcore_plugin_common::{Attached, accepted_twist, attached, plugin_document};

/// One controlled entity: the model or a link, its command topic and its twist.
#[derive(Clone, Debug, PartialEq)]
struct Target {
    entity: EntityId,
    topic: String,
    /// The body-frame twist; `None` for a link until its first command (gz-sim commands a
    /// link only once it received one).
    twist: Option<Twist>,
}

/// Velocity control of a model and its links (see the crate documentation).
pub struct VelocityControl {
    /// The model first, then the `<link_name>` links.
    targets: Vec<Target>,
}

/// The world-frame velocity of a frame at `pose` moving at `twist` in its own axes.
pub fn world_twist(pose: Pose, twist: &Twist) -> (Vec3, Vec3) {
    (
        pose.orientation.rotate(twist.linear),
        pose.orientation.rotate(twist.angular),
    )
}

impl GzSystem for VelocityControl {
    /// Creates the system from its `<plugin>` element; it must be attached to a model. A
    /// `<link_name>` that is not a link of the model is reported as a warning and left out.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, model } = attached(config, world, "VelocityControl")?;
        let doc = plugin_document(config, &who)?;
        let parsed = VelocityControlConfig::read(&doc.root(), &model)?;
        let mut targets = vec![Target {
            entity: config.entity,
            topic: parsed.topic,
            twist: Some(parsed.initial),
        }];
        for name in parsed.links {
            // As gz-sim: a link it cannot find is reported, and the others are controlled.
            let entity = match find_named(world, scoped, &name, EntityKind::LINK, "link_name", &who)
            {
                Ok(e) => e,
                Err(why) => {
                    world.log_message(LogLevel::WARN, &format!("{}; not controlled", why.message));
                    continue;
                }
            };
            let written = format!("/model/{model}/link/{name}/cmd_vel");
            let topic = valid_topic(&written).ok_or_else(|| {
                PluginError::config(format!("{who}: `{written}` is not a valid topic name"))
            })?;
            targets.push(Target {
                entity,
                topic,
                twist: None,
            });
        }
        let system = VelocityControl { targets };
        simcore_plugin_common::declare_inputs(world, &system, &vec!["Twist"; system.targets.len()]);
        Ok(system)
    }
}

impl VelocityControl {
    /// The body-frame twist the model is held at.
    pub fn model_twist(&self) -> Twist {
        self.targets[0].twist.unwrap_or_default()
    }
}

impl System for VelocityControl {
    fn subscriptions(&self) -> Vec<String> {
        self.targets.iter().map(|t| t.topic.clone()).collect()
    }

    fn pre_step(
        &mut self,
        _ctx: &StepContext,
        inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        for m in inbox {
            let Ok(Payload::Twist(t)) = m.payload.as_enum() else {
                continue;
            };
            let topic = m.topic.as_str();
            // A Twist out of range is refused with a warning; the target keeps its last one.
            if !accepted_twist(world, topic, t) {
                continue;
            }
            if let Some(target) = self.targets.iter_mut().find(|x| x.topic == topic) {
                target.twist = Some(*t);
            }
        }
        for target in &self.targets {
            let Some(twist) = target.twist else { continue };
            // A removed entity is left alone, as gz-sim does.
            let Some(state) = world.kinematics_of(target.entity) else {
                continue;
            };
            let (linear, angular) = world_twist(state.pose, &twist);
            commands.set_velocity(target.entity, linear, angular);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_with_its_links_and_errors_naming_the_file_and_line() {
        use simcore_plugin_common::gz::OrIdle;
        use simcore_plugin_common::testing::SystemSetup;
        let setup = SystemSetup::on_model("gz::sim::systems::VelocityControl", "cart")
            .at_line(30)
            .with(2, EntityKind::LINK, "arm");
        let create_from = |body: &str| {
            setup.create::<VelocityControl>(&format!(
                "<plugin name=\"gz::sim::systems::VelocityControl\" filename=\"f\">\n{body}</plugin>"
            ))
        };
        let Err(e) = create_from("<initial_linear>fast</initial_linear>\n") else {
            panic!("an initial twist that is not three numbers is refused");
        };
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "cart: VelocityControl: <initial_linear> must be three numbers (x y z), found \"fast\" at world.sdf:31"
        );
        let Ok(OrIdle::Active(v)) = create_from(
            "<initial_linear>1 0 0</initial_linear>\n<link_name>arm</link_name>\n<link_name>none</link_name>\n",
        ) else {
            panic!("a velocity control is created");
        };
        assert_eq!(
            v.subscriptions(),
            ["/model/cart/cmd_vel", "/model/cart/link/arm/cmd_vel"]
        );
        assert_eq!(v.model_twist().linear, Vec3::new(1.0, 0.0, 0.0));
        let logs = setup.world.logs.lock().unwrap();
        assert_eq!(logs.len(), 1, "{logs:?}");
        assert!(logs[0].1.contains("<link_name> `none`"), "{logs:?}");
        assert!(logs[0].1.ends_with("; not controlled"), "{logs:?}");
    }

    #[test]
    fn body_twists_turn_with_the_frame() {
        let pose = Pose::new(
            Vec3::new(1.0, 2.0, 0.0),
            Quat::from_rpy(0.0, 0.0, std::f64::consts::FRAC_PI_2),
        );
        let (l, a) = world_twist(
            pose,
            &Twist {
                linear: Vec3::new(1.0, 0.0, 0.0),
                angular: Vec3::new(0.0, 0.0, 0.5),
            },
        );
        assert!((l - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-12, "{l:?}");
        assert!((a - Vec3::new(0.0, 0.0, 0.5)).length() < 1e-12, "{a:?}");
    }
}
