//! The sensor manager's timing rules, with the real altimeter and fixture plugins loaded from
//! their shared libraries and a real rapier world. Sensors update after each physics step,
//! stamped with its end time, as gz-sim's sensor systems do: a sensor's next update time
//! starts at 0, so its first update is at the first step, then one every period.

use crate::common;

use common::*;
use sim_plugin_api::{Message, Payload};

const TOPIC: &str = "/world/test/model/box/link/body/sensor/s/altimeter";
const PROBE: &str = "simcore_plugin_altimeter";

/// The probe sensor: an altimeter named `name` at `rate`, with `extra` inside `<sensor>`.
fn probe(name: &str, rate: f64, extra: &str) -> String {
    format!(
        r#"<sensor name="{name}" type="altimeter"><update_rate>{rate}</update_rate>{extra}</sensor>"#
    )
}

fn updates_in_one_second(rate: f64) -> Vec<(i64, u64, Payload)> {
    let dir = stage(&[PROBE]);
    let mut sim = sim_from(
        &world(&box_model("box", 0.1, &probe("s", rate, ""))),
        dir.path(),
        0,
        1,
    );
    let sub = sim.bus_mut().subscribe(TOPIC, 10_000);
    for _ in 0..1000 {
        sim.step();
    }
    collect(&sub)
}

#[test]
fn ten_hertz_updates_at_the_first_step_then_every_tenth_of_a_second() {
    let u = updates_in_one_second(10.0);
    let stamps: Vec<i64> = u.iter().map(|x| x.0).collect();
    let mut expected = vec![1_000_000];
    expected.extend((1..=10).map(|k| k * 100_000_000));
    assert_eq!(stamps, expected);
}

#[test]
fn zero_and_negative_rates_update_every_step() {
    assert_eq!(updates_in_one_second(0.0).len(), 1000);
    assert_eq!(updates_in_one_second(-3.0).len(), 1000);
}

/// The period is exact: the thirtieth period ends at 1 s, where Gazebo's, truncated to 33 ms,
/// ends at 990 ms.
#[test]
fn thirty_hertz_is_exactly_thirty_not_thirty_point_three() {
    let stamps: Vec<i64> = updates_in_one_second(30.0).iter().map(|x| x.0).collect();
    assert_eq!(stamps.len(), 31, "{stamps:?}");
    assert_eq!(stamps[30], 1_000_000_000, "{stamps:?}");
    assert!(
        stamps[1..].windows(2).all(|w| w[1] - w[0] >= 33_000_000),
        "{stamps:?}"
    );
}

#[test]
fn seq_counts_from_zero_per_sensor() {
    let u = updates_in_one_second(50.0);
    let seqs: Vec<u64> = u.iter().map(|x| x.1).collect();
    assert_eq!(seqs, (0..51).collect::<Vec<_>>());
}

#[test]
fn inactive_sensor_never_updates_but_a_forced_update_runs() {
    let dir = stage(&[PROBE]);
    let sensor = probe("s", 0.0, "<active>false</active>");
    let mut sim = sim_from(&world(&box_model("box", 0.1, &sensor)), dir.path(), 0, 1);
    let sub = sim.bus_mut().subscribe(TOPIC, 10_000);
    for _ in 0..100 {
        sim.step();
    }
    assert!(collect(&sub).is_empty(), "an inactive sensor published");
    let id = sim
        .physics()
        .entity_id("box::body::s")
        .expect("sensor entity");
    assert!(sim.sensors_mut().force_update(id));
    sim.step();
    sim.step();
    let u = collect(&sub);
    assert_eq!(u.len(), 1, "a forced update runs once");
    assert_eq!(u[0].0, 101_000_000, "at the end of the next step");
}

#[test]
fn triggered_sensor_updates_only_after_a_trigger_message() {
    let dir = stage(&[PROBE]);
    let sensor = probe("s", 100.0, "<triggered>true</triggered>");
    let mut sim = sim_from(&world(&box_model("box", 0.1, &sensor)), dir.path(), 0, 1);
    let sub = sim.bus_mut().subscribe(TOPIC, 10_000);
    for _ in 0..50 {
        sim.step();
    }
    assert!(
        collect(&sub).is_empty(),
        "a triggered sensor updated without a trigger"
    );
    let trigger = sim.bus_mut().intern(&format!("{TOPIC}/trigger"));
    sim.bus_mut()
        .publish(trigger, Message::new("", Payload::Boolean(true)));
    for _ in 0..50 {
        sim.step();
    }
    let u = collect(&sub);
    assert_eq!(u.len(), 1, "one trigger, one update");
    assert_eq!(
        u[0].0, 51_000_000,
        "it updates at the end of the first step after the trigger"
    );
    // Two triggers before one step still give one update.
    sim.bus_mut()
        .publish(trigger, Message::new("", Payload::Boolean(true)));
    sim.bus_mut()
        .publish(trigger, Message::new("", Payload::Boolean(true)));
    sim.step();
    sim.step();
    assert_eq!(collect(&sub).len(), 1);
}

