//! The physics step on the peers' W3 scene (`../shared/bench-workloads/README.md`): 1,000
//! dynamic 1 kg unit boxes in a 10 x 10 x 10 grid 1.5 m apart, the lowest centres at z = 1,
//! 1,000 steps of 1 ms from a fresh world.
//!
//! The baseline is the raw rapier program the peers were timed with: a 500 x 500 x 1 m cuboid
//! ground with its top face at z = 0, boxes of density 1 (1 kg), rapier's default settings,
//! one thread. simcore runs the same scene as an SDF world as a user runs it
//! (`Simulation::step`: the sensor pass, the default systems, the physics step), once with an
//! SDF `<plane>` ground (as every Gazebo world has) and once with a 500 x 500 x 1 m `<box>`
//! ground, and a third time on the plane with a `<visual>` beside every `<collision>`, as the
//! models of real worlds have (`w3_visuals`). Each figure is the median of alternating pairs of passes (a fresh raw rapier world,
//! then a fresh simcore world, each built untimed and stepped 1,000 times), so that both see
//! the same machine load. The same scene with 4,000 and 16,000 boxes (20 x 20 and 40 x 40
//! columns of ten) gives the cost growth beside raw rapier's.
//!
//! Built with the `parallel` feature (`cargo bench -p sim-benches --features parallel`),
//! rapier is its parallel build, for simcore and the baseline alike, and the 1,000-box scenes
//! are timed on two threads instead (`engine_step/w3_parallel_*`): raw rapier on a pool of
//! one thread and on a pool of two, simcore's step on rayon's global pool (every core).

use super::*;
use sim_benches::selected;

/// Steps of one pass: one second of the scene at 1 ms.
pub(super) const W3_STEPS: usize = 1000;

/// The ground under the boxes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ground {
    /// An SDF `<plane>` (normal +z).
    Plane,
    /// An SDF `<box>` of 500 x 500 x 1 m, its top face at z = 0 (the peers' ground).
    Box,
    /// The plane, and every link (the ground's and each box's) with a `<visual>` of its
    /// shape beside its `<collision>`, as the models of real worlds have.
    Visuals,
}

impl Ground {
    /// How a row names the scene's ground.
    fn label(self) -> &'static str {
        match self {
            Ground::Plane => "SDF <plane> ground",
            Ground::Box => "SDF <box> ground",
            Ground::Visuals => "SDF <plane> ground, every link with a visual",
        }
    }
}

/// The centres of the W3 boxes: `side` x `side` columns of ten, 1.5 m apart, centred on the
/// origin in x and y, the lowest at z = 1 (the peers' order: layer, row, column).
pub(super) fn w3_centres(side: usize) -> Vec<[f64; 3]> {
    let off = (side - 1) as f64 * 1.5 / 2.0;
    let mut out = Vec::with_capacity(side * side * 10);
    for k in 0..10 {
        for j in 0..side {
            for i in 0..side {
                out.push([
                    i as f64 * 1.5 - off,
                    j as f64 * 1.5 - off,
                    1.0 + k as f64 * 1.5,
                ]);
            }
        }
    }
    out
}

