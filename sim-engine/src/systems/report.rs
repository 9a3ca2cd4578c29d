//! What each system did in a run, for the run summary.

use std::time::Duration;

/// Per-system counters, for the run summary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SystemReport {
    /// `<plugin name>`.
    pub name: String,
    /// The entity it is attached to.
    pub entity_name: String,
    /// The library serving it.
    pub library: String,
    /// Messages published.
    pub messages: u64,
    /// Commands issued.
    pub commands: u64,
    /// Wall time spent in its hooks (steps and service calls).
    pub hook_time: Duration,
    /// Hooks that took longer than the budget.
    pub slow_hooks: u64,
    /// Messages refused for their size.
    pub refused: u64,
    /// Why it was disabled, if it was.
    pub disabled: Option<String>,
}

impl SystemReport {
    /// Adds the counts of `earlier`, the same system's before a reset created it anew.
    pub fn add(&mut self, earlier: &SystemReport) {
        self.messages += earlier.messages;
        self.commands += earlier.commands;
        self.hook_time += earlier.hook_time;
        self.slow_hooks += earlier.slow_hooks;
        self.refused += earlier.refused;
    }
}
