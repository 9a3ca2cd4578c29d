//! gz-sim's systems that read and push bodies, each loaded as a real library by its gz file
//! name in a real world and checked against mechanics worked out by hand:
//!
//! - JointStatePublisher: a pendulum's published angle is the engine's, and swings as
//!   a half period (from its amplitude, `ω = sqrt(m g d / I)` and the elliptic integral)
//!   after its release it is as far out on the other side;
//! - ApplyLinkWrench: a free body accelerates at `F/m` and spins up at `τ/I`;
//! - Buoyancy: a box of half the water's density floats half submerged;
//! - Thruster: the thrust of a spin `ω` is `Ct ρ D⁴ ω²`;
//! - DetachableJoint: a held box falls freely once detached.

use crate::common;

use common::joints::run_steps;
use common::*;
use serde_json::Value;
use sim_core::runner::Simulation;
use sim_plugin_api::{
    CustomMessage, Message, Payload, SharedStr,
    abi_stable::std_types::{RBox, RVec},
};

/// The JSON document of a `Custom` payload of schema `schema`.
fn json_of(p: &Payload, schema: &str) -> Value {
    match p {
        Payload::Custom(c) => {
            assert_eq!(c.schema.as_str(), schema);
            assert_eq!(c.encoding.as_str(), "json");
            serde_json::from_slice(&c.data).expect("valid JSON")
        }
        other => panic!("not a custom message: {other:?}"),
    }
}

/// A pendulum: a 1 kg bob 1 m below a pivot 2 m up (inertia 0.001 kg m² about its centre),
/// hinged to the world about y, released at `theta0` rad; a second link welded to the bob.
fn pendulum(theta0: f64, plugin: &str) -> String {
    format!(
        r#"<model name="pendulum">
      <link name="arm"><pose>0 0 2 0 {theta0} 0</pose>
        <inertial><pose>0 0 -1 0 0 0</pose><mass>1</mass>
          <inertia><ixx>0.001</ixx><iyy>0.001</iyy><izz>0.001</izz></inertia></inertial>
      </link>
      <link name="tag"><pose>0 0 2 0 {theta0} 0</pose>
        <inertial><pose>0 0 -1 0 0 0</pose><mass>0.01</mass>
          <inertia><ixx>1e-4</ixx><iyy>1e-4</iyy><izz>1e-4</izz></inertia></inertial>
      </link>
      <joint name="hinge" type="revolute"><parent>world</parent><child>arm</child>
        <axis><xyz>0 1 0</xyz></axis></joint>
      <joint name="weld" type="fixed"><parent>arm</parent><child>tag</child></joint>
      {plugin}
    </model>"#
    )
}

const JSP: &str = r#"filename="gz-sim-joint-state-publisher-system" name="gz::sim::systems::JointStatePublisher""#;

