//! Reading the `<camera>` element of a camera `<sensor>`.
//!
//! Parsed once, when the sensor is created; defaults are those of SDF 1.12
//! (`sdf/1.12/camera.sdf`). Invalid values are configuration errors naming the sensor, the
//! element and the text found there.

use crate::model::{Distortion, Intrinsics, Projection};
use sim_plugin_api::{PixelFormat, PluginError, noise::NoiseParams};
use simcore_plugin_common::{
    Reader, child, descend, parse_sensor_sdf, roxmltree::Node, sdf::parse_f64, text,
};
use std::path::PathBuf;

/// The pixel formats the colour cameras produce.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// `R8G8B8` / `RGB_INT8`: three bytes per pixel, red first.
    Rgb8,
    /// `B8G8R8` / `BGR_INT8`: three bytes per pixel, blue first.
    Bgr8,
    /// `L8` / `L_INT8`: one byte of grey (Rec. 601 luma) per pixel.
    L8,
    /// `L16` / `L_INT16`: two bytes of grey per pixel, little-endian.
    L16,
}

impl ImageFormat {
    /// The format an SDF `<image><format>` names, or `None` for one this plugin cannot make.
    pub fn from_sdf(name: &str) -> Option<ImageFormat> {
        Some(match name.trim() {
            "R8G8B8" | "RGB_INT8" => ImageFormat::Rgb8,
            "B8G8R8" | "BGR_INT8" | "BGR8" => ImageFormat::Bgr8,
            "L8" | "L_INT8" => ImageFormat::L8,
            "L16" | "L_INT16" => ImageFormat::L16,
            _ => return None,
        })
    }

    /// Bytes per pixel.
    pub fn bytes_per_pixel(self) -> u32 {
        match self {
            ImageFormat::Rgb8 | ImageFormat::Bgr8 => 3,
            ImageFormat::L8 => 1,
            ImageFormat::L16 => 2,
        }
    }

    /// The gz-msgs pixel format of images in this format.
    pub fn pixel_format(self) -> PixelFormat {
        match self {
            ImageFormat::Rgb8 => PixelFormat::RGB_INT8,
            ImageFormat::Bgr8 => PixelFormat::BGR_INT8,
            ImageFormat::L8 => PixelFormat::L_INT8,
            ImageFormat::L16 => PixelFormat::L_INT16,
        }
    }
}

/// `<save enabled="true"><path>`: write every frame as a PNG file into `path`.
#[derive(Clone, Debug, PartialEq)]
pub struct SaveConfig {
    /// The directory (relative paths are relative to the working directory of the run).
    pub path: PathBuf,
}

/// The environment variable that lets `<camera><save><path>` be absolute or leave the
/// working directory (a world from a stranger must not write anywhere else).
pub const SAVE_ANYWHERE_ENV: &str = "SIMCORE_SAVE_ANYWHERE";

/// Why the output directory `path` is not inside the working directory: it is absolute, or
/// goes up with `..`.
pub fn escapes_working_dir(path: &std::path::Path) -> Option<&'static str> {
    use std::path::Component;
    if path.is_absolute() || path.has_root() {
        return Some("is absolute");
    }
    path.components()
        .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
        .then_some("leaves the working directory with `..`")
}

/// The parsed `<camera>` element.
#[derive(Clone, Debug, PartialEq)]
pub struct CameraConfig {
    /// `<horizontal_fov>`, rad, in (0.001, π) for a pinhole, (0.001, 2π] for a wide-angle
    /// camera (default 1.047).
    pub horizontal_fov: f64,
    /// `<image><width>` (default 320).
    pub width: u32,
    /// `<image><height>` (default 240).
    pub height: u32,
    /// `<image><format>` (default R8G8B8). Depth and segmentation cameras ignore it.
    pub format: ImageFormat,
    /// `<clip><near>`, m (default 0.1).
    pub near: f64,
    /// `<clip><far>`, m (default 100).
    pub far: f64,
    /// `<depth_camera><clip>` (near, far), when given: the depth range of the RGB-D camera's
    /// depth image (a `depth` camera does not read it, as in gz-sensors).
    pub depth_clip: Option<(f64, f64)>,
    /// `<lens><intrinsics>` when given (else derived from the field of view).
    pub intrinsics: Option<Intrinsics>,
    /// `<lens><projection>` when given: camera_info's P, and the model the image is rendered
    /// with.
    pub projection: Option<Projection>,
    /// `<distortion>` (none by default).
    pub distortion: Distortion,
    /// `<noise>`: only `mean` and `stddev` are used (per pixel and channel, in [0, 1] for
    /// colour, in metres for depth).
    pub noise: NoiseParams,
    /// `<save enabled="true">`.
    pub save: Option<SaveConfig>,
    /// `<camera_info_topic>` when given.
    pub camera_info_topic: Option<String>,
    /// `<segmentation_type>`: `semantic` (default), `instance` or `panoptic`.
    pub segmentation_type: String,
    /// `<visibility_mask>` (default every bit): the camera sees the visuals whose
    /// `<visibility_flags>` share a bit with it.
    pub visibility_mask: u32,
}

