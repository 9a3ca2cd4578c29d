//! The linear battery, loaded as a real library on the example diff-drive robot
//! (`worlds/diff_drive.sdf`): the voltage follows the model step by step with the motor power
//! of the real wheel joints, and a drained battery stops the robot and its sensors.

use crate::common;

use common::*;
use sim_core::runner::Simulation;
use sim_plugin_api::{
    BatteryState, EntityId, JointState, Message, Payload, Twist, Vec3, WorldView,
    abi_stable::std_types::{RSlice, RSliceMut},
};

const STATE: &str = "/model/robot/battery/main/state";
const IMU: &str = "/world/diff_drive/model/robot/link/chassis/sensor/imu/imu";

/// The example world with a battery (`params` inside its plugin element) and an IMU on the
/// chassis.
fn robot(params: &str) -> (Simulation, tempfile::TempDir) {
    let text = std::fs::read_to_string(workspace().join("worlds/diff_drive.sdf")).unwrap();
    let battery = format!(
        r#"<plugin filename="simcore_plugin_battery" name="gz::sim::systems::LinearBatteryPlugin">
          <battery_name>main</battery_name>
          <motor_joint>left_wheel_joint</motor_joint>
          <motor_joint>right_wheel_joint</motor_joint>
          {params}
        </plugin>
      </model>"#
    );
    let text = text
        .replacen("</model>\n  </world>", &format!("{battery}\n  </world>"), 1)
        .replacen(
            "</collision>",
            "</collision><sensor name=\"imu\" type=\"imu\"><update_rate>100</update_rate></sensor>",
            2,
        );
    assert!(text.contains("LinearBatteryPlugin"), "the edit applies");
    let dir = stage(&[
        "simcore_plugin_diff_drive",
        "simcore_plugin_truth",
        "simcore_plugin_battery",
        "simcore_plugin_imu",
    ]);
    (sim_from(&text, dir.path(), 1, 1), dir)
}

fn drive(sim: &mut Simulation, v: f64) {
    let t = sim.bus_mut().intern("/model/robot/cmd_vel");
    sim.bus_mut().publish(
        t,
        Message::new(
            "",
            Payload::Twist(Twist {
                linear: Vec3::new(v, 0.0, 0.0),
                angular: Vec3::ZERO,
            }),
        ),
    );
}

fn states(sub: &sim_core::transport::Subscription) -> Vec<(i64, BatteryState)> {
    sub.drain()
        .iter()
        .map(|e| match e.message.payload.as_enum() {
            Ok(Payload::BatteryState(b)) => (e.message.header.stamp.nanos, (**b).clone()),
            other => panic!("not a BatteryState: {other:?}"),
        })
        .collect()
}

fn chassis_speed(sim: &Simulation) -> f64 {
    let id = sim.physics().entity_id("robot::chassis").unwrap();
    sim.physics()
        .kinematics_of(id)
        .unwrap()
        .linear_velocity
        .length()
}

#[test]
fn the_voltage_follows_the_linear_model_with_the_motor_power() {
    let (e0, e1, c, r, tau, load, eff) = (12.6, -2.0, 0.05, 0.1, 0.5, 20.0, 0.8);
    let (mut sim, _dir) = robot(&format!(
        "<open_circuit_voltage_constant_coef>{e0}</open_circuit_voltage_constant_coef>
         <open_circuit_voltage_linear_coef>{e1}</open_circuit_voltage_linear_coef>
         <capacity>{c}</capacity><initial_charge>0.04</initial_charge>
         <resistance>{r}</resistance><smooth_current_tau>{tau}</smooth_current_tau>
         <power_load>{load}</power_load><motor_efficiency>{eff}</motor_efficiency>
         <state_publish_frequency>0</state_publish_frequency>"
    ));
    let sub = sim.bus_mut().subscribe(STATE, 10_000);
    let joints: Vec<EntityId> = ["robot::left_wheel_joint", "robot::right_wheel_joint"]
        .iter()
        .map(|j| sim.physics().entity_id(j).unwrap())
        .collect();
    drive(&mut sim, 0.5);
    // The same model, computed here from the same inputs: the wheel joints' efforts and
    // velocities after each step.
    let dt = 0.001;
    let mut q = 0.04;
    let mut i_s = 0.0;
    let mut v = e0 + e1 * (1.0 - q / c);
    let mut expected = Vec::new();
    let mut max_motor_power: f64 = 0.0;
    for _ in 0..3000 {
        assert!(sim.step().is_empty());
        let mut js = [JointState::default(); 2];
        sim.physics().view("test").joint_states(
            RSlice::from_slice(&joints),
            RSliceMut::from_mut_slice(&mut js),
        );
        let motor: f64 = js
            .iter()
            .map(|s| (s.effort[0] * s.velocity[0]).abs())
            .sum::<f64>()
            / eff;
        max_motor_power = max_motor_power.max(motor);
        let i_raw = (load + motor) / v;
        i_s += dt / tau * (i_raw - i_s);
        q -= dt * i_s / 3600.0;
        v = e0 + e1 * (1.0 - q / c) - r * i_s;
        expected.push((sim.time().nanos, v, q, i_s));
    }
    println!("peak motor power {max_motor_power:.2} W");
    assert!(max_motor_power > 1.0, "the wheels draw power while driving");
    let got = states(&sub);
    assert_eq!(got.len(), expected.len(), "one state per step");
    for ((t, s), (te, ve, qe, ie)) in got.iter().zip(&expected) {
        assert_eq!(t, te);
        assert!(
            (s.voltage - ve).abs() < 1e-9,
            "at {t}: {} vs {ve}",
            s.voltage
        );
        assert!(
            (s.charge - qe).abs() < 1e-12,
            "at {t}: {} vs {qe}",
            s.charge
        );
        assert!(
            (s.current + ie).abs() < 1e-9,
            "discharging current is negative"
        );
        assert!((s.percentage - qe / c).abs() < 1e-9);
        assert_eq!(s.capacity, c);
        assert_eq!(s.power_supply_status, 2, "discharging");
    }
    let last = &got.last().unwrap().1;
    println!("after 3 s: {:.4} V, {:.6} Ah", last.voltage, last.charge);
    assert!(
        last.voltage < e0 + e1 * (1.0 - 0.04 / c),
        "the voltage sags under load"
    );
}

