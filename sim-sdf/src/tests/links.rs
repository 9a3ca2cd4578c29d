//! Links and their inertials as written.

use super::support::*;
use crate::*;

use sim_world::{Pose, Quat};

#[test]
fn link_defaults_and_values() {
    let w = ok_body(&model_with_link(""));
    let l = link_of(&w);
    assert_eq!(l.name, "l");
    assert_eq!(l.pose, Pose::IDENTITY);
    assert!(l.gravity && !l.kinematic);
    assert_eq!(l.inertial, sim_world::Inertial::default());
    assert_eq!(l.inertial.mass, 1.0);
    assert_eq!(l.inertial.inertia, [1.0, 0.0, 0.0, 1.0, 0.0, 1.0]);
    assert!(l.collisions.is_empty() && l.visuals.is_empty() && l.sensors.is_empty());

    let w = ok_body(&model_with_link(
        "<pose>0 0 1 0 0 0</pose><gravity>false</gravity><kinematic>TRUE</kinematic>\
         <self_collide>true</self_collide><velocity_decay/><light name='lamp' type='point'/>",
    ));
    let l = link_of(&w);
    assert!(!l.gravity && l.kinematic);
    assert_pose(&l.pose, [0.0, 0.0, 1.0], Quat::IDENTITY);

    let text = doc("1.12", &model_with_link("<gravity>on</gravity>"));
    refused(
        &text,
        ErrorKind::Invalid,
        "on<",
        "must be a boolean, found \"on\"",
    );
    let text = doc("1.12", "<model name='m'><link/></model>");
    refused(&text, ErrorKind::Missing, "<link/>", "no `name`");
}

#[test]
fn inertial_values() {
    let w = ok_body(&model_with_link(
        "<inertial><mass>2.5</mass><pose>0.1 0 0 0 0 0</pose>\
         <inertia><ixx>0.2</ixx><ixy>0.01</ixy><ixz>0</ixz><iyy>0.3</iyy><iyz>0</iyz><izz>0.4</izz></inertia></inertial>",
    ));
    let i = &link_of(&w).inertial;
    assert_eq!(i.mass, 2.5);
    assert_pose(&i.pose, [0.1, 0.0, 0.0], Quat::IDENTITY);
    assert_eq!(i.inertia, [0.2, 0.01, 0.0, 0.3, 0.0, 0.4]);
    // Partial inertia: the rest defaults.
    let w = ok_body(&model_with_link(
        "<inertial><inertia><ixx>1.5</ixx></inertia></inertial>",
    ));
    assert_eq!(link_of(&w).inertial.inertia, [1.5, 0.0, 0.0, 1.0, 0.0, 1.0]);
    assert_eq!(link_of(&w).inertial.mass, 1.0);
    // Limit cases of the triangle inequality (a thin disc) are valid.
    ok_body(&model_with_link(
        "<inertial><inertia><ixx>0.25</ixx><iyy>0.25</iyy><izz>0.5</izz></inertia></inertial>",
    ));
}

#[test]
fn mass_must_be_positive() {
    for bad in ["0", "-1"] {
        let text = doc(
            "1.12",
            &model_with_link(&format!("<inertial>\n<mass>{bad}</mass></inertial>")),
        );
        let e = err(&text);
        check(
            &e,
            ErrorKind::Invalid,
            &text,
            &format!("{bad}</mass>"),
            "mass of link \"l\" must be greater than 0",
        );
        assert_eq!(e.element, "<mass> in <link name=\"l\">");
    }
}

#[test]
fn inertia_must_be_physical() {
    let text = doc(
        "1.12",
        &model_with_link(
            "<inertial><mass>1</mass>\n  <inertia><ixx>-1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial>",
        ),
    );
    let e = err(&text);
    check(
        &e,
        ErrorKind::Invalid,
        &text,
        "<inertia>",
        "invalid inertia for link \"l\": the tensor is not positive definite",
    );

    let text = doc(
        "1.12",
        &model_with_link(
            "<inertial><inertia><ixx>1.11</ixx><iyy>100.11</iyy><izz>1.01</izz></inertia></inertial>",
        ),
    );
    refused(
        &text,
        ErrorKind::Invalid,
        "<inertia>",
        "triangle inequality",
    );

    // Large products of inertia make the tensor indefinite.
    let text = doc(
        "1.12",
        &model_with_link("<inertial><inertia><ixy>2</ixy></inertia></inertial>"),
    );
    refused(
        &text,
        ErrorKind::Invalid,
        "<inertia>",
        "not positive definite",
    );
    // Zero inertia is not a body's.
    let text = doc(
        "1.12",
        &model_with_link(
            "<inertial><inertia><ixx>0</ixx><iyy>0</iyy><izz>0</izz></inertia></inertial>",
        ),
    );
    refused(
        &text,
        ErrorKind::Invalid,
        "<inertia>",
        "not positive definite",
    );
    // Values too large to square stay an error, not a silent pass.
    let text = doc(
        "1.12",
        &model_with_link("<inertial><inertia><ixy>1e200</ixy></inertia></inertial>"),
    );
    refused(&text, ErrorKind::Invalid, "<inertia>", "invalid inertia");
}
