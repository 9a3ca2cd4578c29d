//! From the world frame to latitude, longitude and altitude, as gz-math's
//! `SphericalCoordinates` does it (`PositionTransform(LOCAL → SPHERICAL)`).
//!
//! The world declares where its origin is on a reference ellipsoid (`<spherical_coordinates>`:
//! latitude φ₀, longitude λ₀, elevation h₀ and a heading offset H; the ellipsoid's equatorial
//! axis `a` and polar axis `b`, WGS84 by default). A world point `(x, y, z)` is converted in
//! three steps:
//!
//! 1. **Heading.** The world's X and Y axes are turned by H (counter-clockwise, seen from
//!    above) from east and north: `east = x·cos H − y·sin H`, `north = x·sin H + y·cos H`,
//!    `up = z`. With H = 0 the world is ENU (+X east, +Y north); with H = 90° world +X points
//!    north and world +Y west. (gz-math writes this as a rotation by `−H` with its own sign
//!    convention; the result is this one.)
//! 2. **To Earth-centred, Earth-fixed (ECEF).** `ECEF = O + R·(east, north, up)`, where `O` is
//!    the origin's ECEF position and the columns of `R` are the east, north and up unit
//!    vectors at the origin: `(−sin λ₀, cos λ₀, 0)`, `(−sin φ₀ cos λ₀, −sin φ₀ sin λ₀, cos φ₀)`,
//!    `(cos φ₀ cos λ₀, cos φ₀ sin λ₀, sin φ₀)`. `O = ((N + h₀) cos φ₀ cos λ₀,
//!    (N + h₀) cos φ₀ sin λ₀, (b²/a²·N + h₀) sin φ₀)` with `N = a / √(1 − e² sin² φ₀)`.
//! 3. **To geodetic**, with Bowring's closed form: `p = √(X² + Y²)`, `θ = atan(Z·a / (p·b))`,
//!    `φ = atan((Z + e'²·b·sin³θ) / (p − e²·a·cos³θ))`, `λ = atan2(Y, X)`,
//!    `h = p / cos φ − N(φ)`, where `e² = 1 − b²/a²` and `e'² = a²/b² − 1`. Within 10⁻⁴ rad of a
//!    pole, where `p / cos φ` loses its precision (and at a pole itself, where gz-math's
//!    formula divides zero by zero), the same height is computed as
//!    `h = Z / sin φ − N(φ)·(1 − e²)`, and exactly on the axis the latitude is ±90°.
//!
//! The local frame is a plane tangent to the ellipsoid at the origin, so a point far from the
//! origin at `z = 0` is above the ellipsoid: 1 km away the altitude is about 8 cm higher than
//! the origin's.

use sim_plugin_api::{SphericalCoordinates, Vec3};
use std::f64::consts::{FRAC_PI_2, PI};

/// WGS84 equatorial axis (semi-major axis), m.
pub const WGS84_EQUATORIAL_AXIS: f64 = 6_378_137.0;
/// WGS84 polar axis (semi-minor axis), m.
pub const WGS84_POLAR_AXIS: f64 = 6_356_752.314245;

/// Below this `|cos φ|` the altitude is computed from `Z` rather than from `p` (see the module
/// docs).
const POLAR_COS: f64 = 1e-4;

/// A point on or above the ellipsoid.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Geodetic {
    /// Geodetic latitude, degrees (north positive).
    pub latitude_deg: f64,
    /// Longitude, degrees in (−180, 180] (east positive).
    pub longitude_deg: f64,
    /// Height above the ellipsoid, m.
    pub altitude: f64,
}

/// A reference ellipsoid of revolution.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Ellipsoid {
    /// Equatorial axis `a`, m.
    pub a: f64,
    /// Polar axis `b`, m.
    pub b: f64,
    /// First eccentricity squared, `1 − b²/a²`.
    pub e2: f64,
    /// Second eccentricity squared, `a²/b² − 1`.
    pub ep2: f64,
}

impl Ellipsoid {
    /// The ellipsoid with equatorial axis `a` and polar axis `b` (m).
    pub fn new(a: f64, b: f64) -> Self {
        Ellipsoid {
            a,
            b,
            e2: 1.0 - (b * b) / (a * a),
            ep2: (a * a) / (b * b) - 1.0,
        }
    }

    /// WGS84.
    pub fn wgs84() -> Self {
        Ellipsoid::new(WGS84_EQUATORIAL_AXIS, WGS84_POLAR_AXIS)
    }

    /// The radius of curvature in the prime vertical at latitude `lat` (rad), `N(φ)`.
    pub fn prime_vertical_radius(&self, lat: f64) -> f64 {
        let s = lat.sin();
        self.a / (1.0 - self.e2 * s * s).sqrt()
    }

