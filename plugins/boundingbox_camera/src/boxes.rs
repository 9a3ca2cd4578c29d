//! From labelled pixels to boxes.
//!
//! A pixel belongs to a box when the ray through it hits a visual that carries a label (a
//! `gz::sim::systems::Label` plugin on the visual or an enclosing model) other than 255;
//! unlabelled geometry, label 255 and misses are background, as in gz-rendering. The pixels of one model with one label make one
//! box: the smallest pixel rectangle holding them, `min` and `max` being the first and last
//! pixel column and row (so a box of one pixel has `min == max`), as gz-rendering computes
//! its visible boxes.

use crate::full::Box2d;
use sim_plugin_api::EntityId;
use sim_plugin_api::sdf::FromSdf;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// `<camera><box_type>`: which boxes the camera reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxType {
    /// `2d`, `visible_2d` or `visible_box_2d` (the default): the visible part's pixel box.
    Visible2d,
    /// `full_2d` or `full_box_2d`: the projection of the whole visual's box.
    Full2d,
    /// `3d`: the visual's oriented box in the camera frame.
    Box3d,
}

/// The box type an SDF `<box_type>` names (read with
/// [`Element::get`](sim_plugin_api::sdf::Element::get)).
impl FromSdf for BoxType {
    fn expected() -> Cow<'static, str> {
        "one of 2d, visible_2d, visible_box_2d, full_2d, full_box_2d, 3d".into()
    }

    fn from_text(text: &str) -> Option<Self> {
        match text.trim() {
            "2d" | "visible_2d" | "visible_box_2d" => Some(BoxType::Visible2d),
            "full_2d" | "full_box_2d" => Some(BoxType::Full2d),
            "3d" => Some(BoxType::Box3d),
            _ => None,
        }
    }
}

/// The visible 2D box of one labelled model, in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VisibleBox {
    /// The label of its pixels.
    pub label: u32,
    /// The model they belong to.
    pub model: EntityId,
    /// The first column and row holding one of its pixels.
    pub min: [u32; 2],
    /// The last column and row holding one of its pixels.
    pub max: [u32; 2],
}

impl From<VisibleBox> for Box2d {
    /// The pixel box as image coordinates: its first and last pixel's column and row.
    fn from(b: VisibleBox) -> Box2d {
        Box2d {
            label: b.label,
            model: b.model,
            min: b.min.map(f64::from),
            max: b.max.map(f64::from),
        }
    }
}

/// The boxes of a `width`-pixel-wide image whose pixels, row by row, are `pixels`: `None` for
/// background, else the model hit and its label. Sorted by label, then model.
pub fn visible_boxes(
    width: u32,
    pixels: impl IntoIterator<Item = Option<(EntityId, u32)>>,
) -> Vec<VisibleBox> {
    let mut boxes: BTreeMap<(u32, EntityId), VisibleBox> = BTreeMap::new();
    if width == 0 {
        return Vec::new();
    }
    for (k, p) in pixels.into_iter().enumerate() {
        let Some((model, label)) = p else { continue };
        let (x, y) = (
            (k as u64 % u64::from(width)) as u32,
            (k as u64 / u64::from(width)) as u32,
        );
        boxes
            .entry((label, model))
            .and_modify(|b| {
                b.min = [b.min[0].min(x), b.min[1].min(y)];
                b.max = [b.max[0].max(x), b.max[1].max(y)];
            })
            .or_insert(VisibleBox {
                label,
                model,
                min: [x, y],
                max: [x, y],
            });
    }
    boxes.into_values().collect()
}

/// Draws the outline of each box (its first and last columns and rows) in `color` into an
/// `RGB_INT8` image of `width` × `height` pixels (`data`, row by row, no padding).
/// Corners are rounded down to whole pixels.
pub fn draw_boxes(data: &mut [u8], width: u32, height: u32, boxes: &[Box2d], color: [u8; 3]) {
    let mut put = |x: u32, y: u32| {
        if x < width && y < height {
            let k = (y as usize * width as usize + x as usize) * 3;
            if let Some(px) = data.get_mut(k..k + 3) {
                px.copy_from_slice(&color);
            }
        }
    };
    // Saturating casts: a corner outside the image lands on its border (or beyond, unseen).
    let px = |v: f64| v.floor().max(0.0).min(f64::from(u32::MAX)) as u32;
    for b in boxes {
        let (min, max) = (b.min.map(px), b.max.map(px));
        let b = VisibleBox {
            label: b.label,
            model: b.model,
            min: [min[0], min[1]],
            max: [max[0].min(width), max[1].min(height)],
        };
        for x in b.min[0]..=b.max[0] {
            put(x, b.min[1]);
            put(x, b.max[1]);
        }
        for y in b.min[1]..=b.max[1] {
            put(b.min[0], y);
            put(b.max[0], y);
        }
    }
}

