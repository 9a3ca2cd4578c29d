//! The bounding box camera plugin loaded from its real library into a real world: the visible
//! 2D box of each labelled model spans the pixels of its projection (computed here from the
//! box corners and the published `camera_info`), unlabelled geometry gets no box, the image
//! carries the outlines; the full 2D box is the projection of the whole box, occluded and
//! outside parts included, clipped to the image; the 3D box is the geometry in the camera
//! frame (and saved as Gazebo writes it); and what it cannot make is refused with a message.

use crate::common;

use common::images::{first_step, world_with};
use common::*;
use sim_plugin_api::{CameraInfo, Image, Payload, PixelFormat, Pose, Quat, Vec3};

const LIBS: &[&str] = &["simcore_plugin_boundingbox_camera"];

fn bbox_sensor(name: &str, extra: &str) -> String {
    format!(
        r#"<sensor name="{name}" type="boundingbox_camera"><update_rate>0</update_rate><camera>
          <horizontal_fov>1.2</horizontal_fov><image><width>64</width><height>48</height></image>
          {extra}</camera></sensor>"#
    )
}

fn label(l: u32) -> String {
    format!(
        r#"<plugin filename="gz-sim-label-system" name="gz::sim::systems::Label"><label>{l}</label></plugin>"#
    )
}

/// A static box model at `at` of `size`, with `model_label` on the model and `visual_label`
/// on its visual.
fn labelled_box(name: &str, at: Vec3, size: Vec3, model_label: &str, visual_label: &str) -> String {
    format!(
        r#"<model name="{name}"><static>true</static><pose>{} {} {} 0 0 0</pose>{model_label}
        <link name="l"><visual name="v"><geometry><box><size>{} {} {}</size></box></geometry>
          <material><diffuse>1 0 0 1</diffuse></material>{visual_label}</visual></link></model>"#,
        at.x, at.y, at.z, size.x, size.y, size.z
    )
}

/// The expected box (first and last pixel column and row) of an axis-aligned box at `at` of
/// `size`, seen by the rig's camera (at (0, 0, 1), looking along +x, upright) with intrinsics
/// `ci`: the pixels whose centres fall inside the bounding rectangle of the projected corners
/// (upright, the extreme edges project to whole image rows and columns).
fn expected(ci: &CameraInfo, at: Vec3, size: Vec3) -> ([u32; 2], [u32; 2]) {
    let k = &ci.intrinsics;
    let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
    for c in 0..8 {
        let s = |bit: u32, v: f64| {
            if c & (1 << bit) == 0 {
                -v / 2.0
            } else {
                v / 2.0
            }
        };
        let p = Vec3::new(
            at.x + s(0, size.x),
            at.y + s(1, size.y),
            at.z + s(2, size.z) - 1.0,
        );
        let (u, v) = (k[2] + k[0] * (-p.y / p.x), k[5] + k[4] * (-p.z / p.x));
        lo = [lo[0].min(u), lo[1].min(v)];
        hi = [hi[0].max(u), hi[1].max(v)];
    }
    let first = |x: f64| (x - 0.5).ceil() as u32;
    let last = |x: f64| (x - 0.5).floor() as u32;
    ([first(lo[0]), first(lo[1])], [last(hi[0]), last(hi[1])])
}

