//! gz-sim's JointPositionController, loaded as a real library by its gz file name on a real
//! jointed model: the PID drives the joint to the commanded position along the response of
//! the same loop integrated here, and settles within its tolerance, and velocity mode moves at `<cmd_max>` until
//! it reaches the target.

use crate::common;

use common::*;
use sim_core::runner::Simulation;

const LIB: &str = "simcore_plugin_joint_position_controller";

fn turntable(plugin: &str) -> String {
    joints::turntable(&format!(
        r#"<plugin filename="gz-sim-joint-position-controller-system" name="gz::sim::systems::JointPositionController">
        <joint_name>spin</joint_name>{plugin}</plugin>"#
    ))
}

fn angle(sim: &Simulation) -> f64 {
    joints::joint(sim, "table::spin").0
}

fn command(sim: &mut Simulation, topic: &str, v: f64) {
    joints::send_double(sim, topic, v);
}

fn steps(sim: &mut Simulation, n: usize) {
    joints::run_steps(sim, n);
}

/// The closed loop of gz-math's PID (`cmd = -p e - ∫i e dt - d de/dt`, the derivative from
/// a previous error of 0 at the first update) on a rigid disc of inertia `izz`, integrated
/// semi-implicitly with step `dt` from rest at 0 towards `target`: the angle after each step.
fn expected_response(p: f64, i: f64, d: f64, izz: f64, target: f64, dt: f64, n: usize) -> Vec<f64> {
    let (mut angle, mut speed, mut integral, mut last) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    (0..n)
        .map(|_| {
            let e = angle - target;
            integral = (integral + i * dt * e).clamp(-1.0, 1.0);
            let torque = (-p * e - integral - d * (e - last) / dt).clamp(-1000.0, 1000.0);
            last = e;
            speed += torque / izz * dt;
            angle += speed * dt;
            angle
        })
        .collect()
}

#[test]
fn the_pid_settles_on_the_commanded_position() {
    let dir = stage(&[LIB]);
    // Torque = -p e - i ∫e - d ė on izz = 0.01: ωn = sqrt(p / izz) = 14 rad/s, damping ratio
    // d / (2 sqrt(p izz)) = 0.71; the derivative kick of the first step (the error jumps from
    // 0) makes it overshoot more than that alone would.
    let mut sim = sim_from(
        &world(&turntable(
            "<p_gain>2</p_gain><i_gain>0.1</i_gain><d_gain>0.2</d_gain>",
        )),
        dir.path(),
        0,
        1,
    );
    // Held at 0 before a command: the initial target, and no error to correct.
    steps(&mut sim, 10);
    assert!(angle(&sim).abs() < 1e-6, "{}", angle(&sim));
    command(&mut sim, "/model/table/joint/spin/0/cmd_pos", 1.0);
    let expected = expected_response(2.0, 0.1, 0.2, 0.01, 1.0, 0.001, 2000);
    let mut worst = 0.0f64;
    for e in &expected {
        steps(&mut sim, 1);
        worst = worst.max((angle(&sim) - e).abs());
    }
    let a = angle(&sim);
    let peak = expected.iter().cloned().fold(0.0, f64::max);
    println!(
        "target 1.0: reached {a:.5}; largest gap to the analytic loop {worst:.4} (its peak {peak:.3})"
    );
    assert!((a - 1.0).abs() < 0.005, "angle {a}");
    assert!(
        worst < 0.02,
        "the joint follows the PID loop's response: {worst}"
    );
    command(&mut sim, "/model/table/joint/spin/0/cmd_pos", -0.5);
    steps(&mut sim, 2000);
    assert!((angle(&sim) + 0.5).abs() < 0.005, "angle {}", angle(&sim));
}

#[test]
fn velocity_mode_moves_at_cmd_max_to_the_target() {
    let dir = stage(&[LIB]);
    let mut sim = sim_from(
        &world(&turntable(
            "<use_velocity_commands>true</use_velocity_commands><cmd_max>0.5</cmd_max>\
             <initial_position>0.2</initial_position><topic>spin_cmd</topic>",
        )),
        dir.path(),
        0,
        1,
    );
    // The initial position is the first target: reached at 0.5 rad/s in 0.4 s.
    steps(&mut sim, 200);
    assert!((angle(&sim) - 0.1).abs() < 0.01, "{}", angle(&sim));
    steps(&mut sim, 400);
    assert!((angle(&sim) - 0.2).abs() < 1e-3, "{}", angle(&sim));
    command(&mut sim, "/spin_cmd", 0.7);
    steps(&mut sim, 500);
    // Half a second at 0.5 rad/s: 0.25 rad of the 0.5 rad to go.
    let a = angle(&sim);
    assert!((a - 0.45).abs() < 0.01, "{a}");
    steps(&mut sim, 1000);
    let a = angle(&sim);
    assert!((a - 0.7).abs() < 1e-3, "{a}");
}

/// As in gz-sim, a controller whose joint the model lacks is reported and does nothing: the
/// world loads and runs.
#[test]
fn a_missing_joint_leaves_the_controller_idle() {
    let dir = stage(&[LIB]);
    let text = world(&turntable("")).replace(
        "<joint_name>spin</joint_name>",
        "<joint_name>nope</joint_name>",
    );
    let mut sim = sim_from(&text, dir.path(), 0, 1);
    command(&mut sim, "/model/table/joint/nope/0/cmd_pos", 1.0);
    steps(&mut sim, 200);
    assert!(angle(&sim).abs() < 1e-9, "{}", angle(&sim));
    assert!(sim.failures().is_empty());
}
