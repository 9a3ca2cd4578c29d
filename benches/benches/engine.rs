//! `cargo xtask bench`: every figure beside a baseline measured in the same run.
//!
//! - plugin call overhead: one IMU update through the loaded cdylib vs the same code called
//!   directly through the rlib (goal: under 50 ns more per update);
//! - sensor manager throughput: 1,000 IMUs updated every step, excluding the physics step
//!   (goal: at least 5 million updates per second of wall time on one core), beside the bare
//!   loop of direct rlib updates; as in a run, the world is read as a step leaves it, and
//!   nobody subscribes (the sensors refill their handed-back messages);
//! - navsat/IMU-class sensors: 1,000 navsat sensors (100 static models x 10, in a world with
//!   spherical coordinates) updated every step through the sensor manager, beside the bare
//!   loop of direct rlib updates (goal, as for the IMU: at least 5 million updates per second
//!   on one core);
//! - engine step vs raw rapier: 1,000 boxes (10x10x10 grid, 1 ms step) dropped on a plane,
//!   stepped by simcore with no sensors vs the same scene in a bare rapier program (goal:
//!   within 5 %);
//! - logical camera: one update through the loaded cdylib in worlds of 10, 100, 1,000 and
//!   10,000 static boxes scattered over 200 m x 200 m, beside a brute-force scan (every
//!   model's box against the same frustum, through the rlib) that shows the broad-phase win
//!   (goal: at least 20,000 updates per second with 1,000 models, one core);
//! - lidar: one 1800 x 16 ray scan (the lidar plugin's release cdylib, through the sensor
//!   manager) among a ground plane and 100 unit boxes, on one thread and on two, each beside
//!   a bare single-threaded loop of rapier `cast_ray` over the same shapes (goals: at least
//!   0.9x the bare loop's rays/s on one thread, 1.6x on two). That baseline's ground is a
//!   rapier half-space and its boxes are axis-aligned: not the peers' scene (see the shared
//!   workloads below);
//! - cameras: a 320 x 240 depth camera (hfov 1.047) at the origin of the same scene (the boxes
//!   and the ground as visuals), through the depth camera's release cdylib and the sensor
//!   manager, on one thread and on two, beside a bare single-threaded rapier loop casting the
//!   same pixel rays and computing z-depths (goals: 0.9x and 1.6x the bare loop's frames/s);
//!   and a 320 x 240 RGB camera with Lambert shading and sun shadows (a second ray per lit
//!   pixel) beside the same bare depth loop (goal: 0.4x).
//!
//! - the shared workloads (`../shared/bench-workloads/`, see `workloads`): W1 lidar, W2 depth
//!   and W2 640 x 480 RGB on the peers' scenes, beside raw rapier built as the peers built it.
//!
//! Each figure and its baseline are measured in alternating blocks within one criterion
//! benchmark (same phase of the scene, same machine load), and their ratio is reported. The
//! table is written to `target/bench-results.md` and `.json`.

mod workloads;

use criterion::{Criterion, criterion_group};
use rapier3d::prelude::*;
use sim_benches::{Row, write_table};
use sim_core::physics::Physics;
use sim_core::plugins::{Registry, SearchPath, load_library};
use sim_core::runner::{SimOptions, Simulation};
use sim_plugin_api::{
    EntityId, Message, Outputs, Payload, PluginError, Pose, Sensor, SensorConfig, SharedStr,
    SimTime, SourceLocation, UpdateContext, WorldRef, WorldView_TO,
    abi_stable::{
        sabi_trait::TD_Opaque,
        std_types::{RBox, RStr, RVec},
    },
};
use simcore_plugin_imu::ImuSensor;
use simcore_plugin_logical_camera::LogicalCameraSensor;
use simcore_plugin_navsat::NavSatSensor;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn plugin_dir() -> PathBuf {
    std::env::var_os("SIMCORE_BENCH_PLUGIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/release"))
}

