//! The camera and depth camera plugins loaded from their real libraries into real rapier
//! worlds: known scenes give known pixels (a box fills the pixel rectangle its projection
//! computes, Lambert values under the sun, shadows), `camera_info` agrees with where known
//! points appear (with and without distortion), depth is z-depth with REP-117 ends, noise is
//! seeded, the formats agree with each other, and a zoom changes `camera_info`; the RGB-D
//! camera agrees with the camera and the depth camera; the segmentation camera labels models;
//! a camera sees only the visuals whose `<visibility_flags>` meet its `<visibility_mask>`.

use crate::common;

use common::images::{image, info, render_with, rgb, steps};
use common::*;
use sim_core::runner::{EntityUpdate, Simulation};
use sim_core::transport::Subscription;
use sim_plugin_api::{CameraInfo, Image, Payload, PixelFormat, PointCloudPacked, Pose, Quat, Vec3};
use std::path::Path;

const LIBS: &[&str] = &[
    "simcore_plugin_camera",
    "simcore_plugin_depth_camera",
    "simcore_plugin_rgbd_camera",
    "simcore_plugin_segmentation_camera",
    "simcore_plugin_wide_angle_camera",
];

/// A world named `test` with `scene` (inner XML of `<scene>`), `lights` and `models`; no
/// ground unless a model provides one.
fn scene_world(scene: &str, lights: &str, models: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="test">
    <physics type="ode"><max_step_size>0.001</max_step_size><real_time_factor>0</real_time_factor></physics>
    <scene>{scene}</scene>
    {lights}
    {models}
  </world>
</sdf>"#
    )
}

/// Full white ambient light, a blue background: pixels show diffuse colours exactly.
const FLAT: &str = "<ambient>1 1 1 1</ambient><background>0 0 1 1</background>";

/// A static model `rig` whose link `head` is at `pose` (x y z roll pitch yaw) and carries
/// `sensors`; it has a visual housing around the sensors that they must not see.
fn rig(pose: &str, sensors: &str) -> String {
    format!(
        r#"<model name="rig"><static>true</static><pose>{pose}</pose>
      <link name="head">
        <visual name="housing"><geometry><box><size>0.3 0.3 0.3</size></box></geometry></visual>
        {sensors}
      </link>
    </model>"#
    )
}

/// A camera sensor of `kind` updating every step, with `body` inside `<camera>`.
fn sensor(name: &str, kind: &str, body: &str) -> String {
    format!(
        r#"<sensor name="{name}" type="{kind}"><update_rate>0</update_rate><camera>{body}</camera></sensor>"#
    )
}

fn image_body(hfov: f64, w: u32, h: u32, extra: &str) -> String {
    format!(
        "<horizontal_fov>{hfov}</horizontal_fov><image><width>{w}</width><height>{h}</height></image>{extra}"
    )
}

/// A static box model with a visual of colour `rgb`.
fn boxm(name: &str, pose: &str, size: &str, rgb: &str) -> String {
    format!(
        r#"<model name="{name}"><static>true</static><pose>{pose}</pose><link name="l">
        <visual name="v"><geometry><box><size>{size}</size></box></geometry>
          <material><diffuse>{rgb} 1</diffuse></material></visual></link></model>"#
    )
}

fn sphere(name: &str, at: Vec3, r: f64, rgb: &str) -> String {
    format!(
        r#"<model name="{name}"><static>true</static><pose>{} {} {} 0 0 0</pose><link name="l">
        <visual name="v"><geometry><sphere><radius>{r}</radius></sphere></geometry>
          <material><diffuse>{rgb} 1</diffuse></material></visual></link></model>"#,
        at.x, at.y, at.z
    )
}

fn topic(sensor: &str, suffix: &str) -> String {
    format!("/world/test/model/rig/link/head/sensor/{sensor}/{suffix}")
}

/// Runs one update of every sensor and returns the message on each of `topics`.
fn render(sdf: &str, topics: &[String], seed: u64) -> Vec<Payload> {
    render_on(sdf, topics, seed, 1)
}

/// [`render`] with `threads` sensor worker threads.
fn render_on(sdf: &str, topics: &[String], seed: u64, threads: usize) -> Vec<Payload> {
    render_with(LIBS, sdf, topics, seed, threads)
}

fn cloud(p: &Payload) -> PointCloudPacked {
    match p {
        Payload::PointCloud(c) => (**c).clone(),
        other => panic!("not a point cloud: {other:?}"),
    }
}

fn depth(img: &Image, i: u32, j: u32) -> f32 {
    assert_eq!(img.pixel_format, PixelFormat::R_FLOAT32);
    let k = (j * img.step + i * 4) as usize;
    f32::from_le_bytes(img.data[k..k + 4].try_into().unwrap())
}

/// Where world point `p` appears for a camera at world pose `camera`, computed from the
/// published `camera_info` alone (K and plumb_bob D, OpenCV's model; the sensor frame is
/// x forward, y left, z up, the optical frame x right, y down, z forward).
fn project(ci: &CameraInfo, camera: Pose, p: Vec3) -> (f64, f64) {
    let s = camera.inverse().transform_point(p);
    let (x, y) = (-s.y / s.x, -s.z / s.x);
    let k = &ci.intrinsics;
    let d = &ci.distortion;
    let (k1, k2, p1, p2, k3) = (d[0], d[1], d[2], d[3], d[4]);
    let r2 = x * x + y * y;
    let radial = 1.0 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2;
    let xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x);
    let yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y;
    (k[0] * xd + k[1] * yd + k[2], k[4] * yd + k[5])
}

fn pose(x: f64, y: f64, z: f64, roll: f64, pitch: f64, yaw: f64) -> Pose {
    Pose::new(Vec3::new(x, y, z), Quat::from_rpy(roll, pitch, yaw))
}

#[test]
fn a_red_box_fills_the_pixel_rectangle_of_its_projection() {
    let (w, h, hfov) = (80u32, 60u32, 1.0f64);
    let sdf = scene_world(
        FLAT,
        "",
        &[
            rig(
                "0 0 1 0 0 0",
                &sensor("cam", "camera", &image_body(hfov, w, h, "")),
            ),
            // Front face x = 3.5, y in [-0.2, 0.8], z in [0.7, 1.7]: only it is visible.
            boxm("red", "4 0.3 1.2 0 0 0", "1 1 1", "0.8 0.2 0.2"),
        ]
        .concat(),
    );
    let m = render(
        &sdf,
        &[topic("cam", "image"), topic("cam", "camera_info")],
        0,
    );
    let (img, ci) = (image(&m[0]), info(&m[1]));
    assert_eq!((img.width, img.height, img.step), (w, h, w * 3));
    let f = f64::from(w) / (2.0 * (hfov / 2.0).tan());
    assert_eq!(ci.intrinsics, [f, 0.0, 40.0, 0.0, f, 30.0, 0.0, 0.0, 1.0]);
    let (u0, u1) = (40.0 - f * 0.8 / 3.5, 40.0 + f * 0.2 / 3.5);
    let (v0, v1) = (30.0 - f * 0.7 / 3.5, 30.0 + f * 0.3 / 3.5);
    let mut red = 0;
    for j in 0..h {
        for i in 0..w {
            let (u, v) = (f64::from(i) + 0.5, f64::from(j) + 0.5);
            let near_edge = [u - u0, u - u1, v - v0, v - v1]
                .iter()
                .any(|d| d.abs() < 1e-3);
            if near_edge {
                continue;
            }
            let inside = u > u0 && u < u1 && v > v0 && v < v1;
            let expected = if inside { [204, 51, 51] } else { [0, 0, 255] };
            assert_eq!(rgb(&img, i, j), expected, "pixel ({i}, {j})");
            red += usize::from(inside);
        }
    }
    assert!(red > 200, "the box covers {red} pixels");
}

