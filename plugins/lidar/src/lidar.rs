//! The lidar sensor: what it measures and how.
//!
//! At creation the unit direction of every ray is computed once in the sensor frame:
//! `(cos v cos h, cos v sin h, sin v)` for horizontal angle `h` and vertical angle `v`, row
//! by row (index `v_index * count + h_index`). Per update:
//!
//! 1. the sensor frame's world pose (its link's pose composed with the sensor's `<pose>`);
//! 2. one batched [`cast_rays`](sim_plugin_api::WorldView::cast_rays) along the rotated
//!    directions, each ray starting at the minimum range from the sensor origin and ending at
//!    the maximum, ignoring the sensor's own model: geometry nearer than the minimum is seen
//!    through, as gz-sim's CPU lidar casts its segments from `unit·rmin` to `unit·rmax`
//!    (`CpuLidarSensor::GenerateRays`) and the GPU lidar's near clip plane is the minimum;
//! 3. per ray (see [`finish_range`]): a miss is `+inf`, a hit its distance from the sensor
//!    origin, with noise on finite ranges, clamped to the range limits and quantised to the
//!    range resolution;
//! 4. intensities are the `laser_retro` of the entity hit (looked up once per entity and
//!    cached), 0 for misses;
//! 5. a [`LaserScan`] on the sensor topic and a [`PointCloudPacked`] on `points` below it.

use crate::config::LidarConfig;
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{
    ALL_VISIBLE, ScanAngles, ScanView,
    abi_stable::std_types::{RBox, RVec},
    msgs::{PointCloudPacked, PointField, PointFieldType},
    prelude::*,
};
use simcore_plugin_common::{
    ChunkedVec, EntitySurfaces, MaskedCast, NoiseChannel, Passes, Rotation, SensorMount,
};
use simcore_plugin_common::{SdfSensor, frame_id};

/// Noise stream number (with the sensor's seed) of the ranges.
pub const RANGE_STREAM: u64 = 0;

/// Bytes per point of the point cloud: `x, y, z, intensity` (float32) and `ring` (uint16),
/// packed without padding.
pub const POINT_STEP: u32 = 18;

/// About how many rays a band of the scan extension holds (whole rows).
const SCAN_BAND: usize = 2048;

/// The relative topic of the point cloud.
pub const POINTS_TOPIC: &str = "points";

/// The fields of one point cloud point: `x`, `y`, `z`, `intensity` (float32, offsets 0, 4,
/// 8, 12) and `ring` (uint16 at 16, the vertical sample index).
pub fn point_fields() -> RVec<PointField> {
    let f = |name: &str, offset: u32, datatype: PointFieldType| PointField {
        name: SharedStr::new(name),
        offset,
        datatype,
        count: 1,
    };
    RVec::from(vec![
        f("x", 0, PointFieldType::FLOAT32),
        f("y", 4, PointFieldType::FLOAT32),
        f("z", 8, PointFieldType::FLOAT32),
        f("intensity", 12, PointFieldType::FLOAT32),
        f("ring", 16, PointFieldType::UINT16),
    ])
}

/// The reported range of one ray from the distance `distance` of its hit (`+inf` for a
/// miss), before noise: `+inf` for a miss, `-inf` for a hit nearer than `min` (REP-117, as
/// gz-sim's CPU lidar maps a result below `rmin`; rays start at `min`, so no hit is nearer),
/// else the distance.
#[inline]
pub fn raw_range(distance: f64, min: f64) -> f64 {
    if !distance.is_finite() {
        f64::INFINITY
    } else if distance < min {
        f64::NEG_INFINITY
    } else {
        distance
    }
}

/// A finite range after noise: clamped to `[min, max]`, then, when `resolution > 0`, rounded
/// to the nearest multiple of `resolution` (kept within `[min, max]`). Non-finite ranges
/// pass through unchanged.
#[inline]
pub fn finish_range(r: f64, min: f64, max: f64, resolution: f64) -> f64 {
    if !r.is_finite() {
        return r;
    }
    let r = r.clamp(min, max);
    if resolution > 0.0 {
        ((r / resolution).round() * resolution).clamp(min, max)
    } else {
        r
    }
}