impl Default for CameraConfig {
    fn default() -> Self {
        CameraConfig {
            horizontal_fov: 1.047,
            width: 320,
            height: 240,
            format: ImageFormat::Rgb8,
            near: 0.1,
            far: 100.0,
            depth_clip: None,
            intrinsics: None,
            projection: None,
            distortion: Distortion::NONE,
            noise: NoiseParams::default(),
            save: None,
            camera_info_topic: None,
            segmentation_type: "semantic".into(),
            visibility_mask: sim_plugin_api::ALL_VISIBLE,
        }
    }
}

/// Largest image side accepted (a 16k x 16k image is already 768 MB of RGB).
const MAX_SIDE: u32 = 16384;

impl CameraConfig {
    /// The intrinsics in use: `<lens><intrinsics>` when given, else the symmetric pinhole of
    /// the field of view (fx = fy = W / (2 tan(hfov / 2)), cx = W / 2, cy = H / 2).
    pub fn effective_intrinsics(&self) -> Intrinsics {
        self.intrinsics
            .unwrap_or_else(|| Intrinsics::from_hfov(self.width, self.height, self.horizontal_fov))
    }

    /// The model the image is rendered with: `<lens><projection>`'s focal lengths and
    /// principal point (no skew) when given, as gz-sensors renders it, else
    /// [`CameraConfig::effective_intrinsics`].
    pub fn render_intrinsics(&self) -> Intrinsics {
        self.projection
            .map_or_else(|| self.effective_intrinsics(), |p| p.intrinsics())
    }

    /// camera_info's P: `<lens><projection>` when given, else K's values with no translation.
    pub fn projection_matrix(&self) -> [f64; 12] {
        self.projection.map_or_else(
            || {
                let k = self.effective_intrinsics();
                [
                    k.fx, k.s, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0,
                ]
            },
            |p| p.matrix(),
        )
    }

    /// The depth range of an RGB-D camera's depth image: `<depth_camera><clip>` when given,
    /// else `<clip>` (gz-sensors' `RgbdCameraSensor` reads the former; a `depth` camera uses
    /// `<clip>` only).
    pub fn depth_range(&self) -> (f64, f64) {
        self.depth_clip.unwrap_or((self.near, self.far))
    }

    /// Checks a horizontal field of view (rad) for a pinhole camera.
    pub fn check_hfov(hfov: f64) -> Result<f64, String> {
        if hfov.is_finite() && hfov > 0.001 && hfov < std::f64::consts::PI {
            Ok(hfov)
        } else {
            Err(format!(
                "a pinhole camera's horizontal field of view must be between 0.001 and π rad \
                 (exclusive), found {hfov}"
            ))
        }
    }

    /// Checks a horizontal field of view (rad) for a wide-angle camera: in (0.001, 2π].
    pub fn check_wide_hfov(hfov: f64) -> Result<f64, String> {
        if hfov.is_finite() && hfov > 0.001 && hfov <= std::f64::consts::TAU {
            Ok(hfov)
        } else {
            Err(format!(
                "a wide-angle camera's horizontal field of view must be above 0.001 and at \
                 most 2π rad, found {hfov}"
            ))
        }
    }

    /// The `camera_info` topic of a camera whose image goes to `image_topic`:
    /// `<camera_info_topic>`, else beside the image topic (see
    /// [`sibling_topic`]).
    pub fn info_topic(&self, image_topic: &str) -> String {
        match &self.camera_info_topic {
            Some(t) if t.starts_with('/') => t.clone(),
            Some(t) => format!("/{t}"),
            None => sibling_topic(image_topic, "camera_info"),
        }
    }

