//! SDF planes in rapier: a half-space whose box the broad phase can use.
//!
//! An SDF `<plane>` is a solid half-space. rapier's own half-space ([`HalfSpace`]) bounds
//! itself by a box of half the largest float in every direction, so that in the broad phase
//! it overlaps every collider of the world: every body formed a contact pair with the ground
//! from the first step, however high above it, and the narrow phase computed each of those
//! pairs every step (on the peers' 1,000-box scene the plane cost a third of the step).
//!
//! A [`Plane`] is the same half-space with an exact box: the part of the solid side within
//! the world's *reach* of the origin along every axis. For a plane whose normal is along an
//! axis of the world (a level ground, a wall) that box ends at the plane, so that the broad
//! phase pairs the plane only with the colliders that come near it, as it would a cuboid
//! ground; for a tilted plane it fills the cube of the reach. Everything else is the
//! half-space's own: contacts, ray casts and point queries go to [`HalfSpace`] through
//! [`ShapeDispatcher`](super::dispatch::ShapeDispatcher), which hands parry's dispatcher the
//! inner half-space wherever a [`Plane`] is one of the two shapes, so that every contact is
//! computed by the same code on the same numbers as before.
//!
//! rapier reuses a pair's contacts while the two shapes have barely moved relative to each
//! other since it last computed them ("recycling", within 5 cm and 11.5 degrees): it bounds
//! how far a contact drifted by the pair's relative motion in the frame of the pair's first
//! collider (the one earlier in rapier's collider set) and the larger of the two shapes'
//! reach from their origins. A half-space reaches infinitely far, so a plane's contacts were
//! computed again at every step, a resting box's for ever. When the plane is the pair's first
//! collider, the points that drift are the other shape's, within its own reach: a plane that
//! precedes every collider that can touch it (an *ordered* plane, see
//! [`Plane::ordered`]) gives rapier the point at its origin as its local box, so that its
//! contacts are reused exactly as a cuboid's are. Any other plane keeps the whole half-space
//! as its local box, and rapier computes its contacts at every step as before. Fixed shapes
//! of other kinds follow the same rule (`leading.rs`, where the ordering is kept).
//!
//! The reach ([`Planes`]) is the half-width of a cube centred on the world's origin, a power
//! of two from [`MIN_REACH`] (1 km) up to [`PLANE_REACH`], and at least twice as far as any
//! collision of a body that moves reaches: a collider that touches a plane then touches its
//! box (rapier pairs no two fixed bodies, so a static model's collisions need not be in it).
//! It is checked after every step (as the links' motion records are taken, from each moving
//! link's position and how far its collisions reach from it) and before a step that follows a
//! spawn or a command that places a body; when a collision comes beyond half the reach, the
//! reach grows to a power of two four times as far, and every plane's box with it. A box
//! as large as the float range instead (rapier's half-space's, or a fixed reach of 10^15 m)
//! holds every collider as well, but it is the root of the broad phase's tree: the tree's
//! surface-area costs, in single precision, no longer tell one place for a leaf from
//! another, the pairs come out of the tree in a scattered order, and so do the contact
//! constraints in the solver. On the peers' scene of 16,000 boxes that cost a tenth of the step.

use rapier3d::parry::bounding_volume::{Aabb, BoundingSphere};
use rapier3d::parry::mass_properties::MassProperties;
use rapier3d::parry::shape::{FeatureId, HalfSpace, Shape, ShapeType, SubShapeId, TypedShape};
use rapier3d::prelude::{ColliderHandle, ColliderSet, Pose, Real, SharedShape, Vector};

/// The farthest a plane reaches from the world origin along each axis, m. Beyond it a plane
/// touches nothing (a single-precision position there is 2^26 m, some 67,000 km, from
/// the next one).
pub(crate) const PLANE_REACH: Real = 1.0e15;

/// The nearest a plane reaches from the world origin along each axis, m (see [`Planes`]).
pub(crate) const MIN_REACH: Real = 1024.0;

