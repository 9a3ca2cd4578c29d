//! The geometry of a view: how world points project into its image, the depth keys of
//! planes, the rays of pixels, and which pixels a box may cover.

use sim_plugin_api::{PinholeView, Vec3};

/// The camera of one call: its frame and projection, and the band of rows.
pub(super) struct Camera {
    pub(super) origin: Vec3,
    /// Sensor frame to world, row-major.
    pub(super) rot: [[f64; 3]; 3],
    pub(super) fx: f64,
    pub(super) fy: f64,
    pub(super) cx: f64,
    pub(super) cy: f64,
    pub(super) skew: f64,
    pub(super) near: f64,
    pub(super) far: f64,
    pub(super) width: usize,
    pub(super) first_row: usize,
    pub(super) rows: usize,
    /// Parallel rays along the optical axis (`fx`, `fy` in pixels per metre), instead of
    /// rays from the origin.
    pub(super) ortho: bool,
}

/// One pixel's ray: its cosine to the optical axis (1 for parallel rays), where it leaves
/// the plane of the camera's origin, and its world direction.
#[derive(Clone, Copy)]
pub(super) struct Px {
    pub(super) dx: f64,
    pub(super) origin: Vec3,
    pub(super) dir: Vec3,
}

/// An affine function of the image coordinates `(u, v)`: `a·u + b·v + c`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Affine(pub(super) [f64; 3]);

impl Affine {
    #[inline]
    pub(super) fn at(&self, u: f64, v: f64) -> f64 {
        self.0[0] * u + self.0[1] * v + self.0[2]
    }
}

impl Camera {
    /// The camera of the rows of `view` from `first_row` that fit in `len` pixels (parallel
    /// rays when `ortho`), or None when there are none.
    pub(super) fn band(
        view: &PinholeView,
        first_row: u32,
        len: usize,
        ortho: bool,
    ) -> Option<Camera> {
        let (width, height, first) = (
            view.width as usize,
            view.height as usize,
            first_row as usize,
        );
        if width == 0 || first >= height {
            return None;
        }
        Some(Camera {
            origin: view.pose.position,
            rot: view.pose.orientation.normalized().to_matrix(),
            fx: view.fx,
            fy: view.fy,
            cx: view.cx,
            cy: view.cy,
            skew: view.skew,
            near: view.near.max(0.0),
            far: view.far,
            width,
            first_row: first,
            rows: (len / width).min(height - first),
            ortho,
        })
    }

    /// `p` (world) in the optical frame: x right, y down, z forward.
    #[inline]
    pub(super) fn optical(&self, p: Vec3) -> [f64; 3] {
        let d = p - self.origin;
        let r = &self.rot;
        // The transpose turns world into sensor axes.
        let sx = r[0][0] * d.x + r[1][0] * d.y + r[2][0] * d.z;
        let sy = r[0][1] * d.x + r[1][1] * d.y + r[2][1] * d.z;
        let sz = r[0][2] * d.x + r[1][2] * d.y + r[2][2] * d.z;
        [-sy, -sz, sx]
    }

    /// Image coordinates of an optical-frame point in front of the camera.
    #[inline]
    pub(super) fn project(&self, p: [f64; 3]) -> (f64, f64) {
        let (x, y) = if self.ortho {
            (p[0], p[1])
        } else {
            (p[0] / p[2], p[1] / p[2])
        };
        (self.fx * x + self.skew * y + self.cx, self.fy * y + self.cy)
    }

    /// The depth key of an optical z: linear in image coordinates, larger when nearer.
    #[inline]
    pub(super) fn key(&self, z: f64) -> f64 {
        if self.ortho { -z } else { 1.0 / z }
    }

    /// The optical-frame `(x/z, y/z)` of a perspective pixel, or the optical `(x, y)` of a
    /// parallel ray, as affine functions of `(u, v)`.
    pub(super) fn normalised(&self) -> (Affine, Affine) {
        let yn = Affine([0.0, 1.0 / self.fy, -self.cy / self.fy]);
        let s = self.skew / (self.fx * self.fy);
        let xn = Affine([1.0 / self.fx, -s, -self.cx / self.fx + s * self.cy]);
        (xn, yn)
    }