/// The unit directions of every ray in the sensor frame, row-major (vertical row, then
/// horizontal sample).
pub fn ray_directions(config: &LidarConfig) -> Vec<Vec3> {
    let (h, v) = (config.horizontal, config.vertical);
    let mut dirs = Vec::with_capacity(config.ray_count());
    for j in 0..v.samples {
        let (sv, cv) = v.angle(j).sin_cos();
        for i in 0..h.samples {
            let (sh, ch) = h.angle(i).sin_cos();
            dirs.push(Vec3::new(cv * ch, cv * sh, sv));
        }
    }
    dirs
}

/// The scan of a sensor of `config` at world pose `pose`, cast with `options` and `mask`:
/// its rays are those [`LidarSensor::scan`] casts without the scan extension (the rotated
/// [`ray_directions`], from the minimum range).
pub fn scan_view(config: &LidarConfig, pose: Pose, options: RayCastOptions, mask: u32) -> ScanView {
    let axis = |a: &crate::ScanAxis| ScanAngles {
        min: a.min_angle,
        step: a.step(),
        samples: a.samples,
    };
    ScanView {
        pose,
        horizontal: axis(&config.horizontal),
        vertical: axis(&config.vertical),
        start: config.range_min,
        options,
        mask,
    }
}

/// The point cloud's bytes ([`POINT_STEP`] per point, see [`point_fields`]) of the rays of
/// unit sensor-frame `directions` at `ranges` with `intensities`, `row` rays per ring.
pub fn pack_points(ranges: &[f64], intensities: &[f64], directions: &[Vec3], row: u32) -> Vec<u8> {
    let mut data = vec![0; ranges.len() * POINT_STEP as usize];
    pack_points_into(&mut data, 0, ranges, intensities, directions, row);
    data
}

/// [`pack_points`] of the rays from index `first` on, into `out` ([`POINT_STEP`] bytes per
/// ray of `ranges`; the ring of ray `k` is `(first + k) / row`).
pub fn pack_points_into(
    out: &mut [u8],
    first: usize,
    ranges: &[f64],
    intensities: &[f64],
    directions: &[Vec3],
    row: u32,
) {
    let row = row.max(1) as usize;
    let points = out.chunks_exact_mut(POINT_STEP as usize);
    for (k, (((p, &r), &i), d)) in points
        .zip(ranges)
        .zip(intensities)
        .zip(directions)
        .enumerate()
    {
        p.copy_from_slice(&point_bytes((first + k) / row, r, i, *d));
    }
}

/// The ring of each ray from index `first` on, in rows of `row_len` rays: counted along
/// rather than divided out per ray.
fn rings(first: usize, row_len: usize) -> impl Iterator<Item = usize> {
    let row_len = row_len.max(1);
    let (mut ring, mut col) = (first / row_len, first % row_len);
    std::iter::repeat_with(move || {
        let r = ring;
        col += 1;
        if col == row_len {
            (ring, col) = (ring + 1, 0);
        }
        r
    })
}

/// The bytes of one point of the cloud ([`POINT_STEP`]): the ray of unit sensor-frame
/// direction `d` in ring `ring`, at range `r` with intensity `i`.
#[inline]
fn point_bytes(ring: usize, r: f64, i: f64, d: Vec3) -> [u8; POINT_STEP as usize] {
    let [r0, r1] = (ring as u16).to_le_bytes();
    let [x0, x1, x2, x3] = ((r * d.x) as f32).to_le_bytes();
    let [y0, y1, y2, y3] = ((r * d.y) as f32).to_le_bytes();
    let [z0, z1, z2, z3] = ((r * d.z) as f32).to_le_bytes();
    let [i0, i1, i2, i3] = (i as f32).to_le_bytes();
    [
        x0, x1, x2, x3, y0, y1, y2, y3, z0, z1, z2, z3, i0, i1, i2, i3, r0, r1,
    ]
}