#[test]
fn lambert_shading_under_the_sun_and_shadows() {
    let camera = pose(3.0, 0.0, 5.0, 0.0, std::f64::consts::FRAC_PI_2, 0.0);
    let sdf = scene_world(
        "<ambient>0.2 0.2 0.2 1</ambient><background>0 0 0 1</background>",
        r#"<light name="sun" type="directional"><cast_shadows>true</cast_shadows>
             <diffuse>0.8 0.8 0.8 1</diffuse><direction>1 0 -1</direction></light>"#,
        &[
            rig(
                "3 0 5 0 1.5707963267948966 0",
                &sensor("cam", "camera", &image_body(1.2, 64, 64, "")),
            ),
            r#"<model name="ground"><static>true</static><link name="l">
              <visual name="v"><geometry><plane><normal>0 0 1</normal><size>50 50</size></plane></geometry>
                <material><diffuse>0.5 0.5 0.5 1</diffuse></material></visual></link></model>"#
                .to_string(),
            boxm("block", "2 0 0.5 0 0 0", "1 1 1", "0.2 0.4 0.6"),
        ]
        .concat(),
    );
    let m = render(
        &sdf,
        &[topic("cam", "image"), topic("cam", "camera_info")],
        0,
    );
    let (img, ci) = (image(&m[0]), info(&m[1]));
    let at = |p: Vec3| {
        let (u, v) = project(&ci, camera, p);
        rgb(&img, u.floor() as u32, v.floor() as u32)
    };
    let cos45 = std::f64::consts::FRAC_1_SQRT_2;
    let level = |c: f64| (c * 255.0).round() as i32;
    let close = |got: [u8; 3], want: [f64; 3]| {
        for (g, w) in got.iter().zip(want) {
            assert!(
                (i32::from(*g) - level(w)).abs() <= 1,
                "{got:?} vs {want:?} (x255)"
            );
        }
    };
    // Lit ground: 0.5 * (0.2 + 0.8 cos 45°).
    let lit = 0.5 * (0.2 + 0.8 * cos45);
    close(at(Vec3::new(3.0, -1.5, 0.0)), [lit; 3]);
    close(at(Vec3::new(4.0, 1.2, 0.0)), [lit; 3]);
    // The block shades the ground from x = 2.5 to 3.5 behind it: ambient only.
    close(at(Vec3::new(3.0, 0.2, 0.0)), [0.1; 3]);
    close(at(Vec3::new(3.3, -0.3, 0.0)), [0.1; 3]);
    // The block's top (normal up) is lit as the ground is, in its own colour.
    let top = [0.2, 0.4, 0.6].map(|c| c * (0.2 + 0.8 * cos45));
    close(at(Vec3::new(2.0, 0.0, 1.0)), top);
}

/// One frame and camera_info of a 160 × 120 camera (hfov 1.2, `extra` in `<camera>`) at
/// (0, 0, 1) looking along +x at small magenta spheres at `points`.
fn spheres_seen(points: &[Vec3], extra: &str) -> (Image, CameraInfo) {
    let spheres: String = points
        .iter()
        .enumerate()
        .map(|(k, p)| sphere(&format!("s{k}"), *p, 0.1, "1 0 1"))
        .collect();
    let sdf = scene_world(
        FLAT,
        "",
        &[
            rig(
                "0 0 1 0 0 0",
                &sensor("cam", "camera", &image_body(1.2, 160, 120, extra)),
            ),
            spheres,
        ]
        .concat(),
    );
    let m = render(
        &sdf,
        &[topic("cam", "image"), topic("cam", "camera_info")],
        0,
    );
    (image(&m[0]), info(&m[1]))
}

/// Small spheres at known points appear where `camera_info` projects them: the pixel
/// holding the projection is theirs and their pixels' centroid is within half a pixel.
fn check_projection(distortion: &str) {
    let camera = pose(0.0, 0.0, 1.0, 0.0, 0.0, 0.0);
    let points = [
        Vec3::new(4.0, 0.0, 1.0),
        Vec3::new(4.0, 0.9, 1.5),
        Vec3::new(4.0, -1.3, 0.4),
        Vec3::new(5.0, 1.6, 0.1),
        Vec3::new(3.0, -0.2, 1.7),
    ];
    let (img, ci) = spheres_seen(&points, distortion);
    assert_eq!(ci.distortion_model.as_str(), "plumb_bob");
    for p in points {
        let (u, v) = project(&ci, camera, p);
        assert_eq!(
            rgb(&img, u.floor() as u32, v.floor() as u32),
            [255, 0, 255],
            "{p:?} at ({u}, {v})"
        );
        let (mut su, mut sv, mut n) = (0.0, 0.0, 0.0);
        for j in (v as u32 - 10)..(v as u32 + 10) {
            for i in (u as u32 - 10)..(u as u32 + 10) {
                if rgb(&img, i, j) == [255, 0, 255] {
                    su += f64::from(i) + 0.5;
                    sv += f64::from(j) + 0.5;
                    n += 1.0;
                }
            }
        }
        let (cu, cv) = (su / n, sv / n);
        assert!(
            (cu - u).abs() < 0.5 && (cv - v).abs() < 0.5,
            "{p:?}: centroid ({cu}, {cv}) vs projection ({u}, {v}) over {n} pixels"
        );
    }
}

#[test]
fn camera_info_agrees_with_where_points_appear() {
    check_projection("");
}

#[test]
fn camera_info_agrees_with_where_points_appear_through_distortion() {
    let d = "<distortion><k1>-0.25</k1><k2>0.06</k2><k3>-0.004</k3><p1>0.002</p1><p2>-0.0015</p2>\
             <center>0.5 0.5</center></distortion>";
    check_projection(d);
    // And the coefficients are published in plumb_bob order.
    let sdf = scene_world(FLAT, "", &rig("0 0 1 0 0 0", &sensor("cam", "camera", d)));
    let ci = info(&render(&sdf, &[topic("cam", "camera_info")], 0)[0]);
    assert_eq!(
        ci.distortion.to_vec(),
        vec![-0.25, 0.06, 0.002, -0.0015, -0.004]
    );
}

#[test]
fn depth_is_along_the_optical_axis_with_rep117_ends() {
    let body = |near: f64, far: f64| {
        image_body(
            1.2,
            40,
            30,
            &format!("<clip><near>{near}</near><far>{far}</far></clip>"),
        )
    };
    let sensors = [
        sensor("d", "depth_camera", &body(0.5, 10.0)),
        sensor("short", "depth", &body(0.5, 4.0)),
    ]
    .concat();
    let wall = boxm("wall", "5.1 0 1 0 0 0", "0.2 40 40", "0.3 0.6 0.9");
    let sdf = scene_world(
        FLAT,
        "",
        &[rig("0 0 1 0 0 0", &sensors), wall.clone()].concat(),
    );
    let m = render(
        &sdf,
        &[
            topic("d", "depth_image"),
            topic("d", "camera_info"),
            topic("d", "depth_image/points"),
            topic("short", "depth_image"),
        ],
        0,
    );
    let img = image(&m[0]);
    assert_eq!((img.width, img.height, img.step), (40, 30, 160));
    // Every pixel, the corners too, sees the wall at z-depth 5 (the rays are longer).
    for j in 0..30 {
        for i in 0..40 {
            let z = depth(&img, i, j);
            assert!((z - 5.0).abs() < 1e-4, "pixel ({i}, {j}): {z}");
        }
    }
    assert_eq!(info(&m[1]).width, 40);
    // The point cloud: x (forward) is the depth, and y, z follow the pixel's ray.
    let c = cloud(&m[2]);
    assert_eq!((c.width, c.height, c.point_step), (40, 30, 16));
    assert!(c.is_dense);
    let pt = |k: usize| {
        let b = &c.data[k * 16..k * 16 + 12];
        [0, 4, 8].map(|o| f32::from_le_bytes(b[o..o + 4].try_into().unwrap()))
    };
    for k in [0, 39, 600, 1199] {
        assert!((pt(k)[0] - 5.0).abs() < 1e-4, "{:?}", pt(k));
        // Its colour, from the first frame on: the wall's diffuse (0.3 0.6 0.9) packed as
        // 0x00RRGGBB in the bits of a float.
        let bits = f32::from_le_bytes(c.data[k * 16 + 12..k * 16 + 16].try_into().unwrap());
        let rgb = [16, 8, 0].map(|s| (bits.to_bits() >> s) & 0xff);
        for (got, want) in rgb.iter().zip([0.3, 0.6, 0.9]) {
            assert!((f64::from(*got) - want * 255.0).abs() <= 1.0, "rgb {rgb:?}");
        }
    }
    // Top-left pixel: left (+y) and up (+z).
    assert!(pt(0)[1] > 0.0 && pt(0)[2] > 0.0);
    // Beyond the far clip: +inf everywhere.
    let short = image(&m[3]);
    assert!((0..30).all(|j| (0..40).all(|i| depth(&short, i, j) == f32::INFINITY)));

    // Nearer than the near clip: -inf where the close box is, the wall elsewhere; nothing
    // at all (looking away from the wall): +inf.
    let close = boxm("close", "0.4 0 1 0 0 0", "0.1 0.1 0.1", "1 1 1");
    let sdf = scene_world(
        FLAT,
        "",
        &[
            rig(
                "0 0 1 0 0 0",
                &sensor("d", "depth_camera", &body(0.5, 10.0)),
            ),
            wall.clone(),
            close,
        ]
        .concat(),
    );
    let img = image(&render(&sdf, &[topic("d", "depth_image")], 0)[0]);
    assert_eq!(depth(&img, 20, 15), f32::NEG_INFINITY);
    assert_eq!(depth(&img, 19, 14), f32::NEG_INFINITY);
    assert!((depth(&img, 0, 0) - 5.0).abs() < 1e-4);
    let sdf = scene_world(
        FLAT,
        "",
        &[
            rig(
                "0 0 1 0 0 3.141592653589793",
                &sensor("d", "depth", &body(0.5, 10.0)),
            ),
            wall,
        ]
        .concat(),
    );
    let m = render(
        &sdf,
        &[topic("d", "depth_image"), topic("d", "depth_image/points")],
        0,
    );
    let img = image(&m[0]);
    assert!((0..30).all(|j| (0..40).all(|i| depth(&img, i, j) == f32::INFINITY)));
    assert!(!cloud(&m[1]).is_dense);
}

