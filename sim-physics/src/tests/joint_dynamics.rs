//! An axis's `<friction>`, `<damping>` and spring (`<spring_stiffness>`,
//! `<spring_reference>`) all act together.

use super::*;

/// A 1 kg bob 0.5 m below a revolute joint about x held by the world, the model turned by
/// `angle` about x; `dynamics` is the axis's `<dynamics>` content.
fn pendulum(gravity: &str, angle: f64, dynamics: &str) -> (Physics, EntityId) {
    with_entity(
        &format!(
            r#"<sdf version="1.9"><world name="w"><gravity>{gravity}</gravity>
            <model name="m"><pose>0 0 2 {angle} 0 0</pose>
              <link name="bob"><pose>0 0 -0.5 0 0 0</pose><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
              <joint name="j" type="revolute"><parent>world</parent><child>bob</child>
                <pose>0 0 0.5 0 0 0</pose>
                <axis><xyz>1 0 0</xyz><dynamics>{dynamics}</dynamics></axis></joint>
            </model></world></sdf>"#
        ),
        "m::j",
    )
}

/// A 1 kg bob 0.5 m below a universal joint (axes x and y) held by the world, the model
/// tilted by 0.3 rad about y; `axis` and `axis2` are the axes' `<dynamics>` content (none
/// if empty).
fn universal(axis: &str, axis2: &str) -> (Physics, EntityId) {
    let dynamics = |d: &str| {
        if d.is_empty() {
            String::new()
        } else {
            format!("<dynamics>{d}</dynamics>")
        }
    };
    let (d1, d2) = (dynamics(axis), dynamics(axis2));
    with_entity(
        &format!(
            r#"<sdf version="1.9"><world name="w"><gravity>0 0 -9.8</gravity>
        <model name="m"><pose>0 0 2 0 0.3 0</pose>
          <link name="bob"><pose>0 0 -0.5 0 0 0</pose><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
          <joint name="u" type="universal"><parent>world</parent><child>bob</child>
            <pose>0 0 0.5 0 0 0</pose>
            <axis><xyz>1 0 0</xyz>{d1}</axis>
            <axis2><xyz>0 1 0</xyz>{d2}</axis2>
          </joint>
        </model></world></sdf>"#
        ),
        "m::u",
    )
}

/// Steps `steps` times; the joint's angle and speed then, and the largest |angle| and
/// |speed| seen on the way.
fn run(p: &mut Physics, j: EntityId, steps: usize) -> ((f64, f64), (f64, f64)) {
    let (mut angle, mut speed) = (0.0f64, 0.0f64);
    for _ in 0..steps {
        p.step();
        let s = p.joint_state(j).unwrap();
        angle = angle.max(s.position[0].abs());
        speed = speed.max(s.velocity[0].abs());
    }
    let s = p.joint_state(j).unwrap();
    ((s.position[0], s.velocity[0]), (angle, speed))
}

#[test]
fn friction_holds_a_load_that_damping_alone_lets_sink() {
    // 1 kg at 0.5 m tilted 0.3 rad: gravity pulls with 9.8 * 0.5 * sin 0.3 = 1.45 N·m.
    let (mut p, j) = pendulum("0 0 -9.8", 0.3, "<damping>0.5</damping>");
    let ((angle, _), _) = run(&mut p, j, 3000);
    assert!(
        (angle + 0.3).abs() < 0.05,
        "damping alone: the bob sank to {angle}"
    );
    // 3 N·m of friction holds it where it is (after a creep of a few mrad while the solver
    // catches the swing), with the damping, a spring, or both.
    for dynamics in [
        "<friction>3</friction>",
        "<damping>0.5</damping><friction>3</friction>",
        "<spring_stiffness>0.5</spring_stiffness><friction>3</friction>",
        "<damping>0.5</damping><spring_stiffness>0.5</spring_stiffness><friction>3</friction>",
    ] {
        let (mut p, j) = pendulum("0 0 -9.8", 0.3, dynamics);
        let ((angle, speed), _) = run(&mut p, j, 2000);
        assert!(
            angle.abs() < 0.02 && speed.abs() < 1e-3,
            "{dynamics}: the bob moved to {angle} rad ({speed} rad/s)"
        );
    }
}

