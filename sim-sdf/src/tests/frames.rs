//! Frames and pose resolution: relative_to, attached_to, placement frames, canonical links,
//! joint frames and axes.

use super::support::*;
use crate::*;

use sim_world::{Pose, Quat};

const QUARTER: f64 = std::f64::consts::FRAC_PI_2;

fn yaw(a: f64) -> Quat {
    Quat::from_rpy(0.0, 0.0, a)
}

#[test]
fn relative_to_chains_and_frames_attached_to_frames() {
    let w = ok_body(&format!(
        "<model name='m'><pose>1 0 0 0 0 {QUARTER}</pose>
           <frame name='F1'><pose>0 1 0 0 0 0</pose></frame>
           <frame name='F2' attached_to='F1'><pose>1 0 0 0 0 0</pose></frame>
           <link name='L'><pose relative_to='F2'>0 0 1 0 0 0</pose></link>
           <link name='K'><pose relative_to='L'>0 0 0 0 0 {QUARTER}</pose>
             <inertial><pose relative_to='L'>1 0 0 0 0 0</pose></inertial>
             <collision name='c'><pose relative_to='__model__'/><geometry><sphere><radius>1</radius></sphere></geometry></collision>
             <visual name='v'><pose relative_to='F1'/><geometry><sphere><radius>1</radius></sphere></geometry></visual>
             <sensor name='s' type='imu'><pose relative_to='m'>0 0 1 0 0 0</pose></sensor>
           </link>
         </model>"
    ));
    let m = &w.models[0];
    assert_pose(&m.pose, [1.0, 0.0, 0.0], yaw(QUARTER));
    assert_eq!(m.raw_pose.relative_to, "");
    let (f1, f2) = (&m.frames[0], &m.frames[1]);
    assert_pose(&f1.pose, [0.0, 1.0, 0.0], Quat::IDENTITY);
    assert_pose(&f2.pose, [1.0, 1.0, 0.0], Quat::IDENTITY);
    assert_eq!(f2.attached_to, "F1");
    // F2 -> F1 -> the model frame -> the canonical link, the first one.
    assert_eq!(
        (f1.attached_to_body.as_str(), f2.attached_to_body.as_str()),
        ("L", "L")
    );
    let (l, k) = (&m.links[0], &m.links[1]);
    assert_pose(&l.pose, [1.0, 1.0, 1.0], Quat::IDENTITY);
    assert_eq!(l.raw_pose.relative_to, "F2");
    assert_pose(&l.raw_pose.pose, [0.0, 0.0, 1.0], Quat::IDENTITY);
    assert_pose(&k.pose, [1.0, 1.0, 1.0], yaw(QUARTER));
    // In K's frame (turned a quarter about z at (1, 1, 1)).
    assert_pose(&k.inertial.pose, [0.0, -1.0, 0.0], yaw(-QUARTER));
    assert_pose(&k.collisions[0].pose, [-1.0, 1.0, -1.0], yaw(-QUARTER));
    assert_pose(&k.visuals[0].pose, [0.0, 1.0, -1.0], yaw(-QUARTER));
    assert_pose(&k.sensors[0].pose, [-1.0, 1.0, 0.0], yaw(-QUARTER));
}

#[test]
fn pose_reference_errors() {
    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><link name='b'><pose relative_to='nope'>1 0 0 0 0 0</pose></link></model>",
    );
    let e = err(&t);
    check(
        &e,
        ErrorKind::UnknownReference,
        &t,
        "<pose relative_to='nope'",
        "relative_to \"nope\" is not a frame in model \"m\"",
    );
    assert!(
        e.hint.contains("\"a\"") && e.hint.contains("__model__"),
        "{}",
        e.hint
    );

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'><pose relative_to='b'/></link><link name='b'><pose relative_to='a'/></link></model>",
    );
    let e = err(&t);
    assert_eq!(e.kind, ErrorKind::Cycle, "{}", e.render(None));
    assert!(e.message.contains("cycle"), "{}", e.message);

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'><pose relative_to='a'/></link></model>",
    );
    refused(
        &t,
        ErrorKind::Cycle,
        "<pose relative_to='a'",
        "relative to itself",
    );

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><frame name='f' attached_to='g'/><frame name='g' attached_to='f'/></model>",
    );
    let e = err(&t);
    assert_eq!(e.kind, ErrorKind::Cycle, "{}", e.render(None));
    assert!(e.message.contains("attached_to"), "{}", e.message);

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><frame name='f' attached_to='f'/></model>",
    );
    refused(&t, ErrorKind::Cycle, "<frame", "attached to itself");

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><frame name='f' attached_to='ghost'/></model>",
    );
    refused(
        &t,
        ErrorKind::UnknownReference,
        "<frame",
        "attached_to \"ghost\" is not a frame",
    );

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><frame name='f' attached_to='world'/></model>",
    );
    refused(
        &t,
        ErrorKind::UnknownReference,
        "<frame",
        "cannot be attached to `world`",
    );

    let t = doc(
        "1.12",
        "<model name='m'><link name='a'><pose relative_to='world'/></link></model>",
    );
    let e = err(&t);
    assert_eq!(e.kind, ErrorKind::UnknownReference);
    assert!(e.hint.contains("cannot refer to `world`"), "{}", e.hint);

    // Reserved and scoped names of frames.
    let t = doc(
        "1.12",
        "<model name='m'><link name='a'/><frame name='__f__'/></model>",
    );
    refused(&t, ErrorKind::Invalid, "__f__", "reserved");
    let t = doc("1.12", "<frame name='a::b'/>");
    refused(&t, ErrorKind::Invalid, "a::b", "`::`");
}

