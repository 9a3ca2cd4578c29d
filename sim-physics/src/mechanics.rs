//! The mechanics extension (`simcore.mechanics.v1`): a link's mass properties and collision
//! shapes, and a model's joints, for physical systems such as Buoyancy.

use super::Physics;
use super::convert::*;
use super::entities::EntityData;
use sim_plugin_api::{
    CollisionShape, EntityId, EntityKind, JointAxis, LinkInertial, Mechanics, Vec3,
    abi_stable::std_types::{ROption, RVec},
};

/// The mass properties at unit density (mass: volume) of the convex hull of a collider's
/// shape: of every vertex of a convex polyhedron, of the parts of a compound or of a triangle
/// mesh; those of the shape itself when it has no hull (a flat mesh).
fn hull_mass(shape: &dyn rapier3d::parry::shape::Shape) -> rapier3d::prelude::MassProperties {
    use rapier3d::prelude::SharedShape;
    let mut points = Vec::new();
    let mut gather = |s: &dyn rapier3d::parry::shape::Shape, pose: &rapier3d::math::Pose| {
        if let Some(c) = s.as_convex_polyhedron() {
            points.extend(c.points().iter().map(|p| pose.transform_point(*p)));
        } else if let Some(t) = s.as_trimesh() {
            points.extend(t.vertices().iter().map(|p| pose.transform_point(*p)));
        }
    };
    match shape.as_compound() {
        Some(c) => c.shapes().iter().for_each(|(pose, s)| gather(&**s, pose)),
        None => gather(shape, &rapier3d::math::Pose::IDENTITY),
    }
    SharedShape::convex_hull(&points)
        .map(|h| h.mass_properties(1.0))
        .unwrap_or_else(|| shape.mass_properties(1.0))
}

impl Mechanics for Physics {
    fn inertial(&self, link: EntityId) -> ROption<LinkInertial> {
        let Some(EntityData::Link { body, .. }) = self.entities.get(link).map(|e| &e.data) else {
            return ROption::RNone;
        };
        let Some(b) = self.pw.bodies.get(*body) else {
            return ROption::RNone;
        };
        let m = b.mass_properties().local_mprops;
        let i = m.reconstruct_inertia_matrix();
        let c = |col: rapier3d::math::Vector, k: usize| col[k] as f64;
        ROption::RSome(LinkInertial {
            mass: m.mass() as f64,
            center_of_mass: vec_from_rapier(m.local_com),
            inertia: [
                c(i.x_axis, 0),
                c(i.y_axis, 1),
                c(i.z_axis, 2),
                c(i.y_axis, 0),
                c(i.z_axis, 0),
                c(i.z_axis, 1),
            ],
        })
    }

    fn collision_shapes(&self, link: EntityId, out: &mut RVec<CollisionShape>) -> bool {
        out.clear();
        if self.entities.get(link).map(|e| e.kind) != Some(EntityKind::LINK) {
            return false;
        }
        for (id, e) in self.entities.iter() {
            let EntityData::Collision {
                collider,
                link: owner,
                pose,
                shape,
                ..
            } = &e.data
            else {
                continue;
            };
            if *owner != link {
                continue;
            }
            let (volume, center_of_volume) = match shape.exact {
                Some((v, c)) => (v, pose.transform_point(c)),
                // A mesh: its convex hull (the parts of a convex decomposition overlap), in
                // the link's frame.
                None => match self.pw.colliders.get(*collider) {
                    Some(c) => {
                        let m = hull_mass(super::leading::Leading::unwrap(c.shape()));
                        let local = c
                            .position_wrt_parent()
                            .map(pose_from_rapier)
                            .unwrap_or_default();
                        (
                            m.mass() as f64,
                            local.transform_point(vec_from_rapier(m.local_com)),
                        )
                    }
                    None => (0.0, pose.position),
                },
            };
            out.push(CollisionShape {
                collision: id,
                kind: shape.kind,
                pose: *pose,
                size: shape.size,
                volume,
                center_of_volume,
            });
        }
        true
    }

    fn model_joints(&self, model: EntityId, out: &mut RVec<EntityId>) -> bool {
        out.clear();
        if self.entities.get(model).map(|e| e.kind) != Some(EntityKind::MODEL) {
            return false;
        }
        out.extend(
            self.entities
                .iter()
                .filter(|(_, e)| e.kind == EntityKind::JOINT && e.parent == model)
                .map(|(id, _)| id),
        );
        true
    }

    fn canonical_link(&self, model: EntityId) -> EntityId {
        match self.entities.get(model).map(|e| &e.data) {
            Some(EntityData::Model {
                canonical: Some((link, _)),
                ..
            }) => *link,
            _ => EntityId::NONE,
        }
    }

    fn model_links(&self, model: EntityId, out: &mut RVec<EntityId>) -> bool {
        out.clear();
        let Some(EntityData::Model { links, .. }) = self.entities.get(model).map(|e| &e.data)
        else {
            return false;
        };
        out.extend(links.iter().copied());
        true
    }

    fn joint_axis(&self, joint: EntityId, axis: u32) -> ROption<JointAxis> {
        let Some(EntityData::Joint {
            child_link,
            frame2,
            axes,
            ..
        }) = self.entities.get(joint).map(|e| &e.data)
        else {
            return ROption::RNone;
        };
        let Some(pair) = axes.get(axis as usize).copied().flatten() else {
            return ROption::RNone;
        };
        // The pair's frame on the child body has X along the axis (Y along the second axis
        // of a two-axis joint).
        let local = if pair.two_axes == Some(1) {
            Vec3::new(0.0, 1.0, 0.0)
        } else {
            Vec3::new(1.0, 0.0, 0.0)
        };
        ROption::RSome(JointAxis {
            child_link: *child_link,
            origin: frame2.position,
            axis: pair.frame2.orientation.rotate(local).normalized(),
            linear: pair.linear,
        })
    }
}
