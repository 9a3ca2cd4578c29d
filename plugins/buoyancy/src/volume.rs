//! Submerged volumes and gz-sim's layered buoyancy, free of any engine.

use sim_plugin_api::{Pose, Vec3};
use std::f64::consts::PI;

/// Fluid densities by height: `default_density` below the lowest change, and from each
/// `(height, density)` of `changes` (sorted by height) up to the next, that density.
#[derive(Clone, Debug, PartialEq)]
pub struct Layers {
    /// `<default_density>` (default 1000 kg/m³).
    pub default_density: f64,
    /// `(<above_depth>, <density>)`, sorted by height, one per height.
    pub changes: Vec<(f64, f64)>,
}

impl Layers {
    /// Sets the density from `height` up (replacing a change at the same height).
    pub fn set(&mut self, height: f64, density: f64) {
        match self.changes.binary_search_by(|(h, _)| h.total_cmp(&height)) {
            Ok(i) => self.changes[i].1 = density,
            Err(i) => self.changes.insert(i, (height, density)),
        }
    }
}

/// A shape whose volume below a horizontal plane gz-math computes: the plane is
/// `z = depth` in the shape's frame, its rotation ignored (as gz-sim's Buoyancy does).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Submersible {
    /// A box of these edge lengths, centred on its origin.
    Box(Vec3),
    /// A sphere of this radius, centred on its origin.
    Sphere(f64),
}

impl Submersible {
    /// Its whole volume, m³.
    pub fn volume(&self) -> f64 {
        match *self {
            Submersible::Box(s) => s.x * s.y * s.z,
            Submersible::Sphere(r) => 4.0 / 3.0 * PI * r * r * r,
        }
    }

    /// The volume below `z = depth` (shape frame) and its centre, `None` when nothing is
    /// below.
    pub fn below(&self, depth: f64) -> Option<(f64, Vec3)> {
        match *self {
            Submersible::Box(s) => {
                let (bottom, top) = (-s.z / 2.0, depth.min(s.z / 2.0));
                (top > bottom).then(|| {
                    (
                        s.x * s.y * (top - bottom),
                        Vec3::new(0.0, 0.0, (bottom + top) / 2.0),
                    )
                })
            }
            Submersible::Sphere(r) => {
                let h = (r + depth).min(2.0 * r);
                (h > 0.0).then(|| {
                    // A cap of height h at the bottom: its centroid is 3 (2r − h)² / (4 (3r − h))
                    // below the centre.
                    let v = PI * h * h * (3.0 * r - h) / 3.0;
                    let c = 3.0 * (2.0 * r - h).powi(2) / (4.0 * (3.0 * r - h));
                    (v, Vec3::new(0.0, 0.0, -c))
                })
            }
        }
    }
}

/// The buoyant forces on one shape at world pose `pose` in `layers` under `gravity`, as
/// gz-sim's graded buoyancy adds them up: layer by layer from the bottom, the force of the
/// volume between two heights `−ΔV ρ g`, each at its point in the shape's frame. Returns
/// `(force, point in the world)` pairs.
pub fn layered_forces(
    shape: &Submersible,
    pose: Pose,
    layers: &Layers,
    gravity: Vec3,
) -> Vec<(Vec3, Vec3)> {
    let mut out = Vec::new();
    let mut density = layers.default_density;
    let (mut prev_vol, mut centre) = (0.0, Vec3::ZERO);
    let mut push = |vol: f64, cov: Vec3, prev_vol: f64, centre: Vec3, density: f64| {
        let dv = vol - prev_vol;
        let force = gravity.scale(-dv * density);
        let point = (cov.scale(vol) - centre.scale(prev_vol)).scale(1.0 / dv);
        out.push((force, pose.transform_point(point)));
    };
    for &(height, next) in &layers.changes {
        match shape.below(height - pose.position.z) {
            Some((vol, cov)) if vol > 0.0 => {
                if (vol - prev_vol).abs() > 1e-12 {
                    push(vol, cov, prev_vol, centre, density);
                }
                (prev_vol, centre) = (vol, cov);
            }
            _ => {}
        }
        density = next;
    }
    let vol = shape.volume();
    if (vol - prev_vol).abs() >= 1e-10 {
        push(vol, Vec3::ZERO, prev_vol, centre, density);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Vec3 = Vec3::new(0.0, 0.0, -9.8);

    fn water_and_air() -> Layers {
        let mut l = Layers {
            default_density: 1000.0,
            changes: Vec::new(),
        };
        l.set(0.0, 1.0);
        l
    }

    fn total(f: &[(Vec3, Vec3)]) -> Vec3 {
        f.iter().fold(Vec3::ZERO, |a, (f, _)| a + *f)
    }

    #[test]
    fn volumes_below_a_plane() {
        let b = Submersible::Box(Vec3::new(1.0, 2.0, 1.0));
        assert_eq!(b.below(-0.6), None);
        let (v, c) = b.below(0.0).unwrap();
        assert!((v - 1.0).abs() < 1e-12 && (c.z + 0.25).abs() < 1e-12);
        assert_eq!(b.below(3.0).unwrap().0, 2.0);
        let s = Submersible::Sphere(1.0);
        let (v, c) = s.below(0.0).unwrap();
        assert!((v - 2.0 / 3.0 * PI).abs() < 1e-12, "a hemisphere");
        assert!((c.z + 3.0 / 8.0).abs() < 1e-12);
        assert!((s.below(1.0).unwrap().0 - s.volume()).abs() < 1e-12);
        assert!(s.below(-1.0).is_none());
    }

    #[test]
    fn a_box_half_in_water_half_in_air() {
        let b = Submersible::Box(Vec3::new(1.0, 1.0, 1.0));
        let f = layered_forces(&b, Pose::default(), &water_and_air(), G);
        let up = total(&f);
        assert!((up.z - 9.8 * (500.0 + 0.5)).abs() < 1e-9, "{f:?}");
        // The water's part acts at the centre of the submerged half.
        assert!((f[0].1.z + 0.25).abs() < 1e-12 && (f[1].1.z - 0.25).abs() < 1e-12);
        // Deep down, all water, at the centre.
        let deep = Pose::new(Vec3::new(0.0, 0.0, -10.0), Default::default());
        let f = layered_forces(&b, deep, &water_and_air(), G);
        assert_eq!(f.len(), 1);
        assert!((f[0].0.z - 9800.0).abs() < 1e-9 && (f[0].1.z + 10.0).abs() < 1e-12);
        // High up, all air.
        let high = Pose::new(Vec3::new(0.0, 0.0, 10.0), Default::default());
        assert!((total(&layered_forces(&b, high, &water_and_air(), G)).z - 9.8).abs() < 1e-9);
    }
}
