//! Revolute, prismatic, continuous and fixed joints: swings, limits, commands, wrenches.

use super::*;

fn joint_world(joint: &str) -> World {
    sim_sdf::parse_str(
        &format!(
            r#"<sdf version="1.9"><world name="w"><model name="arm"><pose>0 0 2 0 0 0</pose>
            <link name="base"><inertial><mass>1</mass></inertial></link>
            <link name="bob"><pose>1 0 0 0 0 0</pose><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
              <collision name="c"><geometry><sphere><radius>0.05</radius></sphere></geometry></collision></link>
            <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
            {joint}
            </model></world></sdf>"#
        ),
        None,
    )
    .expect("valid world")
}

#[test]
fn a_pendulum_swings_about_its_revolute_axis() {
    // Pivot at the base origin (the joint pose is in the bob's frame), axis y.
    let w = joint_world(
        r#"<joint name="hinge" type="revolute"><parent>base</parent><child>bob</child><pose>-1 0 0 0 0 0</pose><axis><xyz>0 1 0</xyz></axis></joint>"#,
    );
    let mut p = Physics::build(&w).unwrap();
    let bob = p.entity_id("arm::bob").unwrap();
    let hinge = p.entity_id("arm::hinge").unwrap();
    assert_swings_about_y(&mut p, bob, hinge);
}

/// Steps a 1 m pendulum hinged at (0, 0, 2) about +y for 1.3 s from the horizontal: the
/// bob stays on its circle in the x-z plane, the joint's position agrees with the geometry
/// (rotation about +y takes +x down: angle > 0), and it swings down and through.
#[track_caller]
fn assert_swings_about_y(p: &mut Physics, bob: EntityId, hinge: EntityId) {
    let mut max_angle: f64 = 0.0;
    for _ in 0..1300 {
        p.step();
        let pos = p.kinematics_of(bob).unwrap().pose.position;
        let r = (pos - Vec3::new(0.0, 0.0, 2.0)).length();
        assert!(
            (r - 1.0).abs() < 2e-3,
            "the bob stays 1 m from the pivot: {r}"
        );
        assert!(pos.y.abs() < 1e-3, "it swings in the x-z plane: {pos:?}");
        let s = p.joint_state(hinge).unwrap();
        // Position agrees with the geometry (rotation about +y takes +x down: angle > 0).
        let geometric = (-(pos.z - 2.0)).atan2(pos.x);
        // (Without damping it swings up to the horizontal again, where atan2 wraps.)
        let off = (s.position[0] - geometric + std::f64::consts::PI)
            .rem_euclid(std::f64::consts::TAU)
            - std::f64::consts::PI;
        assert!(off.abs() < 2e-3, "{} vs {geometric}", s.position[0]);
        max_angle = max_angle.max(s.position[0]);
    }
    assert!(max_angle > 3.0, "it swings down and through: {max_angle}");
}

#[test]
fn a_pendulum_in_a_nested_model_swings_about_the_resolved_axis() {
    // The bob is a link of a nested model turned a quarter about z; the joint of the
    // outer model names it `pend::bob`, is posed relative to the outer model frame and
    // has its axis expressed in the nested model's frame (its x = the world's y). The
    // base is held by a world-level joint (SDF 1.10).
    let (mut p, bob) = with_entity(
        r#"<sdf version="1.10"><world name="w">
        <model name="arm"><pose>0 0 2 0 0 0</pose>
          <link name="base"><inertial><mass>1</mass></inertial></link>
          <model name="pend"><pose>1 0 0 0 0 1.5707963267948966</pose>
            <link name="bob"><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
              <collision name="c"><geometry><sphere><radius>0.05</radius></sphere></geometry></collision></link>
          </model>
          <joint name="hinge" type="revolute"><parent>base</parent><child>pend::bob</child>
            <pose relative_to="__model__">0 0 0 0 0 0</pose>
            <axis><xyz expressed_in="pend">1 0 0</xyz></axis></joint>
        </model>
        <joint name="fix" type="fixed"><parent>world</parent><child>arm::base</child></joint>
        </world></sdf>"#,
        "arm::pend::bob",
    );
    let base = p.entity_id("arm::base").unwrap();
    let hinge = p.entity_id("arm::hinge").unwrap();
    assert!(p.entity_id("fix").is_some(), "the world joint is an entity");
    let start = p.kinematics_of(bob).unwrap().pose.position;
    assert!(
        (start - Vec3::new(1.0, 0.0, 2.0)).length() < 1e-6,
        "{start:?}"
    );
    assert_swings_about_y(&mut p, bob, hinge);
    let held = p.kinematics_of(base).unwrap().pose.position;
    assert!(
        (held - Vec3::new(0.0, 0.0, 2.0)).length() < 1e-3,
        "{held:?}"
    );
}

