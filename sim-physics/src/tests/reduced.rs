//! Joints in reduced coordinates: the passive damping, friction and springs of an axis act on
//! the joint coordinate with the inertia of the tree it moves, and motors push that inertia.
//! Every expectation is the analytic answer of the world built.

use super::*;
use sim_plugin_api::{JointCommand, JointCommandMode};

/// A bob of `mass` kg (own inertia `own` kg·m² about each axis) 0.5 m below a revolute joint
/// about x held by the world, the model turned by `angle` about x; `gravity` the world's
/// gravity, `dynamics` the axis's `<dynamics>` content.
fn pendulum(gravity: &str, mass: f64, own: f64, angle: f64, dynamics: &str) -> (Physics, EntityId) {
    with_entity(
        &format!(
            r#"<sdf version="1.9"><world name="w"><gravity>{gravity}</gravity>
            <model name="m"><pose>0 0 2 {angle} 0 0</pose>
              <link name="bob"><pose>0 0 -0.5 0 0 0</pose><inertial><mass>{mass}</mass>
                <inertia><ixx>{own}</ixx><iyy>{own}</iyy><izz>{own}</izz></inertia></inertial></link>
              <joint name="j" type="revolute"><parent>world</parent><child>bob</child>
                <pose>0 0 0.5 0 0 0</pose>
                <axis><xyz>1 0 0</xyz><dynamics>{dynamics}</dynamics></axis></joint>
            </model></world></sdf>"#
        ),
        "m::j",
    )
}

/// An `<inertial>` of `mass` kg with principal moments `i`, kg·m².
fn inertial(mass: f64, [ixx, iyy, izz]: [f64; 3]) -> String {
    format!(
        "<inertial><mass>{mass}</mass><inertia><ixx>{ixx}</ixx><iyy>{iyy}</iyy><izz>{izz}</izz></inertia></inertial>"
    )
}

/// Steps `steps` times; each extremum of the joint's position (where its velocity changes
/// sign): time, s, and position.
fn extrema(p: &mut Physics, j: EntityId, steps: usize) -> Vec<(f64, f64)> {
    let dt = p.step_size().as_secs_f64();
    let mut last = p.joint_state(j).unwrap();
    let mut out = Vec::new();
    for i in 0..steps {
        p.step();
        let s = p.joint_state(j).unwrap();
        if last.velocity[0] != 0.0 && s.velocity[0].signum() != last.velocity[0].signum() {
            // Between the two steps, where the velocity crosses zero.
            let f = last.velocity[0] / (last.velocity[0] - s.velocity[0]);
            let t = (i as f64 + f) * dt;
            out.push((t, last.position[0] + f * (s.position[0] - last.position[0])));
        }
        last = s;
    }
    out
}

/// Asserts that the first nine extrema `ext` of a swing (`what`) are four periods within 1 %
/// of `expected`, s.
#[track_caller]
fn assert_period(ext: &[(f64, f64)], expected: f64, what: &str) {
    assert!(ext.len() >= 9, "{what}: {ext:?}");
    let period = (ext[8].0 - ext[0].0) / 4.0;
    assert!(
        (period - expected).abs() < 0.01 * expected,
        "{what}: period {period} s, expected {expected} s"
    );
}

/// The decay rate of a swing about `centre`, 1/s, from its first and last extrema.
fn decay_rate(ext: &[(f64, f64)], centre: f64) -> f64 {
    let (t0, a0) = ext[0];
    let (t1, a1) = ext[ext.len() - 1];
    -((a1 - centre).abs() / (a0 - centre).abs()).ln() / (t1 - t0)
}

