//! An include's `<namespace>` and `<experimental:params>`: each action, nested element ids,
//! edits of models included by the included file, errors and their positions. Each test writes
//! its files in a temporary directory.

use super::support::*;
use crate::*;

use sim_world::{Geometry, Link, World};

files_dir!(
    /// A directory of SDF files for one test.
    Dir
);

impl Dir {
    /// A model directory `models/NAME` holding `model` (SDF `version`).
    fn model(&self, name: &str, version: &str, model: &str) {
        self.write(
            &format!("models/{name}/model.config"),
            &format!("<?xml version=\"1.0\"?>\n<model><name>{name}</name><sdf version=\"{version}\">model.sdf</sdf></model>\n"),
        );
        self.write(
            &format!("models/{name}/model.sdf"),
            &format!("<?xml version=\"1.0\"?>\n<sdf version=\"{version}\">\n{model}\n</sdf>\n"),
        );
    }

    fn options(&self) -> LoadOptions {
        LoadOptions {
            resource_paths: vec![self.path("models")],
            ignore_env: true,
            ..LoadOptions::default()
        }
    }

    /// Writes `world.sdf` holding `body` in a world (SDF 1.9) and loads it.
    fn load(&self, body: &str) -> Result<Document, SdfError> {
        let text = format!(
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<world name=\"w\">\n{body}\n</world>\n</sdf>\n"
        );
        let path = self.write("world.sdf", &text);
        load_document_with(&path, &self.options())
    }

    #[track_caller]
    fn ok(&self, body: &str) -> World {
        match self.load(body) {
            Ok(doc) => doc.into_world().expect("a world"),
            Err(e) => panic!("expected success:\n{}", e.render(None)),
        }
    }

    #[track_caller]
    fn err(&self, body: &str) -> SdfError {
        match self.load(body) {
            Ok(d) => panic!("expected an error, got {d:#?}"),
            Err(e) => e,
        }
    }

    /// The 1-based line of the first line of `world.sdf` containing `needle`.
    fn line_of(&self, rel: &str, needle: &str) -> u32 {
        let text = std::fs::read_to_string(self.path(rel)).expect("read");
        let i = text
            .lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle:?} not in {rel}"));
        u32::try_from(i + 1).expect("a small line number")
    }
}

/// The robot every params test includes: a chassis with a visual, a collision and a camera,
/// a wheel link, a joint, and a nested model.
const ROBOT: &str = r#"<model name="robot">
  <link name="chassis">
    <pose>0 0 1 0 0 0</pose>
    <inertial><mass>10</mass></inertial>
    <visual name="body"><geometry><box><size>2 1 0.5</size></box></geometry>
      <material><ambient>1 0 0 1</ambient><diffuse>1 0 0 1</diffuse></material>
    </visual>
    <collision name="body"><geometry><box><size>2 1 0.5</size></box></geometry></collision>
    <sensor name="camera" type="camera">
      <pose>1 0 0 0 0 0</pose>
      <update_rate>30</update_rate>
      <topic>front</topic>
      <camera><horizontal_fov>1.5</horizontal_fov><image><width>320</width><height>240</height></image></camera>
    </sensor>
  </link>
  <link name="wheel">
    <pose>1 0 0 0 0 0</pose>
    <collision name="c"><geometry><cylinder><radius>0.3</radius><length>0.1</length></cylinder></geometry></collision>
  </link>
  <joint name="axle" type="revolute">
    <parent>chassis</parent><child>wheel</child>
    <axis><xyz>0 1 0</xyz></axis>
  </joint>
  <model name="arm">
    <pose>0 0 2 0 0 0</pose>
    <link name="upper">
      <visual name="v"><geometry><sphere><radius>0.1</radius></sphere></geometry></visual>
    </link>
  </model>
</model>"#;

