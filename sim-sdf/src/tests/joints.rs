//! Joints: types, axes, limits, dynamics, sensors, and their errors.

use super::support::*;
use crate::*;

use sim_world::{JointKind, Quat, Vec3};

#[test]
fn joints_are_read_with_axis_limits_and_dynamics() {
    let w = ok(&two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><pose>0 0 1 0 0 0</pose>
         <axis><xyz>0 2 0</xyz><limit><lower>-1</lower><upper>2</upper><effort>5</effort><velocity>3</velocity></limit>
         <dynamics><damping>0.5</damping><friction>0.1</friction><spring_reference>0.2</spring_reference><spring_stiffness>4</spring_stiffness></dynamics></axis></joint>",
    ));
    let j = &w.models[0].joints[0];
    assert_eq!(
        (j.name.as_str(), j.kind, j.parent.as_str(), j.child.as_str()),
        ("j", JointKind::Revolute, "a", "b")
    );
    assert_eq!(j.pose.position, Vec3::new(0.0, 0.0, 1.0));
    let a = j.axis.as_ref().unwrap();
    assert_eq!(a.xyz, Vec3::new(0.0, 1.0, 0.0), "normalised");
    assert_eq!(a.expressed_in, "");
    assert_eq!(
        (a.lower, a.upper, a.effort, a.velocity),
        (-1.0, 2.0, 5.0, 3.0)
    );
    assert_eq!(
        (
            a.damping,
            a.friction,
            a.spring_reference,
            a.spring_stiffness
        ),
        (0.5, 0.1, 0.2, 4.0)
    );

    // Defaults: z axis, no limits; 1e16 limits of old files mean none; parent may be world.
    let w = ok(&two_links(
        "1.6",
        "<joint name='j' type='prismatic'><parent>world</parent><child>b</child>
         <axis><limit><lower>-1e16</lower><upper>1e16</upper><effort>-1</effort></limit><use_parent_model_frame>true</use_parent_model_frame></axis></joint>",
    ));
    let a = w.models[0].joints[0].axis.as_ref().unwrap();
    assert_eq!(a.xyz, Vec3::new(0.0, 0.0, 1.0));
    assert_eq!(a.expressed_in, "__model__");
    assert!(a.lower == f64::NEG_INFINITY && a.upper == f64::INFINITY && a.effort == f64::INFINITY);
    assert_eq!(w.models[0].joints[0].parent, "world");

    // 1.4: axes are in the model frame; 1.7+: expressed_in.
    let j = |v: &str, axis: &str| {
        ok(&two_links(v, &format!("<joint name='j' type='continuous'><parent>a</parent><child>b</child><axis>{axis}</axis></joint>")))
            .models[0]
            .joints[0]
            .axis
            .clone()
            .unwrap()
    };
    assert_eq!(j("1.4", "<xyz>1 0 0</xyz>").expressed_in, "__model__");
    assert_eq!(
        j("1.9", "<xyz expressed_in='__model__'>1 0 0</xyz>").expressed_in,
        "__model__"
    );
    assert_eq!(j("1.9", "<xyz>1 0 0</xyz>").expressed_in, "");
    let c = j(
        "1.9",
        "<xyz>1 0 0</xyz><limit><lower>-1</lower><upper>1</upper></limit>",
    );
    assert!(
        c.lower.is_infinite() && c.upper.is_infinite(),
        "continuous joints have no limits"
    );

    for (ty, kind) in [("fixed", JointKind::Fixed), ("ball", JointKind::Ball)] {
        let w = ok(&two_links(
            "1.9",
            &format!("<joint name='j' type='{ty}'><parent>a</parent><child>b</child></joint>"),
        ));
        assert_eq!(w.models[0].joints[0].kind, kind);
        assert!(w.models[0].joints[0].axis.is_none());
    }
}

#[test]
fn joint_errors() {
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>c</child></joint>",
    );
    refused(
        &t,
        ErrorKind::UnknownReference,
        "<joint",
        "<child> \"c\" is not a frame in model \"m\"",
    );
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent></joint>",
    );
    refused(&t, ErrorKind::Missing, "<joint", "has no <child>");
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>a</child></joint>",
    );
    refused(&t, ErrorKind::Invalid, "<joint", "to itself");
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>world</child></joint>",
    );
    refused(
        &t,
        ErrorKind::Invalid,
        "<child>world",
        "the child cannot be `world`",
    );
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><xyz>0 0 0</xyz></axis></joint>",
    );
    refused(&t, ErrorKind::Invalid, "<xyz>", "axis <xyz> is zero");
    let t = two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child><axis><limit><lower>1</lower><upper>0</upper></limit></axis></joint>",
    );
    refused(&t, ErrorKind::Invalid, "<limit>", "above the upper limit");
    // A link may be the child of two joints (a kinematic loop), as in libsdformat.
    ok(&two_links(
        "1.9",
        "<joint name='j' type='revolute'><parent>a</parent><child>b</child></joint><joint name='k' type='fixed'><parent>a</parent><child>b</child></joint>",
    ));
    let t = two_links(
        "1.9",
        "<joint name='j' type='hinge'><parent>a</parent><child>b</child></joint>",
    );
    refused(
        &t,
        ErrorKind::Unsupported,
        "hinge'",
        "unknown joint type \"hinge\"",
    );
    let t = two_links(
        "1.9",
        "<joint name='j' type='screw'><parent>a</parent><child>b</child><thread_pitch>0</thread_pitch></joint>",
    );
    refused(
        &t,
        ErrorKind::Invalid,
        "<thread_pitch>",
        "must be finite and not zero",
    );
    let t = two_links(
        "1.9",
        "<joint name='j' type='gearbox'><parent>a</parent><child>b</child><gearbox_reference_body>c</gearbox_reference_body></joint>",
    );
    refused(
        &t,
        ErrorKind::UnknownReference,
        "<joint",
        "gearbox_reference_body",
    );
}