#[test]
fn damping_decays_a_swing_at_the_rate_the_pendulum_inertia_gives() {
    // A damped pendulum, m L^2 θ'' + c θ' + m g L θ = 0, swings with an amplitude that decays
    // as e^(-γ t), γ = c / (2 I), I = m L^2 + I_own: the ratio of successive extrema is exact.
    for (mass, own, damping) in [(1.0, 1e-6, 0.2), (200.0, 1.0, 200.0)] {
        let inertia = mass * 0.25 + own;
        let expected = damping / (2.0 * inertia);
        let (mut p, j) = pendulum(
            "0 0 -9.8",
            mass,
            own,
            0.1,
            &format!("<damping>{damping}</damping>"),
        );
        let ext = extrema(&mut p, j, 5000);
        assert!(ext.len() >= 4, "{mass} kg: it swings: {ext:?}");
        // Joint positions count from the initial pose: it hangs straight at -0.1 rad.
        let gamma = decay_rate(&ext[..4], -0.1);
        assert!(
            (gamma - expected).abs() < 0.05 * expected,
            "{mass} kg, damping {damping}: decays at {gamma}/s, expected {expected}/s"
        );
    }
    // The heavy bob with the light damping hardly decays (γ = 0.0020/s).
    let (mut p, j) = pendulum("0 0 -9.8", 200.0, 1.0, 0.1, "<damping>0.2</damping>");
    let ext = extrema(&mut p, j, 3000);
    let gamma = decay_rate(&ext, -0.1);
    assert!(gamma < 0.01, "decays at {gamma}/s");
}

#[test]
fn joint_friction_holds_a_load_below_it_and_slips_above_it() {
    // No gravity; 3.5 N·m of friction; a torque applied about the joint at every step.
    // I = 1 * 0.5^2 + 1e-4 kg·m².
    let inertia = 0.25 + 1e-4;
    for (torque, held) in [(2.9, true), (-2.9, true), (4.0, false)] {
        let (mut p, j) = pendulum("0 0 0", 1.0, 1e-4, 0.0, "<friction>3.5</friction>");
        let steps = 1000;
        for _ in 0..steps {
            p.joint_command(&JointCommand {
                joint: j,
                axis: 0,
                mode: JointCommandMode::FORCE,
                target: torque,
                max_force: 0.0,
                stiffness: 0.0,
                damping: 0.0,
            })
            .unwrap();
            p.step();
        }
        let s = p.joint_state(j).unwrap();
        if held {
            assert!(
                s.position[0].abs() < 1e-4 && s.velocity[0].abs() < 1e-4,
                "{torque} N·m is held: {s:?}"
            );
        } else {
            // It slips with what the friction leaves: (4 - 3.5) / I.
            let t = steps as f64 * p.step_size().as_secs_f64();
            let expected = (torque - 3.5) / inertia * t;
            assert!(
                (s.velocity[0] - expected).abs() < 0.02 * expected,
                "{torque} N·m slips: {s:?}, expected {expected} rad/s"
            );
        }
    }
}

#[test]
fn a_torsional_spring_swings_with_its_period() {
    // No gravity; k = 10 N·m/rad pulling toward 0.1 rad; T = 2π sqrt(I / k).
    let inertia = 0.25 + 0.01;
    let expected = std::f64::consts::TAU * (inertia / 10.0).sqrt();
    let (mut p, j) = pendulum(
        "0 0 0",
        1.0,
        0.01,
        0.0,
        "<spring_stiffness>10</spring_stiffness><spring_reference>0.1</spring_reference>",
    );
    let ext = extrema(&mut p, j, 6000);
    assert_period(&ext, expected, "torsional");
    // It swings about the reference, between 0 and 0.2 rad (rapier's implicit spring takes
    // 0.25 % of the swing per period).
    assert!(
        ext.iter()
            .all(|e| e.1.abs() < 3e-3 || (e.1 - 0.2).abs() < 3e-3),
        "{ext:?}"
    );
}