#[test]
fn visible_boxes_span_the_projection_of_labelled_models() {
    let (a_at, a_size) = (Vec3::new(4.0, 1.0, 1.1), Vec3::new(0.6, 0.5, 0.4));
    let (b_at, b_size) = (Vec3::new(5.0, -1.2, 0.8), Vec3::new(0.8, 0.8, 0.8));
    let models = [
        labelled_box("a", a_at, a_size, &label(10), ""),
        labelled_box("b", b_at, b_size, "", &label(20)),
        labelled_box(
            "plain",
            Vec3::new(4.0, 0.0, 1.0),
            Vec3::new(0.6, 0.6, 0.6),
            "",
            "",
        ),
    ]
    .concat();
    let sdf = world_with(&bbox_sensor("bb", "<box_type>2d</box_type>"), &models);
    let dir = stage(LIBS);
    let mut sim = sim_from(&sdf, dir.path(), 0, 1);
    let base = "/world/test/model/rig/link/head/sensor/bb";
    let topics = [
        format!("{base}/boundingbox"),
        format!("{base}/boundingbox_image"),
        format!("{base}/camera_info"),
    ];
    let mut m = first_step(&mut sim, &topics);
    let ci = match m.pop().unwrap() {
        Payload::CameraInfo(c) => (*c).clone(),
        other => panic!("not a CameraInfo: {other:?}"),
    };
    let image: Image = match m.pop().unwrap() {
        Payload::Image(i) => (*i).clone(),
        other => panic!("not an Image: {other:?}"),
    };
    let boxes: serde_json::Value = match m.pop().unwrap() {
        Payload::Custom(c) => {
            assert_eq!(c.schema.as_str(), "gz.msgs.AnnotatedAxisAligned2DBox_V");
            assert_eq!(c.encoding.as_str(), "json");
            serde_json::from_slice(&c.data).expect("JSON")
        }
        other => panic!("not a Custom message: {other:?}"),
    };
    assert_eq!(boxes["header"]["data"][0]["key"], "frame_id");
    let list = boxes["annotated_box"].as_array().unwrap();
    // Sorted by label; the unlabelled model has none.
    assert_eq!(list.len(), 2, "{boxes}");
    for (entry, (l, at, size)) in list.iter().zip([(10, a_at, a_size), (20, b_at, b_size)]) {
        assert_eq!(entry["label"], l);
        let (min, max) = expected(&ci, at, size);
        let corner = |c: &serde_json::Value| [c["x"].as_f64().unwrap(), c["y"].as_f64().unwrap()];
        let want = |p: [u32; 2]| [f64::from(p[0]), f64::from(p[1])];
        assert_eq!(
            corner(&entry["box"]["min_corner"]),
            want(min),
            "label {l}: {entry}"
        );
        assert_eq!(
            corner(&entry["box"]["max_corner"]),
            want(max),
            "label {l}: {entry}"
        );
        assert!(
            max[0] > min[0] + 2 && max[1] > min[1] + 2,
            "a box of several pixels"
        );
    }

    // The image: the scene shaded, the outlines green.
    assert_eq!(image.pixel_format, PixelFormat::RGB_INT8);
    assert_eq!((image.width, image.height), (64, 48));
    let px = |i: u32, j: u32| {
        let k = (j * image.step + i * 3) as usize;
        [image.data[k], image.data[k + 1], image.data[k + 2]]
    };
    let (min, max) = expected(&ci, a_at, a_size);
    assert_eq!(px(min[0], min[1]), [0, 255, 0]);
    assert_eq!(px(max[0], (min[1] + max[1]) / 2), [0, 255, 0]);
    assert_eq!(
        px((min[0] + max[0]) / 2, (min[1] + max[1]) / 2),
        [255, 0, 0],
        "inside: the red box"
    );
    assert_eq!(px(0, 0), [0, 0, 255], "background");
    assert_eq!(
        px(32, 24),
        [255, 0, 0],
        "the unlabelled box is seen, without an outline"
    );
}

/// The error of loading a world whose bounding box camera has `extra` inside `<camera>`.
fn refusal(extra: &str) -> String {
    let dir = stage(LIBS);
    load_error(&world_with(&bbox_sensor("bb", extra), ""), dir.path())
}

#[test]
fn box_types_it_cannot_make_are_refused_with_a_message() {
    let e = refusal("<box_type>cube</box_type>");
    assert!(
        e.contains("rig::head::bb") && e.contains("<camera><box_type>") && e.contains("\"cube\""),
        "{e}"
    );
}

