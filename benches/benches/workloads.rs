//! The shared workloads (`../shared/bench-workloads/` beside the repository): the scenes raw
//! rapier, MuJoCo and PyBullet were timed on, as simcore worlds with an SDF `<plane>` ground.
//!
//! - W1: the 1800 x 16 lidar of `w1_lidar.sdf`, through the lidar plugin's release cdylib
//!   and the sensor manager, on one thread and on two;
//! - W2 depth: the 320 x 240 depth camera of `w2_depth.sdf`, the same way (rasterised, its
//!   default); and the same camera by rays beside it rasterising, in alternating blocks;
//! - W2 RGB: the 640 x 480 camera with Lambert shading and sun shadows of `w2_rgb640.sdf`,
//!   on one thread and on two; and the same camera with one ray per pixel and shadow rays
//!   (its `primary_visibility` parameter set to `rays`) beside it rasterising, in
//!   alternating blocks of the same run, with the difference of their images
//!   (`SIMCORE_BENCH_IMAGES=<folder>` writes both frames and the difference as PNG files).
//!
//! Each beside the peers' baseline, in alternating blocks of the same run: raw rapier on the
//! same scene built as the peers built it (a 500 x 500 x 1 m cuboid ground with its top at
//! z = 0, the 100 yawed boxes of the shared generator, splitmix64 seeded with 42), one
//! `QueryPipeline::cast_ray` per ray, one thread. Skipped with a notice when the workloads
//! are not there.

use super::{Paired, one_sensor_sim, paired_passes, paired_prepared, per_op};
use criterion::Criterion;
use rapier3d::prelude::*;
use sim_benches::Row;
use sim_core::runner::Simulation;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The workloads' folder, if it is beside the repository.
pub fn dir() -> Option<PathBuf> {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench-workloads");
    d.join("w1_lidar.sdf").is_file().then_some(d)
}

/// The peers' box generator (`scene.py`): splitmix64 from 42.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The 100 boxes of the scene: (x, y, yaw), centres 0.5 m above the ground.
fn boxes() -> Vec<(f64, f64, f64)> {
    let mut rng = SplitMix64(42);
    let mut out = Vec::with_capacity(100);
    while out.len() < 100 {
        let x = -20.0 + 40.0 * rng.uniform();
        let y = -20.0 + 40.0 * rng.uniform();
        let yaw = 2.0 * std::f64::consts::PI * rng.uniform();
        if x.hypot(y) >= 2.0 {
            out.push((x, y, yaw));
        }
    }
    out
}

/// The scene as the raw rapier peer builds it, stepped once.
fn raw_scene() -> PhysicsWorld {
    let mut w = PhysicsWorld::default();
    let ground = w.insert_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 0.0, -0.5)));
    w.insert_collider(ColliderBuilder::cuboid(250.0, 250.0, 0.5), Some(ground));
    for (x, y, yaw) in boxes() {
        let b = w.insert_body(
            RigidBodyBuilder::fixed()
                .translation(Vector::new(x as f32, y as f32, 0.5))
                .rotation(Vector::new(0.0, 0.0, yaw as f32)),
        );
        w.insert_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), Some(b));
    }
    w.step();
    w
}

/// The W1 rays: 1800 x 16 from (0, 0, 0.5), rows by vertical angle, ends inclusive.
fn lidar_rays() -> Vec<Ray> {
    let (h, v) = (1800, 16);
    let (h0, h1) = (-std::f64::consts::PI, std::f64::consts::PI);
    let (v0, v1) = (-15f64.to_radians(), 15f64.to_radians());
    let mut rays = Vec::with_capacity(h * v);
    for j in 0..v {
        let b = v0 + (v1 - v0) * j as f64 / (v - 1) as f64;
        for i in 0..h {
            let a = h0 + (h1 - h0) * i as f64 / (h - 1) as f64;
            rays.push(Ray::new(
                Vector::new(0.0, 0.0, 0.5),
                Vector::new(
                    (b.cos() * a.cos()) as f32,
                    (b.cos() * a.sin()) as f32,
                    b.sin() as f32,
                ),
            ));
        }
    }
    rays
}

