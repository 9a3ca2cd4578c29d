//! What `simcore run` prints on stderr: the plugin problems that stop a world, and the run
//! summary.

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

/// The run summary: steps and times, a table of sensors, the system plugins and what was
/// disabled.
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
            "  {:<w$}  {:>8}  {:>10}  {:>6}  {:>7}  topic",
            "sensor", "updates", "rate (Hz)", "errors", "dropped"
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
                "  {:<w$}  {:>8}  {:>10.2}  {:>6}  {:>7}  {}",
                r.scoped_name, r.updates, rate, r.errors, r.dropped, r.topic
            );
            if let Some(d) = &r.disabled {
                let _ = writeln!(e, "  {:<w$}  disabled: {d}", "");
            }
        }
    }
    for r in &s.systems {
        let _ = writeln!(
            e,
            "  plugin {} on {} ({}): {} messages, {} commands{}",
            r.name,
            r.entity_name,
            r.library,
            r.messages,
            r.commands,
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
