//! The IMU sensor: what it measures and how.
//!
//! Per update, from the state of the link the sensor is attached to (all world frame: pose
//! `R_wl`, `p_wl`; angular velocity `ω`; linear acceleration `a_l` of the link origin; angular
//! acceleration `α`), the sensor's pose in the link `(p_ls, R_ls)` and the world gravity `g`:
//!
//! - sensor orientation `R_ws = R_wl · R_ls`, lever arm `r = R_wl · p_ls`;
//! - acceleration of the sensor origin `a_s = a_l + α × r + ω × (ω × r)`;
//! - linear acceleration (proper acceleration, what an accelerometer feels)
//!   `R_wsᵀ (a_s − g)`: +9.8 up at rest, about 0 in free fall;
//! - angular velocity `R_wsᵀ ω`;
//! - orientation `R_wf⁻¹ · R_ws` for the reference frame `f` (see [`crate::frames`]).
//!
//! Then each of the six vector components gets its own noise stream.

use crate::config::{ImuConfig, OrientationReference};
use sim_plugin_api::{
    EntityId, Imu, KinematicState, LogLevel, Outputs, Payload, PluginError, Pose, Quat, Sensor,
    SensorConfig, SharedStr, UpdateContext, Vec3, WorldRef,
    abi_stable::std_types::RBox,
    noise::{GaussianNoise, NoiseKind, NoiseParams, stream_seed},
};

/// Noise stream numbers (passed to [`stream_seed`] with the sensor's seed) of the angular
/// velocity x, y, z components. Fixed, so that a seed always gives the same noise.
pub const ANGULAR_VELOCITY_STREAMS: [u64; 3] = [0, 1, 2];
/// Noise stream numbers of the linear acceleration x, y, z components.
pub const LINEAR_ACCELERATION_STREAMS: [u64; 3] = [3, 4, 5];

/// An IMU sensor (SDF `<sensor type="imu">`).
#[derive(Clone, Debug)]
pub struct ImuSensor {
    scoped_name: String,
    link: EntityId,
    /// Pose of the sensor in its link's frame.
    pose_in_link: Pose,
    entity_name: SharedStr,
    reference_mode: OrientationReference,
    /// `R_wf`; `None` until the initial pose has been seen (default mode only).
    reference: Option<Quat>,
    enable_orientation: bool,
    /// Angular velocity x, y, z, then linear acceleration x, y, z. `None`: no noise.
    noise: [Option<GaussianNoise>; 6],
    angular_velocity_covariance: [f64; 9],
    linear_acceleration_covariance: [f64; 9],
}

impl ImuSensor {
    /// Creates the sensor from its configuration (the factory the plugin exports). Logs the
    /// SDF settings that are accepted but not honoured, once.
    pub fn create(config: &SensorConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let scoped_name = config.scoped_name.as_str();
        let imu = ImuConfig::parse(config.sdf.as_str(), scoped_name)?;
        for warning in &imu.warnings {
            world.log_message(LogLevel::WARN, warning);
        }
        let entity_name = world.scoped_name_of(config.link).unwrap_or_else(|| {
            scoped_name
                .rsplit_once("::")
                .map_or("", |(link, _)| link)
                .to_string()
        });
        let mut sensor = ImuSensor::new(
            &imu,
            scoped_name,
            config.link,
            config.pose,
            config.seed,
            entity_name,
        );
        sensor.take_reference(world);
        Ok(sensor)
    }

    /// Builds the sensor from an already parsed configuration. `pose_in_link` is the sensor's
    /// pose in its link's frame, `seed` the seed of its noise streams and `entity_name` the
    /// link's scoped name (reported in each message). In the default orientation mode the
    /// reference is taken at the first measurement.
    pub fn new(
        imu: &ImuConfig,
        scoped_name: &str,
        link: EntityId,
        pose_in_link: Pose,
        seed: u64,
        entity_name: String,
    ) -> Self {
        let stream = |params: &NoiseParams, k: u64| {
            params
                .is_active()
                .then(|| GaussianNoise::new(*params, stream_seed(seed, k)))
        };
        let av = &imu.angular_velocity_noise;
        let la = &imu.linear_acceleration_noise;
        let [s0, s1, s2] = ANGULAR_VELOCITY_STREAMS;
        let [s3, s4, s5] = LINEAR_ACCELERATION_STREAMS;
        let reference_mode = imu.orientation_reference();
        ImuSensor {
            scoped_name: scoped_name.to_string(),
            link,
            pose_in_link: Pose::new(pose_in_link.position, pose_in_link.orientation.normalized()),
            entity_name: entity_name.into(),
            reference_mode,
            reference: match reference_mode {
                OrientationReference::Fixed(q) => Some(q.normalized()),
                OrientationReference::InitialPose => None,
            },
            enable_orientation: imu.enable_orientation,
            noise: [
                stream(&av[0], s0),
                stream(&av[1], s1),
                stream(&av[2], s2),
                stream(&la[0], s3),
                stream(&la[1], s4),
                stream(&la[2], s5),
            ],
            angular_velocity_covariance: covariance(av),
            linear_acceleration_covariance: covariance(la),
        }
    }

