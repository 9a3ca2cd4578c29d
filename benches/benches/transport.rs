//! Issue 16, the Zenoh transport seen from another process on loopback (the release
//! `simcore` binary and `benches/python/zenoh_probe.py`, eclipse-zenoh):
//!
//! - latency from simcore's put to an out-of-process subscriber (the receive wall time
//!   minus the source time of rmw_zenoh's attachment, which simcore stamps just before the
//!   put), p50 and p99, for the IMU and a 640 x 480 RGB image of `worlds/pioneer.sdf` with a
//!   30 Hz camera added, run at real time; beside a plain Zenoh put of the same byte count,
//!   at the same rates, from a publisher process to the same subscriber program;
//! - the real-time factor of `worlds/pioneer.sdf`, unpaced, with 10 of its topics
//!   subscribed from outside (a subscriber that only counts) vs none (goal: within 5 %; the
//!   median of alternating pairs of runs), and the simcore process's CPU time per sim
//!   second in the same runs;
//! - messages delivered to a subscriber that keeps up, for the 100 Hz IMU and a 10 Hz
//!   1800 x 16 scan (`worlds/pioneer.sdf` with that lidar added), run at real time (goal:
//!   every message at their rates).

use super::external::*;
use sim_benches::Row;
use std::collections::HashMap;
use std::path::Path;

/// The 640 x 480 RGB camera at 30 Hz added to `worlds/pioneer.sdf`.
pub const CAMERA: &str = r#"        <sensor name="camera640" type="camera">
          <pose>0.15 0 0.1 0 0 0</pose>
          <update_rate>30</update_rate>
          <camera>
            <horizontal_fov>1.2</horizontal_fov>
            <image><width>640</width><height>480</height><format>R8G8B8</format></image>
            <clip><near>0.1</near><far>50</far></clip>
          </camera>
        </sensor>"#;

/// The 1800 x 16 lidar at 10 Hz added to `worlds/pioneer.sdf`.
const DENSE_LIDAR: &str = r#"        <sensor name="dense" type="gpu_lidar">
          <pose>0.12 0 0.12 0 0 0</pose>
          <update_rate>10</update_rate>
          <lidar>
            <scan>
              <horizontal><samples>1800</samples><min_angle>-3.14159</min_angle><max_angle>3.14159</max_angle></horizontal>
              <vertical><samples>16</samples><min_angle>-0.2618</min_angle><max_angle>0.2618</max_angle></vertical>
            </scan>
            <range><min>0.12</min><max>30</max></range>
          </lidar>
        </sensor>"#;

const IMU_KEY: &str = "0/**/sensor_msgs::msg::dds_::Imu_/*";
const IMAGE_KEY: &str = "0/**/sensor_msgs::msg::dds_::Image_/*";
const DENSE_KEY: &str = "0/**/sensor/dense/scan/*/*";

/// Sim seconds of the paced runs.
const PACED_S: &str = "8";
/// Sim seconds of each unpaced run of `worlds/pioneer.sdf` (about a second of wall time:
/// shorter runs are mostly start-up and the subscriber's first matching).
const UNPACED_S: &str = "60";
/// Pairs of unpaced runs (none subscribed, 10 subscribed), alternating. The figure is the
/// median of the pairs' ratios: on a two-core machine one run in a few meets the scheduler
/// or the other processes at a bad time, by some 5 % either way.
const PAIRS: usize = 7;

/// Runs the selected transport benchmarks and adds their rows.
pub fn rows(rows: &mut Vec<Row>) {
    let ids = [
        "transport/latency",
        "transport/subscribed_rtf",
        "transport/delivery",
    ];
    if !ids.iter().any(|id| selected(id)) {
        return;
    }
    let Some(python) = python() else {
        eprintln!("transport benchmarks skipped: no Python with eclipse-zenoh (SIMCORE_PYTHON)");
        return;
    };
    if !have_simcore() {
        eprintln!("transport benchmarks skipped: no release simcore binary (cargo xtask bench)");
        return;
    }
    type Bench = fn(&Path, &mut Vec<Row>) -> Result<(), String>;
    let benches: [(&str, Bench); 3] = [
        (ids[0], latency),
        (ids[1], subscribed_rtf),
        (ids[2], delivery),
    ];
    for (id, f) in benches {
        if !selected(id) {
            continue;
        }
        if let Err(e) = f(&python, rows) {
            eprintln!("{id}: {e}");
        }
    }
}

