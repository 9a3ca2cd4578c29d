//! `<scene>`, world-level `<light>`s, and segmentation labels (`gz::sim::systems::Label`).
//!
//! The Label system is not a library the engine loads: as in Gazebo it only attaches a number
//! to a model or visual, so the reader turns its `<plugin>` element into
//! [`Model::label`](sim_world::Model::label) / [`Visual::label`](sim_world::Visual::label)
//! and it never reaches the plugin loader.

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::reader::{Reader, children};
use sim_world::{Light, LightKind, Scene, Vec3};

/// Plugin names of the Label system (gz-sim and its Ignition predecessor).
const LABEL_NAMES: [&str; 2] = [
    "gz::sim::systems::Label",
    "ignition::gazebo::systems::Label",
];

/// Whether `filename` names the Label system's library: `gz-sim-label-system`,
/// `ignition-gazebo-label-system`, with an optional version (`gz-sim8-...`), `lib` prefix and
/// library suffix.
fn is_label_library(filename: &str) -> bool {
    is_system_library(filename, "label")
}

/// Whether `filename` names the library of gz-sim's system `words` (`label`, `thermal`):
/// `gz-sim-WORDS-system` or `ignition-gazebo-WORDS-system`, with an optional version
/// (`gz-sim8-...`), `lib` prefix and library suffix.
pub(super) fn is_system_library(filename: &str, words: &str) -> bool {
    let f = filename.trim();
    let f = f.strip_prefix("lib").unwrap_or(f);
    let f = [".so", ".dylib", ".dll"]
        .iter()
        .find_map(|s| f.strip_suffix(s))
        .unwrap_or(f);
    ["gz-sim", "ignition-gazebo"].iter().any(|prefix| {
        f.strip_prefix(prefix)
            .map(|rest| rest.trim_start_matches(|c: char| c.is_ascii_digit()))
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|rest| rest.strip_suffix("-system"))
            .is_some_and(|rest| rest == words)
    })
}