    /// The plane `normal · x = offset` as the camera sees it: which side of it each pixel's
    /// ray starts on (negative: behind it, inside a solid) and its depth key, affine in
    /// `(u, v)`; no key when the plane holds the camera's origin (perspective) or the
    /// rays (parallel), where it shows no area.
    pub(super) fn plane(&self, normal: Vec3, offset: f64) -> (Affine, Option<Affine>) {
        let r = &self.rot;
        // The normal in the sensor frame.
        let n = Vec3::new(
            r[0][0] * normal.x + r[1][0] * normal.y + r[2][0] * normal.z,
            r[0][1] * normal.x + r[1][1] * normal.y + r[2][1] * normal.z,
            r[0][2] * normal.x + r[1][2] * normal.y + r[2][2] * normal.z,
        );
        let d = offset - normal.dot(self.origin);
        let (xn, yn) = self.normalised();
        // n · (0, -xn, -yn), affine.
        let across = Affine(std::array::from_fn(|k| -n.y * xn.0[k] - n.z * yn.0[k]));
        if self.ortho {
            // Rays along x from o + (0, -x, -y): side = n·start - offset.
            let side = Affine([across.0[0], across.0[1], across.0[2] - d]);
            let key = (n.x.abs() > 1e-12).then(|| Affine(side.0.map(|c| c / n.x)));
            return (side, key);
        }
        // Rays along e = (1, -xn, -yn) from o + near·e: n·e and side = near·n·e - d.
        let ne = Affine([across.0[0], across.0[1], across.0[2] + n.x]);
        let side = Affine([
            self.near * ne.0[0],
            self.near * ne.0[1],
            self.near * ne.0[2] - d,
        ]);
        let key = (d.abs() > 1e-12).then(|| Affine(ne.0.map(|c| c / d)));
        (side, key)
    }

    /// The distance along pixel `(i, j)`'s unit ray from the camera's origin (its plane for
    /// parallel rays) to the point of depth key `key`.
    #[inline]
    pub(super) fn distance(&self, xn: &Affine, yn: &Affine, i: usize, j: usize, key: f64) -> f64 {
        if self.ortho {
            return -key;
        }
        Self::length(xn, yn, i, j) / key
    }

    /// The length of perspective pixel `(i, j)`'s ray per unit of depth (`xn`, `yn` from
    /// [`Camera::normalised`]): its distance to the point of depth key `key` is this over
    /// `key`.
    #[inline]
    pub(super) fn length(xn: &Affine, yn: &Affine, i: usize, j: usize) -> f64 {
        let (u, v) = (centre(i), centre(j));
        let (x, y) = (xn.at(u, v), yn.at(u, v));
        (1.0 + x * x + y * y).sqrt()
    }

    /// `v` (sensor frame) in the world frame.
    #[inline]
    pub(super) fn turn(&self, v: Vec3) -> Vec3 {
        v.by_matrix(&self.rot)
    }

    /// The ray through pixel centre `(i + ½, j + ½)`: from the origin along the unit
    /// direction of the camera model's formula, or, for parallel rays, along the optical axis
    /// from the point of the origin's plane the pixel covers.
    #[inline]
    pub(super) fn ray(&self, i: usize, j: usize) -> Px {
        let (u, v) = (centre(i), centre(j));
        let yn = (v - self.cy) / self.fy;
        let xn = (u - self.cx - self.skew * yn) / self.fx;
        if self.ortho {
            return Px {
                dx: 1.0,
                origin: self.origin + self.turn(Vec3::new(0.0, -xn, -yn)),
                dir: self.turn(Vec3::new(1.0, 0.0, 0.0)),
            };
        }
        let d = Vec3::new(1.0, -xn, -yn).normalized();
        Px {
            dx: d.x,
            origin: self.origin,
            dir: self.turn(d),
        }
    }

