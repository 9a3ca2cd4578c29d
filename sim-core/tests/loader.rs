//! The plugin loader against real shared libraries: the IMU plugin, a plugin that panics, a
//! library that is not a plugin, one built for another ABI major version, and world files
//! that try to name libraries outside the search path.

use crate::common;

use common::*;
use sim_core::runner::{LoadError, SimOptions, Simulation};
use sim_plugin_api::{Payload, PluginKind};

#[test]
fn real_imu_library_loads_with_its_factory() {
    let dir = stage(&["simcore_plugin_imu"]);
    let reg = registry_in(dir.path());
    assert!(reg.refused().is_empty(), "{:?}", reg.refused());
    assert_eq!(reg.libraries().len(), 1);
    let libraries = reg.libraries();
    let lib = libraries[0];
    assert_eq!(lib.file_name, lib_file("simcore_plugin_imu"));
    assert_eq!(lib.abi_version, sim_core::plugins::env_api_version());
    let f = &lib.factories[0];
    assert_eq!((f.name.as_str(), f.kind), ("imu", PluginKind::SENSOR));
    assert_eq!(f.serves, vec!["imu".to_string()]);
    assert!(reg.sensor_factory("imu").is_some());
}

#[test]
fn foreign_and_wrong_major_libraries_are_refused_with_reasons() {
    let dir = stage(&[
        "simcore_fixture_foreign",
        "simcore_fixture_wrong_major",
        "simcore_plugin_imu",
    ]);
    std::fs::write(dir.path().join(lib_file("not_even_elf")), b"plain text").unwrap();
    let reg = registry_in(dir.path());
    assert_eq!(
        reg.libraries().len(),
        1,
        "the IMU still loads beside refused libraries"
    );
    let reason = |name: &str| {
        reg.refused()
            .iter()
            .find(|r| r.path.file_name().unwrap().to_string_lossy() == lib_file(name))
            .unwrap_or_else(|| panic!("{name} was not refused: {:?}", reg.refused()))
            .reason
            .clone()
    };
    let foreign = reason("simcore_fixture_foreign");
    assert!(foreign.contains("not a simcore plugin"), "{foreign}");
    let major = reason("simcore_fixture_wrong_major");
    assert!(
        major.contains("2.0.0") && major.contains("ABI 1.x"),
        "{major}"
    );
    let garbage = reason("not_even_elf");
    // Refused from its first bytes, without being opened.
    assert!(garbage.contains("not an ELF shared library"), "{garbage}");
    for r in &reg.refused() {
        assert!(
            !r.reason.contains('\n'),
            "reasons are one line: {}",
            r.reason
        );
    }
}

#[test]
fn a_panicking_sensor_is_disabled_and_the_run_goes_on() {
    let dir = stage(&["simcore_fixture_testkit", "simcore_plugin_imu"]);
    let sensors = format!(
        "{}{}",
        r#"<sensor name="bad" type="fixture_panic"><update_rate>100</update_rate><panic_after>3</panic_after></sensor>"#,
        imu("s", 100.0, "")
    );
    let mut sim = sim_from(&world(&box_model("box", 0.1, &sensors)), dir.path(), 0, 2);
    let bad = sim.bus_mut().subscribe(
        "/world/test/model/box/link/body/sensor/bad/fixture_panic",
        100,
    );
    let good = sim
        .bus_mut()
        .subscribe("/world/test/model/box/link/body/sensor/s/imu", 1000);
    for _ in 0..500 {
        sim.step();
    }
    assert_eq!(
        bad.drain().len(),
        3,
        "the data published before the panic survives"
    );
    // 100 Hz over 0.5 s: at the first step, then every 10 ms.
    assert_eq!(good.drain().len(), 51, "the other sensor keeps publishing");
    let f = sim.failures();
    assert_eq!(f.len(), 1);
    assert!(f[0].subject.contains("box::body::bad"));
    assert!(
        f[0].error.contains("fixture panic at update 3"),
        "{}",
        f[0].error
    );
    assert_eq!(f[0].time.nanos, 30_000_000);
}