#[test]
fn sibling_names_are_unique_across_kinds() {
    let t = doc(
        "1.12",
        "<model name='m'><link name='x'/><link name='y'/>\n<frame name='x'/></model>",
    );
    refused(
        &t,
        ErrorKind::Duplicate,
        "<frame",
        "used by a <link> (line 4) and a <frame>",
    );
    let t = doc(
        "1.12",
        "<model name='m'><link name='x'/><model name='x'><link name='l'/></model></model>",
    );
    assert_eq!(err(&t).kind, ErrorKind::Duplicate);
    let t = doc(
        "1.12",
        "<model name='x'><link name='l'/></model><frame name='x'/>",
    );
    refused(&t, ErrorKind::Duplicate, "<frame", "the world");
    // Before 1.7, libsdformat renames a joint that clashes with a link.
    let w = ok(&two_links(
        "1.6",
        "<joint name='b' type='fixed'><parent>a</parent><child>b</child></joint>",
    ));
    assert_eq!(w.models[0].joints[0].name, "b_joint");
}

#[test]
fn placement_frame_places_that_frame() {
    let w = ok_body(
        "<model name='m' placement_frame='L'><pose>0 0 5 0 0 0</pose>
           <link name='L'><pose>1 0 0 0 0 0</pose></link></model>
         <model name='n' placement_frame='F'><pose>0 0 0 0 0 0</pose>
           <link name='L'/><frame name='F' attached_to='L'><pose>0 0 0 0 0 1.5707963267948966</pose></frame></model>",
    );
    let m = &w.models[0];
    assert_eq!(m.placement_frame, "L");
    assert_pose(&m.pose, [-1.0, 0.0, 5.0], Quat::IDENTITY);
    assert_pose(
        &m.pose.compose(m.links[0].pose),
        [0.0, 0.0, 5.0],
        Quat::IDENTITY,
    );
    assert_pose(&w.models[1].pose, [0.0, 0.0, 0.0], yaw(-QUARTER));

    // Nested models, and a frame of the nested model as placement frame.
    let w = ok_body(
        "<model name='outer'><link name='base'/>
           <model name='inner' placement_frame='tip'><pose relative_to='base'>0 0 1 0 0 0</pose>
             <link name='body'/><frame name='tip'><pose>0 0 0.5 0 0 0</pose></frame></model></model>",
    );
    assert_pose(&w.models[0].models[0].pose, [0.0, 0.0, 0.5], Quat::IDENTITY);

    let t = doc(
        "1.12",
        "<model name='m' placement_frame='nope'><link name='L'/></model>",
    );
    let e = err(&t);
    check(
        &e,
        ErrorKind::UnknownReference,
        &t,
        "<model",
        "placement_frame \"nope\"",
    );
    assert!(e.hint.contains("\"L\""), "{}", e.hint);

    // What an <include> does with a model read from its own file.
    let mut m = w.models[0].models[0].clone();
    let pose = sim_world::RawPose {
        pose: Pose::from_xyz_rpy(0.0, 0.0, 3.0, 0.0, 0.0, 0.0),
        ..Default::default()
    };
    crate::place_model(&mut m, Some(pose.clone()), Some("body")).unwrap();
    assert_eq!(m.placement_frame, "body");
    assert_pose(&m.pose, [0.0, 0.0, 3.0], Quat::IDENTITY);
    crate::place_model(&mut m, None, Some("tip")).unwrap();
    assert_pose(&m.pose, [0.0, 0.0, 2.5], Quat::IDENTITY);
    let e = crate::place_model(&mut m, Some(pose), Some("nope"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"nope\"") && e.contains("\"tip\""), "{e}");
}

