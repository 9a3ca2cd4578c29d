//! The scene as markers: one `visualization_msgs/Marker` per visual, in its link's TF frame.
//!
//! Boxes, spheres, ellipsoids and cylinders are the marker shapes of the same name; a plane
//! is a 1 mm thin cube of its `<size>`; meshes are `MESH_RESOURCE` markers naming their
//! file, drawn in the visual's colour; capsules, cones, height maps and polylines are
//! `TRIANGLE_LIST` markers (height maps and polylines with the triangles the engine built,
//! see [`Physics::visual_triangles`]).

use sim_codec::{Marker, MarkerAction, MarkerShape};
use sim_physics::{Physics, VisualEntry};
use sim_plugin_api::{Pose, Quat, SimTime, Vec3};
use sim_world::Geometry;

/// Segments around the axis of the triangle lists that draw capsules and cones.
const SEGMENTS: usize = 24;

/// The marker of a visual of `physics` at `stamp`, or `None` for `<empty>` and shapes the
/// engine could not build.
pub(super) fn visual_marker(
    physics: &Physics,
    v: &VisualEntry<'_>,
    stamp: SimTime,
) -> Option<Marker> {
    let mut m = Marker {
        stamp,
        frame_id: v.link_name.to_string(),
        ns: v.model_name.to_string(),
        id: i32::try_from(v.id.0).unwrap_or(i32::MAX),
        shape: MarkerShape::Cube,
        action: MarkerAction::Add,
        pose: v.pose,
        scale: Vec3::new(1.0, 1.0, 1.0),
        color: v.diffuse,
        frame_locked: true,
        points: Vec::new(),
        mesh_resource: String::new(),
    };
    match v.geometry {
        Geometry::Box { size } => m.scale = *size,
        Geometry::Sphere { radius } => {
            m.shape = MarkerShape::Sphere;
            m.scale = Vec3::new(2.0 * radius, 2.0 * radius, 2.0 * radius);
        }
        Geometry::Ellipsoid { radii } => {
            m.shape = MarkerShape::Sphere;
            m.scale = radii.scale(2.0);
        }
        Geometry::Cylinder { radius, length } => {
            m.shape = MarkerShape::Cylinder;
            m.scale = Vec3::new(2.0 * radius, 2.0 * radius, *length);
        }
        Geometry::Plane { normal, size } => {
            // A thin box in the plane, its Z along the normal.
            m.pose = v.pose.compose(Pose {
                position: Vec3::new(0.0, 0.0, 0.0),
                orientation: z_to(*normal),
            });
            m.scale = Vec3::new(size[0], size[1], 0.001);
        }
        Geometry::Capsule { radius, length } => {
            m.shape = MarkerShape::TriangleList;
            m.points = capsule(*radius, *length);
        }
        Geometry::Cone { radius, length } => {
            m.shape = MarkerShape::TriangleList;
            m.points = cone(*radius, *length);
        }
        Geometry::Mesh(mesh) => {
            let path = mesh.resource.resolved.as_ref().ok()?;
            let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            m.shape = MarkerShape::MeshResource;
            m.mesh_resource = format!("file://{}", path.display());
            m.scale = mesh.scale;
        }
        Geometry::Heightmap(_) | Geometry::Polyline(_) => {
            m.shape = MarkerShape::TriangleList;
            m.points = physics.visual_triangles(v.id)?;
        }
        Geometry::Empty => return None,
    }
    Some(m)
}

/// The rotation taking +Z to `n` (unit length; +Z when `n` is zero).
fn z_to(n: Vec3) -> Quat {
    let len = (n.x * n.x + n.y * n.y + n.z * n.z).sqrt();
    if len < 1e-12 {
        return Quat::IDENTITY;
    }
    let (x, y, z) = (n.x / len, n.y / len, n.z / len);
    if z < -1.0 + 1e-12 {
        return Quat {
            x: 1.0,
            y: 0.0,
            z: 0.0,
            w: 0.0,
        };
    }
    // Half-way quaternion between +Z and n: axis Z x n, angle acos(z).
    let w = 1.0 + z;
    let q = Quat {
        x: -y,
        y: x,
        z: 0.0,
        w,
    };
    let l = (q.x * q.x + q.y * q.y + q.w * q.w).sqrt();
    Quat {
        x: q.x / l,
        y: q.y / l,
        z: 0.0,
        w: q.w / l,
    }
}

/// A point of a ring of radius `r` at height `z`, segment `i`.
fn ring(r: f64, z: f64, i: usize) -> Vec3 {
    let a = std::f64::consts::TAU * (i % SEGMENTS) as f64 / SEGMENTS as f64;
    Vec3::new(r * a.cos(), r * a.sin(), z)
}

/// Triangles of a band between two rings (or a ring and a point when a radius is 0).
fn band(out: &mut Vec<Vec3>, (r0, z0): (f64, f64), (r1, z1): (f64, f64)) {
    for i in 0..SEGMENTS {
        let (a, b) = (ring(r0, z0, i), ring(r0, z0, i + 1));
        let (c, d) = (ring(r1, z1, i), ring(r1, z1, i + 1));
        out.extend([a, b, d, a, d, c]);
    }
}

/// A capsule along Z: a cylinder of `length` with hemispheres of `radius` at its ends.
fn capsule(radius: f64, length: f64) -> Vec<Vec3> {
    let mut out = Vec::new();
    let h = length / 2.0;
    let rings = 6;
    let cap: Vec<(f64, f64)> = (0..=rings)
        .map(|k| {
            let a = std::f64::consts::FRAC_PI_2 * k as f64 / rings as f64;
            (radius * a.cos(), radius * a.sin())
        })
        .collect();
    for w in cap.windows(2) {
        band(&mut out, (w[0].0, h + w[0].1), (w[1].0, h + w[1].1));
        band(&mut out, (w[1].0, -h - w[1].1), (w[0].0, -h - w[0].1));
    }
    band(&mut out, (radius, -h), (radius, h));
    out
}

/// A cone along Z: base of `radius` at `-length/2`, apex at `length/2`.
fn cone(radius: f64, length: f64) -> Vec<Vec3> {
    let mut out = Vec::new();
    let h = length / 2.0;
    band(&mut out, (radius, -h), (0.0, h));
    band(&mut out, (0.0, -h), (radius, -h));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_to_turns_z_onto_the_normal() {
        for n in [
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, -2.0, 0.0),
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(1.0, 1.0, 1.0),
        ] {
            let got = z_to(n).rotate(Vec3::new(0.0, 0.0, 1.0));
            let u = n.normalized();
            assert!(
                (got.x - u.x).abs() < 1e-9
                    && (got.y - u.y).abs() < 1e-9
                    && (got.z - u.z).abs() < 1e-9,
                "{n:?} -> {got:?}"
            );
        }
    }

    #[test]
    fn capsule_and_cone_triangles_stay_inside_their_shapes() {
        let c = capsule(0.5, 2.0);
        assert_eq!(c.len() % 3, 0);
        let top = c.iter().map(|p| p.z).fold(f64::MIN, f64::max);
        assert!((top - 1.5).abs() < 1e-9, "{top}");
        assert!(
            c.iter()
                .all(|p| (p.x * p.x + p.y * p.y).sqrt() <= 0.5 + 1e-9)
        );
        let k = cone(1.0, 2.0);
        assert_eq!(k.len() % 3, 0);
        assert!(k.iter().all(|p| p.z >= -1.0 - 1e-9 && p.z <= 1.0 + 1e-9));
    }
}
