//! Visibility masks, with the camera, depth camera and lidar plugins loaded from their real
//! libraries into real worlds: a sensor sees a visual when the visual's `<visibility_flags>`
//! and its `<visibility_mask>` share a bit (Gazebo's rule), every visual without a mask; a
//! lidar seeing collisions is not masked. The SDF reader keeps the values, refuses what is not
//! an unsigned 32-bit number and warns about a mask on a sensor that casts no rays at visuals.

mod common;

use common::*;
use sim_plugin_api::{Image, LaserScan, Payload, PixelFormat};

const LIBS: &[&str] = &[
    "simcore_plugin_camera",
    "simcore_plugin_depth_camera",
    "simcore_plugin_lidar",
];

/// A world named `test` under full white ambient light and a blue background, holding a
/// static `rig` at (0, 0, 1) facing +x with `sensors` on its link `head`, and two static
/// 1 m boxes 4 m ahead with collisions and visuals: `plain` (red, default flags) at
/// y = -1 and `tagged` (green, `<visibility_flags>` 2) at y = +1.
fn world(sensors: &str) -> String {
    let model = |name: &str, y: f64, rgb: &str, flags: &str| {
        format!(
            r#"<model name="{name}"><static>true</static><pose>4 {y} 1 0 0 0</pose><link name="l">
            <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
            <visual name="v">{flags}<geometry><box><size>1 1 1</size></box></geometry>
              <material><diffuse>{rgb} 1</diffuse></material></visual></link></model>"#
        )
    };
    format!(
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="test">
    <physics type="ode"><max_step_size>0.001</max_step_size><real_time_factor>0</real_time_factor></physics>
    <scene><ambient>1 1 1 1</ambient><background>0 0 1 1</background></scene>
    <model name="rig"><static>true</static><pose>0 0 1 0 0 0</pose>
      <link name="head">{sensors}</link>
    </model>
    {}
    {}
  </world>
</sdf>"#,
        model("plain", -1.0, "1 0 0", ""),
        model(
            "tagged",
            1.0,
            "0 1 0",
            "<visibility_flags>2</visibility_flags>"
        ),
    )
}

/// A camera of `kind` (40 x 30, 1.2 rad wide) updating every step, with `extra` in `<camera>`.
fn camera(name: &str, kind: &str, extra: &str) -> String {
    format!(
        r#"<sensor name="{name}" type="{kind}"><update_rate>0</update_rate><camera>
        <horizontal_fov>1.2</horizontal_fov><image><width>40</width><height>30</height></image>
        {extra}</camera></sensor>"#
    )
}

/// A `gpu_lidar` of 3 rays at -0.25, 0 and 0.25 rad (towards `plain`, between the boxes,
/// towards `tagged`), with `extra` in `<lidar>`.
fn lidar(name: &str, extra: &str) -> String {
    format!(
        r#"<sensor name="{name}" type="gpu_lidar"><update_rate>0</update_rate><lidar>
        <scan><horizontal><samples>3</samples><min_angle>-0.25</min_angle><max_angle>0.25</max_angle></horizontal></scan>
        <range><min>0.05</min><max>10</max></range>{extra}</lidar></sensor>"#
    )
}

fn topic(sensor: &str, suffix: &str) -> String {
    format!("/world/test/model/rig/link/head/sensor/{sensor}/{suffix}")
}

/// One update of every sensor of `sdf`: the message on each of `topics`.
fn update(sdf: &str, topics: &[String]) -> Vec<Payload> {
    let dir = stage(LIBS);
    let mut sim = sim_from(sdf, dir.path(), 0, 1);
    let subs: Vec<_> = topics
        .iter()
        .map(|t| sim.bus_mut().subscribe(t, 10))
        .collect();
    sim.step();
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    subs.iter()
        .map(|s| {
            let mut m = collect(s);
            assert_eq!(m.len(), 1, "one message on each topic");
            m.remove(0).2
        })
        .collect()
}

fn image(p: &Payload) -> Image {
    match p {
        Payload::Image(i) => (**i).clone(),
        other => panic!("not an Image: {other:?}"),
    }
}

fn scan(p: &Payload) -> LaserScan {
    match p {
        Payload::LaserScan(s) => (**s).clone(),
        other => panic!("not a LaserScan: {other:?}"),
    }
}

fn rgb(img: &Image, i: u32, j: u32) -> [u8; 3] {
    assert_eq!(img.pixel_format, PixelFormat::RGB_INT8);
    let k = (j * img.step + i * 3) as usize;
    [img.data[k], img.data[k + 1], img.data[k + 2]]
}

fn depth(img: &Image, i: u32, j: u32) -> f32 {
    assert_eq!(img.pixel_format, PixelFormat::R_FLOAT32);
    let k = (j * img.step + i * 4) as usize;
    f32::from_le_bytes(img.data[k..k + 4].try_into().unwrap())
}

// The boxes' near faces are at x = 3.5, 1 m either side of the optical axis: with
// f = 20 / tan(0.6) = 29.2 px, `tagged` (y in [0.5, 1.5]) covers columns 7.5..15.8 and
// `plain` columns 24.2..32.5 of the middle row.
const TAGGED_PX: u32 = 11;
const PLAIN_PX: u32 = 28;
const ROW: u32 = 15;
const RED: [u8; 3] = [255, 0, 0];
const GREEN: [u8; 3] = [0, 255, 0];
const BLUE: [u8; 3] = [0, 0, 255];