#[test]
fn frame_id_topic_and_metrics() {
    let dir = stage(&[PROBE]);
    let sensor = probe(
        "s",
        100.0,
        "<topic>custom/imu</topic><frame_id>imu_frame</frame_id><enable_metrics>true</enable_metrics>",
    );
    let mut sim = sim_from(&world(&box_model("box", 0.1, &sensor)), dir.path(), 0, 1);
    let sub = sim.bus_mut().subscribe("/custom/imu", 100);
    let metrics = sim
        .bus_mut()
        .subscribe("/custom/imu/performance_metrics", 100);
    for _ in 0..100 {
        sim.step();
    }
    let msgs = sub.drain();
    assert_eq!(msgs.len(), 11, "at 1 ms, then every 10 ms to 100 ms");
    assert!(
        msgs.iter()
            .all(|m| m.message.header.frame_id.as_str() == "imu_frame")
    );
    let m = metrics.drain();
    assert_eq!(m.len(), 11);
    match m[5].message.payload.as_enum() {
        Ok(Payload::SensorMetrics(s)) => {
            assert_eq!(s.nominal_update_rate, 100.0);
            assert!(
                (s.sim_update_rate - 100.0).abs() < 1e-9,
                "{}",
                s.sim_update_rate
            );
            assert!(s.real_update_rate > 0.0);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn default_frame_id_is_the_scoped_name_and_dt_is_passed() {
    let dir = stage(&["simcore_fixture_testkit"]);
    let sensor =
        r#"<sensor name="count" type="fixture_counter"><update_rate>20</update_rate></sensor>"#;
    let mut sim = sim_from(&world(&box_model("box", 0.1, sensor)), dir.path(), 0, 1);
    let base = "/world/test/model/box/link/body/sensor/count/fixture_counter";
    let counts = sim.bus_mut().subscribe(base, 100);
    let dts = sim.bus_mut().subscribe(&format!("{base}/dt"), 100);
    for _ in 0..200 {
        sim.step();
    }
    let c = counts.drain();
    assert_eq!(c.len(), 5, "at 1 ms, then every 50 ms to 200 ms");
    assert!(
        c.iter()
            .all(|m| m.message.header.frame_id.as_str() == "box::body::count")
    );
    let d: Vec<f64> = dts
        .drain()
        .iter()
        .map(|m| match m.message.payload.as_enum() {
            Ok(Payload::Double(d)) => *d,
            other => panic!("{other:?}"),
        })
        .collect();
    // The time since the previous update: none before the first, 49 ms after the first
    // step's update (the next was due at 50 ms), then the period.
    assert_eq!(d.len(), 5);
    assert_eq!(d[0], 0.0);
    assert!((d[1] - 0.049).abs() < 1e-12, "{d:?}");
    assert_eq!(&d[2..], &[0.05, 0.05, 0.05]);
    // Each output topic has its own sequence.
    assert_eq!(
        c.iter().map(|m| m.message.header.seq).collect::<Vec<_>>(),
        vec![0, 1, 2, 3, 4]
    );
}

/// A library declares the suffix of its sensor types' default topics (`serves: ["type" =>
/// "suffix"]`); a type without one keeps its own name (Gazebo's suffix where Gazebo has the
/// type); a `<topic>` overrides either.
#[test]
fn a_library_declares_the_suffix_of_its_sensors_default_topics() {
    let dir = stage(&["simcore_fixture_testkit"]);
    let sensors = [
        r#"<sensor name="a" type="fixture_counter"><update_rate>20</update_rate></sensor>"#,
        r#"<sensor name="b" type="fixture_counted"><update_rate>20</update_rate></sensor>"#,
        r#"<sensor name="c" type="fixture_odd"><update_rate>20</update_rate></sensor>"#,
        r#"<sensor name="d" type="fixture_counted"><update_rate>20</update_rate><topic>/given</topic></sensor>"#,
    ]
    .concat();
    let mut sim = sim_from(&world(&box_model("box", 0.1, &sensors)), dir.path(), 0, 1);
    let base = "/world/test/model/box/link/body/sensor";
    let topics = [
        format!("{base}/a/fixture_counter"),
        format!("{base}/b/count/total"),
        format!("{base}/c/a_b/c_"),
        "/given".to_string(),
    ];
    let subs: Vec<_> = topics
        .iter()
        .map(|t| sim.bus_mut().subscribe(t, 100))
        .collect();
    for _ in 0..60 {
        sim.step();
    }
    for (t, s) in topics.iter().zip(&subs) {
        assert!(!s.drain().is_empty(), "nothing on {t}");
    }
}

/// The messages of an update that nobody received are handed back to the sensor at its next
/// update, topic by topic, and dropped if it does not republish them; heard ones never are.
#[test]
fn unheard_messages_are_handed_back_to_their_sensor() {
    let dir = stage(&["simcore_fixture_testkit"]);
    let sensor =
        r#"<sensor name="r" type="fixture_recycler"><update_rate>0</update_rate></sensor>"#;
    let base = "/world/test/model/box/link/body/sensor/r/fixture_recycler";
    let values = |sub: &sim_core::transport::Subscription| -> Vec<(u64, i64)> {
        sub.drain()
            .iter()
            .map(|e| match e.message.payload.as_enum() {
                Ok(Payload::Int64(v)) => (e.message.header.seq, *v),
                other => panic!("{other:?}"),
            })
            .collect()
    };
    for threads in [1, 2] {
        let mut sim = sim_from(
            &world(&box_model("box", 0.1, sensor)),
            dir.path(),
            0,
            threads,
        );
        let side = sim.bus_mut().subscribe(&format!("{base}/side"), 100);
        for _ in 0..5 {
            sim.step();
        }
        let main = sim.bus_mut().subscribe(base, 100);
        for _ in 0..3 {
            sim.step();
        }
        // Heard from the start: always new messages (even values).
        let side: Vec<(u64, i64)> = values(&side);
        assert_eq!(side, (0..8).map(|k| (k, 2 * k as i64)).collect::<Vec<_>>());
        // Unheard for five updates: the first heard one is the handed-back message,
        // republished (odd), with its sequence number counting the unheard updates.
        assert_eq!(
            values(&main),
            vec![(5, 11), (6, 12), (7, 14)],
            "{threads} thread(s)"
        );
        let report = &sim.sensors().reports(sim.bus())[0];
        assert_eq!(report.messages, 16);
    }
}

/// Every sensor offers `<topic>/set_rate` (gz-sensors' `Sensor::Load`): a `Double` in Hz; a
/// negative rate is 0; an SDF rate above 0 is the ceiling (0 and faster are refused and
/// change nothing); a sensor whose SDF rate is 0 takes any rate.
#[test]
fn set_rate_service_with_the_sdf_rate_as_ceiling() {
    let dir = stage(&[PROBE]);
    let sensors = format!(
        "{}{}",
        probe("s", 100.0, ""),
        probe("free", 0.0, "<topic>free/alt</topic>")
    );
    let mut sim = sim_from(&world(&box_model("box", 0.1, &sensors)), dir.path(), 0, 1);
    let service = format!("{TOPIC}/set_rate");
    let services = sim.services();
    assert!(services.contains(&service), "{services:?}");
    assert!(
        services.contains(&"/free/alt/set_rate".to_string()),
        "{services:?}"
    );
    let call = |sim: &mut sim_core::runner::Simulation, s: &str, p: Payload| {
        sim.call_service(s, &Message::new("", p))
    };
    let rate = |r: Result<Message, sim_core::systems::ServiceError>| {
        let m = r.unwrap_or_else(|e| panic!("{e}"));
        match m.payload.as_enum() {
            Ok(Payload::Double(d)) => *d,
            other => panic!("{other:?}"),
        }
    };
    let sub = sim.bus_mut().subscribe(TOPIC, 10_000);
    let free = sim.bus_mut().subscribe("/free/alt", 10_000);
    // Up to the SDF rate: applied from the next due time on (the first, at 0, is taken at
    // the first step).
    assert_eq!(rate(call(&mut sim, &service, Payload::Double(50.0))), 50.0);
    for (r, why) in [
        (200.0, "above <update_rate>"),
        (0.0, "0"),
        (-3.0, "negative is 0"),
    ] {
        let e = call(&mut sim, &service, Payload::Double(r))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("box::body::s") && e.contains("100 Hz"),
            "{why}: {e}"
        );
    }
    let e = call(&mut sim, &service, Payload::Text("50".into())).unwrap_err();
    assert!(e.to_string().contains("takes a Double request"), "{e}");
    // A sensor with SDF rate 0 takes any rate, a negative one meaning every step.
    assert_eq!(
        rate(call(&mut sim, "/free/alt/set_rate", Payload::Double(10.0))),
        10.0
    );
    for _ in 0..1000 {
        sim.step();
    }
    let stamps: Vec<i64> = collect(&sub).iter().map(|x| x.0).collect();
    assert_eq!(stamps.len(), 51, "{stamps:?}");
    assert_eq!(&stamps[..3], &[1_000_000, 20_000_000, 40_000_000]);
    assert_eq!(collect(&free).len(), 11);
    assert_eq!(
        rate(call(&mut sim, "/free/alt/set_rate", Payload::Double(-1.0))),
        0.0
    );
    for _ in 0..10 {
        sim.step();
    }
    assert_eq!(collect(&free).len(), 10, "every step");
    // An unknown service lists the set_rate services too.
    let e = call(&mut sim, "/nope/set_rate", Payload::Double(1.0))
        .unwrap_err()
        .to_string();
    assert!(e.contains(&service), "{e}");
}

/// A `custom` sensor is served by the library serving its `gz:type`, as gz-sim routes it,
/// with the prefix undeclared (as Gazebo's worlds write it) or declared.
#[test]
fn a_custom_sensor_is_served_by_the_library_serving_its_gz_type() {
    let dir = stage(&["simcore_fixture_testkit"]);
    for (i, sensor) in [
        r#"<sensor name="count" type="custom" gz:type="fixture_counter"><update_rate>20</update_rate><topic>/counted</topic></sensor>"#,
        r#"<sensor name="count" type="custom" xmlns:gz="http://gazebosim.org/schema" gz:type="fixture_counter"><update_rate>20</update_rate><topic>/counted</topic></sensor>"#,
    ]
    .into_iter()
    .enumerate()
    {
        let mut sim = sim_from(&world(&box_model("box", 0.1, sensor)), dir.path(), 0, 1);
        let counts = sim.bus_mut().subscribe("/counted", 100);
        for _ in 0..200 {
            sim.step();
        }
        assert_eq!(counts.drain().len(), 5, "sensor {i}");
    }
}

/// A `<plugin>` naming a system a sensor library says its sensors stand for (`enabled_by`:
/// by gz-sim class, in any of its spellings, or by a third party's name) is served by that
/// library's sensors, with nothing loaded and no warning; a system nobody declares is still
/// skipped with one, and one a library serves as a system is loaded, whatever a sensor
/// library declares.
#[test]
fn systems_a_sensor_library_stands_for_need_no_library() {
    use sim_core::runner::{PluginPolicy, SimOptions, Simulation};
    let dir = stage(&["simcore_fixture_testkit"]);
    let sensor =
        r#"<sensor name="a" type="fixture_counter"><update_rate>20</update_rate></sensor>"#;
    let systems = r#"<plugin filename="gz-sim-fixture-counter-system" name="gz::sim::systems::FixtureCounter"/>
    <plugin filename="libgz-sim8-fixture-counter-system.so" name="any"/>
    <plugin filename="acme-counting" name="acme::systems::Counting"/>
    <plugin filename="gz-sim-fixture-timer-system" name="gz::sim::systems::FixtureTimer"/>
    <plugin filename="simcore_fixture_testkit" name="simcore::fixtures::Remover"/>
    <model name="ground">"#;
    let text =
        world(&box_model("box", 0.1, sensor)).replacen("<model name=\"ground\">", systems, 1);
    let world =
        sim_core::sdf::parse_str(&text, None).unwrap_or_else(|e| panic!("{}", e.render(None)));
    let mut sim = Simulation::with_policy(
        world,
        registry_in(dir.path()),
        &SimOptions::default(),
        PluginPolicy::Gazebo,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let skipped = sim.skipped();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(
        skipped[0].message.contains("`FixtureTimer`"),
        "{}",
        skipped[0].message
    );
    let systems: Vec<String> = sim.system_reports().into_iter().map(|r| r.name).collect();
    assert_eq!(systems, ["simcore::fixtures::Remover"], "{systems:?}");
    let sub = sim.bus_mut().subscribe(
        "/world/test/model/box/link/body/sensor/a/fixture_counter",
        100,
    );
    for _ in 0..60 {
        sim.step();
    }
    assert!(!sub.drain().is_empty(), "the sensor updates");
}

/// A `custom` sensor whose `gz:type` no library serves is skipped under Gazebo's policy, with
/// the warning naming that type.
#[test]
fn a_custom_sensor_no_library_serves_is_skipped_naming_its_gz_type() {
    use sim_core::runner::{PluginPolicy, SimOptions, Simulation};
    let dir = stage(&["simcore_fixture_testkit"]);
    let sensor = r#"<sensor name="sonar" type="custom" gz:type="acme_sonar"/>"#;
    let world = sim_core::sdf::parse_str(&world(&box_model("box", 0.1, sensor)), None)
        .unwrap_or_else(|e| panic!("{}", e.render(None)));
    let sim = Simulation::with_policy(
        world,
        registry_in(dir.path()),
        &SimOptions::default(),
        PluginPolicy::Gazebo,
    )
    .unwrap_or_else(|e| panic!("the world runs without it: {e}"));
    let skipped = sim.skipped();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(
        skipped[0].subject,
        "sensor `box::body::sonar` (type `acme_sonar`)"
    );
    assert!(
        skipped[0].message.contains("sensor type `acme_sonar`")
            && skipped[0].message.contains("fixture_counter"),
        "{}",
        skipped[0].message
    );
}