#[test]
fn a_tilted_plane_gives_z_depth_off_centre() {
    // The camera looks straight down at the ground from 3 m: every pixel's z-depth is 3.
    let sdf = scene_world(
        FLAT,
        "",
        &[
            rig(
                "0 0 3 0 1.5707963267948966 0",
                &sensor("d", "depth_camera", &image_body(1.5, 32, 24, "")),
            ),
            r#"<model name="ground"><static>true</static><link name="l">
              <visual name="v"><geometry><plane><normal>0 0 1</normal></plane></geometry></visual>
              </link></model>"#
                .to_string(),
        ]
        .concat(),
    );
    let img = image(&render(&sdf, &[topic("d", "depth_image")], 0)[0]);
    for (i, j) in [(0, 0), (31, 23), (5, 17), (16, 12)] {
        assert!((depth(&img, i, j) - 3.0).abs() < 1e-4, "({i}, {j})");
    }
}

fn noisy_world(stddev: f64) -> String {
    scene_world(
        "<ambient>1 1 1 1</ambient><background>0.5 0.5 0.5 1</background>",
        "",
        &rig(
            "0 0 1 0 0 0",
            &sensor(
                "cam",
                "camera",
                &image_body(
                    1.0,
                    64,
                    48,
                    &format!(
                        r#"<noise type="gaussian"><mean>0</mean><stddev>{stddev}</stddev></noise>"#
                    ),
                ),
            ),
        ),
    )
}

#[test]
fn pixel_noise_is_gaussian_and_seeded() {
    let sdf = noisy_world(0.05);
    let t = [topic("cam", "image")];
    let a = image(&render(&sdf, &t, 7)[0]);
    let b = image(&render(&sdf, &t, 7)[0]);
    let c = image(&render(&sdf, &t, 8)[0]);
    assert_eq!(a.data, b.data, "same seed: bit-identical");
    let on_four = image(&render_on(&sdf, &t, 7, 4)[0]);
    assert_eq!(a.data, on_four.data, "whatever the thread count");
    assert_ne!(a.data, c.data, "another seed: other noise");
    // A uniform 0.5 grey with N(0, 0.05) per channel: mean 127.5, deviation 12.75 levels.
    let v: Vec<f64> = a.data.iter().map(|&x| f64::from(x)).collect();
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    assert!((mean - 127.5).abs() < 0.5, "mean {mean}");
    assert!((sd - 12.75).abs() < 0.5, "deviation {sd}");
    // Gazebo's |z|^2.1 shaping would give a deviation of about 0.3 levels here.
}

#[test]
fn formats_agree_and_unknown_ones_are_refused() {
    let formats = ["R8G8B8", "BGR_INT8", "L8", "L16"];
    let sensors: String = formats
        .iter()
        .map(|f| {
            sensor(
                f,
                "camera",
                &format!(
                    "<horizontal_fov>1</horizontal_fov>\
                     <image><width>40</width><height>30</height><format>{f}</format></image>"
                ),
            )
        })
        .collect();
    let sdf = scene_world(
        FLAT,
        "",
        &[
            rig("0 0 1 0 0 0", &sensors),
            boxm("b", "3 0.2 1 0 0 0", "1 1 1", "0.9 0.5 0.1"),
        ]
        .concat(),
    );
    let topics: Vec<String> = formats.iter().map(|f| topic(f, "image")).collect();
    let m = render(&sdf, &topics, 0);
    let [rgb_img, bgr, l8, l16] = [0, 1, 2, 3].map(|k| image(&m[k]));
    assert_eq!(bgr.pixel_format, PixelFormat::BGR_INT8);
    assert_eq!((l8.pixel_format, l8.step), (PixelFormat::L_INT8, 40));
    assert_eq!((l16.pixel_format, l16.step), (PixelFormat::L_INT16, 80));
    for k in 0..(40 * 30) {
        let p = &rgb_img.data[3 * k..3 * k + 3];
        assert_eq!(&bgr.data[3 * k..3 * k + 3], &[p[2], p[1], p[0]]);
        let luma = 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]);
        assert!((f64::from(l8.data[k]) - luma).abs() <= 1.0, "pixel {k}");
        let g16 = u16::from_le_bytes([l16.data[2 * k], l16.data[2 * k + 1]]);
        assert!((f64::from(g16) / 257.0 - luma).abs() <= 1.0, "pixel {k}");
    }

    let dir = stage(LIBS);
    let bad = scene_world(
        FLAT,
        "",
        &rig(
            "0 0 1 0 0 0",
            &sensor("cam", "camera", "<image><format>RGBA_INT8</format></image>"),
        ),
    );
    let e = load_error(&bad, dir.path());
    assert!(
        e.contains("rig::head::cam")
            && e.contains("<camera><image><format>")
            && e.contains("RGBA_INT8"),
        "{e}"
    );
}

#[test]
fn a_zoom_through_set_parameter_changes_the_image_and_camera_info() {
    let sdf = scene_world(
        FLAT,
        "",
        &[
            rig(
                "0 0 1 0 0 0",
                &sensor("cam", "camera", &image_body(1.0, 64, 48, "")),
            ),
            boxm("b", "4 0 1 0 0 0", "0.6 0.6 0.6", "1 0 0"),
        ]
        .concat(),
    );
    let dir = stage(LIBS);
    let mut sim = sim_from(&sdf, dir.path(), 0, 1);
    let img_sub = sim.bus_mut().subscribe(&topic("cam", "image"), 10);
    let info_sub = sim.bus_mut().subscribe(&topic("cam", "camera_info"), 10);
    let cam = sim
        .physics()
        .entity_id("rig::head::cam")
        .expect("the sensor entity");
    let red = |img: &Image| img.data.chunks(3).filter(|p| p == &[255, 0, 0]).count();
    sim.step();
    let before = (
        image(&collect(&img_sub)[0].2),
        info(&collect(&info_sub)[0].2),
    );
    sim.set_sensor_parameter(cam, "horizontal_fov", "0.5")
        .unwrap();
    sim.step();
    let after = (
        image(&collect(&img_sub)[0].2),
        info(&collect(&info_sub)[0].2),
    );
    let f = |h: f64| 64.0 / (2.0 * (h / 2.0).tan());
    assert!((before.1.intrinsics[0] - f(1.0)).abs() < 1e-9);
    assert!((after.1.intrinsics[0] - f(0.5)).abs() < 1e-9);
    assert_eq!(after.1.intrinsics[4], after.1.intrinsics[0]);
    assert_eq!(after.1.projection[0], after.1.intrinsics[0]);
    // Twice the focal length (about): about four times the pixels.
    let ratio = red(&after.0) as f64 / red(&before.0) as f64;
    let expected = (f(0.5) / f(1.0)).powi(2);
    assert!(
        (ratio / expected - 1.0).abs() < 0.15,
        "{ratio} vs {expected}"
    );
    // Bad values and unknown keys are refused and change nothing.
    for (k, v) in [
        ("horizontal_fov", "abc"),
        ("horizontal_fov", "4"),
        ("zoom", "2"),
    ] {
        assert!(sim.set_sensor_parameter(cam, k, v).is_err(), "{k}={v}");
    }
    sim.step();
    assert_eq!(
        info(&collect(&info_sub)[0].2).intrinsics,
        after.1.intrinsics
    );
}

