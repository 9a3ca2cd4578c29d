//! The pinhole camera model: intrinsics, Brown-Conrady distortion, projection of points and
//! the ray through each pixel.
//!
//! # Conventions
//!
//! - **Frames.** The sensor frame is SDF's: x forward (the optical axis), y left, z up. The
//!   optical frame of `camera_info` is ROS's: x right, y down, z forward. A point `(x, y, z)`
//!   in the sensor frame is `(-y, -z, x)` in the optical frame.
//! - **Pixels.** Image coordinates `(u, v)` are those of K: `u = fx·X/Z + s·Y/Z + cx`,
//!   `v = fy·Y/Z + cy` (optical frame). Pixel `(i, j)` (column i from the left, row j from
//!   the top) covers `u ∈ [i, i+1)`, `v ∈ [j, j+1)`, and its ray passes through its centre
//!   `(i + ½, j + ½)`. This is the convention of a rasterising renderer and of gz-sensors,
//!   whose default `cx = W/2, cy = H/2` puts the optical axis at the image centre, on the
//!   corner between the four middle pixels. A point projecting to `(u, v)` is seen in pixel
//!   `(⌊u⌋, ⌊v⌋)`. (OpenCV's convention puts pixel centres at whole numbers; with it the same
//!   K is half a pixel off, exactly as with Gazebo's images.)
//! - **Distortion.** Brown-Conrady (OpenCV's plumb_bob) applied to the normalised coordinates
//!   `a = (u - cu)/fx`, `b = (v - cv)/fy` about the distortion centre `(cu, cv)` = `<center>`
//!   × (W, H): `r² = a² + b²`, `a' = a(1 + k1 r² + k2 r⁴ + k3 r⁶) + 2 p1 a b + p2 (r² + 2a²)`,
//!   `b' = b(1 + …) + p1 (r² + 2b²) + 2 p2 a b`. With the default centre (0.5, 0.5) and
//!   default intrinsics, `(cu, cv) = (cx, cy)` and `camera_info`'s plumb_bob coefficients
//!   describe the image exactly. Rays go through distorted pixel centres: the model is
//!   inverted per pixel once (fixed-point iteration) and the directions are cached.

use sim_plugin_api::abi_stable::std_types::RVec;
use sim_plugin_api::{CameraInfo, SharedStr, Vec3};

/// Pinhole intrinsics in pixels (`<lens><intrinsics>`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Intrinsics {
    /// Focal length along u.
    pub fx: f64,
    /// Focal length along v.
    pub fy: f64,
    /// Principal point u.
    pub cx: f64,
    /// Principal point v.
    pub cy: f64,
    /// Skew.
    pub s: f64,
}

impl Intrinsics {
    /// The symmetric pinhole of a `width` × `height` image with horizontal field of view
    /// `hfov` (rad): fx = fy = W / (2 tan(hfov / 2)), cx = W / 2, cy = H / 2.
    pub fn from_hfov(width: u32, height: u32, hfov: f64) -> Intrinsics {
        let f = f64::from(width) / (2.0 * (hfov / 2.0).tan());
        Intrinsics {
            fx: f,
            fy: f,
            cx: f64::from(width) / 2.0,
            cy: f64::from(height) / 2.0,
            s: 0.0,
        }
    }
}

/// The projection of the rectified image (`<lens><projection>`): camera_info's P, in pixels.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Projection {
    /// `p_fx`: focal length along u.
    pub fx: f64,
    /// `p_fy`: focal length along v.
    pub fy: f64,
    /// `p_cx`: principal point u.
    pub cx: f64,
    /// `p_cy`: principal point v.
    pub cy: f64,
    /// `tx`: P's translation term along u (`-fx·baseline` for the right camera of a stereo
    /// pair).
    pub tx: f64,
    /// `ty`: P's translation term along v.
    pub ty: f64,
}

impl Projection {
    /// The pinhole intrinsics the image is rendered with when the projection is given: P's
    /// focal lengths and principal point, no skew (gz-sensors'
    /// `CameraSensor::UpdateLensIntrinsicsAndProjection` builds the render matrix from them
    /// with `s = 0`).
    pub fn intrinsics(&self) -> Intrinsics {
        Intrinsics {
            fx: self.fx,
            fy: self.fy,
            cx: self.cx,
            cy: self.cy,
            s: 0.0,
        }
    }

    /// camera_info's P (3×4, row-major): `[fx 0 cx tx; 0 fy cy ty; 0 0 1 0]`.
    pub fn matrix(&self) -> [f64; 12] {
        [
            self.fx, 0.0, self.cx, self.tx, 0.0, self.fy, self.cy, self.ty, 0.0, 0.0, 1.0, 0.0,
        ]
    }
}

