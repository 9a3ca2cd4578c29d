//! Boxes of whole visuals, from the engine's visual boxes (`simcore.visual_boxes.v1`): the
//! `full_2d` boxes (the projection of each seen visual's whole box) and the `3d` boxes (each
//! seen visual's box in the camera frame).
//!
//! As in gz-rendering, a visual counts when at least one of its pixels is labelled (the
//! visible boxes' rule), and the boxes of one model with one label are merged:
//!
//! - `full_2d`: the rectangle holding the visual boxes' projections, in continuous image
//!   coordinates (`0` is the left or top edge of the image), each clipped to the image
//!   (`0 ..= width - 1`, `0 ..= height - 1`, as gz-rendering clamps them); the parts of a
//!   box behind the near clip plane are cut off before projecting.
//! - `3d`: in the camera frame as gz-rendering reports it (x right, y up, z backward: the
//!   camera looks along -z), the box's centre, orientation (visual frame to camera frame)
//!   and size. A model with several seen visuals gets the box aligned with its first seen
//!   visual's frame that holds all their boxes (gz-rendering fits one to their vertices).

use sim_plugin_api::{EntityId, Pose, Quat, Vec3, VisualBox};
use simcore_plugin_camera_common::CameraModel;
use std::collections::{BTreeMap, BTreeSet};

/// A 2D box in continuous image coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Box2d {
    /// Its label.
    pub label: u32,
    /// The model it belongs to.
    pub model: EntityId,
    /// Its left (`x`) and top (`y`) edge, pixels.
    pub min: [f64; 2],
    /// Its right and bottom edge, pixels.
    pub max: [f64; 2],
}

/// An oriented 3D box in the camera frame (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Box3d {
    /// Its label.
    pub label: u32,
    /// The model it belongs to.
    pub model: EntityId,
    /// Its centre, m.
    pub center: Vec3,
    /// The rotation from the box's frame to the camera frame.
    pub orientation: Quat,
    /// Its size along its own axes, m.
    pub size: Vec3,
}

/// The rotation from the sensor frame (x forward, y left, z up) to gz-rendering's camera frame
/// (x right, y up, z backward).
pub const SENSOR_TO_VIEW: Quat = Quat {
    w: 0.5,
    x: -0.5,
    y: 0.5,
    z: 0.5,
};

/// The 8 corners of `b` in the world frame.
fn corners(b: &VisualBox) -> [Vec3; 8] {
    let (c, h) = (b.center, b.half_extents);
    std::array::from_fn(|k| {
        let s = |bit: usize, v: f64| if k & (1 << bit) == 0 { -v } else { v };
        b.pose
            .transform_point(Vec3::new(c.x + s(0, h.x), c.y + s(1, h.y), c.z + s(2, h.z)))
    })
}

/// The 12 edges of a box whose corners are numbered as [`corners`] numbers them.
const EDGES: [(usize, usize); 12] = [
    (0, 1),
    (2, 3),
    (4, 5),
    (6, 7),
    (0, 2),
    (1, 3),
    (4, 6),
    (5, 7),
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
];

/// The edges of `b` in the sensor frame of a camera at `camera`, each cut to the part at or
/// beyond `near` along the view axis; edges wholly nearer are left out.
fn clipped_edges(b: &VisualBox, camera: Pose, near: f64) -> Vec<(Vec3, Vec3)> {
    let inv = camera.inverse();
    let p = corners(b).map(|c| inv.transform_point(c));
    let cut = |a: Vec3, b: Vec3| a + (b - a) * ((near - a.x) / (b.x - a.x));
    EDGES
        .iter()
        .filter_map(|&(i, j)| {
            let (a, b) = (p[i], p[j]);
            match (a.x >= near, b.x >= near) {
                (true, true) => Some((a, b)),
                (true, false) => Some((a, cut(a, b))),
                (false, true) => Some((cut(a, b), b)),
                (false, false) => None,
            }
        })
        .collect()
}

/// The visuals with a labelled pixel, grouped by (label, model) in that order.
fn seen_groups<'a>(
    boxes: &'a [VisualBox],
    seen: &BTreeSet<EntityId>,
    background: u32,
) -> BTreeMap<(u32, EntityId), Vec<&'a VisualBox>> {
    let mut groups: BTreeMap<(u32, EntityId), Vec<&VisualBox>> = BTreeMap::new();
    for b in boxes
        .iter()
        .filter(|b| b.label < background && seen.contains(&b.visual))
    {
        groups.entry((b.label, b.model)).or_default().push(b);
    }
    groups
}

