//! The lidar (one and two threads, cost growth) and the cameras beside bare rapier ray loops.

use super::*;

pub(super) const LIDAR_H: usize = 1800;
pub(super) const LIDAR_V: usize = 16;
pub(super) const LIDAR_RAYS: usize = LIDAR_H * LIDAR_V;

/// Centres (x, y) of the 100 boxes of the lidar scene: uniform in a 40 m square around the
/// origin (a 64-bit LCG seeded with 42), keeping 2 m clear of the lidar.
pub(super) fn lidar_boxes() -> Vec<(f64, f64)> {
    scattered_boxes(100, 40.0)
}

/// `n` box centres uniform in a square of side `side` around the origin (the LCG seeded with
/// 42), keeping 2 m clear of the origin.
pub(super) fn scattered_boxes(n: usize, side: f64) -> Vec<(f64, f64)> {
    let mut state: u64 = 42;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64 * side - side / 2.0
    };
    let mut boxes = Vec::with_capacity(n);
    while boxes.len() < n {
        let (x, y) = (next(), next());
        if x.hypot(y) > 2.0 {
            boxes.push((x, y));
        }
    }
    boxes
}

pub(super) fn lidar_world() -> String {
    lidar_world_with(&lidar_boxes())
}

/// The lidar scene with boxes at `boxes`.
pub(super) fn lidar_world_with(boxes: &[(f64, f64)]) -> String {
    let mut s = String::from(
        r#"<sdf version="1.9"><world name="lidar"><physics type="ode"><max_step_size>0.001</max_step_size></physics>
        <model name="ground"><static>true</static><link name="l"><collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link></model>"#,
    );
    for (i, (x, y)) in boxes.iter().enumerate() {
        s.push_str(&format!(
            r#"<model name="b{i}"><static>true</static><pose>{x} {y} 0.5 0 0 0</pose><link name="l"><collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision></link></model>"#
        ));
    }
    s.push_str(&format!(
        r#"<model name="scanner"><static>true</static><pose>0 0 0.5 0 0 0</pose><link name="l">
        <sensor name="lidar" type="gpu_lidar"><update_rate>0</update_rate><lidar>
          <scan><horizontal><samples>{LIDAR_H}</samples><min_angle>{}</min_angle><max_angle>{}</max_angle></horizontal>
                <vertical><samples>{LIDAR_V}</samples><min_angle>{}</min_angle><max_angle>{}</max_angle></vertical></scan>
          <range><min>0.1</min><max>100</max></range></lidar></sensor></link></model></world></sdf>"#,
        -std::f64::consts::PI,
        std::f64::consts::PI,
        -15f64.to_radians(),
        15f64.to_radians(),
    ));
    s
}

/// The lidar scene built directly with rapier (same shapes), and the scan's rays.
pub(super) fn lidar_rapier() -> (PhysicsWorld, Vec<rapier3d::geometry::Ray>) {
    lidar_rapier_with(&lidar_boxes())
}

/// [`lidar_rapier`] with boxes at `boxes`.
pub(super) fn lidar_rapier_with(
    boxes: &[(f64, f64)],
) -> (PhysicsWorld, Vec<rapier3d::geometry::Ray>) {
    let mut w = PhysicsWorld::default();
    let ground = w.insert_body(RigidBodyBuilder::fixed());
    w.insert_collider(
        ColliderBuilder::new(SharedShape::halfspace(Vector::Z)),
        Some(ground),
    );
    for &(x, y) in boxes {
        let b = w.insert_body(
            RigidBodyBuilder::fixed().translation(Vector::new(x as f32, y as f32, 0.5)),
        );
        w.insert_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), Some(b));
    }
    w.step();
    let mut rays = Vec::with_capacity(LIDAR_RAYS);
    let (h0, v0) = (-std::f64::consts::PI, -15f64.to_radians());
    let (dh, dv) = (
        2.0 * std::f64::consts::PI / (LIDAR_H - 1) as f64,
        30f64.to_radians() / (LIDAR_V - 1) as f64,
    );
    for j in 0..LIDAR_V {
        let v = v0 + j as f64 * dv;
        for i in 0..LIDAR_H {
            let h = h0 + i as f64 * dh;
            rays.push(rapier3d::geometry::Ray::new(
                Vector::new(0.0, 0.0, 0.5),
                Vector::new(
                    (v.cos() * h.cos()) as f32,
                    (v.cos() * h.sin()) as f32,
                    v.sin() as f32,
                ),
            ));
        }
    }
    (w, rays)
}