/// Brown-Conrady distortion (`<distortion>`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Distortion {
    /// Radial coefficient of r².
    pub k1: f64,
    /// Radial coefficient of r⁴.
    pub k2: f64,
    /// Radial coefficient of r⁶.
    pub k3: f64,
    /// First tangential coefficient.
    pub p1: f64,
    /// Second tangential coefficient.
    pub p2: f64,
    /// Distortion centre as fractions of the image width and height.
    pub center: [f64; 2],
}

impl Distortion {
    /// No distortion.
    pub const NONE: Distortion = Distortion {
        k1: 0.0,
        k2: 0.0,
        k3: 0.0,
        p1: 0.0,
        p2: 0.0,
        center: [0.5, 0.5],
    };

    /// Whether it changes anything.
    pub fn is_active(&self) -> bool {
        [self.k1, self.k2, self.k3, self.p1, self.p2]
            .iter()
            .any(|&k| k != 0.0)
    }

    /// The distorted normalised coordinates of `(a, b)`.
    #[inline]
    pub fn apply(&self, a: f64, b: f64) -> (f64, f64) {
        let r2 = a * a + b * b;
        let radial = 1.0 + r2 * (self.k1 + r2 * (self.k2 + r2 * self.k3));
        (
            a * radial + 2.0 * self.p1 * a * b + self.p2 * (r2 + 2.0 * a * a),
            b * radial + self.p1 * (r2 + 2.0 * b * b) + 2.0 * self.p2 * a * b,
        )
    }

    /// The undistorted normalised coordinates whose distortion is `(ad, bd)`, or `None` where
    /// the model cannot be inverted (far outside its valid region).
    pub fn invert(&self, ad: f64, bd: f64) -> Option<(f64, f64)> {
        let (mut a, mut b) = (ad, bd);
        for _ in 0..100 {
            let r2 = a * a + b * b;
            let radial = 1.0 + r2 * (self.k1 + r2 * (self.k2 + r2 * self.k3));
            if !(radial.is_finite() && radial > 1e-6) {
                return None;
            }
            let dx = 2.0 * self.p1 * a * b + self.p2 * (r2 + 2.0 * a * a);
            let dy = self.p1 * (r2 + 2.0 * b * b) + 2.0 * self.p2 * a * b;
            let (na, nb) = ((ad - dx) / radial, (bd - dy) / radial);
            let done = (na - a).abs() < 1e-13 && (nb - b).abs() < 1e-13;
            (a, b) = (na, nb);
            if done {
                break;
            }
        }
        let (ra, rb) = self.apply(a, b);
        ((ra - ad).abs() < 1e-9 && (rb - bd).abs() < 1e-9).then_some((a, b))
    }
}

/// A pinhole camera with distortion: image size, intrinsics and distortion.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CameraModel {
    /// Image width, pixels.
    pub width: u32,
    /// Image height, pixels.
    pub height: u32,
    /// Intrinsics.
    pub intrinsics: Intrinsics,
    /// Distortion.
    pub distortion: Distortion,
}

impl CameraModel {
    /// The `camera_info` of this model (plumb_bob distortion, identity rectification).
    pub fn camera_info(&self) -> CameraInfo {
        let (k, p, d) = self.calibration();
        CameraInfo {
            width: self.width,
            height: self.height,
            distortion_model: SharedStr::new("plumb_bob"),
            distortion: RVec::from(d.to_vec()),
            intrinsics: k,
            rectification: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            projection: p,
        }
    }

    /// The distortion centre in pixels.
    fn center(&self) -> (f64, f64) {
        (
            self.distortion.center[0] * f64::from(self.width),
            self.distortion.center[1] * f64::from(self.height),
        )
    }

    /// Where a point given in the **sensor** frame appears in the image: `(u, v)` in pixels
    /// (see the module docs), or `None` when it is not in front of the camera.
    pub fn project(&self, p: Vec3) -> Option<(f64, f64)> {
        let (x, y, z) = (-p.y, -p.z, p.x);
        if z <= 0.0 {
            return None;
        }
        let k = self.intrinsics;
        let (xn, yn) = (x / z, y / z);
        let u = k.fx * xn + k.s * yn + k.cx;
        let v = k.fy * yn + k.cy;
        if !self.distortion.is_active() {
            return Some((u, v));
        }
        let (cu, cv) = self.center();
        let (a, b) = self.distortion.apply((u - cu) / k.fx, (v - cv) / k.fy);
        Some((cu + a * k.fx, cv + b * k.fy))
    }

    /// The unit direction, in the sensor frame, of the ray through image point `(u, v)`
    /// (distorted image coordinates), or `None` where the distortion cannot be inverted.
    pub fn direction(&self, u: f64, v: f64) -> Option<Vec3> {
        let k = self.intrinsics;
        let (u, v) = if self.distortion.is_active() {
            let (cu, cv) = self.center();
            let (a, b) = self.distortion.invert((u - cu) / k.fx, (v - cv) / k.fy)?;
            (cu + a * k.fx, cv + b * k.fy)
        } else {
            (u, v)
        };
        let yn = (v - k.cy) / k.fy;
        let xn = (u - k.cx - k.s * yn) / k.fx;
        Some(Vec3::new(1.0, -xn, -yn).normalized())
    }

