//! The ROS 2 type catalogue and the golden CDR bytes against rosbags, an independent
//! implementation of REP-2016 hashes, `ros2msg` definitions and CDR (needs the Python test
//! clients; does nothing without them).

use crate::common;

use serde_json::json;
use sim_core::ros::catalog;
use std::path::Path;
use std::process::Command;

fn run(python: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(python)
        .args(args)
        .current_dir(common::workspace())
        .output()
        .expect("python runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn check_catalog(python: &Path, entries: &serde_json::Value) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("catalog.json");
    std::fs::write(&file, entries.to_string()).unwrap();
    run(
        python,
        &["tools/ros_types.py", "--check", file.to_str().unwrap()],
    )
}

#[test]
fn every_catalog_entry_is_what_rosbags_computes() {
    let Some(python) = common::python() else {
        return;
    };
    let entries: Vec<_> = catalog::ALL
        .iter()
        .map(|t| json!({"name": t.name, "hash": t.hash, "definition": t.definition}))
        .collect();
    let (ok, text) = check_catalog(&python, &json!(entries));
    assert!(ok, "{text}");
    assert!(
        text.contains(&format!("{} entries checked, 0 differ", entries.len())),
        "{text}"
    );

    // The check sees a changed hash and a changed definition.
    let mut wrong = entries.clone();
    wrong[0]["hash"] = json!(catalog::IMU.hash);
    wrong[1]["definition"] = json!("bool data\nbool more\n");
    let (ok, text) = check_catalog(&python, &json!(wrong));
    assert!(!ok, "{text}");
    assert!(text.contains("2 differ"), "{text}");
}

#[test]
fn golden_bytes_are_what_rosbags_writes() {
    let Some(python) = common::python() else {
        return;
    };
    let (ok, text) = run(&python, &["tools/ros_golden.py", "--check"]);
    assert!(ok, "{text}");
}

/// `CMakeLists.txt` generates every `.msg` of the package, and the package declares every
/// package its messages use.
#[test]
fn the_simcore_msgs_package_lists_its_messages_and_dependencies() {
    let pkg = common::workspace().join("ros/simcore_msgs");
    let cmake = std::fs::read_to_string(pkg.join("CMakeLists.txt")).unwrap();
    let manifest = std::fs::read_to_string(pkg.join("package.xml")).unwrap();
    let mut msgs: Vec<_> = std::fs::read_dir(pkg.join("msg"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    msgs.sort();
    let listed: Vec<_> = cmake
        .split('"')
        .filter_map(|s| s.strip_prefix("msg/"))
        .map(str::to_string)
        .collect();
    assert_eq!(listed, msgs);
    let deps = cmake
        .split_once("DEPENDENCIES")
        .map(|(_, d)| d.split(')').next().unwrap())
        .unwrap();
    for m in &msgs {
        let text = std::fs::read_to_string(pkg.join("msg").join(m)).unwrap();
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let ty = line.split_whitespace().next().unwrap();
            if let Some((used, _)) = ty.split_once('/') {
                assert!(deps.split_whitespace().any(|d| d == used), "{m}: {used}");
                assert!(
                    manifest.contains(&format!("<depend>{used}</depend>")),
                    "{m}: {used}"
                );
            }
        }
    }
}
