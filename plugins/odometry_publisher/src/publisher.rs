//! The odometry publisher: the model's pose each step, odometry at its frequency.

use crate::config::OdometryConfig;
use crate::estimate::{angular_velocity, planar_velocity};
use sim_plugin_api::{
    noise::{NoiseKind, NoiseParams},
    prelude::*,
};
use simcore_plugin_common::gz::OdometryOutput;
use simcore_plugin_common::{Attached, NoiseChannel, RollingMean, Throttle, attached, period_ns};

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

impl OdometryPublisher {
    /// Creates the system from its `<plugin>` element; it must be attached to a model.
    pub fn create(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { who, model, .. } = attached(config, world, "OdometryPublisher")?;
        let parsed = OdometryConfig::parse(config.sdf.as_str(), &model, &who)?;
        let system = OdometryPublisher::new(parsed, config.entity, config.seed);
        sim_plugin_api::declare_outputs(world, &system.odom_output.outputs());
        Ok(system)
    }

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
            odom_output: OdometryOutput::new(
                &config.odom_topic,
                &config.tf_topic,
                &config.odom_frame,
                &config.robot_base_frame,
            ),
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
        if !self.throttle.due(period_ns(self.config.frequency), ctx) {
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
