//! The `<sdf version>` root, the versions read, and XML as libsdformat tolerates it.

use super::support::*;
use crate::*;

use sim_world::Quat;

#[test]
fn every_version_from_1_0_to_1_12_is_accepted() {
    for minor in 0..=12 {
        let v = format!("1.{minor}");
        let w = ok(&format!("<sdf version=\"{v}\"><world name=\"w\"/></sdf>"));
        assert_eq!(w.sdf_version, v);
    }
    // Blanks around the version are tolerated.
    assert_eq!(
        ok("<sdf version=' 1.6 '><world name='w'/></sdf>").sdf_version,
        "1.6"
    );
}

#[test]
fn unknown_versions_are_errors_naming_the_supported_ones() {
    for bad in [
        "2.0",
        "1.13",
        "garbage",
        "1.6.0",
        "",
        "1",
        "-1.6",
        "99999999999.1",
    ] {
        let text = format!("<sdf version=\"{bad}\"><world name=\"w\"/></sdf>");
        let e = err(&text);
        check(
            &e,
            ErrorKind::Version,
            &text,
            &format!("{bad}\">"),
            "unsupported SDF version",
        );
        assert!(e.hint.contains("1.0 to 1.12"), "{}", e.hint);
    }
}

#[test]
fn a_missing_version_is_an_error() {
    let text = "<?xml version='1.0'?>\n  <sdf>\n<world name='w'/></sdf>";
    let e = err(text);
    check(&e, ErrorKind::Version, text, "<sdf>", "no `version`");
    assert!(e.hint.contains("1.0 to 1.12"));
}

#[test]
fn the_root_must_be_sdf() {
    let text = "<gazebo version='1.0'><world name='w'/></gazebo>";
    let e = err(text);
    check(
        &e,
        ErrorKind::Invalid,
        text,
        "<gazebo",
        "root element must be <sdf>",
    );
    assert!(e.hint.contains("pre-SDF"));
    let text = "<robot name='r'/>";
    check(
        &err(text),
        ErrorKind::Invalid,
        text,
        "<robot",
        "found <robot>",
    );
}

#[test]
fn a_model_file_is_not_a_world() {
    let text = "<sdf version='1.8'>\n  <model name='m'><link name='l'/></model>\n</sdf>";
    let e = err(text);
    check(
        &e,
        ErrorKind::Missing,
        text,
        "<model",
        "a <world> is needed",
    );
    assert!(e.hint.contains("<world name=\"default\">"));
}

#[test]
fn a_document_without_world_is_an_error() {
    let text = "<sdf version='1.8'>\n</sdf>";
    check(&err(text), ErrorKind::Missing, text, "<sdf", "no <world>");
    let text = "<sdf version='1.8'>\n <light name='sun' type='directional'/></sdf>";
    check(&err(text), ErrorKind::Missing, text, "<light", "no <world>");
}

#[test]
fn worlds_of_one_file_need_different_names() {
    let text = "<sdf version='1.8'>\n<world name='a'/>\n<world name='a'/>\n</sdf>";
    check(
        &err(text),
        ErrorKind::Duplicate,
        text,
        "a'/>\n</sdf>",
        "a <world> named \"a\" already exists",
    );
}

#[test]
fn a_model_beside_the_world_is_an_error() {
    let text = "<sdf version='1.8'>\n<world name='a'/>\n<model name='m'/>\n</sdf>";
    check(
        &err(text),
        ErrorKind::Invalid,
        text,
        "<model",
        "not part of the world",
    );
}

#[test]
fn malformed_xml_is_reported_where_it_is() {
    let text =
        "<sdf version='1.8'>\n<world name='w'>\n  <model name='m'>\n  </link>\n</world></sdf>";
    let e = err(text);
    check(&e, ErrorKind::Xml, text, "</link>", "not well-formed XML");
    assert!(
        !e.message.contains(" at "),
        "position repeated in message: {}",
        e.message
    );

    let text = "<sdf version='1.8'>\n<world name='w'>\n";
    let e = err(text);
    assert_eq!(e.kind, ErrorKind::Xml);
    assert!(e.line >= 1);

    let text = "<sdf version='1.8'><world name='w'/></sdf>\n<sdf/>";
    assert_eq!(err(text).kind, ErrorKind::Xml);

    let text = "<!DOCTYPE sdf [<!ENTITY a 'b'>]>\n<sdf version='1.8'><world name='w'/></sdf>";
    check(
        &err(text),
        ErrorKind::Xml,
        text,
        "<!DOCTYPE",
        "not well-formed XML",
    );

    for text in ["", "   ", "hello", "<"] {
        let e = err(text);
        assert!(e.line >= 1 && e.column >= 1, "{e:?}");
    }
}

#[test]
fn what_libsdformat_tolerates_is_read() {
    let text = r#"   <?xml version="1.0"?>
<!-- usage: simcore run --rtf 0 world.sdf -->
<sdf version="1.9">
  <world name="w">
    <gz:policies><physics_engine>x</physics_engine></gz:policies>
    <plugin filename="p" name="n" custom:attr="1">
      <gz::system_priority>10</gz::system_priority>
      <pose>not a pose</pose>
    </plugin>
    <model name="m"><gz:pose>1 2</gz:pose><pose>1 2 3 0 0 0</pose><link name='l'/></model>
  </world>
</sdf>"#;
    let w = ok(text);
    assert_eq!(w.plugins[0].filename, "p");
    // The plugin gets its element as XML any parser reads, repaired like the document.
    let snippet = &w.plugins[0].sdf;
    assert!(
        snippet.contains("<gz..system_priority>10</gz..system_priority>"),
        "{snippet}"
    );
    assert!(snippet.contains("custom.attr=\"1\""), "{snippet}");
    assert!(roxmltree::Document::parse(snippet).is_ok(), "{snippet}");
    // Namespaced elements are not SDF's: <gz:pose> is not the model's pose.
    assert_pose(&w.models[0].pose, [1.0, 2.0, 3.0], Quat::IDENTITY);

    // Stray text before the root, and a prefix declared only out of scope.
    let text = "?xml version='1.0'?>\n<sdf version='1.9' xmlns:k='u'><world name='w'>\
                <a xmlns:q='v'/><q:b/></world></sdf>";
    ok(text);
}

#[test]
fn a_utf8_bom_is_accepted() {
    ok("\u{feff}<sdf version='1.6'><world name='w'/></sdf>");
}
