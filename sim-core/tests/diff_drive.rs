//! The diff drive system, loaded as a real library, driving the example robot
//! (`worlds/diff_drive.sdf`) with real contact physics.

use crate::common;

use common::*;
use sim_core::runner::Simulation;
use sim_core::transport::Subscription;
use sim_plugin_api::{Message, Odometry, Payload, Pose, Twist, Vec3};

const CHASSIS: &str = "robot::chassis";

/// The example world, edited by `edit` (with the directory its libraries are staged in).
fn example(edit: impl Fn(String) -> String) -> (Simulation, tempfile::TempDir) {
    let text = std::fs::read_to_string(workspace().join("worlds/diff_drive.sdf")).unwrap();
    let dir = stage(&["simcore_plugin_diff_drive", "simcore_plugin_truth"]);
    (sim_from(&edit(text), dir.path(), 1, 1), dir)
}

fn command(sim: &mut Simulation, linear: f64, angular: f64) {
    let t = sim.bus_mut().intern("/model/robot/cmd_vel");
    sim.bus_mut().publish(
        t,
        Message::new(
            "",
            Payload::Twist(Twist {
                linear: Vec3::new(linear, 0.0, 0.0),
                angular: Vec3::new(0.0, 0.0, angular),
            }),
        ),
    );
}

fn chassis_pose(sim: &Simulation) -> Pose {
    let id = sim.physics().entity_id(CHASSIS).expect("chassis");
    sim.physics().kinematics_of(id).expect("known").pose
}

fn yaw(p: &Pose) -> f64 {
    p.orientation.to_rpy().2
}

fn steps(sim: &mut Simulation, n: usize) {
    for _ in 0..n {
        let failures = sim.step();
        assert!(failures.is_empty(), "{failures:?}");
    }
}

fn odometry(sub: &Subscription) -> Vec<(i64, Odometry, String)> {
    sub.drain()
        .iter()
        .map(|e| match e.message.payload.as_enum() {
            Ok(Payload::Odometry(o)) => (
                e.message.header.stamp.nanos,
                (**o).clone(),
                e.message.header.frame_id.as_str().to_string(),
            ),
            other => panic!("not odometry: {other:?}"),
        })
        .collect()
}

/// Lets the robot settle on its wheels and caster.
fn settled(edit: impl Fn(String) -> String) -> (Simulation, tempfile::TempDir) {
    let (mut sim, dir) = example(edit);
    steps(&mut sim, 200);
    (sim, dir)
}

#[test]
fn drives_straight_and_odometry_follows_the_wheels() {
    let (mut sim, _dir) = settled(|w| w);
    let odom = sim.bus_mut().subscribe("/model/robot/odometry", 1000);
    let start = chassis_pose(&sim);
    command(&mut sim, 0.5, 0.0);
    steps(&mut sim, 2000);
    let end = chassis_pose(&sim);
    let d = end.position - start.position;
    let travelled = (d.x * d.x + d.y * d.y).sqrt();
    println!("commanded 0.5 m/s for 2 s: travelled {travelled:.4} m");
    assert!((travelled - 1.0).abs() < 0.05, "travelled {travelled}");
    assert!(d.x > 0.99 * travelled, "drifted sideways: {d:?}");

    let msgs = odometry(&odom);
    // 50 Hz over 2 s (the first message of the subscription may fall on either side).
    assert!((100..=101).contains(&msgs.len()), "{} messages", msgs.len());
    for w in msgs.windows(2) {
        assert_eq!(w[1].0 - w[0].0, 20_000_000);
    }
    let (_, last, frame) = msgs.last().unwrap();
    assert_eq!(frame, "robot/odom");
    // The odometry frame is where the robot was when the run started (before settling).
    let odom_travel = (last.pose.position.x.powi(2) + last.pose.position.y.powi(2)).sqrt();
    let error = (odom_travel - travelled).abs() / travelled;
    println!(
        "odometry {odom_travel:.4} m vs truth {travelled:.4} m: {:.3} %",
        error * 100.0
    );
    assert!(error < 0.02, "odometry {odom_travel} vs {travelled}");
    assert!(
        (last.twist.linear.x - 0.5).abs() < 0.025,
        "{:?}",
        last.twist
    );
    assert!(last.twist.angular.z.abs() < 0.05, "{:?}", last.twist);
}

#[test]
fn turns_in_place() {
    turn_with(|w| w);
}

fn turn_with(edit: impl Fn(String) -> String) {
    let (mut sim, _dir) = settled(edit);
    let odom = sim.bus_mut().subscribe("/model/robot/odometry", 1000);
    let start = chassis_pose(&sim);
    command(&mut sim, 0.0, 0.5);
    steps(&mut sim, 2000);
    let end = chassis_pose(&sim);
    let turned = yaw(&end) - yaw(&start);
    let d = end.position - start.position;
    println!(
        "commanded 0.5 rad/s for 2 s: turned {turned:.4} rad, centre moved {:.4} m",
        d.length()
    );
    let last = odometry(&odom).pop().unwrap().1;
    let odom_yaw = yaw(&last.pose);
    println!("odometry heading {odom_yaw:.4} rad vs truth {turned:.4} rad");
    assert!((turned - 1.0).abs() < 0.05, "turned {turned}");
    assert!(
        (odom_yaw - turned).abs() < 0.05 * turned,
        "{odom_yaw} vs {turned}"
    );
    assert!(
        (last.twist.angular.z - 0.5).abs() < 0.05,
        "{:?}",
        last.twist
    );
}

