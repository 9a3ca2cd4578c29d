//! Universal, revolute2, screw and gearbox joints, and the joints of static models.

use super::*;
use sim_plugin_api::Quat;
use sim_plugin_api::{JointCommand, JointCommandMode};
use sim_world::World;

/// A base held by the world at z = 2 and a 1 kg `bob` at `bob_pose` (in the model), joined
/// by `joint`; gravity `gravity`.
fn world(version: &str, gravity: &str, bob_pose: &str, joint: &str) -> World {
    sim_sdf::parse_str(
        &format!(
            r#"<sdf version="{version}"><world name="w"><gravity>{gravity}</gravity>
            <model name="m"><pose>0 0 2 0 0 0</pose>
            <link name="base"><inertial><mass>1</mass></inertial></link>
            <link name="bob"><pose>{bob_pose}</pose><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
            <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
            {joint}
            </model></world></sdf>"#
        ),
        None,
    )
    .expect("valid world")
}

fn velocity(p: &mut Physics, joint: EntityId, axis: u32, target: f64) {
    p.joint_command(&JointCommand {
        joint,
        axis,
        mode: JointCommandMode::VELOCITY,
        target,
        max_force: f64::INFINITY,
        stiffness: 0.0,
        damping: 0.0,
    })
    .unwrap();
}

/// The angle between two rotations.
fn angle_between(a: Quat, b: Quat) -> f64 {
    let d = a.inverse().compose_q(b);
    2.0 * d.w.abs().min(1.0).acos()
}

trait ComposeQ {
    fn compose_q(self, o: Quat) -> Quat;
}
impl ComposeQ for Quat {
    fn compose_q(self, o: Quat) -> Quat {
        Pose::new(Vec3::ZERO, self)
            .compose(Pose::new(Vec3::ZERO, o))
            .orientation
    }
}

#[test]
fn a_universal_joint_turns_about_both_axes_but_not_the_third() {
    let w = world(
        "1.9",
        "0 0 0",
        "0 0 -0.5 0 0 0",
        r#"<joint name="u" type="universal"><parent>base</parent><child>bob</child>
           <pose>0 0 0.5 0 0 0</pose><axis><xyz>1 0 0</xyz></axis><axis2><xyz>0 1 0</xyz></axis2></joint>"#,
    );
    let mut p = Physics::build(&w).unwrap();
    let (bob, u) = (p.entity_id("m::bob").unwrap(), p.entity_id("m::u").unwrap());
    // A torque about z (axis1 x axis2) cannot turn the child.
    for _ in 0..500 {
        p.apply(&PhysicsCommand::ApplyWrench(
            bob,
            Vec3::ZERO,
            Vec3::new(0.0, 0.0, 0.1),
        ))
        .unwrap();
        p.step();
    }
    let s = p.joint_state(u).unwrap();
    let q = p.kinematics_of(bob).unwrap().pose.orientation;
    assert_eq!(s.dof, 2);
    assert!(
        s.position[0].abs() < 1e-3 && s.position[1].abs() < 1e-3,
        "{s:?}"
    );
    assert!(angle_between(q, Quat::IDENTITY) < 1e-3, "{q:?}");
    // Driven about both axes, the child turns by R_x(a1) * R_y(a2): axis 1 fixed in the
    // parent, axis 2 fixed in the child; the joint origin stays put.
    velocity(&mut p, u, 0, 0.5);
    velocity(&mut p, u, 1, -0.8);
    for _ in 0..1000 {
        p.step();
    }
    let s = p.joint_state(u).unwrap();
    // The velocity motors hold their speeds within the few per cent the swinging bob's
    // inertia pulls them off.
    assert!((s.position[0] - 0.5).abs() < 0.03, "{s:?}");
    assert!((s.position[1] + 0.8).abs() < 0.03, "{s:?}");
    assert!((s.velocity[0] - 0.5).abs() < 0.02 && (s.velocity[1] + 0.8).abs() < 0.02);
    let expected = Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.0), s.position[0]).compose_q(
        Quat::from_axis_angle(Vec3::new(0.0, 1.0, 0.0), s.position[1]),
    );
    let pose = p.kinematics_of(bob).unwrap().pose;
    assert!(angle_between(pose.orientation, expected) < 1e-3, "{pose:?}");
    let origin = pose.transform_point(Vec3::new(0.0, 0.0, 0.5));
    assert!(
        (origin - Vec3::new(0.0, 0.0, 2.0)).length() < 1e-3,
        "{origin:?}"
    );
}

