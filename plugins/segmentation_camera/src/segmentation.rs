//! The segmentation camera sensor.
//!
//! Per update, one batched ray cast from the near clip plane (one ray per pixel, against
//! visuals, ignoring the camera's own model; hits beyond the far clip are misses; for a
//! pinhole camera without distortion the same hits rasterised by the engine's
//! `simcore.raster.v1` extension where it has one, unless the run-time parameter
//! `primary_visibility` is `rays`), then per pixel:
//!
//! - the **label**: 0 (background) for a miss; else the visual's label from the engine's
//!   scene extension (a `gz::sim::systems::Label` plugin on the visual or an enclosing model);
//!   else, for unlabelled geometry, a stable id from its model's scoped name
//!   ([`name_label`]: 1 to 255, the same in every run);
//! - the **instance**: 0 for a miss, else the entity id of the model hit (16 bits), stable
//!   for a given world.
//!
//! Outputs, below the sensor's topic (default `.../sensor/<s>/segmentation`):
//!
//! - `labels_map` (`RGB_INT8`): `semantic`: every channel holds the label; `instance` and
//!   `panoptic`: red and green hold the instance (high byte, low byte), blue the label;
//! - `colored_map` (`RGB_INT8`): a colour per label (`semantic`) or per instance, from a fixed
//!   hash ([`label_color`]); background black;
//! - `labels`: a `Custom` message (schema `simcore.msgs.SegmentationLabels`, JSON) listing,
//!   for each label in the frame, its colour, pixel count and the models seen with it;
//! - `camera_info`.
//!
//! With `<save enabled="true"><path>` both maps are also written as PNG files,
//! `<model>_<link>_<sensor>_colored_<n>.png` and `..._labels_<n>.png`.

use sim_plugin_api::sdf::Element;
use sim_plugin_api::{
    abi_stable::std_types::{RBox, RVec},
    msgs::CustomMessage,
    prelude::*,
};
use simcore_plugin_camera_common::{
    CameraCore, CameraPlugin, LabelCache, RayStart, camera_sensor,
    image::{FrameSaver, save_failed},
};
use simcore_plugin_common::SdfSensor;
use std::collections::{BTreeMap, HashMap};

/// The relative topics of the outputs.
pub const TOPICS: [&str; 4] = ["labels_map", "colored_map", "labels", "camera_info"];

/// The stable label (1 to 255) of unlabelled geometry of the model named `scoped_name`
/// (FNV-1a of the name).
pub fn name_label(scoped_name: &str) -> u8 {
    let mut h: u32 = 0x811c_9dc5;
    for b in scoped_name.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    (1 + h % 255) as u8
}

/// The colour of label or instance `id` in the coloured map (0: black); a fixed hash, so
/// the same id has the same colour in every frame and run.
pub fn label_color(id: u32) -> [u8; 3] {
    if id == 0 {
        return [0, 0, 0];
    }
    let mut z = u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z ^= z >> 29;
    z = z.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^= z >> 32;
    // Keep every colour visibly away from black.
    [
        64 + (z & 0xbf) as u8,
        64 + ((z >> 8) & 0xbf) as u8,
        64 + ((z >> 16) & 0xbf) as u8,
    ]
}

/// What the camera knows about one entity hit.
#[derive(Clone, Debug)]
struct Seen {
    label: u8,
}

/// A segmentation camera (SDF `<sensor type="segmentation_camera">` or `segmentation`).
#[derive(Clone, Debug)]
pub struct SegmentationCameraSensor {
    core: CameraCore,
    instance: bool,
    topics: [SharedStr; 4],
    known: HashMap<EntityId, Seen>,
    model_names: HashMap<EntityId, String>,
    labels: LabelCache,
    /// `<save>`: savers of the coloured and the label maps.
    savers: Option<(FrameSaver, FrameSaver)>,
}

impl SdfSensor for SegmentationCameraSensor {
    /// Reads `<camera>` and its `<segmentation_type>`.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        _world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let mut core = CameraCore::new(config, sdf, RayStart::NearPlane)?;
        // Primary visibility is rasterised where the engine can.
        core.grid.set_raster(true);
        let mut topics = TOPICS.map(SharedStr::new);
        topics[3] = SharedStr::new(&core.camera_info_topic_below());
        let savers = match &core.config.save {
            Some(s) => Some((
                FrameSaver::new(&s.path, &format!("{}::colored", core.mount.scoped_name))?,
                FrameSaver::new(&s.path, &format!("{}::labels", core.mount.scoped_name))?,
            )),
            None => None,
        };
        Ok(SegmentationCameraSensor {
            savers,
            instance: core.config.segmentation_type != "semantic",
            topics,
            known: HashMap::new(),
            model_names: HashMap::new(),
            labels: LabelCache::default(),
            core,
        })
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        let [colored, labels, objects, info] = self.topics.each_ref().map(|t| t.to_string());
        vec![
            (colored, "Image"),
            (labels, "Image"),
            (objects, "Custom"),
            (info, "CameraInfo"),
        ]
    }
}

