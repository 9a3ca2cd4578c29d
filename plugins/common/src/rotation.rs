//! A rotation applied to many vectors (a sensor's ray directions, once per scan): the
//! quaternion turned into its matrix once, then nine products and six sums per vector
//! instead of the quaternion's two cross products.

use sim_plugin_api::{Quat, Vec3};

/// The rotation of a quaternion as a row-major 3x3 matrix.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Rotation([[f64; 3]; 3]);

impl Rotation {
    /// The rotation by `q` (a unit quaternion, as poses carry).
    pub fn new(q: Quat) -> Self {
        Rotation(q.to_matrix())
    }

    /// `v` rotated.
    #[inline]
    pub fn apply(&self, v: Vec3) -> Vec3 {
        v.by_matrix(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_quaternion() {
        let q = Quat::from_rpy(0.3, -1.1, 2.4);
        let r = Rotation::new(q);
        for v in [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.2, -0.7, 0.4),
            Vec3::new(-3.0, 5.0, 1e-3),
        ] {
            let (a, b) = (r.apply(v), q.rotate(v));
            assert!(
                (a - b).length() < 1e-12 * (1.0 + v.length()),
                "{a:?} vs {b:?}"
            );
        }
        // The identity gives its input back exactly.
        let v = Vec3::new(0.1, 0.2, 0.3);
        assert_eq!(Rotation::new(Quat::IDENTITY).apply(v), v);
    }
}
