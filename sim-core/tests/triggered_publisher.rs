//! gz-sim's TriggeredPublisher, loaded as a real library by its gz file name in a real world:
//! a matching input publishes the outputs written in protobuf text format (after `<delay_ms>`
//! of sim time), a message that does not match publishes nothing.

use crate::common;

use common::joints::run_steps;
use common::*;
use sim_core::runner::Simulation;
use sim_plugin_api::{Message, Payload};

fn sim(plugin: &str) -> (Simulation, tempfile::TempDir) {
    let dir = stage(&["simcore_plugin_triggered_publisher"]);
    let text = world(&format!(
        r#"<plugin filename="gz-sim-triggered-publisher-system" name="gz::sim::systems::TriggeredPublisher">{plugin}</plugin>"#
    ));
    (sim_from(&text, dir.path(), 0, 1), dir)
}

fn send(sim: &mut Simulation, topic: &str, p: Payload) {
    let t = sim.bus_mut().intern(topic);
    sim.bus_mut().publish(t, Message::new("", p));
}

#[test]
fn a_match_publishes_the_outputs() {
    let (mut sim, _dir) = sim(
        r#"<input type="gz.msgs.Boolean" topic="/start"><match>data: true</match></input>
           <output type="gz.msgs.Twist" topic="/cmd_vel">linear: {x: 0.5}, angular: {z: -0.2}</output>
           <output type="gz.msgs.Empty" topic="/started"/>"#,
    );
    let twist = sim.bus_mut().subscribe("/cmd_vel", 100);
    let started = sim.bus_mut().subscribe("/started", 100);
    run_steps(&mut sim, 5);
    send(&mut sim, "/start", Payload::Boolean(false));
    run_steps(&mut sim, 5);
    assert!(
        collect(&twist).is_empty() && collect(&started).is_empty(),
        "false does not match"
    );
    send(&mut sim, "/start", Payload::Boolean(true));
    run_steps(&mut sim, 2);
    let got = collect(&twist);
    assert_eq!(got.len(), 1);
    match &got[0].2 {
        Payload::Twist(t) => assert!(t.linear.x == 0.5 && t.angular.z == -0.2, "{t:?}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        collect(&started).as_slice(),
        [(_, _, Payload::Empty)]
    ));
}

#[test]
fn delay_ms_is_sim_time() {
    let (mut sim, _dir) = sim(
        r#"<input type="gz.msgs.Int32" topic="/key"><match field="data">87</match></input>
           <output type="gz.msgs.Double" topic="/speed">data: 1.5</output>
           <delay_ms>100</delay_ms>"#,
    );
    let out = sim.bus_mut().subscribe("/speed", 100);
    run_steps(&mut sim, 10);
    send(&mut sim, "/key", Payload::Int64(65));
    send(&mut sim, "/key", Payload::Int64(87));
    let sent_at = sim.time().nanos;
    run_steps(&mut sim, 99);
    assert!(collect(&out).is_empty(), "not before 100 ms");
    run_steps(&mut sim, 2);
    let got = collect(&out);
    assert_eq!(got.len(), 1, "one match, one output");
    assert!(matches!(got[0].2, Payload::Double(v) if v == 1.5));
    let after = got[0].0 - sent_at;
    assert!(
        (99_000_000..=101_000_000).contains(&after),
        "published {after} ns after"
    );
}

#[test]
fn an_unusable_configuration_leaves_the_world_running() {
    // gz-sim: an input type it cannot make is reported, and the plugin does nothing.
    let (mut sim, _dir) = sim(
        r#"<input type="gz.msgs.NonExtentType" topic="/in"/><output type="gz.msgs.Empty" topic="/out"/>"#,
    );
    let out = sim.bus_mut().subscribe("/out", 10);
    send(&mut sim, "/in", Payload::Empty);
    run_steps(&mut sim, 10);
    assert!(collect(&out).is_empty());
}
