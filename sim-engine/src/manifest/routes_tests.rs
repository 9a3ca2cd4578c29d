//! The manifest's `[sensors]` and `[plugins]` tables: which library serves what.

use super::*;

fn load(text: &str) -> Result<Manifest, ManifestError> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("run.toml");
    std::fs::write(&p, text).unwrap();
    Manifest::load(&p)
}

#[test]
fn reads_sensor_and_plugin_routes() {
    let m = load(
        r#"
world = "w.sdf"
[sensors]
lidar = "simcore_plugin_lidar"
gpu_ray = "libmy_lidar.so"
[plugins]
"gz::sim::systems::DiffDrive" = "simcore_plugin_diff_drive"
"my::Odometry" = { library = "simcore_plugin_diff_drive", name = "simcore::DiffDrive" }
"#,
    )
    .unwrap();
    assert_eq!(m.sensors["lidar"], "simcore_plugin_lidar");
    assert_eq!(m.sensors["gpu_ray"], "libmy_lidar.so");
    assert_eq!(
        m.plugins["gz::sim::systems::DiffDrive"],
        PluginRoute::Library("simcore_plugin_diff_drive".into())
    );
    let r = &m.plugins["my::Odometry"];
    assert_eq!(
        (r.library(), r.factory()),
        ("simcore_plugin_diff_drive", Some("simcore::DiffDrive"))
    );
}

#[test]
fn a_route_to_a_path_is_refused_with_its_key() {
    let e = load("[sensors]\nimu = \"/tmp/libimu.so\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("[sensors] imu") && e.contains("absolute path") && e.contains("bare name"),
        "{e}"
    );
    let e = load("[plugins]\n\"a::B\" = { library = \"../x\", name = \"n\" }\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("[plugins] \"a::B\"") && e.contains(".."), "{e}");
}

#[test]
fn a_misspelt_route_table_is_an_error() {
    let e = load("[sensor]\nimu = \"x\"\n").unwrap_err().to_string();
    assert!(e.contains(":1:") && e.contains("sensor"), "{e}");
}
