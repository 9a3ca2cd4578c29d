//! How long a run lasts ([`RunLimit`]) and how it keeps to a real-time factor ([`Pacer`]).

use sim_plugin_api::SimTime;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The longest wall time one step is paced to: a real-time factor so small that a step would
/// last longer (`<real_time_factor>1e-9`, `--rtf 1e-300`) paces each step to this.
pub const MAX_STEP_WAIT: Duration = Duration::from_secs(3600);

/// How long a paced wait sleeps before it looks at the stop flag again.
const WAKE_EVERY: Duration = Duration::from_millis(20);

/// The wall time of one step of `step` at the real-time factor `rtf` (None: no pacing, for
/// 0, a negative factor or NaN), at most [`MAX_STEP_WAIT`].
pub fn step_period(step: SimTime, rtf: f64) -> Option<Duration> {
    if rtf.is_nan() || rtf <= 0.0 {
        return None;
    }
    let secs = step.as_secs_f64().max(0.0) / rtf;
    Some(Duration::try_from_secs_f64(secs).map_or(MAX_STEP_WAIT, |d| d.min(MAX_STEP_WAIT)))
}

/// How long to run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunLimit {
    /// A number of steps.
    Steps(u64),
    /// A sim-time duration.
    Duration(SimTime),
    /// Until stopped.
    Forever,
}

impl RunLimit {
    /// Whether a run that has taken `done` steps of `step` has reached this limit.
    pub fn reached(&self, done: u64, step: SimTime) -> bool {
        match *self {
            RunLimit::Steps(n) => done >= n,
            RunLimit::Duration(d) => done as i128 * step.nanos as i128 >= d.nanos as i128,
            RunLimit::Forever => false,
        }
    }
}

/// Keeps a run to a real-time factor: after each step it waits until the wall time that
/// step is due at (at most [`MAX_STEP_WAIT`] a step), and ends the wait early when the stop
/// flag is set. A run that falls more than ten steps behind does not try to catch up (as
/// Gazebo): it starts counting again from where it is.
#[derive(Clone, Debug)]
pub struct Pacer {
    /// Wall time per step (None: as fast as possible).
    period: Option<Duration>,
    anchor: Instant,
    paced_steps: u32,
}

impl Pacer {
    /// A pacer for steps of `step` at real-time factor `rtf` (0 or less, or NaN: no pacing),
    /// counting from now; see [`step_period`].
    pub fn new(step: SimTime, rtf: f64) -> Self {
        Pacer {
            period: step_period(step, rtf),
            anchor: Instant::now(),
            paced_steps: 0,
        }
    }

    /// Wall time per step (None: as fast as possible).
    pub fn period(&self) -> Option<Duration> {
        self.period
    }

    /// When the step just taken is due, or None (no pacing, or the run fell behind and the
    /// count restarts at `now`).
    fn due(&mut self, now: Instant) -> Option<Instant> {
        let p = self.period?;
        self.paced_steps += 1;
        let target = self.anchor + p * self.paced_steps;
        if self.paced_steps >= 1 << 16 {
            // Counted from the due time just reached: the product above stays small.
            self.anchor = target;
            self.paced_steps = 0;
        }
        if target > now {
            Some(target)
        } else {
            if now - target > p * 10 {
                // Falling behind: do not try to catch up (as Gazebo).
                self.anchor = now;
                self.paced_steps = 0;
            }
            None
        }
    }

    /// Called after each step: waits until that step is due, or until `stop` is set (looked
    /// at every few milliseconds while it waits: a signal handler sets it).
    pub fn after_step(&mut self, stop: &AtomicBool) {
        if let Some(target) = self.due(Instant::now()) {
            sleep_until(target, stop);
        }
    }
}

