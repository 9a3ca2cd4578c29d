//! gz-sim's systems that read and push bodies, each loaded as a real library by its gz file
//! name in a real world and checked against mechanics worked out by hand:
//!
//! - JointStatePublisher: a pendulum's published angle is the engine's, and swings as
//!   `θ(t) = θ0 (cos ωt − 1)` with `ω = sqrt(m g d / I)`;
//! - ApplyLinkWrench: a free body accelerates at `F/m` and spins up at `τ/I`;
//! - Buoyancy: a box of half the water's density floats half submerged.

mod common;

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
        <inertial><pose>0 0 -1 0 0 0</pose><mass>0.001</mass>
          <inertia><ixx>1e-6</ixx><iyy>1e-6</iyy><izz>1e-6</izz></inertia></inertial>
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
    let theta0 = 0.05;
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
    // ω = sqrt(m g d / I) about the pivot: I = m d² + I_c.
    let omega = (9.8f64 / 1.001).sqrt();
    let half_period = std::f64::consts::PI / omega;
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
        (at_half + 2.0 * theta0).abs() < 0.03 * 2.0 * theta0,
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
