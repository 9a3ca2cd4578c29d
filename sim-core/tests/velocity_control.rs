//! gz-sim's VelocityControl, loaded as a real library by its gz file name: a model held at a
//! body-frame twist (1 m/s forward, 0.5 rad/s yaw) drives the circle of radius v / ω, and a
//! link's own command spins it.

mod common;

use common::joints::run_steps;
use common::*;
use sim_core::runner::Simulation;
use sim_plugin_api::{Message, Payload, Twist, Vec3};

/// The test world without gravity (the velocity is set every step; gravity would only add a
/// step's fall to it) and a free 0.2 m box `cart` (link `body`) carrying the plugin with `plugin` inside.
fn sim(plugin: &str) -> (Simulation, tempfile::TempDir) {
    let dir = stage(&["simcore_plugin_velocity_control"]);
    let model = format!(
        r#"<model name="cart"><pose>0 0 1 0 0 0</pose>
      <link name="body">
        <inertial><mass>1</mass><inertia><ixx>0.0067</ixx><iyy>0.0067</iyy><izz>0.0067</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>
      </link>
      <plugin filename="gz-sim-velocity-control-system" name="gz::sim::systems::VelocityControl">{plugin}</plugin>
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