#[test]
fn a_prismatic_spring_keeps_its_period_whatever_the_effort_limit() {
    // 1 kg on a vertical slider with a 100 N/m spring: it oscillates about -m g / k with
    // T = 2π sqrt(m / k), with or without a 2 N effort limit (which bounds commands only).
    let expected = std::f64::consts::TAU * (1.0f64 / 100.0).sqrt();
    for limit in ["", "<limit><effort>2</effort></limit>"] {
        let (mut p, j) = with_entity(
            &format!(
                r#"<sdf version="1.9"><world name="w"><gravity>0 0 -9.8</gravity>
                <model name="m"><pose>0 0 2 0 0 0</pose>
                  <link name="mass"><inertial><mass>1</mass>
                    <inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
                  <joint name="j" type="prismatic"><parent>world</parent><child>mass</child>
                    <axis><xyz>0 0 1</xyz>{limit}<dynamics><spring_stiffness>100</spring_stiffness></dynamics></axis></joint>
                </model></world></sdf>"#
            ),
            "m::j",
        );
        let ext = extrema(&mut p, j, 4000);
        assert_period(&ext, expected, limit);
        let lowest = ext.iter().map(|e| e.1).fold(f64::INFINITY, f64::min);
        assert!(
            (lowest + 2.0 * 0.098).abs() < 0.002,
            "{limit}: it turns back at 2 m g / k below the start: {lowest}"
        );
    }
}

#[test]
fn a_motor_on_a_light_link_accelerates_the_tree_it_turns() {
    // A 1 g hub with a 10 kg·m² flywheel fixed on it: a velocity command far above what
    // the motor can reach in 0.1 s, limited to 1000 N·m, accelerates them at τ / I.
    let (hub, flywheel) = (inertial(0.001, [1e-6; 3]), inertial(10.0, [5.0, 5.0, 10.0]));
    let (mut p, j) = with_entity(
        &format!(
            r#"<sdf version="1.9"><world name="w"><gravity>0 0 0</gravity>
            <model name="m"><pose>0 0 1 0 0 0</pose>
              <link name="hub">{hub}</link><link name="flywheel">{flywheel}</link>
              <joint name="j" type="revolute"><parent>world</parent><child>hub</child>
                <axis><xyz>0 0 1</xyz></axis></joint>
              <joint name="fix" type="fixed"><parent>hub</parent><child>flywheel</child></joint>
            </model></world></sdf>"#
        ),
        "m::j",
    );
    p.joint_command(&velocity_command(j, 1000.0, 1000.0))
        .unwrap();
    for _ in 0..100 {
        p.step();
    }
    let s = p.joint_state(j).unwrap();
    let expected = 1000.0 / (10.0 + 1e-6) * 0.1;
    assert!(
        (s.velocity[0] - expected).abs() < 0.02 * expected,
        "{s:?}, expected {expected} rad/s"
    );
    assert!(
        (s.effort[0] - 1000.0).abs() < 20.0,
        "the motor's torque reads back: {s:?}"
    );
}

#[test]
fn a_tree_can_be_moved_set_moving_and_removed() {
    // A free two-link model (base and a hinged arm) in zero gravity; the hinge's damping
    // makes it a tree in reduced coordinates (see `joints::reduced::reducible`).
    let body = inertial(1.0, [0.01; 3]);
    let (mut p, base) = with_entity(
        &format!(
            r#"<sdf version="1.9"><world name="w"><gravity>0 0 0</gravity>
        <model name="m"><pose>0 0 1 0 0 0</pose>
          <link name="base">{body}</link>
          <link name="arm"><pose>0.5 0 0 0 0 0</pose>{body}</link>
          <joint name="j" type="revolute"><parent>base</parent><child>arm</child>
            <pose>-0.25 0 0 0 0 0</pose><axis><xyz>0 0 1</xyz>
            <dynamics><damping>0.001</damping></dynamics></axis></joint>
        </model></world></sdf>"#
        ),
        "m::base",
    );
    let model = p.entity_id("m").unwrap();
    let arm = p.entity_id("m::arm").unwrap();
    p.apply(&PhysicsCommand::SetVelocity(
        model,
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::ZERO,
    ))
    .unwrap();
    for _ in 0..1000 {
        p.step();
    }
    for (link, x) in [(base, 1.0), (arm, 1.5)] {
        let k = p.kinematics_of(link).unwrap();
        assert!(
            (k.pose.position - Vec3::new(x, 0.0, 1.0)).length() < 1e-3
                && (k.linear_velocity - Vec3::new(1.0, 0.0, 0.0)).length() < 1e-3,
            "moves with the model: {k:?}"
        );
    }
    p.apply(&PhysicsCommand::SetPose(
        model,
        Pose::new(Vec3::new(5.0, 5.0, 1.0), sim_plugin_api::Quat::IDENTITY),
    ))
    .unwrap();
    p.step();
    let at = p.kinematics_of(arm).unwrap().pose.position;
    assert!((at - Vec3::new(5.5, 5.0, 1.0)).length() < 0.01, "{at:?}");
    p.remove_model(model).unwrap();
    for _ in 0..10 {
        p.step();
    }
    assert!(p.entity_id("m::arm").is_none());
}

