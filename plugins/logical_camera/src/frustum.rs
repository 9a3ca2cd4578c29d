//! The view frustum and the exact frustum-versus-box test.
//!
//! The camera looks along its +X axis, with +Y to the left and +Z up (the Gazebo
//! convention). In the camera frame the frustum is the truncated pyramid
//!
//! ```text
//! near <= x <= far,   |y| <= x tan(h/2),   |z| <= x tan(v/2),   tan(v/2) = tan(h/2) / aspect
//! ```
//!
//! bounded by six planes (near, far, left, right, top, bottom). [`Frustum`] holds that shape;
//! [`PosedFrustum`] places it in the world and answers [`PosedFrustum::intersects_aabb`].
//!
//! ## The intersection test
//!
//! Both the frustum and an axis-aligned box are convex polyhedra, so by the separating axis
//! theorem they are disjoint exactly when their projections on one of these axes do not
//! overlap:
//!
//! - the box's three face normals (the world X, Y and Z axes);
//! - the frustum's five distinct face normals (near and far share one);
//! - the 18 cross products of the box's three edge directions with the frustum's six
//!   (the camera's Y and Z axes, along the near and far rectangles, and the four lateral
//!   edges from the apex through the corners).
//!
//! The frustum's extent on each axis is computed once per pose from its eight corners, so
//! judging a box costs a few multiply-adds per axis. Testing only the six frustum planes
//! would report a box that lies outside the frustum near one of its edges or corners but on
//! the inner side of every plane; the box-normal and edge-cross axes reject it.
//!
//! Boxes may be unbounded (an axis-aligned infinite plane gives a half-space box with `±inf`
//! bounds): a projection skips the zero components of the axis, so it never forms
//! `0 * inf`, and an unbounded side simply never separates. Touching counts as intersecting.
//! Cross products shorter than 1e-6 (box edge parallel to a frustum edge) are skipped: they
//! give no new direction. A box with a NaN bound or `min > max` intersects nothing.

use crate::config::LogicalCameraConfig;
use sim_plugin_api::{Aabb, Pose, Vec3};

/// The frustum's shape, in the camera frame.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Frustum {
    /// Near clip distance along +X, m.
    pub near: f64,
    /// Far clip distance along +X, m.
    pub far: f64,
    /// `tan(horizontal_fov / 2)`: half-width over distance.
    pub tan_half_h: f64,
    /// `tan(vertical_fov / 2) = tan_half_h / aspect_ratio`: half-height over distance.
    pub tan_half_v: f64,
}

/// Separating axes of a frustum and a box: 3 + 5 + 3 * 6.
const MAX_AXES: usize = 26;

/// A frustum placed in the world, ready to be tested against many boxes.
#[derive(Clone, Debug)]
pub struct PosedFrustum {
    corners: [Vec3; 8],
    bounds: Aabb,
    /// Candidate separating axes other than the world axes (those are `bounds`).
    axes: [Vec3; MAX_AXES],
    /// The frustum's projection on each axis, `[min, max]`.
    extents: [[f64; 2]; MAX_AXES],
    count: usize,
}

impl Frustum {
    /// The frustum of a (validated) configuration.
    pub fn new(config: &LogicalCameraConfig) -> Frustum {
        let tan_half_h = (config.horizontal_fov * 0.5).tan();
        Frustum {
            near: config.near,
            far: config.far,
            tan_half_h,
            tan_half_v: tan_half_h / config.aspect_ratio,
        }
    }

    /// The eight corners in the camera frame: the near rectangle, then the far one, each in
    /// the order (+y +z), (-y +z), (-y -z), (+y -z). With `near = 0` the first four are the
    /// apex.
    pub fn corners(&self) -> [Vec3; 8] {
        let rect = |d: f64| {
            let (y, z) = (d * self.tan_half_h, d * self.tan_half_v);
            [
                Vec3::new(d, y, z),
                Vec3::new(d, -y, z),
                Vec3::new(d, -y, -z),
                Vec3::new(d, y, -z),
            ]
        };
        let [a, b, c, d] = rect(self.near);
        let [e, f, g, h] = rect(self.far);
        [a, b, c, d, e, f, g, h]
    }

