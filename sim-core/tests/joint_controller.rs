//! gz-sim's JointController, loaded as a real library by its gz file name on a real jointed
//! model: velocity mode holds the commanded speed; force mode's PID on the velocity error
//! makes the first-order response `ω(t) = ω* (1 − e^(−p t / I))` of a disc of inertia `I`;
//! `<disable_braking>` lets it coast down instead of braking. ApplyJointForce, on the same
//! model, accelerates the joint as a constant torque does.

use crate::common;

use common::joints::{joint, run_steps, send_double, turntable};
use common::*;
use sim_core::runner::Simulation;

const LIB: &str = "simcore_plugin_joint_controller";
const TOPIC: &str = "/model/table/joint/spin/cmd_vel";

fn sim(params: &str) -> (Simulation, tempfile::TempDir) {
    let dir = stage(&[LIB]);
    let plugin = format!(
        r#"<plugin filename="libignition-gazebo-joint-controller-system.so" name="ignition::gazebo::systems::JointController">
        <joint_name>spin</joint_name>{params}</plugin>"#
    );
    (sim_from(&world(&turntable(&plugin)), dir.path(), 0, 1), dir)
}

fn speed(sim: &Simulation) -> f64 {
    joint(sim, "table::spin").1
}

#[test]
fn velocity_mode_holds_the_commanded_speed() {
    let (mut sim, _dir) = sim("<initial_velocity>0.5</initial_velocity>");
    run_steps(&mut sim, 100);
    assert!((speed(&sim) - 0.5).abs() < 1e-3, "{}", speed(&sim));
    send_double(&mut sim, TOPIC, -2.0);
    run_steps(&mut sim, 100);
    let (a0, v) = joint(&sim, "table::spin");
    assert!((v + 2.0).abs() < 1e-3, "{v}");
    run_steps(&mut sim, 500);
    // Half a second at −2 rad/s.
    let a1 = joint(&sim, "table::spin").0;
    assert!((a1 - a0 + 1.0).abs() < 0.01, "{a0} → {a1}");
}

#[test]
fn force_mode_is_a_first_order_response() {
    // τ = −p (ω − ω*) on I = 0.01 kg m²: time constant I / p = 0.2 s.
    let (mut sim, _dir) = sim("<use_force_commands>true</use_force_commands><p_gain>0.05</p_gain>");
    send_double(&mut sim, TOPIC, 3.0);
    for t_ms in [200i64, 400, 1000] {
        let done = sim.time().nanos / 1_000_000;
        run_steps(&mut sim, (t_ms - done) as usize);
        let expected = 3.0 * (1.0 - (-(t_ms as f64) / 1000.0 / 0.2).exp());
        let v = speed(&sim);
        println!("t = {t_ms} ms: {v:.4} rad/s, expected {expected:.4}");
        assert!(
            (v - expected).abs() < 0.03,
            "t {t_ms} ms: {v}, expected {expected}"
        );
    }
}

#[test]
fn without_braking_it_coasts() {
    let params = "<use_force_commands>true</use_force_commands><p_gain>0.05</p_gain>\
                  <initial_velocity>3</initial_velocity>";
    let (mut braking, _d1) = sim(params);
    let (mut coasting, _d2) = sim(&format!("{params}<disable_braking>true</disable_braking>"));
    for s in [&mut braking, &mut coasting] {
        run_steps(s, 2000);
        assert!((speed(s) - 3.0).abs() < 0.01, "{}", speed(s));
        send_double(s, TOPIC, 1.0);
        run_steps(s, 1000);
    }
    // Braking: down to the target; without: no force slows it (no friction on the joint).
    assert!((speed(&braking) - 1.0).abs() < 0.05, "{}", speed(&braking));
    assert!(
        (speed(&coasting) - 3.0).abs() < 0.05,
        "{}",
        speed(&coasting)
    );
}

/// ApplyJointForce: a constant torque τ on the disc (inertia I) turns it at `τ t / I` through
/// `τ t² / 2I`, from the first step after the command until the next one.
#[test]
fn apply_joint_force_accelerates_the_joint_as_newton_says() {
    let dir = stage(&["simcore_plugin_apply_joint_force"]);
    let plugin = r#"<plugin filename="gz-sim-apply-joint-force-system" name="gz::sim::systems::ApplyJointForce">
        <joint_name>spin</joint_name></plugin>"#;
    let mut sim = sim_from(&world(&turntable(plugin)), dir.path(), 0, 1);
    run_steps(&mut sim, 10);
    let (a, v) = joint(&sim, "table::spin");
    assert!(
        a.abs() < 1e-9 && v.abs() < 1e-9,
        "no command, no force: {a} {v}"
    );
    send_double(&mut sim, "/model/table/joint/spin/cmd_force", 0.02);
    run_steps(&mut sim, 500);
    // 0.02 N m on 0.01 kg m² for 0.5 s: 1 rad/s, 0.25 rad.
    let (a, v) = joint(&sim, "table::spin");
    assert!((v - 1.0).abs() < 0.01, "{v}");
    assert!((a - 0.25).abs() < 0.005, "{a}");
    // The command stays until replaced: now braking at the same rate.
    send_double(&mut sim, "/model/table/joint/spin/cmd_force", -0.02);
    run_steps(&mut sim, 500);
    let (a, v) = joint(&sim, "table::spin");
    assert!(v.abs() < 0.01, "{v}");
    assert!((a - 0.5).abs() < 0.01, "{a}");
}
