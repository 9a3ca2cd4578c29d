//! The engine's run control and entity requests, driven in-process as the Python binding and
//! the batch runner drive them: a real world in rapier, no factory plugin, typed errors.

use crate::common;

use common::*;
use sim_core::runner::{
    ControlError, EntityError, EntityUpdate, Moment, Region, ResetDone, ResetScope, RunLimit,
    RunState, SpawnError, StatePart,
};
use sim_plugin_api::{EntityFactory, Pose, Vec3};
use std::sync::atomic::AtomicBool;

fn crate_request(name: &str, x: f64, renaming: bool) -> EntityFactory {
    EntityFactory {
        sdf: box_model("crate", 0.1, "").as_str().into(),
        name: name.into(),
        pose: Pose::from_xyz_rpy(x, 0.0, 0.1, 0.0, 0.0, 0.0),
        allow_renaming: renaming,
        ..Default::default()
    }
}

fn static_post() -> &'static str {
    r#"<model name="post"><static>true</static><pose>3 0 0.5 0 0 0</pose>
      <link name="l"><collision name="c"><geometry><box><size>0.1 0.1 1</size></box></geometry></collision></link>
    </model>"#
}

#[test]
fn a_world_without_a_factory_spawns_sets_and_deletes_by_name() {
    let dir = stage(&[]);
    let mut sim = sim_from(
        &world(&format!("{}{}", box_model("a", 1.0, ""), static_post())),
        dir.path(),
        0,
        1,
    );
    assert_eq!(sim.models(), ["ground", "a", "post"]);

    // Models by name and by region (their collision boxes: the post's spans x 2.95..3.05,
    // z 0..1; the box `a`'s x -0.1..0.1 around z 1).
    let not_ground = |n: &str| n != "ground";
    let sphere = |x: f64, radius: f64| Region::Sphere {
        centre: Vec3::new(x, 0.0, 0.5),
        radius,
    };
    assert_eq!(sim.models_where(not_ground, None), ["a", "post"]);
    assert_eq!(
        sim.models_where(not_ground, Some(&sphere(3.2, 0.16))),
        ["post"]
    );
    assert!(
        sim.models_where(not_ground, Some(&sphere(3.2, 0.14)))
            .is_empty()
    );
    let corners = Region::Box(Vec3::new(3.5, 1.0, 2.0), Vec3::new(-0.05, -1.0, 0.95));
    assert_eq!(sim.models_where(not_ground, Some(&corners)), ["a", "post"]);
    let between = Region::Box(Vec3::new(0.2, -1.0, 0.0), Vec3::new(2.9, 1.0, 2.0));
    assert!(sim.models_where(not_ground, Some(&between)).is_empty());
    assert_eq!(sim.models_where(|n| n.starts_with('p'), None), ["post"]);

    // Spawn: the engine creates the model, no plugin involved; a clash is typed.
    assert_eq!(
        sim.spawn_entity(&crate_request("c", 2.0, false)).unwrap(),
        "c"
    );
    assert!(matches!(
        sim.spawn_entity(&crate_request("c", 2.0, false)),
        Err(SpawnError::NameTaken(n)) if n == "c"
    ));
    assert_eq!(
        sim.spawn_entity(&crate_request("c", 2.0, true)).unwrap(),
        "c_1"
    );
    let broken = EntityFactory {
        sdf: "<sdf version='1.9'><model name='x'>".into(),
        ..Default::default()
    };
    assert!(
        matches!(sim.spawn_entity(&broken), Err(SpawnError::Sdf(m)) if m.contains("<inline>:1:"))
    );

    // State: read, set a pose and a twist, read back.
    let s = sim.entity_state("a").unwrap();
    assert!((s.pose.position.z - 1.0).abs() < 1e-9, "{s:?}");
    let update = EntityUpdate {
        pose: Some(Pose::from_xyz_rpy(1.0, 2.0, 3.0, 0.0, 0.0, 0.0)),
        twist: Some((Vec3::new(0.5, 0.0, 0.0), Vec3::ZERO)),
        acceleration: None,
    };
    sim.set_entity_state("a", &update).unwrap();
    let s = sim.entity_state("a").unwrap();
    assert!((s.pose.position - Vec3::new(1.0, 2.0, 3.0)).length() < 1e-6);
    assert!((s.linear_velocity.x - 0.5).abs() < 1e-6, "{s:?}");

    // Refusals are typed, and nothing is changed by them.
    let far = EntityUpdate {
        pose: Some(Pose::from_xyz_rpy(2e6, 0.0, 0.0, 0.0, 0.0, 0.0)),
        ..Default::default()
    };
    assert!(matches!(
        sim.set_entity_state("a", &far),
        Err(EntityError::Invalid {
            part: StatePart::Pose,
            ..
        })
    ));
    let mut zero = Pose::IDENTITY;
    zero.orientation.w = 0.0;
    assert!(matches!(
        sim.set_entity_state(
            "a",
            &EntityUpdate {
                pose: Some(zero),
                ..Default::default()
            }
        ),
        Err(EntityError::Invalid {
            part: StatePart::Pose,
            ..
        })
    ));
    let inf = EntityUpdate {
        pose: Some(Pose::IDENTITY),
        twist: Some((Vec3::new(f64::INFINITY, 0.0, 0.0), Vec3::ZERO)),
        ..Default::default()
    };
    assert!(matches!(
        sim.set_entity_state("a", &inf),
        Err(EntityError::Invalid {
            part: StatePart::Twist,
            ..
        })
    ));
    let accel = EntityUpdate {
        acceleration: Some((Vec3::ZERO, Vec3::new(0.0, f64::NAN, 0.0))),
        ..Default::default()
    };
    assert!(matches!(
        sim.set_entity_state("a", &accel),
        Err(EntityError::Invalid {
            part: StatePart::Acceleration,
            ..
        })
    ));
    let s = sim.entity_state("a").unwrap();
    assert!(
        (s.pose.position - Vec3::new(1.0, 2.0, 3.0)).length() < 1e-6,
        "unchanged"
    );
    let moving = EntityUpdate {
        twist: Some((Vec3::new(1.0, 0.0, 0.0), Vec3::ZERO)),
        ..Default::default()
    };
    assert!(matches!(
        sim.set_entity_state("post", &moving),
        Err(EntityError::Static(n)) if n == "post"
    ));
    let placed = EntityUpdate {
        pose: Some(Pose::from_xyz_rpy(4.0, 0.0, 0.5, 0.0, 0.0, 0.0)),
        ..Default::default()
    };
    sim.set_entity_state("post", &placed).unwrap();
    assert!(matches!(
        sim.entity_state("nobody"),
        Err(EntityError::NotFound(n)) if n == "nobody"
    ));

    // Delete, then not found.
    sim.delete_entity("c").unwrap();
    assert!(matches!(
        sim.delete_entity("c"),
        Err(EntityError::NotFound(_))
    ));
    assert_eq!(sim.models(), ["ground", "a", "post", "c_1"]);

    // Resets: the spawned models alone, then everything.
    for _ in 0..10 {
        sim.step();
    }
    let at = sim.time();
    match sim.reset_scope(ResetScope::Spawned).unwrap() {
        ResetDone::Spawned(names) => assert_eq!(names, ["c_1"]),
        other => panic!("{other:?}"),
    }
    assert_eq!(sim.time(), at, "time stays");
    assert_eq!(sim.models(), ["ground", "a", "post"]);
    assert_eq!(sim.reset_scope(ResetScope::All).unwrap(), ResetDone::All);
    assert_eq!(sim.time().nanos, 0);
    let s = sim.entity_state("a").unwrap();
    assert!(
        (s.pose.position - Vec3::new(0.0, 0.0, 1.0)).length() < 1e-9,
        "as loaded"
    );
}

