//! gz-sim's VelocityControl, loaded as a real library by its gz file name: a model held at a
//! body-frame twist (1 m/s forward, 0.5 rad/s yaw) drives the circle of radius v / ω, and a
//! link's own command spins it. gz-sim's OdometryPublisher on the same model reports that
//! motion: the pose, the body-frame speed v and the yaw rate ω, in 2-D and 3-D.

use crate::common;

use common::joints::run_steps;
use common::*;
use sim_core::runner::Simulation;
use sim_plugin_api::{Message, Payload, Twist, Vec3};

/// The test world without gravity (the velocity is set every step; gravity would only add a
/// step's fall to it) and a free 0.2 m box `cart` (link `body`) carrying the plugin with `plugin` inside.
fn sim(plugin: &str) -> (Simulation, tempfile::TempDir) {
    sim_with(plugin, "")
}

/// [`sim`] with more `<plugin>` elements in the model (the odometry publisher).
fn sim_with(plugin: &str, more: &str) -> (Simulation, tempfile::TempDir) {
    let dir = stage(&[
        "simcore_plugin_velocity_control",
        "simcore_plugin_odometry_publisher",
    ]);
    let model = format!(
        r#"<model name="cart"><pose>0 0 1 0 0 0</pose>
      <link name="body">
        <inertial><mass>1</mass><inertia><ixx>0.0067</ixx><iyy>0.0067</iyy><izz>0.0067</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>
      </link>
      <plugin filename="gz-sim-velocity-control-system" name="gz::sim::systems::VelocityControl">{plugin}</plugin>
      {more}
    </model>"#
    );
    let text = world(&model).replace("<physics", "<gravity>0 0 0</gravity><physics");
    (sim_from(&text, dir.path(), 0, 1), dir)
}

fn twist(sim: &mut Simulation, topic: &str, linear: Vec3, angular: Vec3) {
    let t = sim.bus_mut().intern(topic);
    sim.bus_mut().publish(
        t,
        Message::new("", Payload::Twist(Twist { linear, angular })),
    );
}

fn pose(sim: &Simulation) -> sim_plugin_api::Pose {
    let id = sim.physics().entity_id("cart::body").unwrap();
    sim.physics().kinematics_of(id).unwrap().pose
}

#[test]
fn a_body_frame_twist_drives_a_circle() {
    let (mut sim, _dir) = sim("");
    run_steps(&mut sim, 10);
    assert!(pose(&sim).position.x.abs() < 1e-9, "no command: it stays");
    twist(
        &mut sim,
        "/model/cart/cmd_vel",
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 0.5),
    );
    run_steps(&mut sim, 1);
    let start = pose(&sim).position;
    // A quarter turn at 0.5 rad/s takes π s; on a circle of radius 2 m it ends 2 m ahead and
    // 2 m to the left of where it started, facing +y.
    let steps = (std::f64::consts::PI / 0.001).round() as usize;
    run_steps(&mut sim, steps);
    let p = pose(&sim);
    let (dx, dy) = (p.position.x - start.x, p.position.y - start.y);
    let yaw = p.orientation.to_rpy().2;
    println!("after a quarter turn: ({dx:.4}, {dy:.4}), yaw {yaw:.4}");
    assert!(
        (dx - 2.0).abs() < 0.01 && (dy - 2.0).abs() < 0.01,
        "({dx}, {dy})"
    );
    assert!((yaw - std::f64::consts::FRAC_PI_2).abs() < 0.01, "{yaw}");
    assert!((p.position.z - 1.0).abs() < 1e-6, "{}", p.position.z);
}

#[test]
fn initial_twist_and_topic_from_the_sdf() {
    let (mut sim, _dir) = sim("<initial_linear>0 0.5 0</initial_linear><topic>cart_twist</topic>");
    run_steps(&mut sim, 1000);
    let p = pose(&sim).position;
    assert!((p.y - 0.5).abs() < 0.01 && p.x.abs() < 1e-6, "{p:?}");
    // A command that is not a number is ignored: it keeps going.
    twist(
        &mut sim,
        "/cart_twist",
        Vec3::new(f64::NAN, 0.0, 0.0),
        Vec3::ZERO,
    );
    run_steps(&mut sim, 100);
    let q = pose(&sim).position;
    assert!(
        (q.y - p.y - 0.05).abs() < 0.002 && q.x.is_finite(),
        "{p:?} → {q:?}"
    );
    let p = q;
    twist(&mut sim, "/cart_twist", Vec3::ZERO, Vec3::ZERO);
    run_steps(&mut sim, 1000);
    let q = pose(&sim).position;
    assert!((q.y - p.y).abs() < 0.002, "stopped: {p:?} → {q:?}");
}

#[test]
fn a_link_is_commanded_on_its_own_topic() {
    let (mut sim, _dir) = sim("<link_name>body</link_name>");
    twist(
        &mut sim,
        "/model/cart/link/body/cmd_vel",
        Vec3::ZERO,
        Vec3::new(0.0, 0.0, 1.0),
    );
    run_steps(&mut sim, 500);
    let yaw = pose(&sim).orientation.to_rpy().2;
    assert!((yaw - 0.5).abs() < 0.01, "{yaw}");
}

fn odometry_of(p: &Payload) -> sim_plugin_api::Odometry {
    match p {
        Payload::Odometry(o) => (**o).clone(),
        other => panic!("not odometry: {other:?}"),
    }
}

