//! gz-sim's AckermannSteering, loaded as a real library by its gz file name on a real
//! four-wheeled car: the middle of the rear axle drives the circle of the commanded radius
//! `v / ω` (the Ackermann geometry: each front wheel steered towards the turning centre, the
//! rear wheels at the speeds of their circles), and the odometry follows it.

use crate::common;

use common::joints::run_steps;
use common::*;
use sim_core::runner::Simulation;
use sim_plugin_api::{Message, Payload, Twist, Vec3};

const INERTIAL: &str = "<inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>";

/// A wheel link of radius 0.2 at (x, y) and its joint (axis y) to `parent`.
fn wheel(name: &str, x: f64, y: f64, parent: &str) -> String {
    format!(
        r#"<link name="{name}"><pose>{x} {y} 0.2 0 0 0</pose>{INERTIAL}
        <collision name="c"><pose>0 0 0 1.5707963 0 0</pose><geometry><cylinder><radius>0.2</radius><length>0.08</length></cylinder></geometry></collision></link>
      <joint name="{name}_joint" type="revolute"><parent>{parent}</parent><child>{name}</child>
        <axis><xyz>0 1 0</xyz><limit><lower>-1e16</lower><upper>1e16</upper></limit></axis></joint>"#
    )
}

/// A car with its frame at the middle of the rear axle: wheel base 1 m, track 1 m, steering
/// axes 0.8 m apart (±0.6 rad), rear-wheel drive.
fn car() -> String {
    let steer = |side: &str, y: f64| {
        format!(
            r#"<link name="{side}_knuckle"><pose>1 {y} 0.2 0 0 0</pose>{INERTIAL}</link>
      <joint name="{side}_steer" type="revolute"><parent>chassis</parent><child>{side}_knuckle</child>
        <axis><xyz>0 0 1</xyz><limit><lower>-0.6</lower><upper>0.6</upper></limit></axis></joint>"#
        )
    };
    format!(
        r#"<model name="car"><pose>0 0 0 0 0 0</pose>
      <link name="chassis"><pose>0.5 0 0.35 0 0 0</pose>
        <inertial><mass>20</mass><inertia><ixx>1</ixx><iyy>2</iyy><izz>2</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>1.4 0.6 0.1</size></box></geometry></collision></link>
      {}{}{}{}{}{}
      <plugin filename="gz-sim-ackermann-steering-system" name="gz::sim::systems::AckermannSteering">
        <left_joint>rear_left_joint</left_joint><right_joint>rear_right_joint</right_joint>
        <left_steering_joint>left_steer</left_steering_joint><right_steering_joint>right_steer</right_steering_joint>
        <wheel_separation>1.0</wheel_separation><kingpin_width>0.8</kingpin_width>
        <wheel_base>1.0</wheel_base><steering_limit>0.5</steering_limit><wheel_radius>0.2</wheel_radius>
        <steer_p_gain>20</steer_p_gain>
      </plugin>
    </model>"#,
        steer("left", 0.4),
        steer("right", -0.4),
        wheel("front_left", 1.0, 0.5, "left_knuckle"),
        wheel("front_right", 1.0, -0.5, "right_knuckle"),
        wheel("rear_left", 0.0, 0.5, "chassis"),
        wheel("rear_right", 0.0, -0.5, "chassis"),
    )
}

/// The middle of the rear axle, in the plane.
fn rear_axle(sim: &Simulation) -> (f64, f64) {
    let p = |l: &str| {
        let id = sim.physics().entity_id(l).unwrap();
        sim.physics().kinematics_of(id).unwrap().pose.position
    };
    let (l, r) = (p("car::rear_left"), p("car::rear_right"));
    ((l.x + r.x) / 2.0, (l.y + r.y) / 2.0)
}

