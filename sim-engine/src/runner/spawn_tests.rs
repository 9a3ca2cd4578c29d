//! Spawn requests: naming, posing, size limits and the checks made before building.

use super::*;
use sim_plugin_api::{Quat, Vec3};

const WORLD: &str = r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="w">
    <model name="crate">
      <pose>1 2 3 0 0 0</pose>
      <link name="body"><inertial><mass>1</mass></inertial></link>
    </model>
    <model name="crate_1">
      <link name="body"><inertial><mass>1</mass></inertial></link>
    </model>
  </world>
</sdf>"#;

const MODEL: &str = r#"<sdf version="1.9">
  <model name="crate">
    <pose>0 0 7 0 0 0</pose>
    <link name="body"><inertial><mass>1</mass></inertial></link>
  </model>
</sdf>"#;

fn request(f: impl FnOnce(&mut EntityFactory)) -> EntityFactory {
    let mut r = EntityFactory {
        sdf: MODEL.into(),
        pose: Pose::IDENTITY,
        ..Default::default()
    };
    f(&mut r);
    r
}

fn prepare(r: &EntityFactory, claimed: &[&str]) -> Result<Model, SpawnError> {
    prepare_beside(None, r, claimed)
}

/// [`prepare`] in the world [`WORLD`] as if read from a file in `dir` (model files are read
/// only from the world's directory and the resource path).
fn prepare_beside(
    dir: Option<&Path>,
    r: &EntityFactory,
    claimed: &[&str],
) -> Result<Model, SpawnError> {
    let file = dir.map(|d| d.join("world.sdf"));
    let world = sim_sdf::parse_str(WORLD, file.as_deref()).unwrap();
    let physics = Physics::build(&world).unwrap();
    let claimed = claimed.iter().map(|c| c.to_string()).collect();
    prepare_model(
        &physics,
        &Registry::default(),
        &world,
        &SimOptions::default(),
        PluginPolicy::Strict,
        r,
        &claimed,
    )
}

#[test]
fn a_free_name_is_kept() {
    assert_eq!(free_name("a", false, |_| false).unwrap(), "a");
}

#[test]
fn a_taken_name_is_refused_unless_renaming_is_allowed() {
    let taken = |n: &str| ["a", "a_1", "a_3"].contains(&n);
    assert_eq!(
        free_name("a", false, taken).unwrap_err().to_string(),
        "a model named `a` already exists; choose another name or allow renaming"
    );
    assert_eq!(free_name("a", true, taken).unwrap(), "a_2");
}

#[test]
fn names_that_cannot_name_a_model_are_refused() {
    for bad in ["a::b", " a", "a ", "world", "__a"] {
        assert_eq!(
            checked_name(bad).unwrap_err().to_string(),
            format!(
                "model name `{bad}` is not allowed: it must not contain `::`, start with `__`, \
                 be `world` or have surrounding spaces"
            )
        );
    }
    assert_eq!(checked_name("a_b-1").unwrap(), "a_b-1");
}

#[test]
fn renaming_skips_existing_and_claimed_names() {
    let m = prepare(&request(|r| r.allow_renaming = true), &[]).unwrap();
    assert_eq!(m.name, "crate_2", "crate and crate_1 are in the world");
    let m = prepare(&request(|r| r.allow_renaming = true), &["crate_2"]).unwrap();
    assert_eq!(m.name, "crate_3", "crate_2 was claimed earlier in the step");
    let e = prepare(&request(|_| {}), &[]).unwrap_err().to_string();
    assert!(e.contains("already exists"), "{e}");
    let m = prepare(&request(|r| r.name = "fresh".into()), &[]).unwrap();
    assert_eq!(m.name, "fresh");
}

#[test]
fn the_identity_pose_keeps_the_model_pose() {
    let m = prepare(&request(|r| r.name = "x".into()), &[]).unwrap();
    assert_eq!(m.pose.position, Vec3::new(0.0, 0.0, 7.0));
}

#[test]
fn a_pose_replaces_the_model_pose_in_its_frame() {
    let m = prepare(
        &request(|r| {
            r.name = "x".into();
            r.pose = Pose::from_xyz_rpy(1.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        }),
        &[],
    )
    .unwrap();
    assert_eq!(m.pose.position, Vec3::new(1.0, 0.0, 0.0));
    let m = prepare(
        &request(|r| {
            r.name = "x".into();
            r.relative_to = "crate".into();
            r.pose = Pose::from_xyz_rpy(1.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        }),
        &[],
    )
    .unwrap();
    assert!((m.pose.position - Vec3::new(2.0, 2.0, 3.0)).length() < 1e-12);
    // `relative_to` alone places the model at the frame.
    let m = prepare(
        &request(|r| {
            r.name = "x".into();
            r.relative_to = "crate".into();
        }),
        &[],
    )
    .unwrap();
    assert!((m.pose.position - Vec3::new(1.0, 2.0, 3.0)).length() < 1e-12);
}

#[test]
fn bad_poses_and_frames_are_refused() {
    let e = |f: fn(&mut EntityFactory)| {
        prepare(
            &request(|r| {
                r.name = "x".into();
                f(r)
            }),
            &[],
        )
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        e(|r| r.pose.position.x = f64::NAN),
        "the request's pose is refused: the command's `position.x` is NaN; it must be a finite \
         number of magnitude at most 1e6"
    );
    assert_eq!(
        e(|r| r.pose.orientation = Quat {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 0.0
        }),
        "the request's pose is refused: the command's `orientation` is a zero quaternion; it \
         must have a length"
    );
    // The pose is checked where it puts the model too: 999,999.5 m along x is within reach
    // in the world's frame, and too far in that of `crate`, 1 m along.
    let at = |relative_to: &'static str| {
        let r = request(|r| {
            r.name = "y".into();
            r.relative_to = relative_to.into();
            r.pose.position.x = 999_999.5;
        });
        prepare(&r, &[]).map(|_| ()).map_err(|e| e.to_string())
    };
    assert_eq!(at("world"), Ok(()));
    assert_eq!(
        at("crate"),
        Err(
            "the request's pose is refused: the command's `position.x` is 1.0000005e6; it must \
             be a finite number of magnitude at most 1e6"
                .to_string()
        )
    );
    assert_eq!(
        e(|r| r.relative_to = "nowhere".into()),
        "relative_to names no entity: `nowhere`"
    );
}

#[test]
fn descriptions_are_limited_in_size() {
    let big = "x".repeat(MAX_SPAWN_BYTES + 1);
    let e = prepare(&request(|r| r.sdf = big.as_str().into()), &[])
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "the SDF text is {} bytes; model descriptions are limited to {MAX_SPAWN_BYTES} bytes",
            MAX_SPAWN_BYTES + 1
        )
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.sdf");
    std::fs::write(&file, &big).unwrap();
    let e = prepare_beside(
        Some(dir.path()),
        &request(|r| {
            r.sdf = "".into();
            r.sdf_filename = file.to_str().unwrap().into();
        }),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        e,
        format!(
            "`{}` is {} bytes; model descriptions are limited to {MAX_SPAWN_BYTES} bytes",
            file.display(),
            MAX_SPAWN_BYTES + 1
        )
    );
}