    /// The orientation of the reference frame in the world (`R_wf`), once known.
    pub fn reference(&self) -> Option<Quat> {
        self.reference
    }

    /// The scoped name of the link, as reported in `entity_name`.
    pub fn entity_name(&self) -> &str {
        self.entity_name.as_str()
    }

    /// In the default mode, takes the sensor's current world orientation as the reference
    /// (or leaves it to the next measurement when the link is not in the world).
    fn take_reference(&mut self, world: &WorldRef<'_>) {
        if self.reference_mode == OrientationReference::InitialPose {
            self.reference = world
                .kinematics_of(self.link)
                .map(|s| (s.pose.orientation * self.pose_in_link.orientation).normalized());
        }
    }

    /// One reading from the link's state `link`, the world gravity `gravity` and the time
    /// since the previous reading `dt` (seconds, 0 for the first; drives the dynamic bias).
    #[inline]
    pub fn measure(&mut self, link: &KinematicState, gravity: Vec3, dt: f64) -> Imu {
        let q_wl = link.pose.orientation;
        let q_ws = (q_wl * self.pose_in_link.orientation).normalized();
        let q_sw = q_ws.inverse();

        let omega = link.angular_velocity;
        let r = q_wl.rotate(self.pose_in_link.position);
        let a_sensor = link.linear_acceleration
            + link.angular_acceleration.cross(r)
            + omega.cross(omega.cross(r));
        let accel = q_sw.rotate(a_sensor - gravity);
        let gyro = q_sw.rotate(omega);

        let [n0, n1, n2, n3, n4, n5] = &mut self.noise;
        let angular_velocity = Vec3::new(
            apply(n0, gyro.x, dt),
            apply(n1, gyro.y, dt),
            apply(n2, gyro.z, dt),
        );
        let linear_acceleration = Vec3::new(
            apply(n3, accel.x, dt),
            apply(n4, accel.y, dt),
            apply(n5, accel.z, dt),
        );

        let orientation = if self.enable_orientation {
            let reference = *self.reference.get_or_insert(q_ws);
            (reference.inverse() * q_ws).normalized()
        } else {
            Quat::IDENTITY
        };

        Imu {
            entity_name: self.entity_name.clone(),
            has_orientation: self.enable_orientation,
            orientation,
            orientation_covariance: [0.0; 9],
            angular_velocity,
            angular_velocity_covariance: self.angular_velocity_covariance,
            linear_acceleration,
            linear_acceleration_covariance: self.linear_acceleration_covariance,
        }
    }
}

impl Sensor for ImuSensor {
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let Some(state) = world.kinematics_of(self.link) else {
            return Err(PluginError::runtime(format!(
                "{}: its link (entity {}) is not in the world",
                self.scoped_name, self.link.0
            )));
        };
        let imu = self.measure(&state, world.gravity(), ctx.dt.as_secs_f64());
        out.publish("", Payload::Imu(RBox::new(imu)));
        Ok(())
    }

    /// Sim time went backwards: in the default mode the reference orientation is taken again
    /// from the sensor's current pose. Noise streams carry on (they are not re-seeded).
    fn reset(&mut self, world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.take_reference(world);
        Ok(())
    }
}

fn apply(noise: &mut Option<GaussianNoise>, x: f64, dt: f64) -> f64 {
    match noise {
        Some(n) => n.apply(x, dt),
        None => x,
    }
}

/// Row-major diagonal covariance: the white-noise variance of each Gaussian axis (the bias is
/// not included, as in Gazebo).
fn covariance(axes: &[NoiseParams; 3]) -> [f64; 9] {
    let mut c = [0.0; 9];
    for (i, p) in axes.iter().enumerate() {
        if p.kind == NoiseKind::Gaussian {
            c[i * 4] = p.stddev * p.stddev;
        }
    }
    c
}
