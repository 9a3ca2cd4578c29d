//! Reading the `<camera>` element of a camera `<sensor>`.
//!
//! Read once, when the sensor is created, from the parsed `<sensor>` element
//! ([`CameraConfig::read`]); defaults are those of SDF 1.12 (`sdf/1.12/camera.sdf`). Invalid
//! values are configuration errors naming the sensor, the element, the text found there and
//! its place in the world file.

use crate::model::{CameraModel, Distortion, Intrinsics, Projection};
use sim_plugin_api::sdf::{Element, FromSdf, SdfError};
use sim_plugin_api::{CameraInfo, PixelFormat, PluginError, noise::NoiseParams};
use simcore_plugin_common::{upper_bound, visibility_mask};
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

/// What a pinhole camera's horizontal field of view must be, in messages.
const PINHOLE_HFOV: &str = "between 0.001 and π rad (exclusive)";

/// What a wide-angle camera's horizontal field of view must be, in messages.
const WIDE_HFOV: &str = "above 0.001 and at most 2π rad";

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

    /// The `camera_info` of this configuration: K from
    /// [`CameraConfig::effective_intrinsics`], P from [`CameraConfig::projection_matrix`], the
    /// distortion (see [`CameraModel::camera_info`]).
    pub fn camera_info(&self) -> CameraInfo {
        let mut info = CameraModel {
            width: self.width,
            height: self.height,
            intrinsics: self.effective_intrinsics(),
            distortion: self.distortion,
        }
        .camera_info();
        info.projection = self.projection_matrix();
        info
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

    /// Checks a horizontal field of view (rad) for a pinhole camera.
    pub fn check_hfov(hfov: f64) -> Result<f64, String> {
        if hfov.is_finite() && hfov > 0.001 && hfov < std::f64::consts::PI {
            Ok(hfov)
        } else {
            Err(format!(
                "a pinhole camera's horizontal field of view must be {PINHOLE_HFOV}, found {hfov}"
            ))
        }
    }

    /// Checks a horizontal field of view (rad) for a wide-angle camera: in (0.001, 2π].
    pub fn check_wide_hfov(hfov: f64) -> Result<f64, String> {
        if hfov.is_finite() && hfov > 0.001 && hfov <= std::f64::consts::TAU {
            Ok(hfov)
        } else {
            Err(format!(
                "a wide-angle camera's horizontal field of view must be {WIDE_HFOV}, found {hfov}"
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

    /// Reads the `<camera>` child of `sensor` (the `<sensor>` element, whose `type` decides
    /// what a field of view may be and whether `<image><format>` is read). A sensor without
    /// `<camera>` gets the defaults.
    pub fn read(sensor: &Element<'_, '_>) -> Result<CameraConfig, PluginError> {
        let mut c = CameraConfig::default();
        let Some(cam) = sensor.child("camera") else {
            return Ok(c);
        };
        c.visibility_mask = visibility_mask(&cam)?;
        let kind = sensor.attribute("type");
        // A wide-angle camera reads its own `<lens>` and may see more than a half space.
        let wide = kind.is_some_and(is_wide_angle_type);
        let (rule, fits): (_, fn(f64) -> bool) = if wide {
            (format!("{WIDE_HFOV} for a wide-angle camera"), |h| {
                CameraConfig::check_wide_hfov(h).is_ok()
            })
        } else {
            (format!("{PINHOLE_HFOV} for a pinhole camera"), |h| {
                CameraConfig::check_hfov(h).is_ok()
            })
        };
        c.horizontal_fov = cam
            .param::<f64>("horizontal_fov")
            .check(rule, move |h| fits(*h))
            .or(c.horizontal_fov)?;
        if let Some(image) = cam.child("image") {
            c.width = side(&image, "width", c.width)?;
            c.height = side(&image, "height", c.height)?;
            // A depth camera's image is always float32 depths (gz-sensors renders R_FLOAT32
            // whatever `<format>` says), so its format is not read.
            let depth = matches!(kind, Some("depth_camera" | "depth"));
            if let Some(f) = image.child("format")
                && !f.text().is_empty()
                && !depth
            {
                c.format = ImageFormat::from_sdf(f.text()).ok_or_else(|| {
                    f.error(
                        "one of R8G8B8 (RGB_INT8), B8G8R8 (BGR_INT8), L8 (L_INT8), L16 \
                         (L_INT16)",
                        f.text(),
                    )
                })?;
            }
        }
        if let Some(clip) = cam.child("clip") {
            (c.near, c.far) = clip_of(&clip, (c.near, c.far))?;
        }
        if let Some(clip) = cam.find("depth_camera/clip") {
            c.depth_clip = Some(clip_of(&clip, (c.near, c.far))?);
        }
        if let Some(intr) = cam.find("lens/intrinsics") {
            let d = Intrinsics::from_hfov(c.width, c.height, c.horizontal_fov);
            c.intrinsics = Some(Intrinsics {
                fx: focal_length(&intr, "fx", d.fx)?,
                fy: focal_length(&intr, "fy", d.fy)?,
                cx: intr.get_or("cx", d.cx)?,
                cy: intr.get_or("cy", d.cy)?,
                s: intr.get_or("s", 0.0)?,
            });
        }
        if let Some(proj) = cam.find("lens/projection") {
            // Elements left out default to K's values (tx, ty to 0).
            let k = c.effective_intrinsics();
            c.projection = Some(Projection {
                fx: focal_length(&proj, "p_fx", k.fx)?,
                fy: focal_length(&proj, "p_fy", k.fy)?,
                cx: proj.get_or("p_cx", k.cx)?,
                cy: proj.get_or("p_cy", k.cy)?,
                tx: proj.get_or("tx", 0.0)?,
                ty: proj.get_or("ty", 0.0)?,
            });
        }
        if let Some(d) = cam.child("distortion") {
            let center = match d.child("center") {
                Some(e) => center_of(e.text()).ok_or_else(|| {
                    e.error(
                        "two numbers (x y, as fractions of the image size)",
                        e.text(),
                    )
                })?,
                None => [0.5, 0.5],
            };
            c.distortion = Distortion {
                k1: d.get_or("k1", 0.0)?,
                k2: d.get_or("k2", 0.0)?,
                k3: d.get_or("k3", 0.0)?,
                p1: d.get_or("p1", 0.0)?,
                p2: d.get_or("p2", 0.0)?,
                center,
            };
        }
        c.noise = sensor.noise("camera")?;
        if let Some(save) = cam.child("save") {
            c.save = save_of(&save)?;
        }
        c.camera_info_topic = cam
            .child("camera_info_topic")
            .or_else(|| sensor.child("camera_info_topic"))
            .map(|e| e.text())
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        if let Some(e) = cam.child("segmentation_type")
            && !e.text().is_empty()
        {
            let t = e.text().to_ascii_lowercase();
            if !["semantic", "instance", "panoptic"].contains(&t.as_str()) {
                return Err(e.error("semantic, instance or panoptic", e.text()).into());
            }
            c.segmentation_type = t;
        }
        if !wide
            && let Some(t) = cam.find("lens/type")
            && !t.text().is_empty()
            && t.text() != "gnomonical"
        {
            return Err(t
                .error(
                    "gnomonical (this camera is a pinhole; wide-angle lenses are not supported)",
                    t.text(),
                )
                .into());
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

/// A focal length of `<camera><lens><intrinsics>` or `<projection>`: the child `name` of
/// `block`, above 0, or `default` when absent.
fn focal_length(block: &Element<'_, '_>, name: &str, default: f64) -> Result<f64, SdfError> {
    block
        .param::<f64>(name)
        .check("greater than 0 (a focal length in pixels)", |v| *v > 0.0)
        .or(default)
}

/// `<distortion><center>`: exactly two finite numbers.
fn center_of(text: &str) -> Option<[f64; 2]> {
    let mut words = text.split_whitespace().map(f64::from_text);
    match (words.next(), words.next(), words.next()) {
        (Some(Some(x)), Some(Some(y)), None) => Some([x, y]),
        _ => None,
    }
}

/// `<image><width|height>`: a whole number from 1 to [`MAX_SIDE`], or `default` when absent.
fn side(image: &Element<'_, '_>, name: &str, default: u32) -> Result<u32, SdfError> {
    let Some(e) = image.child(name) else {
        return Ok(default);
    };
    e.text()
        .parse::<u32>()
        .ok()
        .filter(|v| (1..=MAX_SIDE).contains(v))
        .ok_or_else(|| {
            e.error(
                format!("a whole number of pixels from 1 to {MAX_SIDE}"),
                e.text(),
            )
        })
}

/// A `<clip>` element: `near` > 0, `far` > `near`, each defaulting to the one given.
fn clip_of(clip: &Element<'_, '_>, (near, far): (f64, f64)) -> Result<(f64, f64), SdfError> {
    let near = clip.param::<f64>("near").positive().or(near)?;
    Ok((near, upper_bound(clip, ("near", near), "far", far)?))
}

/// `<save enabled="...">`: the directory to write frames into when enabled, which must be
/// given and stay inside the working directory (unless [`SAVE_ANYWHERE_ENV`] is set).
fn save_of(save: &Element<'_, '_>) -> Result<Option<SaveConfig>, SdfError> {
    if !save.attr::<bool>("enabled")?.unwrap_or(false) {
        return Ok(None);
    }
    let e = save
        .child("path")
        .filter(|e| !e.text().is_empty())
        .ok_or_else(|| {
            save.missing(
                "path",
                "the directory the PNG frames are written to, with enabled=\"true\"",
            )
        })?;
    let path = PathBuf::from(e.text());
    if let Some(problem) = escapes_working_dir(&path)
        && std::env::var_os(SAVE_ANYWHERE_ENV).is_none_or(|v| v.is_empty())
    {
        return Err(e.error(
            format!(
                "a directory inside the working directory (this one {problem}; set \
                 {SAVE_ANYWHERE_ENV}=1 to write anywhere)"
            ),
            e.text(),
        ));
    }
    Ok(Some(SaveConfig { path }))
}

/// The topic beside `topic`: its last path element replaced by `name`
/// (`/a/b/image` → `/a/b/camera_info`), as gz-sensors names `camera_info`.
pub fn sibling_topic(topic: &str, name: &str) -> String {
    match topic.rfind('/') {
        Some(i) => format!("{}/{name}", &topic[..i]),
        None => format!("/{name}"),
    }
}
