//! `<camera><save enabled="true"><path>`: each frame as gz-sensors' bounding box camera saves
//! it, a sample of the image (without the drawn boxes) and its boxes:
//!
//! - `<path>/images/image_<n>.png`;
//! - `<path>/boxes/boxes_<n>.csv`: a line `label,x_center,y_center,width,height`, then one per
//!   box, the centre being the first pixel plus half the size and the size the last pixel less
//!   the first (gz-rendering's box), numbers written with six decimals; for `3d` boxes a
//!   line `label,x,y,z,w,h,l,roll,pitch,yaw`, then one per box: its centre, size and
//!   orientation (roll, pitch, yaw, rad) in the camera frame. A box square to the camera
//!   has a pitch of ±90° in that frame; there the yaw is written 0 and the roll carries the
//!   rest of the turn.
//!
//! `n` has seven digits and starts at the number of entries already in `<path>/images` (so
//! runs add to a data set, as in Gazebo).

use crate::full::{Box2d, Box3d};
use sim_plugin_api::{Image, PluginError, Quat};
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

/// Creates `dir`, or says why it cannot be made (a symbolic link on its way is refused).
fn make_dir(dir: &Path, who: &str) -> Result<(), PluginError> {
    simcore_plugin_common::files::create_dirs(dir)
        .map_err(|e| PluginError::config(format!("{who}: <camera><save><path>: {e}")))
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

    /// Writes `image` and the boxes file text `csv` ([`boxes_csv`], [`boxes_3d_csv`]) as the
    /// next sample; returns the two files.
    pub fn save(
        &mut self,
        image: &Image,
        csv_text: &str,
    ) -> Result<(PathBuf, PathBuf), PluginError> {
        let png = self.images.join(format!("image_{:07}.png", self.count));
        write_png(&png, image).map_err(PluginError::runtime)?;
        let csv = self.boxes.join(format!("boxes_{:07}.csv", self.count));
        simcore_plugin_common::files::write(&csv, csv_text.as_bytes())
            .map_err(|e| PluginError::runtime(e.to_string()))?;
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

/// Roll, pitch and yaw of `q` (`R = Rz(yaw) Ry(pitch) Rx(roll)`), also at a pitch of ±90°,
/// where the yaw is taken as 0.
fn rpy(q: Quat) -> (f64, f64, f64) {
    let m = q.normalized().to_matrix();
    let pitch = (-m[2][0]).clamp(-1.0, 1.0).asin();
    if m[2][0].abs() < 1.0 - 1e-9 {
        (m[2][1].atan2(m[2][2]), pitch, m[1][0].atan2(m[0][0]))
    } else {
        ((-m[2][0] * m[0][1]).atan2(m[1][1]), pitch, 0.0)
    }
}

/// The CSV text of 3D `boxes` (see the module documentation).
pub fn boxes_3d_csv(boxes: &[Box3d]) -> String {
    let mut s = String::from("label,x,y,z,w,h,l,roll,pitch,yaw\n");
    for b in boxes {
        let (c, z) = (b.center, b.size);
        let (roll, pitch, yaw) = rpy(b.orientation);
        let _ = writeln!(
            s,
            "{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6}",
            b.label, c.x, c.y, c.z, z.x, z.y, z.z, roll, pitch, yaw
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boxes::VisibleBox;
    use sim_plugin_api::{EntityId, Vec3};

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

    #[test]
    fn csv_rows_of_3d_boxes_are_centre_size_and_angles() {
        let b = Box3d {
            label: 2,
            model: EntityId(1),
            center: Vec3::new(0.5, -0.25, -4.0),
            orientation: Quat::from_rpy(0.1, 0.2, 0.5),
            size: Vec3::new(1.0, 2.0, 3.0),
        };
        assert_eq!(
            boxes_3d_csv(&[b]),
            "label,x,y,z,w,h,l,roll,pitch,yaw\n\
             2,0.500000,-0.250000,-4.000000,1.000000,2.000000,3.000000,0.100000,0.200000,0.500000\n"
        );
    }

    #[test]
    fn angles_survive_a_pitch_of_a_quarter_turn() {
        for (r, p, y) in [(0.3, -0.2, 1.1), (-1.2, 0.0, -2.0)] {
            let (a, b, c) = rpy(Quat::from_rpy(r, p, y));
            assert!((a - r).abs() + (b - p).abs() + (c - y).abs() < 1e-9);
        }
        for p in [std::f64::consts::FRAC_PI_2, -std::f64::consts::FRAC_PI_2] {
            let q = Quat::from_rpy(0.4, p, -0.3);
            let (a, b, c) = rpy(q);
            let back = Quat::from_rpy(a, b, c);
            for v in [Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)] {
                assert!(
                    (back.rotate(v) - q.rotate(v)).length() < 1e-6,
                    "{p}: {a} {b} {c}"
                );
            }
        }
    }
}