#[test]
fn a_loop_closes_with_an_impulse_joint_and_world_roots_go_with_their_model() {
    // A triangle of links hanging from the world: the third hinge closes a loop, which a
    // tree cannot hold; it swings as one rigid frame about the world hinge.
    let body = inertial(1.0, [0.01; 3]);
    let hinge = |name: &str, parent: &str, child: &str, at: &str| {
        format!(
            r#"<joint name="{name}" type="revolute"><parent>{parent}</parent><child>{child}</child>
            <pose>{at}</pose><axis><xyz>1 0 0</xyz></axis></joint>"#
        )
    };
    let joints = [
        hinge("top", "world", "a", "0 0 0 0 0 0"),
        hinge("ab", "a", "b", "0 0 0 0 0 0"),
        hinge("bc", "b", "c", "0 0 0 0 0 0"),
        hinge("ca", "c", "a", "0 0 0 0 0 0"),
    ]
    .concat();
    let (mut p, a) = with_entity(
        &format!(
            r#"<sdf version="1.9"><world name="w"><gravity>0 0 -9.8</gravity>
            <model name="m"><pose>0 0 2 0.3 0 0</pose>
              <link name="a"><pose>0 0 -0.5 0 0 0</pose>{body}</link>
              <link name="b"><pose>0 0.3 -0.8 0 0 0</pose>{body}</link>
              <link name="c"><pose>0 -0.3 -0.8 0 0 0</pose>{body}</link>
              {joints}
            </model></world></sdf>"#
        ),
        "m::a",
    );
    let bodies = p.counts().0;
    let frame = |p: &Physics| {
        let pos = |n: &str| {
            p.kinematics_of(p.entity_id(n).unwrap())
                .unwrap()
                .pose
                .position
        };
        [
            (pos("m::a") - pos("m::b")).length(),
            (pos("m::b") - pos("m::c")).length(),
        ]
    };
    let before = frame(&p);
    for _ in 0..1000 {
        p.step();
    }
    let after = frame(&p);
    for k in 0..2 {
        assert!((after[k] - before[k]).abs() < 1e-3, "{before:?} {after:?}");
    }
    let swing = p.kinematics_of(a).unwrap().pose.position;
    assert!(
        swing.y.abs() > 0.05,
        "it swings about the top hinge: {swing:?}"
    );
    // Removing the model removes its links and the fixed root of its world hinge.
    p.remove_model(p.entity_id("m").unwrap()).unwrap();
    p.step();
    assert_eq!(p.counts().0, bodies - 4);
}

