//! A collider's shape prepared for the rays of one packet.
//!
//! parry casts a ray at a posed shape by moving the ray into the shape's frame (the origin
//! by the inverse pose, the direction by the inverse rotation) and casting it there, through
//! the shape's `dyn` interface. A packet casts many rays at each candidate: the inverse
//! rotation, and the origin in the shape's frame where the packet's rays share one, are
//! computed once per candidate, and the common shapes (half-spaces, SDF planes among them,
//! cuboids, balls, capsules, cylinders) are cast through their own types, without dynamic dispatch; a half-space's
//! test is parry's, written out so that the side the shared origin is on is computed once.
//! The arithmetic is parry's own, operation for operation (the same glam operations on the
//! same values, the same local casts), but for the rotation by the identity, which is skipped
//! where it gives its input back exactly: every hit is the one `Shape::cast_ray` finds.

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
    /// Whether `rotation` is the identity.
    identity: bool,
    translation: Vector,
    /// The shared origin of the rays to be cast, in the shape's frame, when they share one.
    origin: Option<Vector>,
    /// For a half-space and a shared origin: parry's `normal · -origin` (in the shape's
    /// frame), which says on which side the rays start.
    side: Real,
}

impl<'c> PreparedShape<'c> {
    /// `collider`'s shape at its current pose, for rays that all start at `shared_origin`
    /// when given (any origin otherwise).
    pub fn new(collider: &'c Collider, shared_origin: Option<Vector>) -> Self {
        let shape = super::leading::Leading::unwrap(collider.shape());
        let form = match shape.shape_type() {
            ShapeType::HalfSpace | ShapeType::Custom => {
                super::plane::half_space_of(shape).map(Form::HalfSpace)
            }
            ShapeType::Cuboid => shape.as_cuboid().map(Form::Cuboid),
            ShapeType::Ball => shape.as_ball().map(Form::Ball),
            ShapeType::Capsule => shape.as_capsule().map(Form::Capsule),
            ShapeType::Cylinder => shape.as_cylinder().map(Form::Cylinder),
            _ => None,
        }
        .unwrap_or(Form::Other(shape));
        let pose = collider.position();
        let inverse = pose.rotation.inverse();
        // As parry's `Pose::inverse_transform_point`.
        let origin = shared_origin.map(|o| inverse * (o - pose.translation));
        let side = match (form, origin) {
            (Form::HalfSpace(h), Some(o)) => h.normal.dot(-o),
            _ => 0.0,
        };
        PreparedShape {
            form,
            rotation: pose.rotation,
            inverse,
            identity: inverse == Rotation::IDENTITY,
            translation: pose.translation,
            origin,
            side,
        }
    }

    /// For a half-space not turned (its rotation the identity) and prepared for rays of any
    /// origin: its normal and position, the values [`PreparedShape::cast`] casts with.
    pub fn unturned_half_space(&self) -> Option<(Vector, Vector)> {
        match (self.form, self.origin) {
            (Form::HalfSpace(h), None) if self.identity => Some((h.normal, self.translation)),
            _ => None,
        }
    }

    /// For a cuboid prepared for rays of any origin: its half extents, the inverse of its
    /// rotation, whether that is the identity, and its translation, the values
    /// [`PreparedShape::cast`] casts with.
    pub fn cuboid(&self) -> Option<(Vector, Rotation, bool, Vector)> {
        match (self.form, self.origin) {
            (Form::Cuboid(c), None) => Some((
                c.half_extents,
                self.inverse,
                self.identity,
                self.translation,
            )),
            _ => None,
        }
    }

    /// `v` by the inverse rotation, as parry's `rotation.inverse() * v`. By the identity,
    /// that rotation gives every non-zero component back exactly (its other terms are
    /// zeros): such vectors are returned as they are; a zero component, whose sign the
    /// rotation may change, takes the rotation itself.
    #[inline(always)]
    fn unrotate(&self, v: Vector) -> Vector {
        if self.identity && v.x != 0.0 && v.y != 0.0 && v.z != 0.0 {
            v
        } else {
            self.inverse * v
        }
    }

    /// `ray`'s origin in the shape's frame, as parry's `Pose::inverse_transform_point`.
    #[inline]
    fn local_origin(&self, ray: &Ray) -> Vector {
        match self.origin {
            Some(o) => o,
            None => self.unrotate(ray.origin - self.translation),
        }
    }

    /// The distance of `ray`'s hit within `max` (solid shapes), with, when `normals`, the
    /// world normal where it comes at no extra cost (half-spaces). The ray starts at the
    /// shared origin when the shape was prepared with one.
    #[inline(always)]
    pub fn cast(&self, ray: &Ray, max: Real, normals: bool) -> Option<(Real, Option<Vector>)> {
        let dir = self.unrotate(ray.dir);
        if let Form::HalfSpace(h) = self.form {
            // parry's solid half-space cast, and its normal back into the world.
            let side = match self.origin {
                Some(_) => self.side,
                None => h.normal.dot(-self.local_origin(ray)),
            };
            if side > 0.0 {
                return Some((0.0, normals.then(|| self.rotation * Vector::ZERO)));
            }
            let t = side / h.normal.dot(dir);
            return (t >= 0.0 && t <= max).then(|| (t, normals.then(|| self.rotation * h.normal)));
        }
        let local = Ray::new(self.local_origin(ray), dir);
        let t = match self.form {
            Form::Cuboid(s) => s.cast_local_ray(&local, max, true),
            form => cast_other(form, &local, max),
        }?;
        Some((t, None))
    }
}

/// The local cast of a shape other than a half-space or a cuboid (kept out of line: the
/// two common shapes' casts are inlined into the packet loop).
#[inline(never)]
fn cast_other(form: Form<'_>, local: &Ray, max: Real) -> Option<Real> {
    match form {
        Form::Ball(s) => s.cast_local_ray(local, max, true),
        Form::Capsule(s) => s.cast_local_ray(local, max, true),
        Form::Cylinder(s) => s.cast_local_ray(local, max, true),
        Form::HalfSpace(s) => s.cast_local_ray(local, max, true),
        Form::Cuboid(s) => s.cast_local_ray(local, max, true),
        Form::Other(s) => s.cast_local_ray(local, max, true),
    }
}
