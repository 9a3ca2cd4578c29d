//! The mass properties of automatic inertia (`<inertial auto="true">`): a link's mass, centre
//! of mass and inertia from its collisions, and the check that an inertia tensor can be a
//! rigid body's.

use sim_world::{AutoInertia, Collision, Geometry, Vec3};

/// Why the automatic inertia of a link is invalid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum AutoInertiaError {
    /// A collision (by name) that gives no mass.
    #[error("collision \"{0}\" has no volume, so it gives no mass")]
    NoMass(String),
    /// A collision (by name) whose shape has no inertia formula.
    #[error("collision \"{0}\" has no computable inertia")]
    NotComputable(String),
    /// The summed tensor cannot be a rigid body's (see [`inertia_problem`]).
    #[error("{0}")]
    Tensor(String),
}

/// The mass properties of a link with automatic inertia (see [`AutoInertia`]): each
/// collision's solid at its resolved pose, summed about the common centre of mass in the link
/// frame, as libsdformat's `Link::ResolveAutoInertials` (shape formulas as gz-math's; a cone's
/// centre of mass is taken at its origin, as libsdformat does; a mesh is the solid it
/// encloses, see `mesh_inertia`). Returns the mass, the centre of
/// mass and the inertia in the link frame, or why they cannot be.
pub(crate) fn auto_inertial(
    collisions: &[Collision],
    auto: &AutoInertia,
) -> Result<(f64, Vec3, [f64; 6]), AutoInertiaError> {
    use std::f64::consts::PI;
    let mut parts = Vec::new();
    let solids = auto.solids.iter().chain(std::iter::repeat(&None));
    for ((c, &rho), solid) in collisions.iter().zip(&auto.densities).zip(solids) {
        // A mesh: its solid, read with the link.
        if let Some(solid) = solid {
            let m = rho * solid.volume;
            if !(m > 0.0 && m.is_finite()) {
                return Err(AutoInertiaError::NoMass(c.name.clone()));
            }
            let [xx, xy, xz, yy, yz, zz] = solid.inertia.map(|v| v * rho);
            parts.push((
                m,
                [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]],
                c.pose.transform_point(solid.centroid),
                c.pose.orientation,
            ));
            continue;
        }
        // Mass and principal moments about the shape's own axes.
        let (m, [ix, iy, iz]) = match c.geometry {
            Geometry::Box { size } => {
                let m = rho * size.x * size.y * size.z;
                let (x2, y2, z2) = (size.x * size.x, size.y * size.y, size.z * size.z);
                (
                    m,
                    [
                        m / 12.0 * (y2 + z2),
                        m / 12.0 * (x2 + z2),
                        m / 12.0 * (x2 + y2),
                    ],
                )
            }
            Geometry::Sphere { radius: r } => {
                let m = rho * 4.0 / 3.0 * PI * r.powi(3);
                (m, [0.4 * m * r * r; 3])
            }
            Geometry::Cylinder {
                radius: r,
                length: l,
            } => {
                let m = rho * PI * r * r * l;
                let i = m / 12.0 * (3.0 * r * r + l * l);
                (m, [i, i, 0.5 * m * r * r])
            }
            Geometry::Capsule {
                radius: r,
                length: l,
            } => {
                let mc = rho * PI * r * r * l;
                let ms = rho * 4.0 / 3.0 * PI * r.powi(3);
                let i = mc * (l * l / 12.0 + r * r / 4.0)
                    + ms * (0.4 * r * r + 0.375 * r * l + 0.25 * l * l);
                (mc + ms, [i, i, r * r * (0.5 * mc + 0.4 * ms)])
            }
            Geometry::Ellipsoid { radii: a } => {
                let m = rho * 4.0 / 3.0 * PI * a.x * a.y * a.z;
                let (x2, y2, z2) = (a.x * a.x, a.y * a.y, a.z * a.z);
                (
                    m,
                    [
                        m / 5.0 * (y2 + z2),
                        m / 5.0 * (x2 + z2),
                        m / 5.0 * (x2 + y2),
                    ],
                )
            }
            Geometry::Cone {
                radius: r,
                length: l,
            } => {
                let m = rho * PI * r * r * l / 3.0;
                let i = 3.0 / 20.0 * m * r * r + 3.0 / 80.0 * m * l * l;
                (m, [i, i, 0.3 * m * r * r])
            }
            _ => {
                return Err(AutoInertiaError::NotComputable(c.name.clone()));
            }
        };
        if !(m > 0.0 && m.is_finite()) {
            return Err(AutoInertiaError::NoMass(c.name.clone()));
        }
        parts.push((
            m,
            [[ix, 0.0, 0.0], [0.0, iy, 0.0], [0.0, 0.0, iz]],
            c.pose.position,
            c.pose.orientation,
        ));
    }
    let total: f64 = parts.iter().map(|p| p.0).sum();
    let com = parts
        .iter()
        .fold(Vec3::ZERO, |acc, (m, _, at, _)| acc + at.scale(*m / total));
    let mut i = [[0.0f64; 3]; 3];
    for (m, d, at, orientation) in &parts {
        let r = orientation.to_matrix();
        let off = *at - com;
        let o = [off.x, off.y, off.z];
        for a in 0..3 {
            for b in 0..3 {
                // R D R^T, plus the parallel axis term m (|o|^2 E - o o^T).
                let rot: f64 = (0..3)
                    .flat_map(|k| (0..3).map(move |l| (k, l)))
                    .map(|(k, l)| r[a][k] * d[k][l] * r[b][l])
                    .sum();
                let shift = m * (if a == b { off.dot(off) } else { 0.0 } - o[a] * o[b]);
                i[a][b] += rot + shift;
            }
        }
    }
    let (mass, k) = match auto.mass {
        Some(given) => (given, given / total),
        None => (total, 1.0),
    };
    Ok((
        mass,
        com,
        [
            i[0][0] * k,
            i[0][1] * k,
            i[0][2] * k,
            i[1][1] * k,
            i[1][2] * k,
            i[2][2] * k,
        ],
    ))
}

