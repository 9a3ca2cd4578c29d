//! The bounding box camera sensor.
//!
//! Per update, one batched ray cast from the near clip plane (one ray per pixel, against
//! visuals, ignoring the camera's own model; hits beyond the far clip are misses; for a
//! pinhole camera without distortion the same hits rasterised by the engine's
//! `simcore.raster.v1` extension where it has one, with shadow maps, unless the run-time
//! parameter `primary_visibility` is `rays`), then:
//!
//! - each pixel's label: that of the visual hit (from the engine's scene extension), or
//!   background for a miss, an unlabelled visual or one labelled [`BACKGROUND_LABEL`];
//! - the visible 2D box of each labelled model ([`crate::boxes`]), or with `<box_type>`
//!   `full_2d` / `3d` the full 2D or 3D box of its seen visuals ([`crate::full`], from the
//!   engine's `simcore.visual_boxes.v1`), published on the sensor's topic (default
//!   `.../sensor/<s>/boundingbox`) as [`crate::message`] describes;
//! - the camera image, shaded as the camera plugin shades it (`RGB_INT8`), with each box's
//!   outline (a 3D box's 12 edges) drawn in green, on `<topic>_image`;
//! - `camera_info` beside the topic (or on `<camera_info_topic>`);
//! - with `<save>`, the image (before the boxes are drawn) and the boxes as files
//!   ([`crate::save`]).

use crate::boxes::{BoxType, draw_boxes, draw_segments, visible_boxes};
use crate::full::{Box2d, Box3d, boxes_3d, full_boxes, projected_edges};
use crate::message::{boxes_3d_message, boxes_message};
use crate::save::{SampleSaver, boxes_3d_csv, boxes_csv};
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{abi_stable::std_types::RBox, prelude::*};
use simcore_plugin_camera_common::{
    CameraCore, CameraPlugin, ImageFormat, LabelCache, Passes, RayStart, Shader, camera_sensor,
    image::{encode_image, save_failed},
};
use simcore_plugin_common::{NoiseChannel, SdfSensor};
use std::collections::BTreeSet;

/// The label gz-rendering's bounding box camera keeps for background: visuals labelled 255
/// get no box, as unlabelled ones.
pub const BACKGROUND_LABEL: u32 = 255;

/// The colour of the drawn boxes (gz-sensors draws them green).
pub const BOX_COLOR: [u8; 3] = [0, 255, 0];

/// One frame's boxes.
#[derive(Clone, Debug, PartialEq)]
pub enum Boxes {
    /// Visible or full 2D boxes.
    Flat(Vec<Box2d>),
    /// 3D boxes.
    Solid(Vec<Box3d>),
}

/// A bounding box camera (SDF `<sensor type="boundingbox_camera">` or `boundingbox`).
#[derive(Clone, Debug)]
pub struct BoundingBoxCameraSensor {
    core: CameraCore,
    box_type: BoxType,
    frame: String,
    image_topic: SharedStr,
    info_topic: SharedStr,
    shader: Shader,
    colors: Vec<[f32; 3]>,
    labels: LabelCache,
    seq: u64,
    saver: Option<SampleSaver>,
}

