//! `<camera><save enabled="true"><path>`: each frame as gz-sensors' bounding box camera saves
//! it, a sample of the image (without the drawn boxes) and its boxes:
//!
//! - `<path>/images/image_<n>.png`;
//! - `<path>/boxes/boxes_<n>.csv`: a line `label,x_center,y_center,width,height`, then one per
//!   box, the centre being the first pixel plus half the size and the size the last pixel less
//!   the first (gz-rendering's box), numbers written with six decimals.
//!
//! `n` has seven digits and starts at the number of entries already in `<path>/images` (so
//! runs add to a data set, as in Gazebo).

use crate::full::Box2d;
use sim_plugin_api::{Image, PluginError};
use simcore_plugin_camera_common::image::write_png;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Writes the samples of one sensor.
#[derive(Clone, Debug)]
pub struct SampleSaver {
    images: PathBuf,
    boxes: PathBuf,
    count: u64,
}

/// Creates `dir`, or says why it cannot be made.
fn make_dir(dir: &Path, who: &str) -> Result<(), PluginError> {
    std::fs::create_dir_all(dir).map_err(|e| {
        PluginError::config(format!(
            "{who}: <camera><save><path>: cannot create the directory \"{}\": {e}",
            dir.display()
        ))
    })
}

impl SampleSaver {
    /// A saver into `path` (its `images` and `boxes` directories are created) for the sensor
    /// `who` (named in errors).
    pub fn new(path: &Path, who: &str) -> Result<SampleSaver, PluginError> {
        let (images, boxes) = (path.join("images"), path.join("boxes"));
        make_dir(&images, who)?;
        make_dir(&boxes, who)?;
        let count = std::fs::read_dir(&images).map_or(0, |d| d.count() as u64);
        Ok(SampleSaver {
            images,
            boxes,
            count,
        })
    }

    /// The number of the next sample.
    pub fn next(&self) -> u64 {
        self.count
    }

    /// Writes `image` and `boxes` as the next sample; returns the two files.
    pub fn save(
        &mut self,
        image: &Image,
        boxes: &[Box2d],
    ) -> Result<(PathBuf, PathBuf), PluginError> {
        let png = self.images.join(format!("image_{:07}.png", self.count));
        write_png(&png, image).map_err(|e| {
            PluginError::runtime(format!("cannot write \"{}\": {e}", png.display()))
        })?;
        let csv = self.boxes.join(format!("boxes_{:07}.csv", self.count));
        std::fs::write(&csv, boxes_csv(boxes)).map_err(|e| {
            PluginError::runtime(format!("cannot write \"{}\": {e}", csv.display()))
        })?;
        self.count += 1;
        Ok((png, csv))
    }
}

/// The CSV text of `boxes` (see the module documentation).
pub fn boxes_csv(boxes: &[Box2d]) -> String {
    let mut s = String::from("label,x_center,y_center,width,height\n");
    for b in boxes {
        let size = [b.max[0] - b.min[0], b.max[1] - b.min[1]];
        let centre = [b.min[0] + size[0] / 2.0, b.min[1] + size[1] / 2.0];
        let _ = writeln!(
            s,
            "{},{:.6},{:.6},{:.6},{:.6}",
            b.label, centre[0], centre[1], size[0], size[1]
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boxes::VisibleBox;
    use sim_plugin_api::EntityId;

    #[test]
    fn csv_rows_are_gazebos_centre_and_size() {
        let b = VisibleBox {
            label: 4,
            model: EntityId(1),
            min: [10, 3],
            max: [15, 8],
        };
        assert_eq!(
            boxes_csv(&[b.into()]),
            "label,x_center,y_center,width,height\n4,12.500000,5.500000,5.000000,5.000000\n"
        );
    }
}
