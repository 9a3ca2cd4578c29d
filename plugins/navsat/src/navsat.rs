//! The navsat sensor: what it measures and how.
//!
//! Per update, from the sensor frame's world position `p` and velocity `v` (its link's motion
//! carried to the sensor's `<pose>`, see [`simcore_plugin_common::frame`]) and the world's
//! spherical coordinates (see [`crate::geodesy`]):
//!
//! 1. `(east, north, up) = heading(p)`; horizontal position noise (metres) is added to east
//!    and to north, each with its own stream;
//! 2. latitude, longitude and altitude of that point on the ellipsoid; vertical position
//!    noise (metres) is added to the altitude;
//! 3. `(v_east, v_north, v_up) = heading(v)`, with horizontal velocity noise on the first two
//!    and vertical velocity noise on the third.
//!
//! Without spherical coordinates in the world there is no position to report: the sensor
//! logs one warning and publishes nothing, and starts publishing if the world gets them.

use crate::config::NavSatConfig;
use crate::geodesy::LocalFrame;
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{SphericalCoordinates, abi_stable::std_types::RBox, prelude::*};
use simcore_plugin_common::{NoiseChannel, SensorMount};
use simcore_plugin_common::{SdfSensor, frame_id};
use std::sync::{Arc, Mutex};

/// Noise stream numbers (with the sensor's seed) of the east position, north position and
/// altitude. Fixed, so that a seed always gives the same noise.
pub const POSITION_STREAMS: [u64; 3] = [0, 1, 2];
/// Noise stream numbers of the east, north and up velocity.
pub const VELOCITY_STREAMS: [u64; 3] = [3, 4, 5];

/// A navsat sensor (SDF `<sensor type="navsat">` or `type="gps"`).
#[derive(Clone, Debug)]
pub struct NavSatSensor {
    mount: SensorMount,
    frame_id: SharedStr,
    /// East, north, altitude; then east, north, up velocity.
    noise: [NoiseChannel; 6],
    /// The local frame of the spherical coordinates seen last (shared, see [`local_frame`]).
    frame: Option<Arc<LocalFrame>>,
    /// Whether the missing spherical coordinates have been reported.
    warned: bool,
}

impl SdfSensor for NavSatSensor {
    /// Reads `<navsat>`; when the world has no spherical coordinates, logs that once, here.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let navsat = NavSatConfig::read(sdf)?;
        let mut sensor = NavSatSensor::new(
            &navsat,
            SensorMount::of(config),
            config.seed,
            frame_id(config),
        );
        if world.spherical_coordinates().is_none() {
            sensor.warn_missing(world);
        }
        Ok(sensor)
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(String::new(), "NavSat")]
    }
}

impl NavSatSensor {
    /// Builds the sensor from a parsed configuration: `mount` is where it sits, `seed` the seed
    /// of its noise streams, `frame_id` the `frame_id` of its messages.
    pub fn new(navsat: &NavSatConfig, mount: SensorMount, seed: u64, frame_id: &str) -> Self {
        let [p0, p1, p2] = POSITION_STREAMS;
        let [v0, v1, v2] = VELOCITY_STREAMS;
        let hp = navsat.horizontal_position_noise;
        let hv = navsat.horizontal_velocity_noise;
        NavSatSensor {
            mount,
            frame_id: SharedStr::new(frame_id),
            noise: [
                NoiseChannel::new(hp, seed, p0),
                NoiseChannel::new(hp, seed, p1),
                NoiseChannel::new(navsat.vertical_position_noise, seed, p2),
                NoiseChannel::new(hv, seed, v0),
                NoiseChannel::new(hv, seed, v1),
                NoiseChannel::new(navsat.vertical_velocity_noise, seed, v2),
            ],
            frame: None,
            warned: false,
        }
    }

    /// Whether the sensor has reported that the world has no spherical coordinates.
    pub fn warned_missing_spherical_coordinates(&self) -> bool {
        self.warned
    }

    /// Logs, once over the sensor's life, that the world has no spherical coordinates.
    fn warn_missing(&mut self, world: &WorldRef<'_>) {
        if self.warned {
            return;
        }
        self.warned = true;
        world.log_message(
            LogLevel::WARN,
            &format!(
                "{}: the world has no <spherical_coordinates>, so this navsat sensor has no \
                 latitude, longitude or altitude to report and publishes nothing; add \
                 <spherical_coordinates> to the <world>",
                self.mount.scoped_name
            ),
        );
    }

