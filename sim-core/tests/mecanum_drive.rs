//! gz-sim's MecanumDrive, loaded as a real library by its gz file name on a real four-wheeled
//! model held up on a stand: each wheel turns at the speed mecanum kinematics give for the
//! commanded twist, `(v ∓ l ∓ ω (separation + base) / 2) / r`, and the odometry from the
//! wheels' rotation reports that twist back.

use crate::common;

use common::joints::{joint, run_steps};
use common::*;
use sim_plugin_api::{Message, Payload, Twist, Vec3};

const WHEELS: [&str; 4] = ["front_left", "front_right", "back_left", "back_right"];

/// A chassis fixed 0.5 m above the ground, four wheels of radius 0.1 on joints about y, track
/// 0.4 m and base 0.6 m, so that a = (0.4 + 0.6) / 2 = 0.5 m.
fn robot() -> String {
    let inertial = "<inertial><mass>0.5</mass><inertia><ixx>0.002</ixx><iyy>0.002</iyy><izz>0.002</izz></inertia></inertial>";
    let wheel = |name: &str, x: f64, y: f64| {
        format!(
            r#"<link name="{name}"><pose>{x} {y} 0 0 0 0</pose>{inertial}</link>
      <joint name="{name}_joint" type="revolute"><parent>chassis</parent><child>{name}</child>
        <axis><xyz>0 1 0</xyz><limit><lower>-1e16</lower><upper>1e16</upper></limit></axis></joint>"#
        )
    };
    let wheels: String = [(0.3, 0.2), (0.3, -0.2), (-0.3, 0.2), (-0.3, -0.2)]
        .iter()
        .zip(WHEELS)
        .map(|((x, y), n)| wheel(n, *x, *y))
        .collect();
    format!(
        r#"<model name="bot"><pose>0 0 0.5 0 0 0</pose>
      <link name="chassis">{inertial}</link>
      <joint name="stand" type="fixed"><parent>world</parent><child>chassis</child></joint>
      {wheels}
      <plugin filename="libgz-sim-mecanum-drive-system.so" name="gz::sim::systems::MecanumDrive">
        <front_left_joint>front_left_joint</front_left_joint><front_right_joint>front_right_joint</front_right_joint>
        <back_left_joint>back_left_joint</back_left_joint><back_right_joint>back_right_joint</back_right_joint>
        <wheel_separation>0.4</wheel_separation><wheelbase>0.6</wheelbase><wheel_radius>0.1</wheel_radius>
        <odom_publish_frequency>0</odom_publish_frequency>
      </plugin>
    </model>"#
    )
}

#[test]
fn wheels_follow_mecanum_kinematics_and_odometry_reports_the_twist() {
    let dir = stage(&["simcore_plugin_mecanum_drive"]);
    let mut sim = sim_from(&world(&robot()), dir.path(), 0, 1);
    let odom = sim.bus_mut().subscribe("/model/bot/odometry", 100_000);
    let topic = sim.bus_mut().intern("/model/bot/cmd_vel");
    for (v, l, w) in [(0.5, 0.0, 0.0), (0.0, 0.3, 0.0), (0.2, -0.1, 0.4)] {
        sim.bus_mut().publish(
            topic,
            Message::new(
                "",
                Payload::Twist(Twist {
                    linear: Vec3::new(v, l, 0.0),
                    angular: Vec3::new(0.0, 0.0, w),
                }),
            ),
        );
        run_steps(&mut sim, 300);
        let a = 0.5;
        let expected = [
            (v - l - w * a) / 0.1,
            (v + l + w * a) / 0.1,
            (v + l - w * a) / 0.1,
            (v - l + w * a) / 0.1,
        ];
        // The mean speed over 0.1 s, from the wheel angles.
        let angles = |sim: &sim_core::runner::Simulation| {
            WHEELS.map(|n| joint(sim, &format!("bot::{n}_joint")).0)
        };
        let before = angles(&sim);
        run_steps(&mut sim, 100);
        let after = angles(&sim);
        for (i, (name, e)) in WHEELS.iter().zip(expected).enumerate() {
            let speed = (after[i] - before[i]) / 0.1;
            // The wheels' joints are in reduced coordinates: their motors hold the speeds to
            // within 0.0005 rad/s (0.07 rad/s as impulse joints on one body).
            assert!(
                (speed - e).abs() < 0.005,
                "({v}, {l}, {w}): {name} at {speed}, expected {e}"
            );
        }
        let last = match collect(&odom).pop().unwrap().2 {
            Payload::Odometry(o) => (*o).clone(),
            other => panic!("{other:?}"),
        };
        let t = last.twist;
        println!("command ({v}, {l}, {w}): odometry {t:?}");
        assert!(
            (t.linear.x - v).abs() < 0.02 && (t.linear.y - l).abs() < 0.02,
            "{t:?}"
        );
        assert!((t.angular.z - w).abs() < 0.02, "{t:?}");
    }
}

/// A `Twist` with a number that is not finite or is out of range (1e300) is refused whole
/// with a warning naming the field, never reaching the engine: the wheels keep turning at the
/// speed of the last command.
#[test]
fn a_twist_out_of_range_is_refused_and_the_last_command_kept() {
    let dir = stage(&["simcore_plugin_mecanum_drive"]);
    let mut sim = sim_from(&world(&robot()), dir.path(), 0, 1);
    let topic = sim.bus_mut().intern("/model/bot/cmd_vel");
    let send = |sim: &mut sim_core::runner::Simulation, linear: Vec3, angular: Vec3| {
        sim.bus_mut().publish(
            topic,
            Message::new("", Payload::Twist(Twist { linear, angular })),
        );
    };
    send(&mut sim, Vec3::new(0.5, 0.0, 0.0), Vec3::ZERO);
    run_steps(&mut sim, 300);
    let ((), log) = capture::warnings_while(|| {
        send(
            &mut sim,
            Vec3::new(0.5, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1e300),
        );
        run_steps(&mut sim, 10);
        send(&mut sim, Vec3::new(0.0, f64::NAN, 0.0), Vec3::ZERO);
        run_steps(&mut sim, 200);
    });
    assert!(
        log.contains("/model/bot/cmd_vel: Twist refused: `angular.z` is 1e300"),
        "{log}"
    );
    assert!(log.contains("Twist refused: `linear.y` is NaN"), "{log}");
    assert_eq!(log.lines().count(), 2, "only the two refusals: {log}");
    let before = joint(&sim, "bot::front_left_joint").0;
    run_steps(&mut sim, 100);
    let speed = (joint(&sim, "bot::front_left_joint").0 - before) / 0.1;
    assert!((speed - 5.0).abs() < 0.1, "{speed}");
}