#[test]
fn a_drained_battery_stops_the_robot_and_its_sensors() {
    // 20 W and the motors from about 12 V drain 0.0006 Ah in well under 2 s.
    let (mut sim, _dir) = robot(
        "<open_circuit_voltage_constant_coef>12</open_circuit_voltage_constant_coef>
         <capacity>0.0006</capacity><power_load>20</power_load>
         <smooth_current_tau>0.01</smooth_current_tau>
         <disable_sensors_on_drained_battery>true</disable_sensors_on_drained_battery>",
    );
    let sub = sim.bus_mut().subscribe(STATE, 10_000);
    let imu = sim.bus_mut().subscribe(IMU, 10_000);
    let power = sim.bus_mut().subscribe("/model/robot/power/enabled", 10);
    drive(&mut sim, 0.5);
    for _ in 0..1000 {
        assert!(sim.step().is_empty());
    }
    let moving = chassis_speed(&sim);
    assert!(moving > 0.4, "driving at first: {moving} m/s");
    let mut drained_at = None;
    let mut imu_count_at_drain = 0;
    for _ in 0..4000 {
        assert!(sim.step().is_empty());
        if drained_at.is_none() {
            let s = states(&sub);
            imu_count_at_drain += collect(&imu).len();
            if s.iter().any(|(_, b)| b.charge == 0.0) {
                drained_at = Some(sim.time().nanos);
            }
        }
    }
    let drained_at = drained_at.expect("the battery drained");
    println!("drained at {:.3} s", drained_at as f64 * 1e-9);
    assert!(drained_at < 4_000_000_000);
    // The battery told the drive; the drive stopped the robot and ignores commands now.
    let switched: Vec<_> = power
        .drain()
        .iter()
        .map(|e| e.message.payload.as_enum().unwrap().clone())
        .collect();
    assert!(
        matches!(switched.as_slice(), [Payload::Boolean(false)]),
        "{switched:?}"
    );
    drive(&mut sim, 0.5);
    for _ in 0..500 {
        assert!(sim.step().is_empty());
    }
    let speed = chassis_speed(&sim);
    assert!(speed < 0.01, "stopped: {speed} m/s");
    // The sensors were paused: at most one more IMU message after the drain.
    let after = collect(&imu).len();
    assert!(imu_count_at_drain > 100, "the IMU ran before");
    assert!(
        after <= 1,
        "the IMU stopped: {after} messages after the drain"
    );
    let last = states(&sub).pop().unwrap().1;
    assert_eq!(last.charge, 0.0);
    assert_eq!(last.percentage, 0.0);
}

#[test]
fn bad_configurations_are_refused_at_load() {
    let text = std::fs::read_to_string(workspace().join("worlds/diff_drive.sdf")).unwrap();
    let dir = stage(&[
        "simcore_plugin_diff_drive",
        "simcore_plugin_truth",
        "simcore_plugin_battery",
    ]);
    let with = |params: &str| {
        let t = text.replacen(
            "</model>\n  </world>",
            &format!(
                r#"<plugin filename="simcore_plugin_battery" name="simcore::LinearBattery">{params}</plugin></model>
  </world>"#
            ),
            1,
        );
        load_error(&t, dir.path())
    };
    let e = with("<battery_name>b</battery_name><capacity>1</capacity>");
    assert!(
        e.contains(
            "robot: LinearBattery: <open_circuit_voltage_constant_coef> is required (a finite number in V)"
        ),
        "{e}"
    );
    let e = with(
        "<battery_name>b</battery_name><capacity>1</capacity>\
         <open_circuit_voltage_constant_coef>12</open_circuit_voltage_constant_coef>\
         <motor_joint>no_such_joint</motor_joint>",
    );
    assert!(
        e.contains("<motor_joint> `no_such_joint`: no such joint"),
        "{e}"
    );
}