/// The last `Int64` of each of `subs`.
fn last_ints(subs: &[&sim_core::transport::Subscription]) -> Vec<Vec<i64>> {
    subs.iter()
        .map(|s| {
            s.drain()
                .iter()
                .map(|e| match e.message.payload.as_enum() {
                    Ok(Payload::Int64(v)) => *v,
                    other => panic!("not an Int64: {other:?}"),
                })
                .collect()
        })
        .collect()
}

/// A plugin's chunks (`simcore.sensor_threads.v1`) run each exactly once, on the calling
/// thread and the pool's workers together: for one sensor due (updated on the simulation
/// thread) and for two due at once (each on a worker); on one thread, in order there.
#[test]
fn a_sensor_runs_its_chunks_on_the_sensor_threads() {
    let dir = stage(&["simcore_fixture_testkit"]);
    let chunks = |name: &str| {
        format!(
            r#"<sensor name="{name}" type="fixture_chunks"><update_rate>100</update_rate></sensor>"#
        )
    };
    let topic =
        |name: &str| format!("/world/test/model/box/link/body/sensor/{name}/fixture_chunks");
    for (threads, sensors) in [(2, vec!["a"]), (2, vec!["a", "b"]), (1, vec!["a"])] {
        let body: String = sensors.iter().map(|s| chunks(s)).collect();
        let mut sim = sim_from(
            &world(&box_model("box", 0.1, &body)),
            dir.path(),
            0,
            threads,
        );
        let subs: Vec<_> = sensors
            .iter()
            .flat_map(|s| {
                let t = topic(s);
                [t.clone(), format!("{t}/threads"), format!("{t}/ran_on")]
            })
            .map(|t| sim.bus_mut().subscribe(&t, 100))
            .collect();
        for _ in 0..100 {
            sim.step();
        }
        assert!(sim.failures().is_empty(), "{:?}", sim.failures());
        let got = last_ints(&subs.iter().collect::<Vec<_>>());
        for s in got.chunks(3) {
            let (sums, offered, ran_on) = (&s[0], &s[1], &s[2]);
            assert_eq!(sums.len(), 11, "11 updates in 0.1 s at 100 Hz");
            assert!(sums.iter().all(|&v| v == 2080), "each chunk once: {sums:?}");
            assert!(offered.iter().all(|&t| t == threads as i64), "{offered:?}");
            let most = ran_on.iter().copied().max().unwrap();
            if threads == 1 {
                assert_eq!(most, 1, "one thread runs them all");
            } else {
                assert!((1..=2).contains(&most), "{ran_on:?}");
            }
        }
        if threads == 2 && sensors.len() == 1 {
            // The simulation thread and a worker: with 64 chunks of 0.2 ms each, the worker
            // wakes and takes some in at least one of the ten updates.
            let ran_on = &got[2];
            assert!(ran_on.contains(&2), "both threads ran chunks: {ran_on:?}");
        }
    }
}

/// A panic inside a chunk disables the sensor (reported with its message) once every chunk
/// ran; the simulation and the other sensors go on.
#[test]
fn a_sensor_panicking_in_a_chunk_is_disabled_and_the_run_goes_on() {
    let dir = stage(&["simcore_fixture_testkit", "simcore_plugin_imu"]);
    let sensors = format!(
        "{}{}",
        r#"<sensor name="bad" type="fixture_chunks"><update_rate>100</update_rate><panic_chunk>5</panic_chunk></sensor>"#,
        imu("s", 100.0, "")
    );
    for threads in [1, 2] {
        let mut sim = sim_from(
            &world(&box_model("box", 0.1, &sensors)),
            dir.path(),
            0,
            threads,
        );
        let good = sim
            .bus_mut()
            .subscribe("/world/test/model/box/link/body/sensor/s/imu", 1000);
        for _ in 0..200 {
            sim.step();
        }
        assert_eq!(good.drain().len(), 21, "the other sensor keeps publishing");
        let f = sim.failures();
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].subject.contains("box::body::bad"), "{}", f[0].subject);
        assert!(
            f[0].error.contains("fixture panic in chunk 5"),
            "{}",
            f[0].error
        );
    }
}

