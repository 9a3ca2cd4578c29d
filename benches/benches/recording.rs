//! Issue 17, the MCAP recorder: `worlds/pioneer.sdf` with a 640 x 480 RGB camera at 30 Hz
//! added, run unpaced by the release `simcore` binary with `--record` vs without (goal: the
//! step loop's wall time within 10 %), and the file's bytes per simulated second.

use super::external::*;
use super::transport::CAMERA;
use sim_benches::Row;

/// Sim seconds of each run.
const SIM_S: &str = "5";
/// Pairs of runs (without, with `--record`), alternating.
const PAIRS: usize = 2;

/// Runs the recording benchmark, if selected, and adds its row.
pub fn rows(rows: &mut Vec<Row>) {
    if !selected("record/camera_30hz") {
        return;
    }
    if !have_simcore() {
        eprintln!("recording benchmark skipped: no release simcore binary (cargo xtask bench)");
        return;
    }
    if let Err(e) = record(rows) {
        eprintln!("record/camera_30hz: {e}");
    }
}

fn record(rows: &mut Vec<Row>) -> Result<(), String> {
    let world = pioneer_with("pioneer_camera", CAMERA)?;
    let file = super::target_dir().join("bench-worlds/pioneer_camera.mcap");
    let file_arg = file.to_string_lossy().into_owned();
    let base = [
        "--rtf",
        "0",
        "--duration",
        SIM_S,
        "--seed",
        "7",
        "--no-transport",
    ];
    let (mut plain, mut recorded) = (RunOut::default(), RunOut::default());
    let (mut bytes, mut dropped, mut messages) = (0u64, 0u64, 0u64);
    for _ in 0..PAIRS {
        let (run, _) = simcore_run(&world, &base)?;
        plain.sim_s += run.sim_s;
        plain.loop_s += run.loop_s;
        plain.process_s += run.process_s;
        let mut args = base.to_vec();
        args.extend(["--record", file_arg.as_str()]);
        let (run, err) = simcore_run(&world, &args)?;
        recorded.sim_s += run.sim_s;
        recorded.loop_s += run.loop_s;
        recorded.process_s += run.process_s;
        bytes += std::fs::metadata(&file)
            .map_err(|e| format!("{}: {e}", file.display()))?
            .len();
        // "  recorded FILE: N messages, X MiB, D dropped"
        let line = err
            .lines()
            .find(|l| l.trim_start().starts_with("recorded "))
            .ok_or_else(|| format!("no recording summary in:\n{err}"))?;
        let count_before = |tag: &str| -> u64 {
            line.split(',')
                .find(|p| p.trim_end().ends_with(tag))
                .and_then(|p| p.split_whitespace().rev().nth(1)?.parse().ok())
                .unwrap_or(0)
        };
        messages += count_before("messages");
        dropped += count_before("dropped");
    }
    let _ = std::fs::remove_file(&file);
    let per_plain = plain.loop_s / plain.sim_s * 1e9;
    let per_rec = recorded.loop_s / recorded.sim_s * 1e9;
    let per_sim_s = bytes as f64 / recorded.sim_s;
    rows.push(Row {
        name: "worlds/pioneer.sdf + 640 x 480 camera at 30 Hz, unpaced, --record".into(),
        ns: per_rec,
        baseline: "same runs without --record (wall ns per sim s)".into(),
        baseline_ns: per_plain,
        goal: "within 10 % of the run without".into(),
        met: per_rec <= per_plain * 1.10,
        note: format!(
            "{:+.1} % step-loop wall time ({:+.1} % with start-up and closing); \
             {:.2} MiB per sim s, {messages} messages, {dropped} dropped",
            (per_rec / per_plain - 1.0) * 100.0,
            (recorded.process_s / plain.process_s - 1.0) * 100.0,
            per_sim_s / (1024.0 * 1024.0)
        ),
    });
    Ok(())
}
