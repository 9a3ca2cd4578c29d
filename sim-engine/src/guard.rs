//! Guards around plugin code: a wall-time budget per hook, a size limit per message, and
//! warnings that repeat at most once per [`WARNING_INTERVAL`].
//!
//! - A sensor update, a system's `pre_step`, `post_step` or service call that takes longer
//!   than [`Guards::hook_budget`] is named in a warning with its time; the run goes on. Every
//!   plugin's time in its hooks is summed for the run summary (its share of the wall time).
//! - A message larger than [`Guards::max_message_bytes`] (as [`message_bytes`] counts it) is
//!   refused: not published, counted in the plugin's report, the plugin named in a warning.
//! - A warning a plugin can cause every step (a slow hook, a refused message, a command that
//!   cannot be applied) is printed the first time and then at most once per
//!   [`WARNING_INTERVAL`] for that plugin and kind, with the count of those held back.

use sim_plugin_api::{Message, Payload};
use std::time::{Duration, Instant};

/// The default wall-time budget of one plugin hook.
pub const DEFAULT_HOOK_BUDGET: Duration = Duration::from_secs(1);

/// The default largest message a plugin may publish, in bytes (64 MiB).
pub const DEFAULT_MAX_MESSAGE_BYTES: u64 = 64 << 20;

/// How often a repeated warning about one plugin is printed at most.
pub const WARNING_INTERVAL: Duration = Duration::from_secs(5);

/// The limits plugins run within.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guards {
    /// The wall time one hook may take before it is named in a warning.
    pub hook_budget: Duration,
    /// The largest message a plugin may publish, in bytes.
    pub max_message_bytes: u64,
}

impl Default for Guards {
    fn default() -> Self {
        Guards {
            hook_budget: DEFAULT_HOOK_BUDGET,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
        }
    }
}

/// One repeated warning's state: printed the first time, then at most once per
/// [`WARNING_INTERVAL`].
#[derive(Clone, Debug, Default)]
pub struct Throttle {
    last: Option<Instant>,
    held: u64,
}

impl Throttle {
    /// Whether to print now; when so, with the number of occurrences held back since the
    /// last one printed.
    pub fn allow(&mut self) -> Option<u64> {
        let now = Instant::now();
        match self.last {
            Some(l) if now.duration_since(l) < WARNING_INTERVAL => {
                self.held += 1;
                None
            }
            _ => {
                self.last = Some(now);
                Some(std::mem::take(&mut self.held))
            }
        }
    }
}

impl Throttle {
    /// The occurrences held back since the last one printed (to say so when no more come).
    pub fn held(&self) -> u64 {
        self.held
    }
}

/// ` (N more like it since the last)` when `held` > 0.
pub fn held_note(held: u64) -> String {
    if held == 0 {
        String::new()
    } else {
        format!(" ({held} more like it since the last)")
    }
}

/// The wall-time counters and warning state of one plugin.
#[derive(Clone, Debug, Default)]
pub struct HookClock {
    /// Time spent in its hooks.
    pub total: Duration,
    /// Hooks over the budget.
    pub over: u64,
    slow: Throttle,
}

impl HookClock {
    /// Books one hook call of `who` named `hook` that took `took`, warning when it is over
    /// `budget`.
    pub fn book(
        &mut self,
        who: impl std::fmt::Display,
        hook: &str,
        took: Duration,
        budget: Duration,
    ) {
        self.total += took;
        if took > budget {
            self.over += 1;
            if let Some(held) = self.slow.allow() {
                tracing::warn!(
                    "{who}: {hook} took {:.3} s, over the plugin budget of {:.3} s{}",
                    took.as_secs_f64(),
                    budget.as_secs_f64(),
                    held_note(held)
                );
            }
        }
    }
}

/// The size limit's state for one plugin: messages refused and their warning.
#[derive(Clone, Debug, Default)]
pub struct SizeGate {
    /// Messages refused.
    pub refused: u64,
    warn: Throttle,
}

