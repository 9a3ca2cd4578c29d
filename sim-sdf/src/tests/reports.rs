//! How errors are displayed and rendered.

use super::support::*;
use crate::*;
use std::path::Path;

#[test]
fn display_is_one_line() {
    let text = doc(
        "1.12",
        &model_with_link("<inertial><mass>-1</mass></inertial>"),
    );
    let e = err(&text);
    let (line, col) = pos_of(&text, "-1", 0);
    assert_eq!(
        e.to_string(),
        format!(
            "<inline>:{line}:{col}: {} (in <mass> in <link name=\"l\">)",
            e.message
        )
    );
    let e = parse_str(&text, Some(Path::new("worlds/arm.sdf"))).expect_err("invalid");
    assert!(e.to_string().starts_with(&format!(
        "worlds/arm.sdf:{line}:{col}: the mass of link \"l\""
    )));
    assert_eq!(e.file.as_deref(), Some(Path::new("worlds/arm.sdf")));
}

#[test]
fn render_shows_the_line_and_a_caret() {
    let text = "<sdf version='1.12'>\n<world name='w'>\n<model name='m'><link name='l'>\n    <inertial><mass>-1</mass></inertial>\n</link></model></world></sdf>";
    let e = parse_str(text, Some(Path::new("arm.sdf"))).expect_err("invalid");
    let report = e.render(None);
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines[0], format!("error: {}", e.message));
    assert_eq!(lines[1], "  --> arm.sdf:4:21");
    assert_eq!(lines[2], "  |");
    assert_eq!(lines[3], "4 |     <inertial><mass>-1</mass></inertial>");
    assert_eq!(lines[4], "  |                     ^");
    assert_eq!(lines[5], "  = in <mass> in <link name=\"l\">");
    assert!(lines[6].starts_with("  = help: give the mass in kg"));
    // The caret sits under the column.
    assert_eq!(lines[4].find('^'), lines[3].find("-1"));
    // A source passed explicitly is used instead of the kept one.
    let other = "a\nb\nc\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n";
    assert!(e.render(Some(other)).contains("4 | xxxx"));
    // Without any source, the line is left out.
    let mut bare = e.clone();
    bare.source_text = None;
    assert!(!bare.render(None).contains('^'));
}

#[test]
fn render_keeps_tabs_and_cuts_long_lines() {
    let text =
        "<sdf version='1.12'>\n<world name='w'>\n\t\t<gravity>0 0 x</gravity>\n</world></sdf>";
    let e = err(text);
    let report = e.render(None);
    let caret_line = format!("\n  | \t\t{}^\n", " ".repeat(13));
    assert!(report.contains(&caret_line), "{report}");

    let long = format!(
        "<sdf version='1.12'><world name='w'>{}<gravity>0 0 x</gravity></world></sdf>",
        " ".repeat(300)
    );
    let e = err(&long);
    let report = e.render(None);
    let lines: Vec<&str> = report.lines().collect();
    assert!(lines[3].len() < 130 && lines[3].contains("..."), "{report}");
    let caret = lines[4].find('^').expect("caret");
    assert_eq!(&lines[3][caret..caret + 1], "x", "{report}");
}

#[test]
fn debug_leaves_out_the_source() {
    let text = doc(
        "1.12",
        &format!("<!-- {} -->\n<gravity>0</gravity>", "y".repeat(1000)),
    );
    let e = err(&text);
    let debug = format!("{e:?}");
    assert!(
        !debug.contains("yyyy") && debug.contains("bytes"),
        "{debug}"
    );
}
