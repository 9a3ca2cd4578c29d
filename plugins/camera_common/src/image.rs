//! Messages and files: image encodings with pixel noise, depth images, point clouds,
//! `camera_info`, and PNG frames. The per-pixel encodings run in chunks on the engine's
//! sensor threads (see [`simcore_plugin_common::passes`]).

pub use crate::config::sibling_topic;
use crate::config::{CameraConfig, ImageFormat};
use sim_plugin_api::{
    CameraInfo, Image, Outputs, Payload, PixelFormat, PluginError, PointCloudPacked, PointField,
    PointFieldType, SharedStr, Vec3,
    abi_stable::std_types::{RBox, RVec},
    noise::{NoiseKind, NoiseParams},
};
use simcore_plugin_common::Passes;
use simcore_plugin_common::chunked::Part;
use simcore_plugin_common::{ChunkedVec, NoiseChannel};
use std::path::{Path, PathBuf};

/// The noise of image pixels: white Gaussian noise `N(mean, stddev)` per pixel and channel
/// (values in [0, 1]), a true Gaussian (Gazebo's shader adds `sign(z)·|z|^2.1` instead).
/// Bias, dynamic bias and precision are not used, as in gz-sensors' image noise.
pub fn pixel_noise(params: &NoiseParams, seed: u64, stream: u64) -> NoiseChannel {
    let p = NoiseParams {
        kind: params.kind,
        mean: params.mean,
        stddev: params.stddev,
        ..NoiseParams::default()
    };
    if p.kind == NoiseKind::None {
        return NoiseChannel::NONE;
    }
    NoiseChannel::new(p, seed, stream)
}

/// Rec. 601 luma of a linear RGB colour, each channel first clamped to [0, 1].
#[inline]
fn luma(c: [f32; 3]) -> f64 {
    let ch = |v: f32| f64::from(v).clamp(0.0, 1.0);
    0.299 * ch(c[0]) + 0.587 * ch(c[1]) + 0.114 * ch(c[2])
}

#[inline]
fn to_u8(v: f64) -> u8 {
    // `round` (half away from zero) without the library call: the fraction of a value in
    // [0, 255] is exact.
    let y = v.clamp(0.0, 1.0) * 255.0;
    let t = y as u8;
    t + u8::from(y - f64::from(t) >= 0.5)
}

/// Encodes linear RGB colours (row-major) as an image of `format`, adding `noise` to every
/// channel (to the grey value for grey formats) before clamping to [0, 1] and quantising.
/// Without noise the pixels are encoded in the chunks of `passes`; noise,
/// whose state runs through the pixels in order, keeps the encoding on this thread.
pub fn encode_image(
    passes: &Passes<'_, '_>,
    colors: &[[f32; 3]],
    width: u32,
    height: u32,
    format: ImageFormat,
    noise: &mut NoiseChannel,
) -> Image {
    let bpp = format.bytes_per_pixel();
    let step = bpp as usize;
    let len = colors.len() * step;
    let data = if noise.is_active() {
        let mut data = vec![0u8; len];
        encode_into(colors, format, |x| noise.apply(x, 0.0), &mut data);
        data
    } else {
        let chunk = passes.even_chunk_len(colors.len());
        let mut data = ChunkedVec::new(len, chunk * step);
        let chunks: Vec<_> = colors.chunks(chunk).zip(data.parts()).collect();
        passes.run(chunks, |(colors, data)| encode_plain(colors, format, data));
        data.into_vec(0)
    };
    Image {
        width,
        height,
        step: width * bpp,
        pixel_format: format.pixel_format(),
        data: RVec::from(data),
    }
}