#[test]
fn a_system_plugin_panicking_in_pre_step_is_disabled_reported_and_the_world_goes_on() {
    let dir = stage(&["simcore_fixture_testkit", "simcore_plugin_imu"]);
    let panicker = r#"<plugin filename="simcore_fixture_testkit" name="simcore::fixtures::Panicker"><panic_at>20</panic_at></plugin>"#;
    let models = format!("{panicker}{}", box_model("box", 0.5, &imu("s", 100.0, "")));
    let mut sim = sim_from(&world(&models), dir.path(), 0, 1);
    let steps = sim.bus_mut().subscribe("/fixture/panicker", 1000);
    let good = sim
        .bus_mut()
        .subscribe("/world/test/model/box/link/body/sensor/s/imu", 1000);
    let mut reported = Vec::new();
    for _ in 0..500 {
        reported.extend(sim.step().to_vec());
    }
    assert_eq!(
        reported.len(),
        1,
        "reported once, by the step: {reported:?}"
    );
    let f = &reported[0];
    assert!(
        f.subject.contains("simcore::fixtures::Panicker"),
        "{}",
        f.subject
    );
    assert!(
        f.error.contains("fixture system panic at iteration 20"),
        "{}",
        f.error
    );
    assert_eq!(f.time.nanos, 20_000_000, "at the iteration it panicked in");
    assert!(
        f.span.line > 0,
        "with the place it was declared: {}",
        f.span
    );
    assert_eq!(sim.failures(), reported.as_slice());
    // Its post_step ran for the 20 steps before, never after.
    assert_eq!(steps.drain().len(), 20);
    // The world goes on: 500 steps done, the IMU kept publishing.
    assert_eq!(sim.time().nanos, 500_000_000);
    assert_eq!(good.drain().len(), 51, "100 Hz: at 1 ms, then every 10 ms");
    let report = sim
        .run(
            sim_core::runner::RunLimit::Steps(1),
            0.0,
            &std::sync::atomic::AtomicBool::new(false),
            |_| {},
        )
        .systems;
    assert!(
        report[0]
            .disabled
            .as_deref()
            .is_some_and(|d| d.contains("fixture system panic")),
        "{report:?}"
    );
    let e = sim
        .call_service(
            "/fixture/panicker/ping",
            &sim_plugin_api::Message::new("", Payload::Empty),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("disabled"), "{e}");
}

#[test]
fn a_system_plugin_commands_and_publishes() {
    let dir = stage(&["simcore_fixture_testkit"]);
    let model = floating_model(
        "cart",
        r#"<plugin filename="simcore_fixture_testkit" name="simcore::fixtures::Pusher"/>"#,
    );
    let mut sim = sim_from(&world(&model), dir.path(), 0, 1);
    let poses = sim.bus_mut().subscribe("/model/cart/pose", 10_000);
    let cmd = sim.bus_mut().intern("/model/cart/cmd_vel");
    let twist = sim_plugin_api::Twist {
        linear: sim_plugin_api::Vec3::new(1.0, 0.0, 0.0),
        ..Default::default()
    };
    sim.bus_mut()
        .publish(cmd, sim_plugin_api::Message::new("", Payload::Twist(twist)));
    for _ in 0..1000 {
        sim.step();
    }
    let p = poses.drain();
    assert_eq!(p.len(), 1000);
    match p.last().unwrap().message.payload.as_enum() {
        Ok(Payload::Pose(np)) => {
            assert_eq!(np.name.as_str(), "cart");
            assert!(
                (np.pose.position.x - 1.0).abs() < 1e-3,
                "moved {:?}",
                np.pose.position
            );
            assert!((np.pose.position.z - 5.0).abs() < 1e-6);
        }
        other => panic!("{other:?}"),
    }
}

fn load_problems(sdf: &str, dir: &std::path::Path) -> Vec<String> {
    let world = sim_core::sdf::parse_str(sdf, None).expect("valid SDF");
    match Simulation::new(world, registry_in(dir), &SimOptions::default()) {
        Err(LoadError::Plugins(p)) => p.iter().map(|p| p.to_string()).collect(),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("the world loaded"),
    }
}

