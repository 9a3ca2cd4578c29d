//! gz-sim's LiftDrag, loaded as a real library by its gz file name on a real falling body: a
//! plate whose drag coefficient is `cda · a0` falls at the terminal speed where drag balances
//! its weight, `v = sqrt(2 m g / (ρ A cd))`.

use crate::common;

use common::joints::run_steps;
use common::*;

#[test]
fn a_falling_plate_reaches_its_terminal_speed() {
    let dir = stage(&["simcore_plugin_lift_drag"]);
    // Forward is down (the way it falls), no lift (cla 0); at the zero-lift angle a0 = 0.5 the
    // drag coefficient is cda · a0 = 0.5.
    let model = r#"<model name="plate"><pose>0 0 200 0 0 0</pose>
      <link name="body">
        <inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>1 1 0.01</size></box></geometry></collision>
      </link>
      <plugin filename="gz-sim-lift-drag-system" name="gz::sim::systems::LiftDrag">
        <link_name>body</link_name><forward>0 0 -1</forward><upward>1 0 0</upward>
        <cla>0</cla><cda>1</cda><a0>0.5</a0><area>1</area><air_density>1.2041</air_density>
      </plugin>
    </model>"#;
    let mut sim = sim_from(&world(model), dir.path(), 0, 1);
    let speed = |sim: &sim_core::runner::Simulation| {
        let id = sim.physics().entity_id("plate::body").unwrap();
        sim.physics().kinematics_of(id).unwrap().linear_velocity
    };
    let g = 9.8;
    let terminal = (2.0 * 1.0 * g / (1.2041 * 1.0 * 0.5f64)).sqrt();
    // Drag ∝ v²: v(t) = vt tanh(g t / vt); after 0.5 s it is still nearly free fall.
    run_steps(&mut sim, 500);
    let v = -speed(&sim).z;
    let expected = terminal * (g * 0.5 / terminal).tanh();
    println!("after 0.5 s: {v:.4} m/s, expected {expected:.4}");
    assert!((v - expected).abs() < 0.02 * expected, "{v}");
    run_steps(&mut sim, 4500);
    let w = speed(&sim);
    println!("after 5 s: {:.4} m/s, terminal {terminal:.4}", -w.z);
    assert!((-w.z - terminal).abs() < 0.01 * terminal, "{w:?}");
    assert!(w.x.abs() < 1e-6 && w.y.abs() < 1e-6, "no lift: {w:?}");
}