#[test]
fn saved_samples_are_the_image_and_the_boxes_as_gazebo_writes_them() {
    // A world saves inside the working directory only: a directory of this test's own there.
    let dir = tempfile::tempdir_in(".").unwrap();
    let rel = std::path::PathBuf::from(dir.path().file_name().unwrap());
    // A data set holding one image already: numbering goes on from there.
    std::fs::create_dir_all(dir.path().join("images")).unwrap();
    std::fs::write(dir.path().join("images/earlier.png"), b"").unwrap();
    let at = Vec3::new(4.0, 0.0, 1.0);
    let size = Vec3::new(0.6, 0.6, 0.6);
    let sdf = world_with(
        &bbox_sensor(
            "bb",
            &format!(
                r#"<save enabled="true"><path>{}</path></save>"#,
                rel.display()
            ),
        ),
        &labelled_box("a", at, size, &label(7), ""),
    );
    let libs = stage(LIBS);
    let mut sim = sim_from(&sdf, libs.path(), 0, 1);
    let info = sim
        .bus_mut()
        .subscribe("/world/test/model/rig/link/head/sensor/bb/camera_info", 10);
    sim.step();
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    let ci = match collect(&info).remove(0).2 {
        Payload::CameraInfo(c) => (*c).clone(),
        other => panic!("not a CameraInfo: {other:?}"),
    };
    assert!(dir.path().join("images/image_0000001.png").is_file());
    let csv = std::fs::read_to_string(dir.path().join("boxes/boxes_0000001.csv")).unwrap();
    let (min, max) = expected(&ci, at, size);
    let (w, h) = (max[0] - min[0], max[1] - min[1]);
    assert_eq!(
        csv,
        format!(
            "label,x_center,y_center,width,height\n7,{:.6},{:.6},{:.6},{:.6}\n",
            f64::from(min[0]) + f64::from(w) / 2.0,
            f64::from(min[1]) + f64::from(h) / 2.0,
            f64::from(w),
            f64::from(h)
        )
    );
}

/// A static labelled box model at `pose` of `size`.
fn posed_box(name: &str, pose: Pose, size: Vec3, l: u32) -> String {
    let (r, p, y) = pose.orientation.to_rpy();
    let at = pose.position;
    format!(
        r#"<model name="{name}"><static>true</static><pose>{} {} {} {r} {p} {y}</pose>{}
        <link name="l"><visual name="v"><geometry><box><size>{} {} {}</size></box></geometry>
          </visual></link></model>"#,
        at.x,
        at.y,
        at.z,
        label(l),
        size.x,
        size.y,
        size.z
    )
}

/// One step of a world with a bounding box camera `bb` of `box_type` and `models`: the boxes
/// message (its schema checked) and the `camera_info`.
fn one_frame(box_type: &str, schema: &str, models: &str) -> (serde_json::Value, CameraInfo) {
    let sdf = world_with(
        &bbox_sensor("bb", &format!("<box_type>{box_type}</box_type>")),
        models,
    );
    let dir = stage(LIBS);
    let mut sim = sim_from(&sdf, dir.path(), 0, 1);
    let base = "/world/test/model/rig/link/head/sensor/bb";
    let boxes = sim.bus_mut().subscribe(&format!("{base}/boundingbox"), 10);
    let info = sim.bus_mut().subscribe(&format!("{base}/camera_info"), 10);
    sim.step();
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    let ci = match collect(&info).remove(0).2 {
        Payload::CameraInfo(c) => (*c).clone(),
        other => panic!("not a CameraInfo: {other:?}"),
    };
    let doc = match collect(&boxes).remove(0).2 {
        Payload::Custom(c) => {
            assert_eq!(c.schema.as_str(), schema);
            serde_json::from_slice(&c.data).expect("JSON")
        }
        other => panic!("not a Custom message: {other:?}"),
    };
    (doc, ci)
}

/// The 8 corners of a box of `size` at `pose`, in the rig camera's frame (at (0, 0, 1),
/// looking along +x).
fn corners_seen(pose: Pose, size: Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|c| {
            let s = |bit: u32, v: f64| {
                if c & (1 << bit) == 0 {
                    -v / 2.0
                } else {
                    v / 2.0
                }
            };
            let p = pose.transform_point(Vec3::new(s(0, size.x), s(1, size.y), s(2, size.z)));
            p - Vec3::new(0.0, 0.0, 1.0)
        })
        .collect()
}

