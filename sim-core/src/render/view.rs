//! The viewpoint: where the camera is, where it looks, and how it projects; by default one
//! that frames the whole world.
//!
//! The camera is a distortion-free pinhole with square pixels and the optical axis at the
//! image centre (the camera plugin's default intrinsics): a point `(x, y, z)` in the camera
//! frame (x forward, y left, z up) appears at `u = W/2 − f·y/x`, `v = H/2 − f·z/x` with
//! `f = W / (2 tan(hfov/2))`. The camera never rolls: its left axis stays horizontal.

use crate::physics::Physics;
use sim_plugin_api::{Aabb, Pose, Quat, Vec3};

/// The largest width or height of a picture, pixels (the camera plugin's limit).
pub const MAX_SIDE: u32 = 16384;

/// Horizontal field of view of the pictures, rad (60°).
pub const HFOV: f64 = std::f64::consts::FRAC_PI_3;

/// Elevation of the default viewpoint above the world's centre, rad (30°: slightly down).
const ELEVATION: f64 = std::f64::consts::FRAC_PI_6;

/// Azimuth of the default viewpoint seen from the world's centre, rad: from −x, −y.
const AZIMUTH: f64 = -2.4;

/// Half the side of the square a world of nothing but planes is framed by, m.
const PLANE_EXTENT: f64 = 10.0;

/// Half the side of the smallest region framed, m.
const MIN_EXTENT: f64 = 0.5;

/// How much farther than the nearest framing viewpoint the default one is.
const MARGIN: f64 = 1.1;

/// A camera pose with its image size and field of view.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct View {
    /// The camera's world pose (x forward, y left, z up).
    pub pose: Pose,
    /// Image width, pixels.
    pub width: u32,
    /// Image height, pixels.
    pub height: u32,
    /// Horizontal field of view, rad.
    pub hfov: f64,
}

impl View {
    /// A camera at `from` looking at `look_at` (without roll) with a `width` × `height`
    /// image, or why not: the points coincide or are not finite.
    pub fn looking_at(from: Vec3, look_at: Vec3, width: u32, height: u32) -> Result<View, String> {
        let d = look_at - from;
        if ![from, look_at]
            .iter()
            .all(|p| p.to_array().iter().all(|c| c.is_finite()))
        {
            return Err("the viewpoint and the point looked at must be finite".into());
        }
        let len = d.length();
        if len < 1e-9 {
            return Err("the point looked at must differ from the viewpoint".into());
        }
        let yaw = d.y.atan2(d.x);
        let pitch = -(d.z / len).clamp(-1.0, 1.0).asin();
        Ok(View {
            pose: Pose::new(from, Quat::from_rpy(0.0, pitch, yaw)),
            width,
            height,
            hfov: HFOV,
        })
    }

    /// Focal length, pixels.
    pub fn focal(&self) -> f64 {
        f64::from(self.width) / (2.0 * (self.hfov / 2.0).tan())
    }

    /// A world point in the camera frame.
    pub fn to_camera(&self, p: Vec3) -> Vec3 {
        self.pose.inverse().transform_point(p)
    }

    /// Where a point given in the camera frame appears, `(u, v)` in pixels, if in front.
    pub fn project_camera(&self, c: Vec3) -> Option<(f64, f64)> {
        (c.x > 0.0).then(|| {
            let f = self.focal();
            (
                f64::from(self.width) / 2.0 - f * c.y / c.x,
                f64::from(self.height) / 2.0 - f * c.z / c.x,
            )
        })
    }

    /// Where a world point appears, `(u, v)` in pixels, if in front of the camera; it is
    /// seen in pixel `(⌊u⌋, ⌊v⌋)`.
    pub fn project(&self, p: Vec3) -> Option<(f64, f64)> {
        self.project_camera(self.to_camera(p))
    }
}