impl SegmentationCameraSensor {
    /// Looks up labels (and model names) of entities hit for the first time.
    fn learn(&mut self, world: &WorldRef<'_>) {
        for (id, model, l) in self.labels.learn(world, self.core.grid.hits()) {
            let name = self
                .model_names
                .entry(model)
                .or_insert_with(|| world.scoped_name_of(model).unwrap_or_default());
            let label = if l <= 255 { l as u8 } else { name_label(name) };
            self.known.insert(id, Seen { label });
        }
    }

    /// One frame: the label map, the coloured map and the label list (JSON).
    pub fn segment(&mut self, world: &WorldRef<'_>) -> Result<(Image, Image, String), PluginError> {
        self.core.cast(world)?;
        self.learn(world);
        let (w, h) = (self.core.model.width, self.core.model.height);
        let n = (w * h) as usize;
        let mut labels = RVec::with_capacity(n * 3);
        let mut colored = RVec::with_capacity(n * 3);
        // label -> (pixels, models seen with it)
        let mut list: BTreeMap<u8, (u64, Vec<EntityId>)> = BTreeMap::new();
        let mut last = (EntityId::NONE, 0u8);
        for hit in self.core.grid.hits() {
            let (label, instance) = if hit.entity.is_none() {
                (0u8, 0u16)
            } else {
                let label = if hit.entity == last.0 {
                    last.1
                } else {
                    let l = self.known.get(&hit.entity).map_or(0, |s| s.label);
                    last = (hit.entity, l);
                    l
                };
                (label, (hit.model.0 & 0xffff) as u16)
            };
            if self.instance {
                labels.extend_from_slice(&[(instance >> 8) as u8, instance as u8, label]);
                colored.extend_from_slice(&label_color(u32::from(instance)));
            } else {
                labels.extend_from_slice(&[label; 3]);
                colored.extend_from_slice(&label_color(u32::from(label)));
            }
            if label != 0 || !hit.entity.is_none() {
                let e = list.entry(label).or_default();
                e.0 += 1;
                if !e.1.contains(&hit.model) {
                    e.1.push(hit.model);
                }
            }
        }
        let image = |data| Image {
            width: w,
            height: h,
            step: w * 3,
            pixel_format: PixelFormat::RGB_INT8,
            data,
        };
        let mut json = String::from("{\"type\":\"");
        json.push_str(&self.core.config.segmentation_type);
        json.push_str("\",\"labels\":[");
        for (k, (label, (pixels, models))) in list.iter().enumerate() {
            if k > 0 {
                json.push(',');
            }
            let c = label_color(u32::from(*label));
            json.push_str(&format!(
                "{{\"label\":{label},\"color\":[{},{},{}],\"pixels\":{pixels},\"models\":[",
                c[0], c[1], c[2]
            ));
            for (m, id) in models.iter().enumerate() {
                if m > 0 {
                    json.push(',');
                }
                let name = self.model_names.get(id).map_or("", String::as_str);
                json.push_str(&format!(
                    "{{\"instance\":{},\"name\":\"{}\"}}",
                    id.0 & 0xffff,
                    name.replace('\\', "\\\\").replace('"', "\\\"")
                ));
            }
            json.push_str("]}");
        }
        json.push_str("]}");
        Ok((image(labels), image(colored), json))
    }
}

impl CameraPlugin for SegmentationCameraSensor {
    fn publish_frame(
        &mut self,
        _ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let (labels, colored, json) = self.segment(world)?;
        if let Some((c, l)) = &mut self.savers {
            let name = &self.core.mount.scoped_name;
            for (saver, image) in [(c, &colored), (l, &labels)] {
                saver.save(image).map_err(|e| save_failed(name, e))?;
            }
        }
        out.publish(&self.topics[0], Payload::Image(RBox::new(labels)));
        out.publish(&self.topics[1], Payload::Image(RBox::new(colored)));
        out.publish(
            &self.topics[2],
            Payload::Custom(RBox::new(CustomMessage {
                schema: SharedStr::new("simcore.msgs.SegmentationLabels"),
                encoding: SharedStr::new("json"),
                data: RVec::from(json.into_bytes()),
            })),
        );
        out.publish(
            &self.topics[3],
            Payload::CameraInfo(RBox::new(self.core.camera_info())),
        );
        Ok(())
    }

    fn forget(&mut self) {
        self.known.clear();
        self.model_names.clear();
        self.labels.clear();
    }
}

