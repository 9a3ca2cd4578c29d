//! Reading the `<lidar>` (or legacy `<ray>`) element of a lidar `<sensor>`.
//!
//! Parsed once, when the sensor is created. Invalid values are configuration errors whose
//! message names the sensor's scoped name, the element and the text found there.

use sim_plugin_api::{ALL_VISIBLE, PluginError, RayTarget, noise::NoiseParams};
use simcore_plugin_common::{
    Reader, child, descend, parse_sensor_sdf,
    roxmltree::{self, Node},
    sdf::{element_path, parse_f64},
};

/// One scan axis (`<scan><horizontal>` or `<scan><vertical>`): `samples` rays spread evenly
/// from `min_angle` to `max_angle` (radians).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ScanAxis {
    /// Number of rays along the axis (at least 1).
    pub samples: u32,
    /// Angle of the first ray, rad.
    pub min_angle: f64,
    /// Angle of the last ray, rad.
    pub max_angle: f64,
}

impl ScanAxis {
    /// One ray at angle 0 (the vertical axis of a planar lidar).
    pub const SINGLE: ScanAxis = ScanAxis {
        samples: 1,
        min_angle: 0.0,
        max_angle: 0.0,
    };

    /// The angle between neighbouring rays: `(max - min) / (samples - 1)`, 0 for one sample.
    pub fn step(&self) -> f64 {
        if self.samples > 1 {
            (self.max_angle - self.min_angle) / f64::from(self.samples - 1)
        } else {
            0.0
        }
    }

    /// The angle of ray `i` (`min + i * step`).
    pub fn angle(&self, i: u32) -> f64 {
        self.min_angle + f64::from(i) * self.step()
    }
}

/// The parsed lidar configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct LidarConfig {
    /// `<scan><horizontal>`.
    pub horizontal: ScanAxis,
    /// `<scan><vertical>` ([`ScanAxis::SINGLE`] when absent).
    pub vertical: ScanAxis,
    /// `<range><min>`, m (default 0).
    pub range_min: f64,
    /// `<range><max>`, m (required, greater than the minimum).
    pub range_max: f64,
    /// `<range><resolution>`, m: ranges are quantised to multiples of it when positive.
    pub range_resolution: f64,
    /// `<noise>`, m, applied to every finite range.
    pub noise: NoiseParams,
    /// What the rays see: [`RayTarget::COLLISION`] (default) or, with
    /// `<simcore:visibility>visual</simcore:visibility>`, [`RayTarget::VISUAL`].
    pub target: RayTarget,
    /// `<visibility_mask>` (default every bit): with [`RayTarget::VISUAL`], the rays see the
    /// visuals whose `<visibility_flags>` share a bit with it; collisions carry no flags.
    pub visibility_mask: u32,
}

impl LidarConfig {
    /// A planar scan of `samples` rays from `min_angle` to `max_angle` with ranges
    /// `[range_min, range_max]`, no noise, seeing collisions.
    pub fn planar(
        samples: u32,
        min_angle: f64,
        max_angle: f64,
        range_min: f64,
        range_max: f64,
    ) -> Self {
        LidarConfig {
            horizontal: ScanAxis {
                samples,
                min_angle,
                max_angle,
            },
            vertical: ScanAxis::SINGLE,
            range_min,
            range_max,
            range_resolution: 0.0,
            noise: NoiseParams::default(),
            target: RayTarget::COLLISION,
            visibility_mask: ALL_VISIBLE,
        }
    }

    /// Number of rays per scan (horizontal × vertical samples).
    pub fn ray_count(&self) -> usize {
        self.horizontal.samples as usize * self.vertical.samples as usize
    }

    /// Parses the `<lidar>` (or, when there is none, `<ray>`) child of a `<sensor>` element
    /// given as XML text. `sensor` (the scoped name) is used in error messages.
    pub fn parse(sensor_sdf: &str, sensor: &str) -> Result<LidarConfig, PluginError> {
        let missing = || {
            PluginError::config(format!(
                "{sensor}: a lidar needs a <lidar> (or <ray>) element with \
                 <scan><horizontal><samples> and <range><max>"
            ))
        };
        let doc = parse_sensor_sdf(sensor_sdf, sensor)?.ok_or_else(missing)?;
        let root = doc.root_element();
        let (name, lidar) = match (child(root, "lidar"), child(root, "ray")) {
            (Some(l), _) => ("lidar", l),
            (None, Some(r)) => ("ray", r),
            (None, None) => return Err(missing()),
        };
        let r = Reader::new(sensor);
        let horizontal = match descend(lidar, &["scan", "horizontal"]) {
            Some(_) => axis(&r, lidar, name, "horizontal", None)?,
            None => {
                return Err(PluginError::config(format!(
                    "{sensor}: <{name}><scan><horizontal> is required (with <samples>)"
                )));
            }
        };
        let vertical = match descend(lidar, &["scan", "vertical"]) {
            Some(_) => axis(&r, lidar, name, "vertical", Some(1))?,
            None => ScanAxis::SINGLE,
        };

        let range_min = number(&r, lidar, name, &["range", "min"])?.unwrap_or(0.0);
        if range_min < 0.0 {
            return Err(r.error(
                &format!("<{name}><range><min>"),
                "zero or positive",
                &text_at(lidar, &["range", "min"]),
            ));
        }
        let range_max = number(&r, lidar, name, &["range", "max"])?.ok_or_else(|| {
            PluginError::config(format!("{sensor}: <{name}><range><max> is required"))
        })?;
        if range_max <= range_min {
            return Err(r.error(
                &format!("<{name}><range><max>"),
                &format!("greater than <range><min> ({range_min})"),
                &text_at(lidar, &["range", "max"]),
            ));
        }
        let range_resolution = number(&r, lidar, name, &["range", "resolution"])?.unwrap_or(0.0);
        if range_resolution < 0.0 {
            return Err(r.error(
                &format!("<{name}><range><resolution>"),
                "zero or positive",
                &text_at(lidar, &["range", "resolution"]),
            ));
        }

        let noise = match child(lidar, "noise") {
            Some(n) => r.noise(n, &format!("<{name}><noise>"))?,
            None => NoiseParams::default(),
        };

        let target = match visibility(lidar) {
            None => RayTarget::COLLISION,
            Some(text) => match text.trim().to_ascii_lowercase().as_str() {
                "collision" | "collisions" => RayTarget::COLLISION,
                "visual" | "visuals" => RayTarget::VISUAL,
                _ => {
                    return Err(r.error(
                        &format!("<{name}><simcore:visibility>"),
                        "collision or visual",
                        &text,
                    ));
                }
            },
        };

        let visibility_mask = r.visibility_mask(lidar, name)?;

        Ok(LidarConfig {
            horizontal,
            vertical,
            range_min,
            range_max,
            range_resolution,
            noise,
            target,
            visibility_mask,
        })
    }
}

