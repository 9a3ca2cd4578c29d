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
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{
    abi_stable::std_types::RBox,
    noise::{GaussianNoise, NoiseKind, NoiseParams, stream_seed},
    prelude::*,
};
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::SensorMount;

/// Noise stream numbers (passed to [`stream_seed`] with the sensor's seed) of the angular
/// velocity x, y, z components. Fixed, so that a seed always gives the same noise.
pub const ANGULAR_VELOCITY_STREAMS: [u64; 3] = [0, 1, 2];
/// Noise stream numbers of the linear acceleration x, y, z components.
pub const LINEAR_ACCELERATION_STREAMS: [u64; 3] = [3, 4, 5];

/// An IMU sensor (SDF `<sensor type="imu">`).
///
/// Kept small (what an update reads fits in a few cache lines, the noise streams are boxed
/// apart and only when some axis has noise), so that a pass over many IMUs stays in cache.
#[derive(Clone, Debug)]
pub struct ImuSensor {
    /// The sensor's link and its pose in the link's frame.
    mount: SensorMount,
    /// `R_wf`; `None` until the initial pose has been seen (default mode only).
    reference: Option<Quat>,
    entity_name: SharedStr,
    /// The diagonals of the angular velocity and linear acceleration covariances.
    angular_velocity_variance: [f64; 3],
    linear_acceleration_variance: [f64; 3],
    /// Angular velocity x, y, z, then linear acceleration x, y, z (`None`: no noise on that
    /// axis); `None` when no axis has noise.
    noise: Option<Box<[Option<GaussianNoise>; 6]>>,
    /// The reference is the sensor's initial orientation (no `<orientation_reference_frame>`).
    reference_from_initial_pose: bool,
    enable_orientation: bool,
    /// The sensor sits at its link's origin, axes aligned (`pose_in_link` is the identity).
    at_link_origin: bool,
}

impl SdfSensor for ImuSensor {
    /// Reads `<imu>`, logs the SDF settings that are accepted but not honoured (once) and, in
    /// the default orientation mode, takes the reference from the link's pose now.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let imu = ImuConfig::read(sdf)?;
        for warning in &imu.warnings {
            world.log_message(LogLevel::WARN, warning);
        }
        // gz-sensors' `ImuSensor::Update` reports `Name()`, which gz-sim's Imu system sets to
        // the sensor's scoped name `model::link::sensor`.
        let entity_name = config.scoped_name.as_str().to_string();
        let mut sensor = ImuSensor::new(&imu, SensorMount::of(config), config.seed, entity_name);
        sensor.take_reference(world);
        Ok(sensor)
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(String::new(), "IMU")]
    }
}

impl ImuSensor {
    /// Builds the sensor from an already parsed configuration. `mount` is where the sensor
    /// sits, `seed` the seed of its noise streams and `entity_name` the name reported in each
    /// message (the sensor's scoped name, as in Gazebo). In the default orientation mode the
    /// reference is taken at the first measurement.
    pub fn new(imu: &ImuConfig, mount: SensorMount, seed: u64, entity_name: String) -> Self {
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
        let noise = [
            stream(&av[0], s0),
            stream(&av[1], s1),
            stream(&av[2], s2),
            stream(&la[0], s3),
            stream(&la[1], s4),
            stream(&la[2], s5),
        ];
        ImuSensor {
            reference: match reference_mode {
                OrientationReference::Fixed(q) => Some(q.normalized()),
                OrientationReference::InitialPose => None,
            },
            entity_name: entity_name.into(),
            angular_velocity_variance: variances(av),
            linear_acceleration_variance: variances(la),
            noise: noise.iter().any(Option::is_some).then(|| Box::new(noise)),
            reference_from_initial_pose: reference_mode == OrientationReference::InitialPose,
            enable_orientation: imu.enable_orientation,
            at_link_origin: mount.pose_in_link == Pose::IDENTITY,
            mount,
        }
    }

    /// The orientation of the reference frame in the world (`R_wf`), once known.
    pub fn reference(&self) -> Option<Quat> {
        self.reference
    }

    /// The name reported in `entity_name`: the sensor's scoped name `model::link::sensor`.
    pub fn entity_name(&self) -> &str {
        self.entity_name.as_str()
    }

