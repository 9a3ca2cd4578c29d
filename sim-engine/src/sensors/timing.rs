//! When a sensor is due: Gazebo's sensor timing rules with an exact period.

use sim_plugin_api::SimTime;

pub use sim_world::{MAX_RATE_HZ, MIN_RATE_HZ};

/// The update schedule of one sensor.
///
/// Rules (gz-sensors `Sensor::Update`, DESIGN §4): a rate of 0 updates on every call and a
/// negative rate is treated as 0. The next update time starts at 0; after an update that was
/// due on rate, it advances by whole periods until it is past `now` (catch-up without
/// bursts). Forced and triggered updates do not move it. Difference from Gazebo, on purpose:
/// the period is exact — the k-th due time is `round(k * 1e9 / rate)` ns from the last
/// reset — where Gazebo truncates the period to whole milliseconds (30 Hz runs at 30.3 Hz
/// there).
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    rate_hz: f64,
    base: i64,
    periods: u64,
    next: i64,
}

impl Schedule {
    /// A schedule at `rate_hz` (negative or non-finite becomes 0).
    pub fn new(rate_hz: f64) -> Self {
        let rate_hz = if rate_hz.is_finite() && rate_hz > 0.0 {
            rate_hz
        } else {
            0.0
        };
        Schedule {
            rate_hz,
            base: 0,
            periods: 0,
            next: 0,
        }
    }

    /// The effective rate (0: every step).
    pub fn rate_hz(&self) -> f64 {
        self.rate_hz
    }

    /// The next due time.
    pub fn next_update(&self) -> SimTime {
        SimTime::from_nanos(self.next)
    }

    /// Whether an update at `now` is due on rate.
    pub fn is_due(&self, now: SimTime) -> bool {
        self.rate_hz == 0.0 || now.nanos >= self.next
    }

    /// Records an update due on rate at `now`: advances past `now` by whole periods, in
    /// constant time whatever the rate and the gap (the period count is computed, then
    /// corrected by the few periods the floating-point estimate may be off). A period under
    /// one nanosecond, the clock's resolution, makes the sensor due at every later time; one
    /// longer than the clock's range, never again.
    pub fn advance(&mut self, now: SimTime) {
        if self.rate_hz == 0.0 || self.next > now.nanos {
            return;
        }
        if self.rate_hz > MAX_RATE_HZ {
            self.next = now.nanos.saturating_add(1);
            return;
        }
        let elapsed = now.nanos.saturating_sub(self.base).max(0) as f64;
        let estimate = (elapsed * self.rate_hz / 1e9).floor();
        // `as` saturates: a huge estimate is u64::MAX.
        let mut k = (estimate as u64).max(self.periods + 1);
        while self.due(k) <= now.nanos && k < u64::MAX {
            k += 1;
        }
        while k > self.periods + 1 && self.due(k - 1) > now.nanos {
            k -= 1;
        }
        self.periods = k;
        self.next = self.due(k);
    }

    /// The k-th due time from the base (saturating at the end of the clock).
    fn due(&self, k: u64) -> i64 {
        // `as` saturates: a period longer than the clock's range is i64::MAX.
        self.base
            .saturating_add((k as f64 * 1e9 / self.rate_hz).round() as i64)
    }

    /// Time went backwards (`Init`): the next update is due at once.
    pub fn reset(&mut self) {
        self.base = 0;
        self.periods = 0;
        self.next = 0;
    }

    /// Changes the rate, keeping the next due time.
    pub fn set_rate(&mut self, rate_hz: f64) {
        let keep = self.next;
        *self = Schedule::new(rate_hz);
        self.base = keep;
        self.next = keep;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(rate: f64, step_ns: i64, steps: i64) -> usize {
        let mut s = Schedule::new(rate);
        (0..steps)
            .filter(|k| {
                let now = SimTime::from_nanos(k * step_ns);
                let due = s.is_due(now);
                if due {
                    s.advance(now);
                }
                due
            })
            .count()
    }

    #[test]
    fn rates() {
        assert_eq!(count(10.0, 1_000_000, 1000), 10);
        assert_eq!(
            count(30.0, 1_000_000, 1000),
            30,
            "exact period, not Gazebo's 31"
        );
        assert_eq!(count(0.0, 1_000_000, 1000), 1000);
        assert_eq!(
            count(-5.0, 1_000_000, 1000),
            1000,
            "negative rate means every step"
        );
        assert_eq!(count(1000.0, 1_000_000, 1000), 1000);
        // Faster than the step: one update per step, no bursts.
        assert_eq!(count(5000.0, 1_000_000, 1000), 1000);
    }

    #[test]
    fn catch_up_without_bursts() {
        let mut s = Schedule::new(100.0);
        assert!(s.is_due(SimTime::ZERO));
        s.advance(SimTime::ZERO);
        assert_eq!(s.next_update(), SimTime::from_nanos(10_000_000));
        // A long gap: one update, then the next due time is past `now`.
        let late = SimTime::from_nanos(55_000_000);
        assert!(s.is_due(late));
        s.advance(late);
        assert_eq!(s.next_update(), SimTime::from_nanos(60_000_000));
        s.reset();
        assert!(s.is_due(SimTime::from_nanos(1)));
    }

    #[test]
    fn extreme_rates_and_gaps_advance_at_once() {
        // 1e18 Hz: a period of 1e-9 ns; due at every step, as 0.
        assert_eq!(count(1e18, 1_000_000, 100), 100);
        assert_eq!(count(f64::MAX, 1_000_000, 100), 100);
        // Far below the clock's range: once, at the start.
        assert_eq!(count(1e-300, 1_000_000_000_000, 100), 1);
        assert_eq!(count(MIN_RATE_HZ / 2.0, i64::MAX / 100, 100), 1);
        // At the fastest rate the clock resolves, after a gap of 290 years: just past it (to
        // the precision of a double at that count of periods).
        let mut s = Schedule::new(MAX_RATE_HZ);
        let late = SimTime::from_nanos(290 * 365 * 86_400 * 1_000_000_000);
        s.advance(late);
        let ahead = s.next_update().nanos - late.nanos;
        assert!((1..=2048).contains(&ahead), "{ahead}");
        // A rate that is not a whole number of nanoseconds stays exact after a long gap.
        let mut s = Schedule::new(3.0);
        let late = SimTime::from_nanos(1_000_000_000_000);
        s.advance(late);
        assert_eq!(s.next_update().nanos, 1_000_333_333_333);
        s.advance(SimTime::from_nanos(1_000_333_333_333));
        assert_eq!(s.next_update().nanos, 1_000_666_666_667);
    }
}