    /// Parses the `<camera>` child of a `<sensor>` element given as XML text. `sensor` (the
    /// scoped name) is used in error messages. A sensor without `<camera>` gets the defaults.
    pub fn parse(sensor_sdf: &str, sensor: &str) -> Result<CameraConfig, PluginError> {
        let mut c = CameraConfig::default();
        let Some(doc) = parse_sensor_sdf(sensor_sdf, sensor)? else {
            return Ok(c);
        };
        let Some(cam) = child(doc.root_element(), "camera") else {
            return Ok(c);
        };
        let r = Reader::new(sensor);
        c.visibility_mask = r.visibility_mask(cam, "camera")?;
        // A wide-angle camera reads its own `<lens>` and may see more than a half space.
        let wide = doc
            .root_element()
            .attribute("type")
            .is_some_and(is_wide_angle_type);

        if let Some(h) = r.number(cam, &["horizontal_fov"])? {
            let checked = if wide {
                CameraConfig::check_wide_hfov(h)
            } else {
                CameraConfig::check_hfov(h)
            };
            c.horizontal_fov = checked.map_err(|m| {
                PluginError::config(format!("{sensor}: <camera><horizontal_fov>: {m}"))
            })?;
        }
        if let Some(image) = child(cam, "image") {
            c.width = side(&r, image, "width", c.width)?;
            c.height = side(&r, image, "height", c.height)?;
            // A depth camera's image is always float32 depths (gz-sensors renders R_FLOAT32
            // whatever `<format>` says), so its format is not read.
            let depth = matches!(
                doc.root_element().attribute("type"),
                Some("depth_camera" | "depth")
            );
            if let Some(f) = text(image, "format")
                && !f.is_empty()
                && !depth
            {
                c.format = ImageFormat::from_sdf(f).ok_or_else(|| {
                    r.error(
                        "<camera><image><format>",
                        "one of R8G8B8 (RGB_INT8), B8G8R8 (BGR_INT8), L8 (L_INT8), L16 \
                         (L_INT16)",
                        f,
                    )
                })?;
            }
        }
        if let Some(clip) = child(cam, "clip") {
            (c.near, c.far) = clip_of(&r, clip, "<camera><clip>", (c.near, c.far))?;
        }
        if let Some(clip) = descend(cam, &["depth_camera", "clip"]) {
            c.depth_clip = Some(clip_of(
                &r,
                clip,
                "<camera><depth_camera><clip>",
                (c.near, c.far),
            )?);
        }
        if let Some(intr) = descend(cam, &["lens", "intrinsics"]) {
            let d = Intrinsics::from_hfov(c.width, c.height, c.horizontal_fov);
            let num = |name: &str, default: f64| -> Result<f64, PluginError> {
                Ok(r.number(intr, &[name])?.unwrap_or(default))
            };
            let i = Intrinsics {
                fx: num("fx", d.fx)?,
                fy: num("fy", d.fy)?,
                cx: num("cx", d.cx)?,
                cy: num("cy", d.cy)?,
                s: num("s", 0.0)?,
            };
            positive_focal_lengths(&r, "intrinsics", [("fx", i.fx), ("fy", i.fy)])?;
            c.intrinsics = Some(i);
        }
        if let Some(proj) = descend(cam, &["lens", "projection"]) {
            // Elements left out default to K's values (tx, ty to 0).
            let k = c.effective_intrinsics();
            let num = |name: &str, default: f64| -> Result<f64, PluginError> {
                Ok(r.number(proj, &[name])?.unwrap_or(default))
            };
            let p = Projection {
                fx: num("p_fx", k.fx)?,
                fy: num("p_fy", k.fy)?,
                cx: num("p_cx", k.cx)?,
                cy: num("p_cy", k.cy)?,
                tx: num("tx", 0.0)?,
                ty: num("ty", 0.0)?,
            };
            positive_focal_lengths(&r, "projection", [("p_fx", p.fx), ("p_fy", p.fy)])?;
            c.projection = Some(p);
        }
        if let Some(d) = child(cam, "distortion") {
            let num = |name: &str| -> Result<f64, PluginError> {
                Ok(r.number(d, &[name])?.unwrap_or(0.0))
            };
            let center = match child(d, "center") {
                Some(e) => {
                    let t = e.text().unwrap_or("");
                    let v: Vec<f64> = t.split_whitespace().filter_map(parse_f64).collect();
                    if v.len() != 2 || t.split_whitespace().count() != 2 {
                        return Err(r.error(
                            "<camera><distortion><center>",
                            "two numbers (x y, as fractions of the image size)",
                            t,
                        ));
                    }
                    [v[0], v[1]]
                }
                None => [0.5, 0.5],
            };
            c.distortion = Distortion {
                k1: num("k1")?,
                k2: num("k2")?,
                k3: num("k3")?,
                p1: num("p1")?,
                p2: num("p2")?,
                center,
            };
        }
        if let Some(n) = child(cam, "noise") {
            c.noise = r.noise(n, "<camera><noise>")?;
        }
        if let Some(save) = child(cam, "save") {
            let enabled = match save.attribute("enabled") {
                Some(t) => simcore_plugin_common::parse_bool(t)
                    .ok_or_else(|| r.error("<camera><save enabled>", "true, false, 1 or 0", t))?,
                None => false,
            };
            if enabled {
                let path = text(save, "path").unwrap_or("");
                if path.is_empty() {
                    return Err(PluginError::config(format!(
                        "{sensor}: <camera><save enabled=\"true\"> needs a <path> (the \
                         directory the PNG frames are written to)"
                    )));
                }
                let path = PathBuf::from(path);
                if let Some(problem) = escapes_working_dir(&path)
                    && std::env::var_os(SAVE_ANYWHERE_ENV).is_none_or(|v| v.is_empty())
                {
                    return Err(PluginError::config(format!(
                        "{sensor}: <camera><save><path> \"{}\" {problem}; a world writes only \
                         inside the working directory (set {SAVE_ANYWHERE_ENV}=1 to allow it)",
                        path.display()
                    )));
                }
                c.save = Some(SaveConfig { path });
            }
        }
        c.camera_info_topic = text(cam, "camera_info_topic")
            .or_else(|| text(doc.root_element(), "camera_info_topic"))
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        if let Some(t) = text(cam, "segmentation_type")
            && !t.is_empty()
        {
            let t = t.to_ascii_lowercase();
            if !["semantic", "instance", "panoptic"].contains(&t.as_str()) {
                return Err(r.error(
                    "<camera><segmentation_type>",
                    "semantic, instance or panoptic",
                    &t,
                ));
            }
            c.segmentation_type = t;
        }
        if !wide
            && let Some(lens) = child(cam, "lens")
            && let Some(t) = text(lens, "type")
            && !t.is_empty()
            && t != "gnomonical"
        {
            return Err(r.error(
                "<camera><lens><type>",
                "gnomonical (this camera is a pinhole; wide-angle lenses are not supported)",
                t,
            ));
        }
        Ok(c)
    }
}

