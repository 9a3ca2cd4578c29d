//! Gazebo's lens mapping functions and the pixel directions they give.
//!
//! A lens maps the angle θ between a ray and the optical axis to the distance r of its image
//! point from the image centre: `r = c1 · f · fun(θ / c2 + c3)`, `fun` one of sin, tan and
//! the identity. The named lenses are the mapping functions of gz-rendering's `CameraLens`:
//!
//! | `<type>` | c1 | c2 | c3 | f | fun |
//! |---|---|---|---|---|---|
//! | `gnomonical` (`gnomonic`) | 1 | 1 | 0 | 1 | tan |
//! | `stereographic` (the default) | 2 | 2 | 0 | 1 | tan |
//! | `equidistant` | 1 | 1 | 0 | 1 | id |
//! | `equisolid_angle` | 2 | 2 | 0 | 1 | sin |
//! | `orthographic` | 1 | 1 | 0 | 1 | sin |
//! | `custom` | `<custom_function>`'s `c1`, `c2`, `c3`, `f`, `fun` (defaults 1, 1, 0, 1, tan) | | | | |
//!
//! Image coordinates are those of Gazebo's lens shader: the horizontal one runs from -1 at
//! the left edge to 1 at the right edge, the vertical one from `-H/W` at the bottom to `H/W`
//! at the top (square pixels), sampled at pixel centres. With `<scale_to_hfov>` (the default)
//! f is chosen so that the edges of the image's width are at θ = hfov / 2:
//! `f = 1 / (c1 · fun(hfov / (2 c2) + c3))`; without it `f` is the lens's own. A pixel at
//! distance r looks at `θ = c2 · (fun⁻¹(r / (c1 f)) − c3)` from the axis, in the direction
//! of its image point; pixels with θ beyond `<cutoff_angle>`, or with no θ at all (r beyond
//! what the lens maps), are black, as in Gazebo.

use sim_plugin_api::{
    PluginError, Vec3,
    sdf::{Element, FromSdf},
};
use std::borrow::Cow;

/// The angle function of a mapping function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AngleFunction {
    /// `sin`.
    Sin,
    /// `tan`.
    Tan,
    /// `id`: the identity.
    Identity,
}

impl AngleFunction {
    /// The function at `x`.
    pub fn apply(self, x: f64) -> f64 {
        match self {
            AngleFunction::Sin => x.sin(),
            AngleFunction::Tan => x.tan(),
            AngleFunction::Identity => x,
        }
    }

    /// Its inverse at `y` (asin, atan, identity); NaN where there is none.
    pub fn inverse(self, y: f64) -> f64 {
        match self {
            AngleFunction::Sin => y.asin(),
            AngleFunction::Tan => y.atan(),
            AngleFunction::Identity => y,
        }
    }
}

/// `<custom_function><fun>`: `sin`, `tan` or `id`.
impl FromSdf for AngleFunction {
    fn expected() -> Cow<'static, str> {
        "one of sin, tan, id".into()
    }

    fn from_text(text: &str) -> Option<Self> {
        Some(match text.trim() {
            "sin" => AngleFunction::Sin,
            "tan" => AngleFunction::Tan,
            "id" => AngleFunction::Identity,
            _ => return None,
        })
    }
}

/// SDF's default `<cutoff_angle>`, rad: the literal of `camera.sdf`, a little under π/2.
#[allow(clippy::approx_constant)]
pub const DEFAULT_CUTOFF_ANGLE: f64 = 1.5707;

/// The smallest focal length `scale_to_hfov` may give (image widths): below it the lens is
/// at the end of its range (a gnomonical lens asked for a field of view of π).
pub const MIN_FOCAL_LENGTH: f64 = 1e-9;

/// The lens types of `<lens><type>`.
pub const LENS_TYPES: &str =
    "gnomonical, stereographic, equidistant, equisolid_angle, orthographic or custom";

/// A wide-angle camera's `<lens>`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Lens {
    /// Linear scale factor.
    pub c1: f64,
    /// Angle scale factor.
    pub c2: f64,
    /// Angle offset.
    pub c3: f64,
    /// Focal length in image units (used without `scale_to_hfov`).
    pub f: f64,
    /// The angle function.
    pub fun: AngleFunction,
    /// `<scale_to_hfov>`: f follows the horizontal field of view (default true).
    pub scale_to_hfov: bool,
    /// `<cutoff_angle>`, rad: pixels looking further off the axis are black (default 1.5707).
    pub cutoff_angle: f64,
}

impl Default for Lens {
    fn default() -> Self {
        Lens::named("stereographic").expect("a named lens")
    }
}