fn target_dir() -> PathBuf {
    std::env::var_os("SIMCORE_BENCH_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

fn imu_world(models: usize, sensors_per_model: usize) -> String {
    let mut s = String::from(
        r#"<sdf version="1.9"><world name="bench"><physics type="ode"><max_step_size>0.001</max_step_size></physics>"#,
    );
    for m in 0..models {
        s.push_str(&format!(
            r#"<model name="m{m}"><static>true</static><pose>{} 0 1 0 0 0</pose><link name="l">"#,
            m as f64 * 0.5
        ));
        for k in 0..sensors_per_model {
            s.push_str(&format!(
                r#"<sensor name="imu{k}" type="imu"><update_rate>0</update_rate></sensor>"#
            ));
        }
        s.push_str("</link></model>");
    }
    s.push_str("</world></sdf>");
    s
}

/// `models` static models with `sensors_per_model` navsat sensors each (rate 0), in a world
/// with spherical coordinates.
fn navsat_world(models: usize, sensors_per_model: usize) -> String {
    let mut s = String::from(
        r#"<sdf version="1.9"><world name="bench"><physics type="ode"><max_step_size>0.001</max_step_size></physics>
        <spherical_coordinates><surface_model>EARTH_WGS84</surface_model><world_frame_orientation>ENU</world_frame_orientation>
        <latitude_deg>37.5</latitude_deg><longitude_deg>-122.3</longitude_deg><elevation>10</elevation><heading_deg>0</heading_deg>
        </spherical_coordinates>"#,
    );
    for m in 0..models {
        s.push_str(&format!(
            r#"<model name="m{m}"><static>true</static><pose>{} 0 1 0 0 0</pose><link name="l">"#,
            m as f64 * 0.5
        ));
        for k in 0..sensors_per_model {
            s.push_str(&format!(
                r#"<sensor name="gps{k}" type="navsat"><update_rate>0</update_rate></sensor>"#
            ));
        }
        s.push_str("</link></model>");
    }
    s.push_str("</world></sdf>");
    s
}

fn lib_path(crate_name: &str) -> PathBuf {
    plugin_dir().join(format!(
        "{}{crate_name}.{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_EXTENSION
    ))
}

fn plugin_call(c: &mut Criterion) {
    let world = sim_core::sdf::parse_str(&imu_world(1, 1), None).expect("bench world");
    let physics = Physics::build(&world).expect("builds");
    let link = physics.entity_id("m0::l").expect("link");
    let sdf = r#"<sensor name="imu0" type="imu"/>"#;
    let config = SensorConfig {
        name: RStr::from_str("imu0"),
        scoped_name: RStr::from_str("m0::l::imu0"),
        sensor_type: RStr::from_str("imu"),
        topic: RStr::from_str("/imu"),
        frame_id: RStr::from_str("m0::l::imu0"),
        world_name: RStr::from_str("bench"),
        sensor: EntityId::NONE,
        link,
        model: EntityId::NONE,
        pose: Pose::IDENTITY,
        update_rate: 0.0,
        seed: 1,
        sdf: RStr::from_str(sdf),
        source: SourceLocation {
            file: RStr::from_str(""),
            line: 0,
            column: 0,
        },
    };
    let view = physics.view("bench");
    let path = lib_path("simcore_plugin_imu");
    let lib = load_library(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask bench`)", path.display()));
    let mut through_abi = (lib.module.create_sensor())(
        RStr::from_str("imu"),
        &config,
        WorldView_TO::from_ptr(&view, TD_Opaque),
    )
    .into_result()
    .expect("created through the ABI");
    let wref = WorldView_TO::from_ptr(&view, TD_Opaque);
    let mut direct = ImuSensor::create(&config, &wref).expect("created directly");
    let ctx = UpdateContext {
        now: SimTime::ZERO,
        dt: SimTime::from_nanos(1_000_000),
        step: SimTime::from_nanos(1_000_000),
        update_count: 1,
        forced: false,
    };
    let mut out = RVec::with_capacity(4);
    let mut g = c.benchmark_group("plugin_call");
    // Blocks of 256 updates, alternating direct and through-the-library, timed apart.
    g.bench_function("imu_update_direct_and_through_cdylib", |b| {
        b.iter_custom(|iters| {
            let (mut t_direct, mut t_abi) = (Duration::ZERO, Duration::ZERO);
            let blocks = iters.div_ceil(256);
            for _ in 0..blocks {
                let t = Instant::now();
                for _ in 0..256 {
                    out.clear();
                    direct
                        .update(&ctx, &wref, &mut Outputs::new(&mut out))
                        .expect("update");
                    black_box(&out);
                }
                t_direct += t.elapsed();
                let t = Instant::now();
                for _ in 0..256 {
                    out.clear();
                    through_abi
                        .update(&ctx, WorldView_TO::from_ptr(&view, TD_Opaque), &mut out)
                        .into_result()
                        .expect("update");
                    black_box(&out);
                }
                t_abi += t.elapsed();
            }
            record(&PLUGIN_CALL, t_direct, t_abi, blocks * 256);
            (t_direct + t_abi) / 2
        })
    });
    g.finish();
}

/// Accumulated (baseline time, measured time, operations) of a paired benchmark.
type Paired = Mutex<(Duration, Duration, u64)>;

static PLUGIN_CALL: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
static SENSOR_MANAGER: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
static NAVSAT_MANAGER: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
static ENGINE_STEP: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
static LIDAR_ONE: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
static LIDAR_TWO: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
static DEPTH_ONE: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
static DEPTH_TWO: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
static RGB_ONE: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
/// One per world size of [`LOGICAL_SIZES`].
static LOGICAL_CAMERA: [Paired; 4] = [const { Mutex::new((Duration::ZERO, Duration::ZERO, 0)) }; 4];
/// Models seen by the logical camera, per world size.
static LOGICAL_SEEN: Mutex<[usize; 4]> = Mutex::new([0; 4]);

fn record(p: &Paired, baseline: Duration, measured: Duration, ops: u64) {
    let mut p = p.lock().unwrap_or_else(|e| e.into_inner());
    p.0 += baseline;
    p.1 += measured;
    p.2 += ops;
}

/// (baseline ns/op, measured ns/op) of a paired benchmark, if it ran.
fn per_op(p: &Paired) -> Option<(f64, f64)> {
    let (b, m, n) = *p.lock().unwrap_or_else(|e| e.into_inner());
    (n > 0).then(|| {
        (
            b.as_nanos() as f64 / n as f64,
            m.as_nanos() as f64 / n as f64,
        )
    })
}

/// 1,000 sensors updated through the sensor manager on one core, paired with a bare loop of
/// the same sensors' updates called directly through the plugin's rlib (alternating passes).
fn manager_vs_direct<S: Sensor>(
    c: &mut Criterion,
    (group, name): (&str, &str),
    world_sdf: &str,
    create: fn(&SensorConfig<'_>, &WorldRef<'_>) -> Result<S, PluginError>,
    paired: &Paired,
) {
    let world = sim_core::sdf::parse_str(world_sdf, None).expect("bench world");
    let reg = Registry::discover(SearchPath::new(&[plugin_dir()], None, &[], None));
    let mut sim = Simulation::new(
        world.clone(),
        reg,
        &SimOptions {
            seed: 1,
            threads: 1,
        },
    )
    .expect("loads");
    assert_eq!(sim.sensors().len(), 1000);
    // Sensors run after a step: both sides read the world as a step leaves it.
    sim.step();
    // Baseline: the same 1,000 sensors updated directly through the rlib.
    let mut physics = Physics::build(&world).expect("builds");
    physics.step();
    let view = physics.view("bench");
    let wref = WorldView_TO::from_ptr(&view, TD_Opaque);
    let mut direct: Vec<S> = sim
        .sensors()
        .setups()
        .map(|s| create(&s.config("bench"), &wref).expect("created"))
        .collect();
    let ctx = UpdateContext {
        now: SimTime::ZERO,
        dt: SimTime::from_nanos(1_000_000),
        step: SimTime::from_nanos(1_000_000),
        update_count: 1,
        forced: false,
    };
    let mut g = c.benchmark_group(group);
    g.bench_function(name, |b| {
        let mut out = RVec::with_capacity(4);
        b.iter_custom(|iters| {
            let (mut t_direct, mut t_mgr) = (Duration::ZERO, Duration::ZERO);
            for _ in 0..iters {
                let t = Instant::now();
                for s in direct.iter_mut() {
                    out.clear();
                    s.update(&ctx, &wref, &mut Outputs::new(&mut out))
                        .expect("update");
                    black_box(&out);
                }
                t_direct += t.elapsed();
                let t = Instant::now();
                assert!(sim.update_sensors().is_empty());
                t_mgr += t.elapsed();
            }
            record(paired, t_direct, t_mgr, iters * 1000);
            (t_direct + t_mgr) / 2
        })
    });
    g.finish();
}

fn sensor_manager(c: &mut Criterion) {
    let group = ("sensor_manager", "1000_imus_direct_and_manager_one_core");
    manager_vs_direct(
        c,
        group,
        &imu_world(100, 10),
        ImuSensor::create,
        &SENSOR_MANAGER,
    );
}

fn navsat_manager(c: &mut Criterion) {
    let group = ("navsat_manager", "1000_navsats_direct_and_manager_one_core");
    manager_vs_direct(
        c,
        group,
        &navsat_world(100, 10),
        NavSatSensor::create,
        &NAVSAT_MANAGER,
    );
}

fn boxes_world() -> String {
    let mut s = String::from(
        r#"<sdf version="1.9"><world name="boxes"><physics type="ode"><max_step_size>0.001</max_step_size></physics>
        <model name="ground"><static>true</static><link name="l"><collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link></model>"#,
    );
    for i in 0..10 {
        for j in 0..10 {
            for k in 0..10 {
                s.push_str(&format!(
                    r#"<model name="b{i}_{j}_{k}"><pose>{} {} {} 0 0 0</pose><link name="l"><inertial><mass>1</mass><inertia><ixx>0.0417</ixx><iyy>0.0417</iyy><izz>0.0417</izz></inertia></inertial><collision name="c"><geometry><box><size>0.5 0.5 0.5</size></box></geometry></collision></link></model>"#,
                    i as f64 * 0.75,
                    j as f64 * 0.75,
                    0.5 + k as f64 * 0.75
                ));
            }
        }
    }
    s.push_str("</world></sdf>");
    s
}

/// The same scene in a bare rapier program, configured as simcore configures it.
fn raw_rapier() -> PhysicsWorld {
    let mut w = PhysicsWorld {
        gravity: Vector::new(0.0, 0.0, -9.8),
        ..Default::default()
    };
    w.integration_parameters.dt = 0.001;
    w.integration_parameters.length_unit = 1.0;
    w.integration_parameters.normalized_max_linear_velocity = Real::MAX;
    let ground = w.insert_body(RigidBodyBuilder::fixed());
    w.insert_collider(
        ColliderBuilder::new(SharedShape::halfspace(Vector::Z))
            .density(0.0)
            .friction(1.0),
        Some(ground),
    );
    for i in 0..10 {
        for j in 0..10 {
            for k in 0..10 {
                let b = RigidBodyBuilder::dynamic()
                    .translation(Vector::new(
                        i as f32 * 0.75,
                        j as f32 * 0.75,
                        0.5 + k as f32 * 0.75,
                    ))
                    .additional_mass_properties(MassProperties::new(
                        Vector::ZERO,
                        1.0,
                        Vector::splat(0.0417),
                    ))
                    .allow_fast_rotation(true);
                let h = w.insert_body(b);
                w.insert_collider(
                    ColliderBuilder::cuboid(0.25, 0.25, 0.25)
                        .density(0.0)
                        .friction(1.0),
                    Some(h),
                );
            }
        }
    }
    w
}

/// The two engines step twin scenes in lockstep, alternating, so that both see the same phase
/// of the scene (falling, piling up, resting) and the same machine load; their step times are
/// summed apart.
fn engine_step(c: &mut Criterion) {
    let world = sim_core::sdf::parse_str(&boxes_world(), None).expect("bench world");
    let mut g = c.benchmark_group("engine_step");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("1000_boxes_raw_and_simcore_in_lockstep", |b| {
        b.iter_custom(|iters| {
            let mut raw = raw_rapier();
            let reg = Registry::discover(SearchPath::new(&[], None, &[], None));
            let mut sim = Simulation::new(
                world.clone(),
                reg,
                &SimOptions {
                    seed: 0,
                    threads: 1,
                },
            )
            .expect("loads");
            let (mut t_raw, mut t_sim) = (Duration::ZERO, Duration::ZERO);
            for _ in 0..iters {
                let t = Instant::now();
                raw.step();
                t_raw += t.elapsed();
                let t = Instant::now();
                sim.step();
                t_sim += t.elapsed();
            }
            record(&ENGINE_STEP, t_raw, t_sim, iters);
            (t_raw + t_sim) / 2
        })
    });
    g.finish();
}

/// World sizes of the logical camera benchmark.
const LOGICAL_SIZES: [usize; 4] = [10, 100, 1_000, 10_000];

/// `n` static 1 m boxes scattered over 200 m x 200 m around the origin (a fixed
/// pseudo-random layout, the same in every run), at the height of a camera on a model without
/// collision at the origin, looking along +X.
fn logical_world(n: usize) -> String {
    let mut s = String::from(
        r#"<sdf version="1.9"><world name="bench"><physics type="ode"><max_step_size>0.001</max_step_size></physics>
        <model name="eye"><static>true</static><link name="l"/></model>"#,
    );
    // SplitMix64: a well-mixed sequence from a counter.
    let mut state = 0x5eed_u64;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as f64 / u64::MAX as f64
    };
    for i in 0..n {
        let (x, y, z) = (
            next() * 200.0 - 100.0,
            next() * 200.0 - 100.0,
            next() * 4.0 - 2.0,
        );
        s.push_str(&format!(
            r#"<model name="b{i}"><static>true</static><pose>{x:.3} {y:.3} {z:.3} 0 0 0</pose><link name="l"><collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision></link></model>"#
        ));
    }
    s.push_str("</world></sdf>");
    s
}

/// One logical camera update through the cdylib (the engine's broad phase picks the
/// candidates) vs a brute-force scan of every model's box against the same frustum, through
/// the rlib, producing the same messages; alternating blocks.
fn logical_camera(c: &mut Criterion) {
    let path = lib_path("simcore_plugin_logical_camera");
    let lib = load_library(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask bench`)", path.display()));
    let mut g = c.benchmark_group("logical_camera");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    for (k, n) in LOGICAL_SIZES.into_iter().enumerate() {
        let world = sim_core::sdf::parse_str(&logical_world(n), None).expect("bench world");
        let physics = Physics::build(&world).expect("builds");
        let sdf = r#"<sensor name="cam" type="logical_camera"><logical_camera><near>0.1</near><far>10</far><horizontal_fov>1.05</horizontal_fov><aspect_ratio>1.8</aspect_ratio></logical_camera></sensor>"#;
        let config = SensorConfig {
            name: RStr::from_str("cam"),
            scoped_name: RStr::from_str("eye::l::cam"),
            sensor_type: RStr::from_str("logical_camera"),
            topic: RStr::from_str("/cam"),
            frame_id: RStr::from_str("eye::l::cam"),
            world_name: RStr::from_str("bench"),
            sensor: EntityId::NONE,
            link: physics.entity_id("eye::l").expect("link"),
            model: physics.entity_id("eye").expect("model"),
            pose: Pose::IDENTITY,
            update_rate: 0.0,
            seed: 1,
            sdf: RStr::from_str(sdf),
            source: SourceLocation {
                file: RStr::from_str(""),
                line: 0,
                column: 0,
            },
        };
        let view = physics.view("bench");
        let wref = WorldView_TO::from_ptr(&view, TD_Opaque);
        let mut through_abi = (lib.module.create_sensor())(
            RStr::from_str("logical_camera"),
            &config,
            WorldView_TO::from_ptr(&view, TD_Opaque),
        )
        .into_result()
        .expect("created through the ABI");
        let mut direct = LogicalCameraSensor::create(&config, &wref).expect("created directly");
        let frustum_topic = SharedStr::from("frustum");
        let mut all = RVec::new();
        let mut brute_force = |out: &mut RVec<Message>| {
            let pose = direct.camera_pose(&wref).expect("camera pose");
            let posed = direct.frustum().posed(pose);
            wref.models(&mut all);
            let image = direct.observe(&wref, pose, &posed, &all);
            out.clear();
            out.push(Message::new(
                "",
                Payload::LogicalCameraImage(RBox::new(image)),
            ));
            out.push(Message::new(
                &frustum_topic,
                Payload::LogicalCameraFrustum(RBox::new(direct.frustum_message())),
            ));
        };
        let ctx = UpdateContext {
            now: SimTime::ZERO,
            dt: SimTime::ZERO,
            step: SimTime::from_nanos(1_000_000),
            update_count: 0,
            forced: false,
        };
        // Both ways see the same models.
        let mut out = RVec::with_capacity(4);
        let seen = |out: &RVec<Message>| match out[0].payload.as_enum() {
            Ok(Payload::LogicalCameraImage(i)) => i
                .models
                .iter()
                .map(|m| m.name.to_string())
                .collect::<Vec<_>>(),
            other => panic!("not an image: {other:?}"),
        };
        brute_force(&mut out);
        let expected = seen(&out);
        out.clear();
        through_abi
            .update(&ctx, WorldView_TO::from_ptr(&view, TD_Opaque), &mut out)
            .into_result()
            .expect("update");
        assert_eq!(
            seen(&out),
            expected,
            "{n} models: broad phase and scan disagree"
        );
        LOGICAL_SEEN.lock().unwrap_or_else(|e| e.into_inner())[k] = expected.len();
        // Blocks of updates sized so that a block of the scan stays short.
        let block = (25_600 / n as u64).clamp(4, 256);
        g.bench_function(format!("{n}_models_scan_and_cdylib"), |b| {
            b.iter_custom(|iters| {
                let (mut t_scan, mut t_abi) = (Duration::ZERO, Duration::ZERO);
                let blocks = iters.div_ceil(block);
                for _ in 0..blocks {
                    let t = Instant::now();
                    for _ in 0..block {
                        brute_force(&mut out);
                        black_box(&out);
                    }
                    t_scan += t.elapsed();
                    let t = Instant::now();
                    for _ in 0..block {
                        out.clear();
                        through_abi
                            .update(&ctx, WorldView_TO::from_ptr(&view, TD_Opaque), &mut out)
                            .into_result()
                            .expect("update");
                        black_box(&out);
                    }
                    t_abi += t.elapsed();
                }
                record(&LOGICAL_CAMERA[k], t_scan, t_abi, blocks * block);
                (t_scan + t_abi) / 2
            })
        });
    }
    g.finish();
}

const LIDAR_H: usize = 1800;
const LIDAR_V: usize = 16;
const LIDAR_RAYS: usize = LIDAR_H * LIDAR_V;

/// Centres (x, y) of the 100 boxes of the lidar scene: uniform in a 40 m square around the
/// origin (a 64-bit LCG seeded with 42), keeping 2 m clear of the lidar.
fn lidar_boxes() -> Vec<(f64, f64)> {
    scattered_boxes(100, 40.0)
}

/// `n` box centres uniform in a square of side `side` around the origin (the LCG seeded with
/// 42), keeping 2 m clear of the origin.
fn scattered_boxes(n: usize, side: f64) -> Vec<(f64, f64)> {
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

fn lidar_world() -> String {
    lidar_world_with(&lidar_boxes())
}

/// The lidar scene with boxes at `boxes`.
fn lidar_world_with(boxes: &[(f64, f64)]) -> String {
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
fn lidar_rapier() -> (PhysicsWorld, Vec<rapier3d::geometry::Ray>) {
    lidar_rapier_with(&lidar_boxes())
}

/// [`lidar_rapier`] with boxes at `boxes`.
fn lidar_rapier_with(boxes: &[(f64, f64)]) -> (PhysicsWorld, Vec<rapier3d::geometry::Ray>) {
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
fn lidar(c: &mut Criterion) {
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
fn bare_scan(raw: &PhysicsWorld, rays: &[rapier3d::geometry::Ray]) -> u32 {
    let qp = raw.query_pipeline();
    let mut hits = 0u32;
    for r in rays {
        hits += qp.cast_ray(r, 100.0, true).is_some() as u32;
    }
    black_box(hits)
}

/// Times `bare` and one sensor pass of `sim` in alternation (same phase, same load) and
/// records both in `paired`.
fn paired_passes<T>(
    b: &mut criterion::Bencher<'_>,
    bare: &mut impl FnMut() -> T,
    sim: &mut Simulation,
    paired: &Paired,
) {
    b.iter_custom(|iters| {
        let (mut t_bare, mut t_sim) = (Duration::ZERO, Duration::ZERO);
        for _ in 0..iters {
            let t = Instant::now();
            black_box(bare());
            t_bare += t.elapsed();
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
const GROWTH_SIZES: [usize; 4] = [10, 100, 1_000, 10_000];
/// Per box count: (bare loop, plugin scan, one thread).
static LIDAR_GROWTH: [Paired; 4] = [const { Mutex::new((Duration::ZERO, Duration::ZERO, 0)) }; 4];

/// How the scan's cost grows with the scene: the same 1800 x 16 scan among 10 to 10,000 unit
/// boxes at the lidar scene's density (the square grows with the count), through the plugin
/// on one thread, beside the bare rapier loop over the same boxes.
fn lidar_growth(c: &mut Criterion) {
    let mut g = c.benchmark_group("lidar_growth");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (k, n) in GROWTH_SIZES.into_iter().enumerate() {
        let boxes = scattered_boxes(n, 40.0 * (n as f64 / 100.0).sqrt());
        let world = sim_core::sdf::parse_str(&lidar_world_with(&boxes), None).expect("bench world");
        let (raw, rays) = lidar_rapier_with(&boxes);
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
        let mut bare = || bare_scan(&raw, &rays);
        g.bench_function(format!("1800x16_rays_{n}_boxes_bare_and_plugin"), |b| {
            paired_passes(b, &mut bare, &mut sim, &LIDAR_GROWTH[k])
        });
    }
    g.finish();
}

const CAMERA_W: usize = 320;
const CAMERA_H: usize = 240;
const CAMERA_HFOV: f64 = 1.047;

/// The lidar scene with visuals (what cameras see) and one camera sensor `sensor` (XML) on a
/// static model at (0, 0, 0.5), and a sun casting shadows.
fn camera_world(sensor: &str) -> String {
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

fn camera_sensor(kind: &str) -> String {
    format!(
        r#"<sensor name="cam" type="{kind}"><update_rate>0</update_rate><camera>
          <horizontal_fov>{CAMERA_HFOV}</horizontal_fov><image><width>{CAMERA_W}</width><height>{CAMERA_H}</height></image>
          <clip><near>0.1</near><far>100</far></clip></camera></sensor>"#
    )
}

/// The camera scene built directly with rapier, and the pixel rays of a 320 x 240 pinhole
/// with their cosines to the optical axis.
fn camera_rapier() -> (PhysicsWorld, Vec<rapier3d::geometry::Ray>, Vec<f32>) {
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
fn one_sensor_sim(world: sim_core::world::World, threads: usize) -> Simulation {
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
fn cameras(c: &mut Criterion) {
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

criterion_group!(
    benches,
    plugin_call,
    sensor_manager,
    navsat_manager,
    engine_step,
    logical_camera,
    lidar,
    lidar_growth,
    cameras,
    workloads::workloads
);

fn main() {
    // `SIMCORE_PROFILE=w1:2` (and `SIMCORE_PROFILE_PASSES`): untimed passes of one shared
    // workload, for a profiler.
    if let Ok(which) = std::env::var("SIMCORE_PROFILE") {
        let n = std::env::var("SIMCORE_PROFILE_PASSES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(10);
        workloads::profile(&which, n);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
    let t = target_dir();
    let mut rows = Vec::new();
    if let Some((direct, abi)) = per_op(&PLUGIN_CALL) {
        rows.push(Row {
            name: "IMU update through the cdylib".into(),
            ns: abi,
            baseline: "same update called directly (rlib)".into(),
            baseline_ns: direct,
            goal: "overhead < 50 ns".into(),
            met: abi - direct < 50.0,
            note: format!("overhead {:.1} ns", abi - direct),
        });
    }
    if let Some((direct, mgr)) = per_op(&SENSOR_MANAGER) {
        let rate = 1e9 / mgr;
        rows.push(Row {
            name: "sensor manager, 1,000 IMUs every step".into(),
            ns: mgr,
            baseline: "direct rlib update loop".into(),
            baseline_ns: direct,
            goal: ">= 5,000,000 updates/s on one core".into(),
            met: rate >= 5e6,
            note: format!("{:.2} M updates/s", rate / 1e6),
        });
    }
    if let Some((direct, mgr)) = per_op(&NAVSAT_MANAGER) {
        let rate = 1e9 / mgr;
        rows.push(Row {
            name: "Navsat/IMU-class sensors: updates per second with 1,000 of them".into(),
            ns: mgr,
            baseline: "direct rlib update loop".into(),
            baseline_ns: direct,
            goal: ">= 5,000,000 updates/s on one core".into(),
            met: rate >= 5e6,
            note: format!("{:.2} M updates/s", rate / 1e6),
        });
    }
    if let Some((raw, sim)) = per_op(&ENGINE_STEP) {
        rows.push(Row {
            name: "step, 1,000 boxes, no sensors".into(),
            ns: sim,
            baseline: "bare rapier step, same scene".into(),
            baseline_ns: raw,
            goal: "within 5 % of raw rapier".into(),
            met: sim <= raw * 1.05,
            note: format!("{:+.1} % vs raw", (sim / raw - 1.0) * 100.0),
        });
    }
    let seen = *LOGICAL_SEEN.lock().unwrap_or_else(|e| e.into_inner());
    for (k, n) in LOGICAL_SIZES.into_iter().enumerate() {
        if let Some((scan, abi)) = per_op(&LOGICAL_CAMERA[k]) {
            let rate = 1e9 / abi;
            rows.push(Row {
                name: format!("logical camera update, {n} models ({} seen)", seen[k]),
                ns: abi,
                baseline: "brute-force scan of every model's box (rlib)".into(),
                baseline_ns: scan,
                goal: ">= 20,000 updates/s on one core".into(),
                met: rate >= 20_000.0,
                note: format!("{:.0} updates/s", rate),
            });
        }
    }
    for (threads, paired, goal) in [(1, &LIDAR_ONE, 0.9), (2, &LIDAR_TWO, 1.6)] {
        if let Some((bare, scan)) = per_op(paired) {
            let ratio = bare / scan;
            rows.push(Row {
                name: format!(
                    "lidar scan, 1800 x 16 rays, 100 boxes, {threads} thread{}",
                    if threads == 1 { "" } else { "s" }
                ),
                ns: scan,
                baseline: "bare rapier cast_ray loop, one thread".into(),
                baseline_ns: bare,
                goal: format!(">= {goal}x the bare loop's rays/s"),
                met: ratio >= goal,
                note: format!(
                    "{:.2} M rays/s (bare {:.2} M rays/s), {ratio:.2}x",
                    LIDAR_RAYS as f64 / scan * 1e3,
                    LIDAR_RAYS as f64 / bare * 1e3
                ),
            });
        }
    }
    // Cost growth: time per scan at n boxes against the time at 10, which should grow no
    // faster than log10(n) (a tree search: about one level per factor of ten).
    let first = per_op(&LIDAR_GROWTH[0]).map(|(_, scan)| scan);
    for (k, n) in GROWTH_SIZES.into_iter().enumerate() {
        if let (Some((bare, scan)), Some(first)) = (per_op(&LIDAR_GROWTH[k]), first) {
            let growth = scan / first;
            let bound = (n as f64).log10();
            rows.push(Row {
                name: format!("lidar scan cost growth, 1800 x 16 rays, {n} boxes, 1 thread"),
                ns: scan,
                baseline: "bare rapier cast_ray loop, same boxes".into(),
                baseline_ns: bare,
                goal: format!("time <= log10(n) x the time at 10 boxes ({bound:.0}x)"),
                met: growth <= bound,
                note: format!(
                    "{:.2} M rays/s (bare {:.2} M rays/s), {growth:.2}x the time at 10 boxes",
                    LIDAR_RAYS as f64 / scan * 1e3,
                    LIDAR_RAYS as f64 / bare * 1e3
                ),
            });
        }
    }
    for (name, paired, goal) in [
        (
            "depth camera 320 x 240, 100 boxes, 1 thread",
            &DEPTH_ONE,
            0.9,
        ),
        (
            "depth camera 320 x 240, 100 boxes, 2 threads",
            &DEPTH_TWO,
            1.6,
        ),
        (
            "RGB camera 320 x 240, shading and shadows, 100 boxes, 1 thread",
            &RGB_ONE,
            0.4,
        ),
    ] {
        if let Some((bare, frame)) = per_op(paired) {
            let ratio = bare / frame;
            rows.push(Row {
                name: name.into(),
                ns: frame,
                baseline: "bare rapier depth loop (cast_ray per pixel), one thread".into(),
                baseline_ns: bare,
                goal: format!(">= {goal}x the bare loop's frames/s"),
                met: ratio >= goal,
                note: format!(
                    "{:.1} frames/s (bare {:.1} frames/s), {ratio:.2}x",
                    1e9 / frame,
                    1e9 / bare
                ),
            });
        }
    }
    workloads::rows(&mut rows);
    if rows.is_empty() {
        return;
    }
    match write_table(&t, &rows) {
        Ok((md, _)) => {
            println!("\n{}", std::fs::read_to_string(&md).unwrap_or_default());
            println!("written to {}", md.display());
        }
        Err(e) => eprintln!("cannot write the results table: {e}"),
    }
}