/// Waits until `target` or until `stop` is set.
fn sleep_until(target: Instant, stop: &AtomicBool) {
    // Sleep most of the way, in slices that look at `stop`, then spin for accuracy (as
    // Gazebo's pacing).
    loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let now = Instant::now();
        if target <= now + Duration::from_micros(300) {
            break;
        }
        std::thread::sleep((target - now - Duration::from_micros(200)).min(WAKE_EVERY));
    }
    while Instant::now() < target {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: SimTime = SimTime::from_nanos(1_000_000);

    #[test]
    fn step_limits_count_steps() {
        let l = RunLimit::Steps(3);
        assert!(!l.reached(2, MS));
        assert!(l.reached(3, MS));
        assert!(l.reached(4, MS));
        assert!(RunLimit::Steps(0).reached(0, MS));
    }

    #[test]
    fn duration_limits_count_whole_steps_of_sim_time() {
        let l = RunLimit::Duration(SimTime::from_secs_f64(1.0));
        assert!(!l.reached(999, MS));
        assert!(l.reached(1000, MS), "1000 steps of 1 ms make 1 s");
        // A duration that is not a whole number of steps runs the step that passes it.
        let l = RunLimit::Duration(SimTime::from_nanos(2_500_000));
        assert!(!l.reached(2, MS));
        assert!(l.reached(3, MS));
        assert!(RunLimit::Duration(SimTime::ZERO).reached(0, MS));
        // No overflow for long runs.
        let longest = RunLimit::Duration(SimTime::from_nanos(i64::MAX));
        assert!(!longest.reached(1 << 40, MS));
        assert!(longest.reached(u64::MAX, MS));
    }

    #[test]
    fn forever_is_never_reached() {
        assert!(!RunLimit::Forever.reached(u64::MAX, MS));
    }

    #[test]
    fn no_pacing_at_rtf_zero() {
        let mut p = Pacer::new(MS, 0.0);
        assert_eq!(p.period(), None);
        assert_eq!(p.due(Instant::now()), None);
        assert_eq!(Pacer::new(MS, -1.0).period(), None);
    }

    #[test]
    fn a_tiny_or_odd_factor_is_bounded_never_a_panic() {
        for rtf in [1e-300, 1e-9, f64::MIN_POSITIVE, 5e-324] {
            assert_eq!(Pacer::new(MS, rtf).period(), Some(MAX_STEP_WAIT), "{rtf}");
        }
        assert_eq!(Pacer::new(MS, f64::NAN).period(), None);
        assert_eq!(Pacer::new(MS, f64::INFINITY).period(), Some(Duration::ZERO));
        assert_eq!(Pacer::new(MS, 1e300).period(), Some(Duration::ZERO));
        // A negative or huge step (never built, but the arithmetic holds).
        assert_eq!(
            step_period(SimTime::from_nanos(-5), 1.0),
            Some(Duration::ZERO)
        );
        assert_eq!(
            step_period(SimTime::from_nanos(i64::MAX), 1e-300),
            Some(MAX_STEP_WAIT)
        );
        // Many steps at the longest period: the count restarts, no overflow.
        let mut p = Pacer::new(MS, 1e-300);
        let start = p.anchor;
        for _ in 0..(1 << 17) {
            assert!(p.due(start).is_some());
        }
    }

    #[test]
    fn a_wait_ends_when_the_stop_flag_is_set() {
        let stop = AtomicBool::new(false);
        let mut p = Pacer::new(MS, 1e-9);
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(100));
                stop.store(true, Ordering::Relaxed);
            });
            let start = Instant::now();
            p.after_step(&stop);
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "{:?}",
                start.elapsed()
            );
        });
    }

    #[test]
    fn the_period_is_the_step_over_the_rtf() {
        assert_eq!(Pacer::new(MS, 1.0).period(), Some(Duration::from_millis(1)));
        assert_eq!(
            Pacer::new(MS, 2.0).period(),
            Some(Duration::from_micros(500))
        );
        assert_eq!(Pacer::new(MS, 0.5).period(), Some(Duration::from_millis(2)));
    }

    #[test]
    fn each_step_is_due_one_period_after_the_last() {
        let mut p = Pacer::new(MS, 1.0);
        let start = p.anchor;
        assert_eq!(p.due(start), Some(start + Duration::from_millis(1)));
        assert_eq!(p.due(start), Some(start + Duration::from_millis(2)));
        // Slightly late: no wait, but the count goes on (catch up).
        assert_eq!(p.due(start + Duration::from_millis(5)), None);
        assert_eq!(
            p.due(start + Duration::from_millis(3)),
            Some(start + Duration::from_millis(4))
        );
    }

    #[test]
    fn a_run_far_behind_restarts_its_count() {
        let mut p = Pacer::new(MS, 1.0);
        let start = p.anchor;
        let late = start + Duration::from_millis(50);
        assert_eq!(p.due(late), None, "more than 10 periods behind");
        assert_eq!(p.due(late), Some(late + Duration::from_millis(1)));
    }
}