/// A paused run takes exactly the steps granted to it by a front end serving in the run's
/// waiting hook, refuses what the state forbids, and ends when the control quits.
#[test]
fn a_paused_run_steps_as_its_control_grants() {
    let dir = stage(&[]);
    let mut sim = sim_from(&world(&box_model("a", 1.0, "")), dir.path(), 0, 1);
    sim.control_mut().pause().unwrap();
    assert_eq!(sim.control().state(), RunState::Paused);
    let stop = AtomicBool::new(false);
    let mut log = Vec::new();
    let mut waits = 0;
    let summary = sim.run_with(RunLimit::Forever, 0.0, &stop, |sim, moment| {
        match moment {
            Moment::Stepped => {
                log.push(sim.time().nanos);
                // The second grant done: quit.
                if sim.control().grant_finished() && sim.time().nanos == 8_000_000 {
                    sim.control_mut().quit().unwrap();
                }
            }
            Moment::Waiting => {
                waits += 1;
                let c = sim.control_mut();
                match waits {
                    1 => {
                        assert!(matches!(
                            c.pause(),
                            Err(ControlError::AlreadyInState(RunState::Paused))
                        ));
                        assert!(!c.step(5).unwrap());
                        assert!(matches!(c.step(1), Err(ControlError::Busy)));
                    }
                    2 => assert!(!c.step(3).unwrap()),
                    _ => panic!("waited after quitting"),
                }
            }
        }
    });
    assert_eq!(summary.steps, 8);
    assert_eq!(log, (1..=8).map(|i| i * 1_000_000).collect::<Vec<i64>>());
    assert!(summary.interrupted);
    assert_eq!(sim.control().state(), RunState::Quitting);
    assert!(matches!(
        sim.control_mut().step(1),
        Err(ControlError::Quitting)
    ));
}