/// The W2 pixel rays (320 x 240, hfov 1.047, from (0, 0, 1) along +x, row 0 on top) and
/// each one's cosine to the optical axis.
fn camera_rays() -> (Vec<Ray>, Vec<f32>) {
    let (w, h) = (320usize, 240usize);
    let f = (w as f64 / 2.0) / (1.047f64 / 2.0).tan();
    let mut rays = Vec::with_capacity(w * h);
    let mut cos = Vec::with_capacity(w * h);
    for j in 0..h {
        for i in 0..w {
            let u = (i as f64 + 0.5 - w as f64 / 2.0) / f;
            let v = (j as f64 + 0.5 - h as f64 / 2.0) / f;
            let n = (1.0 + u * u + v * v).sqrt();
            rays.push(Ray::new(
                Vector::new(0.0, 0.0, 1.0),
                Vector::new((1.0 / n) as f32, (-u / n) as f32, (-v / n) as f32),
            ));
            cos.push((1.0 / n) as f32);
        }
    }
    (rays, cos)
}

/// The raw lidar loop: one `cast_ray` per ray; the number of hits.
fn raw_lidar(w: &PhysicsWorld, rays: &[Ray]) -> u32 {
    let qp = w.query_pipeline();
    let mut hits = 0;
    for r in rays {
        hits += qp.cast_ray(r, 100.0, true).is_some() as u32;
    }
    black_box(hits)
}

/// The raw depth loop: one `cast_ray` per pixel, z-depth within the far clip.
fn raw_depth(w: &PhysicsWorld, rays: &[Ray], cos: &[f32], depth: &mut [f32]) {
    let qp = w.query_pipeline();
    for ((r, c), d) in rays.iter().zip(cos).zip(depth.iter_mut()) {
        *d = match qp.cast_ray(r, 100.0 / c, true) {
            Some((_, toi)) => toi * c,
            None => f32::INFINITY,
        };
    }
    black_box(depth);
}

/// A simulation of workload `file` on `threads` threads, stepped once (as the raw scene).
fn sim(dir: &std::path::Path, file: &str, threads: usize) -> Simulation {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).expect("workload");
    let world = sim_core::sdf::parse_str(&text, Some(&path)).expect("workload world");
    one_sensor_sim(world, threads)
}

static W1: [Paired; 2] = [const { Mutex::new((Duration::ZERO, Duration::ZERO, 0)) }; 2];
/// W1 with the scan's rays and footprints made afresh before each scan (as a lidar that
/// moved since its last scan, after a step), one and two threads.
static W1_FRESH: [Paired; 2] = [const { Mutex::new((Duration::ZERO, Duration::ZERO, 0)) }; 2];
static W2_DEPTH: [Paired; 2] = [const { Mutex::new((Duration::ZERO, Duration::ZERO, 0)) }; 2];
static W2_RGB: [Paired; 2] = [const { Mutex::new((Duration::ZERO, Duration::ZERO, 0)) }; 2];
/// W2 depth and RGB with the frame's depth pass made afresh before each frame (as a camera
/// that moved since its last frame, after a step), one and two threads.
static W2_DEPTH_FRESH: [Paired; 2] = [const { Mutex::new((Duration::ZERO, Duration::ZERO, 0)) }; 2];
static W2_RGB_FRESH: [Paired; 2] = [const { Mutex::new((Duration::ZERO, Duration::ZERO, 0)) }; 2];
/// W2 depth by rays (the baseline) and rasterised, one and two threads.
static W2_DEPTH_RAYS: [Paired; 2] = [const { Mutex::new((Duration::ZERO, Duration::ZERO, 0)) }; 2];
/// W2 RGB by rays (the baseline) and rasterised, one and two threads.
static W2_RGB_RAYS: [Paired; 2] = [const { Mutex::new((Duration::ZERO, Duration::ZERO, 0)) }; 2];
/// The W2 RGB frames by rays and rasterised: pixels that differ, and the mean absolute
/// difference per channel in 8-bit levels.
static W2_RGB_DIFFERENCE: Mutex<Option<(usize, f64)>> = Mutex::new(None);

/// The image topic of the W2 RGB camera.
const W2_RGB_TOPIC: &str = "/world/w2/model/cam/link/l/sensor/rgb/image";

/// Sets the `primary_visibility` (`rays` or `raster`) of the W2 camera `sensor` (`rgb`,
/// `depth`).
fn primary_visibility(s: &mut Simulation, sensor: &str, how: &str) {
    let cam = s
        .physics()
        .entity_id(&format!("cam::l::{sensor}"))
        .expect("the W2 camera");
    s.set_sensor_parameter(cam, "primary_visibility", how)
        .expect("primary_visibility");
}

/// One frame of the W2 RGB camera of `s` (RGB8 bytes).
fn frame(s: &mut Simulation) -> Vec<u8> {
    let sub = s.bus_mut().subscribe(W2_RGB_TOPIC, 4);
    assert!(s.update_sensors().is_empty());
    let entries = sub.drain();
    let entry = entries.last().expect("a frame");
    match entry.message.payload.as_enum() {
        Ok(sim_plugin_api::Payload::Image(i)) => i.data.to_vec(),
        _ => panic!("not an image"),
    }
}