impl Reader<'_> {
    /// `<scene>`: ambient, background and shadows (sky, fog and grid are not used).
    pub(super) fn scene(&self, node: Node) -> Result<Scene, SdfError> {
        let d = Scene::default();
        Ok(Scene {
            ambient: self.colour(node, "ambient", d.ambient)?,
            background: self.colour(node, "background", d.background)?,
            shadows: self.child_bool(node, "shadows", d.shadows)?,
        })
    }

    /// A world-level `<light name type>`.
    pub(super) fn light(&self, node: Node) -> Result<Light, SdfError> {
        let name = self.entity_name(node, false)?;
        let kind_text = self.required_attr(
            node,
            "type",
            "give the light a type: directional, point or spot",
        )?;
        let kind = match kind_text.trim() {
            "directional" => LightKind::Directional,
            "point" => LightKind::Point,
            "spot" => LightKind::Spot,
            other => {
                return Err(self.error(
                    node,
                    ErrorKind::Invalid,
                    format!("unknown light type \"{other}\""),
                    "use one of directional, point, spot",
                ));
            }
        };
        let direction = match self.child(node, "direction") {
            Some(d) => {
                let v = self.vec3_of(d, Vec3::new(0.0, 0.0, -1.0))?;
                if v.length() < 1e-12 {
                    return Err(self.error_at(
                        self.text(d).start(),
                        d,
                        ErrorKind::Invalid,
                        "<direction> must not be the zero vector",
                        "give the direction the light shines in, e.g. 0.5 0.1 -0.9",
                    ));
                }
                v.normalized()
            }
            None => Vec3::new(0.0, 0.0, -1.0),
        };
        // As libsdformat, any finite attenuation and spot values are accepted (worlds in
        // the wild have negative ones); the shading copes (see `world::Light`).
        let attenuation = self.child(node, "attenuation");
        let att = |name: &str, default: f64| -> Result<f64, SdfError> {
            match attenuation {
                Some(a) => self.child_f64(a, name, default),
                None => Ok(default),
            }
        };
        let spot = self.child(node, "spot");
        let spot_value = |name: &str| -> Result<f64, SdfError> {
            match spot {
                Some(s) => self.child_f64(s, name, 0.0),
                None => Ok(0.0),
            }
        };
        let raw_pose = self.raw_pose(node)?;
        Ok(Light {
            // Relative to the world here; a `relative_to` frame is applied once the world's
            // frames are resolved (see `world`).
            pose: raw_pose.pose,
            raw_pose,
            direction,
            diffuse: self.colour(node, "diffuse", [1.0, 1.0, 1.0, 1.0])?,
            specular: self.colour(node, "specular", [0.1, 0.1, 0.1, 1.0])?,
            intensity: self.child_f64(node, "intensity", 1.0)?,
            range: att("range", 10.0)?,
            constant: att("constant", 1.0)?,
            linear: att("linear", 1.0)?,
            quadratic: att("quadratic", 0.0)?,
            spot_inner_angle: spot_value("inner_angle")?,
            spot_outer_angle: spot_value("outer_angle")?,
            spot_falloff: spot_value("falloff")?,
            cast_shadows: self.child_bool(node, "cast_shadows", false)?,
            span: self.span(node),
            kind,
            name,
        })
    }

    /// The label of a `<plugin>` element if it is the Label system (`None` for any other
    /// plugin). Its `<label>` must be a whole number from 0 to 255, as in Gazebo.
    pub(super) fn label_plugin(&self, plugin: Node) -> Result<Option<u32>, SdfError> {
        let name = plugin.attribute("name").unwrap_or("").trim();
        let filename = plugin.attribute("filename").unwrap_or("");
        if !LABEL_NAMES.contains(&name) && !is_label_library(filename) {
            return Ok(None);
        }
        let hint = "give the label as a whole number from 0 to 255: <label>10</label>";
        let Some(label) = self.child(plugin, "label") else {
            return Err(self.error(
                plugin,
                ErrorKind::Missing,
                "the Label plugin has no <label>",
                hint,
            ));
        };
        let text = self.text(label);
        match text.trimmed().parse::<u32>() {
            Ok(v) if v <= 255 => Ok(Some(v)),
            _ => Err(self.error_at(
                text.start(),
                label,
                ErrorKind::Invalid,
                format!(
                    "<label> must be a whole number from 0 to 255, found \"{}\"",
                    text.trimmed()
                ),
                hint,
            )),
        }
    }

    /// The label of the element `node` (a `<visual>`) from its Label `<plugin>`, if any.
    pub(super) fn element_label(&self, node: Node) -> Result<Option<u32>, SdfError> {
        let mut label = None;
        for p in children(node, "plugin") {
            if let Some(l) = self.label_plugin(p)? {
                label = Some(l);
            }
        }
        Ok(label)
    }

    /// An RGBA colour in child `name` (3 or 4 numbers in [0, 1]), `default` when absent.
    fn colour(&self, parent: Node, name: &str, default: [f32; 4]) -> Result<[f32; 4], SdfError> {
        let Some(node) = self.child(parent, name) else {
            return Ok(default);
        };
        let Some(v) = self.numbers(node, &[3, 4], "red green blue [alpha], from 0 to 1")? else {
            return Ok(default);
        };
        if let Some(bad) = v.iter().find(|c| !(0.0..=1.0).contains(*c)) {
            return Err(self.error_at(
                self.text(node).start(),
                node,
                ErrorKind::Invalid,
                format!("<{name}> components must be from 0 to 1, found {bad}"),
                "write colours as red green blue [alpha] fractions, e.g. 1 0 0 1 for red",
            ));
        }
        Ok([
            v[0] as f32,
            v[1] as f32,
            v[2] as f32,
            v.get(3).map_or(1.0, |&a| a as f32),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::is_label_library;
    use crate::{ErrorKind, SdfError, parse_str};
    use sim_world::{LightKind, Scene, Vec3, World};

    fn world(body: &str) -> Result<World, SdfError> {
        parse_str(
            &format!("<sdf version=\"1.12\">\n<world name=\"w\">\n{body}\n</world>\n</sdf>\n"),
            None,
        )
    }

    #[test]
    fn scene_and_lights_with_defaults() {
        let w = world("").unwrap();
        assert_eq!(w.scene, Scene::default());
        assert!(w.lights.is_empty());
        let w = world(
            r#"<scene><ambient>0.2 0.3 0.4 1</ambient><background>0 0 1</background>
               <shadows>false</shadows><grid>false</grid></scene>
               <light name="sun" type="directional">
                 <pose>0 0 10 0 0 0</pose><cast_shadows>true</cast_shadows>
                 <diffuse>0.8 0.8 0.8 1</diffuse><direction>-0.5 0.1 -0.9</direction>
               </light>
               <light name="lamp" type="spot">
                 <pose>1 2 3 0 1.5707963267948966 0</pose>
                 <attenuation><range>20</range><linear>0.01</linear><quadratic>0.001</quadratic></attenuation>
                 <spot><inner_angle>0.5</inner_angle><outer_angle>1</outer_angle><falloff>2</falloff></spot>
               </light>"#,
        )
        .unwrap();
        assert_eq!(w.scene.ambient, [0.2, 0.3, 0.4, 1.0]);
        assert_eq!(w.scene.background, [0.0, 0.0, 1.0, 1.0]);
        assert!(!w.scene.shadows);
        let sun = &w.lights[0];
        assert_eq!(
            (sun.name.as_str(), sun.kind),
            ("sun", LightKind::Directional)
        );
        assert!(sun.cast_shadows);
        assert_eq!(sun.diffuse, [0.8, 0.8, 0.8, 1.0]);
        assert_eq!(sun.specular, [0.1, 0.1, 0.1, 1.0]);
        let d = Vec3::new(-0.5, 0.1, -0.9).normalized();
        assert!((sun.world_direction() - d).length() < 1e-12);
        let lamp = &w.lights[1];
        assert_eq!(lamp.kind, LightKind::Spot);
        assert!(!lamp.cast_shadows);
        assert_eq!(
            (lamp.range, lamp.constant, lamp.linear, lamp.quadratic),
            (20.0, 1.0, 0.01, 0.001)
        );
        assert_eq!(
            (
                lamp.spot_inner_angle,
                lamp.spot_outer_angle,
                lamp.spot_falloff
            ),
            (0.5, 1.0, 2.0)
        );
        // The default direction (0 0 -1) pitched by +90° about y points along -x.
        assert!((lamp.world_direction() - Vec3::new(-1.0, 0.0, 0.0)).length() < 1e-9);
    }

    #[test]
    fn bad_lights_name_the_element() {
        let e = world(r#"<light name="l" type="laser"/>"#).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Invalid);
        assert!(
            e.message.contains("unknown light type \"laser\""),
            "{}",
            e.message
        );
        assert_eq!(e.line, 3);
        let e = world(r#"<light name="l" type="point"><direction>0 0 0</direction></light>"#)
            .unwrap_err();
        assert!(e.message.contains("zero vector"), "{}", e.message);
        let e = world(r#"<light name="l" type="point"><diffuse>2 0 0 1</diffuse></light>"#)
            .unwrap_err();
        assert!(e.message.contains("from 0 to 1"), "{}", e.message);
        // As libsdformat, odd attenuation values are accepted.
        let w = world(
            r#"<light name="l" type="point"><attenuation><range>-5</range><constant>-2</constant></attenuation></light>"#,
        )
        .unwrap();
        assert_eq!((w.lights[0].range, w.lights[0].constant), (-5.0, -2.0));
        let e =
            world(r#"<light name="l" type="point"/><light name="l" type="point"/>"#).unwrap_err();
        assert!(e.message.contains("\"l\""), "{}", e.message);
    }

    const MODEL: &str = r#"<model name="m">
        <plugin filename="gz-sim-label-system" name="gz::sim::systems::Label"><label>10</label></plugin>
        <link name="l">
          <visual name="a"><geometry><box><size>1 1 1</size></box></geometry></visual>
          <visual name="b"><geometry><box><size>1 1 1</size></box></geometry>
            <plugin filename="ignition-gazebo-label-system" name="ignition::gazebo::systems::Label"><label>20</label></plugin>
          </visual>
        </link>
      </model>"#;

    #[test]
    fn label_plugins_become_labels_not_plugins() {
        let w = world(MODEL).unwrap();
        let m = &w.models[0];
        assert_eq!(m.label, Some(10));
        assert!(m.plugins.is_empty(), "the Label plugin must not be loaded");
        let v = &m.links[0].visuals;
        assert_eq!((v[0].label, v[1].label), (None, Some(20)));
    }

    #[test]
    fn bad_labels_are_errors() {
        for (label, what) in [
            ("", "has no <label>"),
            ("<label>256</label>", "from 0 to 255"),
            ("<label>x</label>", "from 0 to 255"),
        ] {
            let body = format!(
                r#"<model name="m"><plugin filename="gz-sim-label-system" name="gz::sim::systems::Label">{label}</plugin><link name="l"/></model>"#
            );
            let e = world(&body).unwrap_err();
            assert!(e.message.contains(what), "{}", e.message);
            assert_eq!(e.line, 3);
        }
    }

    #[test]
    fn label_library_names() {
        for f in [
            "gz-sim-label-system",
            "libgz-sim8-label-system.so",
            "ignition-gazebo-label-system",
            "ignition-gazebo6-label-system",
        ] {
            assert!(is_label_library(f), "{f}");
        }
        for f in ["gz-sim-imu-system", "label-system", "gz-sim-label-systems"] {
            assert!(!is_label_library(f), "{f}");
        }
    }
}