/// A world including the robot with `params` inside `<experimental:params>`.
fn robot_with(params: &str) -> String {
    format!(
        "<include>\n<uri>model://robot</uri>\n<experimental:params>\n{params}\n</experimental:params>\n</include>"
    )
}

fn dir_with_robot() -> Dir {
    let d = Dir::new();
    d.model("robot", "1.9", ROBOT);
    d
}

fn link<'w>(w: &'w World, name: &str) -> &'w Link {
    w.models[0]
        .links
        .iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no link {name}"))
}

#[test]
fn an_include_namespace_sets_the_model_namespace_and_changes_no_name() {
    let d = Dir::new();
    d.model(
        "plain",
        "1.9",
        "<model name=\"plain\"><link name=\"l\"/></model>",
    );
    d.model(
        "with_ns",
        "1.12",
        "<model name=\"with_ns\" namespace=\"robots/{name}\"><link name=\"l\"/></model>",
    );
    let w = d.ok(r#"
<include><uri>model://plain</uri></include>
<include><uri>model://plain</uri><name>p2</name><namespace>fleet</namespace></include>
<include><uri>model://plain</uri><name>p3</name><namespace> {name}/x </namespace></include>
<include><uri>model://with_ns</uri></include>
<include><uri>model://with_ns</uri><name>n2</name></include>
<include><uri>model://with_ns</uri><name>n3</name><namespace>other</namespace></include>
<include><uri>model://with_ns</uri><name>n4</name><namespace/></include>"#);
    let ns: Vec<(&str, Option<String>)> = w
        .models
        .iter()
        .map(|m| (m.name.as_str(), m.namespace()))
        .collect();
    assert_eq!(
        ns,
        vec![
            ("plain", None),
            ("p2", Some("fleet".to_string())),
            ("p3", Some("p3/x".to_string())),
            ("with_ns", Some("robots/with_ns".to_string())),
            ("n2", Some("robots/n2".to_string())),
            ("n3", Some("other".to_string())),
            ("n4", Some("robots/n4".to_string())),
        ]
    );
    // Names and scopes are those without a namespace.
    assert_eq!(w.models[1].links[0].name, "l");
    assert_eq!(w.models[5].raw_namespace.as_deref(), Some("other"));
}

#[test]
fn add_puts_a_new_element_in_the_model_or_in_the_element_named() {
    let d = dir_with_robot();
    let w = d.ok(&robot_with(
        r#"<link element_id="" name="mast" action="add"><pose>0 0 3 0 0 0</pose>
  <inertial><mass>2</mass></inertial></link>
<visual element_id="wheel" name="rim" action="add"><geometry><sphere><radius>0.2</radius></sphere></geometry></visual>
<visual element_id="arm::upper" name="v2" action="add"><geometry><box><size>1 1 1</size></box></geometry></visual>
<plugin element_id="" name="p" filename="libp.so" action="add"/>
<plugin element_id="" name="p" filename="libp.so" action="add"/>"#,
    ));
    let m = &w.models[0];
    let names: Vec<&str> = m.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["chassis", "wheel", "mast"]);
    let mast = link(&w, "mast");
    assert!((mast.inertial.mass - 2.0).abs() < 1e-12);
    assert!((mast.pose.position.z - 3.0).abs() < 1e-12);
    assert_eq!(link(&w, "wheel").visuals[0].name, "rim");
    let upper = &m.models[0].links[0];
    let visuals: Vec<&str> = upper.visuals.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(visuals, ["v", "v2"]);
    // Plugins may repeat a name.
    assert_eq!(m.plugins.iter().filter(|p| p.name == "p").count(), 2);
    // The added link's span is where it was written: in the world file.
    let span = &mast.span;
    assert!(
        span.file
            .as_deref()
            .is_some_and(|f| f.ends_with("world.sdf"))
    );
    assert_eq!(span.line, d.line_of("world.sdf", "name=\"mast\""));
}