    /// Whether a point given in the camera frame is inside (boundary included).
    pub fn contains(&self, p: Vec3) -> bool {
        p.x >= self.near
            && p.x <= self.far
            && p.y.abs() <= p.x * self.tan_half_h
            && p.z.abs() <= p.x * self.tan_half_v
    }

    /// Outward normals of the five distinct faces in the camera frame (not unit length):
    /// far (the near face's is its opposite), left, right, top, bottom.
    pub fn face_normals(&self) -> [Vec3; 5] {
        let (th, tv) = (self.tan_half_h, self.tan_half_v);
        [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(-th, 1.0, 0.0),
            Vec3::new(-th, -1.0, 0.0),
            Vec3::new(-tv, 0.0, 1.0),
            Vec3::new(-tv, 0.0, -1.0),
        ]
    }

    /// Directions of the six distinct edge families in the camera frame (unit length): along
    /// the rectangles (Y, Z), and the four lateral edges through the corners.
    pub fn edge_directions(&self) -> [Vec3; 6] {
        let (th, tv) = (self.tan_half_h, self.tan_half_v);
        [
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(1.0, th, tv).normalized(),
            Vec3::new(1.0, -th, tv).normalized(),
            Vec3::new(1.0, -th, -tv).normalized(),
            Vec3::new(1.0, th, -tv).normalized(),
        ]
    }

    /// This frustum seen from a camera at `pose` (camera frame to world).
    pub fn posed(&self, pose: Pose) -> PosedFrustum {
        let q = pose.orientation.normalized();
        let corners = self.corners().map(|c| pose.position + q.rotate(c));
        let mut bounds = Aabb {
            min: corners[0],
            max: corners[0],
        };
        for c in &corners[1..] {
            bounds.min = Vec3::new(
                bounds.min.x.min(c.x),
                bounds.min.y.min(c.y),
                bounds.min.z.min(c.z),
            );
            bounds.max = Vec3::new(
                bounds.max.x.max(c.x),
                bounds.max.y.max(c.y),
                bounds.max.z.max(c.z),
            );
        }
        let mut f = PosedFrustum {
            corners,
            bounds,
            axes: [Vec3::ZERO; MAX_AXES],
            extents: [[0.0; 2]; MAX_AXES],
            count: 0,
        };
        // Face normals first: they reject most boxes.
        for n in self.face_normals() {
            f.push_axis(q.rotate(n));
        }
        for e in self.edge_directions() {
            let e = q.rotate(e);
            // The box edges are the world axes; write the cross products out so that the
            // component along the box edge is exactly zero.
            f.push_axis(Vec3::new(0.0, -e.z, e.y)); // X x e
            f.push_axis(Vec3::new(e.z, 0.0, -e.x)); // Y x e
            f.push_axis(Vec3::new(-e.y, e.x, 0.0)); // Z x e
        }
        f
    }
}