#[test]
fn a_universal_joint_held_by_a_position_command_carries_the_weight() {
    let w = world(
        "1.9",
        "0 0 -9.8",
        "0 0 -0.5 0 0 0",
        r#"<joint name="u" type="universal"><parent>base</parent><child>bob</child>
           <pose>0 0 0.5 0 0 0</pose><axis><xyz>1 0 0</xyz></axis>
           <axis2><xyz>0 1 0</xyz><dynamics><damping>1</damping></dynamics></axis2></joint>"#,
    );
    let mut p = Physics::build(&w).unwrap();
    let u = p.entity_id("m::u").unwrap();
    p.joint_command(&JointCommand {
        joint: u,
        axis: 0,
        mode: JointCommandMode::POSITION,
        target: 0.5,
        max_force: f64::INFINITY,
        stiffness: 200.0,
        damping: 20.0,
    })
    .unwrap();
    for _ in 0..3000 {
        p.step();
    }
    let s = p.joint_state(u).unwrap();
    // The spring holds axis 1 near 0.5 rad against the bob's weight (m g r sin 0.5 / k
    // = 0.012 rad of sag); axis 2 hangs at rest.
    assert!((s.position[0] - 0.488).abs() < 0.01, "{s:?}");
    assert!(
        s.position[1].abs() < 1e-3 && s.velocity[0].abs() < 1e-3,
        "{s:?}"
    );
    // The joint carries the bob's weight, straight up in the world frame (the impulses
    // read back from rapier's last substep are good to a few per cent with a soft
    // motor), and the spring's torque about axis 1.
    let wr = p.joint_wrench(u).unwrap();
    let f = wr.force;
    assert!(f.z > 0.0 && (f.x.abs() + f.y.abs()) / f.z < 0.02, "{wr:?}");
    assert!((f.length() - 9.8).abs() < 0.03 * 9.8, "{wr:?}");
    assert!(
        (wr.torque.x - 0.5 * 9.8 * s.position[0].sin()).abs() < 0.05,
        "{wr:?}"
    );
}

#[test]
fn a_revolute2_joint_turns_about_two_axes_in_series() {
    // Axis 1 between y and z, axis 2 between y and -z, expressed in the joint frame.
    let w = world(
        "1.9",
        "0 0 0",
        "0 0 -0.5 0 0 0",
        r#"<joint name="r" type="revolute2"><parent>base</parent><child>bob</child>
           <axis><xyz>0 1 1</xyz><limit><lower>-0.3</lower><upper>0.3</upper></limit></axis>
           <axis2><xyz>0 1 -1</xyz></axis2></joint>"#,
    );
    let mut p = Physics::build(&w).unwrap();
    let (bob, r) = (p.entity_id("m::bob").unwrap(), p.entity_id("m::r").unwrap());
    velocity(&mut p, r, 0, -0.4);
    velocity(&mut p, r, 1, 1.0);
    for _ in 0..1000 {
        p.step();
    }
    let s = p.joint_state(r).unwrap();
    // Axis 1 stops at its lower limit; axis 2 turns on.
    assert!((s.position[0] + 0.3).abs() < 0.01, "{s:?}");
    assert!((s.position[1] - 1.0).abs() < 0.02, "{s:?}");
    let (a1, a2) = (
        Vec3::new(0.0, 1.0, 1.0).normalized(),
        Vec3::new(0.0, 1.0, -1.0).normalized(),
    );
    let expected = Quat::from_axis_angle(a1, s.position[0])
        .compose_q(Quat::from_axis_angle(a2, s.position[1]));
    let pose = p.kinematics_of(bob).unwrap().pose;
    assert!(angle_between(pose.orientation, expected) < 1e-3, "{pose:?}");
    // The joint is at the bob's origin, which therefore stays where it was.
    assert!((pose.position - Vec3::new(0.0, 0.0, 1.5)).length() < 1e-3);
    // Oblique axes are refused.
    let w = world(
        "1.9",
        "0 0 0",
        "0 0 -0.5 0 0 0",
        r#"<joint name="r" type="revolute2"><parent>base</parent><child>bob</child>
           <axis><xyz>1 0 0</xyz></axis><axis2><xyz>1 1 0</xyz></axis2></joint>"#,
    );
    let e = Physics::build(&w).unwrap_err();
    assert!(e.message.contains("not perpendicular"), "{e}");
}

