//! The footprints of a scan: which rows and columns of its grid can meet each shape (see
//! the module docs of `scan`).

use super::super::Physics;
use super::super::convert::pose_from_rapier;
use super::super::query::CastSetup;
use super::super::ray_packet::gap_to_aabb;
use super::Angles;
use rapier3d::parry::bounding_volume::{Aabb, BoundingVolume};
use rapier3d::parry::partitioning::{BvhNode, BvhNodeIndex, TraversalAction};
use rapier3d::prelude::*;
use sim_plugin_api::{ScanAngles, ScanView, Vec3};
use std::f64::consts::{PI, TAU};
use std::sync::{Arc, OnceLock};

/// How much wider than the bounds worked out a footprint is, rad: far above the rounding
/// of the rays' directions (single precision) and of the boxes' corners.
const ANGLE_MARGIN: f64 = 1e-5;

/// How much larger than its shape's box the box a footprint is made from is, m.
const BOX_MARGIN: f64 = 1e-3;

/// Column spans a footprint holds at most (a grid that wraps around more than once may
/// need more: such a footprint takes every column).
const MAX_SPANS: usize = 3;

/// What the bands of one scan share: the grid's angles, its rotation, and the shapes seen
/// with their footprints.
pub(super) struct Footprints {
    pub(super) angles: Arc<OnceLock<Angles>>,
    /// The view's rotation matrix.
    pub(super) matrix: [[f64; 3]; 3],
    /// Shapes without a finite box (half-spaces), tested on every ray.
    pub(super) unbounded: Vec<ColliderHandle>,
    /// The other shapes the scan may see, nearest first.
    pub(super) shapes: Vec<Footprint>,
    /// Per row, the shapes whose footprint holds it, nearest first.
    pub(super) by_row: Vec<Vec<u32>>,
}

/// A shape and the part of the grid whose rays may meet it.
pub(super) struct Footprint {
    pub(super) handle: ColliderHandle,
    /// No ray meets it nearer than this to the sensor origin, m.
    pub(super) nearest: Real,
    /// First and last row.
    pub(super) rows: (u32, u32),
    /// Column spans (first, last); `spans` of them are used.
    pub(super) cols: [(u32, u32); MAX_SPANS],
    pub(super) spans: usize,
}

/// The grid of a view, for footprints.
struct Grid<'v> {
    view: &'v ScanView,
    /// The sensor origin, and the transpose of the view's rotation matrix (from the world
    /// into the sensor frame).
    origin: Vec3,
    to_sensor: [[f64; 3]; 3],
    /// The cosine of the steepest row: how much an angle across a column can shrink.
    min_cos: f64,
}