/// [`to_u8`] of a channel, written so that the compiler vectorises it, without a conversion
/// to an integer: the product of a single-precision value in [0, 1] and 255 is exact in
/// double precision, and adding 1.5 · 2^52 rounds it to the nearest integer (ties to even)
/// in the low bits of the sum. Its only half-way value is 127.5 (the channel 0.5: 255 · c is
/// an integer and a half only where 255 divides the odd numerator of c over 510), whose
/// even neighbour, 128, is also [`to_u8`]'s. NaN gives 0 as there (`max` drops it).
#[inline]
// `clamp` would keep NaN, which `max` turns into 0.
#[allow(clippy::manual_clamp)]
fn channel_to_u8(c: f32) -> u8 {
    const ROUND: f64 = 6_755_399_441_055_744.0;
    (f64::from(c).max(0.0).min(1.0) * 255.0 + ROUND).to_bits() as u8
}

/// [`encode_into`] without noise, the same bytes, into `part`: RGB written as it is made
/// (nothing set before), in one pass over the channels, which the compiler turns into vector
/// instructions; the other formats into the part set to zero first.
fn encode_plain(colors: &[[f32; 3]], format: ImageFormat, part: Part<'_, u8>) {
    match format {
        ImageFormat::Rgb8 => {
            let channels = colors.as_flattened();
            part.write(|k| channel_to_u8(channels[k]));
        }
        _ => encode_into(colors, format, |x| x, part.fill(0)),
    }
}

/// [`encode_image`]'s bytes of `colors` into `out` (`format`'s bytes per pixel of each),
/// with `n` the noise of one value.
fn encode_into(
    colors: &[[f32; 3]],
    format: ImageFormat,
    mut n: impl FnMut(f64) -> f64,
    out: &mut [u8],
) {
    let px = out.chunks_exact_mut(format.bytes_per_pixel() as usize);
    match format {
        ImageFormat::Rgb8 => {
            for (c, o) in colors.iter().zip(px) {
                for (ch, b) in c.iter().zip(o) {
                    *b = to_u8(n(f64::from(*ch)));
                }
            }
        }
        ImageFormat::Bgr8 => {
            for (c, o) in colors.iter().zip(px) {
                for (ch, b) in c.iter().rev().zip(o) {
                    *b = to_u8(n(f64::from(*ch)));
                }
            }
        }
        ImageFormat::L8 => {
            for (c, o) in colors.iter().zip(px) {
                o[0] = to_u8(n(luma(*c)));
            }
        }
        ImageFormat::L16 => {
            for (c, o) in colors.iter().zip(px) {
                let v = (n(luma(*c)).clamp(0.0, 1.0) * 65535.0).round() as u16;
                o.copy_from_slice(&v.to_le_bytes());
            }
        }
    }
}

/// A float32 depth image (`R_FLOAT32`, little-endian) from depths in metres, written in the
/// chunks of `passes`.
pub fn depth_image(passes: &Passes<'_, '_>, depths: &[f32], width: u32, height: u32) -> Image {
    let chunk = passes.even_chunk_len(depths.len());
    let mut data = ChunkedVec::new(depths.len() * 4, chunk * 4);
    let chunks: Vec<_> = depths.chunks(chunk).zip(data.parts()).collect();
    passes.run(chunks, |(depths, data)| pack_depths(depths, data.fill(0)));
    depth_message(data.into_vec(0), width, height)
}

/// The bytes of `depths` in a depth image, into `out` (4 per depth).
fn pack_depths(depths: &[f32], out: &mut [u8]) {
    for (d, out) in depths.iter().zip(out.chunks_exact_mut(4)) {
        out.copy_from_slice(&d.to_le_bytes());
    }
}

/// The depth image of `data` (see [`depth_image`]).
fn depth_message(data: Vec<u8>, width: u32, height: u32) -> Image {
    Image {
        width,
        height,
        step: width * 4,
        pixel_format: PixelFormat::R_FLOAT32,
        data: RVec::from(data),
    }
}

/// Bytes per point of camera point clouds: `x, y, z` float32 and `rgb` (a float32 whose bits
/// are `0x00RRGGBB`, as PCL packs it).
pub const POINT_STEP: u32 = 16;

