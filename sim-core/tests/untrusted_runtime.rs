//! Untrusted input at run time (see `docs/untrusted-input.md`): sensor sizes and rates a world
//! asks for, what the factory builds, numbers in commands, plugin directories, and what
//! create/remove pairs keep. Each test runs real worlds through the real `simcore` binary or
//! the real `Simulation`, with the real plugin libraries.

use crate::common;
use crate::hostile;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{json_lines, registry_in, simcore, stage, stderr, stdout};
use sim_core::runner::{SimOptions, Simulation};
use sim_plugin_api::{EntityFactory, Message, Payload, abi_stable::std_types::RBox};

/// Runs the real `simcore` binary with `args`, killing it if it has not ended after two
/// minutes (a run of a few steps takes well under a second): the input made it hang.
fn simcore_or_hang(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_simcore"))
        .args(args)
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env("SIMCORE_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("simcore runs");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("simcore {args:?} hangs");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// Writes `world.sdf` with one model carrying `sensors` into `dir`.
fn sensor_world(dir: &Path, sensors: &str) -> PathBuf {
    let path = dir.join("world.sdf");
    std::fs::write(
        &path,
        format!(
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"w\">\n\
             <model name=\"m\"><static>true</static><link name=\"l\">\n{sensors}\n</link></model>\n\
             </world>\n</sdf>\n"
        ),
    )
    .unwrap();
    path
}

fn camera(width: u64, height: u64) -> String {
    format!(
        "<sensor name=\"cam\" type=\"camera\">\n<camera><image>\n<width>{width}</width>\n\
         <height>{height}</height>\n</image></camera></sensor>"
    )
}

fn lidar(horizontal: u64, vertical: u64) -> String {
    format!(
        "<sensor name=\"scan\" type=\"gpu_lidar\"><lidar><scan>\n\
         <horizontal><samples>{horizontal}</samples><min_angle>-1</min_angle><max_angle>1</max_angle></horizontal>\n\
         <vertical><samples>{vertical}</samples></vertical>\n\
         </scan><range><min>0.1</min><max>10</max></range></lidar></sensor>"
    )
}

#[test]
fn sensor_sizes_are_bounded_when_the_world_is_read() {
    let t = tempfile::tempdir().unwrap();
    let cases = [
        // A 10000 x 10000 camera: 4.8 GB in one allocation before the bound.
        (
            camera(10_000, 10_000),
            "world.sdf:7:",
            "--max-camera-pixels",
        ),
        // A tall image is placed at its height.
        (camera(2, 10_000_000), "world.sdf:8:", "--max-camera-pixels"),
        // 10^9 lidar samples had no upper bound at all.
        (lidar(1_000_000_000, 1), "world.sdf:6:", "--max-lidar-rays"),
        (lidar(2048, 4096), "world.sdf:7:", "--max-lidar-rays"),
    ];
    for (sensor, place, flag) in cases {
        let world = sensor_world(t.path(), &sensor);
        let w = world.to_str().unwrap();
        for args in [vec!["check", w], vec!["run", w, "--steps", "1"]] {
            let out = simcore(&args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(place), "{args:?}: no {place} in {err}");
            assert!(err.contains(flag), "{args:?}: no {flag} in {err}");
        }
    }
    // The flags move the limits both ways.
    let world = sensor_world(t.path(), &camera(100, 100));
    let w = world.to_str().unwrap();
    assert!(simcore(&["check", w]).status.success());
    let out = simcore(&["check", w, "--max-camera-pixels", "9999"]);
    assert!(stderr(&out).contains("10000 pixels"), "{}", stderr(&out));
    let world = sensor_world(t.path(), &lidar(2048, 1024));
    let w = world.to_str().unwrap();
    assert!(!simcore(&["check", w]).status.success());
    let out = simcore(&["check", w, "--max-lidar-rays", "2097152"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn extreme_update_rates_end_and_check_says_what_they_do() {
    let t = tempfile::tempdir().unwrap();
    let world = sensor_world(
        t.path(),
        "<sensor name=\"fast\" type=\"altimeter\"><update_rate>1e18</update_rate></sensor>\n\
         <sensor name=\"slow\" type=\"altimeter\"><update_rate>1e-300</update_rate></sensor>",
    );
    let w = world.to_str().unwrap();
    let out = simcore(&["check", w]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("world.sdf:5:") && err.contains("updates at every step"),
        "{err}"
    );
    assert!(
        err.contains("world.sdf:6:") && err.contains("updates once, at the start"),
        "{err}"
    );
    // The catch-up of a 1e18 Hz sensor ran forever before; now each step costs one update.
    // (An altimeter publishes at every update, the first at t = 0 included.)
    let plugins = stage(&["simcore_plugin_altimeter"]);
    let topic = |s: &str| format!("/world/w/model/m/link/l/sensor/{s}/altimeter");
    let (fast, slow) = (topic("fast"), topic("slow"));
    let out = simcore_or_hang(&[
        "run",
        w,
        "--steps",
        "10",
        "--rtf",
        "0",
        "--echo",
        &fast,
        "--echo",
        &slow,
        "--plugin-path",
        plugins.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let on = |t: &str| lines.iter().filter(|l| l["topic"] == t).count();
    assert_eq!(on(&fast), 10, "at every step");
    assert_eq!(on(&slow), 1, "once, at the start");
}

/// Writes `world.sdf`, an empty world named `w` with the factory, into `dir`.
fn factory_world(dir: &Path) -> PathBuf {
    let path = dir.join("world.sdf");
    std::fs::write(
        &path,
        "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"><world name=\"w\">\n\
         <plugin filename=\"simcore_plugin_factory\" name=\"simcore::Factory\"/>\n\
         </world></sdf>\n",
    )
    .unwrap();
    path
}

/// The real simulation of the world file `path`, with the libraries in `libs`.
fn sim_of(path: &Path, libs: &Path) -> Simulation {
    let options = sim_core::sdf::LoadOptions {
        ignore_env: true,
        ..Default::default()
    };
    let world = sim_core::sdf::load_with(path, &options).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(
        world,
        registry_in(libs),
        &SimOptions {
            seed: 0,
            threads: 1,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A create request carrying the SDF text `sdf`.
fn create_text(sdf: &str) -> Message {
    let r = EntityFactory {
        sdf: sdf.into(),
        ..Default::default()
    };
    Message::new("", Payload::EntityFactory(RBox::new(r)))
}

/// A remove request for the model `name`.
fn remove_named(name: &str) -> Message {
    Message::new("", Payload::Text(name.into()))
}

fn create_file(file: &str) -> Message {
    let r = EntityFactory {
        sdf_filename: file.into(),
        ..Default::default()
    };
    Message::new("", Payload::EntityFactory(RBox::new(r)))
}

fn model_count(sim: &Simulation) -> usize {
    use sim_plugin_api::WorldView;
    let mut v = sim_plugin_api::abi_stable::std_types::RVec::new();
    sim.physics().view("t").models(&mut v);
    v.len()
}

#[test]
fn the_factory_replies_success_only_for_a_model_it_built() {
    let t = tempfile::tempdir().unwrap();
    let world = factory_world(t.path());
    let model = |name: &str, mesh: &str| {
        format!(
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"><model name=\"{name}\"><link name=\"l\">\n\
             <inertial><mass>1</mass></inertial>\n\
             <collision name=\"c\"><geometry><mesh><uri>{mesh}</uri></mesh></geometry></collision>\n\
             </link></model></sdf>\n"
        )
    };
    // A mesh the reader finds but the build cannot read: an STL cut off in its header.
    std::fs::write(t.path().join("broken.stl"), b"\x00\x01 not an stl").unwrap();
    std::fs::write(t.path().join("broken.sdf"), model("broken", "broken.stl")).unwrap();
    std::fs::write(
        t.path().join("solid.stl"),
        hostile::stl(&hostile::tetrahedron(), None),
    )
    .unwrap();
    std::fs::write(t.path().join("solid.sdf"), model("solid", "solid.stl")).unwrap();

    let libs = stage(&["simcore_plugin_factory"]);
    let mut sim = sim_of(&world, libs.path());
    sim.step();
    let before = model_count(&sim);
    let e = sim
        .call_service("/world/w/create", &create_file("broken.sdf"))
        .expect_err("a model that cannot be built is refused in the reply")
        .to_string();
    assert!(e.contains("the model was not created"), "{e}");
    assert!(e.contains("broken.stl"), "the reply names the mesh: {e}");
    sim.step();
    assert_eq!(model_count(&sim), before, "nothing was added");
    let e = sim
        .call_service(
            "/world/w/remove",
            &Message::new("", Payload::Text("broken".into())),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("no model"), "{e}");
    // A pose past the extent the engine simulates is refused in the reply.
    let far = Message::new(
        "",
        Payload::EntityFactory(RBox::new(EntityFactory {
            sdf_filename: "solid.sdf".into(),
            pose: sim_plugin_api::Pose::new(
                sim_plugin_api::Vec3::new(1e300, 0.0, 0.0),
                sim_plugin_api::Quat::IDENTITY,
            ),
            ..Default::default()
        })),
    );
    let e = sim
        .call_service("/world/w/create", &far)
        .unwrap_err()
        .to_string();
    assert!(e.contains("`position.x` is 1e300"), "{e}");
    // A good model is built once checked, and is there at the next step.
    let reply = sim
        .call_service("/world/w/create", &create_file("solid.sdf"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(reply.payload.as_enum(), Ok(Payload::Pose(_))));
    sim.step();
    assert_eq!(model_count(&sim), before + 1);
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
}

/// A model file's lookup is confined as a world's includes are: an absolute path or a
/// `model://` URI that leads out of the world's directory and the resource search path is
/// refused in the reply, naming the file, and nothing is created; inside, both work; a world
/// loaded with `read_anywhere` may create from anywhere.
#[test]
fn the_factory_reads_model_files_only_from_the_world_directory_and_resource_path() {
    let t = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let world = factory_world(t.path());
    let model = |name: &str| {
        format!(
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"><model name=\"{name}\"><static>true</static>\
             <link name=\"l\"/></model></sdf>\n"
        )
    };
    std::fs::write(outside.path().join("secret.sdf"), model("secret")).unwrap();
    std::fs::create_dir_all(t.path().join("models/crate")).unwrap();
    std::fs::write(t.path().join("models/crate/model.sdf"), model("crate")).unwrap();
    std::fs::write(
        t.path().join("models/crate/model.config"),
        "<model><name>crate</name><sdf version=\"1.9\">model.sdf</sdf></model>",
    )
    .unwrap();
    std::fs::write(t.path().join("inside.sdf"), model("inside")).unwrap();
    // A link inside the world's directory to the file outside: followed, then refused.
    std::os::unix::fs::symlink(outside.path().join("secret.sdf"), t.path().join("link.sdf"))
        .unwrap();
    let secret = outside.path().join("secret.sdf");
    let escape = format!(
        "model://crate/{}{}",
        "../".repeat(t.path().components().count() + 2),
        secret.display().to_string().trim_start_matches('/')
    );
    let libs = stage(&["simcore_plugin_factory"]);
    let mut sim = sim_of(&world, libs.path());
    sim.step();
    let before = model_count(&sim);
    for refused in [secret.to_str().unwrap(), escape.as_str(), "link.sdf"] {
        let e = sim
            .call_service("/world/w/create", &create_file(refused))
            .expect_err(refused)
            .to_string();
        assert!(
            e.contains("outside the world's directory and the resource search path")
                && e.contains(refused),
            "{refused}: {e}"
        );
    }
    sim.step();
    assert_eq!(model_count(&sim), before, "nothing was created");
    let inside = t.path().join("inside.sdf");
    for accepted in ["model://crate", inside.to_str().unwrap()] {
        sim.call_service("/world/w/create", &create_file(accepted))
            .unwrap_or_else(|e| panic!("{accepted}: {e}"));
    }
    sim.step();
    assert_eq!(model_count(&sim), before + 2);

    // `read_anywhere` lifts the rule for a world loaded with it.
    let options = sim_core::sdf::LoadOptions {
        ignore_env: true,
        limits: sim_core::input::Limits {
            read_anywhere: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let world = sim_core::sdf::load_with(&world, &options).unwrap();
    let mut sim = Simulation::new(world, registry_in(libs.path()), &SimOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    sim.call_service("/world/w/create", &create_file(secret.to_str().unwrap()))
        .unwrap_or_else(|e| panic!("{e}"));
}

/// A create request's SDF text is read as the world's own files are: an include out of the
/// world's directory and resource search path is refused in the reply, naming the file, and
/// nothing is created; one inside is created; the world's `--resource-path` admits a
/// directory, its `read_anywhere` lifts the rule and its file size limit bounds what the
/// text includes.
#[test]
fn the_factory_reads_sdf_text_requests_with_the_world_options() {
    let t = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let world = factory_world(t.path());
    let part = format!(
        "<?xml version=\"1.0\"?>\n<!-- {} -->\n<sdf version=\"1.9\"><model name=\"part\">\
         <static>true</static><link name=\"l\"/></model></sdf>\n",
        "padding ".repeat(250)
    );
    std::fs::write(outside.path().join("part.sdf"), &part).unwrap();
    std::fs::write(t.path().join("part.sdf"), &part).unwrap();
    let text = |name: &str, uri: &Path| {
        create_text(&format!(
            "<sdf version=\"1.9\"><model name=\"{name}\"><static>true</static>\
             <include><uri>{}</uri></include></model></sdf>",
            uri.display()
        ))
    };
    let secret = outside.path().join("part.sdf");
    let inside = t.path().join("part.sdf");
    let libs = stage(&["simcore_plugin_factory"]);

    let mut sim = sim_of(&world, libs.path());
    sim.step();
    let before = model_count(&sim);
    let e = sim
        .call_service("/world/w/create", &text("a", &secret))
        .expect_err("an include outside the world's directory")
        .to_string();
    assert!(
        e.contains("outside the world's directory and the resource search path")
            && e.contains(secret.to_str().unwrap()),
        "{e}"
    );
    sim.step();
    assert_eq!(model_count(&sim), before, "nothing was created");
    assert!(sim.physics().entity_id("a").is_none());
    sim.call_service("/world/w/create", &text("b", &inside))
        .unwrap_or_else(|e| panic!("an include beside the world: {e}"));
    sim.step();
    assert!(
        sim.physics().entity_id("b::part").is_some(),
        "built with its include"
    );

    // The world loaded with `options` (environment left out), running.
    let with = |options: sim_core::sdf::LoadOptions| {
        let options = sim_core::sdf::LoadOptions {
            ignore_env: true,
            ..options
        };
        let loaded = sim_core::sdf::load_with(&world, &options).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Simulation::new(loaded, registry_in(libs.path()), &SimOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        sim.step();
        sim
    };
    // The world's resource search path admits the directory outside.
    let mut sim = with(sim_core::sdf::LoadOptions::with_resource_paths([
        outside.path()
    ]));
    sim.call_service("/world/w/create", &text("c", &secret))
        .unwrap_or_else(|e| panic!("on the resource path: {e}"));
    // `read_anywhere` lifts the rule.
    let limits = |limits| sim_core::sdf::LoadOptions {
        limits,
        ..Default::default()
    };
    let mut sim = with(limits(sim_core::input::Limits {
        read_anywhere: true,
        ..Default::default()
    }));
    sim.call_service("/world/w/create", &text("d", &secret))
        .unwrap_or_else(|e| panic!("read anywhere: {e}"));
    // The world's file size limit bounds the files the text includes (`part.sdf` is over
    // 2000 bytes, the world file under 1000).
    let mut sim = with(limits(sim_core::input::Limits {
        max_sdf_bytes: 1000,
        ..Default::default()
    }));
    let e = sim
        .call_service("/world/w/create", &text("e", &inside))
        .expect_err("an include over the world's size limit")
        .to_string();
    assert!(e.contains("part.sdf") && e.contains("1000"), "{e}");
}

fn twist(linear_x: f64, angular_z: f64) -> Message {
    let t = sim_plugin_api::msgs::Twist {
        linear: sim_plugin_api::Vec3::new(linear_x, 0.0, 0.0),
        angular: sim_plugin_api::Vec3::new(0.0, 0.0, angular_z),
    };
    Message::new("", Payload::Twist(t))
}

fn pose_request(name: &str, pose: sim_plugin_api::Pose) -> Message {
    Message::new(
        "",
        Payload::Pose(RBox::new(sim_plugin_api::msgs::NamedPose {
            name: name.into(),
            pose,
        })),
    )
}

fn pose_of(sim: &Simulation, name: &str) -> sim_plugin_api::Pose {
    let id = sim.physics().entity_id(name).expect(name);
    sim.physics().kinematics_of(id).expect("known").pose
}

fn finite(p: &sim_plugin_api::Pose) -> bool {
    let (a, q) = (p.position, p.orientation);
    [a.x, a.y, a.z, q.x, q.y, q.z, q.w]
        .iter()
        .all(|v| v.is_finite())
}

#[test]
fn numbers_out_of_range_in_commands_are_refused_never_applied() {
    let text = std::fs::read_to_string(common::workspace().join("worlds/diff_drive.sdf")).unwrap();
    let libs = stage(&["simcore_plugin_diff_drive", "simcore_plugin_truth"]);
    let mut sim = common::sim_from(&text, libs.path(), 1, 1);
    for _ in 0..50 {
        sim.step();
    }
    let cmd_vel = sim.bus_mut().intern("/model/robot/cmd_vel");
    let start = pose_of(&sim, "robot::chassis");
    // A NaN or an absurd Twist is refused by the drive, which keeps its last command (none):
    // the robot stays put, its state finite.
    for bad in [
        twist(f64::NAN, 0.0),
        twist(0.0, 1e300),
        twist(f64::INFINITY, 0.0),
    ] {
        sim.bus_mut().publish(cmd_vel, bad);
        for _ in 0..100 {
            sim.step();
        }
        let now = pose_of(&sim, "robot::chassis");
        assert!(finite(&now), "{now:?}");
        assert!((now.position - start.position).length() < 1e-3, "{now:?}");
    }
    // The drive still follows a real command.
    sim.bus_mut().publish(cmd_vel, twist(0.5, 0.0));
    for _ in 0..500 {
        sim.step();
    }
    let moved = pose_of(&sim, "robot::chassis");
    assert!(
        (moved.position - start.position).length() > 0.1,
        "{moved:?}"
    );

    // set_pose with 1e300, NaN or a zero rotation: refused in the reply, naming the field.
    let service = "/world/diff_drive/set_pose";
    let mut far = moved;
    far.position.x = 1e300;
    let mut nan = moved;
    nan.orientation.w = f64::NAN;
    let mut zero = moved;
    zero.orientation = sim_plugin_api::Quat {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        w: 0.0,
    };
    for (pose, field) in [
        (far, "`position.x` is 1e300"),
        (nan, "`orientation.w` is NaN"),
        (zero, "zero quaternion"),
    ] {
        let e = sim
            .call_service(service, &pose_request("robot", pose))
            .expect_err("refused")
            .to_string();
        assert!(e.contains(field), "{e}");
    }
    sim.step();
    let after = pose_of(&sim, "robot::chassis");
    assert!(
        finite(&after) && after.position.x.abs() < 100.0,
        "{after:?}"
    );
}

#[test]
fn the_engine_refuses_commands_out_of_range_from_any_plugin() {
    use sim_core::physics::{CommandError, Physics, PhysicsCommand};
    use sim_plugin_api::{JointCommand, JointCommandMode, Pose, Vec3};
    let text = std::fs::read_to_string(common::workspace().join("worlds/diff_drive.sdf")).unwrap();
    let world = sim_core::sdf::parse_str(&text, None).unwrap();
    let mut physics = Physics::build(&world).unwrap();
    let chassis = physics.entity_id("robot::chassis").unwrap();
    let before = physics.kinematics_of(chassis).unwrap();
    let mut far = Pose::IDENTITY;
    far.position.z = 1e300;
    let cases = [
        (PhysicsCommand::SetPose(chassis, far), "position.z"),
        (
            PhysicsCommand::SetVelocity(chassis, Vec3::new(f64::NAN, 0.0, 0.0), Vec3::ZERO),
            "linear.x",
        ),
        (
            PhysicsCommand::SetVelocity(chassis, Vec3::ZERO, Vec3::new(0.0, 0.0, 1e300)),
            "angular.z",
        ),
        (
            PhysicsCommand::ApplyWrench(chassis, Vec3::ZERO, Vec3::new(0.0, f64::INFINITY, 0.0)),
            "torque.y",
        ),
    ];
    for (command, field) in cases {
        match physics.apply(&command) {
            Err(CommandError::OutOfRange { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{command:?}: {other:?}"),
        }
    }
    let joint = physics.entity_id("robot::left_wheel_joint").unwrap();
    let e = physics
        .joint_command(&JointCommand {
            joint,
            axis: 0,
            mode: JointCommandMode::VELOCITY,
            target: f64::NAN,
            max_force: f64::INFINITY,
            stiffness: 0.0,
            damping: 0.0,
        })
        .unwrap_err();
    assert!(e.to_string().contains("`target` is NaN"), "{e}");
    for _ in 0..10 {
        physics.step();
    }
    let after = physics.kinematics_of(chassis).unwrap();
    assert!(finite(&after.pose), "{after:?}");
    assert!(
        (after.pose.position - before.pose.position).length() < 0.05,
        "{after:?}"
    );
}

/// A proc-macro library of the build: a complete ELF shared object that is not a plugin.
fn unrelated_library() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::workspace().join("target"));
    let deps = target.join("debug/deps");
    std::fs::read_dir(&deps)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("libthiserror_impl") && n.ends_with(".so")
        })
        .expect("the thiserror proc-macro library is built")
}

#[test]
fn plugin_directories_open_only_complete_plugins_and_warn_when_others_can_write() {
    use std::os::unix::fs::PermissionsExt;
    let dir = stage(&["simcore_plugin_imu"]);
    let imu = std::fs::read(dir.path().join(common::lib_file("simcore_plugin_imu"))).unwrap();
    // A truncated copy of a real plugin killed every run with SIGBUS.
    std::fs::write(dir.path().join("libsimcore_cut.so"), &imu[..imu.len() / 3]).unwrap();
    // A hidden copy is never looked at, nor a library that is not a plugin opened.
    std::fs::write(dir.path().join(".libsimcore_hidden.so"), &imu[..100]).unwrap();
    std::fs::copy(unrelated_library(), dir.path().join("libunrelated.so")).unwrap();
    let d = dir.path().to_str().unwrap();
    let out = simcore(&["plugins", "--plugin-path", d]);
    let (text, err) = (stdout(&out), stderr(&out));
    assert!(out.status.success(), "{text}{err}");
    let all = format!("{text}{err}");
    assert!(all.contains("libsimcore_plugin_imu"), "{all}");
    let line = |name: &str| {
        all.lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no {name} in {all}"))
            .to_string()
    };
    assert!(line("libsimcore_cut.so").contains("truncated"), "{all}");
    assert!(
        line("libunrelated.so").contains("it was not opened"),
        "{all}"
    );
    assert!(!all.contains("hidden"), "{all}");
    assert!(!all.contains("writable by every user"), "{all}");
    // A run with that directory goes on with the real plugin.
    let out = simcore(&[
        "run",
        "worlds/imu_drop.sdf",
        "--steps",
        "5",
        "--plugin-path",
        d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // A directory every user may write to is warned about.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = simcore(&["plugins", "--plugin-path", d]);
    assert!(
        stderr(&out).contains("writable by every user"),
        "{}",
        stderr(&out)
    );
}

/// Builds, with the C compiler that links the workspace, `lib{name}.so` in `dir`: a shared
/// object that exports abi_stable's root module symbol (so it passes the checks made without
/// opening it) and, when `serves` is given, a factory list saying it serves that sensor type;
/// its constructor ends the process with status 0, as soon as it is opened.
fn exiting_library(dir: &Path, name: &str, serves: Option<&str>) -> PathBuf {
    let listing = serves.map_or(String::new(), |t| {
        format!(
            "static const char listing[] __attribute__((used)) = \"\\0simcore.factories.v1\\0\"\n\
             \"sensor\\0exits\\0\" \"0.1.0\\0Exits when opened\\0\" \"{t}\\x1f\\0simcore.factories.end\";\n"
        )
    });
    let source = format!(
        "#include <unistd.h>\n\
         __attribute__((visibility(\"default\"))) const char _1as_0lib_1header_0root_bmodule_bloader[64] = {{0}};\n\
         {listing}\
         __attribute__((constructor)) static void leave(void) {{ _exit(0); }}\n"
    );
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, source).unwrap();
    let lib = dir.join(format!("lib{name}.so"));
    let out = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&c)
        .output()
        .expect("the C compiler that links the workspace runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_file(&c).unwrap();
    lib
}

#[test]
fn a_run_opens_only_the_plugin_libraries_its_world_needs() {
    let dir = stage(&["simcore_plugin_imu", "simcore_plugin_diff_drive"]);
    let imu = std::fs::read(dir.path().join(common::lib_file("simcore_plugin_imu"))).unwrap();
    // Before the IMU in search order: a library that ends the process when opened, listing
    // a sensor type no world here uses, and a truncated copy of a real plugin.
    exiting_library(dir.path(), "aaa_exits", Some("exits_probe"));
    std::fs::write(dir.path().join("libaab_cut.so"), &imu[..imu.len() / 2]).unwrap();

    // The real binary (first: opening the library that exits would end this process): a
    // world with an IMU runs to its end and its summary, the library that exits never
    // opened, the truncated copy never mapped.
    let d = dir.path().to_str().unwrap();
    let world = common::workspace().join("worlds/imu_drop.sdf");
    let world = world.to_str().unwrap();
    let out = simcore_or_hang(&["run", world, "--steps", "5", "--plugin-path", d]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("5 steps") && err.contains("box::body::imu"),
        "{err}"
    );

    // What a library serves is read from its file: nothing is opened until a lookup needs it,
    // and then only the library that lists what is looked for.
    let reg = registry_in(dir.path());
    assert!(reg.opened().is_empty());
    let refused = reg.refused();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].reason.contains("truncated"), "{refused:?}");
    assert!(
        reg.served_sensor_types()
            .contains(&"exits_probe".to_string()),
        "{:?}",
        reg.served_sensor_types()
    );
    let imu_factory = reg.sensor_factory("imu").expect("the IMU serves imu");
    assert_eq!(imu_factory.factory.name, "imu");
    let opened: Vec<&str> = reg.opened().iter().map(|l| l.file_name.as_str()).collect();
    assert_eq!(opened, [common::lib_file("simcore_plugin_imu")]);
}

/// Runs `worlds/imu_drop.sdf` for 5 steps with the real binary at `exe`, `SIMCORE_PLUGIN_PATH`
/// set to `env` (or removed) and `args` added.
fn imu_run(exe: &Path, env: Option<&std::ffi::OsStr>, args: &[&str]) -> Output {
    let world = common::workspace().join("worlds/imu_drop.sdf");
    let mut c = Command::new(exe);
    c.args([
        "run",
        world.to_str().unwrap(),
        "--no-transport",
        "--steps",
        "5",
    ])
    .args(args)
    .env("SIMCORE_LOG", "warn");
    match env {
        Some(v) => c.env("SIMCORE_PLUGIN_PATH", v),
        None => c.env_remove("SIMCORE_PLUGIN_PATH"),
    };
    c.output().expect("simcore runs")
}

#[test]
fn a_refused_library_earlier_on_the_path_lets_the_next_of_its_name_serve() {
    let real = stage(&["simcore_plugin_imu"]);
    // The binary, linked into a directory of its own: the executable's directory is on the
    // plugin path, and the build directory holds the real plugins.
    let bin = tempfile::tempdir().unwrap();
    let exe = bin.path().join("simcore");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_simcore"), &exe).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_simcore"), &exe).unwrap();
    }
    let name = common::lib_file("simcore_plugin_imu");
    let imu = std::fs::read(real.path().join(&name)).unwrap();
    let wrong_major = std::fs::read(
        common::plugin_build_dir().join(common::lib_file("simcore_fixture_wrong_major")),
    )
    .unwrap();
    // Copies of the IMU plugin's file name that are refused: a truncated copy and a text file
    // (refused from their headers, without being opened), a library of another ABI major
    // (refused once opened).
    let members: [(&str, Vec<u8>, &str); 3] = [
        ("truncated", imu[..imu.len() / 2].to_vec(), "truncated"),
        (
            "text",
            b"not a library\n".to_vec(),
            "not an ELF shared library",
        ),
        ("wrong major", wrong_major, "2.0.0"),
    ];
    for (what, bytes, reason) in members {
        let early = tempfile::tempdir().unwrap();
        let bad = early.path().join(&name);
        std::fs::write(&bad, &bytes).unwrap();
        let bad_shown = bad.display().to_string();
        let path = std::env::join_paths([early.path(), real.path()]).expect("paths join");
        // Earlier on SIMCORE_PLUGIN_PATH, and earlier on --plugin-path.
        let runs = [
            imu_run(&exe, Some(&path), &[]),
            imu_run(
                &exe,
                None,
                &[
                    "--plugin-path",
                    early.path().to_str().unwrap(),
                    "--plugin-path",
                    real.path().to_str().unwrap(),
                ],
            ),
        ];
        for out in runs {
            let err = stderr(&out);
            assert!(out.status.success(), "{what}: {err}");
            assert!(
                err.contains("5 steps") && err.contains("box::body::imu"),
                "{what}: the real IMU serves the sensor: {err}"
            );
            assert!(!err.contains("skipped"), "{what}: {err}");
            assert!(
                err.lines()
                    .any(|l| l.contains(&bad_shown) && l.contains(reason)),
                "{what}: the refused copy is named with its reason: {err}"
            );
        }
        // Alone on the path: the sensor goes unserved, and the message says which file was
        // refused and why.
        for strict in [false, true] {
            let mut args = vec!["--plugin-path", early.path().to_str().unwrap()];
            if strict {
                args.push("--strict");
            }
            let out = imu_run(&exe, None, &args);
            let err = stderr(&out);
            assert_eq!(out.status.success(), !strict, "{what}: {err}");
            let unserved = err
                .lines()
                .find(|l| l.contains("no plugin library serves sensor type `imu`"))
                .unwrap_or_else(|| panic!("{what}: no message about the IMU: {err}"));
            assert!(
                unserved.contains(&bad_shown) && unserved.contains(reason),
                "{what}: {unserved}"
            );
            assert!(!err.contains("panicked"), "{what}: {err}");
        }
    }
    // A system plugin named by its file: the error names the refused file and its reason.
    let early = tempfile::tempdir().unwrap();
    let dd = common::lib_file("simcore_plugin_diff_drive");
    std::fs::write(early.path().join(&dd), &imu[..imu.len() / 3]).unwrap();
    let reg = registry_in(early.path());
    let e = reg
        .system_factory("simcore_plugin_diff_drive", "diff_drive")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&early.path().join(&dd).display().to_string()) && e.contains("truncated"),
        "{e}"
    );
}

#[test]
fn create_remove_pairs_leave_nothing_behind() {
    let t = tempfile::tempdir().unwrap();
    let world = factory_world(t.path());
    let model = "<sdf version=\"1.9\"><model name=\"pair\">\
         <link name=\"base\"><inertial><mass>1</mass></inertial>\
         <collision name=\"c\"><geometry><box><size>1 1 1</size></box></geometry></collision>\
         <visual name=\"v\"><geometry><box><size>1 1 1</size></box></geometry></visual>\
         <sensor name=\"imu\" type=\"imu\"><update_rate>100</update_rate></sensor></link>\
         <link name=\"arm\"><pose>0 0 1 0 0 0</pose><inertial><mass>1</mass></inertial>\
         <collision name=\"c\"><geometry><sphere><radius>0.2</radius></sphere></geometry></collision></link>\
         <joint name=\"hinge\" type=\"revolute\"><parent>base</parent><child>arm</child>\
         <axis><xyz>1 0 0</xyz></axis></joint>\
         </model></sdf>";
    let libs = stage(&["simcore_plugin_factory", "simcore_plugin_imu"]);
    let mut sim = sim_of(&world, libs.path());
    let (create, remove) = (create_text(model), remove_named("pair"));
    let pair = |sim: &mut Simulation| {
        sim.call_service("/world/w/create", &create)
            .unwrap_or_else(|e| panic!("{e}"));
        for _ in 0..3 {
            sim.step();
        }
        assert_eq!(sim.sensors().len(), 1);
        sim.call_service("/world/w/remove", &remove)
            .unwrap_or_else(|e| panic!("{e}"));
        sim.step();
        assert_eq!(sim.sensors().len(), 0);
    };
    pair(&mut sim);
    let after_one = sim.physics().retained();
    let topics = sim.bus().topics().len();
    for _ in 0..50 {
        pair(&mut sim);
    }
    assert_eq!(sim.physics().retained(), after_one, "after 51 pairs");
    assert_eq!(
        sim.bus().topics().len(),
        topics,
        "the same names, the same topics"
    );
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
}

/// 5,000 create/remove pairs through the running world's services: the entity id table holds
/// the entities that exist (a removed model leaves no place there), every pair's ids are new,
/// and an id kept from a removed model is refused rather than naming a later one.
#[test]
fn the_entity_table_keeps_its_size_over_5000_create_remove_pairs() {
    let t = tempfile::tempdir().unwrap();
    let world = factory_world(t.path());
    let model = "<sdf version=\"1.9\"><model name=\"pair\"><link name=\"l\">\
         <inertial><mass>1</mass></inertial>\
         <collision name=\"c\"><geometry><box><size>1 1 1</size></box></geometry></collision>\
         </link></model></sdf>";
    let libs = stage(&["simcore_plugin_factory"]);
    let mut sim = sim_of(&world, libs.path());
    let (create, remove) = (create_text(model), remove_named("pair"));
    let pair = |sim: &mut Simulation| {
        sim.call_service("/world/w/create", &create)
            .unwrap_or_else(|e| panic!("{e}"));
        sim.step();
        let ids = ["pair", "pair::l", "pair::l::c"].map(|n| sim.physics().entity_id(n).unwrap());
        sim.call_service("/world/w/remove", &remove)
            .unwrap_or_else(|e| panic!("{e}"));
        sim.step();
        ids
    };
    let first = pair(&mut sim);
    let entities = sim.physics().retained().entities;
    let mut last = first;
    for _ in 1..5000 {
        let ids = pair(&mut sim);
        assert!(
            ids.iter().all(|id| id.0 > last[2].0),
            "{ids:?} after {last:?}"
        );
        last = ids;
    }
    assert_eq!(
        sim.physics().retained().entities,
        entities,
        "after 5,000 pairs"
    );
    // The first model's ids name nothing now, though a model of the same name was created
    // 4,999 times since.
    sim.call_service("/world/w/create", &create)
        .unwrap_or_else(|e| panic!("{e}"));
    sim.step();
    for id in &first[..2] {
        assert!(sim.physics().kinematics_of(*id).is_none(), "{id:?}");
    }
    let now = sim.physics().entity_id("pair").unwrap();
    assert!(sim.physics().kinematics_of(now).is_some());
    assert_ne!(now, first[0]);
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
}

/// Writes `world.sdf` into `dir`: one box at a real-time factor given as `rtf` (the text).
fn paced_world(dir: &Path, rtf: &str) -> PathBuf {
    let path = dir.join("world.sdf");
    std::fs::write(
        &path,
        format!(
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"><world name=\"w\">\n\
             <physics type=\"ode\"><max_step_size>0.001</max_step_size>\
             <real_time_factor>{rtf}</real_time_factor></physics>\n\
             <model name=\"m\"><link name=\"l\"><inertial><mass>1</mass></inertial></link></model>\n\
             </world></sdf>\n"
        ),
    )
    .unwrap();
    path
}

/// A paced wait of 10^6 s a step (`<real_time_factor>1e-9`) or more (`--rtf 1e-300`, which
/// panicked computing the wait) ends on SIGINT or SIGTERM, with the summary; and durations
/// given on the command line out of range are refused with the flag and the value, never a
/// panic.
#[test]
fn every_wait_ends_on_a_signal_and_no_duration_from_input_panics() {
    let t = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str], &str); 4] = [
        ("1e-9", &[], "INT"),
        ("1e-300", &[], "TERM"),
        ("1", &["--rtf", "1e-300"], "INT"),
        ("1", &["--rtf", "5e-324"], "TERM"),
    ];
    for (rtf, extra, signal) in cases {
        let world = paced_world(t.path(), rtf);
        let mut child = Command::new(env!("CARGO_BIN_EXE_simcore"))
            .args([
                "run",
                world.to_str().unwrap(),
                "--no-transport",
                "--steps",
                "5",
            ])
            .args(extra)
            .env_remove("SIMCORE_PLUGIN_PATH")
            .env("SIMCORE_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Past loading, in the first paced wait.
        std::thread::sleep(Duration::from_millis(1500));
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let deadline = Instant::now() + Duration::from_secs(30);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                child.kill().unwrap();
                panic!("{rtf} {extra:?}: SIGINT/SIGTERM did not end the wait");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{rtf} {extra:?}: {err}");
        assert!(
            err.contains("(interrupted)") && err.contains("real-time factor of"),
            "{rtf} {extra:?}: {err}"
        );
    }
    let world = paced_world(t.path(), "0");
    let w = world.to_str().unwrap();
    for flag in ["--call-timeout", "--plugin-budget"] {
        for (value, shown) in [
            ("1e300", "1e300"),
            ("1e10", "1e10"),
            ("0", "0"),
            ("NaN", "NaN"),
            ("inf", "inf"),
        ] {
            let out = simcore(&["run", w, "--steps", "1", flag, value]);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{flag} {value}: {err}");
            assert!(
                err.contains(flag) && err.contains(&format!("got {shown}")),
                "{flag} {value}: {err}"
            );
        }
        let out = simcore(&["run", w, "--steps", "1", flag, "1e9"]);
        assert!(out.status.success(), "{flag} 1e9: {}", stderr(&out));
    }
}

/// Runs `script` with bash, `$S` being the real `simcore` and `$P` the plugin directory, in
/// the workspace; returns what it printed.
fn bash(script: &str, plugins: &Path) -> String {
    let out = Command::new("bash")
        .args(["-c", script])
        .env("S", env!("CARGO_BIN_EXE_simcore"))
        .env("P", plugins)
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env("SIMCORE_LOG", "warn")
        .current_dir(common::workspace())
        .output()
        .unwrap();
    format!("{}{}", stdout(&out), stderr(&out))
}

/// No write to a closed or full stdout or stderr panics (the notice that stdout was closed,
/// written to a closed stderr, did); a full stdout is an error that says so (exit 1, the
/// summary kept), where a reader that left is not.
#[test]
fn a_closed_or_full_stdout_or_stderr_never_panics() {
    let plugins = stage(&["simcore_plugin_imu"]);
    let imu = "/world/imu_drop/model/box/link/body/sensor/imu/imu";
    let run = format!(
        "\"$S\" run worlds/imu_drop.sdf --no-transport --rtf 0 --duration 2 \
         --plugin-path \"$P\" --echo {imu}"
    );
    let cases = [
        // Both closed after one line.
        (format!("{run} 2>&1 | head -1 >/dev/null"), "0"),
        (format!("{run} 2>&1 | head -c 10 >/dev/null"), "0"),
        // stderr closed, or full.
        (format!("{run} >/dev/null 2>&-"), "0"),
        (format!("{run} >/dev/null 2>/dev/full"), "0"),
        (format!("{run} 2>/dev/full | head -1 >/dev/null"), "0"),
        // A full stdout, with stderr closed too.
        (format!("{run} >/dev/full 2>&-"), "1"),
        // The other commands.
        (
            "\"$S\" run worlds/imu_drop.sdf --no-transport --list >/dev/full 2>&-".into(),
            "0",
        ),
        (
            "\"$S\" check worlds/imu_drop.sdf >/dev/full 2>&-".into(),
            "0",
        ),
        ("\"$S\" check no-such.sdf 2>/dev/full".into(), "2"),
        (
            "\"$S\" plugins --plugin-path \"$P\" 2>&1 | head -1 >/dev/null".into(),
            "0",
        ),
    ];
    for (script, status) in cases {
        let said = bash(
            &format!("{script}; echo \"status=${{PIPESTATUS[0]}}\""),
            plugins.path(),
        );
        assert!(
            said.contains(&format!("status={status}")),
            "{script}: {said}"
        );
        assert!(!said.contains("panicked"), "{script}: {said}");
    }
    // A full stdout: the run says so and exits 1, its summary printed.
    let said = bash(&format!("{run} >/dev/full"), plugins.path());
    assert!(
        said.contains("writing stdout failed: No space left on device")
            && said.contains("steps, sim time"),
        "{said}"
    );
    assert!(!said.contains("stdout was closed"), "{said}");
}

/// `check` refuses the plugin file names `run` refuses (an absolute path, a directory, `..`),
/// wherever the `<plugin>` is; and an error about a number quotes it as written (`"-1e300"`),
/// not as the number read (301 digits).
#[test]
fn check_refuses_what_run_refuses_and_quotes_numbers_as_written() {
    let t = tempfile::tempdir().unwrap();
    let world = t.path().join("world.sdf");
    let w = world.to_str().unwrap();
    let write = |body: &str| {
        std::fs::write(
            &world,
            format!(
                "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"><world name=\"w\">\n{body}\n</world></sdf>\n"
            ),
        )
        .unwrap();
    };
    for filename in [
        "/abs/libevil.so",
        "../libevil.so",
        "sub/libevil.so",
        "..\\\\evil",
    ] {
        let plugin = format!("<plugin filename=\"{filename}\" name=\"evil::Evil\"/>");
        let places = [
            plugin.clone(),
            format!("<model name=\"m\"><static>true</static><link name=\"l\"/>{plugin}</model>"),
            format!(
                "<model name=\"m\"><static>true</static><model name=\"inner\">\
                 <link name=\"l\">{plugin}</link></model></model>"
            ),
        ];
        for body in &places {
            write(body);
            for args in [vec!["check", w], vec!["run", w, "--steps", "1"]] {
                let out = simcore(&args);
                let err = stderr(&out);
                assert_eq!(out.status.code(), Some(2), "{args:?} {body}: {err}");
                assert!(
                    err.contains(filename) && err.contains("is not allowed"),
                    "{args:?} {body}: {err}"
                );
                assert!(err.contains("world.sdf:"), "the place: {err}");
            }
        }
    }
    // A bare name is fine for check (run looks for the library).
    write("<plugin filename=\"simcore_plugin_none\" name=\"x\"/>");
    let out = simcore(&["check", w]);
    assert!(out.status.success(), "{}", stderr(&out));

    let joint = |dynamics: &str| {
        format!(
            "<model name=\"m\"><link name=\"a\"><inertial><mass>1</mass></inertial></link>\
             <link name=\"b\"><inertial><mass>1</mass></inertial></link>\
             <joint name=\"j\" type=\"revolute\"><parent>a</parent><child>b</child>\
             <axis><xyz>0 0 1</xyz><dynamics>{dynamics}</dynamics></axis></joint></model>"
        )
    };
    let cases = [
        (
            joint("<spring_stiffness>-1e300</spring_stiffness>"),
            "<spring_stiffness> must not be negative, got \"-1e300\"",
        ),
        (
            joint("<damping> -2.5e300 </damping>"),
            "<damping> must not be negative, got \"-2.5e300\"",
        ),
        (
            joint("<friction>-0.000000000000000000000000000001</friction>"),
            "got \"-0.000000000000000000000000000001\"",
        ),
        (
            "<model name=\"m\"><link name=\"l\"><inertial><mass>-1e300</mass></inertial></link></model>"
                .into(),
            "must be greater than 0, found \"-1e300\"",
        ),
        (
            "<physics type=\"ode\"><max_step_size>1e300</max_step_size></physics>".into(),
            "found \"1e300\"",
        ),
        (
            "<atmosphere type=\"adiabatic\"><temperature>-1e300</temperature></atmosphere>".into(),
            "at least 0 K, found \"-1e300\"",
        ),
    ];
    for (body, said) in cases {
        write(&body);
        let out = simcore(&["check", w]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{body}: {err}");
        assert!(err.contains(said), "{body}: no {said} in {err}");
        assert!(
            !err.contains("00000000000000000000000000000000000000"),
            "{err}"
        );
    }
}