#[test]
fn world_files_cannot_name_libraries_outside_the_search_path() {
    let dir = stage(&["simcore_fixture_testkit"]);
    let plugin = |f: &str| {
        format!(
            r#"<model name="m"><link name="l"/><plugin filename="{f}" name="simcore::fixtures::Pusher"/></model>"#
        )
    };
    for evil in ["../evil", "/tmp/libevil.so", "sub/dir/libx.so"] {
        let p = load_problems(&world(&plugin(evil)), dir.path());
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("is not allowed"), "{}", p[0]);
    }
    let unserved = plugin("no_such_library").replace("Pusher", "Nobody");
    let p = load_problems(&world(&unserved), dir.path());
    assert!(
        p[0].contains("no plugin library `no_such_library`"),
        "{}",
        p[0]
    );
    // A bare file name no library has: the library serving the plugin's name serves it.
    let world = sim_core::sdf::parse_str(&world(&plugin("no_such_library")), None).unwrap();
    let sim = Simulation::new(world, registry_in(dir.path()), &SimOptions::default())
        .expect("served by its name");
    assert!(sim.skipped().is_empty());
}

#[test]
fn all_plugin_problems_are_reported_together() {
    let dir = stage(&["simcore_plugin_imu", "simcore_fixture_wrong_major"]);
    let sensors = format!(
        "{}{}{}",
        r#"<sensor name="sonar" type="sonar_x"/>"#,
        r#"<sensor name="bad_topic" type="imu"><topic>has space</topic></sensor>"#,
        r#"<sensor name="bad_noise" type="imu"><imu><linear_acceleration><x><noise type="pink"/></x></linear_acceleration></imu></sensor>"#,
    );
    let p = load_problems(&world(&box_model("box", 1.0, &sensors)), dir.path());
    assert_eq!(p.len(), 3, "{p:#?}");
    assert!(
        p[0].contains("no plugin library serves sensor type `sonar_x`") && p[0].contains("imu"),
        "{}",
        p[0]
    );
    assert!(
        p[0].contains("refused libraries") && p[0].contains("2.0.0"),
        "{}",
        p[0]
    );
    assert!(p[1].contains("invalid topic name"), "{}", p[1]);
    assert!(
        p[2].contains("box::body::bad_noise") && p[2].contains("pink"),
        "{}",
        p[2]
    );
}

#[test]
fn a_system_removes_a_model_with_its_sensors() {
    let dir = stage(&["simcore_fixture_testkit", "simcore_plugin_imu"]);
    let models = format!(
        "{}{}{}",
        box_model("a", 0.1, &imu("s", 100.0, "")),
        box_model("b", 0.1, &imu("s", 100.0, "")).replace("<pose>0 0 0.1", "<pose>3 0 0.1"),
        r#"<plugin filename="simcore_fixture_testkit" name="simcore::fixtures::Remover"/>"#
    );
    let mut sim = sim_from(&world(&models), dir.path(), 0, 1);
    let a = sim
        .bus_mut()
        .subscribe("/world/test/model/a/link/body/sensor/s/imu", 1000);
    let b = sim
        .bus_mut()
        .subscribe("/world/test/model/b/link/body/sensor/s/imu", 1000);
    for _ in 0..100 {
        sim.step();
    }
    let remove = sim.bus_mut().intern("/fixture/remove");
    sim.bus_mut().publish(
        remove,
        sim_plugin_api::Message::new("", Payload::Text("a".into())),
    );
    for _ in 0..100 {
        sim.step();
    }
    let a_stamps: Vec<i64> = collect(&a).iter().map(|x| x.0).collect();
    assert_eq!(
        a_stamps,
        update_stamps(10_000_000, 1_000_000, 100),
        "a's IMU stops with its model"
    );
    assert_eq!(collect(&b).len(), 21, "b's IMU goes on");
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    assert_eq!(sim.physics().entity_id("a"), None);
    assert_eq!(sim.physics().entity_id("a::body::s"), None);
    assert_eq!(sim.sensors().len(), 1);
    // Rays no longer hit it.
    let view = sim.physics().view("test");
    let ray = [sim_plugin_api::Ray {
        origin: sim_plugin_api::Vec3::new(0.0, 0.0, 5.0),
        direction: sim_plugin_api::Vec3::new(0.0, 0.0, -1.0),
    }];
    let mut hit = vec![];
    let w = sim_plugin_api::WorldView_TO::from_ptr(
        &view,
        sim_plugin_api::abi_stable::sabi_trait::TD_Opaque,
    );
    let opts = sim_plugin_api::RayCastOptions {
        max_distance: 10.0,
        target: sim_plugin_api::RayTarget::COLLISION,
        exclude_model: sim_plugin_api::EntityId::NONE,
    };
    w.cast_ray_batch(&ray, &opts, &mut hit);
    assert!((hit[0].distance - 5.0).abs() < 1e-5, "{:?}", hit[0]);
}