/// The `full_2d` boxes of the visuals in `seen` (those with a labelled pixel), for a camera
/// of `model` at `camera` with near clip `near`; sorted by label, then model.
pub fn full_boxes(
    boxes: &[VisualBox],
    seen: &BTreeSet<EntityId>,
    background: u32,
    camera: Pose,
    model: &CameraModel,
    near: f64,
) -> Vec<Box2d> {
    let (w, h) = (f64::from(model.width), f64::from(model.height));
    let mut out = Vec::new();
    for ((label, id), group) in seen_groups(boxes, seen, background) {
        let mut merged: Option<Box2d> = None;
        for b in group {
            let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
            for (a, c) in clipped_edges(b, camera, near) {
                for p in [a, c] {
                    if let Some((u, v)) = model.project(p) {
                        lo = [lo[0].min(u), lo[1].min(v)];
                        hi = [hi[0].max(u), hi[1].max(v)];
                    }
                }
            }
            // Wholly behind the camera, or beside the image: no box.
            if !(lo[0] <= w && lo[1] <= h && hi[0] >= 0.0 && hi[1] >= 0.0) {
                continue;
            }
            let clip = |x: f64, n: f64| x.clamp(0.0, n - 1.0);
            let (min, max) = (
                [clip(lo[0], w), clip(lo[1], h)],
                [clip(hi[0], w), clip(hi[1], h)],
            );
            merged = Some(match merged {
                None => Box2d {
                    label,
                    model: id,
                    min,
                    max,
                },
                Some(m) => Box2d {
                    min: [m.min[0].min(min[0]), m.min[1].min(min[1])],
                    max: [m.max[0].max(max[0]), m.max[1].max(max[1])],
                    ..m
                },
            });
        }
        out.extend(merged);
    }
    out
}

/// The `3d` boxes of the visuals in `seen`, for a camera at `camera`; sorted by label, then
/// model.
pub fn boxes_3d(
    boxes: &[VisualBox],
    seen: &BTreeSet<EntityId>,
    background: u32,
    camera: Pose,
) -> Vec<Box3d> {
    // World frame -> gz-rendering's camera frame.
    let view = Pose {
        position: Vec3::ZERO,
        orientation: SENSOR_TO_VIEW,
    }
    .compose(camera.inverse());
    let mut out = Vec::new();
    for ((label, model), group) in seen_groups(boxes, seen, background) {
        let frame = group[0].pose;
        // Every box's corners in the first visual's frame.
        let to_frame = frame.inverse();
        let (mut lo, mut hi) = (
            Vec3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY),
            Vec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY),
        );
        for b in &group {
            for c in corners(b) {
                let p = to_frame.transform_point(c);
                lo = Vec3::new(lo.x.min(p.x), lo.y.min(p.y), lo.z.min(p.z));
                hi = Vec3::new(hi.x.max(p.x), hi.y.max(p.y), hi.z.max(p.z));
            }
        }
        let in_view = view.compose(frame);
        out.push(Box3d {
            label,
            model,
            center: in_view.transform_point((lo + hi).scale(0.5)),
            orientation: in_view.orientation,
            size: hi - lo,
        });
    }
    out
}

/// The 12 edges of `b` as image points (clipped at `near`), for drawing.
pub fn projected_edges(b: &Box3d, model: &CameraModel, near: f64) -> Vec<[(f64, f64); 2]> {
    // The box back in the sensor frame.
    let to_sensor = Pose {
        position: Vec3::ZERO,
        orientation: SENSOR_TO_VIEW.inverse(),
    };
    let visual = VisualBox {
        visual: EntityId::NONE,
        model: b.model,
        label: b.label,
        center: Vec3::ZERO,
        half_extents: b.size.scale(0.5),
        pose: to_sensor.compose(Pose {
            position: b.center,
            orientation: b.orientation,
        }),
    };
    clipped_edges(&visual, Pose::IDENTITY, near)
        .into_iter()
        .filter_map(|(a, c)| Some([model.project(a)?, model.project(c)?]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_frame_looks_along_minus_z() {
        let r = |v: Vec3| SENSOR_TO_VIEW.rotate(v);
        let near = |a: Vec3, b: Vec3| (a - b).length() < 1e-12;
        assert!(near(r(Vec3::new(1.0, 0.0, 0.0)), Vec3::new(0.0, 0.0, -1.0)));
        assert!(near(r(Vec3::new(0.0, 1.0, 0.0)), Vec3::new(-1.0, 0.0, 0.0)));
        assert!(near(r(Vec3::new(0.0, 0.0, 1.0)), Vec3::new(0.0, 1.0, 0.0)));
    }

    #[test]
    fn edges_behind_the_near_plane_are_cut() {
        // A unit cube centred 0.25 m ahead: half of it is behind a 0.1 m near plane.
        let b = VisualBox {
            visual: EntityId(1),
            model: EntityId(2),
            label: 1,
            center: Vec3::ZERO,
            half_extents: Vec3::new(0.5, 0.5, 0.5),
            pose: Pose::from_xyz_rpy(0.25, 0.0, 0.0, 0.0, 0.0, 0.0),
        };
        let edges = clipped_edges(&b, Pose::IDENTITY, 0.1);
        // The 4 edges along x are cut, the 4 far ones kept, the 4 near ones dropped.
        assert_eq!(edges.len(), 8);
        assert!(
            edges
                .iter()
                .all(|(a, c)| a.x >= 0.1 - 1e-12 && c.x >= 0.1 - 1e-12)
        );
        assert_eq!(
            edges
                .iter()
                .filter(|(a, c)| (a.x - 0.1).abs() < 1e-12 || (c.x - 0.1).abs() < 1e-12)
                .count(),
            4
        );
    }
}
