//! `<plugin>`s of the world, models, links and sensors.

use super::support::*;
use crate::*;

#[test]
fn plugins() {
    let plugin = "<plugin filename=\"libfoo.so\" name=\"foo::Bar\">\n  <gain>2</gain>\n</plugin>";
    let text = doc("1.6", plugin);
    let w = ok(&text);
    let p = &w.plugins[0];
    assert_eq!(
        (p.filename.as_str(), p.name.as_str()),
        ("libfoo.so", "foo::Bar")
    );
    assert_eq!(p.sdf, plugin);
    assert_eq!((p.span.line, p.span.column), pos_of(&text, "<plugin", 0));
    // Self-closing.
    assert_eq!(
        ok(&doc("1.6", "<plugin filename='a' name='b'/>")).plugins[0].sdf,
        "<plugin filename='a' name='b'/>"
    );
}

#[test]
fn plugin_name_is_optional_since_1_10() {
    assert_eq!(
        ok(&doc("1.10", "<plugin filename='a'/>")).plugins[0].name,
        ""
    );
    assert_eq!(
        ok(&doc("1.12", "<plugin filename='a'/>")).plugins[0].name,
        ""
    );
    let text = doc("1.9", "<plugin filename='a'/>");
    let e = err(&text);
    check(
        &e,
        ErrorKind::Missing,
        &text,
        "<plugin",
        "no `name` attribute",
    );
    assert!(e.message.contains("1.9"));
    let text = doc("1.12", "<plugin name='a'/>");
    refused(
        &text,
        ErrorKind::Missing,
        "<plugin",
        "no `filename` attribute",
    );
}

#[test]
fn a_plugin_in_a_link_is_read_without_a_warning() {
    let (doc, warnings) = load_with_warnings(
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