impl SizeGate {
    /// Whether `who` may publish `m` on `topic` under `max` bytes; a refusal is counted and
    /// warned about.
    pub fn pass(&mut self, who: &str, topic: &str, m: &Message, max: u64) -> bool {
        let bytes = message_bytes(m);
        if bytes <= max {
            return true;
        }
        self.refuse(who, topic, bytes, max);
        false
    }

    /// Counts a message of `bytes` over `max` that `who` published on `topic`, and warns.
    pub fn refuse(&mut self, who: impl std::fmt::Display, topic: &str, bytes: u64, max: u64) {
        self.refused += 1;
        if let Some(held) = self.warn.allow() {
            tracing::warn!(
                "{who}: a message of {bytes} bytes on `{topic}` was refused: the largest \
                 allowed is {max} bytes (--max-message-size){}",
                held_note(held)
            );
        }
    }
}

/// The bytes a message holds: its variable parts (arrays, strings, data) and a fixed part
/// per type. What the size limit counts.
pub fn message_bytes(m: &Message) -> u64 {
    let fixed = 128 + m.header.frame_id.as_str().len();
    let variable = match m.payload.as_enum() {
        Ok(p) => payload_bytes(p),
        Err(_) => 0,
    };
    (fixed + variable) as u64
}

fn payload_bytes(p: &Payload) -> usize {
    const F: usize = std::mem::size_of::<f64>();
    match p {
        Payload::Text(s) => s.len(),
        Payload::Pose(p) => p.name.as_str().len(),
        Payload::PoseList(v) => v.iter().map(|p| 64 + p.name.as_str().len()).sum(),
        Payload::Imu(i) => i.entity_name.as_str().len(),
        Payload::LaserScan(s) => (s.ranges.len() + s.intensities.len()) * F,
        Payload::PointCloud(c) => c.data.len() + c.fields.len() * 16,
        Payload::Image(i) => i.data.len(),
        Payload::CameraInfo(c) => c.distortion.len() * F,
        Payload::LogicalCameraImage(l) => l.models.iter().map(|m| 64 + m.name.as_str().len()).sum(),
        Payload::EntityFactory(e) => {
            e.sdf.len() + e.sdf_filename.len() + e.name.len() + e.relative_to.len()
        }
        Payload::Custom(c) => c.data.len() + c.schema.as_str().len(),
        Payload::Contacts(c) => c.len() * 96,
        Payload::Fiducials(f) => f.iter().map(|f| 96 + f.name.as_str().len()).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{CustomMessage, abi_stable::std_types::RBox};

    #[test]
    fn a_repeated_warning_is_printed_once_per_interval_with_the_count_held_back() {
        let mut t = Throttle::default();
        assert_eq!(t.allow(), Some(0), "the first is printed");
        for _ in 0..999 {
            assert_eq!(t.allow(), None);
        }
        // As if the interval had passed.
        t.last = Some(Instant::now() - WARNING_INTERVAL);
        assert_eq!(t.allow(), Some(999));
        assert_eq!(t.allow(), None);
    }

    #[test]
    fn message_bytes_count_the_data() {
        let custom = |n: usize| {
            Message::new(
                "",
                Payload::Custom(RBox::new(CustomMessage {
                    schema: "s".into(),
                    encoding: "raw".into(),
                    data: vec![0u8; n].into(),
                })),
            )
        };
        let small = message_bytes(&custom(0));
        assert_eq!(message_bytes(&custom(1 << 20)), small + (1 << 20));
        let mut g = SizeGate::default();
        assert!(g.pass("p", "/t", &custom(1000), small + 1000));
        assert!(!g.pass("p", "/t", &custom(1001), small + 1000));
        assert_eq!(g.refused, 1);
    }

    #[test]
    fn hooks_over_the_budget_are_counted() {
        let mut c = HookClock::default();
        c.book(
            "p",
            "pre_step",
            Duration::from_millis(3),
            Duration::from_millis(2),
        );
        c.book(
            "p",
            "pre_step",
            Duration::from_millis(1),
            Duration::from_millis(2),
        );
        assert_eq!(c.over, 1);
        assert_eq!(c.total, Duration::from_millis(4));
    }
}
