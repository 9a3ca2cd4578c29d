//! The real logical camera plugin in real worlds: the tutorial's scene, nested models, boxes
//! just inside and just outside each frustum plane, rotated models, the camera's own model,
//! models without collision, the ground plane, and a model falling through the view.

use crate::common;

use common::*;
use sim_plugin_api::{LogicalCameraImage, Payload, Vec3};
use std::collections::BTreeSet;

const LIB: &str = "simcore_plugin_logical_camera";
const TAN_H: f64 = 0.578_472_457_893_186_4; // tan(1.05 / 2)
const ASPECT: f64 = 1.8;

/// A logical camera sensor element with the tutorial's frustum and the given far clip.
fn camera(name: &str, far: f64, rate: f64, pose: &str) -> String {
    format!(
        r#"<sensor name="{name}" type="logical_camera">
          <update_rate>{rate}</update_rate><pose>{pose}</pose>
          <logical_camera><near>0.55</near><far>{far}</far><horizontal_fov>1.05</horizontal_fov><aspect_ratio>{ASPECT}</aspect_ratio></logical_camera>
        </sensor>"#
    )
}

/// A static model `name` at `pose` with one link `link` whose optional box collision has
/// `size`; `inner` is put inside the link (sensors), `after` after it (nested models).
fn static_model(name: &str, pose: &str, size: Option<f64>, inner: &str, after: &str) -> String {
    let collision = size.map_or(String::new(), |s| {
        format!(r#"<collision name="c"><geometry><box><size>{s} {s} {s}</size></box></geometry></collision>"#)
    });
    format!(
        r#"<model name="{name}"><static>true</static><pose>{pose}</pose>
          <link name="link">{collision}{inner}</link>{after}</model>"#
    )
}

/// A static cube of side `size` centred at `(x, y, z)`.
fn cube(name: &str, x: f64, y: f64, z: f64, size: f64) -> String {
    static_model(name, &format!("{x} {y} {z} 0 0 0"), Some(size), "", "")
}

fn topic(models: &[&str], sensor: &str) -> String {
    let mut t = "/world/test".to_string();
    for m in models {
        t.push_str("/model/");
        t.push_str(m);
    }
    format!("{t}/link/link/sensor/{sensor}/logical_camera")
}

fn images(sub: &sim_core::transport::Subscription) -> Vec<(i64, LogicalCameraImage)> {
    collect(sub)
        .into_iter()
        .map(|(t, _, p)| match p {
            Payload::LogicalCameraImage(i) => (t, (*i).clone()),
            other => panic!("not a logical camera image: {other:?}"),
        })
        .collect()
}

fn names(image: &LogicalCameraImage) -> BTreeSet<String> {
    image.models.iter().map(|m| m.name.to_string()).collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Runs `steps` steps and returns the last image published on `topic`.
fn last_image(sdf: &str, topic: &str, steps: usize) -> LogicalCameraImage {
    let dir = stage(&[LIB]);
    let mut sim = sim_from(sdf, dir.path(), 0, 1);
    let sub = sim.bus_mut().subscribe(topic, 10_000);
    for _ in 0..steps {
        sim.step();
    }
    let all = images(&sub);
    assert_eq!(all.len(), steps, "one image per step");
    all.last().expect("an image").1.clone()
}

fn assert_close(a: Vec3, b: Vec3, tol: f64) {
    assert!(
        (a - b).length() < tol,
        "expected {b:?}, got {a:?} (off by {})",
        (a - b).length()
    );
}

#[test]
fn tutorial_world() {
    // The post carries the camera and has a collision around it (never reported: its own
    // model); the ground is out of view (the frustum bottoms out at z = 0.19).
    let post = static_model(
        "post",
        "0 0 1 0 0 3.141592653589793",
        Some(0.2),
        &camera("logical_camera", 2.5, 0.0, "0 0 0 0 0 0"),
        "",
    );
    let sdf = world(&format!(
        "{post}{}",
        cube("target_box", -2.0, 0.0, 1.0, 1.0)
    ));
    let dir = stage(&[LIB]);
    let mut sim = sim_from(&sdf, dir.path(), 0, 1);
    let t = topic(&["post"], "logical_camera");
    let sub = sim.bus_mut().subscribe(&t, 100);
    let frustum = sim.bus_mut().subscribe(&format!("{t}/frustum"), 100);
    for _ in 0..10 {
        sim.step();
    }
    let all = images(&sub);
    assert_eq!(all.len(), 10);
    for (_, img) in &all {
        assert_eq!(names(img), set(&["target_box"]));
        assert_close(img.pose.position, Vec3::new(0.0, 0.0, 1.0), 1e-6);
        let (_, _, cam_yaw) = img.pose.orientation.to_rpy();
        assert!((cam_yaw.abs() - std::f64::consts::PI).abs() < 1e-6);
        // The camera looks along its +X, world -X after the yaw: the target is 2 m ahead,
        // and turned by pi relative to the camera.
        let rel = img.models[0].pose;
        assert_close(rel.position, Vec3::new(2.0, 0.0, 0.0), 1e-6);
        let (r, p, y) = rel.orientation.to_rpy();
        assert!(r.abs() < 1e-6 && p.abs() < 1e-6, "roll {r}, pitch {p}");
        assert!(
            (y.abs() - std::f64::consts::PI).abs() < 1e-6,
            "relative yaw {y}"
        );
    }
    let f = collect(&frustum);
    assert_eq!(f.len(), 10);
    match &f[0].2 {
        Payload::LogicalCameraFrustum(f) => {
            assert_eq!(
                (f.near_clip, f.far_clip, f.horizontal_fov, f.aspect_ratio),
                (0.55, 2.5, 1.05, 1.8)
            );
        }
        other => panic!("not a frustum: {other:?}"),
    }
}

/// The camera: a model without collision at (0, 0, 3) looking along world +X.
fn eye(far: f64) -> String {
    static_model(
        "eye",
        "0 0 3 0 0 0",
        None,
        &camera("cam", far, 0.0, "0 0 0 0 0 0"),
        "",
    )
}

#[test]
fn nested_models_are_judged_on_their_own_boxes() {
    // `robot`'s own box is out of view (1.5 m to the left at 1.5 m), its nested `hand` is in
    // view; `tool`'s own box is in view, its nested `tip` is not.
    let robot = static_model(
        "robot",
        "1.5 0 3 0 0 0",
        None,
        r#"<collision name="c"><pose>0 1.5 0 0 0 0</pose><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>"#,
        &static_model("hand", "0 0 0 0 0 0", Some(0.2), "", ""),
    );
    let tool = static_model(
        "tool",
        "2 0.3 3 0 0 0",
        Some(0.2),
        "",
        &static_model("tip", "0 -2.3 0 0 0 0", Some(0.2), "", ""),
    );
    let sdf = world(&format!("{}{robot}{tool}", eye(2.5)));
    let img = last_image(&sdf, &topic(&["eye"], "cam"), 3);
    assert_eq!(names(&img), set(&["robot::hand", "tool"]));
    let hand = img.models.iter().find(|m| m.name == "robot::hand").unwrap();
    assert_close(hand.pose.position, Vec3::new(1.5, 0.0, 0.0), 1e-6);
    let tool = img.models.iter().find(|m| m.name == "tool").unwrap();
    assert_close(tool.pose.position, Vec3::new(2.0, 0.3, 0.0), 1e-6);
}

#[test]
fn a_rotated_model_is_seen_when_its_box_is() {
    // A thin rod turned 45 degrees, lying beside the left plane: its geometry stays outside
    // the frustum, but its axis-aligned box reaches in, and the box is what is tested.
    let (cx, cy, len, half_w) = (1.35, 1.35, 2.12, 0.05);
    let yaw = std::f64::consts::FRAC_PI_4;
    // Every corner of the rod (in the horizontal plane) is outside the left plane
    // y <= x tan(h/2) (relative to the camera at the origin of x and y).
    let (c, s) = (yaw.cos(), yaw.sin());
    for (u, v) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
        let (lx, ly) = (u * len / 2.0, v * half_w);
        let (x, y) = (cx + c * lx - s * ly, cy + s * lx + c * ly);
        assert!(y > x * TAN_H + 0.1, "rod corner ({x}, {y}) is in view");
    }
    // Its box's corner (max x, min y) is inside.
    let (box_max_x, box_min_y) = (
        cx + (len / 2.0) * c + half_w * s,
        cy - (len / 2.0) * s - half_w * c,
    );
    assert!(box_min_y < box_max_x * TAN_H - 0.1 && box_max_x < 2.5);
    let rod = format!(
        r#"<model name="rod"><static>true</static><pose>{cx} {cy} 3 0 0 {yaw}</pose><link name="link">
          <collision name="c"><geometry><box><size>{len} 0.1 0.1</size></box></geometry></collision></link></model>"#
    );
    let sdf = world(&format!("{}{rod}", eye(2.5)));
    let img = last_image(&sdf, &topic(&["eye"], "cam"), 3);
    assert_eq!(names(&img), set(&["rod"]));
}

#[test]
fn just_inside_and_just_outside_each_plane() {
    // 0.1 m cubes, 1 cm outside or inside each of the six planes of the frustum of a camera
    // at (0, 0, 3) looking along +X. The side cubes span x in [1.45, 1.55]; their corner
    // nearest the side plane is at x = 1.55.
    let (e, h) = (0.01, 0.05);
    let tan_v = TAN_H / ASPECT;
    let side_y = 1.55 * TAN_H;
    let side_z = 1.55 * tan_v;
    let cubes = [
        ("near_out", 0.55 - e - h, 0.0, 3.0),
        ("near_in", 0.55 + e - h, 0.0, 3.0),
        ("far_out", 2.5 + e + h, 0.0, 3.0),
        ("far_in", 2.5 - e + h, 0.0, 3.0),
        ("left_out", 1.5, side_y + e + h, 3.0),
        ("left_in", 1.5, side_y - e + h, 3.0),
        ("right_out", 1.5, -side_y - e - h, 3.0),
        ("right_in", 1.5, -side_y + e - h, 3.0),
        ("top_out", 1.5, 0.0, 3.0 + side_z + e + h),
        ("top_in", 1.5, 0.0, 3.0 + side_z - e + h),
        ("bottom_out", 1.5, 0.0, 3.0 - side_z - e - h),
        ("bottom_in", 1.5, 0.0, 3.0 - side_z + e - h),
    ];
    let models: String = cubes
        .iter()
        .map(|(n, x, y, z)| cube(n, *x, *y, *z, 2.0 * h))
        .collect();
    let sdf = world(&format!("{}{models}", eye(2.5)));
    let img = last_image(&sdf, &topic(&["eye"], "cam"), 3);
    let inside: Vec<&str> = cubes
        .iter()
        .map(|c| c.0)
        .filter(|n| n.ends_with("_in"))
        .collect();
    assert_eq!(names(&img), set(&inside));
    for m in img.models.iter() {
        let (_, x, y, z) = cubes.iter().find(|c| m.name == c.0).unwrap();
        assert_close(m.pose.position, Vec3::new(*x, *y, z - 3.0), 1e-6);
    }
}

#[test]
fn own_model_never_parent_and_nested_yes_no_collision_never() {
    // base (own box in view) > carrier (the camera's model; its box surrounds the camera and
    // reaches into the view) > arm (in view). `ghost` has only a visual, in the middle of the
    // view.
    let arm = static_model("arm", "1.5 0 0 0 0 0", Some(0.2), "", "");
    let carrier = static_model(
        "carrier",
        "0 0 0 0 0 0",
        Some(2.0),
        &camera("cam", 2.5, 0.0, "0 0 0 0 0 0"),
        &arm,
    );
    let base = static_model(
        "base",
        "0 0 3 0 0 0",
        None,
        r#"<collision name="c"><pose>2 0.3 0 0 0 0</pose><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>"#,
        &carrier,
    );
    let ghost = r#"<model name="ghost"><static>true</static><pose>1.2 -0.2 3 0 0 0</pose><link name="link">
        <visual name="v"><geometry><box><size>0.3 0.3 0.3</size></box></geometry></visual></link></model>"#;
    let sdf = world(&format!("{base}{ghost}"));
    let img = last_image(&sdf, &topic(&["base", "carrier"], "cam"), 3);
    assert_eq!(names(&img), set(&["base", "base::carrier::arm"]));
    let base = img.models.iter().find(|m| m.name == "base").unwrap();
    // The model frame of `base` coincides with the camera's.
    assert_close(base.pose.position, Vec3::ZERO, 1e-6);
}

#[test]
fn ground_plane_only_when_the_view_reaches_below_zero() {
    // Two level cameras whose frustum bottoms out 1 cm above and 1 cm below z = 0 (the
    // lowest point is the far rectangle's bottom edge, far * tan(v/2) below the camera).
    let drop = 2.5 * TAN_H / ASPECT;
    let above = static_model(
        "above",
        &format!("0 0 {} 0 0 0", drop + 0.01),
        None,
        &camera("cam", 2.5, 0.0, "0 0 0 0 0 0"),
        "",
    );
    let below = static_model(
        "below",
        &format!("0 10 {} 0 0 0", drop - 0.01),
        None,
        &camera("cam", 2.5, 0.0, "0 0 0 0 0 0"),
        "",
    );
    // A third camera pitched down by its sensor pose.
    let tilted = static_model(
        "tilted",
        "0 -10 2 0 0 0",
        None,
        &camera("cam", 2.5, 0.0, "0 0 0 0 0.8 0"),
        "",
    );
    let sdf = world(&format!("{above}{below}{tilted}"));
    let dir = stage(&[LIB]);
    let mut sim = sim_from(&sdf, dir.path(), 0, 1);
    let subs =
        ["above", "below", "tilted"].map(|m| sim.bus_mut().subscribe(&topic(&[m], "cam"), 100));
    for _ in 0..3 {
        sim.step();
    }
    let last = |i: usize| images(&subs[i]).last().unwrap().1.clone();
    assert_eq!(names(&last(0)), set(&[]));
    assert_eq!(names(&last(1)), set(&["ground"]));
    let tilted = last(2);
    assert_eq!(names(&tilted), set(&["ground"]));
    // The ground's model frame is the world origin: 2 m below and 10 m to the side of the
    // tilted camera, expressed in its frame.
    let expected = tilted.pose.inverse().transform_point(Vec3::ZERO);
    assert_close(tilted.models[0].pose.position, expected, 1e-6);
}

#[test]
fn a_falling_ball_enters_and_leaves_the_view() {
    // A 0.1 m ball dropped from 6 m at x = 1.5 in front of a camera at 3 m: the frustum spans
    // z = 3 +- 1.6 tan(v/2) over the ball's x range, so the ball's box meets it while its
    // centre is within about 3 +- 0.615 m, from t = 0.698 s to t = 0.859 s of free fall.
    let ball = r#"<model name="ball"><pose>1.5 0 6 0 0 0</pose><link name="link">
        <inertial><mass>1</mass><inertia><ixx>0.004</ixx><iyy>0.004</iyy><izz>0.004</izz></inertia></inertial>
        <collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry></collision></link></model>"#;
    let eye = static_model(
        "eye",
        "0 0 3 0 0 0",
        None,
        &camera("cam", 2.5, 100.0, "0 0 0 0 0 0"),
        "",
    );
    let sdf = world(&format!("{eye}{ball}"));
    let dir = stage(&[LIB]);
    let mut sim = sim_from(&sdf, dir.path(), 0, 1);
    let sub = sim.bus_mut().subscribe(&topic(&["eye"], "cam"), 1000);
    for _ in 0..1500 {
        sim.step();
    }
    let all = images(&sub);
    assert_eq!(all.len(), 151, "at 1 ms, then every 10 ms to 1.5 s");
    let present: Vec<bool> = all.iter().map(|(_, i)| !i.models.is_empty()).collect();
    let first = present.iter().position(|p| *p).expect("the ball is seen");
    let last = present.iter().rposition(|p| *p).unwrap();
    assert!(
        present[first..=last].iter().all(|p| *p),
        "seen, lost, seen again"
    );
    assert!(!present[0] && !present[150]);
    let secs = |i: usize| all[i].0 as f64 * 1e-9;
    assert!(
        (0.68..=0.72).contains(&secs(first)),
        "first seen at {}",
        secs(first)
    );
    assert!(
        (0.84..=0.88).contains(&secs(last)),
        "last seen at {}",
        secs(last)
    );
    for (_, img) in &all[first..=last] {
        assert_eq!(names(img), set(&["ball"]));
        let p = img.models[0].pose.position;
        assert!(
            (p.x - 1.5).abs() < 1e-3 && p.y.abs() < 1e-3 && p.z.abs() < 0.7,
            "{p:?}"
        );
    }
}
