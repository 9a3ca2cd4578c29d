//! The wide-angle camera plugin loaded from its real library into real rapier worlds: an
//! equidistant fish-eye of 270° sees boxes ahead and behind it where the lens's mapping
//! function puts them (computed here from the scene's geometry), pixels beyond the cut-off
//! angle are black; a custom mapping function equal to the stereographic one gives its
//! image; both SDF type names publish on Gazebo's default topics; bad lenses are refused.

use crate::common;

use common::images::{image, info, render_with, rgb, world_with};
use common::*;
use sim_plugin_api::{Payload, Vec3};
use std::f64::consts::PI;

const LIBS: &[&str] = &["simcore_plugin_wide_angle_camera"];

fn sensor(name: &str, kind: &str, camera: &str) -> String {
    format!(
        r#"<sensor name="{name}" type="{kind}"><update_rate>0</update_rate><camera>{camera}</camera></sensor>"#
    )
}

/// A static box of edge `size` centred at `c` with diffuse colour `rgb`.
fn boxm(name: &str, c: Vec3, size: f64, rgb: &str) -> String {
    format!(
        r#"<model name="{name}"><static>true</static><pose>{} {} {} 0 0 0</pose><link name="l">
        <visual name="v"><geometry><box><size>{size} {size} {size}</size></box></geometry>
          <material><diffuse>{rgb} 1</diffuse></material></visual></link></model>"#,
        c.x, c.y, c.z
    )
}

fn topic(sensor: &str, suffix: &str) -> String {
    format!("/world/test/model/rig/link/head/sensor/{sensor}/{suffix}")
}

/// One update of every sensor: the message on each of `topics`.
fn render(sdf: &str, topics: &[String]) -> Vec<Payload> {
    render_with(LIBS, sdf, topics, 0, 1)
}