#[test]
fn canonical_links() {
    let w = ok_body(
        "<model name='a'><link name='x'/><link name='y'/></model>
         <model name='b' canonical_link='y'><link name='x'/><link name='y'/></model>
         <model name='c'><model name='n'><link name='l'/></model></model>
         <model name='d' canonical_link='n::l'><link name='x'/><model name='n'><link name='l'/></model></model>
         <model name='e'><static>true</static></model>",
    );
    let canon: Vec<&str> = w.models.iter().map(|m| m.canonical_link.as_str()).collect();
    assert_eq!(canon, ["x", "y", "n::l", "n::l", ""]);

    let t = doc(
        "1.12",
        "<model name='m' canonical_link='z'><link name='x'/></model>",
    );
    let e = err(&t);
    check(
        &e,
        ErrorKind::UnknownReference,
        &t,
        "<model",
        "canonical_link \"z\" is not a link",
    );
    assert!(e.hint.contains('x'), "{}", e.hint);

    let t = doc("1.12", "<model name='m'><frame name='f'/></model>");
    refused(&t, ErrorKind::Missing, "<model", "has no link");
    // Before 1.7 too, as libsdformat.
    let t = doc("1.5", "<model name='m'/>");
    refused(&t, ErrorKind::Missing, "<model", "has no link");
}

#[test]
fn joint_frames_parents_children_and_axes() {
    let w = ok_body(&format!(
        "<model name='m'>
           <link name='a'/>
           <link name='b'><pose>0 0 1 0 0 {QUARTER}</pose></link>
           <link name='c'><pose>0 0 1 0 0 {QUARTER}</pose></link>
           <frame name='fc' attached_to='c'><pose relative_to='c'>0 0 2 0 0 0</pose></frame>
           <model name='inner'><pose>5 0 0 0 0 0</pose><link name='l'/><link name='k'/></model>
           <joint name='j1' type='revolute'><parent>a</parent><child>b</child><pose>0 0 1 0 0 0</pose>
             <axis><xyz expressed_in='__model__'>1 0 0</xyz></axis></joint>
           <joint name='j2' type='revolute'><parent>inner</parent><child>fc</child>
             <pose relative_to='__model__'>0 0 1 0 0 0</pose>
             <axis><xyz expressed_in='a'>0 1 0</xyz></axis></joint>
           <joint name='j3' type='fixed'><parent>world</parent><child>inner::k</child></joint>
         </model>"
    ));
    let m = &w.models[0];
    let (j1, j2, j3) = (&m.joints[0], &m.joints[1], &m.joints[2]);
    // Default: relative to the child frame.
    assert_eq!(
        (j1.parent_link.as_str(), j1.child_link.as_str()),
        ("a", "b")
    );
    assert_pose(&j1.pose, [0.0, 0.0, 1.0], Quat::IDENTITY);
    // The model's x axis in the joint frame (turned a quarter with b).
    let x = j1.axis.as_ref().unwrap().xyz_in_joint;
    assert!(
        close(x.x, 0.0) && close(x.y, -1.0) && close(x.z, 0.0),
        "{x:?}"
    );
    // A nested model as parent means its canonical link; a frame as child means its link.
    assert_eq!(
        (j2.parent_link.as_str(), j2.child_link.as_str()),
        ("inner::l", "c")
    );
    assert_eq!(j2.raw_pose.relative_to, "__model__");
    assert_pose(&j2.pose, [0.0, 0.0, -0.0], yaw(-QUARTER));
    assert_eq!(j2.raw_pose.pose.position.z, 1.0);
    let y = j2.axis.as_ref().unwrap().xyz_in_joint;
    assert!(close(y.x, 0.0) && close(y.y, 1.0), "{y:?}");
    assert_eq!(
        (j3.parent_link.as_str(), j3.child_link.as_str()),
        ("world", "inner::k")
    );
    assert_pose(&j3.pose, [0.0, 0.0, 0.0], Quat::IDENTITY);

    // 1.6: use_parent_model_frame means the model frame.
    let w = ok(&doc(
        "1.6",
        "<model name='m'><link name='a'/><link name='b'><pose>0 0 0 0 0 1.5707963267948966</pose></link>
           <joint name='j' type='revolute'><parent>a</parent><child>b</child>
           <axis><xyz>1 0 0</xyz><use_parent_model_frame>true</use_parent_model_frame></axis></joint></model>",
    ));
    let x = w.models[0].joints[0].axis.as_ref().unwrap().xyz_in_joint;
    assert!(close(x.y, -1.0), "{x:?}");

    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><xyz expressed_in='nope'>1 0 0</xyz></axis></joint>",
    );
    refused(
        &t,
        ErrorKind::UnknownReference,
        "nope'>",
        "expressed_in \"nope\"",
    );
}