#[test]
fn odometry_reports_the_circle() {
    let (mut sim, _dir) = sim_with(
        "<initial_linear>1 0 0</initial_linear><initial_angular>0 0 0.5</initial_angular>",
        r#"<plugin filename="gz-sim-odometry-publisher-system" name="gz::sim::systems::OdometryPublisher"/>"#,
    );
    let odom = sim.bus_mut().subscribe("/model/cart/odometry", 10_000);
    let tf = sim.bus_mut().subscribe("/model/cart/pose", 10_000);
    run_steps(&mut sim, 1000);
    let got = collect(&odom);
    // 50 Hz over 1 s (the first step only records the pose).
    assert!((49..=51).contains(&got.len()), "{} messages", got.len());
    let last = odometry_of(&got.last().unwrap().2);
    println!("odometry twist {:?}", last.twist);
    assert!((last.twist.linear.x - 1.0).abs() < 1e-3, "{:?}", last.twist);
    assert!(last.twist.linear.y.abs() < 1e-3, "{:?}", last.twist);
    assert!(
        (last.twist.angular.z - 0.5).abs() < 1e-3,
        "{:?}",
        last.twist
    );
    // 2-D: the position in the plane, z dropped, the orientation the model's (compared at
    // the step of the next message).
    let last = loop {
        run_steps(&mut sim, 1);
        if let Some(m) = collect(&odom).pop() {
            break odometry_of(&m.2);
        }
    };
    let truth = pose(&sim);
    assert!((last.pose.position.x - truth.position.x).abs() < 1e-9);
    assert!((last.pose.position.y - truth.position.y).abs() < 1e-9);
    assert_eq!(last.pose.position.z, 0.0);
    assert!((last.pose.orientation.to_rpy().2 - truth.orientation.to_rpy().2).abs() < 1e-9);
    let frames = tf.drain();
    let last_tf = frames.last().unwrap();
    assert_eq!(last_tf.message.header.frame_id.as_str(), "cart/odom");
    match last_tf.message.payload.as_enum() {
        Ok(Payload::PoseList(l)) => assert_eq!(l[0].name.as_str(), "cart/base_footprint"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn odometry_in_3d_with_noise() {
    let (mut sim, _dir) = sim_with(
        "<initial_linear>0 0 0.3</initial_linear>",
        r#"<plugin filename="gz-sim-odometry-publisher-system" name="gz::sim::systems::OdometryPublisher">
          <dimensions>3</dimensions><odom_publish_frequency>0</odom_publish_frequency>
          <gaussian_noise>0.01</gaussian_noise><odom_topic>/odom</odom_topic></plugin>"#,
    );
    let odom = sim.bus_mut().subscribe("/odom", 10_000);
    run_steps(&mut sim, 1000);
    let got: Vec<_> = collect(&odom).iter().map(|m| odometry_of(&m.2)).collect();
    assert_eq!(got.len(), 999, "every step but the first");
    let last = got.last().unwrap();
    assert!(
        (last.pose.position.z - pose(&sim).position.z).abs() < 1e-9,
        "3-D keeps z"
    );
    // The climb rate, with noise of standard deviation 0.01 on each component.
    let tail = &got[100..];
    let n = tail.len() as f64;
    let mean = tail.iter().map(|o| o.twist.linear.z).sum::<f64>() / n;
    let sd = (tail
        .iter()
        .map(|o| (o.twist.linear.z - mean).powi(2))
        .sum::<f64>()
        / n)
        .sqrt();
    println!("climb {mean:.4} m/s, noise sd {sd:.4}");
    assert!((mean - 0.3).abs() < 0.002, "{mean}");
    assert!((sd - 0.01).abs() < 0.001, "{sd}");
}

/// A `Twist` with a number out of range (1e300, or past 10¹²) is refused whole with a
/// warning naming the topic and the field, never reaching the engine: the model keeps the
/// velocity of the last command.
#[test]
fn a_twist_out_of_range_is_refused_and_the_last_command_kept() {
    let (mut sim, _dir) = sim("");
    twist(
        &mut sim,
        "/model/cart/cmd_vel",
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::ZERO,
    );
    run_steps(&mut sim, 100);
    let p = pose(&sim).position;
    let ((), log) = capture::warnings_while(|| {
        let huge = Vec3::new(1.0, 1e300, 0.0);
        twist(&mut sim, "/model/cart/cmd_vel", huge, Vec3::ZERO);
        run_steps(&mut sim, 10);
        let past = Vec3::new(0.0, 0.0, -2e12);
        twist(&mut sim, "/model/cart/cmd_vel", Vec3::ZERO, past);
        run_steps(&mut sim, 990);
    });
    assert!(
        log.contains("/model/cart/cmd_vel: Twist refused: `linear.y` is 1e300"),
        "{log}"
    );
    assert!(log.contains("Twist refused: `angular.z` is -2e12"), "{log}");
    assert_eq!(log.lines().count(), 2, "only the two refusals: {log}");
    let q = pose(&sim).position;
    assert!(
        (q.x - p.x - 1.0).abs() < 0.01 && (q.y - p.y).abs() < 1e-6,
        "{p:?} -> {q:?}"
    );
    let yaw = pose(&sim).orientation.to_rpy().2;
    assert!(yaw.abs() < 1e-6, "{yaw}");
}
