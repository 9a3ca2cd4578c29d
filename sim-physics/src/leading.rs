//! Fixed shapes first in their contact pairs: their contacts reused as a cuboid's are.
//!
//! rapier reuses a pair's contacts while the two shapes have barely moved relative to each
//! other since it last computed them (within 5 cm, and 11.5 degrees for each body), bounding
//! how far a contact drifted by the pair's relative motion in the frame of the pair's first
//! collider (the one earlier in rapier's collider set) and the larger of the two shapes'
//! reach from their origins. A ground of 500 x 500 m reaches 354 m: a resting box that turns
//! by a hundredth of a degree on stiff contacts moves its contacts, by that bound, 6 cm, and
//! its contacts are computed again, though its points moved a thousandth of that.
//!
//! The relative motion is that of the second shape in the first one's frame, in which the
//! first shape does not move: the points that drift are the second shape's, within its own
//! reach. So when a shape is the first collider of each of its pairs, its own reach need not
//! count. A [`Leading`] is the shape of a collider of a fixed body that precedes, in the
//! collider set, every collider of a body that moves (a ground or a wall built before the
//! models on it, as SDF worlds list them): it gives rapier the point at its origin as its
//! local box, as an ordered [`Plane`](super::plane::Plane) does, and is the shape inside it in
//! everything else; the query dispatcher (`dispatch.rs`) hands parry the inner shape, so
//! every contact is computed by the same code on the same numbers. A collider stops being
//! leading (gets its own shape back) when a moving collider is given an earlier place in the
//! set (a place freed by a removed model), and the same rule orders planes.

use rapier3d::parry::bounding_volume::{Aabb, BoundingSphere};
use rapier3d::parry::mass_properties::MassProperties;
use rapier3d::parry::shape::{
    CompositeShape, FeatureId, PolygonalFeatureMap, Shape, ShapeType, SubShapeId, SupportMap,
    TypedShape,
};
use rapier3d::prelude::{Collider, ColliderHandle, Pose, Real, SharedShape, Vector};

use super::GROUP_COLLISION;
use super::plane::Plane;

/// The shape of a fixed collider first in each of its contact pairs: see the module.
#[derive(Clone)]
pub(crate) struct Leading {
    /// The collider's own shape.
    pub shape: SharedShape,
}

impl Leading {
    /// The shape inside `shape` when it is a [`Leading`], else `shape`.
    #[inline]
    pub fn unwrap(shape: &dyn Shape) -> &dyn Shape {
        if shape.shape_type() == ShapeType::Custom
            && let Some(l) = shape.as_shape::<Leading>()
        {
            return &*l.shape;
        }
        shape
    }
}

super::wrapped::queries_of_inner!(Leading, shape);

impl Shape for Leading {
    /// The box rapier measures the shape's reach from its origin by, to bound how far a
    /// contact drifted since it was computed: the point at its origin (the drifting points
    /// are the other shape's, see the module).
    fn compute_local_aabb(&self) -> Aabb {
        Aabb::new(Vector::ZERO, Vector::ZERO)
    }

    fn compute_local_bounding_sphere(&self) -> BoundingSphere {
        self.shape.compute_local_bounding_sphere()
    }

    fn clone_dyn(&self) -> Box<dyn Shape> {
        Box::new(self.clone())
    }

    fn scale_dyn(&self, scale: Vector, num_subdivisions: u32) -> Option<Box<dyn Shape>> {
        let scaled = self.shape.scale_dyn(scale, num_subdivisions)?;
        Some(Box::new(Leading {
            shape: SharedShape(scaled.into()),
        }))
    }

    fn compute_aabb(&self, position: &Pose) -> Aabb {
        self.shape.compute_aabb(position)
    }

    fn compute_bounding_sphere(&self, position: &Pose) -> BoundingSphere {
        self.shape.compute_bounding_sphere(position)
    }

    fn mass_properties(&self, density: Real) -> MassProperties {
        self.shape.mass_properties(density)
    }

    fn shape_type(&self) -> ShapeType {
        ShapeType::Custom
    }

    fn as_typed_shape(&self) -> TypedShape<'_> {
        TypedShape::Custom(self)
    }

    fn ccd_thickness(&self) -> Real {
        self.shape.ccd_thickness()
    }

    fn ccd_angular_thickness(&self) -> Real {
        self.shape.ccd_angular_thickness()
    }

    fn is_convex(&self) -> bool {
        self.shape.is_convex()
    }

    fn as_support_map(&self) -> Option<&dyn SupportMap> {
        self.shape.as_support_map()
    }

    fn as_composite_shape(&self) -> Option<&(dyn CompositeShape + Sync)> {
        self.shape.as_composite_shape()
    }

    fn as_polygonal_feature_map(&self) -> Option<(&dyn PolygonalFeatureMap, Real)> {
        self.shape.as_polygonal_feature_map()
    }

    fn feature_normal_at_point(
        &self,
        subshape: SubShapeId,
        feature: FeatureId,
        point: Vector,
    ) -> Option<Vector> {
        self.shape.feature_normal_at_point(subshape, feature, point)
    }

    fn compute_swept_aabb(&self, start_pos: &Pose, end_pos: &Pose) -> Aabb {
        self.shape.compute_swept_aabb(start_pos, end_pos)
    }
}

