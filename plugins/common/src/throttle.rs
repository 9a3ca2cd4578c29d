//! Publishing at a configured frequency from a system's `post_step`.

use sim_plugin_api::StepContext;

/// The publishing period in nanoseconds of `frequency` Hz (0, every step, for a frequency
/// that is not positive).
pub fn period_ns(frequency: f64) -> i64 {
    if frequency > 0.0 {
        (1e9 / frequency).round() as i64
    } else {
        0
    }
}

/// When a system publishes: at its first step, then at the first step at which a period has
/// passed since the last publish, to within half a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Throttle {
    last_ns: Option<i64>,
}

impl Throttle {
    /// Whether a publish with the period `period_ns` is due at the step `ctx`; when it is,
    /// that step is recorded as the last publish.
    pub fn due(&mut self, period_ns: i64, ctx: &StepContext) -> bool {
        let now = ctx.now.nanos;
        let due = self
            .last_ns
            .is_none_or(|last| now - last + ctx.step.nanos / 2 >= period_ns);
        if due {
            self.last_ns = Some(now);
        }
        due
    }

    /// Forgets the last publish: the next step publishes (sim time went backwards).
    pub fn reset(&mut self) {
        self.last_ns = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{EntityId, SimTime};

    fn step(ms: i64) -> StepContext {
        StepContext {
            now: SimTime::from_nanos(ms * 1_000_000),
            step: SimTime::from_nanos(1_000_000),
            iteration: ms as u64,
            entity: EntityId::NONE,
        }
    }

    #[test]
    fn first_step_then_every_period_within_half_a_step() {
        let mut t = Throttle::default();
        let period = period_ns(400.0); // 2.5 ms: due when 2 ms have passed, to half a step
        let due: Vec<i64> = (1..=8).filter(|&ms| t.due(period, &step(ms))).collect();
        assert_eq!(due, vec![1, 3, 5, 7]);
        t.reset();
        assert!(t.due(period, &step(8)));
    }

    #[test]
    fn no_frequency_is_every_step() {
        assert_eq!(period_ns(0.0), 0);
        assert_eq!(period_ns(-1.0), 0);
        assert_eq!(period_ns(10.0), 100_000_000);
        let mut t = Throttle::default();
        assert!((1..=3).all(|ms| t.due(0, &step(ms))));
    }
}