#[test]
fn a_screw_joint_advances_its_pitch_per_turn() {
    // SDF 1.10: 0.1 m per revolution, right-handed.
    let w = world(
        "1.10",
        "0 0 0",
        "0 0 0 0 0 0",
        r#"<joint name="s" type="screw"><parent>base</parent><child>bob</child>
           <screw_thread_pitch>0.1</screw_thread_pitch><axis><xyz>0 0 1</xyz></axis></joint>"#,
    );
    let mut p = Physics::build(&w).unwrap();
    let (bob, s) = (p.entity_id("m::bob").unwrap(), p.entity_id("m::s").unwrap());
    // Two turns in 2 s.
    velocity(&mut p, s, 0, std::f64::consts::PI * 2.0);
    for _ in 0..2000 {
        p.step();
    }
    let st = p.joint_state(s).unwrap();
    let z = p.kinematics_of(bob).unwrap().pose.position.z - 2.0;
    assert_eq!(st.dof, 1);
    assert!(st.position[0] > 11.0, "it turned about twice: {st:?}");
    let expected = 0.1 * st.position[0] / std::f64::consts::TAU;
    assert!(
        (z - expected).abs() < 1e-3,
        "advanced {z}, expected {expected}"
    );
    assert!((z - 0.2).abs() < 0.02, "two turns, 0.2 m: {z}");

    // SDF 1.9 `<thread_pitch>` is rad/m of a left-handed thread: -2pi/0.1 is the same
    // screw. Under gravity along the axis the child falls and turns as it goes.
    let w = world(
        "1.9",
        "0 0 -9.8",
        "0 0 0 0 0 0",
        r#"<joint name="s" type="screw"><parent>base</parent><child>bob</child>
           <thread_pitch>-62.83185307179586</thread_pitch><axis><xyz>0 0 1</xyz></axis></joint>"#,
    );
    let mut p = Physics::build(&w).unwrap();
    let (bob, s) = (p.entity_id("m::bob").unwrap(), p.entity_id("m::s").unwrap());
    for _ in 0..500 {
        p.step();
    }
    let st = p.joint_state(s).unwrap();
    let z = p.kinematics_of(bob).unwrap().pose.position.z - 2.0;
    assert!(z < -0.01, "it falls: {z}");
    let expected = 0.1 * st.position[0] / std::f64::consts::TAU;
    assert!(
        (z - expected).abs() < 1e-3,
        "fell {z}, turned for {expected}"
    );
    // Translation is not free: a force along the axis alone moves it only by turning it,
    // so it falls far slower than free fall (0.5 g t^2 = 1.2 m).
    assert!(z > -0.5, "{z}");
}

#[test]
fn a_static_model_stays_put_but_its_joints_still_move() {
    // The base stays where it is; the arm its hinge drives neither falls nor yields to a
    // falling box, but turns when the hinge is commanded; the link fixed to the arm
    // follows it; the link fixed to the base does not move.
    let w = sim_sdf::parse_str(
        r#"<sdf version="1.9"><world name="w"><model name="m"><static>true</static>
          <link name="base"/>
          <link name="post"><pose>0 0 1 0 0 0</pose></link>
          <link name="arm"><pose>1 0 0 0 0 0</pose><inertial><mass>1</mass></inertial>
            <collision name="c"><geometry><box><size>1 0.2 0.2</size></box></geometry></collision></link>
          <link name="tip"><pose>1.5 0 0 0 0 0</pose><inertial><mass>1</mass></inertial></link>
          <joint name="weld" type="fixed"><parent>base</parent><child>post</child></joint>
          <joint name="hinge" type="revolute"><parent>base</parent><child>arm</child>
            <pose>-1 0 0 0 0 0</pose><axis><xyz>0 0 1</xyz></axis>
            <sensor name="ft" type="force_torque"/></joint>
          <joint name="tip_weld" type="fixed"><parent>arm</parent><child>tip</child></joint>
        </model>
        <model name="falling"><pose>1.2 0 1 0 0 0</pose><link name="l"><inertial><mass>50</mass></inertial>
          <collision name="c"><geometry><box><size>0.3 0.3 0.3</size></box></geometry></collision></link></model>
        </world></sdf>"#,
        None,
    )
    .unwrap();
    let mut p = Physics::build(&w).unwrap();
    let hinge = p.entity_id("m::hinge").unwrap();
    let (arm, tip, post) = (
        p.entity_id("m::arm").unwrap(),
        p.entity_id("m::tip").unwrap(),
        p.entity_id("m::post").unwrap(),
    );
    let ft = p.entity_id("m::hinge::ft").unwrap();
    assert_eq!(p.entities.get(ft).unwrap().parent, hinge);
    // Uncommanded, under gravity and a 50 kg box landing on it: the arm stays.
    for _ in 0..1000 {
        p.step();
    }
    let z = |p: &Physics, id| p.kinematics_of(id).unwrap().pose.position;
    assert!(
        (z(&p, arm) - Vec3::new(1.0, 0.0, 0.0)).length() < 1e-3,
        "{:?}",
        z(&p, arm)
    );
    let bz = z(&p, p.entity_id("falling").unwrap()).z;
    assert!((0.2..0.3).contains(&bz), "the box rests on the arm: z {bz}");
    // Commanded: the hinge turns the arm (and the tip welded to it) about z.
    velocity(&mut p, hinge, 0, 1.0);
    for _ in 0..500 {
        p.step();
    }
    let s = p.joint_state(hinge).unwrap();
    assert!((s.position[0] - 0.5).abs() < 0.05, "{:?}", s.position);
    let a = z(&p, arm);
    assert!(
        (a.x - 0.5f64.cos()).abs() < 0.05 && (a.y - 0.5f64.sin()).abs() < 0.05,
        "{a:?}"
    );
    let t = z(&p, tip);
    assert!((t.x - 1.5 * 0.5f64.cos()).abs() < 0.05, "{t:?}");
    // The arm's motion is recorded as any moving link's (its body is not a fixed one); the
    // base's, a fixed body's, is none.
    let k = p.kinematics_of(arm).unwrap();
    assert!((k.angular_velocity.z - 1.0).abs() < 0.05, "{k:?}");
    let base = p.kinematics_of(p.entity_id("m::base").unwrap()).unwrap();
    assert_eq!(
        (
            base.linear_velocity,
            base.angular_velocity,
            base.angular_acceleration
        ),
        (Vec3::ZERO, Vec3::ZERO, Vec3::ZERO)
    );
    assert_eq!(z(&p, post), Vec3::new(0.0, 0.0, 1.0), "fixed to the base");
    assert_eq!(z(&p, p.entity_id("m::base").unwrap()), Vec3::ZERO);
}

