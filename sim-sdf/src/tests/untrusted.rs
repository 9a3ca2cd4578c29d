//! Input from strangers (see `docs/untrusted-input.md`): extreme step sizes, values too long
//! to parse, NaN where a range is checked, camera and lidar sizes the engine refuses, and
//! model names that read as paths. Each is refused at its file position.

use super::support::*;
use crate::*;

fn physics(step: &str) -> String {
    doc(
        "1.9",
        &format!(
            "<physics name=\"p\" type=\"ode\"><max_step_size>{step}</max_step_size></physics>"
        ),
    )
}

#[test]
fn step_sizes_outside_the_clocks_range_are_refused() {
    for step in ["1e10", "1e-10", "11", "5e-7"] {
        let text = physics(step);
        refused(
            &text,
            ErrorKind::Invalid,
            step,
            "<max_step_size> must be from",
        );
    }
    for step in ["1e-6", "0.001", "10"] {
        ok(&physics(step));
    }
}

#[test]
fn a_value_too_long_is_refused_before_it_is_parsed() {
    let long = "0 ".repeat(1_000_000);
    let text = doc(
        "1.9",
        &format!("<model name=\"m\"><pose>{long}</pose><link name=\"l\"/></model>"),
    );
    let start = std::time::Instant::now();
    refused(&text, ErrorKind::Invalid, "0 0 0", "at most 4096 bytes");
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn nan_is_refused_wherever_a_range_is_checked() {
    let cases = [
        (
            "<sensor name=\"c\" type=\"camera\"><camera><horizontal_fov>nan</horizontal_fov></camera></sensor>",
            "<horizontal_fov> must be a number",
        ),
        (
            "<sensor name=\"i\" type=\"imu\"><imu><angular_velocity><x><noise type=\"gaussian\"><stddev>NaN</stddev></noise></x></angular_velocity></imu></sensor>",
            "<stddev> must be a number",
        ),
        (
            "<collision name=\"k\"><geometry><sphere><radius>1</radius></sphere></geometry><surface><friction><ode><mu>nan</mu></ode></friction></surface></collision>",
            "<mu> must be a number",
        ),
        (
            "<sensor name=\"c\" type=\"wideanglecamera\"><camera><lens><custom_function><c1>one</c1></custom_function></lens></camera></sensor>",
            "<c1> expects a number",
        ),
        (
            "<sensor name=\"c\" type=\"camera\"><camera><image><width>100000</width><height>10</height></image></camera></sensor>",
            "<width> must be a whole number from 1 to 16384",
        ),
        (
            "<sensor name=\"c\" type=\"camera\"><camera><image><width>10</width><height>0</height></image></camera></sensor>",
            "<height> must be a whole number from 1 to 16384",
        ),
        (
            "<sensor name=\"c\" type=\"camera\"><camera><image><width>2.5</width><height>10</height></image></camera></sensor>",
            "<width> must be a whole number from 1 to 16384",
        ),
        (
            "<sensor name=\"r\" type=\"gpu_lidar\"><lidar><scan><horizontal><samples>0</samples></horizontal></scan></lidar></sensor>",
            "<samples> must be a whole number from 1",
        ),
    ];
    for (body, words) in cases {
        let text = doc(
            "1.9",
            &format!("<model name=\"m\"><link name=\"l\">{body}</link></model>"),
        );
        let e = err(&text);
        assert!(
            e.all()
                .any(|one| one.message.contains(words) && one.line > 0),
            "{body}: {}",
            e.render(None)
        );
    }
}

#[test]
fn model_names_that_read_as_paths_are_refused() {
    for name in ["../../../x", "a/b", "..", "a\\b"] {
        let text = doc(
            "1.9",
            &format!("<model name=\"{name}\"><link name=\"l\"/></model>"),
        );
        refused(&text, ErrorKind::Invalid, name, "the model name");
        let text = doc(
            "1.9",
            &format!("<include><uri>x</uri><name>{name}</name></include>"),
        );
        let e = err(&text);
        assert!(
            e.all().any(
                |one| one.message.contains(name) || one.message.contains("directory reference")
            ),
            "{}",
            e.render(None)
        );
    }
    // A control character (written as a character reference XML allows: a tab is fine,
    // U+0085 is not).
    let text = doc("1.9", "<model name=\"a&#x85;b\"><link name=\"l\"/></model>");
    assert!(err(&text).message.contains("control character"));
    ok(&doc(
        "1.9",
        "<model name=\"robot-1.v2_a\"><link name=\"l\"/></model>",
    ));
}