#[test]
fn two_axis_screw_and_gearbox_joints_are_read() {
    let joints = |v: &str, j: &str| {
        let w = ok(&two_links(v, j));
        w.models[0].joints.clone()
    };
    // axis2 resolved like axis (expressed_in honoured), with its own limits and dynamics.
    let j = &joints(
        "1.9",
        "<frame name='f'><pose>0 0 0 0 0 1.5707963267948966</pose></frame>\
         <joint name='u' type='universal'><parent>a</parent><child>b</child>\
         <axis><xyz>1 0 0</xyz></axis><axis2><xyz expressed_in='f'>1 0 0</xyz>\
         <limit><lower>-1</lower><upper>2</upper></limit><dynamics><damping>0.5</damping></dynamics></axis2></joint>",
    )[0];
    assert_eq!(j.kind, JointKind::Universal);
    let a2 = j.axis2.as_ref().unwrap();
    assert!(
        (a2.xyz_in_joint - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-9,
        "{a2:?}"
    );
    assert_eq!((a2.lower, a2.upper, a2.damping), (-1.0, 2.0, 0.5));
    // A missing axis2 takes the defaults (z).
    let j = &joints(
        "1.9",
        "<joint name='r' type='revolute2'><parent>a</parent><child>b</child><axis><xyz>1 0 0</xyz></axis></joint>",
    )[0];
    assert_eq!(j.axis2.as_ref().unwrap().xyz, Vec3::new(0.0, 0.0, 1.0));
    // Screw pitch: m/rev right-handed; the old rad/m left-handed value converted; the new
    // element wins; default 1 m/rev.
    let pitch = |v: &str, body: &str| {
        joints(
            v,
            &format!(
                "<joint name='s' type='screw'><parent>a</parent><child>b</child>{body}</joint>"
            ),
        )[0]
        .screw_thread_pitch
    };
    assert_eq!(
        pitch("1.10", "<screw_thread_pitch>0.5</screw_thread_pitch>"),
        0.5
    );
    assert!((pitch("1.9", "<thread_pitch>-12.566370614359172</thread_pitch>") - 0.5).abs() < 1e-12);
    assert_eq!(
        pitch(
            "1.10",
            "<screw_thread_pitch>0.5</screw_thread_pitch><thread_pitch>3</thread_pitch>"
        ),
        0.5
    );
    assert_eq!(pitch("1.9", ""), 1.0);
    // Gearbox: ratio and reference body resolved to a link.
    let j = &joints(
        "1.9",
        "<joint name='g' type='gearbox'><parent>a</parent><child>b</child>\
         <gearbox_reference_body>a</gearbox_reference_body><gearbox_ratio>5</gearbox_ratio>\
         <axis><xyz>0 0 1</xyz></axis><axis2><xyz>0 0 1</xyz></axis2></joint>",
    )[0];
    assert_eq!(
        (j.gearbox_ratio, j.gearbox_reference_link.as_str()),
        (5.0, "a")
    );
}

#[test]
fn sensors_inside_joints_are_read() {
    let sensor = "<sensor name='ft' type='force_torque'><pose>0 0 0.5 0 0 0</pose>\
                  <update_rate>100</update_rate><force_torque><frame>child</frame></force_torque></sensor>";
    let w = ok(&two_links(
        "1.9",
        &format!(
            "<joint name='j' type='fixed'><parent>a</parent><child>b</child>{sensor}\
             <sensor name='ft2' type='force_torque'/></joint>"
        ),
    ));
    let j = &w.models[0].joints[0];
    assert_eq!(j.sensors.len(), 2);
    let s = &j.sensors[0];
    assert_eq!(
        (s.name.as_str(), s.sensor_type.as_str()),
        ("ft", "force_torque")
    );
    assert_pose(&s.pose, [0.0, 0.0, 0.5], Quat::IDENTITY);
    assert_eq!(s.update_rate, 100.0);
    assert_eq!(s.sdf, sensor);
    assert_eq!(j.sensors[1].name, "ft2");
    // Poses may name the joint's frame.
    let w = ok(&two_links(
        "1.9",
        "<joint name='j' type='fixed'><parent>a</parent><child>b</child>\
         <sensor name='s' type='force_torque'><pose relative_to='j'>1 0 0 0 0 0</pose></sensor></joint>",
    ));
    assert_pose(
        &w.models[0].joints[0].sensors[0].pose,
        [1.0, 0.0, 0.0],
        Quat::IDENTITY,
    );
    // A joint without sensors has none.
    let w = ok(&two_links(
        "1.9",
        "<joint name='j' type='fixed'><parent>a</parent><child>b</child></joint>",
    ));
    assert!(w.models[0].joints[0].sensors.is_empty());
}

#[test]
fn sensors_inside_a_joint_need_different_names() {
    let t = two_links(
        "1.9",
        "<joint name='j' type='fixed'><parent>a</parent><child>b</child>\
         <sensor name='s' type='force_torque'/>\n<sensor name='s' type='force_torque'/></joint>",
    );
    refused_nth(
        &t,
        ErrorKind::Duplicate,
        "s' type",
        1,
        "a <sensor> named \"s\" already exists in this joint",
    );
    let t = two_links(
        "1.9",
        "<joint name='j' type='fixed'><parent>a</parent><child>b</child>\
         <sensor name='s'/></joint>",
    );
    let e = err(&t);
    assert_eq!(e.kind, ErrorKind::Missing, "{}", e.render(None));
}