#[test]
fn joint_state_publisher_reports_the_pendulum_as_it_swings() {
    let dir = stage(&["simcore_plugin_joint_state_publisher"]);
    // Released 0.5 rad out (slower swings fall under the engine's sleep thresholds).
    let theta0: f64 = 0.5;
    let mut sim = sim_from(
        &world(&pendulum(theta0, &format!("<plugin {JSP}/>"))),
        dir.path(),
        0,
        1,
    );
    let sub = sim
        .bus_mut()
        .subscribe("/world/test/model/pendulum/joint_state", 10_000);
    let hinge = sim.physics().entity_id("pendulum::hinge").unwrap();
    // The period of a pendulum of amplitude θ0: 4 K(sin(θ0/2)) / ω with ω = sqrt(m g d / I)
    // about the pivot (I = m d² + I_c) and K(k) = π / (2 AGM(1, sqrt(1 − k²))).
    let omega = (9.8f64 / 1.001).sqrt();
    let (mut a, mut b) = (1.0f64, (1.0 - (theta0 / 2.0).sin().powi(2)).sqrt());
    for _ in 0..20 {
        (a, b) = ((a + b) / 2.0, (a * b).sqrt());
    }
    let k = std::f64::consts::PI / (2.0 * a);
    let half_period = 2.0 * k / omega;
    let steps = (half_period / 0.001).round() as usize;
    let mut last = None;
    for _ in 0..steps {
        run_steps(&mut sim, 1);
        let truth = sim.physics().joint_state(hinge).unwrap();
        let got = collect(&sub);
        assert_eq!(got.len(), 1, "one message per step");
        let v = json_of(&got[0].2, "gz.msgs.Model");
        assert_eq!(v["name"], "pendulum");
        let joints = v["joint"].as_array().unwrap();
        let names: Vec<&str> = joints.iter().map(|j| j["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            ["hinge", "weld"],
            "every joint of the model, in order"
        );
        assert!(
            joints[1].get("axis1").is_none(),
            "a fixed joint has no axis"
        );
        let a = &joints[0]["axis1"];
        // JSON text keeps 17 significant digits: the last bit may round.
        assert!((a["position"].as_f64().unwrap() - truth.position[0]).abs() < 1e-12);
        assert!((a["velocity"].as_f64().unwrap() - truth.velocity[0]).abs() < 1e-12);
        last = Some(truth.position[0]);
    }
    // Half a period after the release it is at the other side: θ = −2 θ0.
    let at_half = last.unwrap();
    println!(
        "after half a period ({half_period:.4} s): {at_half:.5} rad, expected {:.5}",
        -2.0 * theta0
    );
    assert!(
        (at_half + 2.0 * theta0).abs() < 0.01 * 2.0 * theta0,
        "{at_half}"
    );
}

#[test]
fn joint_state_publisher_publishes_the_named_joints_on_its_topic() {
    let dir = stage(&["simcore_plugin_joint_state_publisher"]);
    let plugin = format!(
        "<plugin {JSP}><joint_name>hinge</joint_name><joint_name>nope</joint_name>\
         <joint_name>hinge</joint_name><topic>/arm/states</topic></plugin>"
    );
    let mut sim = sim_from(&world(&pendulum(0.1, &plugin)), dir.path(), 0, 1);
    let sub = sim.bus_mut().subscribe("/arm/states", 100);
    run_steps(&mut sim, 3);
    let got = collect(&sub);
    assert_eq!(got.len(), 3);
    let v = json_of(&got[2].2, "gz.msgs.Model");
    let joints = v["joint"].as_array().unwrap();
    assert_eq!(
        joints.len(),
        1,
        "the missing joint left out, the repeated one once: {v}"
    );
    assert_eq!(joints[0]["name"], "hinge");
    assert!(
        joints[0]["axis1"]["position"].as_f64().unwrap() < 0.0,
        "it falls"
    );
    assert_eq!(got[2].0, 3_000_000, "stamped with the sim time");
}

/// A `Custom` JSON message of `schema`.
fn custom(schema: &str, json: &str) -> Message {
    Message::new(
        "",
        Payload::Custom(RBox::new(CustomMessage {
            schema: SharedStr::new(schema),
            encoding: SharedStr::new("json"),
            data: RVec::from(json.as_bytes().to_vec()),
        })),
    )
}

fn send(sim: &mut Simulation, topic: &str, m: Message) {
    let t = sim.bus_mut().intern(topic);
    sim.bus_mut().publish(t, m);
}

#[test]
fn apply_link_wrench_accelerates_at_f_over_m_and_spins_at_tau_over_i() {
    let dir = stage(&["simcore_plugin_apply_link_wrench"]);
    // 2 kg, izz 0.5 kg m² about a centre of mass 0.1 m off the link origin, no gravity: the
    // persistent force acts at the centre of mass, so it pushes without turning.
    let model = r#"<model name="free"><pose>0 0 5 0 0 0</pose>
      <link name="body"><gravity>false</gravity>
        <inertial><pose>0 0.1 0 0 0 0</pose><mass>2</mass>
          <inertia><ixx>0.5</ixx><iyy>0.5</iyy><izz>0.5</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>
      </link>
    </model>
    <plugin filename="gz-sim-apply-link-wrench-system" name="gz::sim::systems::ApplyLinkWrench">
      <persistent><entity_name>free</entity_name><entity_type>model</entity_type><force>4 0 0</force></persistent>
      <persistent><entity_name>free</entity_name></persistent>
    </plugin>"#;
    let mut sim = sim_from(&world(model), dir.path(), 0, 1);
    let link = sim.physics().entity_id("free::body").unwrap();
    let com_state = |sim: &Simulation| {
        let k = sim.physics().kinematics_of(link).unwrap();
        k.at_offset(sim_plugin_api::Pose::new(
            sim_plugin_api::Vec3::new(0.0, 0.1, 0.0),
            sim_plugin_api::Quat::default(),
        ))
    };
    run_steps(&mut sim, 1000);
    let k = com_state(&sim);
    println!(
        "after 1 s of 4 N on 2 kg: v {:?}, w {:?}",
        k.linear_velocity, k.angular_velocity
    );
    assert!((k.linear_velocity.x - 2.0).abs() < 0.01 * 2.0, "{k:?}");
    assert!(
        k.angular_velocity.length() < 1e-6,
        "a force at the centre of mass does not turn it: {k:?}"
    );
    // One-step torques, every step for 0.5 s: ω = τ t / I = 1.
    for _ in 0..500 {
        send(
            &mut sim,
            "/world/test/wrench",
            custom(
                "gz.msgs.EntityWrench",
                r#"{"entity": {"name": "free::body", "type": "LINK"}, "wrench": {"torque": {"z": 1}}}"#,
            ),
        );
        run_steps(&mut sim, 1);
    }
    let k = com_state(&sim);
    println!(
        "after 0.5 s of 1 N m on 0.5 kg m²: w {:?}, v {:?}",
        k.angular_velocity, k.linear_velocity
    );
    assert!((k.angular_velocity.z - 1.0).abs() < 0.01, "{k:?}");
    assert!(
        (k.linear_velocity.length() - 3.0).abs() < 0.01 * 3.0,
        "{k:?}"
    );
    // Cleared: the body coasts (a torque left on would add 0.6 rad/s in 0.3 s; rapier's f32
    // integration of the spin drifts by about 1e-3).
    send(
        &mut sim,
        "/world/test/wrench/clear",
        custom("gz.msgs.Entity", r#"{"name": "free", "type": "MODEL"}"#),
    );
    run_steps(&mut sim, 1);
    let before = com_state(&sim);
    run_steps(&mut sim, 300);
    let after = com_state(&sim);
    assert!(
        (after.linear_velocity - before.linear_velocity).length() < 1e-6,
        "{before:?} {after:?}"
    );
    assert!(
        (after.angular_velocity.z - before.angular_velocity.z).abs() < 5e-3,
        "{before:?} {after:?}"
    );
}

/// A world `test` without ground, holding `body`.
fn open_world(body: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="test">
    <physics type="ode"><max_step_size>0.001</max_step_size><real_time_factor>0</real_time_factor></physics>
    {body}
  </world>
</sdf>"#
    )
}

/// A 1 m box of `mass` kg at height `z`, its motion damped (`<velocity_decay>`) by `decay`.
fn cube(name: &str, z: f64, mass: f64, decay: f64) -> String {
    let i = mass / 6.0;
    format!(
        r#"<model name="{name}"><pose>0 0 {z} 0 0 0</pose>
      <link name="body">
        <velocity_decay><linear>{decay}</linear><angular>{decay}</angular></velocity_decay>
        <inertial><mass>{mass}</mass><inertia><ixx>{i}</ixx><iyy>{i}</iyy><izz>{i}</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
      </link>
    </model>"#
    )
}

const BUOYANCY: &str = r#"filename="gz-sim-buoyancy-system" name="gz::sim::systems::Buoyancy""#;

#[test]
fn buoyancy_floats_a_box_of_half_the_waters_density_half_submerged() {
    let dir = stage(&["simcore_plugin_buoyancy"]);
    // Water below z = 0, air above; 500 kg in 1 m³, dropped in from 0.3 m up.
    let plugin = format!(
        r#"<plugin {BUOYANCY}><graded_buoyancy><default_density>1000</default_density>
          <density_change><above_depth>0</above_depth><density>1</density></density_change>
        </graded_buoyancy></plugin>"#
    );
    let text = open_world(&format!("{}{plugin}", cube("crate", 0.3, 500.0, 3.0)));
    let mut sim = sim_from(&text, dir.path(), 0, 1);
    let link = sim.physics().entity_id("crate::body").unwrap();
    run_steps(&mut sim, 8000);
    let k = sim.physics().kinematics_of(link).unwrap();
    // Submerged: from the bottom face (z − 0.5) up to the surface at 0. Equilibrium:
    // 1000 V_w + 1 (1 − V_w) = 500, V_w = 499/999.
    let submerged = 0.5 - k.pose.position.z;
    println!(
        "submerged fraction {submerged:.5} (expected {:.5}), v {:?}",
        499.0 / 999.0,
        k.linear_velocity
    );
    assert!((submerged - 0.5).abs() < 0.02 * 0.5, "{k:?}");
    assert!(k.linear_velocity.length() < 1e-2, "at rest: {k:?}");
    assert!(k.angular_velocity.length() < 1e-3, "upright: {k:?}");
}

/// An ASCII STL of the unit cube centred on the origin.
fn cube_stl() -> String {
    let mut s = String::from("solid cube\n");
    let v = |i: usize| -> [f64; 3] {
        [
            ((i & 1) as f64) - 0.5,
            (((i >> 1) & 1) as f64) - 0.5,
            (((i >> 2) & 1) as f64) - 0.5,
        ]
    };
    // Two triangles per face, as corner indices (bit 0: x, bit 1: y, bit 2: z).
    let faces = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    for f in faces {
        for t in [[f[0], f[1], f[2]], [f[0], f[2], f[3]]] {
            s.push_str("facet normal 0 0 0\nouter loop\n");
            for i in t {
                let p = v(i);
                s.push_str(&format!("vertex {} {} {}\n", p[0], p[1], p[2]));
            }
            s.push_str("endloop\nendfacet\n");
        }
    }
    s.push_str("endsolid cube\n");
    s
}

#[test]
fn buoyancy_in_a_uniform_fluid_lifts_boxes_and_meshes_by_their_volume() {
    let dir = stage(&["simcore_plugin_buoyancy"]);
    let stl = dir.path().join("cube.stl");
    std::fs::write(&stl, cube_stl()).unwrap();
    // 250 kg in 1 m³ of a fluid of 1000 kg/m³: a = g (ρ V / m − 1) = 3 g upwards, for the
    // box and for the mesh of the same cube (its hull's volume).
    let mesh = r#"<model name="mesh"><pose>5 0 0 0 0 0</pose>
      <link name="body">
        <inertial><mass>250</mass><inertia><ixx>41.7</ixx><iyy>41.7</iyy><izz>41.7</izz></inertia></inertial>
        <collision name="c"><geometry><mesh><uri>cube.stl</uri></mesh></geometry></collision>
      </link>
    </model>"#;
    let text = open_world(&format!(
        "{}{mesh}<plugin {BUOYANCY}><uniform_fluid_density>1000</uniform_fluid_density></plugin>",
        cube("crate", 0.0, 250.0, 0.0)
    ));
    // The world is read as a file beside the mesh, which it may then read.
    let file = dir.path().join("fluid.sdf");
    let parsed = sim_core::sdf::parse_str(&text, Some(&file))
        .unwrap_or_else(|e| panic!("{}", e.render(None)));
    let mut sim = Simulation::new(
        parsed,
        registry_in(dir.path()),
        &sim_core::runner::SimOptions {
            seed: 0,
            threads: 1,
        },
    )
    .expect("loads");
    run_steps(&mut sim, 100);
    for name in ["crate::body", "mesh::body"] {
        let id = sim.physics().entity_id(name).unwrap();
        let k = sim.physics().kinematics_of(id).unwrap();
        let expected = 3.0 * 9.8 * 0.1;
        println!("{name}: v {:?}, expected {expected}", k.linear_velocity);
        assert!(
            (k.linear_velocity.z - expected).abs() < 0.01 * expected,
            "{name}: {k:?}"
        );
        assert!(
            k.angular_velocity.length() < 1e-6,
            "{name}: pushed at its centre: {k:?}"
        );
    }
}

/// A 10 kg hull without gravity carrying a 0.1 kg propeller on the revolute joint `prop`
/// about x, with the thruster `plugin` settings.
fn submarine(plugin: &str) -> String {
    open_world(&format!(
        r#"<model name="sub"><pose>0 0 0 0 0 0</pose>
      <link name="hull"><gravity>false</gravity>
        <inertial><mass>10</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial>
      </link>
      <link name="propeller"><pose>-0.5 0 0 0 0 0</pose><gravity>false</gravity>
        <inertial><mass>0.1</mass><inertia><ixx>0.001</ixx><iyy>0.001</iyy><izz>0.001</izz></inertia></inertial>
      </link>
      <joint name="prop" type="revolute"><parent>hull</parent><child>propeller</child>
        <axis><xyz>1 0 0</xyz><limit><lower>-1e16</lower><upper>1e16</upper></limit></axis></joint>
      <plugin filename="gz-sim-thruster-system" name="gz::sim::systems::Thruster">
        <joint_name>prop</joint_name><thrust_coefficient>0.004</thrust_coefficient>
        <fluid_density>1000</fluid_density><propeller_diameter>0.2</propeller_diameter>
        {plugin}
      </plugin>
    </model>"#
    ))
}

/// The hull's speed along x after `steps` with `value` sent once on `topic` first, and the
/// last feedback on `feedback`.
fn run_thruster(plugin: &str, topic: &str, value: f64, feedback: &str, steps: usize) -> (f64, f64) {
    let dir = stage(&["simcore_plugin_thruster"]);
    let mut sim = sim_from(&submarine(plugin), dir.path(), 0, 1);
    let fb = sim.bus_mut().subscribe(feedback, 100_000);
    send(&mut sim, topic, Message::new("", Payload::Double(value)));
    run_steps(&mut sim, steps);
    let hull = sim.physics().entity_id("sub::hull").unwrap();
    let v = sim.physics().kinematics_of(hull).unwrap().linear_velocity;
    assert!(
        v.y.abs() < 1e-6 && v.z.abs() < 1e-6,
        "along the axis only: {v:?}"
    );
    let last = match collect(&fb).last() {
        Some((_, _, Payload::Double(x))) => *x,
        other => panic!("no feedback on {feedback}: {other:?}"),
    };
    (v.x, last)
}

#[test]
fn thruster_pushes_with_the_thrust_of_its_spin() {
    // ω = 50 rad/s: T = Ct ρ D⁴ ω² = 0.004 · 1000 · 0.0016 · 2500 = 16 N on 10.1 kg.
    let (v, force) = run_thruster(
        "<use_angvel_cmd>true</use_angvel_cmd><velocity_control>true</velocity_control>",
        "/model/sub/joint/prop/cmd_vel",
        50.0,
        "/model/sub/joint/prop/force",
        1000,
    );
    println!("after 1 s at 50 rad/s: {v:.4} m/s, thrust {force}");
    assert!((force - 16.0).abs() < 1e-9, "{force}");
    let expected = 16.0 / 10.1;
    assert!((v - expected).abs() < 0.01 * expected, "{v} vs {expected}");
}

#[test]
fn thruster_clamps_a_thrust_command_and_spins_the_propeller_up() {
    // 8 N asked, 5 N allowed, pushing 10.1 kg for 1 s; the propeller spins towards
    // ω = sqrt(T / (ρ Ct D⁴)) = sqrt(5 / 0.0064) ≈ 27.95 rad/s.
    let (v, spin) = run_thruster(
        "<max_thrust_cmd>5</max_thrust_cmd><p_gain>0.01</p_gain>",
        "/model/sub/joint/prop/cmd_thrust",
        8.0,
        "/model/sub/joint/prop/ang_vel",
        1000,
    );
    println!("after 1 s of 5 N: {v:.4} m/s, propeller at {spin:.3} rad/s");
    let expected = 5.0 / 10.1;
    assert!((v - expected).abs() < 0.01 * expected, "{v} vs {expected}");
    let target = (5.0f64 / 0.0064).sqrt();
    assert!(
        spin > 0.0 && spin < target + 0.2,
        "spinning up towards {target}: {spin}"
    );
}

#[test]
fn detachable_joint_holds_a_box_that_falls_freely_once_detached() {
    let dir = stage(&["simcore_plugin_detachable_joint"]);
    let models = r#"<model name="crane"><static>true</static><pose>0 0 5 0 0 0</pose>
      <link name="hook"><collision name="c"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></collision></link>
      <plugin filename="gz-sim-detachable-joint-system" name="gz::sim::systems::DetachableJoint">
        <parent_link>hook</parent_link><child_model>cargo</child_model><child_link>body</child_link>
      </plugin>
    </model>
    <model name="cargo"><pose>0 0 4.5 0 0 0</pose>
      <link name="body">
        <inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>
      </link>
    </model>"#;
    let mut sim = sim_from(&world(models), dir.path(), 0, 1);
    let state = sim
        .bus_mut()
        .subscribe("/model/crane/detachable_joint/state", 100);
    let body = sim.physics().entity_id("cargo::body").unwrap();
    let z = |sim: &Simulation| sim.physics().kinematics_of(body).unwrap().pose.position.z;
    let texts = |sub| -> Vec<String> {
        collect(sub)
            .into_iter()
            .map(|(_, _, p)| match p {
                Payload::Text(t) => t.to_string(),
                other => panic!("{other:?}"),
            })
            .collect()
    };
    run_steps(&mut sim, 500);
    assert_eq!(texts(&state), ["attached"]);
    assert!((z(&sim) - 4.5).abs() < 1e-3, "held: {}", z(&sim));
    send(
        &mut sim,
        "/model/crane/detachable_joint/detach",
        Message::new("", Payload::Empty),
    );
    run_steps(&mut sim, 500);
    assert_eq!(texts(&state), ["detached"]);
    // Free fall from rest for 0.5 s: g t² / 2.
    let drop = 4.5 - z(&sim);
    println!("fell {drop:.4} m in 0.5 s, expected {:.4}", 9.8 * 0.125);
    assert!((drop - 9.8 * 0.125).abs() < 0.02 * 9.8 * 0.125, "{drop}");
    // Attached again where it is: it stops there.
    send(
        &mut sim,
        "/model/crane/detachable_joint/attach",
        Message::new("", Payload::Empty),
    );
    run_steps(&mut sim, 10);
    let held = z(&sim);
    run_steps(&mut sim, 300);
    assert_eq!(texts(&state), ["attached"]);
    assert!(
        (z(&sim) - held).abs() < 1e-2,
        "held again: {held} then {}",
        z(&sim)
    );
}