/// The intensity of each of `hits`: the `laser_retro` of the entity hit (0 for a miss or an
/// entity `retro` has not looked up). Returns whether every entity hit was looked up.
fn fill_intensities(hits: &[RayHit], retro: &EntitySurfaces<f64>, out: &mut [f64]) -> bool {
    let mut intensities = Intensities::new(retro);
    for (i, hit) in out.iter_mut().zip(hits) {
        *i = intensities.of(hit);
    }
    intensities.known
}

/// The intensities of hits taken one after the other (see [`fill_intensities`]):
/// neighbouring rays mostly hit the same entity, whose value is kept.
struct Intensities<'r> {
    retro: &'r EntitySurfaces<f64>,
    last: (EntityId, f64),
    /// Whether every entity hit so far was looked up.
    known: bool,
}

impl<'r> Intensities<'r> {
    fn new(retro: &'r EntitySurfaces<f64>) -> Self {
        Intensities {
            retro,
            last: (EntityId::NONE, 0.0),
            known: true,
        }
    }

    /// The intensity of `hit`: the `laser_retro` of the entity hit, 0 for a miss or an
    /// entity not looked up.
    #[inline]
    fn of(&mut self, hit: &RayHit) -> f64 {
        if hit.entity.is_none() {
            0.0
        } else if hit.entity == self.last.0 {
            self.last.1
        } else {
            let v = self.retro.get(hit.entity).unwrap_or_else(|| {
                self.known = false;
                0.0
            });
            self.last = (hit.entity, v);
            v
        }
    }
}

/// A lidar sensor (SDF `<sensor type="lidar">`, `gpu_lidar`, `ray` or `gpu_ray`).
#[derive(Clone, Debug)]
pub struct LidarSensor {
    mount: SensorMount,
    frame_id: SharedStr,
    points_topic: SharedStr,
    config: LidarConfig,
    options: RayCastOptions,
    /// The casts, masked by `<visibility_mask>` when the rays see visuals.
    visibility: MaskedCast,
    /// Unit ray directions in the sensor frame, row-major.
    directions: Vec<Vec3>,
    rays: Vec<Ray>,
    hits: Vec<RayHit>,
    retro: EntitySurfaces<f64>,
    noise: NoiseChannel,
    fields: RVec<PointField>,
}

impl SdfSensor for LidarSensor {
    /// Reads `<lidar>` (or `<ray>`) and logs what it accepts without honouring.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let scoped_name = config.scoped_name.as_str();
        let lidar = LidarConfig::read(sdf)?;
        if let Some(res) = crate::config::ignored_vertical_resolution(sdf) {
            world.log_message(
                LogLevel::WARN,
                &format!(
                    "{scoped_name}: <scan><vertical><resolution> {res} is ignored: {} rows \
                     are cast, as gz-sim's CPU lidar does",
                    lidar.vertical.samples
                ),
            );
        }
        if lidar.visibility_mask != ALL_VISIBLE && lidar.target == RayTarget::COLLISION {
            world.log_message(
                LogLevel::WARN,
                &format!(
                    "{scoped_name}: <visibility_mask> {} has no effect: this lidar sees \
                     collisions, which carry no visibility flags (add \
                     <simcore:visibility>visual</simcore:visibility> to see visuals)",
                    lidar.visibility_mask
                ),
            );
        }
        Ok(LidarSensor::new(
            lidar,
            SensorMount::of(config),
            config.model,
            config.seed,
            frame_id(config),
        ))
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![
            (String::new(), "LaserScan"),
            (POINTS_TOPIC.to_string(), "PointCloudPacked"),
        ]
    }
}