/// Compares a frame of `raster` and of `rays`, records the difference and, with
/// `SIMCORE_BENCH_IMAGES`, writes `w2_rgb_rays.png`, `w2_rgb_raster.png` and
/// `w2_rgb_difference.png` (white where the frames differ) there.
fn compare_frames(raster: &mut Simulation, rays: &mut Simulation) {
    let (a, b) = (frame(raster), frame(rays));
    assert_eq!(a.len(), b.len());
    let differ = a
        .chunks_exact(3)
        .zip(b.chunks_exact(3))
        .filter(|(x, y)| x != y)
        .count();
    let sum: u64 = a
        .iter()
        .zip(&b)
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    let mean = sum as f64 / a.len() as f64;
    *W2_RGB_DIFFERENCE.lock().unwrap_or_else(|e| e.into_inner()) = Some((differ, mean));
    let Some(dir) = std::env::var_os("SIMCORE_BENCH_IMAGES") else {
        return;
    };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("image folder");
    let diff: Vec<u8> = a
        .chunks_exact(3)
        .zip(b.chunks_exact(3))
        .flat_map(|(x, y)| if x == y { [0u8; 3] } else { [255u8; 3] })
        .collect();
    for (name, data) in [
        ("w2_rgb_raster.png", &a),
        ("w2_rgb_rays.png", &b),
        ("w2_rgb_difference.png", &diff),
    ] {
        let file = std::fs::File::create(dir.join(name)).expect("image file");
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), 640, 480);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().expect("png header");
        w.write_image_data(data).expect("png data");
    }
}

/// The W2 camera `sensor` of workload `file` by rays (its `primary_visibility` set to
/// `rays`, the baseline) beside it rasterising (its default), on one thread and on two, in
/// alternating blocks timed into `times`; `first` is given the one-thread pair (rasterising,
/// by rays) before it is timed.
fn rays_beside_raster(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    dir: &std::path::Path,
    (file, sensor): (&str, &str),
    times: &'static [Paired; 2],
    mut first: impl FnMut(&mut Simulation, &mut Simulation),
) {
    for (k, threads) in [1, 2].into_iter().enumerate() {
        let mut raster = sim(dir, file, threads);
        let mut rays = sim(dir, file, threads);
        primary_visibility(&mut rays, sensor, "rays");
        if k == 0 {
            first(&mut raster, &mut rays);
        }
        let name = file.trim_end_matches(".sdf");
        g.bench_function(format!("{name}_rays_and_raster_{threads}_thread"), |b| {
            paired_passes(
                b,
                &mut || assert!(rays.update_sensors().is_empty()),
                &mut raster,
                &times[k],
            )
        });
    }
}

/// W1, W2 depth and W2 RGB, each on one thread and on two, beside the raw rapier loops.
pub fn workloads(c: &mut Criterion) {
    let Some(dir) = dir() else {
        eprintln!("no shared workloads beside the repository: workload benchmarks skipped");
        return;
    };
    let raw = raw_scene();
    let lidar = lidar_rays();
    let (pixels, cos) = camera_rays();
    let mut depth = vec![0f32; pixels.len()];
    let mut g = c.benchmark_group("workloads");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    for (k, threads) in [1, 2].into_iter().enumerate() {
        let mut s = sim(&dir, "w1_lidar.sdf", threads);
        g.bench_function(format!("w1_lidar_raw_and_simcore_{threads}_thread"), |b| {
            paired_passes(b, &mut || raw_lidar(&raw, &lidar), &mut s, &W1[k])
        });
        g.bench_function(format!("w1_lidar_raw_and_moved_{threads}_thread"), |b| {
            paired_prepared(
                b,
                &mut || raw_lidar(&raw, &lidar),
                &mut s,
                |s| s.physics().forget_views(),
                &W1_FRESH[k],
            )
        });
    }
    for (k, threads) in [1, 2].into_iter().enumerate() {
        let mut s = sim(&dir, "w2_depth.sdf", threads);
        g.bench_function(format!("w2_depth_raw_and_simcore_{threads}_thread"), |b| {
            paired_passes(
                b,
                &mut || raw_depth(&raw, &pixels, &cos, &mut depth),
                &mut s,
                &W2_DEPTH[k],
            )
        });
        g.bench_function(format!("w2_depth_raw_and_moved_{threads}_thread"), |b| {
            paired_prepared(
                b,
                &mut || raw_depth(&raw, &pixels, &cos, &mut depth),
                &mut s,
                |s| s.physics().forget_views(),
                &W2_DEPTH_FRESH[k],
            )
        });
    }
    rays_beside_raster(
        &mut g,
        &dir,
        ("w2_depth.sdf", "depth"),
        &W2_DEPTH_RAYS,
        |_, _| {},
    );
    rays_beside_raster(
        &mut g,
        &dir,
        ("w2_rgb640.sdf", "rgb"),
        &W2_RGB_RAYS,
        compare_frames,
    );
    for (k, threads) in [1, 2].into_iter().enumerate() {
        let mut s = sim(&dir, "w2_rgb640.sdf", threads);
        g.bench_function(
            format!("w2_rgb640_raw_depth_and_simcore_{threads}_thread"),
            |b| {
                paired_passes(
                    b,
                    &mut || raw_depth(&raw, &pixels, &cos, &mut depth),
                    &mut s,
                    &W2_RGB[k],
                )
            },
        );
        g.bench_function(
            format!("w2_rgb640_raw_depth_and_moved_{threads}_thread"),
            |b| {
                paired_prepared(
                    b,
                    &mut || raw_depth(&raw, &pixels, &cos, &mut depth),
                    &mut s,
                    |s| s.physics().forget_views(),
                    &W2_RGB_FRESH[k],
                )
            },
        );
    }
    g.finish();
}