/// The fields of a camera point cloud point: `x`, `y`, `z`, `rgb` (float32 at 0, 4, 8, 12).
pub fn point_fields() -> RVec<PointField> {
    let f = |name: &str, offset: u32| PointField {
        name: SharedStr::new(name),
        offset,
        datatype: PointFieldType::FLOAT32,
        count: 1,
    };
    RVec::from(vec![f("x", 0), f("y", 4), f("z", 8), f("rgb", 12)])
}

/// The packed `rgb` value of a point (PCL's convention: a float whose bits are
/// `0x00RRGGBB`) for a linear RGB colour.
#[inline]
pub fn packed_rgb(c: [f32; 3]) -> f32 {
    let b = |v: f32| u32::from(to_u8(f64::from(v)));
    f32::from_bits((b(c[0]) << 16) | (b(c[1]) << 8) | b(c[2]))
}

/// The depth image of `depths` (see [`depth_image`]) and an organised point cloud (width ×
/// height) in the **sensor** frame (x forward, y left, z up), written together in one pass:
/// the point of pixel k is its unit direction scaled to its z-depth. A pixel whose depth is
/// `±inf` gives `±inf` in all three coordinates, as gz-rendering's depth shaders write them
/// (`depth_camera_fs.glsl`: `point = vec3(max)` beyond far, `vec3(min)` nearer than near),
/// and `is_dense = false`.
///
/// The pixels are written in the chunks of `passes`: `rgb` is called once per chunk and
/// gives the function that returns the packed colour (see [`packed_rgb`]) of pixel k, called
/// for the chunk's pixels in order (it may remember the last entity seen).
pub fn depth_image_and_cloud<R: FnMut(usize) -> f32>(
    passes: &Passes<'_, '_>,
    dirs: &[Vec3],
    depths: &[f32],
    rgb: impl Fn() -> R + Sync,
    width: u32,
    height: u32,
    fields: &RVec<PointField>,
) -> (Image, PointCloudPacked) {
    let copy = |first: usize, out: &mut [f32]| {
        out.copy_from_slice(&depths[first..first + out.len()]);
    };
    let size = (width, height);
    measured_image_and_cloud(passes, dirs, depths.len(), copy, rgb, size, fields)
}

/// The pixels [`measured_image_and_cloud`] measures and packs at a time (their depths on the
/// stack, still in cache when packed).
const BLOCK: usize = 1024;

/// [`depth_image_and_cloud`] of `count` pixels whose z-depths are measured as they are
/// packed: `depth(first, out)` writes those of pixels `first..first + out.len()` into `out`,
/// a block of a chunk at a time, on the chunk's thread. `size` is the image's (width, height).
pub fn measured_image_and_cloud<R: FnMut(usize) -> f32>(
    passes: &Passes<'_, '_>,
    dirs: &[Vec3],
    count: usize,
    depth: impl Fn(usize, &mut [f32]) + Sync,
    rgb: impl Fn() -> R + Sync,
    size: (u32, u32),
    fields: &RVec<PointField>,
) -> (Image, PointCloudPacked) {
    let n = dirs.len().min(count);
    let chunk = passes.even_chunk_len(n);
    let mut made = ImageAndCloud::new(count, n, chunk);
    let chunks: Vec<_> = dirs[..n].chunks(chunk).zip(made.parts()).collect();
    passes.run(chunks, |(dirs, part)| {
        let first = part.first;
        let mut rgb = rgb();
        part.pack(dirs, |k, out| depth(first + k, out), |k| rgb(first + k));
    });
    made.finish(size, fields)
}

/// A depth image of `count` pixels and the point cloud of its first `n` (the pixels with a
/// direction) made in chunks of pixels: each chunk's [`CloudPart`] packs its pixels on the
/// chunk's thread (as a camera's rays or raster bands are cast, for instance), then
/// [`ImageAndCloud::finish`] makes the messages. Pixels no part packed are zero.
#[derive(Debug)]
pub struct ImageAndCloud {
    image: ChunkedVec<u8>,
    points: ChunkedVec<u8>,
    /// Whether each chunk's points are all finite.
    dense: Vec<bool>,
    chunk: usize,
}