#[test]
fn limits_stop_a_revolute_joint() {
    let w = joint_world(
        r#"<joint name="hinge" type="revolute"><parent>base</parent><child>bob</child><pose>-1 0 0 0 0 0</pose><axis><xyz>0 1 0</xyz><limit><lower>-0.2</lower><upper>0.3</upper></limit></axis></joint>"#,
    );
    let mut p = Physics::build(&w).unwrap();
    let hinge = p.entity_id("arm::hinge").unwrap();
    for _ in 0..1000 {
        p.step();
    }
    let s = p.joint_state(hinge).unwrap();
    assert!(
        (s.position[0] - 0.3).abs() < 0.02,
        "resting on the upper limit: {}",
        s.position[0]
    );
    assert!(
        s.effort[0].abs() > 1.0,
        "the limit pushes back: {}",
        s.effort[0]
    );
}

#[test]
fn prismatic_joints_slide_along_their_axis_only() {
    let w = joint_world(
        r#"<joint name="slide" type="prismatic"><parent>base</parent><child>bob</child><axis><xyz>1 0 -1</xyz></axis></joint>"#,
    );
    let mut p = Physics::build(&w).unwrap();
    let bob = p.entity_id("arm::bob").unwrap();
    let slide = p.entity_id("arm::slide").unwrap();
    for _ in 0..300 {
        p.step();
    }
    let pos = p.kinematics_of(bob).unwrap().pose.position;
    let d = pos - Vec3::new(1.0, 0.0, 2.0);
    assert!(
        d.x > 0.1 && (d.x + d.z).abs() < 1e-3 && d.y.abs() < 1e-6,
        "slides down the 45 degree axis: {d:?}"
    );
    let s = p.joint_state(slide).unwrap();
    assert!(
        (s.position[0] - d.length()).abs() < 1e-3,
        "{} vs {}",
        s.position[0],
        d.length()
    );
    // Along the incline: a = g sin 45.
    let t = 0.3;
    let expected = 0.5 * 9.8 * std::f64::consts::FRAC_1_SQRT_2 * t * t;
    assert!(
        (s.position[0] - expected).abs() < 0.01,
        "{} vs {expected}",
        s.position[0]
    );
}

#[test]
fn velocity_commands_drive_a_continuous_joint_past_a_turn() {
    let w = sim_sdf::parse_str(
        r#"<sdf version="1.9"><world name="w"><gravity>0 0 0</gravity><model name="m">
            <link name="base"/><link name="wheel"><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
            <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
            <joint name="axle" type="continuous"><parent>base</parent><child>wheel</child><axis><xyz>0 0 1</xyz></axis></joint>
            </model></world></sdf>"#,
        None,
    )
    .unwrap();
    let mut p = Physics::build(&w).unwrap();
    let axle = p.entity_id("m::axle").unwrap();
    let cmd = velocity_command(axle, 10.0, 100.0);
    p.joint_command(&cmd).unwrap();
    for _ in 0..1000 {
        p.step();
    }
    let s = p.joint_state(axle).unwrap();
    assert!((s.velocity[0] - 10.0).abs() < 0.05, "{}", s.velocity[0]);
    assert!(
        s.position[0] > 9.0 && s.position[0] < 10.1,
        "unwrapped past several turns: {}",
        s.position[0]
    );
    let bad = sim_plugin_api::JointCommand { axis: 1, ..cmd };
    assert!(
        p.joint_command(&bad)
            .unwrap_err()
            .to_string()
            .contains("no axis 1")
    );
    let fix = p.entity_id("m::fix").unwrap();
    assert!(
        p.joint_command(&sim_plugin_api::JointCommand { joint: fix, ..cmd })
            .is_err()
    );
}

