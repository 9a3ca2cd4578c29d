//! The 1.x ABI promise, against real libraries: a sensor and a system built against a frozen
//! copy of sim-plugin-api 1.2.0 (the first release of the epoch, vendored under
//! `tests/fixtures/abi_epoch`) load into the current engine and work through every kind of
//! call (publishing, receiving, commands, a service, a run-time parameter). A plugin built
//! against that API without its newest message type is refused (abi_stable refuses an engine
//! whose non-exhaustive `Payload` has more variants than the plugin's), which is why message
//! types are frozen for 1.x; a plugin built against a newer minor version is refused by its
//! version. Every refusal is one line naming why.

use crate::common;

use common::*;
use sim_plugin_api::{EntityId, Message, Payload, Twist, Vec3};

const SENSOR: &str = "simcore_epoch_sensor";
const SYSTEM: &str = "simcore_epoch_system";
const OLDER: &str = "simcore_epoch_older";
const NEWER: &str = "simcore_epoch_newer";

fn refusal(reg: &sim_core::plugins::Registry, lib: &str) -> String {
    let r = reg
        .refused()
        .iter()
        .find(|r| r.path.file_name().unwrap().to_string_lossy() == lib_file(lib))
        .unwrap_or_else(|| panic!("{lib} was not refused: {:?}", reg.refused()))
        .reason
        .clone();
    assert!(!r.contains('\n'), "one line: {r}");
    r
}