fn stream<'a>(got: &'a HashMap<String, Stream>, part: &str) -> Result<&'a Stream, String> {
    got.iter()
        .find(|(k, _)| k.contains(part))
        .map(|(_, s)| s)
        .ok_or_else(|| format!("nothing received on a {part} key (got {:?})", got.keys()))
}

/// The samples after the first tenth (the subscriber's and the route's warm-up).
fn steady(v: &[i64]) -> &[i64] {
    &v[v.len() / 10..]
}

/// `world` at real time for [`PACED_S`], connected to `sub`.
fn paced(world: &Path, sub: &Sub) -> Result<RunOut, String> {
    let args = [
        "--rtf",
        "1",
        "--duration",
        PACED_S,
        "--seed",
        "7",
        "--zenoh-connect",
    ];
    let mut args = args.to_vec();
    args.push(&sub.endpoint);
    Ok(simcore_run(world, &args)?.0)
}

fn latency(python: &Path, rows: &mut Vec<Row>) -> Result<(), String> {
    let world = pioneer_with("pioneer_camera", CAMERA)?;
    let sub = Sub::start(python, &[IMU_KEY, IMAGE_KEY])?;
    let run = paced(&world, &sub)?;
    let got = sub.finish()?;
    let imu = stream(&got, "Imu_")?.clone();
    let image = stream(&got, "Image_")?.clone();
    let base_sub = Sub::start(python, &["bench/**"])?;
    publish(
        python,
        &base_sub.endpoint,
        &[
            format!("bench/imu:{}:100:{}", imu.bytes, imu.lat_ns.len()),
            format!("bench/image:{}:30:{}", image.bytes, image.lat_ns.len()),
        ],
    )?;
    let base = base_sub.finish()?;
    let base_imu = stream(&base, "bench/imu")?;
    let base_image = stream(&base, "bench/image")?;
    for (what, s, b, rate) in [
        ("Imu", &imu, base_imu, 100),
        ("640 x 480 RGB Image", &image, base_image, 30),
    ] {
        for (q, label) in [(0.5, "p50"), (0.99, "p99")] {
            let (m, bl) = (
                quantile(steady(&s.lat_ns), q),
                quantile(steady(&b.lat_ns), q),
            );
            rows.push(Row {
                name: format!(
                    "{what} ({} bytes), put to an out-of-process subscriber, {label}",
                    s.bytes
                ),
                ns: m,
                baseline: format!("plain zenoh put, same bytes at {rate} Hz, {label}"),
                baseline_ns: bl,
                goal: String::new(),
                met: true,
                note: format!(
                    "{label} {:.0} us (plain put {:.0} us), {} samples, run RTF {:.2}",
                    m / 1e3,
                    bl / 1e3,
                    s.lat_ns.len(),
                    run.rtf()
                ),
            });
        }
    }
    Ok(())
}

