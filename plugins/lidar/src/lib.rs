//! # simcore-plugin-lidar: the lidar sensor of simcore
//!
//! Serves SDF `<sensor type="lidar">`, `gpu_lidar` and their legacy names `ray` and `gpu_ray`.
//! Every update casts one batch of rays (one per horizontal and vertical sample) from the
//! sensor's origin against the world's collision geometry (or, on request, its visuals) and
//! publishes a [`LaserScan`](sim_plugin_api::LaserScan) on the sensor's topic and a packed
//! point cloud ([`PointCloudPacked`](sim_plugin_api::PointCloudPacked)) on `points` below it.
//! Ranges follow REP-117: `+inf` for no hit, `-inf` for a hit nearer than the minimum range.
//!
//! The logic is plain Rust: [`LidarSensor`] (in [`lidar`]), configured by [`LidarConfig`] (in
//! [`config`]). This file only exports it to the engine.

pub mod config;
pub mod lidar;

#[cfg(test)]
mod tests;

pub use config::{LidarConfig, ScanAxis};
pub use lidar::{LidarSensor, POINT_STEP, point_fields};

use simcore_plugin_common::SdfSensor;

sim_plugin_api::export_plugin! {
    sensor "lidar" {
        serves: ["lidar" => "lidar", "gpu_lidar" => "scan", "ray" => "lidar", "gpu_ray" => "scan"],
        enabled_by: ["gz::sim::systems::CpuLidar"],
        description: "Lidar: batched ray casts against collisions (or visuals), REP-117 ranges, laser_retro intensities, a LaserScan and a packed point cloud",
        create: LidarSensor::create,
    }
}
