//! The sensor manager's timing rules against a fixed world ([`StaticWorld`]) with a sensor
//! written here: no plugin library, no physics.

use super::*;
use crate::outputs::Direction;
use sim_plugin_api::abi_stable::sabi_trait::TD_Opaque;
use sim_plugin_api::testing::StaticWorld;
use sim_plugin_api::{ErrorCode, GuardedSensor, Outputs, Pose, Sensor, SensorAbi_TO, WorldRef};
use sim_transport::Subscription;
use std::sync::{Arc, Mutex};

impl SensorWorld for StaticWorld {
    fn step_size(&self) -> SimTime {
        self.step
    }

    fn with_view<R>(
        &self,
        _sensor: &SharedStr,
        _helpers: Option<&rayon::ThreadPool>,
        f: impl FnOnce(WorldRef<'_>) -> R,
    ) -> R {
        self.with(f)
    }
}

/// What a [`Probe`] saw.
#[derive(Debug, Default)]
struct Seen {
    updates: Vec<UpdateContext>,
    resets: u32,
}

/// A sensor that records its calls and publishes its update count; it fails at update
/// `fail_at`, and sets its own frame id when `frame` is given.
struct Probe {
    seen: Arc<Mutex<Seen>>,
    fail_at: Option<u64>,
    frame: Option<&'static str>,
}

impl Sensor for Probe {
    fn update(
        &mut self,
        ctx: &UpdateContext,
        _world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        self.seen.lock().unwrap().updates.push(*ctx);
        if self.fail_at == Some(ctx.update_count) {
            return Err(PluginError::new(ErrorCode::RUNTIME, "the probe broke"));
        }
        let mut m = Message::new("", Payload::Int64(ctx.update_count as i64));
        if let Some(f) = self.frame {
            m.header.frame_id = SharedStr::from(f);
        }
        out.push(m);
        Ok(())
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.seen.lock().unwrap().resets += 1;
        Ok(())
    }
}

const MS: i64 = 1_000_000;

fn setup(name: &str, rate: f64) -> SensorSetup {
    let scoped_name = format!("m::l::{name}");
    SensorSetup {
        entity: EntityId(100 + name.len() as u64),
        link: EntityId(3),
        model: EntityId(2),
        name: name.to_string(),
        scoped_name: scoped_name.clone(),
        sensor_type: "probe".into(),
        topic: format!("/probe/{name}"),
        frame_id: scoped_name,
        update_rate: rate,
        active: true,
        triggered: false,
        trigger_topic: format!("/probe/{name}/trigger"),
        enable_metrics: false,
        pose: Pose::IDENTITY,
        sdf: String::new(),
        span: Span {
            line: 7,
            column: 3,
            ..Span::default()
        },
        seed: 0,
    }
}

/// A manager, its bus and a fixed world with a 1 ms step.
struct Rig {
    world: StaticWorld,
    bus: Bus,
    sensors: SensorManager,
}

/// One sensor of a [`Rig`]: what its plugin saw and a subscription to its topic.
struct Added {
    seen: Arc<Mutex<Seen>>,
    sub: Subscription,
}

impl Added {
    fn contexts(&self) -> Vec<UpdateContext> {
        self.seen.lock().unwrap().updates.clone()
    }
    /// (stamp, seq, frame id) of the messages received.
    fn received(&self) -> Vec<(i64, u64, String)> {
        self.sub
            .drain()
            .iter()
            .map(|e| {
                let h = &e.message.header;
                (h.stamp.nanos, h.seq, h.frame_id.to_string())
            })
            .collect()
    }
}

impl Rig {
    fn new() -> Self {
        Rig {
            world: StaticWorld::default(),
            bus: Bus::new(),
            sensors: SensorManager::new(),
        }
    }

    fn add_probe(&mut self, setup: SensorSetup, probe: Probe) -> Added {
        let seen = probe.seen.clone();
        let sub = self.bus.subscribe(&setup.topic, 100_000);
        let plugin = SensorAbi_TO::from_value(GuardedSensor(probe), TD_Opaque);
        self.sensors
            .add(setup, plugin, "libprobe.so".into(), &mut self.bus);
        Added { seen, sub }
    }

    fn add(&mut self, setup: SensorSetup) -> Added {
        self.add_probe(setup, probe(None))
    }

    fn update_at(&mut self, nanos: i64) -> Vec<SensorFailure> {
        self.sensors
            .update(SimTime::from_nanos(nanos), &self.world, &mut self.bus, None)
    }