impl LidarSensor {
    /// Builds the sensor from a parsed configuration: at `mount`, on a link of `model` (whose
    /// geometry the rays ignore), with noise seeded from `seed`, stamping `frame_id`.
    pub fn new(
        config: LidarConfig,
        mount: SensorMount,
        model: EntityId,
        seed: u64,
        frame_id: &str,
    ) -> Self {
        let directions = ray_directions(&config);
        let n = directions.len();
        LidarSensor {
            frame_id: SharedStr::new(frame_id),
            points_topic: SharedStr::new(POINTS_TOPIC),
            options: RayCastOptions {
                max_distance: config.range_max - config.range_min,
                target: config.target,
                exclude_model: model,
            },
            visibility: MaskedCast::new(
                match config.target {
                    RayTarget::VISUAL => config.visibility_mask,
                    _ => ALL_VISIBLE,
                },
                &mount.scoped_name,
            ),
            noise: NoiseChannel::new(config.noise, seed, RANGE_STREAM),
            mount,
            config,
            directions,
            rays: vec![Ray::default(); n],
            hits: vec![RayHit::MISS; n],
            retro: EntitySurfaces::new(|s| s.laser_retro),
            fields: point_fields(),
        }
    }

    /// The parsed configuration.
    pub fn config(&self) -> &LidarConfig {
        &self.config
    }

    /// The unit ray directions in the sensor frame, row-major (index `v * count + h`).
    pub fn directions(&self) -> &[Vec3] {
        &self.directions
    }

