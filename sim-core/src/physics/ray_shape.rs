//! A collider's shape prepared for the rays of one packet.
//!
//! parry casts a ray at a posed shape by moving the ray into the shape's frame (the origin
//! by the inverse pose, the direction by the inverse rotation) and casting it there, through
//! the shape's `dyn` interface. A packet casts many rays at each candidate: the inverse
//! rotation, and the origin in the shape's frame where the packet's rays share one, are
//! computed once per candidate, and the common shapes (half-spaces, cuboids, balls, capsules,
//! cylinders) are cast through their own types, without dynamic dispatch. The arithmetic is
//! parry's own, operation for operation (the same glam operations on the same values, the
//! same local casts), so every hit is the one `Shape::cast_ray` finds.

use rapier3d::parry::math::Rotation;
use rapier3d::parry::query::RayCast;
use rapier3d::parry::shape::{Ball, Capsule, Cuboid, Cylinder, HalfSpace, Shape, ShapeType};
use rapier3d::prelude::*;

/// A collider's shape, by kind where it is cast without dynamic dispatch.
#[derive(Clone, Copy)]
enum Form<'c> {
    HalfSpace(&'c HalfSpace),
    Cuboid(&'c Cuboid),
    Ball(&'c Ball),
    Capsule(&'c Capsule),
    Cylinder(&'c Cylinder),
    Other(&'c dyn Shape),
}

/// A collider's shape and pose, ready to cast rays at.
#[derive(Clone, Copy)]
pub(super) struct PreparedShape<'c> {
    form: Form<'c>,
    rotation: Rotation,
    /// The inverse of `rotation` (parry's `rotation.inverse()`, computed once).
    inverse: Rotation,
    translation: Vector,
    /// The shared origin of the rays to be cast, in the shape's frame, when they share one.
    origin: Option<Vector>,
}

impl<'c> PreparedShape<'c> {
    /// `collider`'s shape at its current pose, for rays that all start at `shared_origin`
    /// when given (any origin otherwise).
    pub fn new(collider: &'c Collider, shared_origin: Option<Vector>) -> Self {
        let shape = collider.shape();
        let form = match shape.shape_type() {
            ShapeType::HalfSpace => shape.as_halfspace().map(Form::HalfSpace),
            ShapeType::Cuboid => shape.as_cuboid().map(Form::Cuboid),
            ShapeType::Ball => shape.as_ball().map(Form::Ball),
            ShapeType::Capsule => shape.as_capsule().map(Form::Capsule),
            ShapeType::Cylinder => shape.as_cylinder().map(Form::Cylinder),
            _ => None,
        }
        .unwrap_or(Form::Other(shape));
        let pose = collider.position();
        let inverse = pose.rotation.inverse();
        PreparedShape {
            form,
            rotation: pose.rotation,
            inverse,
            translation: pose.translation,
            // As parry's `Pose::inverse_transform_point`.
            origin: shared_origin.map(|o| inverse * (o - pose.translation)),
        }
    }

    /// `ray` in the shape's frame, as parry's `Ray::inverse_transform_by` moves it.
    #[inline]
    fn local(&self, ray: &Ray) -> Ray {
        let origin = match self.origin {
            Some(o) => o,
            None => self.inverse * (ray.origin - self.translation),
        };
        Ray::new(origin, self.inverse * ray.dir)
    }

    /// The distance of `ray`'s hit within `max` (solid shapes), with the world normal where
    /// it comes at no extra cost (half-spaces). The ray starts at the shared origin when the
    /// shape was prepared with one.
    #[inline]
    pub fn cast(&self, ray: &Ray, max: Real) -> Option<(Real, Option<Vector>)> {
        let local = self.local(ray);
        let t = match self.form {
            Form::HalfSpace(h) => {
                // As parry's `cast_ray_and_get_normal`: the normal back into the world.
                let i = h.cast_local_ray_and_get_normal(&local, max, true)?;
                return Some((i.time_of_impact, Some(self.rotation * i.normal)));
            }
            Form::Cuboid(s) => s.cast_local_ray(&local, max, true),
            Form::Ball(s) => s.cast_local_ray(&local, max, true),
            Form::Capsule(s) => s.cast_local_ray(&local, max, true),
            Form::Cylinder(s) => s.cast_local_ray(&local, max, true),
            Form::Other(s) => s.cast_local_ray(&local, max, true),
        }?;
        Some((t, None))
    }
}