/// The number in the element at `path` below the lidar element `lidar` (named `name` in
/// messages), or `None` when absent; text that is not a finite number is an error.
fn number(
    r: &Reader<'_>,
    lidar: Node<'_, '_>,
    name: &str,
    path: &[&str],
) -> Result<Option<f64>, PluginError> {
    let Some(e) = descend(lidar, path) else {
        return Ok(None);
    };
    let text = e.text().unwrap_or("");
    parse_f64(text).map(Some).ok_or_else(|| {
        r.error(
            &format!("<{name}>{}", element_path(path)),
            "a finite number",
            text,
        )
    })
}

/// The trimmed text of the element at `path` below `node` (empty when absent).
fn text_at(node: Node<'_, '_>, path: &[&str]) -> String {
    descend(node, path)
        .and_then(|e| e.text())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// The text of the `<simcore:visibility>` child of `lidar`, whether the prefix is declared
/// (any namespace, local name `visibility`) or was repaired by the engine (`simcore.visibility`).
fn visibility(lidar: Node<'_, '_>) -> Option<String> {
    lidar
        .children()
        .filter(|c| c.is_element())
        .find(|c| {
            let t = c.tag_name();
            (t.name() == "visibility" && t.namespace().is_some())
                || t.name() == "simcore.visibility"
        })
        .map(|e| e.text().unwrap_or("").to_string())
}

/// The `<scan><vertical><resolution>` of a `<sensor>` element given as XML text when it is
/// not 1 (it is ignored: `samples` rows are cast, as gz-sim's CPU lidar does).
pub fn ignored_vertical_resolution(sensor_sdf: &str) -> Option<f64> {
    let doc = roxmltree::Document::parse(sensor_sdf).ok()?;
    let root = doc.root_element();
    let lidar = child(root, "lidar").or_else(|| child(root, "ray"))?;
    let text = descend(lidar, &["scan", "vertical", "resolution"])?.text()?;
    text.trim().parse::<f64>().ok().filter(|r| *r != 1.0)
}

/// Reads `<scan><axis>` of the lidar element `lidar` (named `name` in messages); `samples`
/// is its default sample count (`None`: required).
fn axis(
    r: &Reader<'_>,
    lidar: Node<'_, '_>,
    name: &str,
    axis: &str,
    samples: Option<u32>,
) -> Result<ScanAxis, PluginError> {
    let path = |leaf: &'static str| ["scan", axis, leaf];
    let element = |leaf: &str| format!("<{name}><scan><{axis}><{leaf}>");
    let samples = match descend(lidar, &path("samples")) {
        Some(e) => {
            let text = e.text().unwrap_or("");
            text.trim()
                .parse::<u32>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| r.error(&element("samples"), "a whole number of at least 1", text))?
        }
        None => samples.ok_or_else(|| {
            PluginError::config(format!(
                "{}: {} is required",
                r.sensor(),
                element("samples")
            ))
        })?,
    };
    if let Some(res) = number(r, lidar, name, &path("resolution"))?
        && res != 1.0
    {
        // gz-sim's CPU lidar ignores the vertical resolution and casts `samples` rows; the
        // horizontal one would change the scan's length, so it is refused.
        if axis != "vertical" || res <= 0.0 {
            return Err(r.error(
                &element("resolution"),
                if axis == "vertical" {
                    "a positive number"
                } else {
                    "1 (interpolated resolutions are not supported yet)"
                },
                &text_at(lidar, &path("resolution")),
            ));
        }
    }
    let min_angle = number(r, lidar, name, &path("min_angle"))?.unwrap_or(0.0);
    let max_angle = number(r, lidar, name, &path("max_angle"))?.unwrap_or(0.0);
    Ok(ScanAxis {
        samples,
        min_angle,
        max_angle,
    })
}
