//! The guards plugins run within (see `docs/plugins.md`): a wall-time budget per hook, a
//! size limit per message, topics checked, rate-limited command warnings, each plugin's
//! share of the wall time in the summary, and the `simcore.model_links.v1` extension. Every
//! test runs the real `simcore` binary with the real fixture library and real plugins.

use crate::common;

use common::{json_lines, simcore, stage, stderr, stdout};
use std::path::{Path, PathBuf};

const TESTKIT: &str = "simcore_fixture_testkit";
const WHO: &str = "plugin simcore::fixtures::Misbehaver (on m)";

/// A world `g` whose model `m` (links `base` and `arm`, floating without gravity) carries
/// the misbehaving fixture with `elements`.
fn world(dir: &Path, elements: &str) -> PathBuf {
    let link = |name: &str, z: f64| {
        format!(
            "<link name=\"{name}\"><pose>0 0 {z} 0 0 0</pose><gravity>false</gravity>\
             <inertial><mass>1</mass></inertial>\
             <collision name=\"c\"><geometry><sphere><radius>0.1</radius></sphere></geometry>\
             </collision></link>"
        )
    };
    let path = dir.join("guards.sdf");
    std::fs::write(
        &path,
        format!(
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\"><world name=\"g\">\n\
             <model name=\"m\"><pose>0 0 5 0 0 0</pose>{}{}\n\
             <plugin filename=\"{TESTKIT}\" name=\"simcore::fixtures::Misbehaver\">{elements}\
             </plugin>\n</model></world></sdf>\n",
            link("base", 0.0),
            link("arm", 1.0)
        ),
    )
    .unwrap();
    path
}

/// Runs the world of `elements` as fast as possible for `steps` with `extra` arguments.
fn run(elements: &str, steps: &str, extra: &[&str]) -> (std::process::Output, tempfile::TempDir) {
    let dir = stage(&[TESTKIT]);
    let w = world(dir.path(), elements);
    let mut args = vec![
        "run",
        w.to_str().unwrap(),
        "--rtf",
        "0",
        "--steps",
        steps,
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    (simcore(&args), dir)
}

/// The lines of `text` containing `needle`.
fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn a_slow_hook_is_named_with_its_time_and_the_summary_gives_each_plugin_its_share() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("summary.json");
    // Each pre_step sleeps 100 ms, twice the budget (which a busy machine's other hooks do
    // not reach).
    let (o, _libs) = run(
        "<hook_ms>100</hook_ms>",
        "5",
        &[
            "--plugin-budget",
            "0.05",
            "--summary-json",
            json.to_str().unwrap(),
        ],
    );
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let warned = lines_with(&err, "over the plugin budget of 0.050 s");
    assert!(!warned.is_empty(), "{err}");
    assert!(
        warned[0].contains(&format!("{WHO}: pre_step took 0.1")),
        "{err}"
    );
    let summary = lines_with(&err, "plugin simcore::fixtures::Misbehaver on m");
    assert_eq!(summary.len(), 1, "{err}");
    assert!(
        summary[0].contains("% of the wall time, 5 over the plugin budget"),
        "{err}"
    );
    // The JSON summary says the same, with the time itself.
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap())
        .expect("the summary is JSON");
    assert_eq!(v["steps"], 5);
    let sys = v["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "simcore::fixtures::Misbehaver")
        .expect("the fixture in the summary");
    assert_eq!(sys["slow_hooks"], 5);
    assert!(sys["hook_time"].as_f64().unwrap() >= 0.5, "{sys}");
    let share = sys["wall_share"].as_f64().unwrap();
    assert!(share > 0.0 && share <= 100.0, "{sys}");
    // The default budget (1 s) is not reached by these hooks.
    let (o, _libs) = run("<hook_ms>20</hook_ms>", "2", &[]);
    assert!(
        !stderr(&o).contains("over the plugin budget"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_message_over_the_size_limit_is_refused_counted_and_the_run_goes_on() {
    let echo = ["--echo", "/model/m/big"];
    let limited = [&echo[..], &["--max-message-size", "1000"]].concat();
    let (o, _libs) = run("<big_bytes>2000</big_bytes>", "3", &limited);
    let err = stderr(&o);
    assert!(o.status.success(), "the run goes on: {err}");
    assert!(stdout(&o).is_empty(), "nothing delivered: {}", stdout(&o));
    let refused = lines_with(&err, "was refused: the largest allowed is 1000 bytes");
    assert!(!refused.is_empty(), "{err}");
    assert!(
        refused[0].contains(&format!("{WHO}: a message of ")),
        "{err}"
    );
    assert!(refused[0].contains("on `/model/m/big`"), "{err}");
    assert!(err.contains("3 steps"), "{err}");
    assert!(err.contains("3 messages refused (too large)"), "{err}");
    // Under the default limit (64 MiB) the same messages pass.
    let (o, _libs) = run("<big_bytes>2000</big_bytes>", "3", &echo);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["schema"], "fixture/Big");
}

#[test]
fn a_sensor_message_over_the_size_limit_is_refused() {
    let dir = stage(&["simcore_plugin_imu"]);
    let o = simcore(&[
        "run",
        "worlds/imu_drop.sdf",
        "--rtf",
        "0",
        "--duration",
        "0.1",
        "--max-message-size",
        "100",
        "--echo",
        "/world/imu_drop/model/box/link/body/sensor/imu/imu",
        "--plugin-path",
        dir.path().to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert!(err.contains("sensor box::body::imu: a message of"), "{err}");
    assert!(err.contains("messages refused (too large)"), "{err}");
}

#[test]
fn an_empty_or_invalid_topic_disables_the_plugin_by_name() {
    for (topic, says) in [
        ("", "it published on the topic ``, which is empty"),
        (
            "bad topic",
            "it published on the topic `bad topic`, which is `/model/m/bad topic`",
        ),
    ] {
        let (o, _libs) = run(&format!("<publish_on>{topic}</publish_on>"), "3", &[]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "a plugin disabled: {err}");
        assert!(err.contains(says), "{topic:?}: {err}");
        assert!(
            err.contains("plugin simcore::fixtures::Misbehaver (on m) was disabled"),
            "{topic:?}: {err}"
        );
    }
}

#[test]
fn command_warnings_name_their_plugin_and_are_rate_limited() {
    // A wrench on the model itself (not one of its links) every step, 2000 steps.
    let (o, _libs) = run("<wrench_model>true</wrench_model>", "2000", &[]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let warned = lines_with(&err, "not applied");
    assert!(!warned.is_empty(), "{err}");
    assert!(
        warned.len() < 50,
        "2000 refused commands, {} warnings:\n{err}",
        warned.len()
    );
    for w in &warned {
        assert!(w.contains(WHO), "{w}");
        assert!(w.contains("a wrench can only be applied to a link"), "{w}");
    }
}

#[test]
fn a_plugin_lists_its_model_links_through_the_extension() {
    let (o, _libs) = run("", "1", &["--echo", "/model/m/links"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines = json_lines(&stdout(&o));
    assert_eq!(lines.len(), 1, "{lines:?}");
    let text = lines[0]["data"].as_str().unwrap();
    let links: Vec<(&str, u64)> = text
        .split(',')
        .map(|p| {
            let (n, id) = p.split_once('=').unwrap_or_else(|| panic!("{text}"));
            (n, id.parse().unwrap())
        })
        .collect();
    assert_eq!(
        links.iter().map(|l| l.0).collect::<Vec<_>>(),
        ["base", "arm"]
    );
    assert!(links[0].1 > 1 && links[1].1 > links[0].1, "{text}");
}