    /// The ray directions through every pixel centre, row-major from the top-left (index
    /// `j * width + i`); `Vec3::ZERO` for pixels whose ray does not exist.
    pub fn pixel_directions(&self) -> Vec<Vec3> {
        let mut out = Vec::with_capacity(self.width as usize * self.height as usize);
        for j in 0..self.height {
            for i in 0..self.width {
                out.push(
                    self.direction(f64::from(i) + 0.5, f64::from(j) + 0.5)
                        .unwrap_or(Vec3::ZERO),
                );
            }
        }
        out
    }

    /// The `camera_info` matrices: K (3×3), P (3×4, no baseline) and the plumb_bob
    /// coefficients `[k1, k2, p1, p2, k3]`.
    pub fn calibration(&self) -> ([f64; 9], [f64; 12], [f64; 5]) {
        let k = self.intrinsics;
        let d = self.distortion;
        (
            [k.fx, k.s, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0],
            [
                k.fx, k.s, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0,
            ],
            [d.k1, d.k2, d.p1, d.p2, d.k3],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(distortion: Distortion) -> CameraModel {
        CameraModel {
            width: 320,
            height: 240,
            intrinsics: Intrinsics::from_hfov(320, 240, 1.047),
            distortion,
        }
    }

    #[test]
    fn default_intrinsics_follow_the_field_of_view() {
        let half = 1.047f64 / 2.0;
        let k = Intrinsics::from_hfov(320, 240, 1.047);
        assert!((k.fx - 160.0 / half.tan()).abs() < 1e-9);
        assert_eq!((k.fy, k.cx, k.cy, k.s), (k.fx, 160.0, 120.0, 0.0));
        // The edge of the field of view projects to the image edge.
        let m = model(Distortion::NONE);
        let edge = Vec3::new(half.cos(), -half.sin(), 0.0);
        let (u, v) = m.project(edge).unwrap();
        assert!((u - 320.0).abs() < 1e-9 && (v - 120.0).abs() < 1e-9);
        // Up in the world is up in the image (smaller v); left is smaller u.
        let (u, v) = m.project(Vec3::new(1.0, 0.1, 0.1)).unwrap();
        assert!(u < 160.0 && v < 120.0);
        assert!(m.project(Vec3::new(-1.0, 0.0, 0.0)).is_none());
    }

    #[test]
    fn directions_and_projection_are_inverse_with_and_without_distortion() {
        let d = Distortion {
            k1: -0.25,
            k2: 0.12,
            k3: -0.01,
            p1: 0.001,
            p2: -0.002,
            center: [0.5, 0.5],
        };
        for m in [model(Distortion::NONE), model(d)] {
            for &(u, v) in &[(0.5, 0.5), (160.0, 120.0), (300.25, 17.5), (12.0, 230.0)] {
                let dir = m.direction(u, v).unwrap();
                assert!((dir.length() - 1.0).abs() < 1e-12);
                let (pu, pv) = m.project(dir.scale(7.0)).unwrap();
                assert!((pu - u).abs() < 1e-6 && (pv - v).abs() < 1e-6, "{u},{v}");
            }
        }
        // Barrel distortion pulls the image corners inwards: the corner pixel sees farther
        // out than without distortion.
        let plain = model(Distortion::NONE).direction(0.5, 0.5).unwrap();
        let barrel = model(d).direction(0.5, 0.5).unwrap();
        assert!(barrel.x < plain.x);
    }

    #[test]
    fn skewed_intrinsics_round_trip_and_calibration_matrices() {
        let m = CameraModel {
            width: 64,
            height: 48,
            intrinsics: Intrinsics {
                fx: 50.0,
                fy: 55.0,
                cx: 30.0,
                cy: 25.0,
                s: 2.0,
            },
            distortion: Distortion::NONE,
        };
        let dir = m.direction(10.5, 40.5).unwrap();
        let (u, v) = m.project(dir).unwrap();
        assert!((u - 10.5).abs() < 1e-9 && (v - 40.5).abs() < 1e-9);
        let (k, p, d) = m.calibration();
        assert_eq!(k, [50.0, 2.0, 30.0, 0.0, 55.0, 25.0, 0.0, 0.0, 1.0]);
        assert_eq!(p[..4], [50.0, 2.0, 30.0, 0.0]);
        assert_eq!(p[10], 1.0);
        assert_eq!(d, [0.0; 5]);
        assert_eq!(m.pixel_directions().len(), 64 * 48);
    }
}