impl Physics {
    /// The footprints of `view` (see the module docs): the shapes of the ray trees the
    /// cast `setup` sees.
    pub(super) fn footprints(&self, view: &ScanView, setup: &CastSetup<'_>) -> Footprints {
        let sin_cos = |a: &ScanAngles| (0..a.samples).map(|i| a.angle(i).sin_cos()).collect();
        let angles = self.scans.grids.get(&(view.vertical, view.horizontal), || {
            let cols: Vec<(f64, f64)> = sin_cos(&view.horizontal);
            Angles {
                rows: sin_cos(&view.vertical),
                sin_h: cols.iter().map(|a| a.0).collect(),
                cos_h: cols.iter().map(|a| a.1).collect(),
            }
        });
        let steepest = (0..view.vertical.samples)
            .map(|i| view.vertical.angle(i).abs())
            .fold(0.0, f64::max);
        let matrix = view.pose.orientation.to_matrix();
        let grid = Grid {
            view,
            origin: view.pose.position,
            to_sensor: std::array::from_fn(|i| std::array::from_fn(|j| matrix[j][i])),
            min_cos: steepest.cos(),
        };
        let seen = |_: ColliderHandle, c: &Collider| setup.sees(c);
        let filter = setup.filter(&seen);
        let reach = view.start + f64::from(setup.max);
        let reach2 = (reach * reach) as Real;
        let origin = super::super::convert::vec_to_rapier(grid.origin);
        let mut prints = Footprints {
            angles,
            matrix,
            unbounded: Vec::new(),
            shapes: Vec::new(),
            by_row: vec![Vec::new(); view.vertical.samples as usize],
        };
        for tree in setup.trees {
            for &handle in &tree.unbounded {
                if let Some(c) = self.pw.colliders.get(handle)
                    && filter.test(&self.pw.bodies, handle, c)
                {
                    prints.unbounded.push(handle);
                }
            }
            let mut visit = |node: &BvhNode, _: BvhNodeIndex| {
                let aabb = node.aabb();
                let gap = gap_to_aabb(origin, &aabb);
                // (A NaN gap is out of reach too.)
                let within = gap <= reach2;
                if !within || grid.rows_of(&world_corners(&aabb)).is_none() {
                    return TraversalAction::Prune;
                }
                if let Some(leaf) = node.leaf_data()
                    && let Some(&(handle, leaf_box)) = tree.leaves.get(leaf as usize)
                    && let Some(c) = self.pw.colliders.get(handle)
                    && filter.test(&self.pw.bodies, handle, c)
                    && let Some(f) = grid.footprint(c, handle, &leaf_box)
                {
                    prints.shapes.push(f);
                }
                TraversalAction::Continue
            };
            tree.bvh.traverse_indexed(None, &mut visit);
        }
        prints
            .shapes
            .sort_unstable_by(|a, b| a.nearest.total_cmp(&b.nearest));
        for (k, f) in prints.shapes.iter().enumerate() {
            for row in &mut prints.by_row[f.rows.0 as usize..=f.rows.1 as usize] {
                row.push(k as u32);
            }
        }
        prints
    }
}

/// The eight corners of a world box.
fn world_corners(aabb: &Aabb) -> [Vec3; 8] {
    let (a, b) = (aabb.mins, aabb.maxs);
    std::array::from_fn(|i| {
        Vec3::new(
            f64::from(if i & 1 == 0 { a.x } else { b.x }),
            f64::from(if i & 2 == 0 { a.y } else { b.y }),
            f64::from(if i & 4 == 0 { a.z } else { b.z }),
        )
    })
}

/// The samples of `axis` whose angles lie in `[lo, hi]`: (first, last), if any.
fn samples_within(axis: &ScanAngles, lo: f64, hi: f64) -> Option<(u32, u32)> {
    let last = axis.samples.checked_sub(1)?;
    if axis.step == 0.0 || last == 0 {
        return (lo <= axis.min && axis.min <= hi).then_some((0, last));
    }
    let (a, b) = ((lo - axis.min) / axis.step, (hi - axis.min) / axis.step);
    let (a, b) = (
        a.min(b).ceil().max(0.0),
        a.max(b).floor().min(f64::from(last)),
    );
    (a <= b).then_some((a as u32, b as u32))
}

/// The distance from 0 to the interval `[lo, hi]`.
fn gap_1d(lo: f64, hi: f64) -> f64 {
    if lo > 0.0 {
        lo
    } else if hi < 0.0 {
        -hi
    } else {
        0.0
    }
}