/// The pixels of one chunk of an [`ImageAndCloud`], to be packed.
#[derive(Debug)]
pub struct CloudPart<'a> {
    /// The chunk's first pixel.
    pub first: usize,
    image: Part<'a, u8>,
    points: Option<Part<'a, u8>>,
    dense: Option<&'a mut bool>,
}

impl ImageAndCloud {
    /// The buffers of `count` pixels, `n` with points, in chunks of `chunk` pixels.
    pub fn new(count: usize, n: usize, chunk: usize) -> Self {
        let chunk = chunk.max(1);
        let n = n.min(count);
        ImageAndCloud {
            image: ChunkedVec::new(count * 4, chunk * 4),
            points: ChunkedVec::new(n * POINT_STEP as usize, chunk * POINT_STEP as usize),
            dense: vec![true; n.div_ceil(chunk)],
            chunk,
        }
    }

    /// The chunks' parts, in order.
    pub fn parts(&mut self) -> Vec<CloudPart<'_>> {
        let chunk = self.chunk;
        let mut points = self.points.parts().into_iter();
        let mut dense = self.dense.iter_mut();
        self.image
            .parts()
            .into_iter()
            .enumerate()
            .map(|(k, image)| CloudPart {
                first: k * chunk,
                image,
                points: points.next(),
                dense: dense.next(),
            })
            .collect()
    }

    /// The depth image and the cloud, `size` (width, height) pixels, with point `fields`.
    pub fn finish(
        self,
        (width, height): (u32, u32),
        fields: &RVec<PointField>,
    ) -> (Image, PointCloudPacked) {
        let dense = self.dense.iter().all(|d| *d);
        (
            depth_message(self.image.into_vec(0), width, height),
            cloud_message(self.points.into_vec(0), dense, width, height, fields),
        )
    }
}

impl CloudPart<'_> {
    /// Packs the chunk's pixels, of unit sensor-frame directions `dirs` (one per pixel of
    /// the chunk that has a point): `depth(k, out)` writes the z-depths of the chunk's pixels
    /// `k..k + out.len()` into `out`, a block at a time, and `rgb(k)` gives the packed colour
    /// (see [`packed_rgb`]) of its pixel `k`, called in order.
    pub fn pack(
        self,
        dirs: &[Vec3],
        depth: impl FnMut(usize, &mut [f32]),
        rgb: impl FnMut(usize) -> f32,
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU running this has AVX2 (detected just above), the one feature
            // `pack_avx2` enables beyond the build's.
            #[allow(unsafe_code)]
            return unsafe { self.pack_avx2(dirs, depth, rgb) };
        }
        self.pack_in(dirs, depth, rgb)
    }

    /// [`CloudPart::pack`] compiled for AVX2 (the same operations, so the same bytes).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn pack_avx2(
        self,
        dirs: &[Vec3],
        depth: impl FnMut(usize, &mut [f32]),
        rgb: impl FnMut(usize) -> f32,
    ) {
        self.pack_in(dirs, depth, rgb)
    }

    /// [`CloudPart::pack`] as the build compiles it (for the test that compares the two).
    #[inline(always)]
    pub(crate) fn pack_in(
        self,
        dirs: &[Vec3],
        mut depth: impl FnMut(usize, &mut [f32]),
        mut rgb: impl FnMut(usize) -> f32,
    ) {
        let step = POINT_STEP as usize;
        let image = self.image.fill(0);
        let (Some(points), Some(dense)) = (self.points, self.dense) else {
            return; // no pixel of the chunk has a direction
        };
        let points = points.fill(0);
        let mut block = [0.0f32; BLOCK];
        let blocks = dirs
            .chunks(BLOCK)
            .zip(image.chunks_mut(BLOCK * 4))
            .zip(points.chunks_mut(BLOCK * step));
        for (b, ((dirs, image), points)) in blocks.enumerate() {
            let first = b * BLOCK;
            let depths = &mut block[..dirs.len()];
            depth(first, depths);
            pack_depths(depths, image);
            *dense &= pack_points(first, dirs, depths, &mut rgb, points);
        }
    }
}

