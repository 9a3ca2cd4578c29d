//! Helpers of the camera tests: one update of a world's sensors, and the images and
//! `camera_info` messages they publish.

use super::{collect, sim_from, stage};
use sim_core::runner::Simulation;
use sim_plugin_api::{CameraInfo, Image, Payload, PixelFormat};

/// Runs one update of every sensor of `sdf` with the plugin libraries `libs` and
/// `threads` sensor worker threads; returns the one message on each of `topics`.
pub fn render_with(
    libs: &[&str],
    sdf: &str,
    topics: &[String],
    seed: u64,
    threads: usize,
) -> Vec<Payload> {
    let dir = stage(libs);
    let mut sim = sim_from(sdf, dir.path(), seed, threads);
    first_step(&mut sim, topics)
}

/// Steps `sim` once (no sensor may fail) and returns the one message on each of `topics`.
pub fn first_step(sim: &mut Simulation, topics: &[String]) -> Vec<Payload> {
    steps(sim, topics, 1)
        .into_iter()
        .map(|mut m| m.remove(0))
        .collect()
}

/// Steps `sim` `n` times (no sensor may fail) and returns, for each of `topics`, the `n`
/// messages on it in order.
pub fn steps(sim: &mut Simulation, topics: &[String], n: usize) -> Vec<Vec<Payload>> {
    let subs: Vec<_> = topics
        .iter()
        .map(|t| sim.bus_mut().subscribe(t, n.max(10)))
        .collect();
    for _ in 0..n {
        sim.step();
    }
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    subs.iter()
        .zip(topics)
        .map(|(s, t)| {
            let m = collect(s);
            assert_eq!(m.len(), n, "{n} message(s) on {t}");
            m.into_iter().map(|(_, _, p)| p).collect()
        })
        .collect()
}

/// The image a payload carries.
pub fn image(p: &Payload) -> Image {
    match p {
        Payload::Image(i) => (**i).clone(),
        other => panic!("not an Image: {other:?}"),
    }
}

/// The `camera_info` a payload carries.
pub fn info(p: &Payload) -> CameraInfo {
    match p {
        Payload::CameraInfo(i) => (**i).clone(),
        other => panic!("not a CameraInfo: {other:?}"),
    }
}

/// Pixel (i, j) of an RGB8 image.
pub fn rgb(img: &Image, i: u32, j: u32) -> [u8; 3] {
    assert_eq!(img.pixel_format, PixelFormat::RGB_INT8);
    let k = (j * img.step + i * 3) as usize;
    [img.data[k], img.data[k + 1], img.data[k + 2]]
}

/// A world named `test`: full white ambient light, a blue background and no lights (pixels
/// show diffuse colours), a static rig whose link `head` is at (0, 0, 1) looking along +x
/// with `sensors`, and `models`.
pub fn world_with(sensors: &str, models: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="test">
    <physics type="ode"><max_step_size>0.001</max_step_size><real_time_factor>0</real_time_factor></physics>
    <scene><ambient>1 1 1 1</ambient><background>0 0 1 1</background></scene>
    <model name="rig"><static>true</static><pose>0 0 1 0 0 0</pose>
      <link name="head">
        <visual name="housing"><geometry><box><size>0.3 0.3 0.3</size></box></geometry></visual>
        {sensors}
      </link>
    </model>
    {models}
  </world>
</sdf>"#
    )
}