    /// The ECEF position of latitude `lat`, longitude `lon` (rad) and height `h` (m).
    pub fn geodetic_to_ecef(&self, lat: f64, lon: f64, h: f64) -> Vec3 {
        let n = self.prime_vertical_radius(lat);
        let (sin_lat, cos_lat) = lat.sin_cos();
        let (sin_lon, cos_lon) = lon.sin_cos();
        Vec3::new(
            (n + h) * cos_lat * cos_lon,
            (n + h) * cos_lat * sin_lon,
            ((self.b * self.b) / (self.a * self.a) * n + h) * sin_lat,
        )
    }

    /// Latitude, longitude and height of an ECEF position (Bowring's closed form, as gz-math).
    ///
    /// The sines and cosines of the auxiliary angle `θ` and of the latitude are taken from
    /// the sides of their right triangles (`tan θ = Z·a / (p·b)`, `tan φ = num / den`) rather
    /// than by trigonometric calls: the same values to rounding, with two inverse
    /// trigonometric calls per conversion (the latitude and the longitude).
    pub fn ecef_to_geodetic(&self, ecef: Vec3) -> Geodetic {
        let Vec3 { x, y, z } = ecef;
        let (a, b) = (self.a, self.b);
        // ECEF coordinates are of the order of 10⁷ m: the squares neither overflow nor
        // underflow, so plain square roots are as good as `hypot` here.
        let p = (x * x + y * y).sqrt();
        let (za, pb) = (z * a, p * b);
        let r = (za * za + pb * pb).sqrt();
        let (sin_t, cos_t) = (za / r, pb / r);
        let num = z + self.ep2 * b * sin_t * sin_t * sin_t;
        let den = p - self.e2 * a * cos_t * cos_t * cos_t;
        let (lat, sin_lat, cos_lat) = if den > 0.0 {
            let h = (num * num + den * den).sqrt();
            ((num / den).atan(), num / h, den / h)
        } else {
            // On the polar axis (p = 0): the formula's ratio has no meaning there.
            (FRAC_PI_2.copysign(z), 1f64.copysign(z), 0.0)
        };
        // atan2(y, x) through one atan and the quadrant: the same angle to an ulp or two,
        // at a third of glibc's atan2 cost.
        let lon = if x > 0.0 {
            (y / x).atan()
        } else if x < 0.0 {
            (y / x).atan() + PI.copysign(y)
        } else {
            y.atan2(x)
        };
        let n = self.a / (1.0 - self.e2 * sin_lat * sin_lat).sqrt();
        let altitude = if cos_lat.abs() > POLAR_COS {
            p / cos_lat - n
        } else {
            z / sin_lat - n * (1.0 - self.e2)
        };
        Geodetic {
            latitude_deg: lat.to_degrees(),
            longitude_deg: lon.to_degrees(),
            altitude,
        }
    }
}

/// The world's local frame on the ellipsoid, built once from its [`SphericalCoordinates`].
#[derive(Clone, Debug, PartialEq)]
pub struct LocalFrame {
    source: SphericalCoordinates,
    ellipsoid: Ellipsoid,
    /// ECEF position of the world origin.
    origin: Vec3,
    /// ENU → ECEF rotation at the origin, row-major (columns: east, north, up).
    enu_to_ecef: [[f64; 3]; 3],
    cos_heading: f64,
    sin_heading: f64,
}

impl LocalFrame {
    /// The frame of a world with spherical coordinates `sc`.
    pub fn new(sc: &SphericalCoordinates) -> Self {
        let ellipsoid = Ellipsoid::new(sc.equatorial_axis, sc.polar_axis);
        let lat = sc.latitude_deg.to_radians();
        let lon = sc.longitude_deg.to_radians();
        let (sin_lat, cos_lat) = lat.sin_cos();
        let (sin_lon, cos_lon) = lon.sin_cos();
        let (sin_heading, cos_heading) = sc.heading_deg.to_radians().sin_cos();
        LocalFrame {
            source: *sc,
            ellipsoid,
            origin: ellipsoid.geodetic_to_ecef(lat, lon, sc.elevation),
            enu_to_ecef: [
                [-sin_lon, -cos_lon * sin_lat, cos_lon * cos_lat],
                [cos_lon, -sin_lon * sin_lat, sin_lon * cos_lat],
                [0.0, cos_lat, sin_lat],
            ],
            cos_heading,
            sin_heading,
        }
    }

    /// The spherical coordinates this frame was built from.
    pub fn source(&self) -> &SphericalCoordinates {
        &self.source
    }

    /// The ellipsoid.
    pub fn ellipsoid(&self) -> &Ellipsoid {
        &self.ellipsoid
    }

    /// ECEF position of the world origin.
    pub fn origin_ecef(&self) -> Vec3 {
        self.origin
    }