/// The world-frame box around every visual now. Planes (unbounded) count only in a world of
/// nothing else, as a square of their `<size>` but at most 20 m across around their origin.
pub fn scene_bounds(physics: &Physics) -> Option<Aabb> {
    let mut acc: Option<Aabb> = None;
    let mut planes: Option<Aabb> = None;
    let grow = crate::physics::aabb_grow;
    for v in physics.visuals() {
        let Some(b) = physics.visual_aabb(v.id) else {
            continue;
        };
        let finite = [b.min, b.max]
            .iter()
            .all(|p| p.to_array().iter().all(|c| c.is_finite()));
        if finite {
            grow(&mut acc, b);
        } else if let crate::world::Geometry::Plane { size, .. } = v.geometry {
            let Some(link) = physics.kinematics_of(v.link) else {
                continue;
            };
            let at = link.pose.compose(v.pose).position;
            let (hx, hy) = (
                (size[0] / 2.0).min(PLANE_EXTENT),
                (size[1] / 2.0).min(PLANE_EXTENT),
            );
            let h = hx.max(hy);
            grow(
                &mut planes,
                Aabb {
                    min: at - Vec3::new(h, h, 0.0),
                    max: at + Vec3::new(h, h, 0.0),
                },
            );
        }
    }
    acc.or(planes)
}

/// The default view of a `width` × `height` picture: from the −x, −y side, 30° above the
/// centre of [`scene_bounds`], as near as lets every corner of the box (at least 1 m
/// across; around the world origin for an empty world) into the picture, with a margin.
pub fn frame_world(physics: &Physics, width: u32, height: u32) -> View {
    let (lo, hi) = match scene_bounds(physics) {
        Some(b) => (b.min, b.max),
        None => (Vec3::ZERO, Vec3::ZERO),
    };
    let centre = (lo + hi).scale(0.5);
    let half = (hi - lo).scale(0.5);
    let half = Vec3::new(
        half.x.max(MIN_EXTENT),
        half.y.max(MIN_EXTENT),
        half.z.max(MIN_EXTENT),
    );
    let aspect = f64::from(height) / f64::from(width.max(1));
    let tan_h = (HFOV / 2.0).tan();
    let tan_v = tan_h * aspect;
    let dir = Vec3::new(
        ELEVATION.cos() * AZIMUTH.cos(),
        ELEVATION.cos() * AZIMUTH.sin(),
        ELEVATION.sin(),
    );
    // The camera frame's axes when looking at the centre along -dir.
    let forward = -dir;
    let left = Vec3::new(0.0, 0.0, 1.0).cross(forward).normalized();
    let up = forward.cross(left);
    let mut distance = 0.0f64;
    for k in 0..8 {
        let s = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
        let o = Vec3::new(s(1) * half.x, s(2) * half.y, s(4) * half.z);
        // Seen from `distance` back along `dir`, the corner is `distance - o·forward` ahead.
        let ahead = o.dot(forward);
        distance = distance
            .max(ahead + o.dot(left).abs() / tan_h)
            .max(ahead + o.dot(up).abs() / tan_v);
    }
    View::looking_at(centre + dir.scale(distance * MARGIN), centre, width, height)
        .expect("the default viewpoint is away from the centre")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_point_looked_at_projects_to_the_centre_and_left_is_left() {
        let v =
            View::looking_at(Vec3::new(-5.0, -5.0, 3.0), Vec3::new(1.0, 2.0, 0.5), 64, 48).unwrap();
        let (u, w) = v.project(Vec3::new(1.0, 2.0, 0.5)).unwrap();
        assert!(
            (u - 32.0).abs() < 1e-9 && (w - 24.0).abs() < 1e-9,
            "{u} {w}"
        );
        // A point above the target is higher in the picture (smaller v).
        let (_, up) = v.project(Vec3::new(1.0, 2.0, 1.5)).unwrap();
        assert!(up < 24.0);
        // Behind the camera: not seen.
        assert!(v.project(Vec3::new(-10.0, -10.0, 3.0)).is_none());
        // Straight down works (no roll needed).
        let down = View::looking_at(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, 10, 10).unwrap();
        let (u, w) = down.project(Vec3::ZERO).unwrap();
        assert!((u - 5.0).abs() < 1e-9 && (w - 5.0).abs() < 1e-9);
        assert!(View::looking_at(Vec3::ZERO, Vec3::ZERO, 10, 10).is_err());
        assert!(View::looking_at(Vec3::new(f64::NAN, 0.0, 0.0), Vec3::ZERO, 10, 10).is_err());
    }
}