#[test]
fn trees_hung_from_the_world_or_with_joint_dynamics_are_reduced_and_free_robots_are_not() {
    // A free robot (a chassis with two hinged links and a ball-jointed caster), with the
    // given `<dynamics>` on its hinges and, when `grounded`, a fixed joint to the world.
    let built = |dynamics: &str, grounded: bool| {
        let body = inertial(1.0, [0.01; 3]);
        let hinge = |name: &str, y: f64| {
            format!(
                r#"<link name="{name}"><pose>0 {y} 0 0 0 0</pose>{body}</link>
                <joint name="{name}_j" type="revolute"><parent>chassis</parent><child>{name}</child>
                  <axis><xyz>0 1 0</xyz><dynamics>{dynamics}</dynamics></axis></joint>"#
            )
        };
        let stand = if grounded {
            r#"<joint name="stand" type="fixed"><parent>world</parent><child>chassis</child></joint>"#
        } else {
            ""
        };
        let (p, _) = with_entity(
            &format!(
                r#"<sdf version="1.9"><world name="w"><model name="m"><pose>0 0 1 0 0 0</pose>
                  <link name="chassis">{body}</link>{stand}{}{}
                  <link name="caster"><pose>0.3 0 0 0 0 0</pose>{body}</link>
                  <joint name="c" type="ball"><parent>chassis</parent><child>caster</child></joint>
                </model></world></sdf>"#,
                hinge("left", 0.3),
                hinge("right", -0.3)
            ),
            "m::chassis",
        );
        p.pw.multibody_joints.iter().count()
    };
    // No dynamics, free: impulse joints only.
    assert_eq!(built("", false), 0);
    // Damping, friction or a spring on one axis: the whole tree (three joints and, with the
    // stand, the fixed one to the world's root).
    for dynamics in [
        "<damping>0.1</damping>",
        "<friction>0.5</friction>",
        "<spring_stiffness>3</spring_stiffness>",
    ] {
        assert_eq!(built(dynamics, false), 3, "{dynamics}");
        assert_eq!(built(dynamics, true), 4, "{dynamics}");
    }
    // Hung from the world, without dynamics.
    assert_eq!(built("", true), 4);
}

#[test]
fn a_model_spawned_while_running_is_a_tree_in_reduced_coordinates() {
    // The damped point-like pendulum of the load-time test, created after 200 steps of a
    // world holding a first one; then created and removed 100 times more.
    let (mut p, _) = pendulum("0 0 -9.8", 1.0, 1e-6, 0.1, "<damping>0.2</damping>");
    for _ in 0..200 {
        p.step();
    }
    let text = |name: &str| {
        format!(
            r#"<sdf version="1.9"><world name="w"><model name="{name}"><pose>3 0 2 0.1 0 0</pose>
              <link name="bob"><pose>0 0 -0.5 0 0 0</pose><inertial><mass>1</mass>
                <inertia><ixx>1e-6</ixx><iyy>1e-6</iyy><izz>1e-6</izz></inertia></inertial></link>
              <joint name="j" type="revolute"><parent>world</parent><child>bob</child>
                <pose>0 0 0.5 0 0 0</pose>
                <axis><xyz>1 0 0</xyz><dynamics><damping>0.2</damping></dynamics></axis></joint>
            </model></world></sdf>"#
        )
    };
    let model = |name: &str| {
        sim_sdf::parse_str(&text(name), None)
            .expect("valid")
            .models
            .remove(0)
    };
    // The first pair takes the slots later pairs reuse.
    let id = p.spawn_model(&model("first")).unwrap();
    p.step();
    p.remove_model(id).unwrap();
    let before = p.retained();
    for k in 0..100 {
        let id = p.spawn_model(&model(&format!("tmp{k}"))).unwrap();
        p.step();
        p.remove_model(id).unwrap();
        p.step();
    }
    assert_eq!(p.retained(), before, "creating and removing leaves nothing");
    p.spawn_model(&model("late")).unwrap();
    let j = p.entity_id("late::j").unwrap();
    assert_eq!(p.retained().multibody_joints, before.multibody_joints + 1);
    let ext = extrema(&mut p, j, 5000);
    assert!(ext.len() >= 4, "it swings: {ext:?}");
    let expected = 0.2 / (2.0 * (0.25 + 1e-6));
    let gamma = decay_rate(&ext[..4], -0.1);
    assert!(
        (gamma - expected).abs() < 0.05 * expected,
        "decays at {gamma}/s, expected {expected}/s"
    );
}