/// The points of pixels `first..` (unit directions `dirs`, z-depths `depths`, colours from
/// `rgb` by pixel index) into `out` ([`POINT_STEP`] bytes each); whether all are finite.
fn pack_points(
    first: usize,
    dirs: &[Vec3],
    depths: &[f32],
    rgb: &mut impl FnMut(usize) -> f32,
    out: &mut [u8],
) -> bool {
    let mut dense = true;
    for (k, ((d, z), out)) in dirs
        .iter()
        .zip(depths)
        .zip(out.chunks_exact_mut(POINT_STEP as usize))
        .enumerate()
    {
        let p = if z.is_finite() && d.x > 0.0 {
            let t = f64::from(*z) / d.x;
            [(d.x * t) as f32, (d.y * t) as f32, (d.z * t) as f32]
        } else {
            dense = false;
            // A pixel without a ray (d.x <= 0) has no finite depth either: +inf.
            let v = if z.is_nan() || z.is_finite() {
                f32::INFINITY
            } else {
                *z
            };
            [v; 3]
        };
        out[0..4].copy_from_slice(&p[0].to_le_bytes());
        out[4..8].copy_from_slice(&p[1].to_le_bytes());
        out[8..12].copy_from_slice(&p[2].to_le_bytes());
        out[12..16].copy_from_slice(&rgb(first + k).to_le_bytes());
    }
    dense
}

/// The point cloud message of `data` (see [`depth_image_and_cloud`]).
fn cloud_message(
    data: Vec<u8>,
    dense: bool,
    width: u32,
    height: u32,
    fields: &RVec<PointField>,
) -> PointCloudPacked {
    PointCloudPacked {
        width,
        height,
        fields: fields.clone(),
        is_bigendian: false,
        point_step: POINT_STEP,
        row_step: POINT_STEP * width,
        data: RVec::from(data),
        is_dense: dense,
    }
}

/// The outputs of a camera that publishes one image per frame: the image on the sensor's
/// topic, its `camera_info` on `<camera_info_topic>` or beside that topic, and, with `<save>`,
/// each image as a PNG file.
#[derive(Clone, Debug)]
pub struct ImageOutputs {
    info_topic: SharedStr,
    saver: Option<FrameSaver>,
}

impl ImageOutputs {
    /// The outputs of the camera `scoped_name` configured by `camera` whose images go to
    /// `topic` (see [`CameraConfig::info_topic`], [`FrameSaver::of`]: with `<save>`
    /// the directory is made now, and one that cannot be is a configuration error).
    pub fn new(
        camera: &CameraConfig,
        topic: &str,
        scoped_name: &str,
    ) -> Result<ImageOutputs, PluginError> {
        Ok(ImageOutputs {
            info_topic: SharedStr::new(&camera.info_topic(topic)),
            saver: FrameSaver::of(camera, scoped_name)?,
        })
    }

    /// The topic `camera_info` is published on.
    pub fn info_topic(&self) -> &str {
        self.info_topic.as_str()
    }

