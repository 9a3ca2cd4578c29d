//! Models: their fields and defaults, names, nesting and poses, and models read on their own.

use super::support::*;
use crate::*;
use std::f64::consts::PI;

use sim_world::{Pose, Quat, Vec3};

#[test]
fn model_fields_and_defaults() {
    let w = ok_body(
        "<model name='a'><link name='l'/></model><model name='b'><static>true</static><self_collide>1</self_collide><pose>1 2 3 0 0 0</pose></model>",
    );
    let (a, b) = (&w.models[0], &w.models[1]);
    assert_eq!(a.name, "a");
    assert!(!a.is_static && !a.self_collide);
    assert_eq!(a.pose, Pose::IDENTITY);
    assert!(b.is_static && b.self_collide);
    assert_pose(&b.pose, [1.0, 2.0, 3.0], Quat::IDENTITY);
}

#[test]
fn model_names() {
    let text = doc("1.12", "<model>\n</model>");
    refused(&text, ErrorKind::Missing, "<model>", "no `name` attribute");
    let text = doc("1.12", "<model name='a::b'/>");
    let e = err(&text);
    check(&e, ErrorKind::Invalid, &text, "a::b", "contains `::`");
    assert_eq!(e.element, "<model name=\"a::b\">");
    // Reserved names since 1.7.
    let text = doc("1.7", "<model name='__model__'/>");
    refused(&text, ErrorKind::Invalid, "__model__", "reserved");
    let text = doc("1.7", "<model name='m'><link name='world'/></model>");
    refused(&text, ErrorKind::Invalid, "world'/>", "reserved");
    ok(&doc(
        "1.6",
        "<model name='__model__'><link name='l'/></model>",
    ));
}

#[test]
fn duplicate_sibling_names() {
    let text = doc(
        "1.12",
        "<model name='a'><static>1</static></model>\n<model name='b'><static>1</static></model>\n<model name='a'><static>1</static></model>",
    );
    let e = err(&text);
    check_nth(
        &e,
        ErrorKind::Duplicate,
        &text,
        "a'><static>",
        1,
        "a <model> named \"a\" already exists in this world (line 4)",
    );
    let text = doc(
        "1.12",
        "<model name='m'><link name='l'/><link name='l'/></model>",
    );
    refused_nth(
        &text,
        ErrorKind::Duplicate,
        "l'/>",
        1,
        "a <link> named \"l\"",
    );
    let text = doc(
        "1.12",
        "<model name='m'><model name='n'><static>1</static></model><model name='n'><static>1</static></model></model>",
    );
    refused_nth(
        &text,
        ErrorKind::Duplicate,
        "n'><static>",
        1,
        "a <model> named \"n\"",
    );
    // Same name, different kinds: fine.
    ok(&doc(
        "1.12",
        &model_with_link("<collision name='x'/><visual name='x'/><sensor name='x' type='imu'/>"),
    ));
    // Same name in different scopes: fine.
    ok(&doc(
        "1.12",
        "<model name='a'><link name='l'/></model><model name='b'><link name='l'/></model>",
    ));
}

#[test]
fn nested_models_and_scoped_names() {
    let w = ok_body(
        "<model name='outer'><pose>1 0 0 0 0 0</pose><link name='base'/>\
           <model name='mid'><pose relative_to='__model__'>0 1 0 0 0 0</pose>\
             <model name='inner'><pose relative_to='mid'>0 0 1 0 0 0</pose><link name='tip'/></model>\
           </model>\
         </model>",
    );
    let mut scoped = Vec::new();
    w.visit_models(|name, m| scoped.push((name.to_string(), m.links.len())));
    assert_eq!(
        scoped,
        [
            ("outer".into(), 1),
            ("outer::mid".into(), 0),
            ("outer::mid::inner".into(), 1)
        ]
    );
    let inner = &w.models[0].models[0].models[0];
    assert_pose(&inner.pose, [0.0, 0.0, 1.0], Quat::IDENTITY);
}

#[test]
fn deep_nesting_is_bounded() {
    let depth = 80;
    let mut body = String::new();
    for i in 0..depth {
        body.push_str(&format!("<model name='m{i}'>"));
    }
    for _ in 0..depth {
        body.push_str("</model>");
    }
    let text = doc("1.12", &body);
    refused(
        &text,
        ErrorKind::Invalid,
        "<model name='m64'>",
        "nested more than 64 deep",
    );
}

