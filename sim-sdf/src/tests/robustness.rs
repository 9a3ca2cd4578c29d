//! Input that must not make the reader panic, and the self-contained texts plugins receive.

use super::support::*;
use crate::*;

#[test]
fn no_input_makes_the_reader_panic() {
    let text = doc(
        "1.5",
        "<physics><gravity>0 0 -9.8</gravity><max_step_size>0.001</max_step_size></physics>\
         <spherical_coordinates><latitude_deg>1</latitude_deg></spherical_coordinates>\
         <plugin filename='f' name='n'><x/></plugin>\
         <model name='m'><pose rotation_format='quat_xyzw'>0 0 0 0 0 0 1</pose>\
           <link name='l'><inertial><mass>2</mass><inertia><ixx>1</ixx></inertia></inertial>\
             <collision name='c'><geometry><box><size>1 1 1</size></box></geometry></collision>\
             <visual name='v'><geometry><plane/></geometry><material><diffuse>1 0 0</diffuse></material></visual>\
             <sensor name='s' type='camera'><camera><triggered>1</triggered></camera></sensor></link>\
           <model name='n'><pose degrees='true'>0 0 0 90 0 0</pose><link name='l'/></model></model>",
    );
    // Every truncation, and every single-byte corruption into a few troublesome bytes.
    let mut cases: Vec<String> = (0..=text.len())
        .filter(|&i| text.is_char_boundary(i))
        .map(|i| text[..i].to_string())
        .collect();
    for (i, _) in text.char_indices().step_by(3) {
        for c in ["<", ">", "\"", "'", "&", ":", "-", " ", "\u{e9}"] {
            let mut t = text.clone();
            t.replace_range(i..i + 1, c);
            cases.push(t);
        }
    }
    for case in &cases {
        match std::panic::catch_unwind(|| parse_str(case, None)) {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                assert!(
                    e.line >= 1 && e.column >= 1,
                    "no position for {case:?}: {e:?}"
                );
                let _ = e.render(None);
            }
            Err(_) => panic!("panic on {case:?}"),
        }
    }
}

#[test]
fn undeclared_prefixes_in_sensor_and_plugin_elements_are_warnings_at_their_line() {
    let text = r#"<sdf version="1.9" xmlns:gz="http://gazebosim.org/schema">
  <world name="w">
    <model name="m">
      <link name="l">
        <sensor name="s" type="imu">
          <gz:extra>1</gz:extra>
          <custom:thing>2</custom:thing>
        </sensor>
      </link>
      <plugin filename="p" name="q">
        <acme:fail acme:unit="m">3</acme:fail>
        <gz::priority>1</gz::priority>
      </plugin>
    </model>
  </world>
</sdf>"#;
    let (doc, warnings) = load_with_warnings(text);
    doc.expect("the world loads");
    let found: Vec<(u32, String)> = warnings
        .iter()
        .filter(|w| w.kind == ErrorKind::UnknownReference)
        .map(|w| (w.line, w.message.clone()))
        .collect();
    let line = |needle: &str| line_of(text, needle);
    assert_eq!(
        found,
        vec![
            (
                line("<custom:thing>"),
                "the namespace prefix `custom` of `custom:thing` is not declared; the plugin \
                 reads it as `custom.thing`"
                    .to_string()
            ),
            (
                line("<acme:fail"),
                "the namespace prefix `acme` of `acme:fail` is not declared; the plugin reads \
                 it as `acme.fail`"
                    .to_string()
            ),
            (
                line("<acme:fail"),
                "the namespace prefix `acme` of `acme:unit` is not declared; the plugin reads \
                 it as `acme.unit`"
                    .to_string()
            ),
        ],
        "{warnings:?}"
    );
    assert!(
        warnings[0].hint.contains("xmlns:custom="),
        "{:?}",
        warnings[0].hint
    );
}

#[test]
fn sensor_and_plugin_texts_are_self_contained_xml() {
    let text = r#"<sdf version="1.9" xmlns:gz="http://gazebosim.org/schema">
  <world name="w">
    <model name="m">
      <link name="l">
        <sensor name="s" type="imu"><gz:extra>1</gz:extra><custom:thing>2</custom:thing></sensor>
      </link>
      <plugin filename="p" name="q"><gz:gain>3</gz:gain></plugin>
    </model>
  </world>
</sdf>"#;
    let w = parse_str(text, None).unwrap();
    let sensor = &w.models[0].links[0].sensors[0].sdf;
    let plugin = &w.models[0].plugins[0].sdf;
    for snippet in [sensor, plugin] {
        let doc = roxmltree::Document::parse(snippet).unwrap_or_else(|e| panic!("{snippet}: {e}"));
        assert!(
            snippet.contains(r#"xmlns:gz="http://gazebosim.org/schema""#),
            "{snippet}"
        );
        let gz = doc
            .descendants()
            .find(|n| n.tag_name().namespace() == Some("http://gazebosim.org/schema"))
            .expect("the gz element keeps its namespace");
        assert!(gz.text().is_some());
    }
    // A plugin reads the declared namespace's element with the typed API, by its prefix.
    let origin = sim_plugin_api::sdf::Origin::new("q");
    let typed = sim_plugin_api::sdf::SdfDocument::parse(plugin, origin).unwrap();
    let gain = typed
        .root()
        .child("gz:gain")
        .expect("the namespaced element");
    assert_eq!(gain.namespace(), Some("http://gazebosim.org/schema"));
    assert_eq!(typed.root().get::<f64>("gz:gain").unwrap(), Some(3.0));
    // The undeclared prefix is repaired as in the whole document.
    assert!(
        sensor.contains("<custom.thing>2</custom.thing>"),
        "{sensor}"
    );
    // Without namespaces the text is exactly as written.
    let plain = parse_str(
        r#"<sdf version="1.9"><world name="w"><model name="m"><link name="l"><sensor name="s" type="imu">
        <update_rate>5</update_rate></sensor></link></model></world></sdf>"#,
        None,
    )
    .unwrap();
    assert_eq!(
        plain.models[0].links[0].sensors[0].sdf,
        "<sensor name=\"s\" type=\"imu\">\n        <update_rate>5</update_rate></sensor>"
    );
}