impl PosedFrustum {
    /// Adds a candidate axis (skipped when degenerate) with the frustum's extent on it.
    fn push_axis(&mut self, axis: Vec3) {
        if axis.dot(axis) < 1e-12 {
            return;
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for c in &self.corners {
            let d = axis.dot(*c);
            lo = lo.min(d);
            hi = hi.max(d);
        }
        self.axes[self.count] = axis;
        self.extents[self.count] = [lo, hi];
        self.count += 1;
    }

    /// The eight corners in the world (order as [`Frustum::corners`]).
    pub fn corners(&self) -> &[Vec3; 8] {
        &self.corners
    }

    /// The world AABB of the frustum (for the broad phase).
    pub fn bounding_box(&self) -> Aabb {
        self.bounds
    }

    /// How many separating axes besides the world axes are tested (at most 23: fewer when a
    /// frustum edge is parallel to a world axis).
    pub fn axis_count(&self) -> usize {
        self.count
    }

    /// Whether the frustum and the world box `b` intersect (boundaries touching count), by
    /// the separating axis theorem (see the [module docs](self)). `b` may have infinite
    /// bounds.
    pub fn intersects_aabb(&self, b: &Aabb) -> bool {
        let (min, max) = (b.min, b.max);
        // NaN bounds fail these comparisons, so such boxes are rejected here too.
        if !(min.x <= max.x && min.y <= max.y && min.z <= max.z) {
            return false;
        }
        // The box's face normals: plain interval overlap with the frustum's bounds.
        let f = &self.bounds;
        if max.x < f.min.x
            || min.x > f.max.x
            || max.y < f.min.y
            || min.y > f.max.y
            || max.z < f.min.z
            || min.z > f.max.z
        {
            return false;
        }
        for (axis, [lo, hi]) in self.axes[..self.count].iter().zip(&self.extents) {
            let (blo, bhi) = project_box(*axis, min, max);
            if bhi < *lo || blo > *hi {
                return false;
            }
        }
        true
    }
}

/// `[min, max]` of `axis · p` over the box; zero components are skipped so that infinite
/// bounds never meet a zero factor.
#[inline]
fn project_box(axis: Vec3, min: Vec3, max: Vec3) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0, 0.0);
    for (a, mn, mx) in [
        (axis.x, min.x, max.x),
        (axis.y, min.y, max.y),
        (axis.z, min.z, max.z),
    ] {
        if a > 0.0 {
            lo += a * mn;
            hi += a * mx;
        } else if a < 0.0 {
            lo += a * mx;
            hi += a * mn;
        }
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::Quat;
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

    fn tutorial() -> Frustum {
        Frustum::new(&LogicalCameraConfig {
            near: 0.55,
            far: 2.5,
            horizontal_fov: 1.05,
            aspect_ratio: 1.8,
        })
    }

    fn cube(c: Vec3, half: f64) -> Aabb {
        Aabb {
            min: c - Vec3::new(half, half, half),
            max: c + Vec3::new(half, half, half),
        }
    }

    fn aabb(min: [f64; 3], max: [f64; 3]) -> Aabb {
        Aabb {
            min: Vec3::new(min[0], min[1], min[2]),
            max: Vec3::new(max[0], max[1], max[2]),
        }
    }

    /// Brute force: whether any point of a fine grid over the (finite) box is in the frustum.
    fn sampled(f: &Frustum, pose: Pose, b: &Aabb, n: usize) -> bool {
        let inv = pose.inverse();
        let lerp = |a: f64, b: f64, t: usize| a + (b - a) * t as f64 / n as f64;
        for i in 0..=n {
            for j in 0..=n {
                for k in 0..=n {
                    let p = Vec3::new(
                        lerp(b.min.x, b.max.x, i),
                        lerp(b.min.y, b.max.y, j),
                        lerp(b.min.z, b.max.z, k),
                    );
                    if f.contains(inv.transform_point(p)) {
                        return true;
                    }
                }
            }
        }
        false
    }

    #[test]
    fn vertical_fov_from_aspect() {
        let f = tutorial();
        assert!((f.tan_half_h - 0.525f64.tan()).abs() < 1e-15);
        assert!((f.tan_half_v - 0.525f64.tan() / 1.8).abs() < 1e-15);
        let c = f.corners();
        assert_eq!(c[0].x, 0.55);
        assert_eq!(c[6].x, 2.5);
        assert!((c[4].y - 2.5 * f.tan_half_h).abs() < 1e-15);
        assert!((c[6].z + 2.5 * f.tan_half_v).abs() < 1e-15);
        for corner in c {
            assert!(f.contains(corner));
        }
    }

    #[test]
    fn posed_corners_and_bounds() {
        let f = tutorial();
        // Yawed pi at (0, 0, 1): looks along world -X.
        let p = f.posed(Pose::from_xyz_rpy(0.0, 0.0, 1.0, 0.0, 0.0, PI));
        let b = p.bounding_box();
        assert!((b.min.x + 2.5).abs() < 1e-12 && (b.max.x + 0.55).abs() < 1e-12);
        assert!((b.max.y - 2.5 * f.tan_half_h).abs() < 1e-12);
        assert!((b.min.z - (1.0 - 2.5 * f.tan_half_v)).abs() < 1e-12);
        // Aligned with the world: the edge crosses along the world axes collapse.
        assert_eq!(p.axis_count(), 5 + 4 * 3 + 2 * 2);
        let q = f.posed(Pose::from_xyz_rpy(0.0, 0.0, 0.0, 0.1, 0.2, 0.3));
        assert_eq!(q.axis_count(), 23);
    }

    #[test]
    fn boxes_in_front_behind_and_around() {
        let f = tutorial();
        let p = f.posed(Pose::IDENTITY);
        assert!(p.intersects_aabb(&cube(Vec3::new(1.5, 0.0, 0.0), 0.1)));
        // A box containing the whole frustum.
        assert!(p.intersects_aabb(&cube(Vec3::ZERO, 100.0)));
        // A box inside the frustum.
        assert!(p.intersects_aabb(&cube(Vec3::new(2.0, 0.0, 0.0), 0.01)));
        // Behind, too near, too far, left, right, above, below.
        assert!(!p.intersects_aabb(&cube(Vec3::new(-1.0, 0.0, 0.0), 0.3)));
        assert!(!p.intersects_aabb(&cube(Vec3::new(0.2, 0.0, 0.0), 0.3)));
        assert!(!p.intersects_aabb(&cube(Vec3::new(3.0, 0.0, 0.0), 0.3)));
        assert!(!p.intersects_aabb(&cube(Vec3::new(1.0, 2.0, 0.0), 0.3)));
        assert!(!p.intersects_aabb(&cube(Vec3::new(1.0, -2.0, 0.0), 0.3)));
        assert!(!p.intersects_aabb(&cube(Vec3::new(1.0, 0.0, 1.0), 0.3)));
        assert!(!p.intersects_aabb(&cube(Vec3::new(1.0, 0.0, -1.0), 0.3)));
    }

    #[test]
    fn just_inside_and_just_outside_each_plane() {
        let f = tutorial();
        let p = f.posed(Pose::IDENTITY);
        let (th, tv) = (f.tan_half_h, f.tan_half_v);
        let e = 1e-9;
        let h = 0.05;
        // (box outside by e, box inside by e) for each plane.
        let pairs = [
            // near: box ends just before / after x = near
            (
                aabb([0.3, -h, -h], [0.55 - e, h, h]),
                aabb([0.3, -h, -h], [0.55 + e, h, h]),
            ),
            // far
            (
                aabb([2.5 + e, -h, -h], [2.8, h, h]),
                aabb([2.5 - e, -h, -h], [2.8, h, h]),
            ),
            // left: the box's nearest corner is (max x, min y)
            (
                aabb([1.4, 1.5 * th + e, -h], [1.5, 2.0, h]),
                aabb([1.4, 1.5 * th - e, -h], [1.5, 2.0, h]),
            ),
            // right
            (
                aabb([1.4, -2.0, -h], [1.5, -1.5 * th - e, h]),
                aabb([1.4, -2.0, -h], [1.5, -1.5 * th + e, h]),
            ),
            // top
            (
                aabb([1.4, -h, 1.5 * tv + e], [1.5, h, 2.0]),
                aabb([1.4, -h, 1.5 * tv - e], [1.5, h, 2.0]),
            ),
            // bottom
            (
                aabb([1.4, -h, -2.0], [1.5, h, -1.5 * tv - e]),
                aabb([1.4, -h, -2.0], [1.5, h, -1.5 * tv + e]),
            ),
        ];
        for (i, (outside, inside)) in pairs.iter().enumerate() {
            assert!(
                !p.intersects_aabb(outside),
                "plane {i}: outside box reported"
            );
            assert!(p.intersects_aabb(inside), "plane {i}: inside box missed");
        }
    }

    /// What a test of the six frustum planes alone answers: the box is rejected only when it
    /// lies wholly on the outer side of one plane.
    fn planes_only(f: &Frustum, pose: Pose, b: &Aabb) -> bool {
        let q = pose.orientation;
        let [far, left, right, top, bottom] = f.face_normals();
        let apex = pose.position;
        let near_point = pose.transform_point(Vec3::new(f.near, 0.0, 0.0));
        let far_point = pose.transform_point(Vec3::new(f.far, 0.0, 0.0));
        let planes = [
            (q.rotate(-far), near_point),
            (q.rotate(far), far_point),
            (q.rotate(left), apex),
            (q.rotate(right), apex),
            (q.rotate(top), apex),
            (q.rotate(bottom), apex),
        ];
        planes.iter().all(|(n, point)| {
            let (lo, _) = project_box(*n, b.min, b.max);
            lo <= n.dot(*point)
        })
    }

    /// The case a plane-only test gets wrong: a box beyond the frustum's top-left far corner,
    /// outside the frustum but straddling the planes so that no single plane has all of it on
    /// its outer side.
    #[test]
    fn box_beyond_a_corner_is_not_reported() {
        let f = tutorial();
        let p = f.posed(Pose::IDENTITY);
        let corner = f.corners()[4]; // far, +y, +z
        // A box just beyond the corner, diagonally outwards, reaching back past the far plane.
        let b = Aabb {
            min: corner + Vec3::new(-0.3, 0.05, 0.05),
            max: corner + Vec3::new(0.3, 0.6, 0.6),
        };
        // Every plane has part of the box on its inner side...
        assert!(planes_only(&f, Pose::IDENTITY, &b));
        // ...yet the box is outside, and the SAT test says so.
        assert!(!sampled(&f, Pose::IDENTITY, &b, 40));
        assert!(!p.intersects_aabb(&b));
        // Moved onto the corner it is seen.
        let touching = Aabb {
            min: corner - Vec3::new(0.01, 0.01, 0.01),
            max: corner + Vec3::new(0.3, 0.6, 0.6),
        };
        assert!(p.intersects_aabb(&touching));
    }

    /// Checks the exact test against brute force: a sampled point inside means the test must
    /// report the box; a report without a sampled point must be a sliver thinner than the
    /// sampling grid (found again on the box grown by `grow`).
    fn check_against_sampling(f: &Frustum, pose: Pose, b: &Aabb, n: usize, grow: f64) -> bool {
        let exact = f.posed(pose).intersects_aabb(b);
        if sampled(f, pose, b, n) {
            assert!(exact, "box {b:?} has a point inside but was rejected");
        } else if exact {
            let g = Vec3::new(grow, grow, grow);
            let grown = Aabb {
                min: b.min - g,
                max: b.max + g,
            };
            assert!(
                sampled(f, pose, &grown, n),
                "box {b:?} reported but no point of it is near the frustum"
            );
        }
        exact
    }

    /// The same near a lateral edge of a rotated frustum, where only an edge-cross axis
    /// separates: boxes the six planes let through are rejected.
    #[test]
    fn box_near_an_edge_of_a_rotated_frustum() {
        let f = tutorial();
        let pose = Pose::new(
            Vec3::new(0.3, -0.2, 1.0),
            Quat::from_rpy(0.2, -0.3, FRAC_PI_4),
        );
        // Walk a small cube outward from the middle of the +y+z lateral edge, along the
        // bisector of the two faces meeting there.
        let mid = pose.transform_point(f.corners()[0].scale(0.5) + f.corners()[4].scale(0.5));
        let normals = f.face_normals();
        let out = pose
            .orientation
            .rotate(normals[1].normalized() + normals[3].normalized())
            .normalized();
        let (mut seen, mut unseen, mut planes_wrong) = (0, 0, 0);
        for k in 0..40 {
            let c = mid + out.scale(0.005 * k as f64);
            let b = cube(c, 0.05);
            if check_against_sampling(&f, pose, &b, 24, 0.01) {
                seen += 1;
            } else {
                unseen += 1;
                if planes_only(&f, pose, &b) {
                    planes_wrong += 1;
                }
            }
        }
        assert!(seen > 0 && unseen > 0, "{seen} seen, {unseen} unseen");
        assert!(
            planes_wrong > 0,
            "no step where the six planes alone report an outside box"
        );
    }

    #[test]
    fn random_boxes_agree_with_brute_force() {
        // A small deterministic generator: no dependency needed.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let f = Frustum::new(&LogicalCameraConfig {
            near: 0.3,
            far: 2.0,
            horizontal_fov: 1.2,
            aspect_ratio: 1.3,
        });
        let pose = Pose::from_xyz_rpy(0.1, 0.2, 0.3, 0.4, -0.5, 2.0);
        let (mut hits, mut misses, mut planes_wrong) = (0, 0, 0);
        for _ in 0..400 {
            let c = Vec3::new(next() * 5.0 - 2.5, next() * 5.0 - 2.5, next() * 5.0 - 2.2);
            let half = Vec3::new(
                next() * 0.3 + 0.01,
                next() * 0.3 + 0.01,
                next() * 0.3 + 0.01,
            );
            let b = Aabb {
                min: c - half,
                max: c + half,
            };
            if check_against_sampling(&f, pose, &b, 12, 0.06) {
                hits += 1;
            } else {
                misses += 1;
                planes_wrong += usize::from(planes_only(&f, pose, &b));
            }
        }
        assert!(hits > 20 && misses > 20, "{hits} hits, {misses} misses");
        // Plane-only testing would have reported some of the misses.
        assert!(planes_wrong > 0);
    }

    #[test]
    fn infinite_planes() {
        let inf = f64::INFINITY;
        let ground = aabb([-inf, -inf, -inf], [inf, inf, 0.0]);
        let f = tutorial();
        // Level at z = 1: the frustum's bottom is at 1 - 2.5 tan(v/2) = 0.19 > 0.
        let level = f.posed(Pose::from_xyz_rpy(0.0, 0.0, 1.0, 0.0, 0.0, PI));
        assert!(!level.intersects_aabb(&ground));
        // Just above and just below: the far bottom edge decides.
        let drop = 2.5 * f.tan_half_v;
        let above = f.posed(Pose::from_xyz_rpy(0.0, 0.0, drop + 1e-9, 0.0, 0.0, 0.7));
        let below = f.posed(Pose::from_xyz_rpy(0.0, 0.0, drop - 1e-9, 0.0, 0.0, 0.7));
        assert!(!above.intersects_aabb(&ground));
        assert!(below.intersects_aabb(&ground));
        // Pitched down (positive pitch looks down).
        let down = f.posed(Pose::from_xyz_rpy(0.0, 0.0, 1.0, 0.0, 0.6, 0.3));
        assert!(down.intersects_aabb(&ground));
        // A ceiling (normal -z) at z = 3 and a wall (normal +x) at x = -1.
        let ceiling = aabb([-inf, -inf, 3.0], [inf, inf, inf]);
        assert!(!down.intersects_aabb(&ceiling));
        let up = f.posed(Pose::from_xyz_rpy(0.0, 0.0, 1.0, 0.0, -1.2, 0.0));
        assert!(up.intersects_aabb(&ceiling));
        let wall = aabb([-inf, -inf, -inf], [-1.0, inf, inf]);
        assert!(level.intersects_aabb(&wall));
        assert!(!f.posed(Pose::IDENTITY).intersects_aabb(&wall));
        // Fully infinite box.
        let all = aabb([-inf; 3], [inf; 3]);
        assert!(level.intersects_aabb(&all));
    }

    #[test]
    fn invalid_boxes_are_never_seen() {
        let p = tutorial().posed(Pose::IDENTITY);
        let nan = f64::NAN;
        assert!(!p.intersects_aabb(&aabb([nan, 0.0, 0.0], [1.0, 1.0, 1.0])));
        assert!(!p.intersects_aabb(&aabb([2.0, 0.1, 0.1], [1.0, -0.1, -0.1])));
        // A degenerate (flat) box still counts.
        assert!(p.intersects_aabb(&aabb([1.0, -0.1, -0.1], [1.0, 0.1, 0.1])));
    }

    #[test]
    fn zero_near_and_wide_fov() {
        let f = Frustum::new(&LogicalCameraConfig {
            near: 0.0,
            far: 1.0,
            horizontal_fov: PI - 1e-3,
            aspect_ratio: 1.0,
        });
        let c = f.corners();
        assert_eq!(c[0], Vec3::ZERO);
        assert_eq!(c[2], Vec3::ZERO);
        let p = f.posed(Pose::from_xyz_rpy(0.0, 0.0, 0.0, 0.0, 0.0, FRAC_PI_2));
        // Looks along +Y: almost a half-space y >= 0 up to 1 m.
        assert!(p.intersects_aabb(&cube(Vec3::new(50.0, 0.5, 0.0), 0.1)));
        assert!(!p.intersects_aabb(&cube(Vec3::new(0.0, -0.5, 0.0), 0.1)));
        assert!(p.intersects_aabb(&cube(Vec3::ZERO, 1e-6)));
    }
}