/// A grant of more steps than anyone waits for does not hold the run: quitting ends it while
/// the steps are being taken (what a front end's quit does after a client's huge step call).
#[test]
fn quitting_ends_a_run_taking_a_huge_grant() {
    let dir = stage(&[]);
    let mut sim = sim_from(&world(&box_model("a", 1.0, "")), dir.path(), 0, 1);
    sim.control_mut().pause().unwrap();
    let stop = AtomicBool::new(false);
    let summary = sim.run_with(RunLimit::Forever, 0.0, &stop, |sim, moment| match moment {
        Moment::Waiting => assert!(!sim.control_mut().step(u64::MAX).unwrap()),
        Moment::Stepped if sim.physics().iteration() == 50 => {
            let c = sim.control_mut();
            assert!(matches!(c.pause(), Err(ControlError::Busy)));
            c.quit().unwrap();
        }
        Moment::Stepped => {}
    });
    assert_eq!(summary.steps, 50);
    assert!(summary.interrupted);
    assert_eq!(sim.control().state(), RunState::Quitting);
    assert_eq!(sim.control().steps_left(), 0);
}

/// STOPPED resets the world and pauses it; a run stepped after it is no longer stopped.
#[test]
fn stopped_is_reset_and_paused() {
    let dir = stage(&[]);
    let mut sim = sim_from(&world(&box_model("a", 1.0, "")), dir.path(), 0, 1);
    for _ in 0..20 {
        sim.step();
    }
    sim.set_run_state(RunState::Stopped).unwrap();
    assert_eq!(sim.time().nanos, 0);
    assert_eq!(sim.control().state(), RunState::Stopped);
    assert!(!sim.control().may_step());
    assert!(matches!(
        sim.set_run_state(RunState::Stopped),
        Err(ControlError::AlreadyInState(RunState::Stopped))
    ));
    sim.control_mut().step(1).unwrap();
    assert!(matches!(
        sim.reset_scope(ResetScope::All),
        Err(ControlError::Busy)
    ));
    sim.step();
    sim.control_mut().took_step();
    assert_eq!(sim.control().state(), RunState::Paused);
    sim.set_run_state(RunState::Playing).unwrap();
    assert!(sim.control().may_step());
}

/// A box falling from 1 m with a 100 Hz IMU `i`, and a subscription to the IMU (the staged
/// plugin directory is kept with it).
fn falling_imu() -> (
    tempfile::TempDir,
    sim_core::runner::Simulation,
    sim_core::transport::Subscription,
) {
    let dir = stage(&["simcore_plugin_imu"]);
    let mut sim = sim_from(
        &world(&box_model("a", 1.0, &imu("i", 100.0, ""))),
        dir.path(),
        0,
        1,
    );
    let sub = sim
        .bus_mut()
        .subscribe("/world/test/model/a/link/body/sensor/i/imu", 1000);
    (dir, sim, sub)
}