    /// Steps `from..to` (in ms), returning every failure.
    fn run_ms(&mut self, from: i64, to: i64) -> Vec<SensorFailure> {
        (from..to).flat_map(|k| self.update_at(k * MS)).collect()
    }
}

fn probe(fail_at: Option<u64>) -> Probe {
    Probe {
        seen: Arc::default(),
        fail_at,
        frame: None,
    }
}

fn stamps(a: &Added) -> Vec<i64> {
    a.received().iter().map(|r| r.0).collect()
}

#[test]
fn ten_hertz_updates_ten_times_a_second_with_exact_stamps() {
    let mut rig = Rig::new();
    let s = rig.add(setup("s", 10.0));
    assert!(rig.run_ms(0, 1000).is_empty());
    assert_eq!(
        stamps(&s),
        (0..10).map(|k| k * 100 * MS).collect::<Vec<_>>()
    );
}

#[test]
fn zero_and_negative_rates_update_every_step() {
    for rate in [0.0, -3.0] {
        let mut rig = Rig::new();
        let s = rig.add(setup("s", rate));
        rig.run_ms(0, 1000);
        assert_eq!(s.received().len(), 1000, "rate {rate}");
    }
}

#[test]
fn thirty_hertz_is_exactly_thirty_a_second() {
    let mut rig = Rig::new();
    let s = rig.add(setup("s", 30.0));
    rig.run_ms(0, 1000);
    let t = stamps(&s);
    assert_eq!(t.len(), 30, "exact period, not Gazebo's 31");
    // Each update at the first step at or after round(k * 1e9 / 30) ns.
    let due: Vec<i64> = (0..30)
        .map(|k| ((k as f64 * 1e9 / 30.0).round() as i64 + MS - 1) / MS * MS)
        .collect();
    assert_eq!(t, due);
}

#[test]
fn a_late_update_catches_up_without_a_burst() {
    let mut rig = Rig::new();
    let s = rig.add(setup("s", 100.0));
    rig.update_at(0);
    // The world jumps 55 ms: one update, then the next is due at 60 ms, not 10, 20, ...
    rig.update_at(55 * MS);
    for k in 56..60 {
        rig.update_at(k * MS);
    }
    rig.update_at(60 * MS);
    assert_eq!(stamps(&s), vec![0, 55 * MS, 60 * MS]);
}

#[test]
fn a_forced_update_does_not_move_the_next_update_time() {
    let mut rig = Rig::new();
    let s = rig.add(setup("s", 10.0));
    let id = setup("s", 10.0).entity;
    rig.run_ms(0, 5);
    assert!(rig.sensors.force_update(id));
    rig.run_ms(5, 1000);
    assert_eq!(
        stamps(&s),
        std::iter::once(0)
            .chain(std::iter::once(5 * MS))
            .chain((1..10).map(|k| k * 100 * MS))
            .collect::<Vec<_>>()
    );
    let forced: Vec<bool> = s.contexts().iter().map(|c| c.forced).collect();
    assert_eq!(forced[..3], [false, true, false]);
    assert!(!rig.sensors.force_update(EntityId(999)), "unknown sensor");
}

#[test]
fn a_triggered_sensor_updates_once_per_step_with_triggers() {
    let mut rig = Rig::new();
    let mut sp = setup("s", 100.0);
    sp.triggered = true;
    let trigger_topic = sp.trigger_topic.clone();
    let s = rig.add(sp);
    rig.run_ms(0, 50);
    assert!(s.received().is_empty(), "no trigger, no update");
    let trigger = rig.bus.intern(&trigger_topic);
    rig.bus
        .publish(trigger, Message::new("", Payload::Boolean(true)));
    rig.run_ms(50, 100);
    assert_eq!(
        stamps(&s),
        vec![50 * MS],
        "the first step after the trigger"
    );
    // Two triggers before one step: one update.
    rig.bus
        .publish(trigger, Message::new("", Payload::Boolean(true)));
    rig.bus
        .publish(trigger, Message::new("", Payload::Boolean(true)));
    rig.run_ms(100, 102);
    assert_eq!(stamps(&s), vec![100 * MS]);
    assert!(s.contexts().iter().all(|c| c.forced), "triggered is forced");
    assert!(rig.sensors.topics(&rig.bus).contains(&trigger_topic));
}

#[test]
fn an_inactive_sensor_pauses_and_resumes_on_its_schedule() {
    let mut rig = Rig::new();
    let mut sp = setup("s", 10.0);
    let id = sp.entity;
    sp.active = false;
    let s = rig.add(sp);
    rig.run_ms(0, 250);
    assert!(s.received().is_empty(), "an inactive sensor published");
    // A forced update runs even while inactive.
    rig.sensors.force_update(id);
    rig.update_at(250 * MS);
    assert_eq!(stamps(&s), vec![250 * MS]);
    assert!(rig.sensors.set_active(id, true));
    rig.run_ms(251, 500);
    // Its next update time was 0 all along: due at once, then on its period.
    assert_eq!(stamps(&s), vec![251 * MS, 300 * MS, 400 * MS]);
    assert!(rig.sensors.set_active(id, false));
    rig.run_ms(500, 700);
    assert!(s.received().is_empty());
    rig.sensors.set_active(id, true);
    rig.run_ms(700, 800);
    assert_eq!(stamps(&s), vec![700 * MS]);
    assert!(
        !rig.sensors.set_active(EntityId(999), true),
        "unknown sensor"
    );
}

#[test]
fn time_going_backwards_resets_schedules_and_plugins() {
    let mut rig = Rig::new();
    let s = rig.add(setup("s", 10.0));
    rig.run_ms(0, 350);
    assert_eq!(stamps(&s).len(), 4);
    assert!(rig.sensors.reset(&rig.world).is_empty());
    assert_eq!(s.seen.lock().unwrap().resets, 1);
    // From 0 again: due at once, dt 0 on the first update after the reset.
    rig.run_ms(0, 150);
    assert_eq!(stamps(&s), vec![0, 100 * MS]);
    let dts: Vec<i64> = s.contexts().iter().map(|c| c.dt.nanos).collect();
    assert_eq!(dts, vec![0, 100 * MS, 100 * MS, 100 * MS, 0, 100 * MS]);
    // Counters and sequences go on.
    let counts: Vec<u64> = s.contexts().iter().map(|c| c.update_count).collect();
    assert_eq!(counts, (0..6).collect::<Vec<_>>());
}

#[test]
fn the_update_context_carries_time_dt_step_and_count() {
    let mut rig = Rig::new();
    let s = rig.add(setup("s", 20.0));
    rig.run_ms(0, 200);
    let c = s.contexts();
    assert_eq!(c.len(), 4);
    assert_eq!(c[0].dt, SimTime::ZERO);
    assert!(c[1..].iter().all(|c| c.dt.nanos == 50 * MS));
    assert!(c.iter().all(|c| c.step.nanos == MS));
    assert_eq!(
        c.iter().map(|c| c.now.nanos).collect::<Vec<_>>(),
        vec![0, 50 * MS, 100 * MS, 150 * MS]
    );
}

#[test]
fn seq_counts_from_zero_per_sensor() {
    let mut rig = Rig::new();
    let a = rig.add(setup("a", 0.0));
    let b = rig.add(setup("bb", 100.0));
    rig.run_ms(0, 100);
    let seqs = |x: &Added| x.received().iter().map(|r| r.1).collect::<Vec<_>>();
    assert_eq!(seqs(&a), (0..100).collect::<Vec<_>>());
    assert_eq!(seqs(&b), (0..10).collect::<Vec<_>>());
}

#[test]
fn messages_get_the_sensor_frame_unless_the_plugin_set_one() {
    let mut rig = Rig::new();
    let a = rig.add(setup("a", 0.0));
    let mut custom = setup("bb", 0.0);
    custom.frame_id = "imu_frame".into();
    let b = rig.add(custom);
    let own = rig.add_probe(
        setup("ccc", 0.0),
        Probe {
            frame: Some("own"),
            ..probe(None)
        },
    );
    rig.run_ms(0, 2);
    let frames = |x: &Added| x.received().into_iter().map(|r| r.2).collect::<Vec<_>>();
    assert_eq!(frames(&a), vec!["m::l::a"; 2]);
    assert_eq!(frames(&b), vec!["imu_frame"; 2]);
    assert_eq!(frames(&own), vec!["own"; 2]);
}

#[test]
fn a_failing_sensor_is_disabled_and_reported_while_others_go_on() {
    let mut rig = Rig::new();
    let bad = rig.add_probe(setup("bad", 0.0), probe(Some(2)));
    let good = rig.add(setup("good", 0.0));
    let failures = rig.run_ms(0, 10);
    assert_eq!(
        failures,
        vec![SensorFailure {
            scoped_name: "m::l::bad".into(),
            span: setup("bad", 0.0).span,
            error: "the probe broke".into(),
        }]
    );
    assert_eq!(bad.contexts().len(), 3, "no update after the failure");
    assert_eq!(
        bad.received().len(),
        2,
        "the failed update published nothing"
    );
    assert_eq!(good.received().len(), 10);
    let reports = rig.sensors.reports(&rig.bus);
    assert_eq!(reports[0].errors, 1);
    assert_eq!(reports[0].updates, 2);
    assert_eq!(reports[0].disabled.as_deref(), Some("the probe broke"));
    assert_eq!(reports[1].disabled, None);
    assert_eq!(reports[1].updates, 10);
    // A disabled sensor refuses parameters and is left out of resets.
    let e = rig
        .sensors
        .set_parameter(setup("bad", 0.0).entity, "k", "v", &rig.world)
        .unwrap_err();
    assert_eq!(e.to_string(), "sensor `m::l::bad` is disabled");
    assert!(rig.sensors.reset(&rig.world).is_empty());
    assert_eq!(bad.seen.lock().unwrap().resets, 0);
}

#[test]
fn metrics_report_the_nominal_and_sim_rates() {
    let mut rig = Rig::new();
    let mut sp = setup("s", 100.0);
    sp.enable_metrics = true;
    let metrics = rig.bus.subscribe("/probe/s/performance_metrics", 100);
    let s = rig.add(sp);
    rig.run_ms(0, 100);
    assert_eq!(s.received().len(), 10);
    let m = metrics.drain();
    assert_eq!(m.len(), 10);
    assert_eq!(m[0].message.header.seq, 0);
    assert_eq!(m[9].message.header.seq, 9);
    assert_eq!(m[5].message.header.stamp.nanos, 50 * MS);
    match m[5].message.payload.as_enum() {
        Ok(Payload::SensorMetrics(x)) => {
            assert_eq!(x.nominal_update_rate, 100.0);
            assert!(
                (x.sim_update_rate - 100.0).abs() < 1e-9,
                "{}",
                x.sim_update_rate
            );
            assert_eq!(x.name.as_str(), "m::l::s");
        }
        other => panic!("{other:?}"),
    }
    match m[0].message.payload.as_enum() {
        Ok(Payload::SensorMetrics(x)) => assert_eq!(x.sim_update_rate, 0.0, "no rate yet"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_worker_pool_gives_the_same_updates() {
    let pool = SensorPool::new(2).unwrap();
    let mut rig = Rig::new();
    let a = rig.add(setup("a", 10.0));
    let b = rig.add(setup("bb", 30.0));
    let c = rig.add(setup("ccc", 0.0));
    for k in 0..1000 {
        let f = rig.sensors.update(
            SimTime::from_nanos(k * MS),
            &rig.world,
            &mut rig.bus,
            Some(&pool),
        );
        assert!(f.is_empty());
    }
    assert_eq!(a.received().len(), 10);
    assert_eq!(b.received().len(), 30);
    assert_eq!(c.received().len(), 1000);
}

#[test]
fn removed_sensors_are_named_and_stop() {
    let mut rig = Rig::new();
    let a = rig.add(setup("a", 0.0));
    let _b = rig.add(setup("bb", 0.0));
    assert_eq!(rig.sensors.len(), 2);
    let gone = rig.sensors.remove(&[setup("a", 0.0).entity]);
    assert_eq!(gone, vec!["m::l::a".to_string()]);
    rig.run_ms(0, 3);
    assert!(a.received().is_empty());
    assert_eq!(rig.sensors.len(), 1);
}

/// The rows `sensors` serves, as (topic, direction, kind).
fn served(rig: &Rig) -> Vec<(String, Direction, Option<&'static str>)> {
    let mut rows = Vec::new();
    rig.sensors.served_topics(&rig.bus, &mut rows);
    rows.into_iter()
        .map(|r| (r.topic, r.direction, r.kind))
        .collect()
}

#[test]
fn sensors_serve_their_declared_topics_and_their_own_until_they_declare_others() {
    let mut rig = Rig::new();
    let declared = |topic: &str, kind| DeclaredOutput {
        topic: topic.to_string(),
        kind,
    };
    let plugin = || SensorAbi_TO::from_value(GuardedSensor(probe(None)), TD_Opaque);
    rig.sensors.add_declared(
        setup("a", 0.0),
        plugin(),
        "lib".into(),
        &mut rig.bus,
        vec![
            declared("/probe/a", "Int64"),
            declared("/probe/a/info", "CameraInfo"),
        ],
    );
    let mut bb = setup("bb", 0.0);
    bb.triggered = true;
    bb.enable_metrics = true;
    rig.sensors.add(bb, plugin(), "lib".into(), &mut rig.bus);
    // Declares a topic of its own, not its main one (on which it publishes all the same).
    rig.sensors.add_declared(
        setup("ccc", 0.0),
        plugin(),
        "lib".into(),
        &mut rig.bus,
        vec![declared("/elsewhere", "Double")],
    );
    let out = |t: &str, k| (t.to_string(), Direction::Out, k);
    assert_eq!(
        served(&rig),
        [
            out("/probe/a", Some("Int64")),
            out("/probe/a/info", Some("CameraInfo")),
            out("/probe/bb", None),
            out(
                "/probe/bb/performance_metrics",
                Some("PerformanceSensorMetrics")
            ),
            ("/probe/bb/trigger".into(), Direction::In, None),
            out("/elsewhere", Some("Double")),
        ]
    );
    rig.update_at(0);
    assert!(
        served(&rig).contains(&out("/probe/ccc", None)),
        "published on: served from then on"
    );
    let names: Vec<String> = rig
        .sensors
        .served_services()
        .into_iter()
        .map(|s| format!("{} {}", s.name, s.by))
        .collect();
    assert_eq!(names[0], "/probe/a/set_rate sensor m::l::a");
}