    /// In the default mode, takes the sensor's current world orientation as the reference
    /// (or leaves it to the next measurement when the link is not in the world).
    fn take_reference(&mut self, world: &WorldRef<'_>) {
        if self.reference_from_initial_pose {
            self.reference = world
                .kinematics_of(self.mount.link)
                .map(|s| (s.pose.orientation * self.mount.pose_in_link.orientation).normalized());
        }
    }

    /// One reading from the link's state `link`, the world gravity `gravity` and the time
    /// since the previous reading `dt` (seconds, 0 for the first; drives the dynamic bias).
    pub fn measure(&mut self, link: &KinematicState, gravity: Vec3, dt: f64) -> Imu {
        let mut imu = Imu::default();
        self.measure_into(link, gravity, dt, &mut imu);
        imu
    }

    /// [`ImuSensor::measure`] written into `imu` (every field), so that the message of an
    /// earlier update can be refilled in place.
    #[inline]
    pub fn measure_into(&mut self, link: &KinematicState, gravity: Vec3, dt: f64, imu: &mut Imu) {
        let q_wl = link.pose.orientation;
        let omega = link.angular_velocity;
        let (q_ws, a_sensor) = if self.at_link_origin {
            // At the link origin (the usual case): no lever arm, the link's orientation.
            (q_wl.normalized(), link.linear_acceleration)
        } else {
            let pose_in_link = self.mount.pose_in_link;
            let r = q_wl.rotate(pose_in_link.position);
            (
                (q_wl * pose_in_link.orientation).normalized(),
                link.linear_acceleration
                    + link.angular_acceleration.cross(r)
                    + omega.cross(omega.cross(r)),
            )
        };
        let q_sw = q_ws.inverse();
        let accel = q_sw.rotate(a_sensor - gravity);
        let gyro = q_sw.rotate(omega);

        let (angular_velocity, linear_acceleration) = match self.noise.as_deref_mut() {
            None => (gyro, accel),
            Some([n0, n1, n2, n3, n4, n5]) => (
                Vec3::new(
                    apply(n0, gyro.x, dt),
                    apply(n1, gyro.y, dt),
                    apply(n2, gyro.z, dt),
                ),
                Vec3::new(
                    apply(n3, accel.x, dt),
                    apply(n4, accel.y, dt),
                    apply(n5, accel.z, dt),
                ),
            ),
        };

        let orientation = if self.enable_orientation {
            let reference = *self.reference.get_or_insert(q_ws);
            (reference.inverse() * q_ws).normalized()
        } else {
            Quat::IDENTITY
        };

        if !imu.entity_name.same_as(&self.entity_name) {
            imu.entity_name = self.entity_name.clone();
        }
        imu.has_orientation = self.enable_orientation;
        imu.orientation = orientation;
        imu.orientation_covariance = [0.0; 9];
        imu.angular_velocity = angular_velocity;
        imu.angular_velocity_covariance = diagonal(self.angular_velocity_variance);
        imu.linear_acceleration = linear_acceleration;
        imu.linear_acceleration_covariance = diagonal(self.linear_acceleration_variance);
    }
}

impl Sensor for ImuSensor {
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let state = self.mount.link_state(world)?;
        // Before the first physics step no acceleration has been measured (a falling body
        // would read +g, as at rest): publish nothing then. Gazebo's first IMU sample, too,
        // comes after the first step (the Imu system updates in PostUpdate).
        if ctx.now == SimTime::ZERO {
            return Ok(());
        }
        let (gravity, dt) = (world.gravity(), ctx.dt.as_secs_f64());
        // Refill the message nobody received last time, if the engine hands it back.
        if let Some(Payload::Imu(imu)) = out.republish("") {
            self.measure_into(&state, gravity, dt, imu);
        } else {
            let imu = self.measure(&state, gravity, dt);
            out.publish("", Payload::Imu(RBox::new(imu)));
        }
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

/// The diagonal of the covariance: the white-noise variance of each Gaussian axis (the bias
/// is not included, as in Gazebo).
fn variances(axes: &[NoiseParams; 3]) -> [f64; 3] {
    axes.map(|p| {
        if p.kind == NoiseKind::Gaussian {
            p.stddev * p.stddev
        } else {
            0.0
        }
    })
}

/// A row-major 3x3 matrix with `d` on its diagonal.
#[inline]
fn diagonal(d: [f64; 3]) -> [f64; 9] {
    [d[0], 0.0, 0.0, 0.0, d[1], 0.0, 0.0, 0.0, d[2]]
}
