//! The warnings for deprecated forms (see `deprecated`).

use super::support::*;
use crate::*;

use sim_world::World;

/// Loads `text` (written to a file) and returns the world with the warnings of the load.
#[track_caller]
fn load_warned(text: &str) -> (World, Vec<SdfError>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.sdf");
    std::fs::write(&path, text).unwrap();
    let (loaded, warnings) = load_document_with_warnings(&path, &LoadOptions::default());
    let world = loaded
        .and_then(Document::into_world)
        .unwrap_or_else(|e| panic!("{}", e.render(None)));
    for w in &warnings {
        assert_eq!(w.file.as_deref(), Some(path.as_path()));
    }
    (world, warnings)
}

/// 1-based (line, column) of the first `needle` in `text`.
#[track_caller]
fn at(text: &str, needle: &str) -> (u32, u32) {
    pos_of(text, needle, 0)
}

fn world(version: &str, body: &str) -> String {
    format!("<sdf version='{version}'>\n<world name='w'>\n{body}\n</world>\n</sdf>\n")
}

const FRAMED: &str = "<model name='m'>
  <frame name='F'><pose>0 0 5 0 0 0</pose></frame>
  <link name='l'><pose frame='F'>1 0 0 0 0 0</pose></link>
</model>";

#[test]
fn a_pose_frame_attribute_since_sdf_1_7_is_ignored_with_a_warning() {
    let text = world("1.7", FRAMED);
    let (w, warnings) = load_warned(&text);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let warning = &warnings[0];
    assert_eq!(
        (warning.line, warning.column),
        at(&text, "F'>1 0 0"),
        "{}",
        warning.render_warning()
    );
    assert!(
        warning
            .message
            .contains("`frame` is not an attribute of <pose> since SDF 1.7"),
        "{}",
        warning.message
    );
    assert!(warning.message.contains("1.7"), "{}", warning.message);
    assert_eq!(warning.hint, "write relative_to=\"F\" instead");
    // Ignored, as libsdformat ignores it: the link is 1 m along x of the model, not of F.
    let l = &w.models[0].links[0];
    assert_eq!(l.raw_pose.relative_to, "");
    assert!((l.pose.position.z).abs() < 1e-12, "{:?}", l.pose);

    // Before 1.7 the attribute is what `relative_to` became: read, without a warning.
    let (w, warnings) = load_warned(&world("1.6", FRAMED));
    assert!(warnings.is_empty(), "{warnings:?}");
    let l = &w.models[0].links[0];
    assert_eq!(l.raw_pose.relative_to, "F");
    assert!((l.pose.position.z - 5.0).abs() < 1e-12, "{:?}", l.pose);

    // Both written: `frame` is only redundant.
    let text = world(
        "1.9",
        "<model name='m'><frame name='F'/><link name='l'><pose relative_to='F' frame='F'/></link></model>",
    );
    let (_, warnings) = load_warned(&text);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].hint.starts_with("remove `frame`"),
        "{}",
        warnings[0].hint
    );
}

const JOINT: &str = "<model name='m'>
  <link name='a'/>
  <link name='b'/>
  <joint name='j' type='revolute'>
    <parent>a</parent><child>b</child>
    <axis>
      <xyz>1 0 0</xyz>
      <use_parent_model_frame>true</use_parent_model_frame>
      <initial_position>0.5</initial_position>
    </axis>
  </joint>
</model>";

#[test]
fn use_parent_model_frame_since_sdf_1_7_and_initial_position_are_warned_about() {
    let text = world("1.8", JOINT);
    let (w, warnings) = load_warned(&text);
    let found: Vec<u32> = warnings.iter().map(|w| w.line).collect();
    assert_eq!(
        found,
        [
            at(&text, "<use_parent_model_frame>").0,
            at(&text, "<initial_position>").0
        ],
        "{warnings:?}"
    );
    assert!(
        warnings[0]
            .message
            .contains("replaced in SDF 1.7 by <xyz expressed_in>"),
        "{}",
        warnings[0].message
    );
    assert!(
        warnings[0]
            .hint
            .contains("<xyz expressed_in=\"__model__\">"),
        "{}",
        warnings[0].hint
    );
    assert!(
        warnings[1].message.contains("deprecated in SDF 1.8"),
        "{}",
        warnings[1].message
    );
    // Ignored: the axis stays in the joint frame.
    let axis = w.models[0].joints[0].axis.as_ref().unwrap();
    assert_eq!(axis.expressed_in, "");

    // In SDF 1.6 the element is read (libsdformat converts it silently).
    let (w, warnings) = load_warned(&world("1.6", JOINT));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].message.contains("<initial_position>"));
    let axis = w.models[0].joints[0].axis.as_ref().unwrap();
    assert_eq!(axis.expressed_in, "__model__");
}

#[test]
fn thread_pitch_is_deprecated_for_screw_thread_pitch() {
    let screw = |pitches: &str| {
        world(
            "1.10",
            &format!(
                "<model name='m'><link name='a'/><link name='b'/>
<joint name='s' type='screw'><parent>a</parent><child>b</child>{pitches}<axis><xyz>0 0 1</xyz></axis></joint>
</model>"
            ),
        )
    };
    let text = screw("<thread_pitch>-6.283185307179586</thread_pitch>");
    let (w, warnings) = load_warned(&text);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].line, at(&text, "<thread_pitch>").0);
    assert!(
        warnings[0].message.contains("deprecated since SDF 1.10"),
        "{}",
        warnings[0].message
    );
    assert!(
        warnings[0]
            .hint
            .contains("<screw_thread_pitch>1</screw_thread_pitch>"),
        "{}",
        warnings[0].hint
    );
    // Still read.
    assert!((w.models[0].joints[0].screw_thread_pitch - 1.0).abs() < 1e-12);

    let (_, warnings) = load_warned(&screw(
        "<thread_pitch>3</thread_pitch><screw_thread_pitch>0.5</screw_thread_pitch>",
    ));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0]
            .message
            .contains("ignored beside <screw_thread_pitch>"),
        "{}",
        warnings[0].message
    );

    let (_, warnings) = load_warned(&screw("<screw_thread_pitch>0.5</screw_thread_pitch>"));
    assert!(warnings.is_empty(), "{warnings:?}");
}