/// Why the inertia tensor `[ixx, ixy, ixz, iyy, iyz, izz]` cannot be a rigid body's, if it
/// cannot: it must be positive definite and its principal moments must satisfy the triangle
/// inequality (as gz-math's `MassMatrix3::IsValid`, with a small relative tolerance).
pub(crate) fn inertia_problem(i: [f64; 6]) -> Option<String> {
    let [ixx, ixy, ixz, iyy, iyz, izz] = i;
    let m = [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]];
    let mut moments = symmetric_eigenvalues(m);
    if !moments.iter().all(|v| v.is_finite()) {
        return Some("its values are too large to be a body's inertia".to_string());
    }
    moments.sort_by(f64::total_cmp);
    let [a, b, c] = moments;
    let scale = ixx.abs().max(iyy.abs()).max(izz.abs());
    let tolerance = 1e-12 * scale;
    let shown = format!("{}, {}, {}", fmt_g(a), fmt_g(b), fmt_g(c));
    if a <= 0.0 {
        Some(format!(
            "the tensor is not positive definite (principal moments {shown})"
        ))
    } else if a + b + tolerance < c {
        Some(format!(
            "the principal moments {shown} break the triangle inequality ({} + {} < {})",
            fmt_g(a),
            fmt_g(b),
            fmt_g(c)
        ))
    } else {
        None
    }
}

/// A number in the shortest form that reads back the same, rounded to 6 significant digits
/// for messages.
fn fmt_g(v: f64) -> String {
    let r = format!("{v:.6e}").parse::<f64>().unwrap_or(v);
    format!("{r}")
}

/// Eigenvalues of a symmetric 3x3 matrix (closed form, Smith 1961).
fn symmetric_eigenvalues(m: [[f64; 3]; 3]) -> [f64; 3] {
    let p1 = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
    if p1 == 0.0 {
        return [m[0][0], m[1][1], m[2][2]];
    }
    let q = (m[0][0] + m[1][1] + m[2][2]) / 3.0;
    let p2 = (m[0][0] - q).powi(2) + (m[1][1] - q).powi(2) + (m[2][2] - q).powi(2) + 2.0 * p1;
    let p = (p2 / 6.0).sqrt();
    let mut b = m;
    for (r, row) in b.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = (m[r][c] - if r == c { q } else { 0.0 }) / p;
        }
    }
    let det = b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1])
        - b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0])
        + b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]);
    let phi = (det / 2.0).clamp(-1.0, 1.0).acos() / 3.0;
    let e1 = q + 2.0 * p * phi.cos();
    let e3 = q + 2.0 * p * (phi + 2.0 * std::f64::consts::PI / 3.0).cos();
    [e1, 3.0 * q - e1 - e3, e3]
}