impl SdfSensor for BoundingBoxCameraSensor {
    /// Reads `<camera>` and its `<box_type>`: full and 3D boxes need the engine's visual boxes
    /// extension, and without it are a configuration error naming the element.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let box_type = sdf.get_or("camera/box_type", BoxType::Visible2d)?;
        if box_type != BoxType::Visible2d
            && world.visual_boxes_ext().is_none()
            && let Some(e) = sdf.find("camera/box_type")
        {
            return Err(e
                .error(
                    format!(
                        "2d, visible_2d or visible_box_2d (full and 3D boxes need the engine \
                         extension {}, which this engine lacks)",
                        sim_plugin_api::VISUAL_BOXES_EXTENSION
                    ),
                    e.text(),
                )
                .into());
        }
        let mut core = CameraCore::new(config, sdf, RayStart::NearPlane)?;
        // The drawn image is shaded, which needs the normals; primary visibility is
        // rasterised where the engine can.
        core.grid.set_normals(true);
        core.grid.set_raster(true);
        let saver = match &core.config.save {
            Some(s) => Some(SampleSaver::new(&s.path, &core.mount.scoped_name)?),
            None => None,
        };
        Ok(BoundingBoxCameraSensor {
            saver,
            box_type,
            frame: config.frame_id.to_string(),
            image_topic: SharedStr::new(&format!("{}_image", core.topic)),
            info_topic: SharedStr::new(&core.camera_info_topic()),
            shader: Shader::default(),
            colors: Vec::new(),
            labels: LabelCache::default(),
            seq: 0,
            core,
        })
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![
            (String::new(), "Custom"),
            (self.image_topic.to_string(), "Image"),
            (self.info_topic.to_string(), "CameraInfo"),
        ]
    }
}

impl BoundingBoxCameraSensor {
    /// The box type in use.
    pub fn box_type(&self) -> BoxType {
        self.box_type
    }

    /// One frame: the boxes of the labelled models seen and the image with them drawn (with
    /// `<save>`, the sample is written first).
    pub fn frame(&mut self, world: &WorldRef<'_>) -> Result<(Boxes, Image), PluginError> {
        let passes = Passes::new(world);
        let camera = self.core.cast_in(&passes)?;
        let grid = &self.core.grid;
        self.labels.learn(world, grid.hits());
        let labels = &self.labels;
        let labelled = |h: &RayHit| {
            !h.entity.is_none() && labels.get(h.entity).is_some_and(|l| l < BACKGROUND_LABEL)
        };
        let boxes = if self.box_type == BoxType::Visible2d {
            let visible = visible_boxes(
                self.core.model.width,
                grid.hits().iter().map(|h| {
                    labelled(h)
                        .then(|| labels.get(h.entity).map(|l| (h.model, l)))
                        .flatten()
                }),
            );
            Boxes::Flat(visible.into_iter().map(Box2d::from).collect())
        } else {
            let seen: BTreeSet<EntityId> = grid
                .hits()
                .iter()
                .filter(|h| labelled(h))
                .map(|h| h.entity)
                .collect();
            let all = world.visual_boxes().ok_or_else(|| {
                PluginError::runtime(format!(
                    "{}: the engine no longer offers {}",
                    self.core.mount.scoped_name,
                    sim_plugin_api::VISUAL_BOXES_EXTENSION
                ))
            })?;
            let near = self.core.config.near;
            if self.box_type == BoxType::Full2d {
                Boxes::Flat(full_boxes(
                    &all,
                    &seen,
                    BACKGROUND_LABEL,
                    camera,
                    &self.core.model,
                    near,
                ))
            } else {
                Boxes::Solid(boxes_3d(&all, &seen, BACKGROUND_LABEL, camera))
            }
        };
        // Where primary visibility is rasterised, so are the shadow maps.
        self.shader.set_shadow_maps(grid.rasterises_in(world));
        self.shader.prepare(world);
        self.shader
            .shade(&passes, grid.rays(), grid.hits(), &mut self.colors);
        let (w, h) = (self.core.model.width, self.core.model.height);
        let mut silent = NoiseChannel::NONE;
        let mut image = encode_image(&passes, &self.colors, w, h, ImageFormat::Rgb8, &mut silent);
        if let Some(saver) = &mut self.saver {
            let csv = match &boxes {
                Boxes::Flat(b) => boxes_csv(b),
                Boxes::Solid(b) => boxes_3d_csv(b),
            };
            saver
                .save(&image, &csv)
                .map_err(|e| save_failed(&self.core.mount.scoped_name, e))?;
        }
        let data = image.data.as_mut_slice();
        match &boxes {
            Boxes::Flat(flat) => draw_boxes(data, w, h, flat, BOX_COLOR),
            Boxes::Solid(solid) => {
                let near = self.core.config.near;
                for b in solid {
                    let edges = projected_edges(b, &self.core.model, near);
                    draw_segments(data, w, h, &edges, BOX_COLOR);
                }
            }
        }
        Ok((boxes, image))
    }
}

