//! Plain geometric types that cross the plugin boundary, with the small amount of
//! arithmetic plugins need (rotation, composition, inversion).
//!
//! All quantities are SI (metres, radians, seconds) in a right-handed Z-up frame, as SDF.

use abi_stable::StableAbi;

/// A 3-vector of `f64`.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct Vec3 {
    /// X component.
    pub x: f64,
    /// Y component.
    pub y: f64,
    /// Z component.
    pub z: f64,
}

impl Vec3 {
    /// The zero vector.
    pub const ZERO: Vec3 = Vec3::new(0.0, 0.0, 0.0);

    /// Builds a vector from its components.
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Vec3 { x, y, z }
    }
    /// Dot product.
    pub fn dot(self, o: Vec3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    /// Cross product.
    pub fn cross(self, o: Vec3) -> Vec3 {
        Vec3::new(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }
    /// Euclidean length.
    pub fn length(self) -> f64 {
        self.dot(self).sqrt()
    }
    /// This vector scaled by `s`.
    pub fn scale(self, s: f64) -> Vec3 {
        Vec3::new(self.x * s, self.y * s, self.z * s)
    }
    /// The unit vector in the same direction (the zero vector stays zero).
    pub fn normalized(self) -> Vec3 {
        let l = self.length();
        if l > 0.0 { self.scale(1.0 / l) } else { self }
    }
    /// This vector multiplied by the row-major matrix `m` (a rotation of
    /// [`Quat::to_matrix`]): row by row, `m[i][0] x + m[i][1] y + m[i][2] z`.
    #[inline]
    pub fn by_matrix(self, m: &[[f64; 3]; 3]) -> Vec3 {
        let [a, b, c] = m;
        Vec3::new(
            a[0] * self.x + a[1] * self.y + a[2] * self.z,
            b[0] * self.x + b[1] * self.y + b[2] * self.z,
            c[0] * self.x + c[1] * self.y + c[2] * self.z,
        )
    }
    /// Components as an array.
    pub fn to_array(self) -> [f64; 3] {
        [self.x, self.y, self.z]
    }
}

impl core::ops::Add for Vec3 {
    type Output = Vec3;
    fn add(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}
impl core::ops::Sub for Vec3 {
    type Output = Vec3;
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}
impl core::ops::Neg for Vec3 {
    type Output = Vec3;
    fn neg(self) -> Vec3 {
        Vec3::new(-self.x, -self.y, -self.z)
    }
}
impl core::ops::Mul<f64> for Vec3 {
    type Output = Vec3;
    fn mul(self, s: f64) -> Vec3 {
        self.scale(s)
    }
}

/// A unit quaternion (x, y, z, w) describing a rotation.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq)]
pub struct Quat {
    /// X (i) component.
    pub x: f64,
    /// Y (j) component.
    pub y: f64,
    /// Z (k) component.
    pub z: f64,
    /// W (real) component.
    pub w: f64,
}

impl Default for Quat {
    fn default() -> Self {
        Quat::IDENTITY
    }
}

impl Quat {
    /// The identity rotation.
    pub const IDENTITY: Quat = Quat {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        w: 1.0,
    };

    /// Builds a quaternion from its components (not normalised).
    pub const fn new(x: f64, y: f64, z: f64, w: f64) -> Self {
        Quat { x, y, z, w }
    }

    /// The rotation from SDF roll, pitch, yaw (fixed axes X, then Y, then Z).
    pub fn from_rpy(roll: f64, pitch: f64, yaw: f64) -> Quat {
        let (sr, cr) = (roll * 0.5).sin_cos();
        let (sp, cp) = (pitch * 0.5).sin_cos();
        let (sy, cy) = (yaw * 0.5).sin_cos();
        Quat {
            w: cr * cp * cy + sr * sp * sy,
            x: sr * cp * cy - cr * sp * sy,
            y: cr * sp * cy + sr * cp * sy,
            z: cr * cp * sy - sr * sp * cy,
        }
    }

    /// The rotation of `angle` radians about `axis` (need not be unit length).
    pub fn from_axis_angle(axis: Vec3, angle: f64) -> Quat {
        let a = axis.normalized();
        let (s, c) = (angle * 0.5).sin_cos();
        Quat::new(a.x * s, a.y * s, a.z * s, c)
    }

    /// Roll, pitch, yaw of this rotation (inverse of [`Quat::from_rpy`]).
    pub fn to_rpy(self) -> (f64, f64, f64) {
        let q = self.normalized();
        let sinr = 2.0 * (q.w * q.x + q.y * q.z);
        let cosr = 1.0 - 2.0 * (q.x * q.x + q.y * q.y);
        let roll = sinr.atan2(cosr);
        let sinp = (2.0 * (q.w * q.y - q.z * q.x)).clamp(-1.0, 1.0);
        let pitch = sinp.asin();
        let siny = 2.0 * (q.w * q.z + q.x * q.y);
        let cosy = 1.0 - 2.0 * (q.y * q.y + q.z * q.z);
        let yaw = siny.atan2(cosy);
        (roll, pitch, yaw)
    }

    /// The same rotation with unit norm.
    pub fn normalized(self) -> Quat {
        let n = (self.x * self.x + self.y * self.y + self.z * self.z + self.w * self.w).sqrt();
        if n > 0.0 {
            let r = 1.0 / n;
            Quat::new(self.x * r, self.y * r, self.z * r, self.w * r)
        } else {
            Quat::IDENTITY
        }
    }

    /// The inverse rotation (the conjugate, for a unit quaternion).
    pub fn inverse(self) -> Quat {
        Quat::new(-self.x, -self.y, -self.z, self.w)
    }

    /// Rotates `v` by this rotation.
    pub fn rotate(self, v: Vec3) -> Vec3 {
        let u = Vec3::new(self.x, self.y, self.z);
        let t = u.cross(v).scale(2.0);
        v + t.scale(self.w) + u.cross(t)
    }

    /// The 3x3 rotation matrix, row-major.
    pub fn to_matrix(self) -> [[f64; 3]; 3] {
        let c0 = self.rotate(Vec3::new(1.0, 0.0, 0.0));
        let c1 = self.rotate(Vec3::new(0.0, 1.0, 0.0));
        let c2 = self.rotate(Vec3::new(0.0, 0.0, 1.0));
        [[c0.x, c1.x, c2.x], [c0.y, c1.y, c2.y], [c0.z, c1.z, c2.z]]
    }
}

impl core::ops::Mul for Quat {
    type Output = Quat;
    /// Hamilton product: `a * b` applies `b` first, then `a`.
    fn mul(self, b: Quat) -> Quat {
        let a = self;
        Quat {
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        }
    }
}

/// A rigid transform: position and orientation of a frame in its parent frame.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct Pose {
    /// Translation.
    pub position: Vec3,
    /// Rotation.
    pub orientation: Quat,
}

impl Pose {
    /// The identity transform.
    pub const IDENTITY: Pose = Pose {
        position: Vec3::ZERO,
        orientation: Quat::IDENTITY,
    };

    /// Builds a pose from a position and an orientation.
    pub const fn new(position: Vec3, orientation: Quat) -> Self {
        Pose {
            position,
            orientation,
        }
    }

    /// Builds a pose from SDF's six numbers `x y z roll pitch yaw`.
    pub fn from_xyz_rpy(x: f64, y: f64, z: f64, roll: f64, pitch: f64, yaw: f64) -> Pose {
        Pose::new(Vec3::new(x, y, z), Quat::from_rpy(roll, pitch, yaw))
    }

    /// `self * child`: the pose of `child` (given in this frame) in this frame's parent.
    pub fn compose(self, child: Pose) -> Pose {
        Pose {
            position: self.position + self.orientation.rotate(child.position),
            orientation: (self.orientation * child.orientation).normalized(),
        }
    }

    /// The inverse transform.
    pub fn inverse(self) -> Pose {
        let inv = self.orientation.inverse();
        Pose {
            position: -inv.rotate(self.position),
            orientation: inv,
        }
    }

    /// Maps a point given in this frame into the parent frame.
    pub fn transform_point(self, p: Vec3) -> Vec3 {
        self.position + self.orientation.rotate(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-12
    }

    #[test]
    fn rpy_round_trip_and_rotation() {
        let q = Quat::from_rpy(0.1, -0.4, 2.0);
        let (r, p, y) = q.to_rpy();
        assert!((r - 0.1).abs() < 1e-12 && (p + 0.4).abs() < 1e-12 && (y - 2.0).abs() < 1e-12);
        let yaw90 = Quat::from_rpy(0.0, 0.0, core::f64::consts::FRAC_PI_2);
        assert!(close(
            yaw90.rotate(Vec3::new(1.0, 0.0, 0.0)),
            Vec3::new(0.0, 1.0, 0.0)
        ));
    }

    #[test]
    fn compose_and_inverse() {
        let a = Pose::from_xyz_rpy(1.0, 2.0, 3.0, 0.3, 0.2, 0.1);
        let b = Pose::from_xyz_rpy(-1.0, 0.5, 0.0, 0.0, 1.0, -0.5);
        let ab = a.compose(b);
        let back = a.inverse().compose(ab);
        assert!(close(back.position, b.position));
        let p = Vec3::new(0.3, -0.7, 2.0);
        assert!(close(
            ab.transform_point(p),
            a.transform_point(b.transform_point(p))
        ));
    }
}
