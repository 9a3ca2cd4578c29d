//! The shared benchmark workloads (`../shared/bench-workloads/` beside the repository), run
//! through the real lidar and depth camera plugins on the real world files: the hits the
//! peers cross-checked (W1: 16,143 hits, mean range 6.346 m; W2: 38,304 hits, mean depth
//! 6.512 m), the same on one thread and on two. Skipped with a notice when the workloads
//! are not there.

use crate::common;

use common::*;
use sim_plugin_api::{Payload, PixelFormat};
use std::path::PathBuf;

const LIBS: &[&str] = &["simcore_plugin_lidar", "simcore_plugin_depth_camera"];

/// A workload's world file, if the workloads are beside the repository.
fn workload(file: &str) -> Option<String> {
    let p: PathBuf = workspace().join("../shared/bench-workloads").join(file);
    let text = std::fs::read_to_string(&p).ok();
    if text.is_none() {
        eprintln!("no shared workloads beside the repository: skipped");
    }
    text
}

/// The first message on `topic` after one step of `sdf` on `threads` threads.
fn first(sdf: &str, topic: &str, threads: usize) -> Payload {
    let dir = stage(LIBS);
    let mut sim = sim_from(sdf, dir.path(), 1, threads);
    let sub = sim.bus_mut().subscribe(topic, 10);
    sim.step();
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    collect(&sub).remove(0).2
}

/// (hits, mean) of the finite values.
fn stats(values: impl Iterator<Item = f64>) -> (usize, f64) {
    let (n, sum) = values
        .filter(|v| v.is_finite())
        .fold((0, 0.0), |(n, s), v| (n + 1, s + v));
    (n, sum / n as f64)
}

#[test]
fn w1_lidar_hits_as_the_peers() {
    let Some(sdf) = workload("w1_lidar.sdf") else {
        return;
    };
    let topic = "/world/w1/model/scanner/link/l/sensor/lidar/scan";
    let ranges = |threads| match first(&sdf, topic, threads) {
        Payload::LaserScan(s) => s.ranges.to_vec(),
        other => panic!("not a LaserScan: {other:?}"),
    };
    let one = ranges(1);
    assert_eq!(one.len(), 1800 * 16);
    let (hits, mean) = stats(one.iter().copied());
    assert_eq!(hits, 16_143);
    assert!((mean - 6.346).abs() < 5e-4, "mean range {mean}");
    assert_eq!(ranges(2), one, "the same scan on two threads");
}

#[test]
fn w2_depth_hits_as_the_peers() {
    let Some(sdf) = workload("w2_depth.sdf") else {
        return;
    };
    let topic = "/world/w2/model/cam/link/l/sensor/depth/depth_image";
    let depths = |threads| match first(&sdf, topic, threads) {
        Payload::Image(img) => {
            assert_eq!(img.pixel_format, PixelFormat::R_FLOAT32);
            assert_eq!((img.width, img.height), (320, 240));
            img.data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect::<Vec<f32>>()
        }
        other => panic!("not an Image: {other:?}"),
    };
    let one = depths(1);
    // The peers' range is along the pixel's ray: the z-depth over the ray's cosine to the
    // optical axis.
    let f = 160.0 / (1.047f64 / 2.0).tan();
    let range = |k: usize, d: f32| {
        let (u, v) = (
            ((k % 320) as f64 + 0.5 - 160.0) / f,
            ((k / 320) as f64 + 0.5 - 120.0) / f,
        );
        d as f64 * (1.0 + u * u + v * v).sqrt()
    };
    let (hits, mean) = stats(one.iter().enumerate().map(|(k, &d)| range(k, d)));
    assert_eq!(hits, 38_304);
    assert!((mean - 6.512).abs() < 5e-4, "mean range {mean}");
    assert_eq!(depths(2), one, "the same image on two threads");
}