impl CameraPlugin for BoundingBoxCameraSensor {
    fn publish_frame(
        &mut self,
        ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let (boxes, image) = self.frame(world)?;
        out.publish(&self.image_topic, Payload::Image(RBox::new(image)));
        let message = match &boxes {
            Boxes::Flat(b) => boxes_message(ctx.now, &self.frame, self.seq, b),
            Boxes::Solid(b) => boxes_3d_message(ctx.now, &self.frame, self.seq, b),
        };
        out.publish("", message);
        out.publish(
            &self.info_topic,
            Payload::CameraInfo(RBox::new(self.core.camera_info())),
        );
        self.seq += 1;
        Ok(())
    }

    fn forget(&mut self) {
        self.shader.reset();
        self.labels.clear();
        self.seq = 0;
    }
}

camera_sensor!(BoundingBoxCameraSensor, core);

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{
        RayHit, Vec3,
        testing::{StaticWorld, sensor_config},
    };
    use simcore_plugin_common::testing::sensor_error;

    #[test]
    fn box_types_are_refused_with_their_place() {
        let create = |box_type: &str| {
            let sdf = format!(
                "<sensor name=\"s\" type=\"boundingbox_camera\">\n  <camera>\n    <box_type>{box_type}</box_type>\n  </camera>\n</sensor>"
            );
            sensor_error::<BoundingBoxCameraSensor>(
                "m::l::s",
                "boundingbox_camera",
                EntityId(2),
                &sdf,
                50,
            )
        };
        let e = create("cube");
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "m::l::s: <camera><box_type> must be one of 2d, visible_2d, visible_box_2d, full_2d, \
             full_box_2d, 3d, found \"cube\" at world.sdf:52"
        );
        // The static world has no visual boxes.
        let e = create("3d");
        assert_eq!(
            e.message.as_str(),
            "m::l::s: <camera><box_type> must be 2d, visible_2d or visible_box_2d (full and 3D \
             boxes need the engine extension simcore.visual_boxes.v1, which this engine \
             lacks), found \"3d\" at world.sdf:52"
        );
    }

    #[test]
    fn label_255_and_unlabelled_visuals_are_background_label_0_is_not() {
        let mut w = StaticWorld::default();
        w.set_kinematics(EntityId(2), Default::default());
        w.set_label(EntityId(10), 0);
        w.set_label(EntityId(11), 255);
        // Columns 0-1 hit visual 10 (label 0), 2-3 visual 11 (label 255), 4-5 visual 12
        // (unlabelled); each of its own model.
        w.set_ray_caster(|r, _| {
            let e = if r.direction.y > 0.1 {
                10
            } else if r.direction.y > -0.1 {
                11
            } else {
                12
            };
            RayHit {
                distance: 3.0,
                normal: Vec3::new(-1.0, 0.0, 0.0),
                entity: EntityId(e),
                model: EntityId(e + 10),
            }
        });
        let sdf = r#"<sensor name="s" type="boundingbox_camera"><camera>
            <image><width>6</width><height>2</height></image></camera></sensor>"#;
        let config = sensor_config("m::l::s", "boundingbox_camera", EntityId(2), sdf);
        let (boxes, image) = w.with(|v| {
            let mut s = BoundingBoxCameraSensor::create(&config, &v).unwrap();
            assert_eq!(s.box_type(), BoxType::Visible2d);
            s.frame(&v).unwrap()
        });
        assert_eq!(
            boxes,
            Boxes::Flat(vec![Box2d {
                label: 0,
                model: EntityId(20),
                min: [0.0, 0.0],
                max: [1.0, 1.0]
            }])
        );
        assert_eq!((image.width, image.height), (6, 2));
        assert_eq!(&image.data[..3], &BOX_COLOR);
        assert_ne!(&image.data[9..12], &BOX_COLOR);
    }
}
