//! An RGB picture: the camera's image, drawn on, written as PNG.

use sim_plugin_api::{Image, PixelFormat};

/// An 8-bit RGB picture, row-major from the top-left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// Three bytes per pixel, red first.
    pub rgb: Vec<u8>,
}

impl Picture {
    /// The picture of an `RGB_INT8` camera image (`None` for another format or a short
    /// buffer).
    pub fn from_image(image: &Image) -> Option<Picture> {
        if image.pixel_format != PixelFormat::RGB_INT8 {
            return None;
        }
        let (w, h, step) = (
            image.width as usize,
            image.height as usize,
            image.step as usize,
        );
        if step < 3 * w || image.data.len() < step * h {
            return None;
        }
        let mut rgb = Vec::with_capacity(3 * w * h);
        for row in image.data.chunks(step).take(h) {
            rgb.extend_from_slice(&row[..3 * w]);
        }
        Some(Picture {
            width: image.width,
            height: image.height,
            rgb,
        })
    }

    /// The colour of pixel `(x, y)` (column, row), if inside.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 3]> {
        (x < self.width && y < self.height).then(|| {
            let i = 3 * (y as usize * self.width as usize + x as usize);
            [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
        })
    }

    /// Blends `color` over pixel `(x, y)` with opacity `alpha` in [0, 1]; nothing outside.
    pub fn blend(&mut self, x: i64, y: i64, color: [u8; 3], alpha: f32) {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return;
        }
        let i = 3 * (y as usize * self.width as usize + x as usize);
        for (p, c) in self.rgb[i..i + 3].iter_mut().zip(color) {
            let v = f32::from(*p) * (1.0 - alpha) + f32::from(c) * alpha;
            *p = v.round().clamp(0.0, 255.0) as u8;
        }
    }

    /// The picture as PNG file bytes (8-bit RGB; the same picture always gives the same
    /// bytes).
    pub fn to_png(&self) -> Result<Vec<u8>, png::EncodingError> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::High);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&self.rgb)?;
        writer.finish()?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::abi_stable::std_types::RVec;

    #[test]
    fn images_with_padded_rows_become_pictures_and_png_reads_back() {
        let mut data = Vec::new();
        for y in 0..2u8 {
            data.extend_from_slice(&[10 * y, 1, 2, 3, 4, 5, 99, 99]);
        }
        let image = Image {
            width: 2,
            height: 2,
            step: 8,
            pixel_format: PixelFormat::RGB_INT8,
            data: RVec::from(data),
        };
        let mut p = Picture::from_image(&image).unwrap();
        assert_eq!(p.pixel(0, 1), Some([10, 1, 2]));
        assert_eq!(p.pixel(2, 0), None);
        p.blend(1, 1, [255, 255, 255], 1.0);
        p.blend(-1, 5, [255, 255, 255], 1.0);
        assert_eq!(p.pixel(1, 1), Some([255, 255, 255]));
        let bytes = p.to_png().unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (2, 2));
        assert_eq!(&buf[..info.buffer_size()], &p.rgb[..]);
        let grey = Image {
            pixel_format: PixelFormat::L_INT8,
            ..image
        };
        assert!(Picture::from_image(&grey).is_none());
    }
}
