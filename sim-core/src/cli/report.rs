//! What `simcore run` prints on stderr: the plugin problems that stop a world, and the run
//! summary.

use super::Failure;
use sim_core::runner::{PluginProblem, RunSummary};
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

/// The plugin problems of a world that cannot run. Many sensors often share one problem (a
/// plugin missing for their type): it is said once, with where it applies.
pub fn plugin_problems(world: &Path, problems: &[PluginProblem]) -> String {
    let mut r = format!(
        "error: {}: the world cannot run: {} plugin problem(s)\n",
        world.display(),
        problems.len()
    );
    let mut groups: Vec<(&str, Vec<&PluginProblem>)> = Vec::new();
    for p in problems {
        match groups.iter_mut().find(|(m, _)| *m == p.message) {
            Some((_, v)) => v.push(p),
            None => groups.push((&p.message, vec![p])),
        }
    }
    for (message, list) in groups {
        for p in list.iter().take(3) {
            let _ = writeln!(r, "  {}: {}", p.span, p.subject);
        }
        if list.len() > 3 {
            let _ = writeln!(r, "  ... and {} more", list.len() - 3);
        }
        let _ = writeln!(r, "      {message}");
    }
    r
}

/// `plugin`'s time in its hooks as a percentage of the run's wall time.
fn share(hook: std::time::Duration, s: &RunSummary) -> f64 {
    let wall = s.wall_time.as_secs_f64();
    if wall > 0.0 {
        100.0 * hook.as_secs_f64() / wall
    } else {
        0.0
    }
}

/// `, N slow hooks, N messages refused` for the counts that are not zero.
fn guard_notes(slow: u64, refused: u64) -> String {
    let mut r = String::new();
    if slow > 0 {
        let _ = write!(r, ", {slow} over the plugin budget");
    }
    if refused > 0 {
        let _ = write!(r, ", {refused} messages refused (too large)");
    }
    r
}

/// The run summary: steps and times, a table of sensors, the system plugins with their
/// share of the wall time, and what was disabled.
pub fn print_summary(s: &RunSummary, world: &Path) {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(
        e,
        "{}{}: {} steps, sim time {:.3} s, wall time {:.3} s, real-time factor {:.2}",
        world.display(),
        if s.interrupted { " (interrupted)" } else { "" },
        s.steps,
        s.sim_time.as_secs_f64(),
        s.wall_time.as_secs_f64(),
        s.real_time_factor()
    );
    if !s.sensors.is_empty() {
        let w = s
            .sensors
            .iter()
            .map(|r| r.scoped_name.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let _ = writeln!(
            e,
            "  {:<w$}  {:>8}  {:>10}  {:>6}  {:>7}  {:>6}  topic",
            "sensor", "updates", "rate (Hz)", "errors", "dropped", "time %"
        );
        let sim_s = s.sim_time.as_secs_f64();
        for r in &s.sensors {
            let rate = if sim_s > 0.0 {
                r.updates as f64 / sim_s
            } else {
                0.0
            };
            let _ = writeln!(
                e,
                "  {:<w$}  {:>8}  {:>10.2}  {:>6}  {:>7}  {:>6.1}  {}",
                r.scoped_name,
                r.updates,
                rate,
                r.errors,
                r.dropped,
                share(r.hook_time, s),
                r.topic
            );
            let notes = guard_notes(r.slow_hooks, r.refused);
            if !notes.is_empty() {
                let _ = writeln!(e, "  {:<w$}  {}", "", &notes[2..]);
            }
            if let Some(d) = &r.disabled {
                let _ = writeln!(e, "  {:<w$}  disabled: {d}", "");
            }
        }
    }
    for r in &s.systems {
        let _ = writeln!(
            e,
            "  plugin {} on {} ({}): {} messages, {} commands, {:.1}% of the wall time{}{}",
            r.name,
            r.entity_name,
            r.library,
            r.messages,
            r.commands,
            share(r.hook_time, s),
            guard_notes(r.slow_hooks, r.refused),
            r.disabled
                .as_ref()
                .map(|d| format!(", disabled: {d}"))
                .unwrap_or_default()
        );
    }
    for f in &s.failures {
        let _ = writeln!(
            e,
            "error: at sim time {:.3} s, {} was disabled: {} ({})",
            f.time.as_secs_f64(),
            f.subject,
            f.error,
            f.span
        );
    }
}

/// The closing list of what the world ran without (Gazebo's policy): one line each.
pub fn print_skipped(skipped: &[PluginProblem]) {
    if skipped.is_empty() {
        return;
    }
    let mut e = std::io::stderr().lock();
    let _ = writeln!(
        e,
        "  skipped ({}, no plugin library serves them):",
        skipped.len()
    );
    for p in skipped {
        let _ = writeln!(e, "    {} ({})", p.subject, p.span);
    }
}

/// Writes the run summary as JSON to `path`: `world`, `steps`, `sim_time`, `wall_time`
/// (seconds), `real_time_factor`, `interrupted`, `sensors` and `systems` (their counters,
/// `hook_time` in seconds and `wall_share` in percent) and `failures`.
pub fn write_summary_json(path: &Path, s: &RunSummary, world: &Path) -> Result<(), Failure> {
    use serde_json::json;
    // The counters sensors and systems share, added to `v`.
    let with_guards = |mut v: serde_json::Value,
                       hook: std::time::Duration,
                       slow,
                       refused,
                       disabled: &Option<String>| {
        let o = v.as_object_mut().expect("an object");
        o.insert("hook_time".into(), json!(hook.as_secs_f64()));
        o.insert("wall_share".into(), json!(share(hook, s)));
        o.insert("slow_hooks".into(), json!(slow));
        o.insert("refused".into(), json!(refused));
        o.insert("disabled".into(), json!(disabled));
        v
    };
    let sensors: Vec<_> = s
        .sensors
        .iter()
        .map(|r| {
            let v = json!({
                "scoped_name": r.scoped_name, "type": r.sensor_type, "topic": r.topic,
                "library": r.library, "updates": r.updates, "messages": r.messages,
                "errors": r.errors, "dropped": r.dropped,
            });
            with_guards(v, r.hook_time, r.slow_hooks, r.refused, &r.disabled)
        })
        .collect();
    let systems: Vec<_> = s
        .systems
        .iter()
        .map(|r| {
            let v = json!({
                "name": r.name, "entity": r.entity_name, "library": r.library,
                "messages": r.messages, "commands": r.commands,
            });
            with_guards(v, r.hook_time, r.slow_hooks, r.refused, &r.disabled)
        })
        .collect();
    let failures: Vec<_> = s
        .failures
        .iter()
        .map(|f| {
            json!({
                "time": f.time.as_secs_f64(), "subject": f.subject, "error": f.error,
                "at": f.span.to_string(),
            })
        })
        .collect();
    let v = json!({
        "world": world.display().to_string(), "steps": s.steps,
        "sim_time": s.sim_time.as_secs_f64(), "wall_time": s.wall_time.as_secs_f64(),
        "real_time_factor": s.real_time_factor(), "interrupted": s.interrupted,
        "sensors": sensors, "systems": systems, "failures": failures,
    });
    let text = serde_json::to_string_pretty(&v).expect("a JSON value serialises");
    sim_core::files::write(path, (text + "\n").as_bytes())
        .map_err(|e| Failure::Error(format!("--summary-json: {e}")))
}