/// One scan through the loaded release cdylib (the sensor manager's pass), on one thread and
/// on two, each in alternating blocks with a bare single-threaded rapier `cast_ray` loop over
/// the same colliders and rays.
pub(super) fn lidar(c: &mut Criterion) {
    let world = sim_core::sdf::parse_str(&lidar_world(), None).expect("bench world");
    let (raw, rays) = lidar_rapier();
    let mut bare = || bare_scan(&raw, &rays);
    let sim_with = |threads: usize| {
        let reg = Registry::discover(SearchPath::new(&[plugin_dir()], None, &[], None));
        let mut sim = Simulation::new(world.clone(), reg, &SimOptions { seed: 1, threads })
            .unwrap_or_else(|e| panic!("{e} (run `cargo xtask bench`)"));
        assert_eq!(sim.sensors().len(), 1);
        // One step, like the bare scene, so that both broad phases are in their stepped state.
        sim.step();
        assert!(sim.update_sensors().is_empty());
        sim
    };
    let mut g = c.benchmark_group("lidar");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for (threads, paired) in [(1, &LIDAR_ONE), (2, &LIDAR_TWO)] {
        let mut sim = sim_with(threads);
        g.bench_function(
            format!("1800x16_rays_bare_and_plugin_{threads}_thread"),
            |b| paired_passes(b, &mut bare, &mut sim, paired),
        );
    }
    g.finish();
}

/// The bare baseline of the lidar benchmarks: rapier's `cast_ray` for each ray, on this
/// thread; returns how many hit.
pub(super) fn bare_scan(raw: &PhysicsWorld, rays: &[rapier3d::geometry::Ray]) -> u32 {
    let qp = raw.query_pipeline();
    let mut hits = 0u32;
    for r in rays {
        hits += qp.cast_ray(r, 100.0, true).is_some() as u32;
    }
    black_box(hits)
}

/// Times `bare` and one sensor pass of `sim` in alternation (same phase, same load) and
/// records both in `paired`.
pub(super) fn paired_passes<T>(
    b: &mut criterion::Bencher<'_>,
    bare: &mut impl FnMut() -> T,
    sim: &mut Simulation,
    paired: &Paired,
) {
    paired_prepared(b, bare, sim, |_| (), paired);
}

/// [`paired_passes`], with `prepare` called on `sim` before each of its passes, untimed.
pub(super) fn paired_prepared<T>(
    b: &mut criterion::Bencher<'_>,
    bare: &mut impl FnMut() -> T,
    sim: &mut Simulation,
    mut prepare: impl FnMut(&Simulation),
    paired: &Paired,
) {
    b.iter_custom(|iters| {
        let (mut t_bare, mut t_sim) = (Duration::ZERO, Duration::ZERO);
        for _ in 0..iters {
            let t = Instant::now();
            black_box(bare());
            t_bare += t.elapsed();
            prepare(sim);
            let t = Instant::now();
            let failed = sim.update_sensors().len();
            t_sim += t.elapsed();
            assert_eq!(failed, 0);
        }
        record(paired, t_bare, t_sim, iters);
        (t_bare + t_sim) / 2
    })
}

/// Box counts of the cost-growth benchmark.
pub(super) const GROWTH_SIZES: [usize; 4] = [10, 100, 1_000, 10_000];
/// Per box count: (bare loop, plugin scan, one thread).
pub(super) static LIDAR_GROWTH: [Paired; 4] =
    [const { Mutex::new((Duration::ZERO, Duration::ZERO, 0)) }; 4];

/// How the scan's cost grows with the scene: the same 1800 x 16 scan among 10 to 10,000 unit
/// boxes at the lidar scene's density (the square grows with the count), through the plugin
/// on one thread, beside the bare rapier loop over the same boxes.
pub(super) fn lidar_growth(c: &mut Criterion) {
    let mut g = c.benchmark_group("lidar_growth");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (k, n) in GROWTH_SIZES.into_iter().enumerate() {
        let boxes = growth_boxes(n);
        let (raw, rays) = lidar_rapier_with(&boxes);
        let mut sim = growth_sim(&boxes);
        let mut bare = || bare_scan(&raw, &rays);
        g.bench_function(format!("1800x16_rays_{n}_boxes_bare_and_plugin"), |b| {
            paired_passes(b, &mut bare, &mut sim, &LIDAR_GROWTH[k])
        });
    }
    g.finish();
}

/// The box centres of the cost-growth scene with `n` boxes.
fn growth_boxes(n: usize) -> Vec<(f64, f64)> {
    scattered_boxes(n, 40.0 * (n as f64 / 100.0).sqrt())
}

/// The cost-growth scene with boxes at `boxes`, through the plugin on one thread, stepped
/// once.
fn growth_sim(boxes: &[(f64, f64)]) -> Simulation {
    let world = sim_core::sdf::parse_str(&lidar_world_with(boxes), None).expect("bench world");
    let reg = Registry::discover(SearchPath::new(&[plugin_dir()], None, &[], None));
    let mut sim = Simulation::new(
        world,
        reg,
        &SimOptions {
            seed: 1,
            threads: 1,
        },
    )
    .unwrap_or_else(|e| panic!("{e} (run `cargo xtask bench`)"));
    sim.step();
    sim
}

/// `passes` untimed scans of the cost-growth scene with `n` boxes, for a profiler.
pub(super) fn profile_growth(n: usize, passes: usize) {
    let mut sim = growth_sim(&growth_boxes(n));
    for _ in 0..passes {
        assert!(sim.update_sensors().is_empty());
    }
}

pub(super) const CAMERA_W: usize = 320;
pub(super) const CAMERA_H: usize = 240;
pub(super) const CAMERA_HFOV: f64 = 1.047;