camera_sensor!(SegmentationCameraSensor, core);

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{
        RayHit, Vec3,
        testing::{StaticWorld, sensor_config},
    };
    use simcore_plugin_common::testing::sensor_error;

    #[test]
    fn name_labels_and_colours_are_stable() {
        // FNV-1a("") = 0x811c9dc5 = 2166136261; 1 + that mod 255.
        assert_eq!(name_label(""), (1 + 2_166_136_261u32 % 255) as u8);
        assert_eq!(name_label("box"), name_label("box"));
        assert!((1..=255).contains(&name_label("anything")));
        assert_eq!(label_color(0), [0, 0, 0]);
        assert_eq!(label_color(7), label_color(7));
        assert_ne!(label_color(7), label_color(8));
        assert!((1..1000).all(|i| label_color(i).iter().all(|&c| c >= 64)));
    }

    #[test]
    fn a_bad_segmentation_type_is_refused_with_its_place() {
        let sdf = "<sensor name=\"s\" type=\"segmentation\">\n  <camera>\n    <segmentation_type>parts</segmentation_type>\n  </camera>\n</sensor>";
        let e = sensor_error::<SegmentationCameraSensor>(
            "m::l::s",
            "segmentation",
            EntityId(2),
            sdf,
            3,
        );
        assert_eq!(
            e.message.as_str(),
            "m::l::s: <camera><segmentation_type> must be semantic, instance or panoptic, found \"parts\" at world.sdf:5"
        );
    }

    #[test]
    fn labels_from_the_scene_then_from_the_model_name() {
        let mut w = StaticWorld::default();
        w.set_kinematics(EntityId(2), Default::default());
        w.set_label(EntityId(10), 42);
        // Rays to the left (+y) hit visual 10, to the right visual 11 (unlabelled).
        w.set_ray_caster(|r, _| RayHit {
            distance: 3.0,
            normal: Vec3::new(-1.0, 0.0, 0.0),
            entity: EntityId(if r.direction.y > 0.0 { 10 } else { 11 }),
            model: EntityId(if r.direction.y > 0.0 { 20 } else { 21 }),
        });
        let sdf = r#"<sensor name="s" type="segmentation_camera"><camera>
            <image><width>4</width><height>2</height></image></camera></sensor>"#;
        let config = sensor_config("m::l::s", "segmentation_camera", EntityId(2), sdf);
        let (labels, colored, json) = w.with(|v| {
            let mut s = SegmentationCameraSensor::create(&config, &v).unwrap();
            s.segment(&v).unwrap()
        });
        // The static world names no models: the unlabelled one gets name_label("").
        let plain = name_label("");
        assert_eq!(
            &labels.data[..12],
            &[
                42, 42, 42, 42, 42, 42, plain, plain, plain, plain, plain, plain
            ]
        );
        assert_eq!(&colored.data[..3], &label_color(42));
        // Sorted by label.
        assert!(
            json.starts_with(r#"{"type":"semantic","labels":[{"label":"#),
            "{json}"
        );
        let c = label_color(42);
        let entry = format!(
            r#"{{"label":42,"color":[{},{},{}],"pixels":4,"models":[{{"instance":20,"name":""}}]}}"#,
            c[0], c[1], c[2]
        );
        assert!(json.contains(&entry), "{json}");
    }

    #[test]
    fn saves_both_maps_as_png() {
        let mut w = StaticWorld::default();
        w.set_kinematics(EntityId(2), Default::default());
        // A world saves inside the working directory only: a directory of this test's own
        // there, removed at the end.
        let dir = tempfile::tempdir_in(".").unwrap();
        let rel = std::path::PathBuf::from(dir.path().file_name().unwrap());
        let sdf = format!(
            r#"<sensor name="s" type="segmentation"><camera>
            <image><width>4</width><height>2</height></image>
            <save enabled="true"><path>{}</path></save></camera></sensor>"#,
            rel.join("seg").display()
        );
        let config = sensor_config("m::l::s", "segmentation", EntityId(2), &sdf);
        let out = w.with(|v| {
            let mut s = SegmentationCameraSensor::create(&config, &v).unwrap();
            sim_plugin_api::testing::run_update(&mut s, &v);
            sim_plugin_api::testing::run_update(&mut s, &v)
        });
        let topics: Vec<&str> = out.iter().map(|m| m.topic.as_str()).collect();
        assert_eq!(topics, TOPICS);
        for kind in ["colored", "labels"] {
            for n in 0..2 {
                let f = dir.path().join(format!("seg/m_l_s_{kind}_{n:06}.png"));
                assert!(f.is_file(), "{}", f.display());
            }
        }
    }
}
