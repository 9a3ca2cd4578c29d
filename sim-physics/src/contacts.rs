//! SDF surfaces in rapier's contacts.
//!
//! Every collision's collider carries its `<mu>` as rapier friction (combined by the smaller,
//! as DART combines two surfaces) and its restitution coefficient (combined by the product,
//! as DART does), so that plain surfaces cost nothing per step. The few colliders that need
//! more turn on rapier's hooks, and only they:
//!
//! - **filtering** (`ActiveHooks::FILTER_CONTACT_PAIRS`): collisions with bitmasks other than
//!   SDF's defaults, and those of links that must not touch the other links of their model
//!   (`<self_collide>` false in a model of several links). Two collisions touch when
//!   `(category1 & collide2) | (category2 & collide1)` is not zero, and two links of one model
//!   when either self-collides.
//! - **contact modification** (`ActiveHooks::MODIFY_SOLVER_CONTACTS`): a restitution above 0
//!   (the bounce threshold: no bounce for an impact slower than the `<threshold>` written, or,
//!   with none written, when the rebound would be slower than 0.1 m/s as in DART), and
//!   anisotropic friction (`<mu>` differing from `<mu2>`).
//!
//! rapier's friction is one isotropic coefficient per contact manifold. Anisotropic friction
//! is approximated by choosing that coefficient at each step from the direction the contact
//! slides in (its relative tangential velocity, plus what gravity and the applied forces add
//! over the step, so that a resting contact takes the direction it is pushed in): `mu` along
//! the first friction direction, `mu2` across it, and `sqrt((mu cos φ)² + (mu2 sin φ)²)` at an
//! angle φ between (the elliptic friction cone's value along the slip). The friction force
//! is then opposite to the slip, where DART's friction pyramid can push at an angle to it.
//! The first friction direction is DART's: `<fdir1>` in the collision frame (of the surface
//! with the smaller `mu` when both give one), else the world's Z axis, projected on the
//! contact plane (on a slope: its fall line; on level ground, where Z is the normal: X).

use rapier3d::prelude::*;

use super::query::unpack_model;
use sim_world::{Quat, Surface};

/// What a collider's contacts need beyond rapier's material: kept only for the colliders
/// whose hooks are on.
#[derive(Clone, Debug)]
pub(super) struct ContactExtra {
    category: u16,
    collide: u16,
    /// False: the collider does not touch the colliders of other links of its model that
    /// do not self-collide either.
    self_collide: bool,
    mu: Real,
    mu2: Real,
    /// `<fdir1>` in the collider's frame (that of its rapier shape).
    fdir1: Option<Vector>,
    /// `<threshold>`, m/s.
    threshold: Option<Real>,
}

/// The contact hooks of the world: the extras of the colliders that need them, by collider
/// index.
#[derive(Debug, Default)]
pub(super) struct ContactHooks {
    extras: Vec<Option<ContactExtra>>,
    /// Gravity and step, for the direction a resting contact is pushed in.
    pub gravity: Vector,
    pub dt: Real,
}

/// DART's smallest rebound speed, m/s: a slower rebound is no bounce.
const DART_BOUNCE_SPEED: Real = 0.1;

impl ContactHooks {
    /// The hooks a collider with `surface` needs, where `self_collide` is false when its link
    /// must not touch the other links of its model.
    pub fn needed(surface: &Surface, self_collide: bool) -> ActiveHooks {
        let mut hooks = ActiveHooks::empty();
        if !surface.has_default_bitmasks() || !self_collide {
            hooks |= ActiveHooks::FILTER_CONTACT_PAIRS;
        }
        if surface.restitution > 0.0 || surface.is_anisotropic() {
            hooks |= ActiveHooks::MODIFY_SOLVER_CONTACTS;
        }
        hooks
    }

    /// Records the extras of `collider` (built with [`ContactHooks::needed`] hooks), or
    /// forgets those of an earlier collider of the same index when it needs none.
    /// `shape_offset` is the rotation of the rapier shape in the collision frame (rapier's
    /// cylinders, cones and capsules are along Y, SDF's along Z).
    pub fn register(
        &mut self,
        collider: ColliderHandle,
        surface: &Surface,
        self_collide: bool,
        shape_offset: Quat,
    ) {
        let index = collider.into_raw_parts().0 as usize;
        let extra = (!Self::needed(surface, self_collide).is_empty()).then(|| ContactExtra {
            category: surface.category_bitmask,
            collide: surface.collide_bitmask,
            self_collide,
            mu: surface.mu as Real,
            mu2: surface.mu2 as Real,
            fdir1: surface
                .fdir1
                .map(|d| super::convert::vec_to_rapier(shape_offset.inverse().rotate(d))),
            threshold: surface.bounce_threshold.map(|t| t as Real),
        });
        if extra.is_none() && index >= self.extras.len() {
            return;
        }
        if index >= self.extras.len() {
            self.extras.resize(index + 1, None);
        }
        self.extras[index] = extra;
    }