/// The circle through three points: centre and radius.
fn circle(a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> ((f64, f64), f64) {
    let d = 2.0 * (a.0 * (b.1 - c.1) + b.0 * (c.1 - a.1) + c.0 * (a.1 - b.1));
    let s = |p: (f64, f64)| p.0 * p.0 + p.1 * p.1;
    let ux = (s(a) * (b.1 - c.1) + s(b) * (c.1 - a.1) + s(c) * (a.1 - b.1)) / d;
    let uy = (s(a) * (c.0 - b.0) + s(b) * (a.0 - c.0) + s(c) * (b.0 - a.0)) / d;
    ((ux, uy), ((a.0 - ux).powi(2) + (a.1 - uy).powi(2)).sqrt())
}

#[test]
fn the_rear_axle_drives_the_commanded_turning_circle() {
    let dir = stage(&["simcore_plugin_ackermann_steering"]);
    let mut sim = sim_from(&world(&car()), dir.path(), 0, 1);
    let odom = sim.bus_mut().subscribe("/model/car/odometry", 100_000);
    run_steps(&mut sim, 200);
    let t = sim.bus_mut().intern("/model/car/cmd_vel");
    // 1 m/s at 1/3 rad/s: a circle of 3 m, wider than the tightest (1 / sin 0.5 = 2.09 m).
    sim.bus_mut().publish(
        t,
        Message::new(
            "",
            Payload::Twist(Twist {
                linear: Vec3::new(1.0, 0.0, 0.0),
                angular: Vec3::new(0.0, 0.0, 1.0 / 3.0),
            }),
        ),
    );
    run_steps(&mut sim, 2000);
    let mut points = Vec::new();
    for _ in 0..3 {
        points.push(rear_axle(&sim));
        run_steps(&mut sim, 2000);
    }
    let (centre, radius) = circle(points[0], points[1], points[2]);
    println!("rear axle on a circle of {radius:.3} m about {centre:?}");
    assert!((radius - 3.0).abs() < 0.15, "radius {radius}");
    // The centre is to the left of the start: on the rear axle line (y ≈ 3 at x ≈ 0).
    assert!(
        (centre.1 - 3.0).abs() < 0.3 && centre.0.abs() < 0.3,
        "{centre:?}"
    );
    // Odometry: the forward speed and yaw rate of the command, from the wheels and steering.
    let last = match collect(&odom).pop().unwrap().2 {
        Payload::Odometry(o) => (*o).clone(),
        other => panic!("{other:?}"),
    };
    println!("odometry twist {:?}", last.twist);
    assert!((last.twist.linear.x - 1.0).abs() < 0.05, "{:?}", last.twist);
    assert!(
        (last.twist.angular.z - 1.0 / 3.0).abs() < 0.03,
        "{:?}",
        last.twist
    );
}

/// A `Twist` with a number out of range (a yaw rate of 1e300) is refused whole with a warning
/// naming the field: the car keeps driving straight on its last command instead of steering
/// to its limit.
#[test]
fn a_twist_out_of_range_is_refused_and_the_last_command_kept() {
    let dir = stage(&["simcore_plugin_ackermann_steering"]);
    let mut sim = sim_from(&world(&car()), dir.path(), 0, 1);
    run_steps(&mut sim, 200);
    let t = sim.bus_mut().intern("/model/car/cmd_vel");
    let send = |sim: &mut Simulation, yaw_rate: f64| {
        let linear = Vec3::new(1.0, 0.0, 0.0);
        let angular = Vec3::new(0.0, 0.0, yaw_rate);
        sim.bus_mut().publish(
            t,
            Message::new("", Payload::Twist(Twist { linear, angular })),
        );
    };
    send(&mut sim, 0.0);
    run_steps(&mut sim, 500);
    let start = rear_axle(&sim);
    let ((), log) = capture::warnings_while(|| {
        send(&mut sim, 1e300);
        run_steps(&mut sim, 10);
        send(&mut sim, f64::INFINITY);
        run_steps(&mut sim, 1000);
    });
    assert!(
        log.contains("/model/car/cmd_vel: Twist refused: `angular.z` is 1e300"),
        "{log}"
    );
    assert!(log.contains("Twist refused: `angular.z` is inf"), "{log}");
    assert_eq!(log.lines().count(), 2, "only the two refusals: {log}");
    let end = rear_axle(&sim);
    assert!(end.0 - start.0 > 0.5, "still driving: {start:?} -> {end:?}");
    assert!(
        (end.1 - start.1).abs() < 0.05,
        "straight on: {start:?} -> {end:?}"
    );
}