    /// The outputs, for the engine to list before the first update
    /// ([`SdfSensor::outputs`](simcore_plugin_common::SdfSensor::outputs)): an `Image` on the
    /// sensor's topic and a `CameraInfo` on [`ImageOutputs::info_topic`].
    pub fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![
            (String::new(), "Image"),
            (self.info_topic.to_string(), "CameraInfo"),
        ]
    }

    /// Publishes a frame: `image` on the sensor's topic and `info` on the `camera_info` topic,
    /// after writing `image` as a PNG file with `<save>` (a failed write is a run-time error
    /// naming the sensor `scoped_name`, see [`save_failed`], and nothing is published).
    pub fn publish(
        &mut self,
        out: &mut Outputs<'_>,
        image: Image,
        info: CameraInfo,
        scoped_name: &str,
    ) -> Result<(), PluginError> {
        if let Some(saver) = &mut self.saver {
            saver
                .save(&image)
                .map_err(|e| save_failed(scoped_name, e))?;
        }
        out.publish("", Payload::Image(RBox::new(image)));
        out.publish(&self.info_topic, Payload::CameraInfo(RBox::new(info)));
        Ok(())
    }
}

/// The run-time error of the sensor `scoped_name` whose frame could not be saved (`e`, the
/// error of the write): `<scoped_name>: <e's message>`.
pub fn save_failed(scoped_name: &str, e: PluginError) -> PluginError {
    PluginError::runtime(format!("{scoped_name}: {}", e.message))
}

/// Writes the frames of one camera as PNG files `<dir>/<prefix>_<n>.png` (n from 0, six
/// digits).
#[derive(Clone, Debug)]
pub struct FrameSaver {
    dir: PathBuf,
    prefix: String,
    count: u64,
}

impl FrameSaver {
    /// The saver of the frames of the sensor `name` into `camera`'s `<save><path>`, when
    /// `<save>` is enabled (see [`FrameSaver::new`]).
    pub fn of(camera: &CameraConfig, name: &str) -> Result<Option<FrameSaver>, PluginError> {
        camera
            .save
            .as_ref()
            .map(|s| FrameSaver::new(&s.path, name))
            .transpose()
    }

    /// A saver into `dir` (created if missing) for the sensor with scoped name `scoped_name`
    /// (`::` and path separators become `_` in file names). A directory that cannot be
    /// created, or a symbolic link on its way, is a configuration error
    /// ([`simcore_plugin_common::files`]).
    pub fn new(dir: &Path, scoped_name: &str) -> Result<FrameSaver, PluginError> {
        simcore_plugin_common::files::create_dirs(dir).map_err(|e| {
            PluginError::config(format!("{scoped_name}: <camera><save><path>: {e}"))
        })?;
        Ok(FrameSaver {
            dir: dir.to_path_buf(),
            prefix: scoped_name
                .replace("::", "_")
                .replace(['/', '\\', '\0'], "_"),
            count: 0,
        })
    }

    /// The file the next frame goes to.
    pub fn next_path(&self) -> PathBuf {
        self.dir
            .join(format!("{}_{:06}.png", self.prefix, self.count))
    }

    /// Writes `image` (RGB8, BGR8, L8 or L16) as the next PNG frame, replacing a regular file
    /// of that name; a symbolic link there, or on the way, is refused ([`write_png`]).
    pub fn save(&mut self, image: &Image) -> Result<PathBuf, PluginError> {
        let path = self.next_path();
        write_png(&path, image).map_err(PluginError::runtime)?;
        self.count += 1;
        Ok(path)
    }
}