#[test]
fn modify_sets_attributes_values_and_defaults() {
    let d = dir_with_robot();
    let w = d.ok(&robot_with(
        r#"<sensor element_id="chassis::camera" action="modify" name="cam">
  <pose relative_to="__model__">0 0 5 0 0 0</pose>
  <update_rate>10</update_rate>
  <topic/>
  <camera><image><width>640</width></image><horizontal_fov/></camera>
</sensor>
<link element_id="wheel" action="modify"><pose/></link>
<model element_id="arm" action="modify" my:tag="x"><pose>0 0 4 0 0 0</pose></model>"#,
    ));
    let chassis = link(&w, "chassis");
    let cam = &chassis.sensors[0];
    assert_eq!(cam.name, "cam");
    assert!((cam.update_rate - 10.0).abs() < 1e-12);
    assert!(
        cam.topic.as_deref().is_none_or(str::is_empty),
        "an empty value is the default: {:?}",
        cam.topic
    );
    // Relative to the model now, not to the link at z = 1.
    assert!((cam.pose.position.z - 4.0).abs() < 1e-9, "{:?}", cam.pose);
    // The sensor's own XML, as its plugin reads it.
    assert!(cam.sdf.contains("<width>640</width>"), "{}", cam.sdf);
    assert!(cam.sdf.contains("<height>240</height>"), "{}", cam.sdf);
    assert!(cam.sdf.contains("<horizontal_fov/>"), "{}", cam.sdf);
    assert!(link(&w, "wheel").pose.position.x.abs() < 1e-12);
    assert!((w.models[0].models[0].pose.position.z - 4.0).abs() < 1e-12);
}

#[test]
fn remove_takes_out_an_element_or_the_children_listed() {
    let d = dir_with_robot();
    let w = d.ok(&robot_with(
        r#"<collision element_id="chassis::body" action="remove"/>
<link element_id="chassis" action="remove"><inertial/></link>
<model element_id="arm" action="remove"/>"#,
    ));
    let chassis = link(&w, "chassis");
    assert!(chassis.collisions.is_empty());
    assert_eq!(chassis.visuals.len(), 1);
    assert!(
        (chassis.inertial.mass - 1.0).abs() < 1e-12,
        "the default mass"
    );
    assert!(w.models[0].models.is_empty());
}

#[test]
fn replace_puts_the_new_element_in_place_of_the_old() {
    let d = dir_with_robot();
    let w = d.ok(&robot_with(
        r#"<collision element_id="chassis::body" name="ball" action="replace">
  <geometry><sphere><radius>0.7</radius></sphere></geometry>
</collision>
<joint element_id="axle" name="axle" type="fixed" action="replace">
  <parent>chassis</parent><child>wheel</child>
</joint>"#,
    ));
    let c = &link(&w, "chassis").collisions[0];
    assert_eq!(c.name, "ball");
    assert!(matches!(c.geometry, Geometry::Sphere { radius } if (radius - 0.7).abs() < 1e-12));
    assert_eq!(w.models[0].joints[0].kind.name(), "fixed");
}

#[test]
fn without_an_action_each_child_says_what_to_do() {
    let d = dir_with_robot();
    let w = d.ok(&robot_with(
        r#"<link element_id="chassis">
  <visual name="body" action="modify"><material><ambient>0 0 1 1</ambient></material></visual>
  <collision name="body" action="replace"><geometry><sphere><radius>0.5</radius></sphere></geometry></collision>
  <sensor name="camera" action="remove"/>
  <visual name="extra" action="add"><geometry><sphere><radius>0.1</radius></sphere></geometry></visual>
</link>"#,
    ));
    let chassis = link(&w, "chassis");
    assert!(chassis.sensors.is_empty());
    let visuals: Vec<&str> = chassis.visuals.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(visuals, ["body", "extra"]);
    assert!(matches!(
        chassis.collisions[0].geometry,
        Geometry::Sphere { .. }
    ));
}