/// What a collider is to the ordering: a plane, a fixed shape that can lead, a shape that
/// moves, or one that touches nothing (not in the collision group).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Role {
    Plane { moving: bool },
    Fixed,
    Moving,
    Apart,
}

/// The colliders first in each of their contact pairs (ordered planes and leading fixed
/// shapes; removed ones are dropped when the leads are next looked through), and the places
/// in the collider set they are compared with.
#[derive(Debug, Default)]
pub(super) struct Leads {
    pub first: Vec<ColliderHandle>,
    pub places: FirstPlaces,
}

/// The places in the collider set the ordering compares with (see
/// [`super::Physics::order_first`]).
#[derive(Copy, Clone, Debug)]
pub(super) struct FirstPlaces {
    /// The least index of a collider that can touch a plane (any other shape).
    shape: u32,
    /// The least index of a collider that can touch a fixed shape (one that moves).
    moving: u32,
    /// The greatest index a collider first in its pairs has had: only a collider inserted
    /// before it can end a lead (not lowered when that collider goes).
    last_lead: u32,
}

impl Default for FirstPlaces {
    fn default() -> Self {
        FirstPlaces {
            shape: u32::MAX,
            moving: u32::MAX,
            last_lead: 0,
        }
    }
}

impl super::Physics {
    fn role(&self, c: &Collider) -> Role {
        if !c.collision_groups().memberships.intersects(GROUP_COLLISION) {
            return Role::Apart;
        }
        let fixed = c
            .parent()
            .and_then(|b| self.pw.bodies.get(b))
            .is_none_or(|b| b.is_fixed());
        if c.shape().as_shape::<Plane>().is_some() {
            return Role::Plane { moving: !fixed };
        }
        // A fixed shape of a kind of its own (a custom shape) keeps its box.
        if fixed && Leading::unwrap(c.shape()).shape_type() != ShapeType::Custom {
            Role::Fixed
        } else {
            Role::Moving
        }
    }

    /// Keeps planes ordered ([`Plane::ordered`]) and fixed shapes [`Leading`] exactly while
    /// their collider precedes every collider that can touch it, after the collider `added`
    /// was inserted: a plane must come before every other shape, a fixed shape before every
    /// one that moves (fixed shapes touch no fixed shape). A collider inserted at an earlier
    /// place (one freed by a removed model) ends the order of those it can touch. The least
    /// places compared with are not raised when a collider is removed: a collider may stay
    /// unordered that could be ordered, never the reverse.
    pub(super) fn order_first(&mut self, added: ColliderHandle) {
        let Some(c) = self.pw.colliders.get(added) else {
            return;
        };
        let role = self.role(c);
        let i = added.into_raw_parts().0;
        let first = match role {
            Role::Plane { .. } => i < self.leads.places.shape,
            Role::Fixed => i < self.leads.places.moving,
            _ => false,
        };
        // Those it can touch, by the place they must come before.
        let (touches_planes, touches_fixed) = match role {
            Role::Plane { moving } => (false, moving),
            Role::Fixed => (true, false),
            Role::Moving => (true, true),
            Role::Apart => (false, false),
        };
        let places = &mut self.leads.places;
        if touches_planes {
            places.shape = places.shape.min(i);
        }
        if touches_fixed {
            places.moving = places.moving.min(i);
        }
        // A world's colliders come in order: only one given a freed place before a lead's
        // looks through the leads.
        if i >= places.last_lead {
            if first {
                self.make_first(added);
            }
            return;
        }
        let colliders = &self.pw.colliders;
        self.leads.first.retain(|h| colliders.get(*h).is_some());
        let ended: Vec<ColliderHandle> = self
            .leads
            .first
            .iter()
            .copied()
            .filter(|&h| {
                h.into_raw_parts().0 > i
                    && colliders.get(h).is_some_and(|c| {
                        if c.shape().as_shape::<Plane>().is_some() {
                            touches_planes
                        } else {
                            touches_fixed
                        }
                    })
            })
            .collect();
        for h in ended {
            self.lead(h, false);
            self.leads.first.retain(|&f| f != h);
        }
        if first {
            self.make_first(added);
        }
    }

    /// Makes the collider `h` first in its pairs, and one of [`Physics::first_in_pairs`].
    pub(super) fn make_first(&mut self, h: ColliderHandle) {
        self.lead(h, true);
        self.leads.first.push(h);
        let places = &mut self.leads.places;
        places.last_lead = places.last_lead.max(h.into_raw_parts().0);
    }

    /// Makes the collider `h` first in its pairs (`lead`) or not: an ordered or unordered
    /// plane, a [`Leading`] or its own shape.
    pub(super) fn lead(&mut self, h: ColliderHandle, lead: bool) {
        let Some(c) = self.pw.colliders.get_mut(h) else {
            return;
        };
        let shape = if let Some(plane) = c.shape().as_shape::<Plane>().copied() {
            if plane.ordered == lead {
                return;
            }
            SharedShape::new(Plane {
                ordered: lead,
                ..plane
            })
        } else if let Some(l) = c.shape().as_shape::<Leading>() {
            if lead {
                return;
            }
            l.shape.clone()
        } else {
            if !lead {
                return;
            }
            SharedShape::new(Leading {
                shape: c.shared_shape().clone(),
            })
        };
        c.set_shape(shape);
    }
}
