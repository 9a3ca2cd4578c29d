//! The real IMU plugin in real rapier worlds: readings at rest and in free fall, noise
//! statistics, and bit-for-bit reproducibility across runs and thread counts.

use crate::common;

use common::*;
use sim_plugin_api::Payload;

const TOPIC: &str = "/world/test/model/box/link/body/sensor/s/imu";

fn noise(stddev: f64) -> String {
    let axis = |a: &str| {
        format!(
            "<{a}><noise type=\"gaussian\"><mean>0</mean><stddev>{stddev}</stddev></noise></{a}>"
        )
    };
    format!(
        "<imu><angular_velocity>{}{}{}</angular_velocity><linear_acceleration>{}{}{}</linear_acceleration></imu>",
        axis("x"),
        axis("y"),
        axis("z"),
        axis("x"),
        axis("y"),
        axis("z")
    )
}

#[test]
fn at_rest_on_the_ground_reads_plus_g() {
    let dir = stage(&["simcore_plugin_imu"]);
    let mut sim = sim_from(
        &world(&box_model("box", 0.1, &imu("s", 100.0, ""))),
        dir.path(),
        0,
        1,
    );
    let sub = sim.bus_mut().subscribe(TOPIC, 10_000);
    for _ in 0..2000 {
        sim.step();
    }
    let u = collect(&sub);
    // After settling (the last half second), every reading is +g on z within 1e-3.
    for (t, _, p) in u.iter().filter(|x| x.0 >= 1_500_000_000) {
        let a = imu_accel(p);
        assert!(
            a.x.abs() < 1e-3 && a.y.abs() < 1e-3 && (a.z - 9.8).abs() < 1e-3,
            "at t={t} ns the resting IMU read {a:?}"
        );
    }
}

#[test]
fn in_free_fall_reads_about_zero() {
    let dir = stage(&["simcore_plugin_imu"]);
    let mut sim = sim_from(
        &world(&box_model("box", 50.0, &imu("s", 0.0, ""))),
        dir.path(),
        0,
        1,
    );
    let sub = sim.bus_mut().subscribe(TOPIC, 10_000);
    for _ in 0..500 {
        sim.step();
    }
    let u = collect(&sub);
    // Every step, after it (as Gazebo's IMU system, in PostUpdate): the first sample, at one
    // step, already reads free fall.
    assert_eq!(u.len(), 500);
    assert_eq!(u[0].0, 1_000_000);
    for (t, _, p) in &u {
        let a = imu_accel(p);
        assert!(a.length() < 1e-3, "falling IMU at t={t} read {a:?}");
    }
}