/// Whether the ray from `o` along `d` meets the axis-aligned cube of edge `size` at `c`.
fn meets(o: Vec3, d: Vec3, c: Vec3, size: f64) -> bool {
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for (o, d, c) in [(o.x, d.x, c.x), (o.y, d.y, c.y), (o.z, d.z, c.z)] {
        let (lo, hi) = (c - size / 2.0, c + size / 2.0);
        if d.abs() < 1e-15 {
            if o < lo || o > hi {
                return false;
            }
            continue;
        }
        let (a, b) = ((lo - o) / d, (hi - o) / d);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    t0 <= t1
}

#[test]
fn a_fish_eye_sees_ahead_and_behind_where_its_mapping_function_puts_things() {
    let (w, h) = (61u32, 31u32);
    let hfov = 1.5 * PI;
    let cutoff = 2.4;
    let camera = format!(
        "<horizontal_fov>{hfov}</horizontal_fov><image><width>{w}</width><height>{h}</height></image>\
         <lens><type>equidistant</type><scale_to_hfov>true</scale_to_hfov>\
         <cutoff_angle>{cutoff}</cutoff_angle><env_texture_size>512</env_texture_size></lens>"
    );
    let eye = Vec3::new(0.0, 0.0, 1.0);
    // Ahead; 120° to the left (behind the camera's image plane); straight behind (180°,
    // beyond the cut-off: never seen).
    let left = Vec3::new(-2.0, 2.0 * 3f64.sqrt(), 1.0);
    let boxes = [
        (Vec3::new(4.0, 0.0, 1.0), [204u8, 51, 51], "0.8 0.2 0.2"),
        (left, [51, 204, 51], "0.2 0.8 0.2"),
        (Vec3::new(-4.0, 0.0, 1.0), [255, 255, 0], "1 1 0"),
    ];
    let models: String = boxes
        .iter()
        .enumerate()
        .map(|(k, (c, _, diffuse))| boxm(&format!("b{k}"), *c, 1.0, diffuse))
        .collect();
    let sdf = world_with(&sensor("fish", "wideanglecamera", &camera), &models);
    let m = render(
        &sdf,
        &[topic("fish", "image"), topic("fish", "camera_info")],
    );
    let (img, ci) = (image(&m[0]), info(&m[1]));
    assert_eq!((img.width, img.height, img.step), (w, h, 3 * w));
    // camera_info is the pinhole calibration of the field of view, as gz-sensors fills it.
    let f = f64::from(w) / (2.0 * (hfov / 2.0).tan());
    assert_eq!((ci.width, ci.height), (w, h));
    assert!((ci.intrinsics[0] - f).abs() < 1e-9, "{:?}", ci.intrinsics);

    // Equidistant, scaled to the field of view: θ = r · hfov / 2 with r in units of half
    // the image width.
    let mut counts = [0usize; 4];
    for j in 0..h {
        for i in 0..w {
            let u = 2.0 * (f64::from(i) + 0.5) / f64::from(w) - 1.0;
            let v = (1.0 - 2.0 * (f64::from(j) + 0.5) / f64::from(h)) * f64::from(h) / f64::from(w);
            let r = u.hypot(v);
            let theta = r * hfov / 2.0;
            let got = rgb(&img, i, j);
            if (theta - cutoff).abs() < 0.02 {
                continue;
            }
            if theta > cutoff {
                assert_eq!(got, [0, 0, 0], "pixel ({i}, {j}) is beyond the cut-off");
                counts[3] += 1;
                continue;
            }
            let d = Vec3::new(theta.cos(), -u / r * theta.sin(), v / r * theta.sin());
            let mut expected = Some([0u8, 0, 255]);
            for (k, (c, colour, _)) in boxes.iter().enumerate() {
                if meets(eye, d, *c, 0.98) {
                    expected = Some(*colour);
                    counts[k] += 1;
                } else if meets(eye, d, *c, 1.02) {
                    expected = None; // at an edge
                }
            }
            if let Some(e) = expected {
                assert_eq!(got, e, "pixel ({i}, {j}), θ = {theta}");
            }
        }
    }
    assert!(
        counts[0] > 4 && counts[1] > 4,
        "boxes cover {counts:?} pixels"
    );
    assert_eq!(counts[2], 0, "nothing straight behind is seen");
    assert!(counts[3] > 20, "the corners are black: {counts:?}");
    // The box at 120° is on the left half, on the middle row.
    let middle: Vec<u32> = (0..w)
        .filter(|i| rgb(&img, *i, h / 2) == [51, 204, 51])
        .collect();
    assert!(
        !middle.is_empty() && middle.iter().all(|i| *i < w / 2),
        "{middle:?}"
    );
}

#[test]
fn a_custom_function_equal_to_the_stereographic_one_gives_its_image() {
    let body = |lens: &str| {
        format!(
            "<horizontal_fov>3</horizontal_fov><image><width>48</width><height>36</height></image>\
             <lens>{lens}</lens>"
        )
    };
    let sensors = [
        sensor(
            "stereo",
            "wideanglecamera",
            &body("<type>stereographic</type>"),
        ),
        sensor(
            "custom",
            "wide_angle_camera",
            &body(
                "<type>custom</type><custom_function><c1>2</c1><c2>2</c2><c3>0</c3>\
                 <f>1</f><fun>tan</fun></custom_function>",
            ),
        ),
        sensor("equi", "wideanglecamera", &body("<type>equidistant</type>")),
    ]
    .concat();
    let models = [
        boxm("a", Vec3::new(2.0, 0.5, 1.2), 1.0, "0.8 0.2 0.2"),
        boxm("b", Vec3::new(0.3, -2.0, 0.6), 0.8, "0.2 0.8 0.2"),
    ]
    .concat();
    let m = render(
        &world_with(&sensors, &models),
        &[
            topic("stereo", "image"),
            topic("custom", "image"),
            topic("equi", "image"),
            topic("custom", "camera_info"),
        ],
    );
    let [stereo, custom, equi] = [0, 1, 2].map(|k| image(&m[k]));
    assert_eq!(stereo.data, custom.data);
    assert_ne!(
        stereo.data, equi.data,
        "another mapping function, another image"
    );
    assert_eq!(info(&m[3]).width, 48);
}

fn refusal(camera: &str) -> String {
    let dir = stage(LIBS);
    load_error(
        &world_with(&sensor("w", "wideanglecamera", camera), ""),
        dir.path(),
    )
}

#[test]
fn bad_lenses_are_refused_with_a_message() {
    let e = refusal("<lens><type>fisheye</type></lens>");
    assert!(
        e.contains("rig::head::w") && e.contains("<lens><type>") && e.contains("fisheye"),
        "{e}"
    );
    let e = refusal(
        "<lens><type>custom</type><custom_function><fun>cos</fun></custom_function></lens>",
    );
    assert!(e.contains("<fun>") && e.contains("cos"), "{e}");
    let e = refusal("<horizontal_fov>3.5</horizontal_fov><lens><type>gnomonical</type></lens>");
    assert!(
        e.contains("rig::head::w") && e.contains("cannot map"),
        "{e}"
    );
}