/// A solid half-space (an SDF `<plane>`) with an exact, finite box: see the module.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Plane {
    /// The half-space, in the collider's frame: its boundary through the origin, the solid
    /// side opposite `normal`.
    pub half_space: HalfSpace,
    /// Whether the plane's collider precedes, in rapier's collider set, every collider that
    /// can touch it, so that it is the first collider of each of its contact pairs: its local
    /// box is then the point at its origin (see the module).
    pub ordered: bool,
    /// How far the plane's box reaches from the world origin along each axis (the world's
    /// reach, see [`Planes`]).
    pub reach: Real,
}

impl Plane {
    /// The plane through the collider's origin with the outward unit normal `normal`, not
    /// ordered, reaching [`MIN_REACH`].
    pub fn new(normal: Vector) -> Self {
        Plane {
            half_space: HalfSpace::new(normal),
            ordered: false,
            reach: MIN_REACH,
        }
    }

    /// The box of the solid side within the plane's reach of the origin, for the plane posed
    /// at `pose`: along each axis, as far as the solid side reaches inside the cube of that
    /// half-width. Exact along an axis the normal is perpendicular to (the whole width) and
    /// along the axis of an axis-aligned normal (ending exactly at the plane); conservative,
    /// by a relative 1e-6 (far more than the rounding), where the normal is tilted.
    pub fn aabb_at(&self, pose: &Pose) -> Aabb {
        let n = pose.rotation * self.half_space.normal;
        // The solid side: n . p <= d.
        let d = n.dot(pose.translation);
        let reach = self.reach;
        let (mut mins, mut maxs) = (Vector::splat(-reach), Vector::splat(reach));
        let a = n.abs();
        for i in 0..3 {
            if n[i] == 0.0 {
                continue;
            }
            // n_i p_i <= d - sum_j n_j p_j <= d + sum_(j != i) |n_j| reach.
            let others = (a.x + a.y + a.z - a[i]) * reach;
            // Exact for an axis-aligned normal (others = 0, n_i = +-1).
            let slack = if others > 0.0 {
                (others + d.abs()) * 1.0e-6
            } else {
                0.0
            };
            let bound = (d + others + slack) / n[i];
            if n[i] > 0.0 {
                maxs[i] = bound.clamp(-reach, reach);
            } else {
                mins[i] = bound.clamp(-reach, reach);
            }
        }
        Aabb::new(mins, maxs)
    }
}

/// The half-space of a shape that is one: a [`Plane`]'s or rapier's own [`HalfSpace`].
pub(crate) fn half_space_of(shape: &dyn Shape) -> Option<&HalfSpace> {
    match shape.shape_type() {
        ShapeType::HalfSpace => shape.as_halfspace(),
        ShapeType::Custom => shape.as_shape::<Plane>().map(|p| &p.half_space),
        _ => None,
    }
}

super::wrapped::queries_of_inner!(Plane, half_space);

impl Shape for Plane {
    /// The box rapier measures the shape's reach from its origin by, to bound how far a
    /// contact drifted since it was computed: for an ordered plane the point at its origin
    /// (the drifting points are the other shape's, see the module), else the solid side
    /// within its reach.
    fn compute_local_aabb(&self) -> Aabb {
        if self.ordered {
            Aabb::new(Vector::ZERO, Vector::ZERO)
        } else {
            self.aabb_at(&Pose::IDENTITY)
        }
    }

    fn compute_local_bounding_sphere(&self) -> BoundingSphere {
        let aabb = self.aabb_at(&Pose::IDENTITY);
        BoundingSphere::new(aabb.center(), aabb.half_extents().length())
    }

    fn clone_dyn(&self) -> Box<dyn Shape> {
        Box::new(*self)
    }

    fn scale_dyn(&self, scale: Vector, _num_subdivisions: u32) -> Option<Box<dyn Shape>> {
        Some(Box::new(Plane {
            half_space: self.half_space.scaled(scale)?,
            ..*self
        }))
    }

