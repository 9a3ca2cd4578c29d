//! Routes of the run manifest: a sensor type or `<plugin name>` served by a named library.

use super::*;
use std::collections::BTreeMap;
use std::path::Path;

/// A directory holding the real IMU and diff-drive libraries, plus a copy of the IMU one
/// under another name (both serve sensor type `imu`), if the plugin libraries are built.
fn staged() -> Option<tempfile::TempDir> {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-plugins/debug");
    let lib = |n: &str| {
        format!(
            "{}{n}.{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_EXTENSION
        )
    };
    let imu = built.join(lib("simcore_plugin_imu"));
    let dd = built.join(lib("simcore_plugin_diff_drive"));
    if !imu.is_file() || !dd.is_file() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&imu, dir.path().join(lib("simcore_plugin_imu"))).unwrap();
    std::fs::copy(&imu, dir.path().join(lib("zz_other_imu"))).unwrap();
    std::fs::copy(&dd, dir.path().join(lib("simcore_plugin_diff_drive"))).unwrap();
    Some(dir)
}

fn registry(dir: &Path) -> Registry {
    Registry::discover(SearchPath::new(&[dir.to_path_buf()], None, &[], None))
}

#[test]
fn a_sensor_route_picks_its_library_over_the_first_on_the_path() {
    let Some(dir) = staged() else {
        eprintln!("plugin libraries not built; run the integration tests first");
        return;
    };
    let reg = registry(dir.path());
    assert_eq!(reg.libraries().len(), 3, "{:?}", reg.refused());
    let first = reg.sensor_factory("imu").unwrap();
    assert!(first.library.file_name.contains("simcore_plugin_imu"));
    let reg = reg.with_routes(
        [("imu".to_string(), "zz_other_imu".to_string())].into(),
        BTreeMap::new(),
    );
    let routed = reg.routed_sensor_factory("imu").unwrap().unwrap();
    assert!(routed.library.file_name.contains("zz_other_imu"));
    // Unrouted types keep the search order.
    assert!(reg.routed_sensor_factory("lidar").unwrap().is_none());
}

#[test]
fn a_sensor_route_to_a_wrong_library_says_so() {
    let Some(dir) = staged() else {
        return;
    };
    let reg = registry(dir.path()).with_routes(
        [
            ("imu".to_string(), "simcore_plugin_diff_drive".to_string()),
            ("navsat".to_string(), "no_such_lib".to_string()),
        ]
        .into(),
        BTreeMap::new(),
    );
    let e = reg.routed_sensor_factory("imu").unwrap_err().to_string();
    assert!(
        e.contains("does not serve sensor type `imu`")
            && e.contains("[sensors]")
            && e.contains("its sensor types: none"),
        "{e}"
    );
    assert!(reg.sensor_factory("imu").is_none());
    let e = reg.routed_sensor_factory("navsat").unwrap_err().to_string();
    assert!(
        e.contains("no plugin library `no_such_lib`") && e.contains("[sensors]"),
        "{e}"
    );
}

#[test]
fn a_plugin_route_serves_a_plugin_whatever_its_filename() {
    let Some(dir) = staged() else {
        return;
    };
    let reg = registry(dir.path());
    assert!(
        reg.system_factory("my-odometry-system", "my::Odometry")
            .is_err()
    );
    let reg = reg.with_routes(
        BTreeMap::new(),
        [
            (
                "my::Odometry".to_string(),
                PluginRoute::Factory {
                    library: "simcore_plugin_diff_drive".into(),
                    name: "simcore::DiffDrive".into(),
                },
            ),
            (
                "my::Other".to_string(),
                PluginRoute::Library("simcore-plugin-diff-drive".into()),
            ),
            (
                "my::Wrong".to_string(),
                PluginRoute::Factory {
                    library: "simcore_plugin_diff_drive".into(),
                    name: "nope".into(),
                },
            ),
        ]
        .into(),
    );
    let r = reg
        .system_factory("my-odometry-system", "my::Odometry")
        .unwrap();
    assert!(r.library.file_name.contains("diff_drive"));
    assert!(r.factory.serves.iter().any(|s| s == "simcore::DiffDrive"));
    // Routed to a library alone: its only system factory.
    let r = reg.system_factory("anything", "my::Other").unwrap();
    assert!(r.library.file_name.contains("diff_drive"));
    let e = reg
        .system_factory("anything", "my::Wrong")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no system plugin named `nope`") && e.contains("[plugins]"),
        "{e}"
    );
}
