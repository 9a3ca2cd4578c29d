//! The query dispatcher of simcore's rapier worlds: parry's own, with the shapes simcore
//! wraps handed to it unwrapped.
//!
//! Two kinds of collider shape are simcore's own: an SDF plane ([`Plane`], a half-space with
//! a finite box) and a fixed shape first in its contact pairs ([`Leading`], the collider's
//! shape with the box rapier measures its reach by shrunk to a point). Each is a change of
//! the boxes rapier's broad phase and contact reuse see, and nothing else: wherever a
//! query takes two shapes, [`ShapeDispatcher`] gives parry's dispatcher the half-space or the
//! shape inside, so that every contact, distance and cast is computed by the same code on the
//! same numbers as for the plain shape.

use rapier3d::geometry::{ContactData, ContactManifoldData};
use rapier3d::parry::query::details::{NormalConstraints, ShapeCastOptions};
use rapier3d::parry::query::{
    ClosestPoints, Contact, ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher,
    NonlinearRigidMotion, PersistentQueryDispatcher, QueryDispatcher, ShapeCastHit, ShapeDistance,
    ShapeIntersection, Unsupported,
};
use rapier3d::parry::shape::{Shape, ShapeType};
use rapier3d::prelude::{Pose, Real, Vector};

use super::leading::Leading;
use super::plane::Plane;

/// `shape`, or the shape inside it when it is a [`Plane`] (its half-space) or a [`Leading`].
#[inline]
fn inner(shape: &dyn Shape) -> &dyn Shape {
    if shape.shape_type() == ShapeType::Custom {
        if let Some(p) = shape.as_shape::<Plane>() {
            return &p.half_space;
        }
        if let Some(l) = shape.as_shape::<Leading>() {
            return &*l.shape;
        }
    }
    shape
}

/// parry's query dispatcher, with every [`Plane`] handed to it as its half-space and every
/// [`Leading`] as the shape inside it (see the module): the narrow phase's, and so the scene
/// queries' too.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ShapeDispatcher;

impl QueryDispatcher for ShapeDispatcher {
    fn intersection_test(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
    ) -> Result<ShapeIntersection, Unsupported> {
        DefaultQueryDispatcher.intersection_test(pos12, inner(g1), inner(g2))
    }

    fn distance(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
    ) -> Result<ShapeDistance, Unsupported> {
        DefaultQueryDispatcher.distance(pos12, inner(g1), inner(g2))
    }

    fn contact(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        prediction: Real,
    ) -> Result<Option<Contact>, Unsupported> {
        DefaultQueryDispatcher.contact(pos12, inner(g1), inner(g2), prediction)
    }

    fn closest_points(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        max_dist: Real,
    ) -> Result<ClosestPoints, Unsupported> {
        DefaultQueryDispatcher.closest_points(pos12, inner(g1), inner(g2), max_dist)
    }

    fn cast_shapes(
        &self,
        pos12: &Pose,
        local_vel12: Vector,
        g1: &dyn Shape,
        g2: &dyn Shape,
        options: ShapeCastOptions,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        DefaultQueryDispatcher.cast_shapes(pos12, local_vel12, inner(g1), inner(g2), options)
    }

    fn cast_shapes_nonlinear(
        &self,
        motion1: &NonlinearRigidMotion,
        g1: &dyn Shape,
        motion2: &NonlinearRigidMotion,
        g2: &dyn Shape,
        start_time: Real,
        end_time: Real,
        stop_at_penetration: bool,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        DefaultQueryDispatcher.cast_shapes_nonlinear(
            motion1,
            inner(g1),
            motion2,
            inner(g2),
            start_time,
            end_time,
            stop_at_penetration,
        )
    }
}

impl PersistentQueryDispatcher<ContactManifoldData, ContactData> for ShapeDispatcher {
    fn contact_manifolds(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        prediction: Real,
        manifolds: &mut Vec<ContactManifold<ContactManifoldData, ContactData>>,
        workspace: &mut Option<ContactManifoldsWorkspace>,
    ) -> Result<(), Unsupported> {
        DefaultQueryDispatcher.contact_manifolds(
            pos12,
            inner(g1),
            inner(g2),
            prediction,
            manifolds,
            workspace,
        )
    }

    fn contact_manifold_convex_convex(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        normal_constraints1: Option<&dyn NormalConstraints>,
        normal_constraints2: Option<&dyn NormalConstraints>,
        prediction: Real,
        manifold: &mut ContactManifold<ContactManifoldData, ContactData>,
    ) -> Result<(), Unsupported> {
        DefaultQueryDispatcher.contact_manifold_convex_convex(
            pos12,
            inner(g1),
            inner(g2),
            normal_constraints1,
            normal_constraints2,
            prediction,
            manifold,
        )
    }
}