#[test]
fn poses_in_radians_degrees_and_quaternions() {
    let w = ok_body("<model name='m'><pose>1 2 3 0.1 0.2 0.3</pose><link name='l'/></model>");
    assert_pose(
        &w.models[0].pose,
        [1.0, 2.0, 3.0],
        Quat::from_rpy(0.1, 0.2, 0.3),
    );
    assert_eq!(
        w.models[0].pose,
        Pose::from_xyz_rpy(1.0, 2.0, 3.0, 0.1, 0.2, 0.3)
    );

    let w = ok_body(
        "<model name='m'><pose degrees='true'>1 2 3 90 0 180</pose><link name='l'/></model>",
    );
    assert_pose(
        &w.models[0].pose,
        [1.0, 2.0, 3.0],
        Quat::from_rpy(PI / 2.0, 0.0, PI),
    );
    let w = ok_body(
        "<model name='m'><pose degrees='false' rotation_format='euler_rpy'>0 0 0 1 0 0</pose><link name='l'/></model>",
    );
    assert_pose(&w.models[0].pose, [0.0; 3], Quat::from_rpy(1.0, 0.0, 0.0));

    let h = (0.5f64).sqrt();
    let w = ok_body(
        "<model name='m'><pose rotation_format='quat_xyzw'>1 2 3 0 0 0.7071067811865476 0.7071067811865476</pose><link name='l'/></model>",
    );
    assert_pose(
        &w.models[0].pose,
        [1.0, 2.0, 3.0],
        Quat::new(0.0, 0.0, h, h),
    );
    // Quaternions are normalised; `degrees` does not apply to them.
    let w = ok_body(
        "<model name='m'><pose rotation_format='quat_xyzw' degrees='true'>0 0 0 0 0 2 2</pose><link name='l'/></model>",
    );
    assert_pose(&w.models[0].pose, [0.0; 3], Quat::new(0.0, 0.0, h, h));

    // Empty poses are the identity; blanks and line breaks separate numbers.
    let w = ok_body(
        "<model name='m'><pose/><link name='l'/></model><model name='n'><pose>\n 1\t2 3\n 0 0 0 </pose><link name='l'/></model>",
    );
    assert_eq!(w.models[0].pose, Pose::IDENTITY);
    assert_pose(&w.models[1].pose, [1.0, 2.0, 3.0], Quat::IDENTITY);
}

#[test]
fn pose_errors() {
    let text = doc(
        "1.12",
        "<model name='m'><pose>1 2 3 0 0</pose><link name='l'/></model>",
    );
    let e = err(&text);
    check(
        &e,
        ErrorKind::Invalid,
        &text,
        "1 2 3 0 0",
        "needs 6 numbers (x y z roll pitch yaw), found 5",
    );
    assert_eq!(e.element, "<pose> in <model name=\"m\">");

    let text = doc(
        "1.12",
        "<model name='m'><pose>1 2 x 0 0 0</pose><link name='l'/></model>",
    );
    refused(
        &text,
        ErrorKind::Invalid,
        "x 0 0 0",
        "expects a number, found \"x\"",
    );

    let text = doc(
        "1.12",
        "<model name='m'><pose rotation_format='quat_xyzw'>1 2 3 0 0 0</pose><link name='l'/></model>",
    );
    refused(
        &text,
        ErrorKind::Invalid,
        "1 2 3 0 0 0<",
        "needs 7 numbers (x y z qx qy qz qw), found 6",
    );

    let text = doc(
        "1.12",
        "<model name='m'><pose rotation_format='quat_xyzw'>1 2 3 0 0 0 0</pose><link name='l'/></model>",
    );
    refused(
        &text,
        ErrorKind::Invalid,
        "1 2 3 0 0 0 0",
        "quaternion of this pose is zero",
    );

    let text = doc(
        "1.12",
        "<model name='m'><pose rotation_format='axis_angle'>0 0 0 0 0 0</pose><link name='l'/></model>",
    );
    refused(
        &text,
        ErrorKind::Invalid,
        "axis_angle",
        "unknown rotation_format",
    );

    let text = doc(
        "1.12",
        "<model name='m'><pose degrees='yes'>0 0 0 0 0 0</pose><link name='l'/></model>",
    );
    refused(&text, ErrorKind::Invalid, "yes", "boolean");
}

#[test]
fn single_models_are_read_for_run_time_creation() {
    let m = parse_model_str(
        "<sdf version='1.9'><model name='box'><pose>1 0 0 0 0 0</pose><link name='l'/></model></sdf>",
        None,
    )
    .unwrap();
    assert_eq!((m.name.as_str(), m.links.len()), ("box", 1));
    assert_eq!(m.pose.position, Vec3::new(1.0, 0.0, 0.0));
    let bare = parse_model_str("<model name='b'><link name='l'/></model>", None).unwrap();
    assert_eq!(bare.name, "b");
    let e = parse_model_str("<sdf version='1.9'><world name='w'/></sdf>", None).unwrap_err();
    assert!(e.message.contains("no <model>"), "{e}");
    let e = parse_model_str(
        "<sdf version='1.9'><model name='a'><link name='l'/></model><model name='b'/></sdf>",
        None,
    )
    .unwrap_err();
    assert!(e.message.contains("more than one <model>"), "{e}");
    let e = parse_model_str("<sdf version='1.9'><model name='a'><link name='l'><inertial><mass>-1</mass></inertial></link></model></sdf>", None)
        .unwrap_err();
    assert_eq!(e.line, 1, "{e}");
}