#[test]
fn noise_statistics_within_k_sigma() {
    let dir = stage(&["simcore_plugin_imu"]);
    let sigma = 0.05;
    let mut sim = sim_from(
        &world(&box_model("box", 0.1, &imu("s", 0.0, &noise(sigma)))),
        dir.path(),
        42,
        1,
    );
    let sub = sim.bus_mut().subscribe(TOPIC, 100_000);
    for _ in 0..5000 {
        sim.step();
    }
    let z: Vec<f64> = collect(&sub)
        .iter()
        .filter(|x| x.0 >= 1_000_000_000)
        .map(|x| imu_accel(&x.2).z)
        .collect();
    let n = z.len() as f64;
    let mean = z.iter().sum::<f64>() / n;
    let sd = (z.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    // Mean within 5 standard errors of +g, deviation within 10 %.
    assert!((mean - 9.8).abs() < 5.0 * sigma / n.sqrt(), "mean {mean}");
    assert!((sd - sigma).abs() < 0.1 * sigma, "stddev {sd}");
}

fn transcript(seed: u64, threads: usize) -> Vec<String> {
    let dir = stage(&["simcore_plugin_imu"]);
    let sensors = format!(
        "{}{}",
        imu("s", 0.0, &noise(0.1)),
        imu("t", 250.0, &noise(0.3))
    );
    let models = format!(
        "{}{}",
        box_model("box", 1.0, &sensors),
        box_model("other", 3.0, &imu("s", 100.0, &noise(0.2)))
    );
    let mut sim = sim_from(&world(&models), dir.path(), seed, threads);
    let topics = [
        TOPIC.to_string(),
        "/world/test/model/box/link/body/sensor/t/imu".into(),
        "/world/test/model/other/link/body/sensor/s/imu".into(),
    ];
    let subs: Vec<_> = topics
        .iter()
        .map(|t| sim.bus_mut().subscribe(t, 100_000))
        .collect();
    for _ in 0..1500 {
        sim.step();
    }
    subs.iter()
        .flat_map(|s| s.drain())
        .map(|e| sim_core::echo::message_json(&e.topic, &e.message).to_string())
        .collect()
}

#[test]
fn same_seed_is_bit_identical_and_another_seed_differs() {
    let a = transcript(7, 1);
    let b = transcript(7, 1);
    assert!(a.len() > 1500);
    assert_eq!(a, b);
    assert_ne!(a, transcript(8, 1));
}

/// The IMU's messages of `steps` steps of `sim` as JSON lines.
fn run_lines(sim: &mut sim_core::runner::Simulation, steps: usize) -> Vec<String> {
    let sub = sim.bus_mut().subscribe(TOPIC, 100_000);
    for _ in 0..steps {
        sim.step();
    }
    sub.drain()
        .iter()
        .map(|e| sim_core::echo::message_json(&e.topic, &e.message).to_string())
        .collect()
}

#[test]
fn a_reset_with_another_seed_runs_as_a_fresh_simulation_of_that_seed() {
    let dir = stage(&["simcore_plugin_imu"]);
    let w = world(&box_model("box", 1.0, &imu("s", 0.0, &noise(0.1))));
    let fresh = |seed| run_lines(&mut sim_from(&w, dir.path(), seed, 1), 300);
    let mut sim = sim_from(&w, dir.path(), 7, 1);
    let seven = run_lines(&mut sim, 300);
    assert_eq!(seven, fresh(7));
    sim.reset_with_seed(8).unwrap();
    assert_eq!(sim.options().seed, 8);
    let eight = run_lines(&mut sim, 300);
    assert_ne!(eight, seven);
    assert_eq!(eight, fresh(8));
    // The seed stays for later resets.
    sim.reset().unwrap();
    assert_eq!(run_lines(&mut sim, 300), eight);
    sim.reset_with_seed(7).unwrap();
    assert_eq!(run_lines(&mut sim, 300), seven);
}

#[test]
fn one_and_two_worker_threads_give_identical_output() {
    assert_eq!(transcript(3, 1), transcript(3, 2));
}

#[test]
fn messages_carry_header_and_entity_name() {
    let dir = stage(&["simcore_plugin_imu"]);
    let mut sim = sim_from(
        &world(&box_model("box", 0.1, &imu("s", 100.0, ""))),
        dir.path(),
        0,
        1,
    );
    let sub = sim.bus_mut().subscribe(TOPIC, 100);
    for _ in 0..30 {
        sim.step();
    }
    let msgs = sub.drain();
    // At the first step (due at 0), then at 10, 20 and 30 ms.
    assert_eq!(msgs.len(), 4);
    let m = &msgs[0].message;
    assert_eq!(m.header.stamp.nanos, 1_000_000);
    assert_eq!(m.header.seq, 0);
    assert_eq!(m.header.frame_id.as_str(), "box::body::s");
    match m.payload.as_enum() {
        Ok(Payload::Imu(i)) => {
            // As gz-sensors: the sensor's scoped name, not its link's.
            assert_eq!(i.entity_name.as_str(), "box::body::s");
            assert!(i.has_orientation);
        }
        other => panic!("{other:?}"),
    }
}
