//! What a collision keeps of its geometry for the mechanics extension: its kind and size,
//! and the volume of the kinds that have a closed form.

use sim_plugin_api::{ShapeKind, Vec3};
use sim_world::Geometry;
use std::f64::consts::PI;

/// What a collision keeps of its geometry: its kind and size, and, for the kinds whose volume
/// has a closed form, that volume and its centre in the geometry's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ShapeSummary {
    pub kind: ShapeKind,
    pub size: Vec3,
    pub exact: Option<(f64, Vec3)>,
}

impl ShapeSummary {
    /// The summary of `g`.
    pub fn of(g: &Geometry) -> ShapeSummary {
        let at_origin = |v: f64| Some((v, Vec3::ZERO));
        let (kind, size, exact) = match g {
            Geometry::Box { size } => (ShapeKind::BOX, *size, at_origin(size.x * size.y * size.z)),
            Geometry::Sphere { radius: r } => (
                ShapeKind::SPHERE,
                Vec3::new(*r, 0.0, 0.0),
                at_origin(4.0 / 3.0 * PI * r * r * r),
            ),
            Geometry::Cylinder { radius: r, length } => (
                ShapeKind::CYLINDER,
                Vec3::new(*r, *length, 0.0),
                at_origin(PI * r * r * length),
            ),
            Geometry::Capsule { radius: r, length } => (
                ShapeKind::CAPSULE,
                Vec3::new(*r, *length, 0.0),
                at_origin(PI * r * r * length + 4.0 / 3.0 * PI * r * r * r),
            ),
            Geometry::Ellipsoid { radii } => (
                ShapeKind::ELLIPSOID,
                *radii,
                at_origin(4.0 / 3.0 * PI * radii.x * radii.y * radii.z),
            ),
            Geometry::Plane { .. } => (ShapeKind::PLANE, Vec3::ZERO, at_origin(0.0)),
            // Base at -length/2: the centroid of a cone is a quarter of its height up.
            Geometry::Cone { radius: r, length } => (
                ShapeKind::CONE,
                Vec3::new(*r, *length, 0.0),
                Some((
                    PI * r * r * length / 3.0,
                    Vec3::new(0.0, 0.0, -length / 4.0),
                )),
            ),
            Geometry::Mesh(_) => (ShapeKind::MESH, Vec3::ZERO, None),
            _ => (ShapeKind::OTHER, Vec3::ZERO, None),
        };
        ShapeSummary { kind, size, exact }
    }
}