#[test]
fn friction_and_damping_together_stop_a_swing_sooner_than_damping_alone() {
    // Released 1 rad up, a pendulum under light damping still swings after 5 s ...
    let (mut p, j) = pendulum("0 0 -9.8", 1.0, "<damping>0.05</damping>");
    run(&mut p, j, 5000);
    let (_, (_, speed)) = run(&mut p, j, 1500);
    assert!(speed > 1.0, "damping alone: swinging at {speed} rad/s");
    // ... and with friction as well it has come to rest, below its first swing.
    let (mut p, j) = pendulum(
        "0 0 -9.8",
        1.0,
        "<damping>0.05</damping><friction>0.5</friction>",
    );
    run(&mut p, j, 5000);
    let ((angle, _), (_, speed)) = run(&mut p, j, 1500);
    assert!(
        speed < 1e-3 && (angle + 1.0).abs() < 0.15,
        "with friction: at {angle} rad, up to {speed} rad/s"
    );
}

#[test]
fn the_spring_pulls_and_damping_slows_while_friction_acts() {
    // No gravity: a 2 N·m/rad spring towards 1 rad pulls the pendulum (0.26 kg·m² about the
    // axis) from 0 against 0.4 N·m of friction. It overshoots, less so with damping, and comes
    // to rest within 0.2 rad (friction / stiffness), and the solver's few mrad of creep, of
    // the reference.
    let spring = "<spring_stiffness>2</spring_stiffness><spring_reference>1</spring_reference>\
                  <friction>0.4</friction>";
    let (mut p, j) = pendulum("0 0 0", 0.0, spring);
    let ((angle, speed), (undamped, _)) = run(&mut p, j, 6000);
    assert!(
        undamped > 1.5 && (angle - 1.0).abs() < 0.2 + 0.01 && speed.abs() < 1e-3,
        "spring and friction: at {angle} rad ({speed} rad/s), swung to {undamped} rad"
    );
    let (mut p, j) = pendulum("0 0 0", 0.0, &format!("{spring}<damping>0.3</damping>"));
    let ((angle, speed), (damped, _)) = run(&mut p, j, 6000);
    assert!(
        damped < undamped - 0.2 && (angle - 1.0).abs() < 0.2 + 0.01 && speed.abs() < 1e-3,
        "spring, damping and friction: at {angle} rad ({speed} rad/s), swung to {damped} rad"
    );
}

#[test]
fn friction_brakes_each_axis_of_a_universal_joint_and_shows_in_its_effort() {
    // The bob hangs 0.5 m below a universal joint (axis 1 x, axis 2 y), the model tilted
    // 0.3 rad about y: gravity pulls axis 2 with 1.45 N·m, which its friction holds.
    let (mut p, u) = universal(
        "<damping>0.1</damping>",
        "<damping>0.1</damping><friction>3</friction>",
    );
    for _ in 0..2000 {
        p.step();
    }
    let s = p.joint_state(u).unwrap();
    assert!(
        s.position[0].abs() < 0.02 && s.position[1].abs() < 0.02,
        "the bob moved: {s:?}"
    );
    // The friction's torque is the effort that holds axis 2.
    assert!((s.effort[1].abs() - 1.45).abs() < 0.1, "{s:?}");
    // Without the friction it swings down.
    let (mut p, u) = universal("", "<damping>0.5</damping>");
    for _ in 0..3000 {
        p.step();
    }
    let s = p.joint_state(u).unwrap();
    assert!((s.position[1] + 0.3).abs() < 0.05, "{s:?}");
}