#[test]
fn rgbd_agrees_with_the_camera_and_the_depth_camera() {
    let body = image_body(1.1, 48, 36, "<clip><near>0.2</near><far>30</far></clip>");
    let sensors = [
        sensor("rgbd", "rgbd_camera", &body),
        sensor("cam", "camera", &body),
        sensor("d", "depth_camera", &body),
    ]
    .concat();
    let sdf = scene_world(
        "<ambient>0.3 0.3 0.3 1</ambient><background>0.1 0.2 0.3 1</background>",
        r#"<light name="sun" type="directional"><cast_shadows>true</cast_shadows>
             <direction>-0.3 0.4 -1</direction></light>"#,
        &[
            rig("0 0 1 0 0.15 0", &sensors),
            r#"<model name="ground"><static>true</static><link name="l">
              <visual name="v"><geometry><plane><normal>0 0 1</normal></plane></geometry></visual>
              </link></model>"#
                .to_string(),
            boxm("b", "4 0.5 0.5 0 0 0.4", "1 1 1", "0.9 0.3 0.1"),
            sphere("s", Vec3::new(3.0, -0.8, 0.4), 0.4, "0.2 0.8 0.3"),
        ]
        .concat(),
    );
    let m = render(
        &sdf,
        &[
            "/world/test/model/rig/link/head/sensor/rgbd/image".to_string(),
            "/world/test/model/rig/link/head/sensor/rgbd/depth_image".to_string(),
            "/world/test/model/rig/link/head/sensor/rgbd/points".to_string(),
            "/world/test/model/rig/link/head/sensor/rgbd/camera_info".to_string(),
            topic("cam", "image"),
            topic("d", "depth_image"),
            topic("d", "depth_image/points"),
        ],
        0,
    );
    let (color, depth_img, points) = (image(&m[0]), image(&m[1]), cloud(&m[2]));
    assert_eq!(info(&m[3]).width, 48);
    let (cam, d, dpoints) = (image(&m[4]), image(&m[5]), cloud(&m[6]));
    assert_eq!(depth_img.data, d.data, "depth from the same rays");
    // Colour as the camera's where the depth is in range; beyond far (by the ray length, as
    // Gazebo's depth shader tests it, not by the z-depth as a camera's far plane clips) the
    // background.
    let background = [26u8, 51, 77];
    let mut beyond = 0;
    for j in 0..36 {
        for i in 0..48 {
            let (a, b) = (rgb(&color, i, j), rgb(&cam, i, j));
            if depth(&d, i, j).is_finite() {
                assert!(
                    (0..3).all(|c| a[c].abs_diff(b[c]) <= 1),
                    "({i}, {j}): {a:?} {b:?}"
                );
            } else {
                assert_eq!(a, background, "({i}, {j})");
                beyond += usize::from(a != b);
            }
        }
    }
    assert!(
        beyond > 0,
        "some ground is beyond 30 m of ray but within the far plane"
    );
    // The points agree in position with the depth camera's and carry the shaded colour.
    assert_eq!(points.data.len(), dpoints.data.len());
    for k in 0..(48 * 36) {
        let (a, b) = (
            &points.data[k * 16..k * 16 + 16],
            &dpoints.data[k * 16..k * 16 + 16],
        );
        assert_eq!(a[..12], b[..12], "point {k}");
        let bits = u32::from_le_bytes(a[12..16].try_into().unwrap());
        let px = &color.data[k * 3..k * 3 + 3];
        assert_eq!(
            bits,
            (u32::from(px[0]) << 16) | (u32::from(px[1]) << 8) | u32::from(px[2]),
            "rgb of point {k}"
        );
    }
}

fn labels_json(p: &Payload) -> serde_json::Value {
    match p {
        Payload::Custom(c) => {
            assert_eq!(c.schema.as_str(), "simcore.msgs.SegmentationLabels");
            assert_eq!(c.encoding.as_str(), "json");
            serde_json::from_slice(&c.data).expect("JSON")
        }
        other => panic!("not a Custom message: {other:?}"),
    }
}

