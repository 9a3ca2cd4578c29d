//! The odometry publisher: the model's pose each step, odometry at its frequency.

use crate::config::OdometryConfig;
use crate::estimate::{angular_velocity, planar_velocity};
use sim_plugin_api::{
    noise::{NoiseKind, NoiseParams},
    prelude::*,
};
use simcore_plugin_common::gz::{GzSystem, OdometryOutput};
use simcore_plugin_common::{
    Attached, NoiseChannel, RollingMean, Throttle, attached, period_ns, plugin_document,
};

/// Steps the velocity estimate averages over (gz-sim's window).
pub const WINDOW: usize = 10;

/// Odometry of the model it is attached to (see the crate documentation).
pub struct OdometryPublisher {
    config: OdometryConfig,
    model: EntityId,
    /// The offset pose and sim time of the previous step.
    last: Option<(Pose, f64)>,
    linear: [RollingMean; 3],
    angular: [RollingMean; 3],
    /// Noise of linear x, y, z and angular x, y, z.
    noise: [NoiseChannel; 6],
    throttle: Throttle,
    odom_output: OdometryOutput,
}

impl GzSystem for OdometryPublisher {
    /// Creates the system from its `<plugin>` element; it must be attached to a model.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { who, model, .. } = attached(config, world, "OdometryPublisher")?;
        let doc = plugin_document(config, &who)?;
        let parsed = OdometryConfig::read(&doc.root(), &model)?;
        Ok(OdometryPublisher::new(parsed, config.entity, config.seed))
    }

    /// The odometry (`Odometry`) and its transform (`Pose_V`).
    fn outputs(&self) -> Vec<(String, &'static str)> {
        self.odom_output.outputs()
    }
}

impl OdometryPublisher {
    /// Builds the system from a parsed configuration for `model`, its noise seeded by `seed`.
    pub fn new(config: OdometryConfig, model: EntityId, seed: u64) -> Self {
        let params = NoiseParams {
            kind: NoiseKind::Gaussian,
            stddev: config.gaussian_noise,
            ..Default::default()
        };
        let mean = || std::array::from_fn(|_| RollingMean::new(WINDOW));
        OdometryPublisher {
            model,
            last: None,
            linear: mean(),
            angular: mean(),
            noise: std::array::from_fn(|i| NoiseChannel::new(params, seed, i as u64)),
            throttle: Throttle::default(),
            odom_output: OdometryOutput::new(&config.odometry),
            config,
        }
    }

    /// Pushes this step's finite differences; the twist to publish (means plus noise).
    fn estimate(&mut self, last: Pose, pose: Pose, dt: f64) -> Twist {
        let w = angular_velocity(last, pose, dt);
        let three = self.config.dimensions == 3;
        if three {
            let d = pose.position - last.position;
            let v = pose.orientation.inverse().rotate(d).scale(1.0 / dt);
            for (m, x) in self.linear.iter_mut().zip(v.to_array()) {
                m.push(x);
            }
            self.angular[0].push(w.x);
            self.angular[1].push(w.y);
        } else {
            let (fwd, left) = planar_velocity(last, pose, dt);
            self.linear[0].push(fwd);
            self.linear[1].push(left);
        }
        self.angular[2].push(w.z);
        // In 2-D, z, roll and pitch rates are noise alone (their means stay 0).
        let mut n = |i: usize, x: f64| self.noise[i].apply(x, dt);
        let linear = Vec3::new(
            n(0, self.linear[0].mean()),
            n(1, self.linear[1].mean()),
            n(2, self.linear[2].mean()),
        );
        let angular = Vec3::new(
            n(3, self.angular[0].mean()),
            n(4, self.angular[1].mean()),
            n(5, self.angular[2].mean()),
        );
        Twist { linear, angular }
    }
}

impl System for OdometryPublisher {
    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        // A removed model publishes nothing more.
        let Some(state) = world.kinematics_of(self.model) else {
            return Ok(());
        };
        let pose = state.pose.compose(self.config.offset);
        let now = ctx.now.as_secs_f64();
        let Some((last, then)) = self.last.replace((pose, now)) else {
            return Ok(());
        };
        let dt = now - then;
        if dt <= 0.0 {
            return Ok(());
        }
        let twist = self.estimate(last, pose, dt);
        if !self
            .throttle
            .due(period_ns(self.config.odometry.frequency), ctx)
        {
            return Ok(());
        }
        let mut published = pose;
        if self.config.dimensions == 2 {
            published.position.z = 0.0;
        }
        for mut m in self.odom_output.messages(published, twist) {
            m.header.stamp = ctx.now;
            out.push(m);
        }
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.last = None;
        for m in self.linear.iter_mut().chain(&mut self.angular) {
            m.clear();
        }
        self.throttle.reset();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::gz::OrIdle;
    use simcore_plugin_common::testing::SystemSetup;

    fn created(body: &str) -> Result<OrIdle<OdometryPublisher>, PluginError> {
        SystemSetup::on_model("gz::sim::systems::OdometryPublisher", "rover")
            .at_line(7)
            .create::<OdometryPublisher>(&format!(
                "<plugin name=\"gz::sim::systems::OdometryPublisher\" filename=\"f\">\n{body}</plugin>"
            ))
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let Err(e) = created("<dimensions>2</dimensions>\n<gaussian_noise>-1</gaussian_noise>\n")
        else {
            panic!("a negative noise is refused");
        };
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "rover: OdometryPublisher: <gaussian_noise> must be at least 0, found \"-1\" at world.sdf:9"
        );
        let Ok(OrIdle::Active(p)) = created("") else {
            panic!("a default publisher is created");
        };
        assert_eq!(
            p.outputs(),
            [
                ("/model/rover/odometry".to_string(), "Odometry"),
                ("/model/rover/pose".to_string(), "Pose_V")
            ]
        );
    }
}