/// The peers' figures from the workloads' README, as ratios of raw rapier on one thread:
/// (raw rapier on two threads, MuJoCo on one / two, PyBullet).
const PEERS_W1: &str =
    "peers (README): raw rapier 2 threads 1.70x, MuJoCo 0.28x / 0.51x, PyBullet 0.04-0.06x";
const PEERS_W2: &str = "peers (README): raw rapier 2 threads 1.93x, MuJoCo 0.14x / 0.24x, PyBullet 0.03x (rays), 0.43x (rasterised)";

/// The goal of the lidar and depth camera rows, on one thread and on two: issue 33's, as
/// ratios to the raw rapier loop on one thread.
const RAY_GOALS: [f64; 2] = [4.0, 7.0];

/// The workloads' rows of the results table.
pub fn rows(rows: &mut Vec<Row>) {
    for (k, t) in [1, 2].into_iter().enumerate() {
        for (paired, how) in [(&W1[k], ""), (&W1_FRESH[k], ", moved before each scan")] {
            let Some((raw, scan)) = per_op(paired) else {
                continue;
            };
            let ratio = raw / scan;
            let goal = RAY_GOALS[k];
            rows.push(Row {
                name: format!(
                    "W1 lidar 1800 x 16, shared workload, plane ground{how}, {}",
                    threads(t)
                ),
                ns: scan,
                baseline: "raw rapier cast_ray loop, cuboid ground, one thread".into(),
                baseline_ns: raw,
                goal: format!(">= {goal}x raw rapier's rays/s"),
                met: ratio >= goal,
                note: format!(
                    "{:.2} M rays/s (raw {:.2} M rays/s), {ratio:.2}x; {PEERS_W1}",
                    28_800.0 / scan * 1e3,
                    28_800.0 / raw * 1e3
                ),
            });
        }
    }
    for (k, t) in [1, 2].into_iter().enumerate() {
        for (paired, how) in [
            (&W2_DEPTH[k], ""),
            (&W2_DEPTH_FRESH[k], ", moved before each frame"),
        ] {
            let Some((raw, frame)) = per_op(paired) else {
                continue;
            };
            let ratio = raw / frame;
            let goal = RAY_GOALS[k];
            rows.push(Row {
                name: format!(
                    "W2 depth 320 x 240, shared workload, plane ground{how}, {}",
                    threads(t)
                ),
                ns: frame,
                baseline: "raw rapier depth loop (cast_ray per pixel), cuboid ground, one thread"
                    .into(),
                baseline_ns: raw,
                goal: format!(">= {goal}x raw rapier's frames/s"),
                met: ratio >= goal,
                note: format!(
                    "{:.1} frames/s (raw {:.1} frames/s), {ratio:.2}x; {PEERS_W2}",
                    1e9 / frame,
                    1e9 / raw
                ),
            });
        }
    }
    for (k, t) in [1, 2].into_iter().enumerate() {
        if let Some((rays, raster)) = per_op(&W2_DEPTH_RAYS[k]) {
            rows.push(Row {
                name: format!("W2 depth 320 x 240 rasterised, {}", threads(t)),
                ns: raster,
                baseline: "the same camera by rays (one per pixel), same threads".into(),
                baseline_ns: rays,
                goal: "(figure only)".into(),
                met: true,
                note: format!(
                    "{:.1} frames/s (rays {:.1} frames/s), {:.2}x",
                    1e9 / raster,
                    1e9 / rays,
                    rays / raster
                ),
            });
        }
    }
    raster_rows(rows);
    for (k, t) in [1, 2].into_iter().enumerate() {
        for (paired, how) in [
            (&W2_RGB[k], ""),
            (&W2_RGB_FRESH[k], ", moved before each frame"),
        ] {
            let Some((raw, frame)) = per_op(paired) else {
                continue;
            };
            let rate = 1e9 / frame;
            rows.push(Row {
                name: format!(
                    "W2 RGB 640 x 480, shading and shadows, shared workload, plane ground{how}, {}",
                    threads(t)
                ),
                ns: frame,
                baseline: "raw rapier 320 x 240 depth loop, cuboid ground, one thread".into(),
                baseline_ns: raw,
                goal: if t == 2 {
                    ">= 60 frames/s".into()
                } else {
                    "(figure only)".into()
                },
                met: t != 2 || rate >= 60.0,
                note: format!("{rate:.1} frames/s (raw depth {:.1} frames/s)", 1e9 / raw),
            });
        }
    }
}

