//! What a run serves, with the real plugins: `simcore run --list` names every topic (its
//! direction, payload type, ROS 2 type and plugin) and service of the example worlds before
//! anything was published, `--echo` of a served topic says nothing while a typo names the
//! nearest topic, and every topic the shipped plugins publish was declared, with the type
//! they publish there (`simcore.output_types.v1`).

use crate::common;

use common::*;
use sim_core::runner::{Direction, SimOptions, Simulation};
use std::collections::BTreeMap;

/// `--list` of `world` with `libs`, with the transport's part (the run starts no session for
/// `--list`; a Zenoh option keeps the test harness from adding `--no-transport`).
fn list(world: &str, libs: &[&str]) -> String {
    let dir = stage(libs);
    let o = simcore(&[
        "run",
        world,
        "--list",
        "--zenoh-listen",
        "tcp/127.0.0.1:0",
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

/// The line of `listing` for `name` going `dir`, split in columns (KIND DIR NAME TYPE
/// ROS2_TYPE) and the rest (BY).
fn row<'a>(listing: &'a str, dir: &str, name: &str) -> (Vec<&'a str>, &'a str) {
    let header = listing.lines().next().unwrap_or_default();
    let by_at = header.find("BY").expect("a header line");
    for line in listing.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.len() >= 5 && cols[1] == dir && cols[2] == name {
            return (cols[..5].to_vec(), line[by_at..].trim());
        }
    }
    panic!("no `{dir}` row for {name}:\n{listing}");
}

#[test]
fn list_names_everything_the_diff_drive_world_serves_with_types_and_directions() {
    let out = list(
        "worlds/diff_drive.sdf",
        &["simcore_plugin_diff_drive", "simcore_plugin_truth"],
    );
    assert!(
        out.lines()
            .next()
            .unwrap()
            .starts_with("KIND     DIR  NAME"),
        "{out}"
    );
    let drive = "plugin gz::sim::systems::DiffDrive (on robot)";
    for (dir, name, ty, ros) in [
        (
            "in",
            "/model/robot/cmd_vel",
            "Twist",
            "geometry_msgs/msg/Twist",
        ),
        (
            "in",
            "/model/robot/power/enabled",
            "Boolean",
            "std_msgs/msg/Bool",
        ),
        (
            "out",
            "/model/robot/odometry",
            "Odometry",
            "nav_msgs/msg/Odometry",
        ),
        ("out", "/model/robot/tf", "Pose_V", "tf2_msgs/msg/TFMessage"),
        ("out", "/model/robot/stall", "Boolean", "std_msgs/msg/Bool"),
    ] {
        let (cols, by) = row(&out, dir, name);
        assert_eq!(cols, ["topic", dir, name, ty, ros], "{out}");
        assert_eq!(by, drive);
    }
    let (cols, by) = row(&out, "out", "/world/diff_drive/pose/info");
    assert_eq!(cols[3..], ["Pose_V", "tf2_msgs/msg/TFMessage"]);
    assert_eq!(by, "plugin gz::sim::systems::PosePublisher (on diff_drive)");
    // What the transport serves of its own, said to be its.
    for (name, ros) in [
        ("/clock", "rosgraph_msgs/msg/Clock"),
        ("/tf", "tf2_msgs/msg/TFMessage"),
        ("/tf_static", "tf2_msgs/msg/TFMessage"),
    ] {
        let (cols, by) = row(&out, "out", name);
        assert_eq!(cols, ["topic", "out", name, "-", ros]);
        assert_eq!(by, "transport");
    }
    let (cols, by) = row(&out, "-", "/world/diff_drive/set_pose");
    assert_eq!(cols[0], "service");
    assert_eq!(by, "plugin gz::sim::systems::PosePublisher (on diff_drive)");
    let (cols, by) = row(&out, "-", "/step_simulation");
    assert_eq!(
        cols,
        [
            "service",
            "-",
            "/step_simulation",
            "-",
            "simulation_interfaces/srv/StepSimulation"
        ]
    );
    assert_eq!(by, "transport");

    // Without the transport, only the world's own.
    let dir = stage(&["simcore_plugin_diff_drive", "simcore_plugin_truth"]);
    let o = simcore(&[
        "run",
        "worlds/diff_drive.sdf",
        "--list",
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ]);
    let bare = stdout(&o);
    assert!(row(&bare, "out", "/model/robot/odometry").1 == drive);
    assert!(
        !bare.contains("/clock") && !bare.contains("/step_simulation"),
        "{bare}"
    );
}

#[test]
fn list_names_the_pioneer_world_s_sensor_battery_and_second_topics() {
    let out = list("worlds/pioneer.sdf", PIONEER_LIBS);
    let sensors = "/world/pioneer/model/pioneer/link";
    for (name, ty, ros, by) in [
        (
            "/model/pioneer/battery/main/state".to_string(),
            "BatteryState",
            "sensor_msgs/msg/BatteryState",
            "plugin gz::sim::systems::LinearBatteryPlugin (on pioneer)",
        ),
        (
            "/model/pioneer/power/enabled".into(),
            "Boolean",
            "std_msgs/msg/Bool",
            "plugin gz::sim::systems::LinearBatteryPlugin (on pioneer)",
        ),
        (
            "/model/pioneer/ptz/state".into(),
            "Vector3d",
            "geometry_msgs/msg/Vector3Stamped",
            "plugin simcore::PanTiltZoom (on pioneer)",
        ),
        (
            format!("{sensors}/chassis/sensor/imu/imu"),
            "IMU",
            "sensor_msgs/msg/Imu",
            "sensor pioneer::chassis::imu",
        ),
        (
            format!("{sensors}/chassis/sensor/lidar/scan/points"),
            "PointCloudPacked",
            "sensor_msgs/msg/PointCloud2",
            "sensor pioneer::chassis::lidar",
        ),
        (
            format!("{sensors}/tilt_link/sensor/camera/logical_camera/frustum"),
            "LogicalCameraSensor",
            "simcore_msgs/msg/LogicalCameraFrustum",
            "sensor pioneer::tilt_link::camera",
        ),
    ] {
        let (cols, got_by) = row(&out, "out", &name);
        assert_eq!(cols[3..], [ty, ros], "{name}");
        assert_eq!(got_by, by, "{name}");
    }
    // A lidar's scan leaves as a LaserScan, or as a cloud when it has several rows.
    let (cols, _) = row(&out, "out", &format!("{sensors}/chassis/sensor/lidar/scan"));
    assert_eq!(cols[3], "LaserScan");
    assert_eq!(
        cols[4],
        "sensor_msgs/msg/LaserScan|sensor_msgs/msg/PointCloud2"
    );
    // The battery's power switch is the drive's input too.
    let (cols, by) = row(&out, "in", "/model/pioneer/power/enabled");
    assert_eq!(cols[3], "Boolean");
    assert_eq!(by, "plugin gz::sim::systems::DiffDrive (on pioneer)");
    for service in [
        "/world/pioneer/create",
        "/world/pioneer/set_pose",
        "/world/pioneer/model/pioneer/link/chassis/sensor/imu/imu/set_rate",
        "/spawn_entity",
    ] {
        row(&out, "-", service);
    }
}

#[test]
fn echo_says_nothing_of_a_served_topic_and_names_the_nearest_for_a_typo() {
    let dir = stage(&["simcore_plugin_diff_drive", "simcore_plugin_truth"]);
    let run = |topic: &str| {
        let o = simcore(&[
            "run",
            "worlds/diff_drive.sdf",
            "--rtf",
            "0",
            "--steps",
            "30",
            "--echo",
            topic,
            "--plugin-path",
            dir.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        (stdout(&o), stderr(&o))
    };
    // Odometry is published from the first step on, at 50 Hz.
    let (out, err) = run("/model/robot/odometry");
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(json_lines(&out)[0]["type"], "Odometry");
    // Nothing publishes on the stall topic in this run, but the drive declared it.
    let (out, err) = run("/model/robot/stall");
    assert!(!err.contains("warning") && out.is_empty(), "{err}");

    let (out, err) = run("/model/robot/odmetry");
    assert!(
        err.contains(
            "warning: nothing in this world publishes or listens on `/model/robot/odmetry`; \
             the nearest topic it serves is `/model/robot/odometry`"
        ),
        "{err}"
    );
    assert!(out.is_empty(), "subscribed anyway, nothing came: {out}");
    let (_, err) = run("/model/robot/cmd_vl");
    assert!(
        err.contains("the nearest topic it serves is `/model/robot/cmd_vel`"),
        "{err}"
    );
    // /clock is the transport's, which this run (--no-transport) does not start.
    let (_, err) = run("/clock");
    assert!(
        err.contains("`/clock` is published only by the transport"),
        "{err}"
    );
}

/// Every topic the shipped plugins publish in the example worlds was declared before the
/// first step, with the payload type they publish there, and nothing appears undeclared.
#[test]
fn every_topic_the_shipped_plugins_publish_was_declared_with_its_type() {
    let dir = plugin_build_dir();
    let mut checked = 0;
    let mut worlds: Vec<_> = std::fs::read_dir(workspace().join("worlds"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sdf"))
        .collect();
    worlds.sort();
    for path in worlds {
        // Frames are not saved (they would go to the working directory).
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("<save enabled=\"true\">", "<save enabled=\"false\">");
        let world = sim_core::sdf::parse_str(&text, Some(&path))
            .unwrap_or_else(|e| panic!("{}", e.render(None)));
        let mut sim = Simulation::new(world, registry_in(dir), &SimOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Several plugins may publish on one topic, each its kind.
        let mut declared: BTreeMap<String, Vec<Option<&str>>> = BTreeMap::new();
        for t in sim.served().topics {
            if t.direction == Direction::Out {
                declared.entry(t.topic).or_default().push(t.kind);
            }
        }
        let subs: Vec<_> = declared
            .keys()
            .map(|t| (t.clone(), sim.bus_mut().subscribe(t, 1 << 12)))
            .collect();
        for _ in 0..250 {
            sim.step();
        }
        for (topic, sub) in &subs {
            for e in sub.drain() {
                let got = e
                    .message
                    .payload
                    .as_enum()
                    .map_or("Unknown", |p| p.type_name());
                assert!(
                    declared[topic].contains(&Some(got)),
                    "{}: `{topic}` carries {got}, declared {:?}",
                    path.display(),
                    declared[topic]
                );
                checked += 1;
            }
        }
        for t in sim.served().topics {
            assert!(
                t.direction == Direction::In || t.by.is_empty() || t.kind.is_some(),
                "{}: `{}` was published by {} without being declared",
                path.display(),
                t.topic,
                t.by
            );
        }
    }
    assert!(checked > 100, "{checked} messages checked");
}
