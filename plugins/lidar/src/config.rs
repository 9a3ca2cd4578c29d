//! Reading the `<lidar>` (or legacy `<ray>`) element of a lidar `<sensor>`.
//!
//! Read once, when the sensor is created, from the parsed `<sensor>` element
//! ([`LidarConfig::read`]). Invalid values are configuration errors whose message names the
//! sensor's scoped name, the element, the text found there and its place in the world file.

use sim_plugin_api::sdf::{Element, SdfError};
use sim_plugin_api::{ALL_VISIBLE, PluginError, RayTarget, noise::NoiseParams};
use simcore_plugin_common::visibility_mask;

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

    /// Reads the `<lidar>` (or, when there is none, `<ray>`) child of `sensor` (the
    /// `<sensor>` element).
    pub fn read(sensor: &Element<'_, '_>) -> Result<LidarConfig, PluginError> {
        let Some(lidar) = lidar_element(sensor) else {
            return Err(SdfError::missing(
                sensor.document().origin(),
                "<lidar> (or <ray>)",
                "with <scan><horizontal><samples> and <range><max>",
                sensor.place(),
            )
            .into());
        };
        let horizontal = axis(
            &lidar.require_element("scan/horizontal", "with <samples>")?,
            None,
        )?;
        let vertical = match lidar.find("scan/vertical") {
            Some(v) => axis(&v, Some(1))?,
            None => ScanAxis::SINGLE,
        };
        let range_min = lidar.param::<f64>("range/min").non_negative().or(0.0)?;
        let range_max = lidar
            .param::<f64>("range/max")
            .check(
                format!("greater than <range><min> ({range_min})"),
                move |m| *m > range_min,
            )
            .required()?;
        let range_resolution = lidar
            .param::<f64>("range/resolution")
            .non_negative()
            .or(0.0)?;
        Ok(LidarConfig {
            horizontal,
            vertical,
            range_min,
            range_max,
            range_resolution,
            noise: sensor.noise(lidar.name())?,
            target: target(&lidar)?,
            visibility_mask: visibility_mask(&lidar)?,
        })
    }
}

/// The `<lidar>` child of `sensor`, else its `<ray>` child.
fn lidar_element<'a, 't>(sensor: &Element<'a, 't>) -> Option<Element<'a, 't>> {
    sensor.child("lidar").or_else(|| sensor.child("ray"))
}

/// What the rays of `lidar` see: `<simcore:visibility>`, whether the prefix is declared (any
/// namespace, local name `visibility`) or was repaired by the engine (`simcore.visibility`);
/// collisions when absent.
fn target(lidar: &Element<'_, '_>) -> Result<RayTarget, SdfError> {
    let Some(e) = lidar.children().find(|c| {
        (c.name() == "visibility" && c.namespace().is_some()) || c.name() == "simcore.visibility"
    }) else {
        return Ok(RayTarget::COLLISION);
    };
    match e.text().to_ascii_lowercase().as_str() {
        "collision" | "collisions" => Ok(RayTarget::COLLISION),
        "visual" | "visuals" => Ok(RayTarget::VISUAL),
        // Named as written in the world, whichever way the engine handed the prefix over.
        _ => Err(SdfError::new(
            e.document().origin(),
            format!("{}<simcore:visibility>", lidar.path()),
            "collision or visual",
            e.text(),
            e.place(),
        )),
    }
}

/// The `<scan><vertical><resolution>` of `sensor` (the `<sensor>` element) when it is not 1
/// (it is ignored: `samples` rows are cast, as gz-sim's CPU lidar does).
pub fn ignored_vertical_resolution(sensor: &Element<'_, '_>) -> Option<f64> {
    lidar_element(sensor)?
        .get::<f64>("scan/vertical/resolution")
        .ok()
        .flatten()
        .filter(|r| *r != 1.0)
}

/// Reads a scan axis (`<scan><horizontal>` or `<scan><vertical>`); `samples` is its default
/// sample count (`None`: required).
fn axis(axis: &Element<'_, '_>, samples: Option<u32>) -> Result<ScanAxis, SdfError> {
    const SAMPLES: &str = "a whole number of at least 1";
    let samples = match (axis.child("samples"), samples) {
        (Some(e), _) => e
            .text()
            .parse::<u32>()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| e.error(SAMPLES, e.text()))?,
        (None, Some(default)) => default,
        (None, None) => return Err(axis.missing("samples", SAMPLES)),
    };
    let vertical = axis.name() == "vertical";
    // gz-sim's CPU lidar ignores the vertical resolution and casts `samples` rows; the
    // horizontal one would change the scan's length, so it is refused.
    let resolution = if vertical {
        "a positive number"
    } else {
        "1 (interpolated resolutions are not supported yet)"
    };
    axis.param::<f64>("resolution")
        .check(resolution, move |&r| r == 1.0 || (vertical && r > 0.0))
        .get()?;
    Ok(ScanAxis {
        samples,
        min_angle: axis.get_or("min_angle", 0.0)?,
        max_angle: axis.get_or("max_angle", 0.0)?,
    })
}