impl Lens {
    /// The named lens `kind` (see the module's table) with SDF's `scale_to_hfov` and
    /// `cutoff_angle` defaults; `None` for an unknown name (`custom` included).
    pub fn named(kind: &str) -> Option<Lens> {
        use AngleFunction::*;
        let (c1, c2, fun) = match kind {
            "gnomonical" | "gnomonic" => (1.0, 1.0, Tan),
            "stereographic" => (2.0, 2.0, Tan),
            "equidistant" => (1.0, 1.0, Identity),
            "equisolid_angle" => (2.0, 2.0, Sin),
            "orthographic" => (1.0, 1.0, Sin),
            _ => return None,
        };
        Some(Lens {
            c1,
            c2,
            c3: 0.0,
            f: 1.0,
            fun,
            scale_to_hfov: true,
            cutoff_angle: DEFAULT_CUTOFF_ANGLE,
        })
    }

    /// Reads the `<camera><lens>` of `sensor` (the `<sensor>` element; absent: the default
    /// stereographic lens). `<env_texture_size>` is not read: rays are cast per pixel, there
    /// is no environment texture.
    pub fn read(sensor: &Element<'_, '_>) -> Result<Lens, PluginError> {
        let Some(lens) = sensor.find("camera/lens") else {
            return Ok(Lens::default());
        };
        let kind = lens
            .param::<String>("type")
            .check(LENS_TYPES, |t| t == "custom" || Lens::named(t).is_some())
            .or("stereographic".to_string())?;
        let mut l = match Lens::named(&kind) {
            Some(l) => l,
            None => {
                // `custom`: `<custom_function>`'s factors and function.
                let factor = |name: &str| {
                    lens.param::<f64>(&format!("custom_function/{name}"))
                        .check("a number other than 0", |v| *v != 0.0)
                        .or(1.0)
                };
                Lens {
                    c1: factor("c1")?,
                    c2: factor("c2")?,
                    c3: lens.get_or("custom_function/c3", 0.0)?,
                    f: lens.param::<f64>("custom_function/f").positive().or(1.0)?,
                    fun: lens.get_or("custom_function/fun", AngleFunction::Tan)?,
                    ..Lens::default()
                }
            }
        };
        l.scale_to_hfov = lens.get_or("scale_to_hfov", true)?;
        l.cutoff_angle = lens
            .param::<f64>("cutoff_angle")
            .unit("rad")
            .check("above 0 and at most 2π", |a| {
                *a > 0.0 && *a <= std::f64::consts::TAU
            })
            .or(l.cutoff_angle)?;
        Ok(l)
    }

    /// The focal length in image units for the horizontal field of view `hfov`: with
    /// `scale_to_hfov` the one putting the width's edges at θ = hfov / 2, else `f`. An error
    /// (text) when the lens cannot map hfov / 2: f not above [`MIN_FOCAL_LENGTH`], or the
    /// edge not mapped back to hfov / 2.
    pub fn focal_length(&self, hfov: f64) -> Result<f64, String> {
        if !self.scale_to_hfov {
            return Ok(self.f);
        }
        let f = 1.0 / (self.c1 * self.fun.apply(hfov / 2.0 / self.c2 + self.c3));
        // The edge must map back to hfov / 2 (past π/2, sin folds back and tan diverges).
        let back = self.c2 * (self.fun.inverse(1.0 / (self.c1 * f)) - self.c3);
        if f.is_finite() && f > MIN_FOCAL_LENGTH && (back - hfov / 2.0).abs() < 1e-6 {
            Ok(f)
        } else {
            Err(format!(
                "this lens cannot map half the horizontal field of view ({} rad) inside the \
                 image (scale_to_hfov gives f = {f}, mapping the edge to {back} rad)",
                hfov / 2.0
            ))
        }
    }

    /// The image distance of a ray at angle `theta` from the axis: `c1 f fun(θ/c2 + c3)`.
    pub fn radius(&self, theta: f64, f: f64) -> f64 {
        self.c1 * f * self.fun.apply(theta / self.c2 + self.c3)
    }

    /// The angle from the axis of the rays of image points at distance `r`, `None` where the
    /// lens maps none there or the angle is beyond the cut-off.
    pub fn angle(&self, r: f64, f: f64) -> Option<f64> {
        let theta = self.c2 * (self.fun.inverse(r / (self.c1 * f)) - self.c3);
        (theta.is_finite() && theta <= self.cutoff_angle).then_some(theta)
    }

    /// The unit direction in the sensor frame (x forward, y left, z up) of every pixel of a
    /// `width` × `height` image, row-major from the top left; `None` for black pixels.
    pub fn pixel_directions(&self, width: u32, height: u32, f: f64) -> Vec<Option<Vec3>> {
        let (w, h) = (f64::from(width), f64::from(height));
        let mut dirs = Vec::with_capacity(width as usize * height as usize);
        for j in 0..height {
            let v = (1.0 - 2.0 * (f64::from(j) + 0.5) / h) * h / w;
            for i in 0..width {
                let u = 2.0 * (f64::from(i) + 0.5) / w - 1.0;
                let r = u.hypot(v);
                dirs.push(self.angle(r, f).map(|theta| {
                    if r == 0.0 {
                        return Vec3::new(1.0, 0.0, 0.0);
                    }
                    let s = theta.sin() / r;
                    Vec3::new(theta.cos(), -u * s, v * s)
                }));
            }
        }
        dirs
    }
}