#[test]
fn the_velocity_limit_clamps_the_command() {
    // The example limits the linear speed to 1 m/s.
    let (mut sim, _dir) = settled(|w| w);
    let odom = sim.bus_mut().subscribe("/model/robot/odometry", 1000);
    command(&mut sim, 3.0, 0.0);
    // Up to speed (the wheels slip while the robot accelerates), then 1 s at the limit.
    steps(&mut sim, 500);
    let start = chassis_pose(&sim).position;
    steps(&mut sim, 1000);
    let travelled = (chassis_pose(&sim).position - start).length();
    println!("commanded 3 m/s, limited to 1 m/s: travelled {travelled:.4} m in 1 s");
    assert!((travelled - 1.0).abs() < 0.05, "travelled {travelled}");
    let last = odometry(&odom).pop().unwrap().1;
    assert!((last.twist.linear.x - 1.0).abs() < 0.05, "{:?}", last.twist);
}

#[test]
fn the_acceleration_limit_ramps_the_command() {
    let (mut sim, _dir) = settled(|w| {
        w.replace(
            "<max_wheel_torque>20</max_wheel_torque>",
            "<max_wheel_torque>20</max_wheel_torque>\
             <max_linear_acceleration>0.5</max_linear_acceleration>",
        )
    });
    let start = chassis_pose(&sim);
    command(&mut sim, 0.5, 0.0);
    // Ramp to 0.5 m/s over 1 s (0.25 m), then 1 s at full speed (0.5 m).
    steps(&mut sim, 2000);
    let travelled = (chassis_pose(&sim).position - start.position).length();
    println!("0.5 m/s with a 0.5 m/s² ramp for 2 s: travelled {travelled:.4} m (0.75 expected)");
    assert!(
        (travelled - 0.75).abs() < 0.75 * 0.05,
        "travelled {travelled}"
    );
}

#[test]
fn a_stall_against_a_wall_is_reported_and_clears() {
    let wall = r#"<model name="wall">
      <static>true</static>
      <pose>1.0 0 0.25 0 0 0</pose>
      <link name="link">
        <collision name="c"><geometry><box><size>0.1 2 0.5</size></box></geometry></collision>
      </link>
    </model>
    <model name="robot">"#;
    let (mut sim, _dir) = settled(|w| {
        w.replace(
            "<max_wheel_torque>20</max_wheel_torque>",
            "<max_wheel_torque>0.6</max_wheel_torque>",
        )
        .replacen("<model name=\"robot\">", wall, 1)
    });
    let stall = sim.bus_mut().subscribe("/model/robot/stall", 100);
    command(&mut sim, 0.5, 0.0);
    // The chassis front reaches the wall (0.95 - 0.25 = 0.7 m away) after about 1.5 s.
    steps(&mut sim, 1200);
    assert!(
        collect(&stall).is_empty(),
        "stalled before reaching the wall"
    );
    steps(&mut sim, 2000);
    let x = chassis_pose(&sim).position.x;
    assert!(x < 0.8, "drove through the wall: x = {x}");
    let got = collect(&stall);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(matches!(got[0].2, Payload::Boolean(true)));
    println!("stall reported at t = {:.3} s", got[0].0 as f64 * 1e-9);
    // Backing off: the wheels follow again and the stall clears.
    command(&mut sim, -0.3, 0.0);
    steps(&mut sim, 300);
    let got = collect(&stall);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(matches!(got[0].2, Payload::Boolean(false)));
}

#[test]
fn bad_configuration_is_refused() {
    let dir = stage(&["simcore_plugin_diff_drive"]);
    let world_text = world(
        r#"<model name="m"><link name="l"/>
        <plugin filename="simcore_plugin_diff_drive" name="simcore::DiffDrive">
          <left_joint>nope</left_joint><right_joint>l</right_joint>
        </plugin></model>"#,
    );
    let err = load_error(&world_text, dir.path());
    assert!(err.contains("no joint `nope`"), "{err}");
}

#[test]
fn without_power_the_drive_stops_and_with_power_it_drives_again() {
    let (mut sim, _dir) = settled(|w| w);
    let power = |sim: &mut Simulation, on: bool| {
        let t = sim.bus_mut().intern("/model/robot/power/enabled");
        sim.bus_mut()
            .publish(t, Message::new("", Payload::Boolean(on)));
    };
    let speed = |sim: &Simulation| {
        let id = sim.physics().entity_id(CHASSIS).unwrap();
        sim.physics()
            .kinematics_of(id)
            .unwrap()
            .linear_velocity
            .length()
    };
    command(&mut sim, 0.5, 0.0);
    steps(&mut sim, 1000);
    assert!((speed(&sim) - 0.5).abs() < 0.05, "{}", speed(&sim));
    power(&mut sim, false);
    steps(&mut sim, 500);
    assert!(speed(&sim) < 0.01, "stopped without power: {}", speed(&sim));
    command(&mut sim, 0.5, 0.0);
    steps(&mut sim, 500);
    assert!(speed(&sim) < 0.01, "commands are ignored without power");
    power(&mut sim, true);
    steps(&mut sim, 1000);
    assert!(
        (speed(&sim) - 0.5).abs() < 0.05,
        "drives again: {}",
        speed(&sim)
    );
}
