//! The SDF `<noise>` element.

use super::element::{Element, FromSdf};
use super::error::SdfError;
use crate::noise::{NoiseKind, NoiseParams};

impl Element<'_, '_> {
    /// The `<noise>` child of the element at `path` below this one:
    /// `sensor.noise("altimeter/vertical_position")` reads
    /// `<altimeter><vertical_position><noise>`; no noise when either is absent.
    pub fn noise(&self, path: &str) -> Result<NoiseParams, SdfError> {
        match self.find(path).and_then(|e| e.child("noise")) {
            Some(noise) => noise.noise_params(),
            None => Ok(NoiseParams::default()),
        }
    }

    /// This element read as a `<noise>` element (SDF defaults: type `none`, every number 0).
    ///
    /// The type is the `type` attribute (`none`, `gaussian`, or `gaussian_quantized`, which is
    /// treated as `gaussian`; letter case ignored), or a `<type>` child as in older SDF. Every
    /// number must be finite; `stddev`, `bias_stddev`, `dynamic_bias_stddev`,
    /// `dynamic_bias_correlation_time` and `precision` must not be negative.
    pub fn noise_params(&self) -> Result<NoiseParams, SdfError> {
        let kind_text = self
            .attribute("type")
            .or_else(|| self.child("type").map(|t| t.text()))
            .unwrap_or("none");
        let kind = match kind_text.trim().to_ascii_lowercase().as_str() {
            "none" => NoiseKind::None,
            "gaussian" | "gaussian_quantized" => NoiseKind::Gaussian,
            _ => {
                return Err(SdfError::new(
                    self.document().origin(),
                    format!("{} type", self.path()),
                    "one of none, gaussian, gaussian_quantized",
                    kind_text,
                    self.place(),
                ));
            }
        };
        let mut p = NoiseParams {
            kind,
            ..NoiseParams::default()
        };
        // (element, field, must not be negative)
        let fields: [(&str, &mut f64, bool); 7] = [
            ("mean", &mut p.mean, false),
            ("stddev", &mut p.stddev, true),
            ("bias_mean", &mut p.bias_mean, false),
            ("bias_stddev", &mut p.bias_stddev, true),
            ("dynamic_bias_stddev", &mut p.dynamic_bias_stddev, true),
            (
                "dynamic_bias_correlation_time",
                &mut p.dynamic_bias_correlation_time,
                true,
            ),
            ("precision", &mut p.precision, true),
        ];
        for (name, field, non_negative) in fields {
            let Some(e) = self.child(name) else {
                continue;
            };
            let v = f64::from_text(e.text()).ok_or_else(|| e.error(f64::expected(), e.text()))?;
            if non_negative && v < 0.0 {
                return Err(e.error("zero or positive", e.text()));
            }
            *field = v;
        }
        Ok(p)
    }
}