#[test]
fn models_are_created_at_run_time_with_their_sensors() {
    let dir = stage(&["simcore_fixture_testkit", "simcore_plugin_imu"]);
    let remover =
        r#"<plugin filename="simcore_fixture_testkit" name="simcore::fixtures::Remover"/>"#;
    let mut sim = sim_from(&world(remover), dir.path(), 0, 1);
    let sdf = format!(
        "<sdf version='1.9'>{}</sdf>",
        box_model("spawned", 3.0, &imu("s", 100.0, ""))
    );
    let request = |name: &str, renaming: bool, sdf: &str| sim_plugin_api::EntityFactory {
        sdf: sdf.into(),
        name: name.into(),
        allow_renaming: renaming,
        pose: sim_plugin_api::Pose::from_xyz_rpy(5.0, 0.0, 1.0, 0.0, 0.0, 0.0),
        ..Default::default()
    };
    let imu_topic = "/world/test/model/spawned/link/body/sensor/s/imu";
    let sub = sim.bus_mut().subscribe(imu_topic, 1000);
    for _ in 0..50 {
        sim.step();
    }
    // Through a plugin's command queue.
    let spawn = sim.bus_mut().intern("/fixture/spawn");
    sim.bus_mut().publish(
        spawn,
        sim_plugin_api::Message::new(
            "",
            Payload::EntityFactory(sim_plugin_api::abi_stable::std_types::RBox::new(request(
                "", false, &sdf,
            ))),
        ),
    );
    for _ in 0..100 {
        sim.step();
    }
    let got = collect(&sub);
    assert_eq!(
        got.len(),
        11,
        "the new IMU publishes from the step that created it on"
    );
    assert_eq!(
        got[0].0, 51_000_000,
        "created in the iteration from 50 ms, sampled at its end"
    );
    let id = sim
        .physics()
        .entity_id("spawned")
        .expect("the model exists");
    let pose = sim.physics().kinematics_of(id).unwrap().pose;
    assert!(
        (pose.position.x - 5.0).abs() < 1e-6,
        "the request's pose replaced the model's: {pose:?}"
    );

    // Directly: a clash, renaming, and bad SDF with its diagnostic.
    let e = sim
        .spawn(&request("", false, &sdf))
        .unwrap_err()
        .to_string();
    assert!(e.contains("already exists"), "{e}");
    let id = sim.spawn(&request("", true, &sdf)).unwrap();
    assert_eq!(sim.physics().scoped_name(id), Some("spawned_1"));
    let e = sim.spawn(&request("broken", false, "<sdf version='1.9'>\n<model name='x'><link name='l'><inertial><mass>-2</mass></inertial></link></model></sdf>")).unwrap_err().to_string();
    assert!(
        e.contains("mass") && e.contains("2 |"),
        "the diagnostic quotes the line: {e}"
    );
    assert_eq!(sim.physics().entity_id("broken"), None);
    let e = sim
        .spawn(&request("big", false, &"x".repeat(2 << 20)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("limited to"), "{e}");
    let e = sim
        .spawn(&request(
            "noplugin",
            false,
            &format!(
                "<sdf version='1.9'>{}</sdf>",
                box_model("n", 1.0, "<sensor name='x' type='sonar_x'/>")
            ),
        ))
        .unwrap_err()
        .to_string();
    assert!(e.contains("sonar_x"), "{e}");
    assert_eq!(
        sim.physics().entity_id("noplugin"),
        None,
        "nothing is added when a plugin is missing"
    );
    assert!(sim.failures().is_empty());
    for _ in 0..10 {
        sim.step();
    }
}