/// The lidar scene with visuals (what cameras see) and one camera sensor `sensor` (XML) on a
/// static model at (0, 0, 0.5), and a sun casting shadows.
pub(super) fn camera_world(sensor: &str) -> String {
    let mut s = String::from(
        r#"<sdf version="1.9"><world name="cameras"><physics type="ode"><max_step_size>0.001</max_step_size></physics>
        <light name="sun" type="directional"><cast_shadows>true</cast_shadows><direction>-0.5 0.1 -0.9</direction></light>
        <model name="ground"><static>true</static><link name="l"><visual name="v"><geometry><plane><normal>0 0 1</normal></plane></geometry></visual></link></model>"#,
    );
    for (i, (x, y)) in lidar_boxes().into_iter().enumerate() {
        s.push_str(&format!(
            r#"<model name="b{i}"><static>true</static><pose>{x} {y} 0.5 0 0 0</pose><link name="l"><visual name="v"><geometry><box><size>1 1 1</size></box></geometry><material><diffuse>0.8 0.3 0.2 1</diffuse></material></visual></link></model>"#
        ));
    }
    s.push_str(&format!(
        r#"<model name="rig"><static>true</static><pose>0 0 0.5 0 0 0</pose><link name="l">{sensor}</link></model></world></sdf>"#
    ));
    s
}

pub(super) fn camera_sensor(kind: &str) -> String {
    format!(
        r#"<sensor name="cam" type="{kind}"><update_rate>0</update_rate><camera>
          <horizontal_fov>{CAMERA_HFOV}</horizontal_fov><image><width>{CAMERA_W}</width><height>{CAMERA_H}</height></image>
          <clip><near>0.1</near><far>100</far></clip></camera></sensor>"#
    )
}

/// The camera scene built directly with rapier, and the pixel rays of a 320 x 240 pinhole
/// with their cosines to the optical axis.
pub(super) fn camera_rapier() -> (PhysicsWorld, Vec<rapier3d::geometry::Ray>, Vec<f32>) {
    let (w, _) = lidar_rapier();
    let f = CAMERA_W as f64 / (2.0 * (CAMERA_HFOV / 2.0).tan());
    let (cx, cy) = (CAMERA_W as f64 / 2.0, CAMERA_H as f64 / 2.0);
    let mut rays = Vec::with_capacity(CAMERA_W * CAMERA_H);
    let mut cos = Vec::with_capacity(CAMERA_W * CAMERA_H);
    for j in 0..CAMERA_H {
        for i in 0..CAMERA_W {
            let (u, v) = (i as f64 + 0.5, j as f64 + 0.5);
            let d = [1.0, -(u - cx) / f, -(v - cy) / f];
            let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            rays.push(rapier3d::geometry::Ray::new(
                Vector::new(0.0, 0.0, 0.5),
                Vector::new((d[0] / n) as f32, (d[1] / n) as f32, (d[2] / n) as f32),
            ));
            cos.push((1.0 / n) as f32);
        }
    }
    (w, rays, cos)
}

/// A simulation of `world` (one sensor) through the release plugins on `threads` threads,
/// stepped once and its sensor updated once.
pub(super) fn one_sensor_sim(world: sim_core::world::World, threads: usize) -> Simulation {
    let reg = Registry::discover(SearchPath::new(&[plugin_dir()], None, &[], None));
    let mut sim = Simulation::new(world, reg, &SimOptions { seed: 1, threads })
        .unwrap_or_else(|e| panic!("{e} (run `cargo xtask bench`)"));
    assert_eq!(sim.sensors().len(), 1);
    sim.step();
    assert!(sim.update_sensors().is_empty());
    sim
}

/// Camera frames through the loaded release cdylibs (the sensor manager's pass), each in
/// alternating blocks with a bare single-threaded rapier depth loop over the same colliders
/// and pixel rays.
pub(super) fn cameras(c: &mut Criterion) {
    let (raw, rays, cos) = camera_rapier();
    let mut depth = vec![0f32; rays.len()];
    let mut bare = || {
        let qp = raw.query_pipeline();
        for ((r, c), d) in rays.iter().zip(&cos).zip(depth.iter_mut()) {
            *d = match qp.cast_ray(r, 100.0 / 0.7, true) {
                Some((_, toi)) if toi * c <= 100.0 => toi * c,
                _ => f32::INFINITY,
            };
        }
        black_box(&depth);
    };
    let sim_with = |kind: &str, threads: usize| {
        let world = sim_core::sdf::parse_str(&camera_world(&camera_sensor(kind)), None)
            .expect("bench world");
        one_sensor_sim(world, threads)
    };
    let mut g = c.benchmark_group("cameras");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for (kind, threads, paired) in [
        ("depth_camera", 1, &DEPTH_ONE),
        ("depth_camera", 2, &DEPTH_TWO),
        ("camera", 1, &RGB_ONE),
    ] {
        let mut sim = sim_with(kind, threads);
        g.bench_function(
            format!("320x240_{kind}_bare_and_plugin_{threads}_thread"),
            |b| paired_passes(b, &mut bare, &mut sim, paired),
        );
    }
    g.finish();
}
