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
//! - the physics step on the peers' W3 scene (see `step`): 1,000 unit boxes dropped on an SDF
//!   `<plane>` (and on a 500 x 500 x 1 m `<box>`), stepped by simcore as `simcore run` steps
//!   them vs the raw rapier program the peers were timed with (goal: at least 1.0x its steps/s
//!   on one thread), and how the cost grows to 4,000 and 16,000 boxes beside raw rapier's;
//! - jointed robots vs raw rapier: ten free wheeled robots shaped like `worlds/pioneer.sdf`'s
//!   (five joints each) driving circles, simcore vs the same bodies and joints in a bare
//!   rapier program (goal: within 10 %, see `robots`);
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
//! - the Zenoh transport from another process (`transport`: latency, the real-time factor with
//!   topics subscribed, messages delivered) and the MCAP recorder (`recording`), through the
//!   release `simcore` binary; selected by the same filter (`transport`, `record`).
//!
//! Each figure and its baseline are measured in alternating blocks within one criterion
//! benchmark (same phase of the scene, same machine load), and their ratio is reported. The
//! table is written to `target/bench-results.md` and `.json`.

/// The bench allocates as users' processes do (the `simcore` binary, the Python package):
/// with mimalloc, unless built without the default `mimalloc` feature.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod external;
mod logical;
mod rays;
mod recording;
mod robots;
mod sensors;
mod step;
mod transport;
mod workloads;

use logical::*;
use rays::*;
use robots::*;
use sensors::*;
use step::*;

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
use simcore_plugin_common::SdfSensor;
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

fn lib_path(crate_name: &str) -> PathBuf {
    plugin_dir().join(format!(
        "{}{crate_name}.{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_EXTENSION
    ))
}

/// Accumulated (baseline time, measured time, operations) of a paired benchmark.
type Paired = Mutex<(Duration, Duration, u64)>;

static PLUGIN_CALL: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
static SENSOR_MANAGER: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
static NAVSAT_MANAGER: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
static ROBOTS_STEP: Paired = Mutex::new((Duration::ZERO, Duration::ZERO, 0));
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

criterion_group!(
    benches,
    plugin_call,
    sensor_manager,
    navsat_manager,
    robots_step,
    logical_camera,
    lidar,
    lidar_growth,
    cameras,
    workloads::workloads
);

fn main() {
    // `SIMCORE_PROFILE=w1:2` (and `SIMCORE_PROFILE_PASSES`): untimed passes of one shared
    // workload, for a profiler; `growth:10000`, of the cost-growth scan among that many
    // boxes; `w3:plane` (or `w3:raw`, `w3:box`, with a box count `w3:plane:16000`), of the
    // W3 physics step.
    if let Ok(which) = std::env::var("SIMCORE_PROFILE") {
        let n = std::env::var("SIMCORE_PROFILE_PASSES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(10);
        if let Some(w3) = which.strip_prefix("w3:") {
            profile_w3(w3, n);
            return;
        }
        match which.strip_prefix("growth:").map(str::parse) {
            Some(Ok(boxes)) => profile_growth(boxes, n),
            Some(Err(_)) => panic!("`growth:` takes a box count: {which}"),
            None => workloads::profile(&which, n),
        }
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
    step::rows(&mut rows);
    // The steps beside bare rapier's: (measurements, row, baseline, bound in per cent).
    for (paired, name, baseline, bound) in [(
        &ROBOTS_STEP,
        "step, 10 wheeled robots (5 joints each), no sensors",
        "bare rapier step, same robots",
        10,
    )] {
        if let Some((raw, sim)) = per_op(paired) {
            rows.push(Row {
                name: name.into(),
                ns: sim,
                baseline: baseline.into(),
                baseline_ns: raw,
                goal: format!("within {bound} % of raw rapier"),
                met: sim <= raw * (1.0 + f64::from(bound) / 100.0),
                note: format!("{:+.1} % vs raw", (sim / raw - 1.0) * 100.0),
            });
        }
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
    transport::rows(&mut rows);
    recording::rows(&mut rows);
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