/// A reset creates every sensor anew; the run summary still counts every update and message
/// of the run, those before the reset included.
#[test]
fn the_run_summary_counts_what_sensors_did_before_a_reset() {
    let (_dir, mut sim, sub) = falling_imu();
    let stop = AtomicBool::new(false);
    let mut resets = 0;
    // 100 steps of 1 ms at 100 Hz, a reset, then 100 more: about 10 updates each.
    let summary = sim.run_with(RunLimit::Steps(200), 0.0, &stop, |sim, moment| {
        if moment == Moment::Stepped && sim.time().nanos == 100_000_000 && resets == 0 {
            resets += 1;
            sim.reset().unwrap();
        }
    });
    assert_eq!(summary.steps, 200);
    assert_eq!(resets, 1);
    let sent = sub.drain().len() as u64;
    assert!(sent >= 18, "both halves published: {sent}");
    let imu = summary
        .sensors
        .iter()
        .find(|s| s.scoped_name.ends_with("::i"))
        .unwrap_or_else(|| panic!("{:?}", summary.sensors));
    assert_eq!(imu.messages, sent, "{imu:?}");
    assert!(imu.updates >= sent && imu.updates <= sent + 2, "{imu:?}");
    assert_eq!(summary.sensors.len(), 1, "{:?}", summary.sensors);
}

/// gz-sim's order: the physics steps, then the due sensors update against the new state,
/// stamped with the step's end time. So when a step returns, every sensor due by then has
/// published, and a client stepping in lockstep finds the samples of the time it reached.
#[test]
fn when_a_step_returns_every_sensor_due_by_its_end_has_published() {
    let (_dir, mut sim, sub) = falling_imu();
    let stamps = |sim: &mut sim_core::runner::Simulation, steps: usize| {
        for _ in 0..steps {
            sim.step();
        }
        let now = sim.time().nanos;
        let got: Vec<i64> = sub
            .drain()
            .iter()
            .map(|e| e.message.header.stamp.nanos)
            .collect();
        (now, got)
    };
    // The first update is at the first step (the next update time starts at 0), then every
    // 10 ms: the sample of the time reached is there when the steps return.
    assert_eq!(stamps(&mut sim, 1), (1_000_000, vec![1_000_000]));
    assert_eq!(stamps(&mut sim, 9), (10_000_000, vec![10_000_000]));
    assert_eq!(stamps(&mut sim, 10), (20_000_000, vec![20_000_000]));
    assert_eq!(stamps(&mut sim, 5), (25_000_000, vec![]));
    assert_eq!(
        stamps(&mut sim, 15),
        (40_000_000, vec![30_000_000, 40_000_000])
    );
    // A sample is the state after the step that reached its stamp: the box falls freely, so
    // its proper acceleration reads 0 (not the +g of a body at rest before the first step).
    for _ in 0..10 {
        sim.step();
    }
    let last = collect(&sub);
    let (t, _, p) = last.last().expect("a sample at 50 ms");
    assert_eq!(*t, 50_000_000);
    let a = imu_accel(p);
    assert!(a.length() < 1e-3, "free fall reads no acceleration: {a:?}");
}

#[test]
fn a_link_s_state_is_read_by_its_scoped_name() {
    let dir = stage(&[]);
    let arm = r#"<model name="arm"><static>true</static><pose>1 0 0 0 0 0</pose>
      <link name="base"/>
      <link name="tip"><pose>0 0 2 0 0 1.5707963267948966</pose></link>
    </model>"#;
    let mut sim = sim_from(
        &world(&format!("{}{arm}", box_model("a", 1.0, ""))),
        dir.path(),
        0,
        1,
    );
    let tip = sim.entity_state("arm::tip").unwrap();
    let p = tip.pose.position;
    assert!(
        (p.x - 1.0).abs() < 1e-9 && p.y.abs() < 1e-9 && (p.z - 2.0).abs() < 1e-9,
        "{p:?}"
    );
    let yaw = tip.pose.orientation;
    assert!(
        (yaw.z - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-9,
        "{yaw:?}"
    );
    assert_eq!(sim.entity_state("arm").unwrap().pose.position.z, 0.0);
    // A falling body's link moves with it.
    for _ in 0..100 {
        sim.step();
    }
    let model = sim.entity_state("a").unwrap();
    let body = sim.entity_state("a::body").unwrap();
    assert!(body.linear_velocity.z < -0.5, "{:?}", body.linear_velocity);
    assert_eq!(body.linear_velocity.z, model.linear_velocity.z);
    assert!(matches!(
        sim.entity_state("arm::nothing"),
        Err(EntityError::NotFound(n)) if n == "arm::nothing"
    ));
    // Links are read, not set: only a model is teleported.
    assert!(matches!(
        sim.set_entity_state("arm::tip", &EntityUpdate::default()),
        Err(EntityError::NotFound(_))
    ));
}
