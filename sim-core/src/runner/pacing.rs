//! How long a run lasts ([`RunLimit`]) and how it keeps to a real-time factor ([`Pacer`]).

use sim_plugin_api::SimTime;
use std::time::{Duration, Instant};

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
/// step is due at. A run that falls more than ten steps behind does not try to catch up (as
/// Gazebo): it starts counting again from where it is.
#[derive(Clone, Debug)]
pub struct Pacer {
    /// Wall time per step (None: as fast as possible).
    period: Option<Duration>,
    anchor: Instant,
    paced_steps: u32,
}

impl Pacer {
    /// A pacer for steps of `step` at real-time factor `rtf` (0 or less: no pacing), counting
    /// from now.
    pub fn new(step: SimTime, rtf: f64) -> Self {
        Pacer {
            period: (rtf > 0.0).then(|| Duration::from_secs_f64(step.as_secs_f64() / rtf)),
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

    /// Called after each step: waits until that step is due.
    pub fn after_step(&mut self) {
        if let Some(target) = self.due(Instant::now()) {
            sleep_until(target);
        }
    }
}

fn sleep_until(target: Instant) {
    // Sleep most of the way, then spin for accuracy (as Gazebo's pacing).
    let now = Instant::now();
    if target > now + Duration::from_micros(300) {
        std::thread::sleep(target - now - Duration::from_micros(200));
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