#[test]
fn a_request_needs_a_description() {
    let e = prepare(&request(|r| r.sdf = "".into()), &[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the request has neither `sdf` text nor an `sdf_filename`"
    );
}

#[test]
fn a_missing_file_says_where_it_looked() {
    let e = prepare(
        &request(|r| {
            r.sdf = "".into();
            r.sdf_filename = "no/such/model.sdf".into();
        }),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("no model file `no/such/model.sdf` (looked for `no/such/model.sdf`)"),
        "{e}"
    );
}

#[test]
fn a_file_is_read_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.sdf");
    std::fs::write(&file, MODEL.replace("crate", "from_file")).unwrap();
    let m = prepare_beside(
        Some(dir.path()),
        &request(|r| {
            r.sdf = "".into();
            r.sdf_filename = file.to_str().unwrap().into();
        }),
        &[],
    )
    .unwrap();
    assert_eq!(m.name, "from_file");
}

#[test]
fn sdf_errors_are_rendered_with_their_source() {
    let e = prepare(
        &request(|r| r.sdf = "<sdf version='1.9'>\n<model name='y'><link name='l'><inertial><mass>-2</mass></inertial></link></model></sdf>".into()),
        &[],
    )
    .unwrap_err();
    assert!(matches!(e, SpawnError::Sdf(_)), "{e:?}");
    let e = e.to_string();
    assert!(e.contains("mass") && e.contains("2 |"), "{e}");
}

#[test]
fn a_sensor_no_library_serves_is_refused() {
    let sdf = MODEL.replace(
        "<inertial><mass>1</mass></inertial>",
        "<inertial><mass>1</mass></inertial><sensor name='s' type='sonar_x'/>",
    );
    let e = prepare(
        &request(|r| {
            r.name = "x".into();
            r.sdf = sdf.as_str().into();
        }),
        &[],
    )
    .unwrap_err();
    let SpawnError::Plugins(problems) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].subject, "sensor `x::body::s` (type `sonar_x`)");
    assert!(
        e.to_string()
            .contains("no plugin library serves sensor type `sonar_x`")
    );
}

#[test]
fn names_that_read_as_paths_are_refused() {
    for (bad, problem) in [
        ("../x", "contains a path separator"),
        ("a/b", "contains a path separator"),
        ("a\\b", "contains a path separator"),
        ("..", "is a directory reference"),
        ("a\0b", "contains a control character"),
    ] {
        let e = prepare(&request(|r| r.name = bad.into()), &[]).unwrap_err();
        assert!(
            matches!(e, SpawnError::PathLikeName { problem: p, .. } if p == problem),
            "{bad:?}: {e}"
        );
        assert!(!e.to_string().contains('\0'), "the name is escaped: {e}");
    }
}

#[test]
fn a_model_file_that_is_not_a_regular_file_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("model.sdf");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo is not available here: test skipped");
        return;
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let path = fifo.to_string_lossy().into_owned();
    let world_dir = dir.path().to_path_buf();
    std::thread::spawn(move || {
        let r = request(|r| {
            r.sdf = "".into();
            r.sdf_filename = path.as_str().into();
        });
        let prepared = prepare_beside(Some(&world_dir), &r, &[]);
        let _ = tx.send(prepared.map(|m| m.name).map_err(|e| e.to_string()));
    });
    let outcome = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("a FIFO named by a spawn request blocks the world");
    let e = outcome.unwrap_err();
    assert!(e.contains("not a regular file"), "{e}");
}

#[test]
fn a_model_file_outside_the_world_directory_is_refused() {
    let (world_dir, elsewhere) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let file = elsewhere.path().join("m.sdf");
    std::fs::write(&file, MODEL.replace("crate", "outside")).unwrap();
    let r = request(|r| {
        r.sdf = "".into();
        r.sdf_filename = file.to_str().unwrap().into();
    });
    let e = prepare_beside(Some(world_dir.path()), &r, &[]).unwrap_err();
    assert!(matches!(e, SpawnError::Outside { .. }), "{e:?}");
    let m = prepare_beside(Some(elsewhere.path()), &r, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.name, "outside");
}