#[test]
fn edits_reach_models_included_by_the_included_model() {
    let d = Dir::new();
    d.model(
        "camera",
        "1.8",
        r#"<model name="camera"><link name="body">
  <sensor name="cam" type="camera"><update_rate>30</update_rate></sensor>
</link></model>"#,
    );
    d.model(
        "rover",
        "1.9",
        r#"<model name="rover">
  <link name="base"/>
  <include><uri>model://camera</uri><name>front</name></include>
  <include><uri>model://camera</uri></include>
</model>"#,
    );
    let w = d.ok(
        r#"<include><uri>model://rover</uri>
<experimental:params>
  <sensor element_id="front::body::cam" action="modify"><update_rate>5</update_rate></sensor>
  <visual element_id="camera::body" name="lens" action="add"><geometry><sphere><radius>0.01</radius></sphere></geometry></visual>
  <link element_id="front" name="mount" action="add"/>
</experimental:params>
</include>"#,
    );
    let rover = &w.models[0];
    let front = &rover.models[0];
    let camera = &rover.models[1];
    assert_eq!(front.name, "front");
    assert!((front.links[0].sensors[0].update_rate - 5.0).abs() < 1e-12);
    assert_eq!(front.links.len(), 2);
    assert_eq!(front.links[1].name, "mount");
    assert!((camera.links[0].sensors[0].update_rate - 30.0).abs() < 1e-12);
    assert_eq!(camera.links[0].visuals[0].name, "lens");
    assert!(front.links[0].visuals.is_empty());
}