    /// One reading for a sensor frame moving as `state` (world frame) in a world with
    /// spherical coordinates `sc`; `dt` (s) is the time since the previous reading (0 for the
    /// first; it drives the dynamic bias of the noise). The local frame is built once and
    /// rebuilt only when `sc` changes.
    pub fn measure(
        &mut self,
        sc: &SphericalCoordinates,
        state: &KinematicState,
        dt: f64,
    ) -> NavSat {
        let mut fix = NavSat::default();
        self.measure_at(sc, state.pose.position, state.linear_velocity, dt, &mut fix);
        fix
    }

    /// [`NavSatSensor::measure`] from the sensor frame's world position and velocity alone,
    /// written into `fix` (every field).
    fn measure_at(
        &mut self,
        sc: &SphericalCoordinates,
        position: Vec3,
        velocity: Vec3,
        dt: f64,
        fix: &mut NavSat,
    ) {
        let frame = match &mut self.frame {
            Some(f) if f.source() == sc => f,
            slot => slot.insert(local_frame(sc)),
        };
        Self::measure_in(
            frame,
            &mut self.noise,
            &self.frame_id,
            position,
            velocity,
            dt,
            fix,
        )
    }

    #[inline]
    fn measure_in(
        frame: &LocalFrame,
        noise: &mut [NoiseChannel; 6],
        frame_id: &SharedStr,
        position: Vec3,
        velocity: Vec3,
        dt: f64,
        out: &mut NavSat,
    ) {
        let [n_east, n_north, n_alt, n_ve, n_vn, n_vu] = noise;
        let mut enu = frame.world_to_enu(position);
        enu.x = n_east.apply(enu.x, dt);
        enu.y = n_north.apply(enu.y, dt);
        let fix = frame.enu_to_geodetic(enu);
        let v = frame.world_to_enu(velocity);
        out.latitude_deg = fix.latitude_deg;
        out.longitude_deg = fix.longitude_deg;
        out.altitude = n_alt.apply(fix.altitude, dt);
        out.velocity_east = n_ve.apply(v.x, dt);
        out.velocity_north = n_vn.apply(v.y, dt);
        out.velocity_up = n_vu.apply(v.z, dt);
        if !out.frame_id.same_as(frame_id) {
            out.frame_id = frame_id.clone();
        }
    }
}

/// The local frame of `sc`, shared by every navsat sensor of the process that sees the same
/// spherical coordinates: a pure function of `sc`, built once, so that many sensors read one
/// frame (it stays in cache) instead of each keeping its own copy. The few most recent frames
/// are kept.
fn local_frame(sc: &SphericalCoordinates) -> Arc<LocalFrame> {
    const KEPT: usize = 8;
    static FRAMES: Mutex<Vec<Arc<LocalFrame>>> = Mutex::new(Vec::new());
    let mut frames = FRAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(f) = frames.iter().find(|f| f.source() == sc) {
        return f.clone();
    }
    let f = Arc::new(LocalFrame::new(sc));
    if frames.len() == KEPT {
        frames.remove(0);
    }
    frames.push(f.clone());
    f
}

impl Sensor for NavSatSensor {
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let Some(sc) = world.spherical_coordinates().into_option() else {
            self.warn_missing(world);
            return Ok(());
        };
        // Only the position and velocity of the sensor frame are needed (as
        // `simcore_plugin_common::sensor_frame` computes them).
        let link = self.mount.link_state(world)?;
        let r = link
            .pose
            .orientation
            .rotate(self.mount.pose_in_link.position);
        let (position, velocity) = (
            link.pose.position + r,
            link.linear_velocity + link.angular_velocity.cross(r),
        );
        let dt = ctx.dt.as_secs_f64();
        // Refill the message nobody received last time, if the engine hands it back.
        if let Some(Payload::NavSat(fix)) = out.republish("") {
            self.measure_at(&sc, position, velocity, dt, fix);
        } else {
            let mut fix = RBox::new(NavSat::default());
            self.measure_at(&sc, position, velocity, dt, &mut fix);
            out.publish("", Payload::NavSat(fix));
        }
        Ok(())
    }
}
