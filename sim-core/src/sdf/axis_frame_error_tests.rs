//! An axis `expressed_in` a frame that is not in scope is reported at the attribute.

use super::*;

#[test]
fn an_unknown_axis_frame_is_reported_at_its_expressed_in_attribute() {
    let text = "<sdf version=\"1.9\"><world name=\"w\">\n<model name=\"m\">\n  <link name=\"a\"/>\n  <link name=\"b\"/>\n  \
                <joint name=\"j\" type=\"revolute\">\n    <parent>a</parent><child>b</child>\n    \
                <axis><xyz expressed_in=\"nope\">0 0 1</xyz></axis>\n    \
                <axis2><xyz expressed_in=\"a\">1 0 0</xyz></axis2>\n  </joint>\n</model>\n</world></sdf>\n";
    let e = parse_str(text, None).unwrap_err();
    assert_eq!(e.all().count(), 1, "{}", e.render(Some(text)));
    assert_eq!(
        e.kind,
        ErrorKind::UnknownReference,
        "{}",
        e.render(Some(text))
    );
    // Line 7, the attribute's value: `    <axis><xyz expressed_in="` is 29 characters.
    assert_eq!((e.line, e.column), (7, 30), "{}", e.render(Some(text)));
    assert_eq!(
        e.element,
        "<xyz expressed_in=\"nope\"> in <axis> of <joint name=\"j\">"
    );
    assert!(
        e.message.contains("\"nope\" is not a frame"),
        "{}",
        e.message
    );
    // What to do: the frames that can be named.
    assert!(
        e.hint.contains("__model__") && e.hint.contains("a") && e.hint.contains("j"),
        "{}",
        e.hint
    );
    let report = e.render(Some(text));
    assert!(
        report.contains("<axis><xyz expressed_in=\"nope\">0 0 1</xyz></axis>"),
        "{report}"
    );
}
