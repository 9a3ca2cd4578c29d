//! End to end checks of what the SDF issue asks of the command line: the run manifest's
//! routes (which library serves which sensor type / plugin name) and example worlds.

use crate::common;

use common::*;

/// A world written for Gazebo: an IMU and the pose publisher under Gazebo's library name.
const GAZEBO_WORLD: &str = r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="w">
    <physics type="ode"><max_step_size>0.001</max_step_size></physics>
    <plugin filename="gz-sim-pose-publisher-system" name="gz::sim::systems::PosePublisher"/>
    <model name="box">
      <link name="body">
        <sensor name="imu" type="imu"><update_rate>10</update_rate></sensor>
      </link>
    </model>
  </world>
</sdf>
"#;

fn manifest(dir: &std::path::Path, plugins: &std::path::Path, routes: &str) -> std::path::PathBuf {
    std::fs::write(dir.join("w.sdf"), GAZEBO_WORLD).unwrap();
    let m = dir.join("run.toml");
    std::fs::write(
        &m,
        format!(
            "world = \"w.sdf\"\nreal_time_factor = 0\nplugin_paths = [\"{}\"]\n{routes}",
            plugins.display()
        ),
    )
    .unwrap();
    m
}

#[test]
fn the_manifest_routes_a_gazebo_plugin_name_to_a_simcore_library() {
    let libs = stage(&["simcore_plugin_imu", "simcore_plugin_truth"]);
    let tmp = tempfile::tempdir().unwrap();
    let m = manifest(tmp.path(), libs.path(), "");
    // Without a route, the truth plugin serves the plugin by its gz-sim name.
    let o = simcore(&["run", m.to_str().unwrap(), "--steps", "10"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("plugin gz::sim::systems::PosePublisher on w (libsimcore_plugin_truth"),
        "{}",
        stderr(&o)
    );
    let m = manifest(
        tmp.path(),
        libs.path(),
        "[plugins]\n\"gz::sim::systems::PosePublisher\" = \"simcore_plugin_truth\"\n\
         [sensors]\nimu = \"simcore_plugin_imu\"\n",
    );
    let o = simcore(&["run", m.to_str().unwrap(), "--steps", "10"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("10 steps"), "{}", stderr(&o));
}

#[test]
fn a_sensor_routed_to_a_library_that_does_not_serve_it_is_refused() {
    let libs = stage(&["simcore_plugin_imu", "simcore_plugin_truth"]);
    let tmp = tempfile::tempdir().unwrap();
    let m = manifest(
        tmp.path(),
        libs.path(),
        "[plugins]\n\"gz::sim::systems::PosePublisher\" = \"simcore_plugin_truth\"\n\
         [sensors]\nimu = \"simcore_plugin_truth\"\n",
    );
    let o = simcore(&["run", m.to_str().unwrap(), "--steps", "10"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("sensor `box::body::imu`")
            && e.contains("does not serve sensor type `imu`")
            && e.contains("[sensors]"),
        "{e}"
    );
}

fn link_plugin_world(dir: &std::path::Path, filename: &str) -> std::path::PathBuf {
    let w = dir.join("link_plugin.sdf");
    std::fs::write(
        &w,
        format!(
            r#"<?xml version="1.0"?>
<sdf version="1.9"><world name="w">
  <physics type="ode"><max_step_size>0.001</max_step_size></physics>
  <model name="m"><link name="body">
    <plugin filename="{filename}" name="simcore::fixtures::Pusher"/>
  </link></model>
</world></sdf>
"#
        ),
    )
    .unwrap();
    w
}

#[test]
fn a_plugin_in_a_link_is_loaded_attached_to_the_link() {
    let libs = stage(&["simcore_fixture_testkit"]);
    let tmp = tempfile::tempdir().unwrap();
    let plugin_path = libs.path().to_str().unwrap();
    // A library serving the plugin's name serves it whatever its filename says.
    let w = link_plugin_world(tmp.path(), "no_such_library");
    let run = |w: &std::path::Path, strict: bool| {
        let mut args = vec![
            "run",
            w.to_str().unwrap(),
            "--steps",
            "10",
            "--rtf",
            "0",
            "--plugin-path",
            plugin_path,
        ];
        if strict {
            args.push("--strict");
        }
        simcore(&args)
    };
    let o = run(&w, true);
    assert!(o.status.success(), "{}", stderr(&o));
    // A name no library serves either: refused under --strict, skipped otherwise.
    let text = std::fs::read_to_string(&w)
        .unwrap()
        .replace("simcore::fixtures::Pusher", "simcore::fixtures::Nobody");
    std::fs::write(&w, text).unwrap();
    let o = run(&w, true);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no plugin library `no_such_library`"),
        "{}",
        stderr(&o)
    );
    let o = run(&w, false);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning:")
            && stderr(&o).contains("no plugin library `no_such_library`"),
        "{}",
        stderr(&o)
    );
    let w = link_plugin_world(tmp.path(), "simcore_fixture_testkit");
    let o = simcore(&[
        "run",
        w.to_str().unwrap(),
        "--list",
        "--plugin-path",
        plugin_path,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The pusher subscribes to `cmd_vel` in its entity's namespace.
    assert!(stdout(&o).contains("cmd_vel"), "{}", stdout(&o));
}
