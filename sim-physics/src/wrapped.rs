//! The queries of the shapes simcore wraps around another (a [`Plane`](super::plane::Plane)
//! around its half-space, a [`Leading`](super::leading::Leading) around its collider's shape):
//! ray casts and point queries answered by the inner shape.

/// `impl RayCast` and `impl PointQuery` for a wrapper shape `$t` that answers both as the
/// shape in its field `$inner` does (a plane's half-space, a leading shape's own).
macro_rules! queries_of_inner {
    ($t:ty, $inner:ident) => {
        impl rapier3d::parry::query::RayCast for $t {
            #[inline]
            fn cast_local_ray(
                &self,
                ray: &rapier3d::parry::query::Ray,
                max_time_of_impact: rapier3d::prelude::Real,
                solid: bool,
            ) -> Option<rapier3d::prelude::Real> {
                self.$inner.cast_local_ray(ray, max_time_of_impact, solid)
            }

            #[inline]
            fn cast_local_ray_and_get_normal(
                &self,
                ray: &rapier3d::parry::query::Ray,
                max_time_of_impact: rapier3d::prelude::Real,
                solid: bool,
            ) -> Option<rapier3d::parry::query::RayIntersection> {
                self.$inner
                    .cast_local_ray_and_get_normal(ray, max_time_of_impact, solid)
            }

            #[inline]
            fn intersects_local_ray(
                &self,
                ray: &rapier3d::parry::query::Ray,
                max_time_of_impact: rapier3d::prelude::Real,
            ) -> bool {
                self.$inner.intersects_local_ray(ray, max_time_of_impact)
            }
        }

        impl rapier3d::parry::query::PointQuery for $t {
            #[inline]
            fn project_local_point(
                &self,
                pt: rapier3d::prelude::Vector,
                solid: bool,
            ) -> rapier3d::parry::query::PointProjection {
                self.$inner.project_local_point(pt, solid)
            }

            #[inline]
            fn project_local_point_and_get_feature(
                &self,
                pt: rapier3d::prelude::Vector,
            ) -> (
                rapier3d::parry::query::PointProjection,
                rapier3d::parry::shape::FeatureId,
            ) {
                self.$inner.project_local_point_and_get_feature(pt)
            }

            #[inline]
            fn distance_to_local_point(
                &self,
                pt: rapier3d::prelude::Vector,
                solid: bool,
            ) -> rapier3d::prelude::Real {
                self.$inner.distance_to_local_point(pt, solid)
            }

            #[inline]
            fn contains_local_point(&self, pt: rapier3d::prelude::Vector) -> bool {
                self.$inner.contains_local_point(pt)
            }
        }
    };
}
pub(crate) use queries_of_inner;