    fn compute_aabb(&self, position: &Pose) -> Aabb {
        self.aabb_at(position)
    }

    fn compute_bounding_sphere(&self, position: &Pose) -> BoundingSphere {
        let aabb = self.aabb_at(position);
        BoundingSphere::new(aabb.center(), aabb.half_extents().length())
    }

    fn mass_properties(&self, density: Real) -> MassProperties {
        self.half_space.mass_properties(density)
    }

    fn shape_type(&self) -> ShapeType {
        ShapeType::Custom
    }

    fn as_typed_shape(&self) -> TypedShape<'_> {
        TypedShape::Custom(self)
    }

    fn ccd_thickness(&self) -> Real {
        self.half_space.ccd_thickness()
    }

    fn ccd_angular_thickness(&self) -> Real {
        self.half_space.ccd_angular_thickness()
    }

    fn is_convex(&self) -> bool {
        true
    }

    fn feature_normal_at_point(
        &self,
        subshape: SubShapeId,
        feature: FeatureId,
        point: Vector,
    ) -> Option<Vector> {
        self.half_space
            .feature_normal_at_point(subshape, feature, point)
    }
}

/// The world's reach: how far from the origin its planes' boxes reach (see the module).
#[derive(Debug)]
pub(crate) struct Planes {
    /// The half-width of the cube, centred on the world's origin, the planes' boxes are cut
    /// to: a power of two from [`MIN_REACH`] up to [`PLANE_REACH`].
    pub reach: Real,
    /// The colliders that are planes (some may have been removed since).
    pub handles: Vec<ColliderHandle>,
    /// Whether a body was added or placed since the last check (a build, a spawn, a
    /// command), so that the links are checked before the next step.
    pub placed: bool,
}

impl Default for Planes {
    fn default() -> Self {
        Planes {
            reach: MIN_REACH,
            handles: Vec::new(),
            placed: true,
        }
    }
}

impl Planes {
    /// The reach a world needs whose collisions reach `extent` from its origin along some
    /// axis: `reach` while the extent is within half of it, else a power of two four times
    /// the extent, within [`MIN_REACH`] and [`PLANE_REACH`].
    fn needed(reach: Real, extent: Real) -> Real {
        if 2.0 * extent <= reach || reach >= PLANE_REACH {
            return reach;
        }
        let grown = (4.0 * extent).clamp(MIN_REACH, PLANE_REACH);
        grown.log2().ceil().exp2().min(PLANE_REACH).max(reach)
    }

    /// Registers the collider `h` and gives it the reach when it is a plane; false when it
    /// is not one.
    pub fn add(&mut self, colliders: &mut ColliderSet, h: ColliderHandle) -> bool {
        let plane = colliders
            .get(h)
            .is_some_and(|c| c.shape().as_shape::<Plane>().is_some());
        if plane {
            self.handles.push(h);
            self.fit_one(colliders, h);
        }
        plane
    }

    /// Grows the reach to hold collisions that reach `extent` from the origin, and every
    /// plane's box with it.
    pub fn fit(&mut self, colliders: &mut ColliderSet, extent: Real) {
        let reach = Planes::needed(self.reach, extent);
        if reach == self.reach {
            return;
        }
        self.reach = reach;
        self.handles.retain(|&h| colliders.contains(h));
        for &h in &self.handles {
            self.fit_one(colliders, h);
        }
    }

    /// Gives the plane collider `h` the reach.
    fn fit_one(&self, colliders: &mut ColliderSet, h: ColliderHandle) {
        let Some(c) = colliders.get_mut(h) else {
            return;
        };
        if let Some(plane) = c.shape().as_shape::<Plane>().copied()
            && plane.reach != self.reach
        {
            c.set_shape(SharedShape::new(Plane {
                reach: self.reach,
                ..plane
            }));
        }
    }
}