/// Writes an RGB8, BGR8, L8 or L16 image as a PNG file, as
/// [`simcore_plugin_common::files::write_with`] writes: never through a symbolic link (at the
/// file's name or on its way), a regular file there replaced whole. The error names the file.
pub fn write_png(path: &Path, image: &Image) -> Result<(), String> {
    let (color, depth, data): (png::ColorType, png::BitDepth, Vec<u8>) = match image.pixel_format {
        PixelFormat::RGB_INT8 => (
            png::ColorType::Rgb,
            png::BitDepth::Eight,
            image.data.to_vec(),
        ),
        PixelFormat::BGR_INT8 => (
            png::ColorType::Rgb,
            png::BitDepth::Eight,
            image
                .data
                .chunks_exact(3)
                .flat_map(|p| [p[2], p[1], p[0]])
                .collect(),
        ),
        PixelFormat::L_INT8 => (
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            image.data.to_vec(),
        ),
        PixelFormat::L_INT16 => (
            png::ColorType::Grayscale,
            png::BitDepth::Sixteen,
            // PNG stores 16-bit samples big-endian.
            image
                .data
                .chunks_exact(2)
                .flat_map(|p| [p[1], p[0]])
                .collect(),
        ),
        other => {
            return Err(format!(
                "cannot write \"{}\": pixel format {} cannot be saved as PNG",
                path.display(),
                other.0
            ));
        }
    };
    simcore_plugin_common::files::write_with(path, |file| {
        let mut out = std::io::BufWriter::new(file);
        let mut enc = png::Encoder::new(&mut out, image.width, image.height);
        enc.set_color(color);
        enc.set_depth(depth);
        let mut writer = enc.write_header().map_err(std::io::Error::other)?;
        writer
            .write_image_data(&data)
            .map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)?;
        // Flushed here, not on drop, where a failure (a full disk) would pass unseen.
        std::io::Write::flush(&mut out)
    })
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod quantise_tests {
    use super::{ImageFormat, channel_to_u8, encode_into, encode_plain, to_u8};
    use simcore_plugin_common::ChunkedVec;

    #[test]
    fn a_channel_is_quantised_as_the_general_encoder_does() {
        let mut x: u32 = 0x9e37_79b9;
        let check = |c: f32| assert_eq!(channel_to_u8(c), to_u8(f64::from(c)), "{c:e}");
        // A million single-precision values of every kind, by their bits, and every value
        // one unit in the last place around the half-way points.
        for _ in 0..1_000_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            check(f32::from_bits(x));
            check(f32::from_bits(x) % 1.0);
        }
        for k in 0..256 {
            let half = (k as f32 + 0.5) / 255.0;
            let mut c = half;
            for _ in 0..8 {
                c = c.next_down();
            }
            for _ in 0..16 {
                check(c);
                c = c.next_up();
            }
        }
    }

    #[test]
    fn encoding_without_noise_gives_the_bytes_of_the_general_encoder() {
        // Channels across and beyond [0, 1], half-way values, NaN and infinities.
        let mut values: Vec<f32> = (0..2000).map(|i| i as f32 / 1700.0 - 0.1).collect();
        values.extend((0..256).map(|i| (i as f32 + 0.5) / 255.0));
        values.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, 1.0, -0.0]);
        let colors: Vec<[f32; 3]> = values
            .iter()
            .zip(values.iter().rev())
            .zip(values.iter().skip(7).chain(values.iter()))
            .map(|((&r, &g), &b)| [r, g, b])
            .collect();
        for format in [
            ImageFormat::Rgb8,
            ImageFormat::Bgr8,
            ImageFormat::L8,
            ImageFormat::L16,
        ] {
            let len = colors.len() * format.bytes_per_pixel() as usize;
            // The plain encoder writes a buffer's part, as `encode_image` hands it one.
            let mut plain = ChunkedVec::new(len, len);
            for part in plain.parts() {
                encode_plain(&colors, format, part);
            }
            let plain = plain.into_vec(1);
            let mut general = vec![2u8; len];
            encode_into(&colors, format, |x| x, &mut general);
            assert_eq!(plain, general, "{format:?}");
        }
    }

    #[test]
    fn quantising_rounds_as_round_does() {
        let reference = |v: f64| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
        let mut v = -0.1;
        while v < 1.1 {
            assert_eq!(to_u8(v), reference(v), "{v}");
            // Exactly half-way values too.
            let half = (v * 255.0).floor() / 255.0 + 0.5 / 255.0;
            assert_eq!(to_u8(half), reference(half), "{half}");
            v += 1.0 / 4099.0;
        }
        for v in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            1.0,
            0.5 / 255.0,
        ] {
            assert_eq!(to_u8(v), reference(v), "{v}");
        }
    }
}