#[test]
fn a_fixed_joint_holding_a_mass_reads_m_g() {
    let w = sim_sdf::parse_str(
        r#"<sdf version="1.9"><world name="w"><model name="m"><pose>0 0 1 0 0 0</pose>
            <link name="weight"><inertial><mass>2</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
            <joint name="hook" type="fixed"><parent>world</parent><child>weight</child><sensor name="ft" type="force_torque"/></joint>
            </model></world></sdf>"#,
        None,
    )
    .unwrap();
    let mut p = Physics::build(&w).unwrap();
    for _ in 0..200 {
        p.step();
    }
    let hook = p.entity_id("m::hook").unwrap();
    let wrench = p.joint_wrench(hook).unwrap();
    assert!(
        (wrench.force.z - 2.0 * 9.8).abs() < 1e-3,
        "holds the weight up: {wrench:?}"
    );
    assert!(
        wrench.force.x.abs() < 1e-6 && wrench.force.y.abs() < 1e-6 && wrench.torque.length() < 1e-3,
        "{wrench:?}"
    );
    let mut out = [sim_plugin_api::Wrench::default(); 2];
    let known = p.view("t").joint_wrenches(
        RSlice::from_slice(&[hook, p.entity_id("m::weight").unwrap()]),
        RSliceMut::from_mut_slice(&mut out),
    );
    assert_eq!(known, 1);
    assert_eq!(out[0], wrench);
}

#[test]
fn a_joint_whose_parent_and_child_are_one_link_is_skipped() {
    // A nested model's joint (libsdformat loads it; the loader warns): the physics builds
    // the world without it, so the bob, held by nothing else, falls.
    let w = sim_sdf::parse_str(
        r#"<sdf version="1.9"><world name="w"><model name="top"><pose>0 0 2 0 0 0</pose>
        <link name="base"><inertial><mass>1</mass></inertial></link>
        <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
        <model name="arm">
          <link name="bob"><inertial><mass>1</mass></inertial>
            <collision name="c"><geometry><sphere><radius>0.05</radius></sphere></geometry></collision></link>
          <frame name="on_bob" attached_to="bob"/>
          <joint name="loop" type="revolute"><parent>on_bob</parent><child>bob</child><axis><xyz>0 1 0</xyz></axis></joint>
        </model></model></world></sdf>"#,
        None,
    )
    .expect("valid world");
    let mut p = Physics::build(&w).unwrap();
    assert!(
        p.entity_id("top::arm::loop").is_none(),
        "the joint is not built"
    );
    assert!(p.entity_id("top::fix").is_some(), "the other joints are");
    let bob = p.entity_id("top::arm::bob").unwrap();
    for _ in 0..500 {
        p.step();
    }
    let z = p.kinematics_of(bob).unwrap().pose.position.z;
    assert!(z < 1.0, "the bob falls from z = 2: {z}");
}

#[test]
fn a_velocity_command_holds_its_speed_against_a_steady_load() {
    // A free model (impulse joints): a heavy base and a 1 kg wheel (0.01 kg·m² about its
    // axle) in zero gravity, the wheel commanded to 2 rad/s, unbounded, while 5 N·m brake it
    // at every step. A motor as soft as rapier's acceleration-based default gain (1000/s)
    // would settle 0.5 rad/s short (load / (inertia · gain)); the command holds within 1 %.
    let text = r#"<sdf version="1.9"><world name="w"><gravity>0 0 0</gravity>
      <model name="m"><pose>0 0 1 0 0 0</pose>
        <link name="base"><inertial><mass>100</mass><inertia><ixx>10</ixx><iyy>10</iyy><izz>10</izz></inertia></inertial></link>
        <link name="wheel"><pose>0 0.5 0 0 0 0</pose><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
        <joint name="axle" type="revolute"><parent>base</parent><child>wheel</child>
          <axis><xyz>0 1 0</xyz><limit><lower>-1e16</lower><upper>1e16</upper></limit></axis></joint>
      </model></world></sdf>"#;
    let (mut p, axle) = with_entity(text, "m::axle");
    assert_eq!(p.pw.multibody_joints.iter().count(), 0, "impulse joints");
    let wheel = p.entity_id("m::wheel").unwrap();
    p.joint_command(&velocity_command(axle, 2.0, 0.0)).unwrap();
    let mut speeds = Vec::new();
    for i in 0..1000 {
        p.apply(&PhysicsCommand::ApplyWrench(
            wheel,
            Vec3::ZERO,
            Vec3::new(0.0, -5.0, 0.0),
        ))
        .unwrap();
        p.step();
        if i >= 500 {
            speeds.push(p.joint_state(axle).unwrap().velocity[0]);
        }
    }
    let mean = speeds.iter().sum::<f64>() / speeds.len() as f64;
    assert!((mean - 2.0).abs() < 0.02, "holds {mean} rad/s");
}
