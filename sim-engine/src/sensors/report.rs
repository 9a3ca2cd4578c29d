//! What each sensor did in a run, for the run summary.

use std::time::Duration;

/// Per-sensor counters, for the run summary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SensorReport {
    /// `model::link::sensor`.
    pub scoped_name: String,
    /// SDF type.
    pub sensor_type: String,
    /// Its topic.
    pub topic: String,
    /// The library serving it.
    pub library: String,
    /// Updates performed.
    pub updates: u64,
    /// Messages published.
    pub messages: u64,
    /// Errors returned (the first disables the sensor).
    pub errors: u64,
    /// Messages on its topics lost by slow subscribers.
    pub dropped: u64,
    /// Wall time spent in its updates.
    pub hook_time: Duration,
    /// Updates that took longer than the budget.
    pub slow_hooks: u64,
    /// Messages refused for their size.
    pub refused: u64,
    /// Why it was disabled, if it was.
    pub disabled: Option<String>,
}

impl SensorReport {
    /// Adds the counts of `earlier`, the same sensor's before a reset created it anew (not
    /// the drops, which the bus counts across resets).
    pub fn add(&mut self, earlier: &SensorReport) {
        self.updates += earlier.updates;
        self.messages += earlier.messages;
        self.errors += earlier.errors;
        self.hook_time += earlier.hook_time;
        self.slow_hooks += earlier.slow_hooks;
        self.refused += earlier.refused;
    }
}