#[test]
fn a_joint_whose_parent_and_child_are_one_link_is_refused_at_the_top_a_warning_nested() {
    // As libsdformat: refused in a top-level model (JOINT_PARENT_SAME_AS_CHILD).
    let joint = "<frame name='f' attached_to='b'/>\
                 <joint name='j' type='revolute'><parent>f</parent><child>b</child></joint>";
    let t = two_links("1.9", joint);
    refused(&t, ErrorKind::Invalid, "<joint", "are both link \"b\"");
    // In a nested model, libsdformat loads it: a warning, and the physics skips it.
    let t = doc(
        "1.9",
        &format!(
            "<model name='top'><link name='base'/>\n<model name='m'><link name='a'/><link name='b'/>\n{joint}\n</model></model>"
        ),
    );
    let (loaded, warnings) = load_with_warnings(&t);
    let w = loaded
        .and_then(Document::into_world)
        .unwrap_or_else(|e| panic!("{}", e.render(None)));
    let j = &w.models[0].models[0].joints[0];
    assert_eq!((j.parent_link.as_str(), j.child_link.as_str()), ("b", "b"));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let warning = &warnings[0];
    assert!(
        warning.message.contains("are both link \"b\"") && warning.message.contains("skipped"),
        "{warning:?}"
    );
    assert_eq!(warning.line, line_of(&t, "<joint"));
}

#[test]
fn world_frames_and_world_joints() {
    let w = ok(&doc(
        "1.10",
        "<frame name='F'><pose>1 0 0 0 0 0</pose></frame>
         <model name='m'><pose relative_to='F'>0 1 0 0 0 0</pose><link name='l'/>
           <model name='n'><link name='k'/></model></model>
         <frame name='G' attached_to='m::n'><pose relative_to='m::n::k'>0 0 1 0 0 0</pose></frame>
         <joint name='wj' type='fixed'><parent>world</parent><child>m::n</child></joint>",
    ));
    assert_pose(&w.models[0].pose, [1.0, 1.0, 0.0], Quat::IDENTITY);
    assert_eq!(w.frames[0].attached_to_body, "world");
    assert_eq!(w.frames[1].attached_to_body, "m::n::k");
    assert_pose(&w.frames[1].pose, [1.0, 1.0, 1.0], Quat::IDENTITY);
    let j = &w.joints[0];
    assert_eq!(
        (j.parent_link.as_str(), j.child_link.as_str()),
        ("world", "m::n::k")
    );
    // Frames of the resolved world and model, for what is posed relative to them.
    let at = |n: &str| crate::frame_in_world(&w, n).map(|p| p.position.to_array());
    assert_eq!(at("F"), Some([1.0, 0.0, 0.0]));
    assert_eq!(at("m"), Some([1.0, 1.0, 0.0]));
    assert_eq!(at("G"), Some([1.0, 1.0, 1.0]));
    assert_eq!(at("m::n::k"), Some([1.0, 1.0, 0.0]));
    assert_eq!(at("world"), Some([0.0; 3]));
    assert_eq!(at("m::nope"), None);
    assert!(crate::frame_in_model(&w.models[0], "n::k").is_some());
    assert!(crate::frame_in_model(&w.models[0], "k").is_none());

    let t = doc(
        "1.10",
        "<model name='m'><link name='l'/></model><joint name='wj' type='fixed'><parent>world</parent><child>m</child><sensor name='ft' type='force_torque'/></joint>",
    );
    refused(
        &t,
        ErrorKind::Unsupported,
        "<sensor",
        "sensors in world-level joints",
    );
    let t = doc(
        "1.9",
        "<joint name='wj' type='fixed'><parent>world</parent><child>m</child></joint>",
    );
    refused(&t, ErrorKind::Invalid, "<joint", "needs SDF 1.10");
    let t = doc(
        "1.10",
        "<joint name='wj' type='fixed'><parent>world</parent><child>m::x</child></joint>",
    );
    refused(
        &t,
        ErrorKind::UnknownReference,
        "<joint",
        "is not a frame in the world",
    );
    let t = doc(
        "1.12",
        "<model name='m'><pose relative_to='F'/><link name='l'/></model><frame name='F' attached_to='m'/>",
    );
    let e = err(&t);
    assert_eq!(e.kind, ErrorKind::Cycle, "{}", e.render(None));
}

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
