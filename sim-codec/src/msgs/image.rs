//! Cameras: `Image` (`sensor_msgs/Image`) and `CameraInfo` (`sensor_msgs/CameraInfo`).

use crate::catalog as t;
use crate::json::values::{nums, pixel_format_name};
use crate::kinds::entry::{Kind, Reader};
use crate::read::stamped;
use crate::write::{cdr, header};
use crate::{CdrReader, DecodeError};
use serde_json::json;
use sim_plugin_api::abi_stable::std_types::RBox;
use sim_plugin_api::{CameraInfo, Image, Payload, PixelFormat};

/// `sensor_msgs/msg/Image`: the encodings of `ENCODINGS`, little-endian; other pixel
/// formats have no ROS form. Read back from those encodings (big-endian ones of one byte
/// per channel too).
pub(crate) const IMAGE: Kind = Kind {
    name: "Image",
    ros: &[&t::IMAGE],
    read_from: Some(&t::IMAGE),
    reads: &[Reader {
        ty: &t::IMAGE,
        read: |r| stamped(r, |r, _| Ok(Payload::Image(RBox::new(read_image(r)?)))),
    }],
    encode: |p, h, _, out| match p {
        Payload::Image(m) => {
            let encoding = encoding(m.pixel_format)?;
            cdr(out, &t::IMAGE, |w| {
                header(w, h);
                w.u32(m.height);
                w.u32(m.width);
                w.string(encoding);
                w.u8(0); // is_bigendian: simcore's multi-byte pixels are little-endian
                w.u32(m.step);
                w.bytes(&m.data);
            })
        }
        _ => None,
    },
    json: |p| match p {
        Payload::Image(i) => Some(json!({
            "width": i.width, "height": i.height, "step": i.step,
            "pixel_format_type": i.pixel_format.0, "pixel_format_name": pixel_format_name(i.pixel_format),
            "data_bytes": i.data.len(),
        })),
        _ => None,
    },
    from_json: None,
};

/// `sensor_msgs/msg/CameraInfo`: `d` = distortion, `k`, `r`, `p`; binning 0, ROI zero (read
/// back without binning and ROI).
pub(crate) const CAMERA_INFO: Kind = Kind {
    name: "CameraInfo",
    ros: &[&t::CAMERA_INFO],
    read_from: Some(&t::CAMERA_INFO),
    reads: &[Reader {
        ty: &t::CAMERA_INFO,
        read: |r| {
            stamped(r, |r, _| {
                Ok(Payload::CameraInfo(RBox::new(read_camera_info(r)?)))
            })
        },
    }],
    encode: |p, h, _, out| match p {
        Payload::CameraInfo(m) => cdr(out, &t::CAMERA_INFO, |w| {
            header(w, h);
            w.u32(m.height);
            w.u32(m.width);
            w.string(m.distortion_model.as_str());
            w.f64_seq(&m.distortion);
            w.f64_array(&m.intrinsics);
            w.f64_array(&m.rectification);
            w.f64_array(&m.projection);
            w.u32(0); // binning_x
            w.u32(0); // binning_y
            for _ in 0..4 {
                w.u32(0); // roi: x_offset, y_offset, height, width (0: the full image)
            }
            w.bool(false); // roi.do_rectify
        }),
        _ => None,
    },
    json: |p| match p {
        Payload::CameraInfo(c) => Some(json!({
            "width": c.width, "height": c.height, "distortion_model": c.distortion_model.as_str(),
            "distortion": nums(&c.distortion), "intrinsics": nums(&c.intrinsics),
            "rectification": nums(&c.rectification), "projection": nums(&c.projection),
        })),
        _ => None,
    },
    from_json: None,
};

/// The ROS `encoding` of each pixel format with one.
const ENCODINGS: [(PixelFormat, &str); 8] = [
    (PixelFormat::L_INT8, "mono8"),
    (PixelFormat::L_INT16, "mono16"),
    (PixelFormat::RGB_INT8, "rgb8"),
    (PixelFormat::RGBA_INT8, "rgba8"),
    (PixelFormat::BGRA_INT8, "bgra8"),
    (PixelFormat::BGR_INT8, "bgr8"),
    (PixelFormat::R_FLOAT32, "32FC1"),
    (PixelFormat::RGB_FLOAT32, "32FC3"),
];

/// The ROS `encoding` of `f`, if it has one.
fn encoding(f: PixelFormat) -> Option<&'static str> {
    ENCODINGS.iter().find(|(p, _)| *p == f).map(|(_, e)| *e)
}

fn read_image(r: &mut CdrReader<'_>) -> Result<Image, DecodeError> {
    let height = r.read("height")?;
    let width = r.read("width")?;
    let encoding = r.string("encoding")?;
    let pixel_format = ENCODINGS
        .iter()
        .find(|(_, e)| *e == encoding)
        .map(|(f, _)| *f)
        .ok_or_else(|| {
            DecodeError::Invalid(format!("image encoding `{encoding}` has no simcore form"))
        })?;
    let big_endian: u8 = r.read("is_bigendian")?;
    if big_endian != 0 && !matches!(encoding, "mono8" | "rgb8" | "rgba8" | "bgra8" | "bgr8") {
        return Err(DecodeError::Invalid(format!(
            "big-endian `{encoding}` images have no simcore form"
        )));
    }
    Ok(Image {
        height,
        width,
        step: r.read("step")?,
        pixel_format,
        data: r.bytes("data")?.into(),
    })
}

fn read_camera_info(r: &mut CdrReader<'_>) -> Result<CameraInfo, DecodeError> {
    let height = r.read("height")?;
    let width = r.read("width")?;
    let distortion_model = r.string("distortion_model")?.into();
    let distortion = r.seq::<f64>("d")?.into();
    let intrinsics = r.array("k")?;
    let rectification = r.array("r")?;
    let projection = r.array("p")?;
    r.array::<u32, 2>("binning")?;
    r.array::<u32, 4>("roi")?;
    r.bool("roi.do_rectify")?;
    Ok(CameraInfo {
        width,
        height,
        distortion_model,
        distortion,
        intrinsics,
        rectification,
        projection,
    })
}