/// The W3 scene as an SDF world: the boxes of [`w3_centres`] (1 kg, the inertia of a unit
/// cube, SDF's default surfaces) on `ground`, a 1 ms step.
pub(super) fn w3_world(side: usize, ground: Ground) -> String {
    let plane = "<plane><normal>0 0 1</normal><size>500 500</size></plane>";
    let visual = |geometry: &str| match ground {
        Ground::Visuals => format!(r#"<visual name="v"><geometry>{geometry}</geometry></visual>"#),
        _ => String::new(),
    };
    let ground_model = match ground {
        Ground::Plane | Ground::Visuals => format!(
            r#"<model name="ground"><static>true</static><link name="l"><collision name="c"><geometry>{plane}</geometry></collision>{}</link></model>"#,
            visual(plane)
        ),
        Ground::Box => {
            r#"<model name="ground"><static>true</static><pose>0 0 -0.5 0 0 0</pose><link name="l"><collision name="c"><geometry><box><size>500 500 1</size></box></geometry></collision></link></model>"#.to_string()
        }
    };
    let mut s = format!(
        r#"<sdf version="1.9"><world name="w3"><physics type="ode"><max_step_size>0.001</max_step_size><real_time_factor>0</real_time_factor></physics>{ground_model}"#
    );
    let unit = "<box><size>1 1 1</size></box>";
    let box_visual = visual(unit);
    for (n, [x, y, z]) in w3_centres(side).into_iter().enumerate() {
        s.push_str(&format!(
            r#"<model name="b{n}"><pose>{x} {y} {z} 0 0 0</pose><link name="l"><inertial><mass>1</mass><inertia><ixx>0.166667</ixx><iyy>0.166667</iyy><izz>0.166667</izz></inertia></inertial><collision name="c"><geometry>{unit}</geometry></collision>{box_visual}</link></model>"#
        ));
    }
    s.push_str("</world></sdf>");
    s
}

/// The W3 scene as the raw rapier peer builds it: default settings but the 1 ms step and
/// gravity along -z, a 500 x 500 x 1 m cuboid ground with its top at z = 0, each box a
/// dynamic body with a unit cuboid collider of density 1.
pub(super) fn raw_w3(side: usize) -> PhysicsWorld {
    let mut w = PhysicsWorld {
        gravity: Vector::new(0.0, 0.0, -9.81),
        ..Default::default()
    };
    w.integration_parameters.dt = 0.001;
    let ground = w.insert_body(RigidBodyBuilder::fixed().translation(Vector::new(0.0, 0.0, -0.5)));
    w.insert_collider(ColliderBuilder::cuboid(250.0, 250.0, 0.5), Some(ground));
    for [x, y, z] in w3_centres(side) {
        let b = w.insert_body(
            RigidBodyBuilder::dynamic().translation(Vector::new(x as f32, y as f32, z as f32)),
        );
        w.insert_collider(ColliderBuilder::cuboid(0.5, 0.5, 0.5), Some(b));
    }
    w
}

/// The W3 scene of [`raw_w3`] (the peers' cuboid ground) with the physics of simcore's SDF
/// world: SDF's gravity (9.8 m/s²) and surfaces (friction 1), simcore's contact stiffness at a
/// 1 ms step (`docs/physics.md`, *Contacts*). Raw rapier running the scene simcore runs, so
/// that a row can tell what simcore itself costs from what the SDF world's physics costs
/// beside the peers' settings.
pub(super) fn raw_w3_sdf(side: usize) -> PhysicsWorld {
    let mut w = raw_w3(side);
    w.gravity = Vector::new(0.0, 0.0, -9.8);
    simcore_contacts(&mut w.integration_parameters);
    for (_, c) in w.colliders.iter_mut() {
        c.set_friction(1.0);
    }
    w
}

/// A fresh simcore simulation of `world` on `threads` threads, with the release plugins (so
/// that the default systems are those `simcore run` loads).
fn w3_sim(world: &sim_core::world::World, threads: usize) -> Simulation {
    let reg = Registry::discover(SearchPath::new(&[plugin_dir()], None, &[], None));
    Simulation::new(world.clone(), reg, &SimOptions { seed: 0, threads })
        .unwrap_or_else(|e| panic!("{e} (run `cargo xtask bench`)"))
}

/// One pass of raw rapier: a fresh world of `build` (untimed), [`W3_STEPS`] steps (timed).
fn raw_pass(build: fn(usize) -> PhysicsWorld, side: usize, threads: usize) -> Duration {
    let mut w = build(side);
    #[cfg(feature = "parallel")]
    w.configure_thread_pool(threads).expect("a thread pool");
    let _ = threads;
    let t = Instant::now();
    for _ in 0..W3_STEPS {
        w.step();
    }
    let took = t.elapsed();
    black_box(&w);
    took
}

/// One pass of simcore: a fresh simulation (untimed), [`W3_STEPS`] steps (timed); with the
/// wall time its systems' hooks took.
fn sim_pass(world: &sim_core::world::World, threads: usize) -> (Duration, Duration) {
    let mut sim = w3_sim(world, threads);
    let t = Instant::now();
    for _ in 0..W3_STEPS {
        assert!(sim.step().is_empty());
    }
    let took = t.elapsed();
    let hooks = sim.systems().reports().iter().map(|r| r.hook_time).sum();
    (took, hooks)
}

/// What alternating pairs of passes measured: per pair (raw rapier, simcore, simcore's
/// systems' hooks), and with each pair a pass of raw rapier on the SDF world's physics
/// ([`raw_w3_sdf`]) where it was asked for.
#[derive(Clone, Debug, Default)]
pub(super) struct Pairs(Vec<(Duration, Duration, Duration)>, Vec<Duration>);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

impl Pairs {
    /// The median pass of raw rapier and of simcore, s.
    fn medians(&self) -> (f64, f64) {
        (
            median(self.0.iter().map(|p| p.0.as_secs_f64()).collect()),
            median(self.0.iter().map(|p| p.1.as_secs_f64()).collect()),
        )
    }

    /// The pairs' ratios (raw rapier's time over simcore's: simcore's speed in raw rapier's
    /// steps/s), in order.
    fn ratios(&self) -> Vec<f64> {
        let mut r: Vec<f64> = self
            .0
            .iter()
            .map(|p| p.0.as_secs_f64() / p.1.as_secs_f64())
            .collect();
        r.sort_by(f64::total_cmp);
        r
    }

    /// The median of the pairs' ratios.
    fn ratio(&self) -> f64 {
        median(self.ratios())
    }

    /// The median of the ratios of raw rapier on the SDF world's physics to simcore, pass by
    /// pass (simcore's speed beside raw rapier running the same physics), if it was measured.
    fn same_physics_ratio(&self) -> Option<f64> {
        (!self.1.is_empty()).then(|| {
            median(
                self.1
                    .iter()
                    .zip(&self.0)
                    .map(|(same, p)| same.as_secs_f64() / p.1.as_secs_f64())
                    .collect(),
            )
        })
    }

    /// The spread of the pairs' ratios: the middle half of them, as `a to b` (the lowest
    /// and highest with fewer than four pairs).
    fn spread(&self) -> String {
        let r = self.ratios();
        let n = r.len();
        let (lo, hi) = if n < 4 {
            (r[0], r[n - 1])
        } else {
            (r[n / 4], r[n - 1 - n / 4])
        };
        format!("{lo:.2} to {hi:.2}")
    }

    /// The systems' hooks' share of simcore's wall time, over every pass.
    fn systems_share(&self) -> f64 {
        let hooks: f64 = self.0.iter().map(|p| p.2.as_secs_f64()).sum();
        let all: f64 = self.0.iter().map(|p| p.1.as_secs_f64()).sum();
        hooks / all
    }
}

/// `pairs` pairs of passes of the `side` scene, alternating: raw rapier on `raw_threads`,
/// simcore on `ground` with `threads`; with `same_physics`, each pair with a pass of raw
/// rapier on the SDF world's physics ([`raw_w3_sdf`]) too.
fn measure(
    side: usize,
    ground: Ground,
    threads: usize,
    raw_threads: usize,
    pairs: usize,
    same_physics: bool,
) -> Pairs {
    let text = w3_world(side, ground);
    let world = sim_core::sdf::parse_str(&text, None).expect("W3 world");
    // One untimed pass each: the allocator and the caches as in the timed ones.
    raw_pass(raw_w3, side, raw_threads);
    sim_pass(&world, threads);
    let mut out = Pairs::default();
    for k in 0..pairs {
        // Each goes first in every other pair, so that neither always follows the other; the
        // same physics' pass goes between them.
        let mut same = None;
        let mut same_pass = || {
            if same_physics {
                same = Some(raw_pass(raw_w3_sdf, side, raw_threads));
            }
        };
        let (raw, (sim, hooks)) = if k % 2 == 0 {
            let raw = raw_pass(raw_w3, side, raw_threads);
            same_pass();
            (raw, sim_pass(&world, threads))
        } else {
            let sim = sim_pass(&world, threads);
            same_pass();
            (raw_pass(raw_w3, side, raw_threads), sim)
        };
        eprintln!(
            "w3 {} boxes, {ground:?} ground, {threads} thread(s): raw rapier {:.3} s, simcore {:.3} s{}",
            side * side * 10,
            raw.as_secs_f64(),
            sim.as_secs_f64(),
            same.map_or(String::new(), |t| format!(
                ", raw rapier on the SDF world's physics {:.3} s",
                t.as_secs_f64()
            ))
        );
        out.0.push((raw, sim, hooks));
        out.1.extend(same);
    }
    out
}

/// Box-grid sides of the growth scenes: 1,000, 4,000 and 16,000 boxes.
const GROWTH_SIDES: [usize; 3] = [10, 20, 40];

/// Pairs of passes per scene size (a pass of 16,000 boxes takes seconds).
const PAIRS: [usize; 3] = [12, 8, 5];

fn boxes(side: usize) -> String {
    let n = side * side * 10;
    if n >= 1000 {
        format!("{},{:03}", n / 1000, n % 1000)
    } else {
        n.to_string()
    }
}

/// What a row's note says of raw rapier on the SDF world's physics ([`raw_w3_sdf`]).
fn same_physics(p: &Pairs) -> String {
    p.same_physics_ratio().map_or_else(
        || "raw rapier on the SDF world's physics not measured".into(),
        |r| format!("{r:.2}x raw rapier on the SDF world's physics"),
    )
}

/// Runs the selected W3 step benchmarks and adds their rows.
pub(super) fn rows(rows: &mut Vec<Row>) {
    let baseline =
        "raw rapier, peers' W3 program (500 x 500 x 1 m cuboid ground, default settings), 1 thread";
    let per_step = |s: f64| s * 1e9 / W3_STEPS as f64;
    let rate = |s: f64| W3_STEPS as f64 / s;
    let mut plane_1k = None;
    for ground in [Ground::Plane, Ground::Box, Ground::Visuals] {
        let id = format!("engine_step/w3_{}", format!("{ground:?}").to_lowercase());
        // The plane's row is the growth rows' reference too.
        let wanted =
            selected(&id) || (ground == Ground::Plane && selected("engine_step/w3_growth"));
        if !wanted {
            continue;
        }
        let p = measure(10, ground, 1, 1, PAIRS[0], true);
        let (raw, sim) = p.medians();
        let ratio = p.ratio();
        rows.push(Row {
            name: format!("W3 step, 1,000 boxes, {}, 1 thread", ground.label()),
            ns: per_step(sim),
            baseline: baseline.into(),
            baseline_ns: per_step(raw),
            goal: ">= 1.0x raw rapier's steps/s".into(),
            met: ratio >= 1.0,
            note: format!(
                "{:.0} steps/s (raw {:.0}), {ratio:.2}x (median of {} pairs, the middle half {}); {}; systems' hooks {:.1} % of the wall time",
                rate(sim),
                rate(raw),
                p.0.len(),
                p.spread(),
                same_physics(&p),
                p.systems_share() * 100.0
            ),
        });
        if ground == Ground::Plane {
            plane_1k = Some(p);
        }
    }
    if let Some(first) = plane_1k.filter(|_| selected("engine_step/w3_growth")) {
        let (raw1, sim1) = first.medians();
        let ratio1 = first.ratio();
        for (k, side) in GROWTH_SIDES.into_iter().enumerate().skip(1) {
            let p = measure(side, Ground::Plane, 1, 1, PAIRS[k], true);
            let (raw, sim) = p.medians();
            let (g_raw, g_sim) = (raw / raw1, sim / sim1);
            // simcore's growth is no worse than raw rapier's when its speed, as a ratio of raw
            // rapier's, is no lower here than at 1,000 boxes: judged by the medians of the
            // pairs' ratios, as the 1,000-box rows are (a pair's two passes share the
            // machine's load; the medians of the passes' times do not cancel it).
            let ratio = p.ratio();
            rows.push(Row {
                name: format!(
                    "W3 step cost growth, 1,000 -> {} boxes, plane ground, 1 thread",
                    boxes(side)
                ),
                ns: per_step(sim),
                baseline: format!("raw rapier, same scene ({} boxes, cuboid ground)", boxes(side)),
                baseline_ns: per_step(raw),
                goal: "growth <= raw rapier's".into(),
                met: ratio >= ratio1,
                note: format!(
                    "{g_sim:.2}x the time at 1,000 boxes (raw rapier {g_raw:.2}x, medians of the passes); {:.0} steps/s (raw {:.0}), {ratio:.2}x raw rapier (median of {} pairs, {} {}) against {ratio1:.2}x at 1,000 boxes; {} (at 1,000 boxes {})",
                    rate(sim),
                    rate(raw),
                    p.0.len(),
                    if p.0.len() < 4 { "from" } else { "the middle half" },
                    p.spread(),
                    same_physics(&p),
                    same_physics(&first),
                ),
            });
        }
    }
    #[cfg(feature = "parallel")]
    for ground in [Ground::Plane, Ground::Box] {
        let id = format!(
            "engine_step/w3_parallel_{}",
            format!("{ground:?}").to_lowercase()
        );
        if !selected(&id) {
            continue;
        }
        // rapier's parallel build: raw rapier on a pool of one thread and of two; simcore's
        // physics step on rayon's global pool (every core), beside raw rapier on two.
        let one = measure(10, ground, 2, 1, PAIRS[0], false);
        let two = measure(10, ground, 2, 2, PAIRS[0], false);
        let (raw1, sim_a) = one.medians();
        let (raw2, sim_b) = two.medians();
        let sim2 = (sim_a + sim_b) / 2.0;
        rows.push(Row {
            name: format!(
                "W3 step, 1,000 boxes, SDF <{}> ground, rapier's parallel build, 2 threads",
                format!("{ground:?}").to_lowercase()
            ),
            ns: per_step(sim2),
            baseline: "raw rapier's parallel build, same scene, 2 threads".into(),
            baseline_ns: per_step(raw2),
            goal: String::new(),
            met: false,
            note: format!(
                "{:.2}x raw rapier on 2 threads, {:.2}x raw rapier (parallel build) on 1; raw rapier 2 threads / 1 thread: {:.2}x",
                raw2 / sim2,
                raw1 / sim2,
                raw1 / raw2,
            ),
        });
    }
}

/// Runs `n` passes of one W3 variant (`raw`, `plane`, `box` or `visuals`, or `raw_stiff`: raw
/// rapier with simcore's contact stiffness, `raw_sdf`: on the SDF world's physics,
/// [`raw_w3_sdf`]; then optionally a box count: `plane:16000`, and a thread count: `plane:1000:2`) without timing: for profilers
/// (`valgrind --tool=callgrind`), which count the instructions of each. `SIMCORE_PROFILE_STEPS`
/// sets the steps of a pass (default 1,000; 0 builds the worlds only); with
/// `SIMCORE_W3_CHECKSUM` set, each pass prints the sum of the boxes' positions at its end.
pub(super) fn profile_w3(which: &str, n: usize) {
    let mut parts = which.split(':');
    let variant = parts.next().unwrap_or("plane");
    let count: usize = parts
        .next()
        .map_or(1000, |c| c.parse().expect("a box count"));
    let threads: usize = parts
        .next()
        .map_or(1, |t| t.parse().expect("a thread count"));
    let side = (1..=100)
        .find(|s| s * s * 10 >= count)
        .expect("at most 100,000 boxes");
    let steps: usize = std::env::var("SIMCORE_PROFILE_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(W3_STEPS);
    let ground = match variant {
        "raw" | "raw_stiff" | "raw_sdf" => None,
        "plane" => Some(Ground::Plane),
        "box" => Some(Ground::Box),
        "visuals" => Some(Ground::Visuals),
        other => panic!("unknown W3 variant {other} (raw, plane, box, visuals)"),
    };
    match ground {
        None => {
            for _ in 0..n {
                let mut w = if variant == "raw_sdf" {
                    raw_w3_sdf(side)
                } else {
                    raw_w3(side)
                };
                if variant == "raw_stiff" {
                    simcore_contacts(&mut w.integration_parameters);
                }
                #[cfg(feature = "parallel")]
                w.configure_thread_pool(threads).expect("a thread pool");
                for _ in 0..steps {
                    w.step();
                }
                if std::env::var_os("SIMCORE_W3_CHECKSUM").is_some() {
                    let sum: f64 = w
                        .bodies
                        .iter()
                        .map(|(_, b)| b.translation().as_dvec3().element_sum())
                        .sum();
                    println!("raw rapier: sum of the body positions {sum:.9}");
                }
                black_box(&w);
            }
        }
        Some(ground) => {
            let world = sim_core::sdf::parse_str(&w3_world(side, ground), None).expect("W3");
            for _ in 0..n {
                let mut sim = w3_sim(&world, threads);
                for _ in 0..steps {
                    assert!(sim.step().is_empty());
                }
                // The trajectory's fingerprint: the same at any thread count and in either
                // build of rapier when the step is deterministic.
                if std::env::var_os("SIMCORE_W3_CHECKSUM").is_some() {
                    let p = sim.physics();
                    let sum: f64 = (0..side * side * 10)
                        .filter_map(|i| p.pose_of(p.entity_id(&format!("b{i}::l"))?))
                        .map(|q| q.position.x + q.position.y + q.position.z)
                        .sum();
                    println!("simcore: sum of the box positions {sum:.9}");
                }
                black_box(&sim);
            }
        }
    }
}

/// simcore's contact stiffness at a 1 ms step (`docs/physics.md`, *Contacts*): 250 Hz, and
/// 500 Hz against fixed bodies.
fn simcore_contacts(ip: &mut IntegrationParameters) {
    ip.contact_softness.natural_frequency = 250.0;
    ip.static_contact_softness.natural_frequency = 500.0;
}

/// A bare rapier world configured as simcore configures one at a 1 ms step, with a
/// half-space ground of friction 1 (SDF's default): the robots benchmark's.
pub(super) fn raw_ground() -> PhysicsWorld {
    let mut w = PhysicsWorld {
        gravity: Vector::new(0.0, 0.0, -9.8),
        ..Default::default()
    };
    w.integration_parameters.dt = 0.001;
    w.integration_parameters.length_unit = 1.0;
    w.integration_parameters.normalized_max_linear_velocity = Real::MAX;
    simcore_contacts(&mut w.integration_parameters);
    let ground = w.insert_body(RigidBodyBuilder::fixed());
    w.insert_collider(
        ColliderBuilder::new(SharedShape::halfspace(Vector::Z))
            .density(0.0)
            .friction(1.0),
        Some(ground),
    );
    w
}

/// Steps a bare rapier scene (`raw`) and simcore's twin (`sim`) `iters` times, alternating,
/// timing each apart; records both in `paired` and gives their mean.
pub(super) fn lockstep(
    iters: u64,
    mut raw: impl FnMut(),
    mut sim: impl FnMut(),
    paired: &Paired,
) -> Duration {
    let (mut t_raw, mut t_sim) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..iters {
        let t = Instant::now();
        raw();
        t_raw += t.elapsed();
        let t = Instant::now();
        sim();
        t_sim += t.elapsed();
    }
    record(paired, t_raw, t_sim, iters);
    (t_raw + t_sim) / 2
}