fn subscribed_rtf(python: &Path, rows: &mut Vec<Row>) -> Result<(), String> {
    let world = pioneer();
    // Which topics the run publishes: a short paced run with everything subscribed.
    let all = Sub::start(python, &["0/**"])?;
    simcore_run(
        &world,
        &[
            "--rtf",
            "1",
            "--duration",
            "3",
            "--zenoh-connect",
            &all.endpoint,
        ],
    )?;
    let mut keys: Vec<String> = all.finish()?.into_keys().collect();
    keys.sort();
    keys.truncate(10);
    if keys.is_empty() {
        return Err("the run published nothing over Zenoh".into());
    }
    let key_refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let args = |endpoint: &str| -> Vec<String> {
        [
            "--rtf",
            "0",
            "--duration",
            UNPACED_S,
            "--seed",
            "7",
            "--zenoh-connect",
            endpoint,
        ]
        .into_iter()
        .map(String::from)
        .collect()
    };
    let (mut none, mut ten) = (RunOut::default(), RunOut::default());
    let mut received = 0usize;
    // Per pair: wall time per sim second, subscribed over none.
    let mut ratios = Vec::with_capacity(PAIRS);
    for _ in 0..PAIRS {
        let mut pair = [0.0; 2];
        for subscribed in [false, true] {
            let wanted: &[&str] = if subscribed { &key_refs } else { &[] };
            let sub = Sub::start_with(python, Mode::Count, wanted)?;
            let a = args(&sub.endpoint);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let (run, _) = simcore_run(&world, &a)?;
            let got = sub.finish()?;
            pair[usize::from(subscribed)] = run.loop_s / run.sim_s;
            let acc = if subscribed { &mut ten } else { &mut none };
            acc.sim_s += run.sim_s;
            acc.loop_s += run.loop_s;
            acc.process_s += run.process_s;
            acc.cpu_s += run.cpu_s;
            if subscribed {
                received += got.values().map(|s| s.count).sum::<usize>();
            }
        }
        ratios.push(pair[1] / pair[0]);
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios[PAIRS / 2];
    // The baseline is the runs' mean; the subscribed figure is that times the median ratio.
    let per_none = none.loop_s / none.sim_s * 1e9;
    let per_ten = per_none * median;
    rows.push(Row {
        name: format!(
            "worlds/pioneer.sdf unpaced, {} topics subscribed from another process",
            keys.len()
        ),
        ns: per_ten,
        baseline: "same runs, no topic subscribed (wall ns per sim s)".into(),
        baseline_ns: per_none,
        goal: "within 5 % of none subscribed".into(),
        met: median <= 1.05,
        note: format!(
            "median of {PAIRS} alternating pairs {:+.1} % (pairs from {:+.1} to {:+.1} %); \
             RTF over all runs {:.2} vs {:.2}; {received} messages received",
            (median - 1.0) * 100.0,
            (ratios[0] - 1.0) * 100.0,
            (ratios[PAIRS - 1] - 1.0) * 100.0,
            ten.rtf(),
            none.rtf(),
        ),
    });
    let (cpu_none, cpu_ten) = (none.cpu_s / none.sim_s * 1e9, ten.cpu_s / ten.sim_s * 1e9);
    rows.push(Row {
        name: format!(
            "worlds/pioneer.sdf unpaced, {} topics subscribed, simcore's CPU time (user + system)",
            keys.len()
        ),
        ns: cpu_ten,
        baseline: "same runs, no topic subscribed (CPU ns per sim s)".into(),
        baseline_ns: cpu_none,
        goal: String::new(),
        met: true,
        note: format!(
            "{:.1} vs {:.1} ms per sim s ({:+.1} %), start-up and closing included",
            cpu_ten / 1e6,
            cpu_none / 1e6,
            (cpu_ten / cpu_none - 1.0) * 100.0
        ),
    });
    Ok(())
}

fn delivery(python: &Path, rows: &mut Vec<Row>) -> Result<(), String> {
    let world = pioneer_with("pioneer_dense_lidar", DENSE_LIDAR)?;
    let sub = Sub::start(python, &[IMU_KEY, DENSE_KEY])?;
    let run = paced(&world, &sub)?;
    let got = sub.finish()?;
    for (what, part, rate) in [
        ("100 Hz IMU", "Imu_", 100.0),
        ("10 Hz 1800 x 16 scan", "sensor/dense/scan", 10.0),
    ] {
        let s = stream(&got, part)?;
        let mut stamps = s.stamps_ns.clone();
        stamps.sort_unstable();
        stamps.dedup();
        let (first, last) = (stamps[0], stamps[stamps.len() - 1]);
        let span_s = (last - first) as f64 * 1e-9;
        let expected = (span_s * rate).round() as usize + 1;
        let period = 1e9 / rate;
        let interval = if stamps.len() > 1 {
            (last - first) as f64 / (stamps.len() - 1) as f64
        } else {
            f64::NAN
        };
        rows.push(Row {
            name: format!("{what} ({} bytes) delivered out of process, paced", s.bytes),
            ns: interval,
            baseline: format!("the sensor's period ({rate} Hz)"),
            baseline_ns: period,
            goal: "every message (100 %)".into(),
            met: stamps.len() == expected,
            note: format!(
                "{} of {expected} ({:.1} %) over {span_s:.2} s of sim time, run RTF {:.2}",
                stamps.len(),
                stamps.len() as f64 / expected as f64 * 100.0,
                run.rtf()
            ),
        });
    }
    Ok(())
}
