//! A jointed model for the joint controller tests, and reading and commanding its joint.

use sim_core::runner::Simulation;
use sim_plugin_api::{Message, Payload};

/// A turntable fixed to the world: a disc (izz 0.01 kg m²) on the revolute joint `spin`
/// about z, so that gravity does not load it, in the model `table`; `plugins` are its
/// `<plugin>` elements.
pub fn turntable(plugins: &str) -> String {
    format!(
        r#"<model name="table"><pose>0 0 0.5 0 0 0</pose>
      <link name="base"><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
      <link name="disc"><pose>0 0 0.1 0 0 0</pose>
        <inertial><mass>2</mass><inertia><ixx>0.005</ixx><iyy>0.005</iyy><izz>0.01</izz></inertia></inertial>
        <collision name="c"><geometry><cylinder><radius>0.1</radius><length>0.02</length></cylinder></geometry></collision>
      </link>
      <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
      <joint name="spin" type="revolute"><parent>base</parent><child>disc</child><axis><xyz>0 0 1</xyz></axis></joint>
      {plugins}
    </model>"#
    )
}

/// Position and velocity of the joint `scoped` (axis 0).
pub fn joint(sim: &Simulation, scoped: &str) -> (f64, f64) {
    let id = sim.physics().entity_id(scoped).unwrap();
    let s = sim.physics().joint_state(id).unwrap();
    (s.position[0], s.velocity[0])
}

/// Publishes `Double(v)` on `topic`.
pub fn send_double(sim: &mut Simulation, topic: &str, v: f64) {
    let t = sim.bus_mut().intern(topic);
    sim.bus_mut()
        .publish(t, Message::new("", Payload::Double(v)));
}

/// Steps `n` times, failing on any plugin failure.
pub fn run_steps(sim: &mut Simulation, n: usize) {
    for _ in 0..n {
        let f = sim.step();
        assert!(f.is_empty(), "{f:?}");
    }
}