    /// One scan from a sensor at world pose `pose`: casts the rays and returns the scan and
    /// the point cloud. `dt` (s) is the time since the previous scan (it drives the dynamic
    /// bias of the noise, which moves once per scan).
    ///
    /// The scan runs in chunks of rays on the engine's sensor threads ([`Passes`], through
    /// [`WorldRef::for_each_chunk`]): each chunk turns its directions into the world, casts
    /// them and writes its ranges, intensities and points. Noise, whose state runs through the
    /// ranges in order, is applied between two such passes on this thread. Every output of a
    /// ray depends on that ray alone, so the scan is the same at every thread count.
    pub fn scan(
        &mut self,
        world: &WorldRef<'_>,
        pose: Pose,
        dt: f64,
    ) -> (LaserScan, PointCloudPacked) {
        let c = &self.config;
        let (h, v) = (c.horizontal, c.vertical);
        let n = self.directions.len();
        let origin = pose.position;
        let (start, min, max, resolution) =
            (c.range_min, c.range_min, c.range_max, c.range_resolution);
        // The sensor-frame directions turned by the pose's matrix, computed once per scan.
        let rotation = Rotation::new(pose.orientation);
        let options = self.options.without_normals_in(world);
        let mask = self.visibility.resolve(world);
        let noisy = self.noise.is_active();
        let passes = Passes::new(world);
        // Through the scan extension where the engine offers it: the same hits, cast
        // shape by shape over bands of whole rows.
        let scanner = world.scan();
        let view = scan_view(c, pose, options, mask);
        let row_len = h.samples.max(1) as usize;
        let chunk = match scanner {
            // Bands of about `SCAN_BAND` rays on one thread too: a band's hits are read
            // back while they are still in the cache.
            Some(_) => (passes.chunk_len(n).min(SCAN_BAND) / row_len).max(1) * row_len,
            None => passes.chunk_len(n),
        };
        let step = POINT_STEP as usize;
        // Each chunk makes its part of the outputs ray by ray (nothing set first).
        let mut ranges = ChunkedVec::new(n, chunk);
        let mut intensities = ChunkedVec::new(n, chunk);
        let mut data = ChunkedVec::<[u8; POINT_STEP as usize]>::new(n, chunk);
        let mut flags = vec![(true, true); n.div_ceil(chunk)];
        let retro = &self.retro;
        let directions = &self.directions;
        let chunks: Vec<_> = self
            .rays
            .chunks_mut(chunk)
            .zip(self.hits.chunks_mut(chunk))
            .zip(ranges.parts())
            .zip(intensities.parts())
            .zip(data.parts())
            .zip(flags.iter_mut())
            .enumerate()
            .collect();
        passes.run(
            chunks,
            |(k, (((((rays, hits), ranges), intensities), data), flags))| {
                let first = k * chunk;
                let dirs = &directions[first..first + rays.len()];
                if let Some(scanner) = scanner {
                    scanner.scan(&view, (first / row_len) as u32, hits.into());
                } else {
                    for (ray, d) in rays.iter_mut().zip(dirs) {
                        let direction = rotation.apply(*d);
                        *ray = Ray {
                            origin: origin + direction.scale(start),
                            direction,
                        };
                    }
                    world.cast_rays_seen_by(rays, &options, mask, hits);
                }
                // Distances count from the sensor origin; each hit read once for its range,
                // its intensity and, without noise, its point. The bounds copied here stay
                // in registers through the loop (read through the captures, they would be
                // loaded again for every ray).
                let (start, min, max, resolution) = (start, min, max, resolution);
                let mut seen = Intensities::new(retro);
                if noisy {
                    ranges.write_with(intensities, |i| {
                        let hit = &hits[i];
                        (raw_range(hit.distance + start, min), seen.of(hit))
                    });
                } else {
                    let outputs =
                        hits.iter()
                            .zip(dirs)
                            .zip(rings(first, row_len))
                            .map(|((hit, d), ring)| {
                                let r = raw_range(hit.distance + start, min);
                                let r = finish_range(r, min, max, resolution);
                                let i = seen.of(hit);
                                (r, i, point_bytes(ring, r, i, *d))
                            });
                    let (ranges, _, _) = ranges.write_three(intensities, data, outputs);
                    flags.1 = ranges.iter().fold(true, |all, r| all & r.is_finite());
                }
                flags.0 = seen.known;
            },
        );
        // With noise the points are made below, after the ranges' noise.
        let (mut ranges, mut intensities, mut data) = (
            ranges.into_vec(0.0),
            intensities.into_vec(0.0),
            data.into_vec([0; POINT_STEP as usize]).into_flattened(),
        );
        if flags.iter().any(|f| !f.0) {
            // Entities not seen before: looked up in one call, then every intensity again.
            self.retro.fill(&self.hits, world);
            fill_intensities(&self.hits, &self.retro, &mut intensities);
            if !noisy {
                pack_points_into(
                    &mut data,
                    0,
                    &ranges,
                    &intensities,
                    &self.directions,
                    h.samples,
                );
            }
        }
        let dense = if noisy {
            let mut dt = dt;
            for r in &mut ranges {
                if r.is_finite() {
                    *r = self.noise.apply(*r, dt);
                    dt = 0.0;
                }
                *r = finish_range(*r, min, max, resolution);
            }
            let chunks: Vec<_> = ranges
                .chunks(chunk)
                .zip(intensities.chunks(chunk))
                .zip(data.chunks_mut(chunk * step))
                .enumerate()
                .collect();
            passes.run(chunks, |(k, ((ranges, intensities), data))| {
                let first = k * chunk;
                let dirs = &directions[first..first + ranges.len()];
                pack_points_into(data, first, ranges, intensities, dirs, h.samples);
            });
            ranges.iter().all(|r| r.is_finite())
        } else {
            flags.iter().all(|f| f.1)
        };
        let (ranges, intensities, data) = (
            RVec::from(ranges),
            RVec::from(intensities),
            RVec::from(data),
        );
        let scan = LaserScan {
            frame: self.frame_id.clone(),
            world_pose: pose,
            angle_min: h.min_angle,
            angle_max: h.max_angle,
            angle_step: h.step(),
            range_min: c.range_min,
            range_max: c.range_max,
            count: h.samples,
            vertical_angle_min: v.min_angle,
            vertical_angle_max: v.max_angle,
            vertical_angle_step: v.step(),
            vertical_count: v.samples,
            ranges,
            intensities,
        };
        let cloud = PointCloudPacked {
            width: h.samples,
            height: v.samples,
            fields: self.fields.clone(),
            is_bigendian: false,
            point_step: POINT_STEP,
            row_step: POINT_STEP * h.samples,
            data,
            is_dense: dense,
        };
        (scan, cloud)
    }
}

impl Sensor for LidarSensor {
    fn update(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let state = self.mount.state(world)?;
        let (scan, cloud) = self.scan(world, state.pose, ctx.dt.as_secs_f64());
        out.publish("", Payload::LaserScan(RBox::new(scan)));
        out.publish(&self.points_topic, Payload::PointCloud(RBox::new(cloud)));
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        // Entities may have been replaced: look surfaces up afresh.
        self.retro.clear();
        Ok(())
    }
}