/// "1 thread", "2 threads".
fn threads(t: usize) -> String {
    format!("{t} thread{}", if t == 1 { "" } else { "s" })
}

/// The rows of the W2 RGB camera by rays (the baseline) and rasterised.
fn raster_rows(rows: &mut Vec<Row>) {
    let difference = *W2_RGB_DIFFERENCE.lock().unwrap_or_else(|e| e.into_inner());
    let images = match difference {
        Some((differ, mean)) => format!(
            "; images: {differ} of 307,200 pixels differ, mean error {mean:.4} levels of 255"
        ),
        None => String::new(),
    };
    for (k, t) in [1, 2].into_iter().enumerate() {
        if let Some((rays, raster)) = per_op(&W2_RGB_RAYS[k]) {
            let rate = 1e9 / raster;
            rows.push(Row {
                name: format!(
                    "W2 RGB 640 x 480 rasterised, shading and shadow maps, {}",
                    threads(t)
                ),
                ns: raster,
                baseline: "the same camera by rays (one per pixel, shadow rays), same threads"
                    .into(),
                baseline_ns: rays,
                goal: if t == 2 {
                    ">= 300 frames/s".into()
                } else {
                    "(figure only)".into()
                },
                met: t != 2 || rate >= 300.0,
                note: format!(
                    "{rate:.1} frames/s (rays {:.1} frames/s), {:.2}x{images}",
                    1e9 / rays,
                    rays / raster
                ),
            });
        }
    }
}

/// Runs `n` sensor passes of one workload (`w1`, `w2_depth` or `w2_rgb`, with `_moved` what
/// the views keep made afresh each time, a thread count after a colon: `w1:2`) and the raw
/// loop once, without timing: for profilers
/// (`valgrind --tool=callgrind`), which count the instructions of each.
/// `SIMCORE_PROFILE_GAP_US` keeps this thread busy that long before each pass.
pub fn profile(which: &str, n: usize) {
    let Some(dir) = dir() else {
        eprintln!("no shared workloads beside the repository");
        return;
    };
    let (name, threads) = which.split_once(':').unwrap_or((which, "1"));
    let threads = threads.parse().unwrap_or(1);
    let file = match name {
        "w1" | "w1_moved" => "w1_lidar.sdf",
        "w2_depth" | "w2_depth_moved" => "w2_depth.sdf",
        "w2_rgb" | "w2_rgb_moved" => "w2_rgb640.sdf",
        "raw_w1" | "raw_w2" => {
            let raw = raw_scene();
            let (pixels, cos) = camera_rays();
            let lidar = lidar_rays();
            let mut depth = vec![0f32; pixels.len()];
            for _ in 0..n {
                if name == "raw_w1" {
                    raw_lidar(&raw, &lidar);
                } else {
                    raw_depth(&raw, &pixels, &cos, &mut depth);
                }
            }
            return;
        }
        other => panic!("unknown workload {other}"),
    };
    let mut s = sim(&dir, file, threads);
    // The calling thread kept busy between passes, as the timed bench's raw loop keeps it:
    // the sensor threads go idle meanwhile.
    let gap = Duration::from_micros(
        std::env::var("SIMCORE_PROFILE_GAP_US")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
    );
    for _ in 0..n {
        let busy = Instant::now();
        while busy.elapsed() < gap {
            std::hint::spin_loop();
        }
        if name.ends_with("_moved") {
            s.physics().forget_views();
        }
        assert!(s.update_sensors().is_empty());
    }
}
