//! Requirements of the SDF issue checked from the library's side, each with a small file.

use super::*;

/// Loads `text` from a file in a temporary directory, with its warnings.
fn load(text: &str) -> (Result<Document, SdfError>, Vec<SdfError>) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("w.sdf");
    std::fs::write(&p, text).unwrap();
    load_document_with_warnings(&p, &LoadOptions::default())
}

#[test]
fn a_plugin_in_a_link_is_read_without_a_warning() {
    let (doc, warnings) = load(
        r#"<?xml version="1.0"?>
<sdf version="1.9"><world name="w"><model name="m"><link name="l">
  <plugin filename="my_lib" name="my::Plugin"><gain>2</gain></plugin>
</link></model></world></sdf>"#,
    );
    let w = doc.unwrap().into_world().unwrap();
    let l = &w.models[0].links[0];
    assert_eq!(l.plugins.len(), 1);
    assert_eq!(
        (l.plugins[0].filename.as_str(), l.plugins[0].name.as_str()),
        ("my_lib", "my::Plugin")
    );
    assert!(
        l.plugins[0].sdf.contains("<gain>2</gain>"),
        "{}",
        l.plugins[0].sdf
    );
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn an_included_light_is_a_light_of_the_world() {
    let dir = tempfile::tempdir().unwrap();
    let sun = dir.path().join("models/sun");
    std::fs::create_dir_all(&sun).unwrap();
    std::fs::write(
        sun.join("model.config"),
        r#"<model><name>sun</name><sdf version="1.6">model.sdf</sdf></model>"#,
    )
    .unwrap();
    std::fs::write(
        sun.join("model.sdf"),
        r#"<?xml version="1.0"?>
<sdf version="1.6"><light type="directional" name="sun">
  <pose>0 0 10 0 0 0</pose><diffuse>0.8 0.8 0.8 1</diffuse><direction>-0.5 0.5 -1</direction>
</light></sdf>"#,
    )
    .unwrap();
    let w = dir.path().join("w.sdf");
    std::fs::write(
        &w,
        r#"<?xml version="1.0"?>
<sdf version="1.9"><world name="w">
  <include><uri>model://sun</uri></include>
  <include><uri>model://sun</uri><name>moon</name><pose>1 2 3 0 0 0</pose></include>
  <frame name="f"><pose>0 0 1 0 0 0</pose></frame>
  <include><uri>model://sun</uri><name>lamp</name><pose relative_to="f">0 0 1 0 0 0</pose></include>
</world></sdf>"#,
    )
    .unwrap();
    let world = load_with(&w, &LoadOptions::default()).unwrap();
    let names: Vec<&str> = world.lights.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["sun", "moon", "lamp"]);
    let z: Vec<f64> = world.lights.iter().map(|l| l.pose.position.z).collect();
    assert_eq!(z, [10.0, 3.0, 2.0]);
    assert_eq!(world.lights[0].diffuse, [0.8, 0.8, 0.8, 1.0]);
    assert!(world.lights[0].direction.z < 0.0);
    // A second light of the same name is a duplicate, as for lights written in the world.
    std::fs::write(
        &w,
        r#"<?xml version="1.0"?>
<sdf version="1.9"><world name="w">
  <light type="point" name="sun"/>
  <include><uri>model://sun</uri></include>
</world></sdf>"#,
    )
    .unwrap();
    let e = load_with(&w, &LoadOptions::default()).unwrap_err();
    assert!(e.message.contains("\"sun\""), "{}", e.render(None));
}