#[test]
fn full_boxes_are_the_projection_of_the_whole_box_clipped_to_the_image() {
    // `a`, turned and tilted, half hidden behind an unlabelled block; `edge` reaching past
    // the image's left side.
    let a = Pose::from_xyz_rpy(4.0, 0.6, 1.1, 0.2, 0.1, 0.5);
    let a_size = Vec3::new(0.6, 0.5, 0.4);
    let edge = Pose::from_xyz_rpy(3.0, 2.4, 0.8, 0.0, 0.0, 0.0);
    let edge_size = Vec3::new(1.0, 1.0, 0.5);
    let models = [
        posed_box("a", a, a_size, 10),
        posed_box("edge", edge, edge_size, 20),
        labelled_box(
            "blocker",
            Vec3::new(2.5, 0.45, 1.1),
            Vec3::new(0.1, 0.2, 0.6),
            "",
            "",
        ),
    ]
    .concat();
    let (doc, ci) = one_frame("full_2d", "gz.msgs.AnnotatedAxisAligned2DBox_V", &models);
    let k = &ci.intrinsics;
    let (w, h) = (f64::from(ci.width), f64::from(ci.height));
    let list = doc["annotated_box"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{doc}");
    for (entry, (l, pose, size)) in list.iter().zip([(10, a, a_size), (20, edge, edge_size)]) {
        assert_eq!(entry["label"], l);
        let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
        for p in corners_seen(pose, size) {
            let (u, v) = (k[2] + k[0] * (-p.y / p.x), k[5] + k[4] * (-p.z / p.x));
            lo = [lo[0].min(u), lo[1].min(v)];
            hi = [hi[0].max(u), hi[1].max(v)];
        }
        let want_min = [lo[0].clamp(0.0, w - 1.0), lo[1].clamp(0.0, h - 1.0)];
        let want_max = [hi[0].clamp(0.0, w - 1.0), hi[1].clamp(0.0, h - 1.0)];
        let got = |c: &serde_json::Value| [c["x"].as_f64().unwrap(), c["y"].as_f64().unwrap()];
        let (min, max) = (
            got(&entry["box"]["min_corner"]),
            got(&entry["box"]["max_corner"]),
        );
        for (g, e) in min.iter().zip(want_min).chain(max.iter().zip(want_max)) {
            assert!(
                (g - e).abs() < 1e-3,
                "label {l}: {entry}, want {want_min:?} {want_max:?}"
            );
        }
        if l == 20 {
            assert_eq!(min[0], 0.0, "clipped at the image's left edge: {entry}");
            assert!(lo[0] < -1.0, "the box does reach past the image");
        }
    }
}

#[test]
fn boxes_3d_are_the_geometry_in_the_camera_frame() {
    let a = Pose::from_xyz_rpy(4.0, 0.5, 1.2, 0.2, -0.1, 0.7);
    let a_size = Vec3::new(0.6, 0.5, 0.4);
    let b = Pose::from_xyz_rpy(5.0, -1.0, 0.9, 0.0, 0.0, 0.0);
    let b_size = Vec3::new(0.8, 0.8, 0.8);
    let models = [posed_box("a", a, a_size, 3), posed_box("b", b, b_size, 4)].concat();
    let (doc, _) = one_frame("3d", "gz.msgs.AnnotatedOriented3DBox_V", &models);
    let list = doc["annotated_box"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{doc}");
    // The camera frame as gz-rendering reports it: x right, y up, z backward.
    let view = |p: Vec3| Vec3::new(-p.y, p.z, -p.x);
    let v3 = |v: &serde_json::Value| {
        Vec3::new(
            v["x"].as_f64().unwrap(),
            v["y"].as_f64().unwrap(),
            v["z"].as_f64().unwrap(),
        )
    };
    let close = |a: Vec3, b: Vec3| (a - b).length() < 1e-4;
    for (entry, (l, pose, size)) in list.iter().zip([(3, a, a_size), (4, b, b_size)]) {
        assert_eq!(entry["label"], l);
        let bx = &entry["box"];
        let centre = view(pose.position - Vec3::new(0.0, 0.0, 1.0));
        assert!(close(v3(&bx["center"]), centre), "{entry}: want {centre:?}");
        assert!(close(v3(&bx["boxSize"]), size), "{entry}");
        let o = &bx["orientation"];
        let q = Quat {
            x: o["x"].as_f64().unwrap(),
            y: o["y"].as_f64().unwrap(),
            z: o["z"].as_f64().unwrap(),
            w: o["w"].as_f64().unwrap(),
        };
        // Each axis of the box, turned into the camera frame.
        for axis in [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ] {
            let want = view(pose.orientation.rotate(axis));
            assert!(close(q.rotate(axis), want), "{entry}: axis {axis:?}");
        }
    }
}

#[test]
fn saved_3d_boxes_are_centre_size_and_angles_in_the_camera_frame() {
    let dir = tempfile::tempdir_in(".").unwrap();
    let rel = std::path::PathBuf::from(dir.path().file_name().unwrap());
    let a = Pose::from_xyz_rpy(4.0, -0.5, 1.3, 0.0, 0.0, 0.0);
    let size = Vec3::new(0.6, 0.5, 0.4);
    let sdf = world_with(
        &bbox_sensor(
            "bb",
            &format!(
                r#"<box_type>3d</box_type><save enabled="true"><path>{}</path></save>"#,
                rel.display()
            ),
        ),
        &posed_box("a", a, size, 6),
    );
    let libs = stage(LIBS);
    let mut sim = sim_from(&sdf, libs.path(), 0, 1);
    sim.step();
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    assert!(dir.path().join("images/image_0000000.png").is_file());
    let csv = std::fs::read_to_string(dir.path().join("boxes/boxes_0000000.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("label,x,y,z,w,h,l,roll,pitch,yaw"));
    let row: Vec<f64> = lines
        .next()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(lines.next(), None, "{csv}");
    // Centre (0.5, 0.3, -4) in the camera frame (x right, y up, z backward), then the size.
    let want = [6.0, 0.5, 0.3, -4.0, 0.6, 0.5, 0.4];
    for (g, e) in row.iter().zip(want) {
        assert!((g - e).abs() < 1e-5, "{csv}");
    }
    // The angles turn the box's (the world's) axes into the camera frame.
    let q = Quat::from_rpy(row[7], row[8], row[9]);
    let view = |p: Vec3| Vec3::new(-p.y, p.z, -p.x);
    for axis in [
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
    ] {
        assert!((q.rotate(axis) - view(axis)).length() < 1e-5, "{csv}");
    }
}

#[test]
fn full_boxes_of_a_model_with_several_visuals_are_merged() {
    // Two links of one labelled model, apart: one box holding both projections.
    let (p, q) = (Vec3::new(4.0, 0.9, 1.0), Vec3::new(5.0, -0.8, 1.3));
    let size = Vec3::new(0.4, 0.4, 0.4);
    let link = |name: &str, at: Vec3| {
        format!(
            r#"<link name="{name}"><pose>{} {} {} 0 0 0</pose><visual name="v"><geometry>
              <box><size>0.4 0.4 0.4</size></box></geometry></visual></link>"#,
            at.x, at.y, at.z
        )
    };
    let models = format!(
        r#"<model name="pair"><static>true</static>{}{}{}</model>"#,
        label(8),
        link("a", p),
        link("b", q)
    );
    let (doc, ci) = one_frame(
        "full_box_2d",
        "gz.msgs.AnnotatedAxisAligned2DBox_V",
        &models,
    );
    let k = &ci.intrinsics;
    let list = doc["annotated_box"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{doc}");
    let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
    for at in [p, q] {
        for c in corners_seen(Pose::from_xyz_rpy(at.x, at.y, at.z, 0.0, 0.0, 0.0), size) {
            let (u, v) = (k[2] + k[0] * (-c.y / c.x), k[5] + k[4] * (-c.z / c.x));
            lo = [lo[0].min(u), lo[1].min(v)];
            hi = [hi[0].max(u), hi[1].max(v)];
        }
    }
    let b = &list[0]["box"];
    let got = [
        b["min_corner"]["x"].as_f64().unwrap(),
        b["min_corner"]["y"].as_f64().unwrap(),
        b["max_corner"]["x"].as_f64().unwrap(),
        b["max_corner"]["y"].as_f64().unwrap(),
    ];
    for (g, e) in got.iter().zip([lo[0], lo[1], hi[0], hi[1]]) {
        assert!((g - e).abs() < 1e-3, "{doc}: want {lo:?} {hi:?}");
    }
    assert_eq!(list[0]["label"], 8);
}