    fn extra(&self, collider: ColliderHandle) -> Option<&ContactExtra> {
        self.extras
            .get(collider.into_raw_parts().0 as usize)
            .and_then(Option::as_ref)
    }
}

impl PhysicsHooks for ContactHooks {
    fn filter_contact_pair(&self, context: &PairFilterContext) -> Option<SolverFlags> {
        let (e1, e2) = (self.extra(context.collider1), self.extra(context.collider2));
        let masks =
            |e: Option<&ContactExtra>| e.map_or((0xffff, 0xffff), |e| (e.category, e.collide));
        let ((cat1, col1), (cat2, col2)) = (masks(e1), masks(e2));
        if (cat1 & col2) | (cat2 & col1) == 0 {
            return None;
        }
        let self_collides = |e: Option<&ContactExtra>| e.is_none_or(|e| e.self_collide);
        if !self_collides(e1) && !self_collides(e2) {
            let model =
                |h: ColliderHandle| context.colliders.get(h).map(|c| unpack_model(c.user_data));
            if model(context.collider1) == model(context.collider2) {
                return None;
            }
        }
        Some(SolverFlags::default())
    }

    fn modify_solver_contacts(&self, context: &mut ContactModificationContext) {
        let (h1, h2) = (context.collider1, context.collider2);
        let (Some(c1), Some(c2)) = (context.colliders.get(h1), context.colliders.get(h2)) else {
            return;
        };
        let (e1, e2) = (self.extra(h1), self.extra(h2));
        let bodies = context.bodies;
        let (b1, b2) = (
            context.rigid_body1.and_then(|h| bodies.get(h)),
            context.rigid_body2.and_then(|h| bodies.get(h)),
        );
        let gravity = self.gravity;
        let dt = self.dt;
        let Some(manifold) = context.rigid_mut() else {
            return;
        };
        let Some(first) = manifold.solver_contacts.first() else {
            return;
        };
        let n = *manifold.normal;
        // The contact point and the relative velocity of body 2 to body 1 there.
        let point = (first.anchor1 + first.anchor2) * 0.5;
        let velocity =
            |b: Option<&RigidBody>| b.map_or(Vector::ZERO, |b| b.velocity_at_point(point));
        let relative = velocity(b2) - velocity(b1);

        if *manifold.restitution > 0.0 {
            let approach = -relative.dot(n);
            let thresholds = [e1, e2].into_iter().flatten().filter_map(|e| e.threshold);
            let bounces = match thresholds.reduce(Real::min) {
                Some(threshold) => approach >= threshold,
                None => *manifold.restitution * approach >= DART_BOUNCE_SPEED,
            };
            if !bounces {
                *manifold.restitution = 0.0;
            }
        }

        let coefficients = |e: Option<&ContactExtra>, c: &Collider| {
            e.map_or((c.friction(), c.friction()), |e| (e.mu, e.mu2))
        };
        let ((mu_a, mu2_a), (mu_b, mu2_b)) = (coefficients(e1, c1), coefficients(e2, c2));
        let (mu, mu2) = (mu_a.min(mu_b), mu2_a.min(mu2_b));
        if mu == mu2 {
            *manifold.friction = mu;
            return;
        }
        // The first friction direction, as DART chooses it.
        let world_dir = |e: Option<&ContactExtra>, c: &Collider| {
            e.and_then(|e| e.fdir1).map(|d| c.position().rotation * d)
        };
        let fdir = match (world_dir(e1, c1), world_dir(e2, c2)) {
            (Some(a), Some(b)) => Some(if mu_a <= mu_b { a } else { b }),
            (a, b) => a.or(b),
        }
        .unwrap_or(Vector::Z);
        let mut t = fdir.cross(n);
        for axis in [Vector::X, Vector::Y, Vector::Z] {
            if t.length_squared() >= 1e-12 {
                break;
            }
            t = axis.cross(n);
        }
        let t = t.normalize_or_zero();
        let d1 = n.cross(t);
        // The slip over this step: the relative velocity plus what gravity and the applied
        // forces add to it, in the contact plane.
        let pushed = |b: Option<&RigidBody>| {
            b.filter(|b| b.is_dynamic()).map_or(Vector::ZERO, |b| {
                let inv_mass = if b.mass() > 0.0 { 1.0 / b.mass() } else { 0.0 };
                (gravity * b.gravity_scale() + b.user_force() * inv_mass) * dt
            })
        };
        let slip = relative + pushed(b2) - pushed(b1);
        let slip = slip - n * slip.dot(n);
        let length = slip.length();
        *manifold.friction = if length > 1e-9 {
            let (c, s) = (slip.dot(d1) / length, slip.dot(t) / length);
            ((mu * c).powi(2) + (mu2 * s).powi(2)).sqrt()
        } else {
            mu.min(mu2)
        };
    }
}