/// Whether an SDF sensor type names the wide-angle camera (`wideanglecamera`,
/// `wide_angle_camera`): its `<lens><type>` is not refused and its field of view may reach
/// 2π.
pub fn is_wide_angle_type(sensor_type: &str) -> bool {
    matches!(sensor_type, "wideanglecamera" | "wide_angle_camera")
}

/// Checks that the focal lengths `(name, value)` of `<camera><lens><block>` are above 0.
fn positive_focal_lengths(
    r: &Reader<'_>,
    block: &str,
    lengths: [(&str, f64); 2],
) -> Result<(), PluginError> {
    match lengths.iter().find(|(_, v)| *v <= 0.0) {
        Some((name, v)) => Err(r.error(
            &format!("<camera><lens><{block}><{name}>"),
            "greater than 0 (a focal length in pixels)",
            &v.to_string(),
        )),
        None => Ok(()),
    }
}

/// `<image><width|height>`: a whole number from 1 to [`MAX_SIDE`].
fn side(r: &Reader<'_>, image: Node<'_, '_>, name: &str, default: u32) -> Result<u32, PluginError> {
    match text(image, name) {
        None => Ok(default),
        Some(t) => t
            .parse::<u32>()
            .ok()
            .filter(|v| (1..=MAX_SIDE).contains(v))
            .ok_or_else(|| {
                r.error(
                    &format!("<camera><image><{name}>"),
                    &format!("a whole number of pixels from 1 to {MAX_SIDE}"),
                    t,
                )
            }),
    }
}

/// A `<clip>` element: `near` > 0, `far` > `near`.
fn clip_of(
    r: &Reader<'_>,
    clip: Node<'_, '_>,
    path: &str,
    (near, far): (f64, f64),
) -> Result<(f64, f64), PluginError> {
    let near = r.number(clip, &["near"])?.unwrap_or(near);
    let far = r.number(clip, &["far"])?.unwrap_or(far);
    if near <= 0.0 {
        return Err(r.error(
            &format!("{path}<near>"),
            "greater than 0",
            &near.to_string(),
        ));
    }
    if far <= near {
        return Err(r.error(
            &format!("{path}<far>"),
            &format!("greater than <near> ({near})"),
            &far.to_string(),
        ));
    }
    Ok((near, far))
}

/// The topic beside `topic`: its last path element replaced by `name`
/// (`/a/b/image` → `/a/b/camera_info`), as gz-sensors names `camera_info`.
pub fn sibling_topic(topic: &str, name: &str) -> String {
    match topic.rfind('/') {
        Some(i) => format!("{}/{name}", &topic[..i]),
        None => format!("/{name}"),
    }
}
