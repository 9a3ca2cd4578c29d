//! Typed values: booleans, entities and comments.

use super::support::*;
use crate::*;

use sim_world::{Quat, Vec3};

#[test]
fn booleans_accept_true_false_1_0() {
    for (text, value) in [
        ("true", true),
        ("1", true),
        ("True", true),
        (" false ", false),
        ("0", false),
        ("FALSE", false),
    ] {
        let w = ok_body(&format!(
            "<model name='m'><static>{text}</static><link name='l'/></model>"
        ));
        assert_eq!(w.models[0].is_static, value, "{text}");
    }
    for bad in ["yes", "2", "t", "true false"] {
        let text = doc(
            "1.12",
            &format!("<model name='m'><static>{bad}</static></model>"),
        );
        refused(
            &text,
            ErrorKind::Invalid,
            &format!("{bad}<"),
            "must be a boolean",
        );
    }
}

#[test]
fn entities_and_comments_in_values() {
    let w = ok_body(
        "<gravity>0 <!-- x --> 0 -1</gravity><model name='a&amp;b'><pose>&#49; 0 0 0 0 0</pose><link name='l'/></model>",
    );
    assert_eq!(w.gravity, Vec3::new(0.0, 0.0, -1.0));
    assert_eq!(w.models[0].name, "a&b");
    assert_pose(&w.models[0].pose, [1.0, 0.0, 0.0], Quat::IDENTITY);
    // Inexact text (an entity) still gives an error at the value.
    let text = doc("1.12", "<gravity>&#48; x 0</gravity>");
    refused(&text, ErrorKind::Invalid, "&#48;", "expects a number");
}