    /// Whether a world box may hold the start of a pixel's ray: whether it meets the box
    /// around the rays' starts (the near plane's part in the image, or the plane of
    /// parallel rays').
    pub(super) fn holds_starts(&self, lo: Vec3, hi: Vec3) -> bool {
        let (xn, yn) = self.normalised();
        let (w, h) = (self.width as f64, (self.first_row + self.rows) as f64);
        let v0 = self.first_row as f64;
        let inf = f64::INFINITY;
        let (mut a, mut b) = (Vec3::new(inf, inf, inf), Vec3::new(-inf, -inf, -inf));
        for (u, v) in [(0.0, v0), (w, v0), (0.0, h), (w, h)] {
            let (x, y) = (xn.at(u, v), yn.at(u, v));
            // The sensor-frame start: (near, -x near, -y near), or (0, -x, -y).
            let s = if self.ortho {
                Vec3::new(0.0, -x, -y)
            } else {
                Vec3::new(1.0, -x, -y).scale(self.near)
            };
            let p = self.origin + self.turn(s);
            a = Vec3::new(a.x.min(p.x), a.y.min(p.y), a.z.min(p.z));
            b = Vec3::new(b.x.max(p.x), b.y.max(p.y), b.z.max(p.z));
        }
        lo.x <= b.x && hi.x >= a.x && lo.y <= b.y && hi.y >= a.y && lo.z <= b.z && hi.z >= a.z
    }

    /// The pixels of the band a world box may cover, as `(columns, rows)` ranges of image
    /// coordinates; `None` when it is wholly behind the near plane, beyond the far plane or
    /// outside the band. A box across the near plane is bounded by its part in front: its
    /// corners there and where its edges cross the plane.
    pub(super) fn rect(
        &self,
        lo: Vec3,
        hi: Vec3,
    ) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        let band = self.first_row..self.first_row + self.rows;
        let (mut umin, mut umax, mut vmin, mut vmax) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        let corners: [[f64; 3]; 8] = std::array::from_fn(|k| {
            let pick = |bit: u32, a: f64, b: f64| if k & (1 << bit) == 0 { a } else { b };
            self.optical(Vec3::new(
                pick(0, lo.x, hi.x),
                pick(1, lo.y, hi.y),
                pick(2, lo.z, hi.z),
            ))
        });
        let zmin = corners.iter().map(|p| p[2]).fold(f64::MAX, f64::min);
        let zmax = corners.iter().map(|p| p[2]).fold(f64::MIN, f64::max);
        if zmax < self.near || zmin > self.far || zmax.is_nan() {
            return None;
        }
        let mut add = |p: [f64; 3]| {
            let (u, v) = self.project(p);
            umin = umin.min(u);
            umax = umax.max(u);
            vmin = vmin.min(v);
            vmax = vmax.max(v);
        };
        for (k, a) in corners.iter().enumerate() {
            if a[2] >= self.near {
                add(*a);
            }
            // The edges from this corner to the corners one bit above it.
            for bit in 0..3 {
                if k & (1 << bit) != 0 {
                    continue;
                }
                let b = corners[k | (1 << bit)];
                if (a[2] < self.near) != (b[2] < self.near) {
                    let t = (self.near - a[2]) / (b[2] - a[2]);
                    add([
                        a[0] + t * (b[0] - a[0]),
                        a[1] + t * (b[1] - a[1]),
                        self.near,
                    ]);
                }
            }
        }
        // Pixel i's centre is at i + ½; one pixel more each side for rounding.
        let cols = pixel_range(umin, umax, self.width);
        let lo_row = pixel_range(vmin, vmax, band.end);
        let rows = lo_row.start.max(band.start)..lo_row.end;
        (!cols.is_empty() && !rows.is_empty()).then_some((cols, rows))
    }
}

/// The image coordinate of the centre of pixel column or row `i`, `i + ½`. Pixel indices
/// come from `u32` image sizes: converted through `u32` (one instruction; `usize`'s
/// conversion takes several), to the same value.
#[inline]
pub(super) fn centre(i: usize) -> f64 {
    f64::from(i as u32) + 0.5
}

/// The pixels whose centres may lie in `[a, b]`, within `0..n`, one more on each side.
pub(super) fn pixel_range(a: f64, b: f64, n: usize) -> std::ops::Range<usize> {
    if !(a.is_finite() && b.is_finite()) {
        return 0..n;
    }
    let lo = (a - 1.5).ceil().max(0.0);
    let hi = (b + 0.5).floor().min(n as f64);
    if hi < lo {
        return 0..0;
    }
    lo as usize..hi as usize
}