#[test]
fn segmentation_labels_models_and_instances() {
    let label = |l: u32| {
        format!(
            r#"<plugin filename="gz-sim-label-system" name="gz::sim::systems::Label"><label>{l}</label></plugin>"#
        )
    };
    let model = |name: &str, y: f64, model_label: &str, visual_label: &str| {
        format!(
            r#"<model name="{name}"><static>true</static><pose>4 {y} 1 0 0 0</pose>{model_label}
            <link name="l"><visual name="v"><geometry><box><size>0.6 0.6 0.6</size></box></geometry>{visual_label}</visual></link></model>"#
        )
    };
    let models = [
        model("labelled", 1.0, &label(10), ""),
        model("visual_labelled", 0.0, "", &label(20)),
        model("plain", -1.0, "", ""),
    ]
    .concat();
    let body = |t: &str| {
        image_body(
            1.2,
            64,
            48,
            &format!("<segmentation_type>{t}</segmentation_type>"),
        )
    };
    let sensors = [
        sensor("sem", "segmentation_camera", &body("semantic")),
        sensor("inst", "segmentation", &body("instance")),
    ]
    .concat();
    let sdf = scene_world(FLAT, "", &[rig("0 0 1 0 0 0", &sensors), models].concat());
    let seg =
        |s: &str, t: &str| format!("/world/test/model/rig/link/head/sensor/{s}/segmentation/{t}");
    let m = render(
        &sdf,
        &[
            seg("sem", "labels_map"),
            seg("sem", "colored_map"),
            seg("sem", "labels"),
            seg("sem", "camera_info"),
            seg("inst", "labels_map"),
            seg("inst", "colored_map"),
        ],
        0,
    );
    let (labels, colored, ci) = (image(&m[0]), image(&m[1]), info(&m[3]));
    let camera = pose(0.0, 0.0, 1.0, 0.0, 0.0, 0.0);
    // Unlabelled geometry: 1 + FNV-1a(model scoped name) mod 255.
    let plain = {
        let mut h: u32 = 0x811c_9dc5;
        for b in "plain".bytes() {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        (1 + h % 255) as u8
    };
    let at = |img: &Image, y: f64| {
        let (u, v) = project(&ci, camera, Vec3::new(3.7, y, 1.0));
        rgb(img, u.floor() as u32, v.floor() as u32)
    };
    assert_eq!(at(&labels, 1.0), [10; 3]);
    assert_eq!(at(&labels, 0.0), [20; 3]);
    assert_eq!(at(&labels, -1.0), [plain; 3]);
    assert_eq!(rgb(&labels, 0, 0), [0; 3], "background");
    // The coloured map is a function of the label: one colour per label, black background.
    let mut colour_of = std::collections::HashMap::new();
    for k in 0..(64 * 48) {
        let l = labels.data[3 * k];
        let c = [0, 1, 2].map(|i| colored.data[3 * k + i]);
        assert_eq!(*colour_of.entry(l).or_insert(c), c, "label {l}");
    }
    assert_eq!(colour_of[&0], [0; 3]);
    assert_eq!(colour_of.len(), 4);
    assert!(colour_of.iter().all(|(l, c)| *l == 0 || *c != [0; 3]));

    let list = labels_json(&m[2]);
    assert_eq!(list["type"], "semantic");
    let entries = list["labels"].as_array().unwrap();
    let found: Vec<(u64, String)> = entries
        .iter()
        .map(|e| {
            (
                e["label"].as_u64().unwrap(),
                e["models"][0]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(found.contains(&(10, "labelled".into())), "{found:?}");
    assert!(found.contains(&(20, "visual_labelled".into())), "{found:?}");
    assert!(
        found.contains(&(u64::from(plain), "plain".into())),
        "{found:?}"
    );
    let pixels: u64 = entries.iter().map(|e| e["pixels"].as_u64().unwrap()).sum();
    assert!(pixels > 100 && pixels < 64 * 48);

    // Instance maps: red and green hold the model's instance id, blue the label.
    let inst = image(&m[4]);
    let ids: Vec<u16> = [1.0, 0.0, -1.0]
        .iter()
        .map(|y| {
            let p = at(&inst, *y);
            u16::from_be_bytes([p[0], p[1]])
        })
        .collect();
    assert!(ids.iter().all(|&i| i != 0), "{ids:?}");
    assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
    assert_eq!(at(&inst, 1.0)[2], 10);
    let inst_colored = image(&m[5]);
    let colours: Vec<[u8; 3]> = [1.0, 0.0, -1.0]
        .iter()
        .map(|y| at(&inst_colored, *y))
        .collect();
    assert!(colours[0] != colours[1] && colours[1] != colours[2] && colours[0] != colours[2]);
}

#[test]
fn lit_curved_surfaces_do_not_shadow_themselves() {
    // A sun behind the camera lights the cylinder's face towards it; no pixel of that face
    // may fall into its own shadow (shadow rays start off the surface).
    let sdf = scene_world(
        "<ambient>0.2 0.2 0.2 1</ambient><background>0 0 0 1</background>",
        r#"<light name="sun" type="directional"><cast_shadows>true</cast_shadows>
             <diffuse>0.8 0.8 0.8 1</diffuse><direction>1 0.2 -0.3</direction></light>"#,
        &[
            rig("0 0 1 0 0 0", &sensor("cam", "camera", &image_body(0.6, 160, 120, ""))),
            r#"<model name="cyl"><static>true</static><pose>7 0 1 0 0 0</pose><link name="l">
                <visual name="v"><geometry><cylinder><radius>0.6</radius><length>2</length></cylinder></geometry>
                <material><diffuse>1 1 1 1</diffuse></material></visual></link></model>"#
            .to_string(),
            sphere("ball", Vec3::new(5.0, -0.9, 1.3), 0.3, "1 1 1"),
        ]
        .concat(),
    );
    let img = image(&render(&sdf, &[topic("cam", "image")], 0)[0]);
    let mut checked = 0;
    for j in 0..120 {
        for i in 0..160 {
            let p = rgb(&img, i, j)[0];
            // The middle columns see the cylinder within 27 degrees of facing the camera,
            // so n.l >= 0.75: at least 0.2 + 0.8 * 0.75 = 0.8 (204); its shadow is 51.
            if p > 0 && (70..90).contains(&i) {
                checked += 1;
                assert!(p >= 200, "pixel ({i}, {j}) = {p}: self-shadowed");
            }
        }
    }
    assert!(checked > 400, "{checked}");
}

/// The Sensors system's `<background_color>` (a built-in gz-sim system) replaces the scene's
/// background, as in gz-sim.
#[test]
fn the_sensors_systems_background_color_is_the_cameras_background() {
    let sdf = scene_world(
        FLAT,
        "",
        &rig(
            "0 0 1 0 0 0",
            &sensor("cam", "camera", &image_body(1.0, 4, 3, "")),
        ),
    )
    .replace(
        "<scene>",
        r#"<plugin filename="gz-sim-sensors-system" name="gz::sim::systems::Sensors">
      <render_engine>ogre2</render_engine><background_color>1 0 0 1</background_color>
    </plugin>
    <scene>"#,
    );
    let out = render(&sdf, &[topic("cam", "image")], 0);
    assert_eq!(rgb(&image(&out[0]), 0, 0), [255, 0, 0]);
}

/// The point of pixel `k` of a camera cloud (x, y, z).
fn point(c: &PointCloudPacked, k: usize) -> [f32; 3] {
    let b = &c.data[k * 16..k * 16 + 12];
    [0, 4, 8].map(|o| f32::from_le_bytes(b[o..o + 4].try_into().unwrap()))
}

/// The clip ranges as gz-sensors and gz-rendering apply them: a `depth` camera uses
/// `<camera><clip>` only (`<depth_camera><clip>` is the RGB-D camera's); far is tested on the
/// ray length (the image corners of a wall at z-depth 5 with far 6.3 are beyond it), near on
/// the z-depth; out-of-range points are ±inf in x, y and z.
#[test]
fn depth_clips_and_out_of_range_points_as_gazebo() {
    let body = |far: f64| {
        image_body(
            1.2,
            40,
            30,
            &format!(
                "<clip><near>0.5</near><far>{far}</far></clip>\
                 <depth_camera><clip><near>0.2</near><far>4</far></clip></depth_camera>"
            ),
        )
    };
    let sensors = [
        sensor("d", "depth", &body(10.0)),
        sensor("rgbd", "rgbd_camera", &body(10.0)),
        sensor("edge", "depth_camera", &body(6.3)),
    ]
    .concat();
    let wall = boxm("wall", "5.1 0 1 0 0 0", "0.2 40 40", "0.3 0.6 0.9");
    let close = boxm("close", "0.4 0 1 0 0 0", "0.1 0.1 0.1", "1 1 1");
    let sdf = scene_world(
        FLAT,
        "",
        &[rig("0 0 1 0 0 0", &sensors), wall, close].concat(),
    );
    let m = render(
        &sdf,
        &[
            topic("d", "depth_image"),
            topic("d", "depth_image/points"),
            topic("rgbd", "depth_image"),
            topic("rgbd", "image"),
            topic("rgbd", "points"),
            topic("edge", "depth_image"),
        ],
        0,
    );
    let (d, dpoints) = (image(&m[0]), cloud(&m[1]));
    let (rd, rcolor, rpoints) = (image(&m[2]), image(&m[3]), cloud(&m[4]));
    // The depth camera ignores <depth_camera><clip>: the wall at 5 is within <clip>'s 10 m.
    assert!((depth(&d, 0, 0) - 5.0).abs() < 1e-4);
    // The RGB-D camera's depth is clipped there (far 4): +inf; its colour is within <clip>.
    assert_eq!(depth(&rd, 0, 0), f32::INFINITY);
    assert_eq!(rgb(&rcolor, 0, 0), [77, 153, 229], "the wall's colour");
    // The close box (0.35 m, nearer than <clip>'s 0.5): -inf in both, and the RGB-D camera
    // shows the background colour there, as Gazebo's depth shader does.
    assert_eq!(depth(&d, 20, 15), f32::NEG_INFINITY);
    assert_eq!(depth(&rd, 20, 15), f32::NEG_INFINITY);
    assert_eq!(rgb(&rcolor, 20, 15), [0, 0, 255], "background");
    // Points out of range: ±inf in all three coordinates, never NaN.
    let centre = 15 * 40 + 20;
    assert_eq!(point(&dpoints, centre), [f32::NEG_INFINITY; 3]);
    assert_eq!(point(&rpoints, centre), [f32::NEG_INFINITY; 3]);
    assert_eq!(point(&rpoints, 0), [f32::INFINITY; 3]);
    assert!(!dpoints.is_dense && !rpoints.is_dense);
    // Far on the ray length: with far 6.3 the edge middles see the wall (rays of 5.6 and
    // 6.1 m), the corners do not (6.6 m), though their z-depth is 5 too.
    let edge = image(&m[5]);
    assert!((depth(&edge, 20, 0) - 5.0).abs() < 1e-4);
    assert!((depth(&edge, 0, 15) - 5.0).abs() < 1e-4);
    for (i, j) in [(0, 0), (39, 0), (0, 29), (39, 29)] {
        assert_eq!(depth(&edge, i, j), f32::INFINITY, "corner ({i}, {j})");
    }
}

/// The RGB-D camera's `<noise>` as Gazebo's RGB-D noise shader applies it: one draw
/// `n ~ N(mean, stddev)` per pixel, added to the depth in metres and, shaped as
/// `sign(n)·|n|^2.1`, to each colour channel; the points follow the noisy depth.
#[test]
fn rgbd_noise_is_on_the_depth_and_the_colour() {
    let body = image_body(
        1.0,
        64,
        48,
        r#"<clip><near>0.1</near><far>20</far></clip>
           <noise type="gaussian"><mean>0</mean><stddev>0.3</stddev></noise>"#,
    );
    let wall = boxm("wall", "5.1 0 1 0 0 0", "0.2 40 40", "0.5 0.5 0.5");
    let sdf = scene_world(
        "<ambient>1 1 1 1</ambient><background>0 0 0 1</background>",
        "",
        &[rig("0 0 1 0 0 0", &sensor("rgbd", "rgbd", &body)), wall].concat(),
    );
    let t = [
        topic("rgbd", "depth_image"),
        topic("rgbd", "image"),
        topic("rgbd", "points"),
    ];
    let m = render(&sdf, &t, 3);
    let (d, color, points) = (image(&m[0]), image(&m[1]), cloud(&m[2]));
    let n = 64 * 48;
    let draws: Vec<f64> = (0..n)
        .map(|k| f64::from(depth(&d, (k % 64) as u32, (k / 64) as u32)) - 5.0)
        .collect();
    let mean = draws.iter().sum::<f64>() / n as f64;
    let sd = (draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
    assert!(mean.abs() < 0.03, "depth noise mean {mean}");
    assert!((sd - 0.3).abs() < 0.02, "depth noise deviation {sd}");
    // Each pixel's colour moved with its own depth draw, the same on every channel.
    for (k, n) in draws.iter().enumerate() {
        let c = rgb(&color, (k % 64) as u32, (k / 64) as u32);
        let want = (0.5 + n.signum() * n.abs().powf(2.1)).clamp(0.0, 1.0) * 255.0;
        assert!(c[0] == c[1] && c[1] == c[2], "pixel {k}: {c:?}");
        assert!(
            (f64::from(c[0]) - want).abs() <= 1.01,
            "pixel {k}: {c:?} for {n}"
        );
        // The point lies on the pixel's ray at the noisy depth.
        assert!(
            (f64::from(point(&points, k)[0]) - (5.0 + n)).abs() < 1e-3,
            "point {k}"
        );
    }
    // Seeded: the same seed gives the same frame.
    assert_eq!(image(&render(&sdf, &t, 3)[0]).data, d.data);
}

/// `<lens><projection>` as gz-sensors uses it: camera_info's P is `[p_fx 0 p_cx tx; 0 p_fy
/// p_cy ty; 0 0 1 0]` (a stereo baseline in tx survives), K stays the intrinsics (here from
/// the field of view), and the image is rendered with P's focal lengths and principal point:
/// known points appear where P projects them.
#[test]
fn lens_projection_sets_p_and_the_rendering() {
    let projection = "<lens><projection><p_fx>140</p_fx><p_fy>150</p_fy><p_cx>84</p_cx>\
                      <p_cy>57</p_cy><tx>-14</tx><ty>0.5</ty></projection></lens>";
    let points = [
        Vec3::new(4.0, 0.0, 1.0),
        Vec3::new(4.0, 0.9, 1.5),
        Vec3::new(4.0, -1.3, 0.4),
        Vec3::new(3.0, -0.2, 1.7),
    ];
    let (img, ci) = spheres_seen(&points, projection);
    assert_eq!(
        ci.projection,
        [
            140.0, 0.0, 84.0, -14.0, 0.0, 150.0, 57.0, 0.5, 0.0, 0.0, 1.0, 0.0
        ]
    );
    let f = 80.0 / 0.6f64.tan();
    assert_eq!(ci.intrinsics, [f, 0.0, 80.0, 0.0, f, 60.0, 0.0, 0.0, 1.0]);
    for p in points {
        // The sensor is at (0, 0, 1) looking along +x: optical x = -y, y = -(z - 1), z = x.
        let (x, y) = (-p.y / p.x, -(p.z - 1.0) / p.x);
        let (u, v) = (140.0 * x + 84.0, 150.0 * y + 57.0);
        assert_eq!(
            rgb(&img, u.floor() as u32, v.floor() as u32),
            [255, 0, 255],
            "{p:?} at ({u}, {v})"
        );
    }
}

/// Two 1 m boxes 4 m ahead of a rig at (0, 0, 1): `plain` (red, default flags) at y = -1 and
/// `tagged` (green, `<visibility_flags>` 2) at y = +1, and the rig's `sensors`.
fn masked_world(sensors: &str) -> String {
    let tagged = boxm("tagged", "4 1 1 0 0 0", "1 1 1", "0 1 0").replace(
        r#"<visual name="v">"#,
        r#"<visual name="v"><visibility_flags>2</visibility_flags>"#,
    );
    let models = [
        rig("0 0 1 0 0 0", sensors),
        boxm("plain", "4 -1 1 0 0 0", "1 1 1", "1 0 0"),
        tagged,
    ];
    scene_world(FLAT, "", &models.concat())
}

#[test]
fn a_camera_sees_only_the_visuals_its_mask_selects() {
    // The boxes' near faces are at x = 3.5, 1 m either side of the optical axis: with
    // f = 20 / tan(0.6) = 29.2 px, `tagged` (y in [0.5, 1.5]) covers columns 7.5..15.8 and
    // `plain` columns 24.2..32.5 of the middle row.
    let (tagged_px, plain_px, row) = (11, 28, 15);
    let (red, green, blue) = ([255, 0, 0], [0, 255, 0], [0, 0, 255]);
    let masked =
        |name: &str, kind: &str, mask: &str| sensor(name, kind, &image_body(1.2, 40, 30, mask));
    let mask = |m: u32| format!("<visibility_mask>{m}</visibility_mask>");
    let sensors = [
        masked("all", "camera", ""),
        masked("one", "camera", &mask(1)),
        masked("three", "camera", &mask(3)),
        masked("none", "camera", &mask(0)),
        masked("depth", "depth_camera", &mask(1)),
        masked("depth_all", "depth_camera", ""),
        masked("wide", "wideanglecamera", &mask(1)),
        masked("wide_all", "wideanglecamera", ""),
    ]
    .concat();
    let mut topics: Vec<String> = ["all", "one", "three", "none"]
        .iter()
        .map(|n| topic(n, "image"))
        .collect();
    topics.push(topic("depth", "depth_image"));
    topics.push(topic("depth_all", "depth_image"));
    topics.push(topic("wide", "image"));
    topics.push(topic("wide_all", "image"));
    let m = render(&masked_world(&sensors), &topics, 0);
    let seen = |k: usize| {
        let img = image(&m[k]);
        (rgb(&img, tagged_px, row), rgb(&img, plain_px, row))
    };
    // Without a mask (every bit) both boxes are seen.
    assert_eq!(seen(0), (green, red));
    // Mask 1 shares no bit with flags 2: the tagged box is background; the plain one (flags
    // every bit) is seen.
    assert_eq!(seen(1), (blue, red));
    // Mask 3 shares bit 2.
    assert_eq!(seen(2), (green, red));
    // Mask 0 sees nothing.
    assert_eq!(seen(3), (blue, blue));
    // The depth camera: far (+inf) where the tagged box is hidden, 3.5 m (z-depth) else.
    let (masked, all) = (image(&m[4]), image(&m[5]));
    assert_eq!(depth(&masked, tagged_px, row), f32::INFINITY);
    assert!((depth(&masked, plain_px, row) - 3.5).abs() < 1e-4);
    assert!((depth(&all, tagged_px, row) - 3.5).abs() < 1e-4);
    // The wide-angle camera (its own lens, so counted over the image): the tagged green box
    // is seen without a mask and hidden by mask 1, the plain red one seen by both.
    let count = |k: usize, c: [u8; 3]| {
        let img = image(&m[k]);
        (0..img.height)
            .flat_map(|j| (0..img.width).map(move |i| (i, j)))
            .filter(|&(i, j)| rgb(&img, i, j) == c)
            .count()
    };
    assert!(count(7, green) > 0 && count(7, red) > 0);
    assert_eq!(count(6, green), 0);
    assert!(count(6, red) > 0);
}

/// The load warnings of `sdf` that mention visibility, or the rendered load error.
fn visibility_warnings(sdf: &str) -> Result<Vec<String>, String> {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), sdf).unwrap();
    let (doc, w) = sim_core::sdf::load_document_with_warnings(file.path(), &Default::default());
    doc.map_err(|e| e.render(None))?;
    Ok(w.into_iter()
        .map(|w| w.message)
        .filter(|m| m.contains("visibility"))
        .collect())
}

/// The SDF reader keeps each sensor's `<visibility_mask>` and each visual's
/// `<visibility_flags>` and refuses a value that is not an unsigned 32-bit number.
#[test]
fn the_reader_keeps_masks_and_flags_and_refuses_bad_ones() {
    let sensors = [
        sensor("cam", "camera", "<visibility_mask>5</visibility_mask>"),
        r#"<sensor name="l" type="gpu_lidar"><lidar><scan><horizontal><samples>3</samples>
          </horizontal></scan><range><max>5</max></range>
          <visibility_mask>7</visibility_mask></lidar></sensor>"#
            .to_string(),
    ]
    .concat();
    let sdf = masked_world(&sensors);
    // Masks on cameras and lidars and flags on visuals are honoured: no warning.
    assert_eq!(visibility_warnings(&sdf), Ok(vec![]));
    let w = sim_core::sdf::parse_str(&sdf, None).unwrap_or_else(|e| panic!("{}", e.render(None)));
    let model = |name: &str| w.models.iter().find(|m| m.name == name).unwrap();
    let masks: Vec<u32> = model("rig").links[0]
        .sensors
        .iter()
        .map(|s| s.visibility_mask)
        .collect();
    assert_eq!(masks, [5, 7]);
    let flags = |name: &str| model(name).links[0].visuals[0].visibility_flags;
    assert_eq!((flags("plain"), flags("tagged")), (u32::MAX, 2));

    // A mask is read whatever the sensor type (what it selects is the plugin's): no
    // warning on a thermal camera's, which it honours, nor on a third party's type.
    for kind in ["thermal_camera", "wideanglecamera", "acme_radar"] {
        let sdf = masked_world(&sensor("t", kind, "<visibility_mask>1</visibility_mask>"));
        assert_eq!(visibility_warnings(&sdf), Ok(vec![]), "{kind}");
    }

    // Not an unsigned 32-bit number: a load error naming the element.
    for bad in ["-1", "4294967296", "0x100000000", "0x", "+1", "one"] {
        let mask = format!("<visibility_mask>{bad}</visibility_mask>");
        let e = visibility_warnings(&masked_world(&sensor("c", "camera", &mask))).unwrap_err();
        assert!(
            e.contains("<visibility_mask> must be an unsigned 32-bit number"),
            "{bad}: {e}"
        );
        let e = visibility_warnings(&masked_world("").replace(
            "<visibility_flags>2</visibility_flags>",
            &format!("<visibility_flags>{bad}</visibility_flags>"),
        ))
        .unwrap_err();
        assert!(
            e.contains("<visibility_flags> must be an unsigned 32-bit number"),
            "{bad}: {e}"
        );
    }
}

/// A world of `models` on a grey ground plane under a sun shining along `sun` (x y z) and a
/// point light, both casting shadows, on a dim ambient and a black background.
fn shadowed_world(sun: &str, models: &str) -> String {
    let ground = r#"<model name="ground"><static>true</static><link name="l">
      <visual name="v"><geometry><plane><normal>0 0 1</normal><size>100 100</size></plane></geometry>
        <material><diffuse>0.5 0.5 0.5 1</diffuse></material></visual></link></model>"#;
    scene_world(
        "<ambient>0.2 0.2 0.2 1</ambient><background>0 0 0 1</background>",
        &format!(
            r#"<light name="sun" type="directional"><cast_shadows>true</cast_shadows>
             <diffuse>0.8 0.8 0.8 1</diffuse><direction>{sun}</direction></light>
           <light name="bulb" type="point"><cast_shadows>true</cast_shadows><pose>3 -2 3 0 0 0</pose>
             <diffuse>0.5 0.4 0.3 1</diffuse><attenuation><range>20</range><constant>0.5</constant>
             <linear>0.05</linear><quadratic>0.01</quadratic></attenuation></light>"#
        ),
        &format!("{ground}{models}"),
    )
}

#[test]
fn frames_are_the_same_bytes_on_one_and_two_threads() {
    // 160 x 120 pixels: many chunks of pixels on two threads. A sun and a point light cast
    // shadows of a box and a sphere (curved hits) on a plane; the plane's far part lies
    // beyond the far clip.
    let body = image_body(1.2, 160, 120, "<clip><near>0.1</near><far>12</far></clip>");
    let sensors = [
        sensor("cam", "camera", &body),
        sensor("depth", "depth_camera", &body),
    ]
    .concat();
    let sdf = shadowed_world(
        "0.5 0.3 -1",
        &[
            rig("0 0 2 0 0.4 0", &sensors),
            boxm("block", "4 0.8 0.5 0 0 0.3", "1 1 1", "0.2 0.4 0.6"),
            sphere("ball", Vec3::new(5.0, -1.0, 0.7), 0.7, "0.9 0.3 0.1"),
        ]
        .concat(),
    );
    let topics = [
        topic("cam", "image"),
        topic("depth", "depth_image"),
        topic("depth", "depth_image/points"),
    ];
    let one = render_on(&sdf, &topics, 0, 1);
    let two = render_on(&sdf, &topics, 0, 2);
    let (img, depths, points) = (image(&one[0]), image(&one[1]), cloud(&one[2]));
    // The frame has lit, shadowed and coloured pixels, near and beyond-far depths.
    let mut colours: Vec<[u8; 3]> = img
        .data
        .chunks_exact(3)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 20, "{} colours", colours.len());
    let d: Vec<f32> = (0..120)
        .flat_map(|j| (0..160).map(move |i| (i, j)))
        .map(|(i, j)| depth(&depths, i, j))
        .collect();
    assert!(d.iter().any(|z| z.is_finite()) && d.contains(&f32::INFINITY));
    assert!(!points.is_dense);
    // (Whole frames are too long to print.)
    assert!(image(&two[0]).data == img.data, "colour image differs");
    assert!(image(&two[1]).data == depths.data, "depth image differs");
    let two_points = cloud(&two[2]);
    assert!(two_points.data == points.data, "point cloud differs");
    assert_eq!(two_points.is_dense, points.is_dense);
    // Later frames too: on several threads their bands are handed out in the order of the
    // last frame's costs, not top to bottom.
    let dir = stage(LIBS);
    for threads in [1, 2] {
        let mut sim = sim_from(&sdf, dir.path(), 0, threads);
        let frames = steps(&mut sim, &topics, 3);
        let [colour, depth, points_of] = &frames[..] else {
            unreachable!("three topics")
        };
        for (f, ((c, d), p)) in colour.iter().zip(depth).zip(points_of).enumerate() {
            let (c, d, p) = (image(c), image(d), cloud(p));
            assert!(
                c.data == img.data,
                "frame {f}, {threads} thread(s): colour image differs"
            );
            assert!(
                d.data == depths.data,
                "frame {f}, {threads} thread(s): depths differ"
            );
            assert!(
                p.data == points.data,
                "frame {f}, {threads} thread(s): cloud differs"
            );
        }
    }
}

/// Pixels of two RGB8 images that differ in any channel, and the mean absolute difference
/// over all channels, in 8-bit levels.
fn image_difference(a: &Image, b: &Image) -> (usize, f64) {
    assert_eq!(
        (a.width, a.height, a.data.len()),
        (b.width, b.height, b.data.len())
    );
    let differ = a
        .data
        .chunks_exact(3)
        .zip(b.data.chunks_exact(3))
        .filter(|(x, y)| x != y)
        .count();
    let sum: u64 = a
        .data
        .iter()
        .zip(&b.data)
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    (differ, sum as f64 / a.data.len() as f64)
}

/// A visual of `geometry` at `pose` with diffuse colour `rgb`.
fn coloured_visual(name: &str, pose: &str, geometry: &str, rgb: &str) -> String {
    format!(
        r#"<visual name="{name}"><pose>{pose}</pose><geometry>{geometry}</geometry>
             <material><diffuse>{rgb} 1</diffuse></material></visual>"#
    )
}

/// Every kind of shape, rotated, and `more` visuals, on a plane under a sun and a point
/// light with shadows, seen by `sensor` on a rig 2 m up, pitched down.
fn every_shape_world(sensor: &str, more: &str) -> String {
    let shapes = [
        coloured_visual("b", "4 0.8 0.5 0 0 0.3", "<box><size>1 1 1</size></box>", "0.2 0.4 0.6"),
        coloured_visual("r", "6 -1.5 0.8 0.4 0.3 0.7", "<box><size>0.8 1.2 1.4</size></box>", "0.7 0.7 0.2"),
        coloured_visual("s", "5 -0.6 0.7 0 0 0", "<sphere><radius>0.7</radius></sphere>", "0.9 0.3 0.1"),
        coloured_visual("c", "7 1.5 0.6 0.5 0 0", "<cylinder><radius>0.4</radius><length>1.2</length></cylinder>", "0.3 0.8 0.3"),
        coloured_visual("k", "8 -3 0.8 0 1.2 0", "<capsule><radius>0.3</radius><length>0.8</length></capsule>", "0.6 0.2 0.8"),
        coloured_visual(
            "m",
            "6 3 0 0 0 0.3",
            "<polyline><point>-0.5 -0.5</point><point>0.5 -0.4</point><point>0.2 0.6</point><height>1.5</height></polyline>",
            "0.9 0.9 0.9",
        ),
    ]
    .concat();
    shadowed_world(
        "0.8 0.3 -0.6",
        &[
            rig("0 0 2 0 0.3 0.05", sensor),
            format!(r#"<model name="shapes"><static>true</static><link name="l">{shapes}{more}</link></model>"#),
        ]
        .concat(),
    )
}

/// The first frame on `topic` of the rig's sensor `name` in world `sdf` (plugins staged in
/// `dir`, on `threads` sensor threads) rasterised, then the next cast by rays, and the
/// simulation.
fn raster_then_rays(
    sdf: &str,
    dir: &Path,
    threads: usize,
    name: &str,
    topic: &str,
) -> (Image, Image, Simulation) {
    let mut sim = sim_from(sdf, dir, 0, threads);
    let sub = sim.bus_mut().subscribe(topic, 10);
    let cam = sim
        .physics()
        .entity_id(&format!("rig::head::{name}"))
        .expect("the sensor");
    sim.step();
    let raster = image(&collect(&sub)[0].2);
    sim.set_sensor_parameter(cam, "primary_visibility", "rays")
        .unwrap();
    sim.step();
    let rays = image(&collect(&sub)[0].2);
    (raster, rays, sim)
}

#[test]
fn rasterised_frames_equal_the_ray_cast_frames() {
    // Every kind of shape, rotated, on a plane under a sun and a point light with shadows; a
    // box reaching across the near clip; the camera inside its own housing (not seen).
    let body = image_body(1.2, 160, 120, "<clip><near>0.1</near><far>30</far></clip>");
    let near = coloured_visual(
        "n",
        "0.12 -0.1 1.95 0 0 0.5",
        "<box><size>0.2 0.2 0.2</size></box>",
        "1 0 0",
    );
    let sdf = every_shape_world(&sensor("cam", "camera", &body), &near);
    let dir = stage(LIBS);
    for threads in [1, 2] {
        let (raster, rays, mut sim) =
            raster_then_rays(&sdf, dir.path(), threads, "cam", &topic("cam", "image"));
        let cam = sim.physics().entity_id("rig::head::cam").unwrap();
        assert!(
            sim.set_sensor_parameter(cam, "primary_visibility", "both")
                .is_err()
        );
        let mut colours: Vec<&[u8]> = rays.data.chunks_exact(3).collect();
        colours.sort_unstable();
        colours.dedup();
        assert!(colours.len() > 20, "{} colours", colours.len());
        // The red box across the near clip is seen.
        assert!(
            rays.data
                .chunks_exact(3)
                .any(|p| p[0] > 2 * p[1].max(p[2]) && p[0] > 40)
        );
        let (differ, mean) = image_difference(&raster, &rays);
        eprintln!(
            "{threads} thread(s): {differ} of 19200 pixels differ, mean error {mean:.5} levels"
        );
        // Within rounding of an edge or a shadow's edge a pixel may see the other side.
        assert!(differ <= 19200 / 500, "{differ} pixels differ");
        assert!(mean < 0.05, "mean error {mean} levels");
    }
}

/// The next `n` frames on `topic` of a simulation subscribed by `sub`, a step each.
fn next_frames(sim: &mut Simulation, sub: &Subscription, n: usize) -> Vec<Image> {
    (0..n)
        .map(|_| {
            sim.step();
            image(&collect(sub)[0].2)
        })
        .collect()
}

#[test]
fn frames_shaded_as_they_are_cast_equal_those_shaded_after() {
    // A frame's first frame with a sun's shadow map is cast, then shaded; the next are
    // shaded band by band as they are cast, their maps over the last frame's points.
    let body = image_body(1.2, 160, 120, "<clip><near>0.1</near><far>30</far></clip>");
    let sdf = every_shape_world(&sensor("cam", "camera", &body), "");
    let moved = Pose::from_xyz_rpy(-0.5, 0.6, 1.8, 0.0, 0.35, -0.1);
    let dir = stage(LIBS);
    let topic = topic("cam", "image");
    for threads in [1, 2] {
        let mut sim = sim_from(&sdf, dir.path(), 0, threads);
        let sub = sim.bus_mut().subscribe(&topic, 10);
        let f = next_frames(&mut sim, &sub, 3);
        assert!(f[1].data == f[0].data && f[2].data == f[0].data);
        // The camera moved: its first frame after has the maps of the frame before (points
        // outside them have their shadow rays), its second those of its own points, as a
        // camera that was always there.
        let update = EntityUpdate {
            pose: Some(moved),
            ..Default::default()
        };
        sim.set_entity_state("rig", &update).unwrap();
        let after = next_frames(&mut sim, &sub, 2);
        let there = sdf.replace(
            "<pose>0 0 2 0 0.3 0.05</pose>",
            "<pose>-0.5 0.6 1.8 0 0.35 -0.1</pose>",
        );
        assert_ne!(there, sdf);
        let mut fresh = sim_from(&there, dir.path(), 0, threads);
        let fresh_sub = fresh.bus_mut().subscribe(&topic, 10);
        let first = &next_frames(&mut fresh, &fresh_sub, 1)[0];
        assert!(first.data != f[0].data, "the camera did not move");
        let (differ, mean) = image_difference(&after[0], first);
        assert!(
            differ <= 19200 / 500 && mean < 0.05,
            "{differ} differ, {mean}"
        );
        assert!(after[1].data == first.data, "{threads} thread(s)");
    }
    // Without a sun's shadows every frame is shaded as it is cast, the first too, whose
    // surfaces are looked up after it: the same frame as the next.
    let sdf = scene_world(
        "<ambient>0.2 0.2 0.2 1</ambient><background>0 0 0 1</background>",
        r#"<light name="bulb" type="point"><cast_shadows>true</cast_shadows><pose>3 -2 3 0 0 0</pose>
             <diffuse>0.9 0.8 0.7 1</diffuse><attenuation><range>20</range><constant>0.5</constant>
             </attenuation></light>"#,
        &[
            rig("0 0 2 0 0.3 0", &sensor("cam", "camera", &body)),
            boxm("block", "4 0.8 0.5 0 0 0.3", "1 1 1", "0.2 0.4 0.6"),
            boxm("floor", "5 0 -0.05 0 0 0", "20 20 0.1", "0.5 0.5 0.5"),
        ]
        .concat(),
    );
    let mut sim = sim_from(&sdf, dir.path(), 0, 2);
    let sub = sim.bus_mut().subscribe(&topic, 10);
    let f = next_frames(&mut sim, &sub, 2);
    let mut colours: Vec<&[u8]> = f[0].data.chunks_exact(3).collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 20, "{} colours", colours.len());
    assert!(f[1].data == f[0].data);
}

#[test]
fn rasterised_depth_frames_equal_the_ray_cast_frames() {
    // Every kind of shape, rotated, on a plane; a box reaching across the near clip, one
    // nearer than it (`-inf`), the camera inside its own housing (not seen); the plane's far
    // part beyond the far clip (`+inf`).
    let body = image_body(1.2, 160, 120, "<clip><near>0.3</near><far>9</far></clip>");
    // Across the near clip, and wholly nearer than it.
    let near = [
        coloured_visual(
            "n",
            "0.3 -0.12 1.95 0 0 0.5",
            "<box><size>0.1 0.1 0.1</size></box>",
            "1 0 0",
        ),
        coloured_visual(
            "f",
            "0.15 0.07 1.98 0 0 0",
            "<sphere><radius>0.02</radius></sphere>",
            "1 0 0",
        ),
    ]
    .concat();
    let sdf = every_shape_world(&sensor("d", "depth_camera", &body), &near);
    let dir = stage(LIBS);
    let frame = |img: &Image| -> Vec<f32> {
        (0..120)
            .flat_map(|j| (0..160).map(move |i| (i, j)))
            .map(|(i, j)| depth(img, i, j))
            .collect()
    };
    for threads in [1, 2] {
        let (raster, rays, _) =
            raster_then_rays(&sdf, dir.path(), threads, "d", &topic("d", "depth_image"));
        let (raster, rays) = (frame(&raster), frame(&rays));
        // The frame holds every kind of pixel.
        let count = |f: &dyn Fn(f32) -> bool| rays.iter().filter(|z| f(**z)).count();
        eprintln!(
            "finite {}, +inf {}, -inf {}",
            count(&|z| z.is_finite()),
            count(&|z| z == f32::INFINITY),
            count(&|z| z == f32::NEG_INFINITY)
        );
        assert!(count(&|z| z.is_finite()) > 8_000, "finite depths");
        assert!(count(&|z| z == f32::INFINITY) > 100, "beyond the far clip");
        assert!(
            count(&|z| z == f32::NEG_INFINITY) > 50,
            "nearer than the near clip"
        );
        // Within rounding of an edge a pixel may see the other side; elsewhere the depths
        // agree to a few millionths, and to 1e-4 where a ray grazes a curved surface (the
        // two paths' single-precision casts start at different points of the ray).
        let (mut differ, mut worst, mut over) = (0, 0.0f32, 0);
        for (k, (a, b)) in raster.iter().zip(&rays).enumerate() {
            if a.is_finite() && b.is_finite() {
                let e = (a - b).abs() / b.abs();
                worst = worst.max(e);
                over += usize::from(e > 1e-5);
                if e <= 1e-4 {
                    continue;
                }
            } else if a == b {
                continue;
            }
            differ += 1;
            eprintln!("pixel {k}: rasterised {a}, ray {b}");
        }
        eprintln!(
            "{threads} thread(s): {differ} of 19200 depths differ, largest relative error \
             {worst:e}, {over} over 1e-5"
        );
        assert!(differ <= 19200 / 500, "{differ} depths differ");
        assert!(
            over <= 19200 / 1000,
            "{over} depths differ by more than 1e-5"
        );
    }
}

#[test]
fn rasterised_segmentation_maps_equal_the_ray_cast_maps() {
    // Every kind of shape on a ground plane: the shapes' model, the ground and the background
    // have instances (and labels) of their own, so a pixel seeing the other side of an edge
    // shows.
    let body = image_body(
        1.2,
        160,
        120,
        "<clip><near>0.1</near><far>30</far></clip><segmentation_type>instance</segmentation_type>",
    );
    let sdf = every_shape_world(&sensor("seg", "segmentation", &body), "");
    let dir = stage(LIBS);
    let map = "/world/test/model/rig/link/head/sensor/seg/segmentation/labels_map";
    for threads in [1, 2] {
        let (raster, rays, _) = raster_then_rays(&sdf, dir.path(), threads, "seg", map);
        let mut seen: Vec<&[u8]> = rays.data.chunks_exact(3).collect();
        seen.sort_unstable();
        seen.dedup();
        assert!(seen.len() >= 3, "{} labels and instances", seen.len());
        let (differ, _) = image_difference(&raster, &rays);
        eprintln!("{threads} thread(s): {differ} of 19200 pixels differ");
        assert!(differ <= 19200 / 500, "{differ} pixels differ");
    }
}