#[test]
fn a_camera_sees_only_the_visuals_its_mask_selects() {
    let sensors = [
        camera("all", "camera", ""),
        camera("one", "camera", "<visibility_mask>1</visibility_mask>"),
        camera("three", "camera", "<visibility_mask>3</visibility_mask>"),
        camera("none", "camera", "<visibility_mask>0</visibility_mask>"),
        camera(
            "depth",
            "depth_camera",
            "<visibility_mask>1</visibility_mask>",
        ),
        camera("depth_all", "depth_camera", ""),
    ]
    .concat();
    let sdf = world(&sensors);
    let names = ["all", "one", "three", "none"];
    let mut topics: Vec<String> = names.iter().map(|n| topic(n, "image")).collect();
    topics.push(topic("depth", "depth_image"));
    topics.push(topic("depth_all", "depth_image"));
    let m = update(&sdf, &topics);
    let seen = |k: usize| {
        let img = image(&m[k]);
        (rgb(&img, TAGGED_PX, ROW), rgb(&img, PLAIN_PX, ROW))
    };
    // Without a mask (every bit) both boxes are seen.
    assert_eq!(seen(0), (GREEN, RED));
    // Mask 1 shares no bit with flags 2: the tagged box is background; the plain one
    // (flags every bit) is seen.
    assert_eq!(seen(1), (BLUE, RED));
    // Mask 3 shares bit 2.
    assert_eq!(seen(2), (GREEN, RED));
    // Mask 0 sees nothing.
    assert_eq!(seen(3), (BLUE, BLUE));
    // The depth camera: far (+inf) where the tagged box is hidden, 3.5 m (z-depth) else.
    let (masked, all) = (image(&m[4]), image(&m[5]));
    assert_eq!(depth(&masked, TAGGED_PX, ROW), f32::INFINITY);
    assert!((depth(&masked, PLAIN_PX, ROW) - 3.5).abs() < 1e-4);
    assert!((depth(&all, TAGGED_PX, ROW) - 3.5).abs() < 1e-4);
}

#[test]
fn a_lidar_seeing_visuals_is_masked_and_one_seeing_collisions_is_not() {
    let visual = "<simcore:visibility>visual</simcore:visibility>";
    let sensors = [
        lidar("visual_all", visual),
        lidar(
            "visual_one",
            &format!("{visual}<visibility_mask>1</visibility_mask>"),
        ),
        lidar("collision_one", "<visibility_mask>1</visibility_mask>"),
    ]
    .concat();
    let sdf = world(&sensors);
    let names = ["visual_all", "visual_one", "collision_one"];
    let topics: Vec<String> = names.iter().map(|n| topic(n, "scan")).collect();
    let m = update(&sdf, &topics);
    // Ray 0 (-0.25 rad) meets `plain`'s face x = 3.5 at 3.5 / cos(0.25); ray 2 `tagged`'s.
    let expected = 3.5 / 0.25f64.cos();
    let ranges = |k: usize| scan(&m[k]).ranges.to_vec();
    let (all, one, collisions) = (ranges(0), ranges(1), ranges(2));
    for r in [&all, &collisions] {
        assert!((r[0] - expected).abs() < 1e-6, "{r:?}");
        assert!((r[2] - expected).abs() < 1e-6, "{r:?}");
    }
    assert!((one[0] - expected).abs() < 1e-6, "{one:?}");
    assert_eq!(
        one[2],
        f64::INFINITY,
        "the tagged visual is hidden: {one:?}"
    );
    assert!(all[1].is_infinite() && one[1].is_infinite());
}

/// The load warnings of `sdf` that mention visibility.
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

#[test]
fn the_reader_keeps_masks_and_flags_and_refuses_bad_ones() {
    let sensors = [
        camera("cam", "camera", "<visibility_mask>5</visibility_mask>"),
        lidar("lid", "<visibility_mask>7</visibility_mask>"),
    ]
    .concat();
    let sdf = world(&sensors);
    // Masks on cameras and lidars and flags on visuals are honoured: no warning.
    assert_eq!(visibility_warnings(&sdf), Ok(vec![]));
    let w = sim_core::sdf::parse_str(&sdf, None).unwrap_or_else(|e| panic!("{}", e.render(None)));
    let rig = w.models.iter().find(|m| m.name == "rig").unwrap();
    let masks: Vec<u32> = rig.links[0]
        .sensors
        .iter()
        .map(|s| s.visibility_mask)
        .collect();
    assert_eq!(masks, [5, 7]);
    let flags = |name: &str| {
        w.models.iter().find(|m| m.name == name).unwrap().links[0].visuals[0].visibility_flags
    };
    assert_eq!((flags("plain"), flags("tagged")), (u32::MAX, 2));

    // A mask on a sensor type that casts no rays at visuals is a warning.
    let thermal = world(&camera(
        "t",
        "thermal_camera",
        "<visibility_mask>1</visibility_mask>",
    ));
    let w = visibility_warnings(&thermal).unwrap();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("has no effect on a thermal_camera sensor"),
        "{w:?}"
    );
    // ... unless it has every bit.
    let thermal = world(&camera(
        "t",
        "thermal_camera",
        "<visibility_mask>4294967295</visibility_mask>",
    ));
    assert_eq!(visibility_warnings(&thermal), Ok(vec![]));

    // Not an unsigned 32-bit number: a load error naming the element.
    for bad in ["-1", "4294967296", "0xff", "one"] {
        let e = visibility_warnings(&world(&camera(
            "c",
            "camera",
            &format!("<visibility_mask>{bad}</visibility_mask>"),
        )))
        .unwrap_err();
        assert!(
            e.contains("<visibility_mask> must be an unsigned 32-bit number"),
            "{bad}: {e}"
        );
        let e = visibility_warnings(&world("").replace(
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