#[test]
fn an_edited_include_does_not_change_other_includes_of_the_same_file() {
    let d = dir_with_robot();
    let w = d.ok(r#"<include><uri>model://robot</uri><name>a</name>
<experimental:params><collision element_id="wheel::c" action="remove"/></experimental:params>
</include>
<include><uri>model://robot</uri><name>b</name></include>"#);
    assert!(w.models[0].links[1].collisions.is_empty());
    assert_eq!(w.models[1].links[1].collisions.len(), 1);
}

#[track_caller]
fn assert_error_at(d: &Dir, e: &SdfError, kind: ErrorKind, needle: &str, words: &str) {
    let report = e.render(None);
    assert_eq!(e.kind, kind, "{report}");
    assert!(e.message.contains(words), "{report}");
    assert!(!e.hint.is_empty(), "{report}");
    assert!(
        e.file.as_ref().is_some_and(|f| f.ends_with("world.sdf")),
        "{report}"
    );
    assert_eq!(e.line, d.line_of("world.sdf", needle), "{report}");
    assert!(
        report.contains(needle),
        "the report quotes the line:\n{report}"
    );
}

#[test]
fn malformed_edits_are_errors_where_they_are_written() {
    let d = dir_with_robot();
    let cases: &[(&str, ErrorKind, &str, &str)] = &[
        (
            r#"<visual action="remove"/>"#,
            ErrorKind::Missing,
            "<visual action=",
            "no `element_id`",
        ),
        (
            r#"<visual element_id="chassis::" action="remove"/>"#,
            ErrorKind::Invalid,
            "chassis::",
            "no name after its last `::`",
        ),
        (
            r#"<visual element_id="chassis::body" action="delete"/>"#,
            ErrorKind::Invalid,
            "delete",
            "\"delete\" is not an action",
        ),
        (
            r#"<link element_id="" action="add"/>"#,
            ErrorKind::Missing,
            "<link element_id",
            "has no `name`",
        ),
        (
            r#"<link element_id="" name="" action="add"/>"#,
            ErrorKind::Invalid,
            "name=\"\"",
            "empty `name`",
        ),
        (
            r#"<link element_id="" name="wheel" action="add"/>"#,
            ErrorKind::Duplicate,
            "name=\"wheel\"",
            "already has a <link> \"wheel\"",
        ),
        (
            r#"<visual element_id="chassis::nope" action="remove"/>"#,
            ErrorKind::UnknownReference,
            "chassis::nope",
            "has no <visual> \"chassis::nope\"",
        ),
        (
            r#"<visual element_id="wheel::c" action="remove"/>"#,
            ErrorKind::UnknownReference,
            "wheel::c",
            "has no <visual> \"wheel::c\"",
        ),
        (
            r#"<visual element_id="" action="modify"/>"#,
            ErrorKind::UnknownReference,
            "element_id=\"\"",
            "only action=\"add\" can name",
        ),
        (
            r#"<link element_id="chassis"><visual name="body"/></link>"#,
            ErrorKind::Missing,
            "<visual name=\"body\"/>",
            "has no `action`",
        ),
        (
            r#"<link element_id="chassis"><visual name="body" action="grow"/></link>"#,
            ErrorKind::Invalid,
            "grow",
            "\"grow\" is not an action",
        ),
        (
            r#"<link element_id="chassis"><visual name="other" action="remove"/></link>"#,
            ErrorKind::UnknownReference,
            "name=\"other\"",
            "no <visual name=\"other\"> to remove",
        ),
        (
            r#"<link element_id="chassis"><collision action="replace"><geometry/></collision></link>"#,
            ErrorKind::Missing,
            "<collision action=\"replace\">",
            "has no `name`",
        ),
        (
            r#"<link element_id="chassis"><wings name="w" action="add"/></link>"#,
            ErrorKind::Invalid,
            "<wings",
            "not a child SDF defines for <link>",
        ),
        (
            r#"<wings element_id="" name="w" action="add"/>"#,
            ErrorKind::Invalid,
            "<wings element_id",
            "not an SDF element",
        ),
        (
            r#"<sensor element_id="chassis::camera" action="modify"><noise><mean>1</mean></noise></sensor>"#,
            ErrorKind::UnknownReference,
            "<noise>",
            "no <noise> to modify",
        ),
        (
            r#"<sensor element_id="chassis::camera" action="modify" size="3"/>"#,
            ErrorKind::Invalid,
            "size=",
            "no attribute `size`",
        ),
        (
            r#"<sensor element_id="chassis::camera" action="modify"><pose/><remove_me action="remove"/></sensor>"#,
            ErrorKind::UnknownReference,
            "<remove_me",
            "no <remove_me> to modify",
        ),
    ];
    for (edit, kind, needle, words) in cases {
        let e = d.err(&robot_with(edit));
        assert_error_at(&d, &e, *kind, needle, words);
    }
}

#[test]
fn every_bad_edit_is_reported() {
    let d = dir_with_robot();
    let e = d.err(&robot_with(
        r#"<visual element_id="a" action="remove"/>
<visual element_id="b" action="remove"/>"#,
    ));
    assert_eq!(e.count(), 2, "{}", e.render(None));
}

#[test]
fn errors_in_edited_models_point_at_the_text_that_has_them() {
    let d = dir_with_robot();
    // A bad value the edit brings in: in the world file.
    let e = d.err(&robot_with(
        r#"<link element_id="wheel" action="modify"><pose>1 2</pose></link>"#,
    ));
    assert_error_at(&d, &e, ErrorKind::Invalid, "<pose>1 2</pose>", "");
    // A reference an edit breaks in the included file: reported there.
    let e = d.err(&robot_with(
        r#"<link element_id="chassis" action="modify" name="base"/>"#,
    ));
    let report = e.render(None);
    assert_eq!(e.kind, ErrorKind::UnknownReference, "{report}");
    assert!(
        e.file
            .as_ref()
            .is_some_and(|f| f.ends_with("models/robot/model.sdf")),
        "{report}"
    );
    assert_eq!(
        e.line,
        d.line_of("models/robot/model.sdf", "<joint name=\"axle\""),
        "{report}"
    );
    assert!(report.contains("\"chassis\" is not a frame"), "{report}");
    assert!(!e.included_from.is_empty(), "{report}");
}