    /// A world-frame vector (position or velocity) as east, north, up at the origin: the
    /// heading rotation (step 1 of the module docs).
    #[inline]
    pub fn world_to_enu(&self, v: Vec3) -> Vec3 {
        Vec3::new(
            v.x * self.cos_heading - v.y * self.sin_heading,
            v.x * self.sin_heading + v.y * self.cos_heading,
            v.z,
        )
    }

    /// The ECEF position of a point given as east, north, up from the origin.
    #[inline]
    pub fn enu_to_ecef(&self, enu: Vec3) -> Vec3 {
        let m = &self.enu_to_ecef;
        Vec3::new(
            self.origin.x + m[0][0] * enu.x + m[0][1] * enu.y + m[0][2] * enu.z,
            self.origin.y + m[1][0] * enu.x + m[1][1] * enu.y + m[1][2] * enu.z,
            self.origin.z + m[2][0] * enu.x + m[2][1] * enu.y + m[2][2] * enu.z,
        )
    }

    /// Latitude, longitude and altitude of a point given as east, north, up from the origin.
    #[inline]
    pub fn enu_to_geodetic(&self, enu: Vec3) -> Geodetic {
        self.ellipsoid.ecef_to_geodetic(self.enu_to_ecef(enu))
    }

    /// Latitude, longitude and altitude of a world point.
    pub fn world_to_geodetic(&self, p: Vec3) -> Geodetic {
        self.enu_to_geodetic(self.world_to_enu(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sc(lat: f64, lon: f64, elevation: f64, heading: f64) -> SphericalCoordinates {
        SphericalCoordinates {
            latitude_deg: lat,
            longitude_deg: lon,
            elevation,
            heading_deg: heading,
            equatorial_axis: WGS84_EQUATORIAL_AXIS,
            polar_axis: WGS84_POLAR_AXIS,
        }
    }

    #[test]
    fn origin_round_trips() {
        for (lat, lon, h) in [
            (37.5, -122.3, 10.0),
            (0.0, 0.0, 0.0),
            (-33.9, 151.2, -20.0),
            (89.9, 45.0, 100.0),
            (-60.0, 179.9, 3000.0),
        ] {
            let f = LocalFrame::new(&sc(lat, lon, h, 30.0));
            let g = f.world_to_geodetic(Vec3::ZERO);
            assert!((g.latitude_deg - lat).abs() < 1e-10, "{lat}: {g:?}");
            assert!((g.longitude_deg - lon).abs() < 1e-10, "{lon}: {g:?}");
            assert!((g.altitude - h).abs() < 1e-6, "{h}: {g:?}");
        }
    }

    #[test]
    fn ecef_of_known_points() {
        let e = Ellipsoid::wgs84();
        let p = e.geodetic_to_ecef(0.0, 0.0, 0.0);
        assert!((p - Vec3::new(WGS84_EQUATORIAL_AXIS, 0.0, 0.0)).length() < 1e-9);
        let q = e.geodetic_to_ecef(FRAC_PI_2, 0.0, 0.0);
        assert!((q - Vec3::new(0.0, 0.0, WGS84_POLAR_AXIS)).length() < 1e-6);
        assert!((e.e2 - 6.694_379_990_14e-3).abs() < 1e-13, "{}", e.e2);
    }

    #[test]
    fn poles() {
        for lat in [90.0, -90.0] {
            let f = LocalFrame::new(&sc(lat, 0.0, 5.0, 0.0));
            let g = f.world_to_geodetic(Vec3::new(0.0, 0.0, 2.0));
            assert!((g.latitude_deg - lat).abs() < 1e-12, "{g:?}");
            assert!((g.altitude - 7.0).abs() < 1e-6, "{g:?}");
            // 10 m off the pole (the meridian's radius of curvature there is a²/b): still
            // continuous.
            let g = f.world_to_geodetic(Vec3::new(10.0, 0.0, 0.0));
            let expected =
                90.0 - (10.0 * WGS84_POLAR_AXIS / (WGS84_EQUATORIAL_AXIS.powi(2))).to_degrees();
            assert!((g.latitude_deg.abs() - expected).abs() < 1e-9, "{g:?}");
            assert!((g.altitude - 5.0).abs() < 1e-3, "{g:?}");
        }
    }

    #[test]
    fn heading_turns_world_axes() {
        let f = LocalFrame::new(&sc(10.0, 20.0, 0.0, 90.0));
        let enu = f.world_to_enu(Vec3::new(1.0, 0.0, 0.0));
        assert!((enu - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-15);
        let enu = f.world_to_enu(Vec3::new(0.0, 1.0, 3.0));
        assert!((enu - Vec3::new(-1.0, 0.0, 3.0)).length() < 1e-15);
    }
}