#[test]
fn plugins_built_against_the_frozen_1_2_0_load_and_report_their_exact_version() {
    let dir = stage_from(epoch_build_dir(), &[SENSOR, SYSTEM]);
    let reg = registry_in(dir.path());
    assert!(reg.refused().is_empty(), "{:?}", reg.refused());
    assert_eq!(reg.libraries().len(), 2);
    for l in &reg.libraries() {
        assert_eq!(l.abi_version, "1.2.0", "{}", l.file_name);
    }
    assert!(reg.sensor_factory("epoch_probe").is_some());

    let o = simcore(&["plugins", "--plugin-path", dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for lib in [SENSOR, SYSTEM] {
        let line = out
            .lines()
            .find(|l| l.contains(&lib_file(lib)))
            .unwrap_or_else(|| panic!("{lib} not listed:\n{out}"));
        assert!(
            line.ends_with("(built against sim-plugin-api 1.2.0)"),
            "{line}"
        );
    }
    assert!(
        out.contains(&format!(
            "engine: sim-plugin-api {}; loads plugins built against 1.2.0 to",
            sim_core::plugins::env_api_version()
        )),
        "{out}"
    );
    assert!(
        out.contains("and builds of 1.0 and 1.1 whose layouts match (1.1.0's do)):"),
        "the builds from before the epoch that load are named too:\n{out}"
    );
}

#[test]
fn a_frozen_1_2_0_sensor_reads_the_world_casts_rays_and_takes_parameters() {
    let dir = stage_from(epoch_build_dir(), &[SENSOR]);
    let probe = r#"<sensor name="p" type="epoch_probe"><update_rate>100</update_rate><offset>0.25</offset></sensor>"#;
    let model = box_model("box", 1.0, probe).replace(
        "<link name=\"body\">",
        "<static>true</static><link name=\"body\">",
    );
    let mut sim = sim_from(&world(&model), dir.path(), 0, 1);
    let topic = "/world/test/model/box/link/body/sensor/p/epoch_probe";
    let height = sim.bus_mut().subscribe(topic, 100);
    let range = sim.bus_mut().subscribe(&format!("{topic}/range"), 100);
    let count = sim.bus_mut().subscribe(&format!("{topic}/count"), 100);
    for _ in 0..100 {
        sim.step();
    }
    let heights = collect(&height);
    let stamps = update_stamps(10_000_000, 1_000_000, 100);
    assert_eq!(
        heights.len(),
        11,
        "at 100 Hz in 0.1 s: at 1 ms, then every 10 ms"
    );
    for (i, (stamp, seq, p)) in heights.iter().enumerate() {
        assert_eq!((*stamp, *seq), (stamps[i], i as u64));
        assert!(
            matches!(p, Payload::Double(z) if (z - 1.25).abs() < 1e-9),
            "{p:?}"
        );
    }
    // The ground plane is 1 m below the link origin (the box itself is excluded).
    for (_, _, p) in collect(&range) {
        assert!(
            matches!(p, Payload::Double(d) if (d - 1.0).abs() < 1e-6),
            "{p:?}"
        );
    }
    let counts: Vec<_> = collect(&count).into_iter().map(|c| c.2).collect();
    assert!(
        matches!(counts.last(), Some(Payload::Int64(10))),
        "{counts:?}"
    );

    let sensor: EntityId = sim
        .physics()
        .entity_id("box::body::p")
        .expect("the sensor entity");
    sim.set_sensor_parameter(sensor, "offset", "-0.5")
        .expect("the probe takes `offset`");
    let e = sim
        .set_sensor_parameter(sensor, "offset", "high")
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be a number"), "{e}");
    assert!(sim.set_sensor_parameter(sensor, "gain", "1").is_err());
    for _ in 0..10 {
        sim.step();
    }
    let after = collect(&height);
    assert!(
        matches!(after.last(), Some((_, _, Payload::Double(z))) if (z - 0.5).abs() < 1e-9),
        "{after:?}"
    );
}

#[test]
fn a_frozen_1_2_0_system_receives_publishes_commands_and_answers_a_service() {
    let dir = stage_from(epoch_build_dir(), &[SYSTEM]);
    let model = floating_model(
        "cart",
        r#"<plugin filename="simcore_epoch_system" name="simcore::epoch::Relay"/>"#,
    );
    let mut sim = sim_from(&world(&model), dir.path(), 0, 1);
    let sums = sim.bus_mut().subscribe("/epoch/sum", 10_000);
    let input = sim.bus_mut().intern("/epoch/in");
    let cmd = sim.bus_mut().intern("/epoch/cmd");
    for v in [1.5, 2.0] {
        sim.bus_mut()
            .publish(input, Message::new("", Payload::Double(v)));
    }
    let twist = Twist {
        linear: Vec3::new(1.0, 0.0, 0.0),
        ..Default::default()
    };
    sim.bus_mut()
        .publish(cmd, Message::new("", Payload::Twist(twist)));
    for _ in 0..1000 {
        sim.step();
    }
    let s = collect(&sums);
    assert_eq!(s.len(), 1000, "one sum after each step");
    assert!(
        matches!(s.last(), Some((_, _, Payload::Double(x))) if *x == 3.5),
        "{:?}",
        s.last()
    );
    let cart = sim.physics().entity_id("cart").expect("the model");
    let x = sim
        .physics()
        .kinematics_of(cart)
        .expect("the model's state")
        .pose
        .position
        .x;
    assert!((x - 1.0).abs() < 1e-2, "moved by the command to x = {x}");

    let reply = sim
        .call_service("/epoch/scale", &Message::new("", Payload::Double(21.0)))
        .expect("the service answers");
    assert!(
        matches!(reply.payload.as_enum(), Ok(Payload::Double(x)) if *x == 42.0),
        "{reply:?}"
    );
    let e = sim
        .call_service("/epoch/scale", &Message::new("", Payload::Empty))
        .unwrap_err()
        .to_string();
    assert!(e.contains("takes a Double"), "{e}");
}

/// Plugins built before `simcore.output_types.v1` (1.7) declare nothing: what a run serves
/// holds a sensor's own topic and a system's inputs and services from the start, and their
/// other topics once they published there, untyped.
#[test]
fn frozen_1_2_0_plugins_that_declare_nothing_are_served_as_they_publish() {
    use sim_core::runner::{Direction, Served};
    let dir = stage_from(epoch_build_dir(), &[SENSOR, SYSTEM]);
    let probe = r#"<sensor name="p" type="epoch_probe"><update_rate>100</update_rate></sensor>"#;
    let relay = r#"<plugin filename="simcore_epoch_system" name="simcore::epoch::Relay"/>"#;
    let models = format!(
        "{}{}",
        box_model("box", 1.0, probe).replace(
            "<link name=\"body\">",
            "<static>true</static><link name=\"body\">"
        ),
        floating_model("cart", relay)
    );
    let mut sim = sim_from(&world(&models), dir.path(), 0, 1);
    let topic = "/world/test/model/box/link/body/sensor/p/epoch_probe";
    let rows = |s: &Served| -> Vec<(String, Direction, Option<&'static str>, String)> {
        s.topics
            .iter()
            .map(|t| (t.topic.clone(), t.direction, t.kind, t.by.clone()))
            .collect()
    };
    let sensor = "sensor box::body::p".to_string();
    let system = "plugin simcore::epoch::Relay (on cart)".to_string();
    let out = |t: &str, by: &String| (t.to_string(), Direction::Out, None, by.clone());
    let input = |t: &str| (t.to_string(), Direction::In, None, system.clone());
    let before = sim.served();
    assert_eq!(
        rows(&before),
        [input("/epoch/cmd"), input("/epoch/in"), out(topic, &sensor)]
    );
    assert!(
        before
            .services
            .iter()
            .any(|s| s.name == "/epoch/scale" && s.by == system)
    );
    sim.step();
    let after = rows(&sim.served());
    for row in [
        out("/epoch/sum", &system),
        out(&format!("{topic}/range"), &sensor),
        out(&format!("{topic}/count"), &sensor),
    ] {
        assert!(after.contains(&row), "{row:?} in {after:?}");
    }
}

#[test]
fn a_plugin_without_the_newest_message_type_is_refused_saying_why() {
    let dir = stage_from(epoch_build_dir(), &[OLDER, SENSOR]);
    let reg = registry_in(dir.path());
    assert_eq!(
        reg.libraries().len(),
        1,
        "the full 1.2.0 sensor still loads"
    );
    let r = refusal(&reg, OLDER);
    assert!(
        r.contains("built against sim-plugin-api 1.2.0")
            && r.contains("fewer message types (Payload variants) than this engine"),
        "{r}"
    );
}

#[test]
fn a_plugin_built_against_a_newer_minor_version_is_refused_naming_both() {
    let dir = stage_from(epoch_build_dir(), &[NEWER]);
    let reg = registry_in(dir.path());
    assert!(reg.libraries().is_empty());
    let r = refusal(&reg, NEWER);
    let engine = sim_core::plugins::env_api_version();
    assert!(
        r.contains("built against sim-plugin-api 1.99.0")
            && r.contains(&format!("newer than this engine's {engine}")),
        "{r}"
    );
}