impl Grid<'_> {
    /// `p` (world) in the sensor frame, relative to its origin.
    fn local(&self, p: Vec3) -> Vec3 {
        (p - self.origin).by_matrix(&self.to_sensor)
    }

    /// The rows whose elevations may meet the box of world `corners` (first, last), and the
    /// corners in the sensor frame with the box's nearest distance from the vertical axis;
    /// none when no row does.
    fn rows_of(&self, corners: &[Vec3; 8]) -> Option<((u32, u32), [Vec3; 8], f64)> {
        let local = corners.map(|p| self.local(p));
        let (mut lo, mut hi) = (local[0], local[0]);
        let mut far = 0.0f64;
        for p in &local {
            lo = Vec3::new(lo.x.min(p.x), lo.y.min(p.y), lo.z.min(p.z));
            hi = Vec3::new(hi.x.max(p.x), hi.y.max(p.y), hi.z.max(p.z));
            far = far.max(p.x * p.x + p.y * p.y);
        }
        let far = far.sqrt();
        let (gx, gy) = (gap_1d(lo.x, hi.x), gap_1d(lo.y, hi.y));
        let near = (gx * gx + gy * gy).sqrt();
        let top = hi.z.atan2(if hi.z > 0.0 { near } else { far });
        let bottom = lo.z.atan2(if lo.z < 0.0 { near } else { far });
        if !(top.is_finite() && bottom.is_finite()) {
            let last = self.view.vertical.samples.checked_sub(1)?;
            return Some(((0, last), local, 0.0));
        }
        let rows = samples_within(
            &self.view.vertical,
            bottom - ANGLE_MARGIN,
            top + ANGLE_MARGIN,
        )?;
        Some((rows, local, near))
    }

    /// The footprint of collider `c` (`handle`, its box in the ray tree `leaf_box`), if some
    /// ray of the grid may meet it.
    fn footprint(
        &self,
        c: &Collider,
        handle: ColliderHandle,
        leaf_box: &Aabb,
    ) -> Option<Footprint> {
        let pose = pose_from_rapier(c.position());
        let shape = super::super::leading::Leading::unwrap(c.shape());
        let local = shape.compute_local_aabb().loosened(BOX_MARGIN as Real);
        let corners = world_corners(&local).map(|p| pose.transform_point(p));
        let (rows, local, near) = self.rows_of(&corners)?;
        let h = &self.view.horizontal;
        let all = (0, h.samples.checked_sub(1)?);
        let mut cols = [all; MAX_SPANS];
        let mut spans = 1;
        // Across a column, an angle shrinks with the cosine of the row's elevation.
        let margin = ANGLE_MARGIN / self.min_cos.max(1e-9);
        if near > 0.0 && margin < 0.1 {
            // Seen from outside: the azimuths of the corners, about their middle one.
            let mid = local.iter().fold(Vec3::ZERO, |a, p| a + *p);
            let reference = mid.y.atan2(mid.x);
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for p in &local {
                let d = wrap(p.y.atan2(p.x) - reference);
                (lo, hi) = (lo.min(d), hi.max(d));
            }
            let (lo, hi) = (reference + lo - margin, reference + hi + margin);
            if lo.is_finite() && hi.is_finite() && hi - lo < PI {
                spans = columns(h, lo, hi, &mut cols)?;
            }
        }
        Some(Footprint {
            handle,
            // Rounding of the directions' length: never above a true hit distance.
            nearest: (gap_to_aabb(super::super::convert::vec_to_rapier(self.origin), leaf_box)
                .sqrt()
                * 0.9999
                - 1e-4)
                .max(0.0),
            rows,
            cols,
            spans,
        })
    }
}

/// `a` wrapped into `(-π, π]`.
fn wrap(a: f64) -> f64 {
    let w = a.rem_euclid(TAU);
    if w > PI { w - TAU } else { w }
}

/// The column spans of `h` whose angles lie in `[lo, hi]` or a whole turn from it, into
/// `out`: how many, or none if no column does. A grid that needs more than `out` holds
/// takes every column.
fn columns(h: &ScanAngles, lo: f64, hi: f64, out: &mut [(u32, u32); MAX_SPANS]) -> Option<usize> {
    let last = h.samples.checked_sub(1)?;
    let (a, b) = (h.min, h.angle(last));
    let (first, end) = (a.min(b), a.max(b));
    let turns = ((first - hi) / TAU).floor() as i64..=((end - lo) / TAU).ceil() as i64;
    let mut n = 0;
    for k in turns {
        let shift = k as f64 * TAU;
        if let Some(span) = samples_within(h, lo + shift, hi + shift) {
            if n == MAX_SPANS {
                out[0] = (0, last);
                return Some(1);
            }
            out[n] = span;
            n += 1;
        }
    }
    (n > 0).then_some(n)
}