/// Draws each segment (image points, continuous coordinates) in `color` into an `RGB_INT8`
/// image of `width` × `height` pixels; the parts outside the image are left out.
pub fn draw_segments(
    data: &mut [u8],
    width: u32,
    height: u32,
    segments: &[[(f64, f64); 2]],
    color: [u8; 3],
) {
    // No segment is sampled more finely than this many steps, whatever its ends.
    let most = 4 * u64::from(width.max(height)).max(1);
    for &[(u0, v0), (u1, v1)] in segments {
        let steps = ((u1 - u0).abs().max((v1 - v0).abs()).ceil() as u64).clamp(1, most);
        for i in 0..=steps {
            let t = i as f64 / steps as f64;
            let (u, v) = (u0 + (u1 - u0) * t, v0 + (v1 - v0) * t);
            if u >= 0.0 && v >= 0.0 && u < f64::from(width) && v < f64::from(height) {
                let k = (v as usize * width as usize + u as usize) * 3;
                if let Some(px) = data.get_mut(k..k + 3) {
                    px.copy_from_slice(&color);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_types_as_gazebo_names_them() {
        for t in ["2d", "visible_2d", " visible_box_2d "] {
            assert_eq!(BoxType::from_text(t), Some(BoxType::Visible2d));
        }
        for t in ["full_2d", "full_box_2d"] {
            assert_eq!(BoxType::from_text(t), Some(BoxType::Full2d));
        }
        assert_eq!(BoxType::from_text("3d"), Some(BoxType::Box3d));
        assert_eq!(BoxType::from_text("cube"), None);
    }

    #[test]
    fn boxes_span_first_to_last_pixel_per_model_and_label() {
        // 4 x 3 image; model 7 label 5 at (1,0), (2,1); model 8 label 5 at (3,2);
        // model 7 label 9 at (0,2).
        let (a, b, c) = (
            Some((EntityId(7), 5)),
            Some((EntityId(8), 5)),
            Some((EntityId(7), 9)),
        );
        let px = [
            None, a, None, None, //
            None, None, a, None, //
            c, None, None, b,
        ];
        let boxes = visible_boxes(4, px);
        assert_eq!(
            boxes,
            vec![
                VisibleBox {
                    label: 5,
                    model: EntityId(7),
                    min: [1, 0],
                    max: [2, 1]
                },
                VisibleBox {
                    label: 5,
                    model: EntityId(8),
                    min: [3, 2],
                    max: [3, 2]
                },
                VisibleBox {
                    label: 9,
                    model: EntityId(7),
                    min: [0, 2],
                    max: [0, 2]
                },
            ]
        );
        assert!(visible_boxes(0, px).is_empty());
        assert!(visible_boxes(4, [None; 12]).is_empty());
    }

    #[test]
    fn outlines_are_drawn_inside_the_image() {
        let mut data = vec![0u8; 5 * 4 * 3];
        let b = VisibleBox {
            label: 1,
            model: EntityId(1),
            min: [1, 1],
            max: [3, 2],
        };
        draw_boxes(&mut data, 5, 4, &[b.into()], [0, 255, 0]);
        let green = |d: &[u8], x: usize, y: usize| d[(y * 5 + x) * 3 + 1] == 255;
        for x in 1..=3 {
            assert!(green(&data, x, 1) && green(&data, x, 2));
        }
        assert!(!green(&data, 0, 1) && !green(&data, 4, 2));
        assert!(!green(&data, 2, 0) && !green(&data, 2, 3));
        // A box reaching past the image is clipped, not a panic.
        let far = VisibleBox {
            label: 1,
            model: EntityId(1),
            min: [4, 3],
            max: [9, 9],
        };
        draw_boxes(&mut data, 5, 4, &[far.into()], [0, 255, 0]);
        assert!(green(&data, 4, 3));
        let mut data = vec![0u8; 5 * 4 * 3];
        draw_segments(
            &mut data,
            5,
            4,
            &[[(0.5, 0.5), (4.5, 0.5)], [(-9.0, 2.5), (1e300, 2.5)]],
            [0, 255, 0],
        );
        assert!((0..5).all(|x| green(&data, x, 0)));
        assert!(!green(&data, 0, 1));
    }
}
