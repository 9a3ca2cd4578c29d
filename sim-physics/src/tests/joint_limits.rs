//! A joint axis's SDF `<effort>` and `<velocity>` limits bound the commands that drive it.

use super::*;
use sim_plugin_api::{JointCommand, JointCommandMode};

/// A 1 kg wheel on a revolute joint about z held by the world, no gravity; `limit` is the
/// axis's `<limit>` content.
fn physics(limit: &str) -> (Physics, EntityId) {
    with_entity(
        &format!(
            r#"<sdf version="1.9"><world name="w"><gravity>0 0 0</gravity>
            <model name="m">
              <link name="wheel"><inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial></link>
              <joint name="j" type="revolute"><parent>world</parent><child>wheel</child>
                <axis><xyz>0 0 1</xyz><limit>{limit}</limit></axis></joint>
            </model></world></sdf>"#
        ),
        "m::j",
    )
}

fn command(p: &mut Physics, joint: EntityId, mode: JointCommandMode, target: f64) {
    p.joint_command(&JointCommand {
        joint,
        axis: 0,
        mode,
        target,
        max_force: f64::INFINITY,
        stiffness: 0.0,
        damping: 0.0,
    })
    .unwrap();
}

#[test]
fn a_velocity_command_is_clamped_to_the_velocity_limit() {
    let (mut p, j) = physics("<velocity>0.5</velocity>");
    command(&mut p, j, JointCommandMode::VELOCITY, 3.0);
    for _ in 0..300 {
        p.step();
    }
    let v = p.joint_state(j).unwrap().velocity[0];
    assert!((v - 0.5).abs() < 0.02, "the joint turns at {v} rad/s");
    // Without a limit, the command is met.
    let (mut p, j) = physics("");
    command(&mut p, j, JointCommandMode::VELOCITY, 3.0);
    for _ in 0..300 {
        p.step();
    }
    let v = p.joint_state(j).unwrap().velocity[0];
    assert!((v - 3.0).abs() < 0.05, "the joint turns at {v} rad/s");
}

#[test]
fn a_force_command_is_clamped_to_the_effort_limit() {
    // 1 s of 10 N·m on 0.1 kg·m² would reach 100 rad/s; the 0.2 N·m limit allows 2 rad/s.
    let (mut p, j) = physics("<effort>0.2</effort>");
    for _ in 0..1000 {
        command(&mut p, j, JointCommandMode::FORCE, 10.0);
        p.step();
    }
    let v = p.joint_state(j).unwrap().velocity[0];
    assert!((v - 2.0).abs() < 0.1, "the joint turns at {v} rad/s");
}

#[test]
fn a_velocity_command_pushes_no_harder_than_the_effort_limit() {
    // 0.1 N·m on 0.1 kg·m²: 1 rad/s² at most, so 0.5 s reaches about 0.5 rad/s of the 5.
    let (mut p, j) = physics("<effort>0.1</effort>");
    command(&mut p, j, JointCommandMode::VELOCITY, 5.0);
    for _ in 0..500 {
        p.step();
    }
    let v = p.joint_state(j).unwrap().velocity[0];
    assert!((v - 0.5).abs() < 0.1, "the joint turns at {v} rad/s");
}