#[test]
fn a_gearbox_turns_its_child_by_the_ratio() {
    let w = sim_sdf::parse_str(
        r#"<sdf version="1.9"><world name="w"><gravity>0 0 0</gravity>
        <model name="m">
          <link name="base"><inertial><mass>10</mass></inertial></link>
          <link name="input"><pose>0 0 1 0 0 0</pose><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
          <link name="output"><pose>1 0 1 0 0 0</pose><inertial><mass>1</mass><inertia><ixx>0.02</ixx><iyy>0.02</iyy><izz>0.02</izz></inertia></inertial></link>
          <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
          <joint name="a" type="revolute"><parent>base</parent><child>input</child><axis><xyz>0 0 1</xyz></axis></joint>
          <joint name="b" type="revolute"><parent>base</parent><child>output</child><axis><xyz>0 0 1</xyz></axis></joint>
          <joint name="g" type="gearbox"><parent>input</parent><child>output</child>
            <gearbox_reference_body>base</gearbox_reference_body><gearbox_ratio>5</gearbox_ratio>
            <axis><xyz>0 0 1</xyz></axis><axis2><xyz>0 0 1</xyz></axis2></joint>
        </model></world></sdf>"#,
        None,
    )
    .unwrap();
    let mut p = Physics::build(&w).unwrap();
    let (a, b, g) = (
        p.entity_id("m::a").unwrap(),
        p.entity_id("m::b").unwrap(),
        p.entity_id("m::g").unwrap(),
    );
    // The input is driven at 2 rad/s for 1 s; the output follows at -1/5 of it.
    velocity(&mut p, a, 0, 2.0);
    for _ in 0..1000 {
        p.step();
    }
    let (sa, sb, sg) = (
        p.joint_state(a).unwrap(),
        p.joint_state(b).unwrap(),
        p.joint_state(g).unwrap(),
    );
    assert!(sa.position[0] > 1.5, "{sa:?}");
    assert!(
        (sb.position[0] + sa.position[0] / 5.0).abs() < 0.01 * sa.position[0],
        "input {} output {}",
        sa.position[0],
        sb.position[0]
    );
    assert!((sb.velocity[0] + sa.velocity[0] / 5.0).abs() < 1e-3);
    // The gearbox reports both gears' angles relative to the reference body.
    assert_eq!(sg.dof, 2);
    assert!((sg.position[0] - sa.position[0]).abs() < 1e-6);
    assert!((sg.position[1] - sb.position[0]).abs() < 1e-6);
    // Its gears are driven through their own joints.
    let e = p
        .joint_command(&JointCommand {
            joint: g,
            axis: 0,
            mode: JointCommandMode::VELOCITY,
            target: 1.0,
            max_force: 1.0,
            stiffness: 0.0,
            damping: 0.0,
        })
        .unwrap_err();
    assert!(
        e.to_string().contains("drive the joints the gears turn on"),
        "{e}"
    );
    // Without a reference body it is read (as libsdformat does) but cannot be built.
    let w = sim_sdf::parse_str(
        r#"<sdf version="1.9"><world name="w"><model name="m">
          <link name="input"/><link name="output"/>
          <joint name="g" type="gearbox"><parent>input</parent><child>output</child></joint>
        </model></world></sdf>"#,
        None,
    )
    .unwrap();
    let e = Physics::build(&w).unwrap_err();
    assert!(e.message.contains("has no <gearbox_reference_body>"), "{e}");
}
