//! A model directory's `model.config` that needs a warning (an entry of a version this reader
//! does not read, a fallback to `model.sdf`, a deprecated `manifest.xml`) gives a warning of
//! the load at its line in the `model.config`, included from the `<include>`.

use crate::*;

/// Writes `files` (relative path, text) under a new directory and loads `world.sdf` there.
fn load(files: &[(&str, &str)]) -> (tempfile::TempDir, Result<Document, SdfError>, Vec<SdfError>) {
    let t = tempfile::tempdir().expect("temp dir");
    for (rel, text) in files {
        let p = t.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    let (doc, warnings) =
        load_document_with_warnings(&t.path().join("world.sdf"), &LoadOptions::default());
    (t, doc, warnings)
}

const WORLD: &str = "<sdf version=\"1.9\">\n<world name=\"w\">\n  <include>\n    \
                     <uri>models/arm</uri>\n  </include>\n</world>\n</sdf>\n";
const MODEL: &str = "<sdf version=\"1.9\"><model name=\"arm\"><static>true</static>\
                     <link name=\"l\"/></model></sdf>";

#[test]
fn an_entry_of_an_unread_version_is_a_warning_at_its_line() {
    let config = "<?xml version=\"1.0\"?>\n<model>\n  <name>arm</name>\n  \
                  <sdf version=\"1.99\">future.sdf</sdf>\n  <sdf version=\"1.9\">model.sdf</sdf>\n</model>\n";
    let (t, doc, warnings) = load(&[
        ("world.sdf", WORLD),
        ("models/arm/model.config", config),
        ("models/arm/model.sdf", MODEL),
    ]);
    let world = doc.expect("the 1.9 entry is used").into_world().unwrap();
    assert_eq!(world.models[0].name, "arm");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = &warnings[0];
    let config_path = t.path().join("models/arm/model.config");
    assert_eq!(w.file.as_deref(), Some(config_path.as_path()));
    // The version attribute's value on line 4.
    assert_eq!((w.line, w.column), (4, 17), "{w:?}");
    assert_eq!(w.element, "<sdf version=\"1.99\">");
    assert!(
        w.message.contains("future.sdf") && w.message.contains("1.99"),
        "{w:?}"
    );
    assert!(!w.hint.is_empty());
    // Included from the world's <include>, line 3.
    assert_eq!(w.included_from.len(), 1);
    assert_eq!(w.included_from[0].line, 3);
    let report = w.render_warning();
    assert!(
        report.contains("<sdf version=\"1.99\">future.sdf</sdf>"),
        "{report}"
    );
    assert!(report.contains("model.config:4:17"), "{report}");
}

#[test]
fn a_fallback_to_model_sdf_and_a_manifest_xml_are_warnings() {
    // Only an entry too new: model.sdf is used, with a warning for each.
    let config = "<model>\n<sdf version=\"2.0\">future.sdf</sdf>\n</model>\n";
    let (_t, doc, warnings) = load(&[
        ("world.sdf", WORLD),
        ("models/arm/model.config", config),
        ("models/arm/model.sdf", MODEL),
    ]);
    doc.expect("model.sdf is used");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(warnings[0].line, 2);
    assert!(
        warnings[1].message.contains("model.sdf") && warnings[1].line == 1,
        "{warnings:?}"
    );
    // The deprecated name of model.config.
    let (t, doc, warnings) = load(&[
        ("world.sdf", WORLD),
        (
            "models/arm/manifest.xml",
            "<model><sdf version=\"1.9\">model.sdf</sdf></model>",
        ),
        ("models/arm/model.sdf", MODEL),
    ]);
    doc.expect("manifest.xml is read");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        warnings[0].file.as_deref(),
        Some(t.path().join("models/arm/manifest.xml").as_path())
    );
    assert!(warnings[0].hint.contains("model.config"), "{warnings:?}");
}
