//! What a run is checked for: a model within a distance of a point by a sim time, a topic
//! published at least so many times, no plugin disabled. Each is evaluated while the run
//! steps and gives a verdict with a line saying why.

use serde::{Deserialize, Serialize};
use sim_engine::runner::Simulation;

/// A check of a sweep (`[[check]]`): `name` and one of the kinds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// Its name (a summary column).
    pub name: String,
    /// A model's scoped name (with `within` and `of`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The distance in metres the model must come within of `of`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<f64>,
    /// The point, in the world frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<[f64; 3]>,
    /// The sim time by which it must (default: the end of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<f64>,
    /// A topic that must be published at least `at_least` times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// The fewest messages on `topic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_least: Option<u64>,
    /// `true`: no plugin may be disabled during the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_failures: Option<bool>,
}

/// The kinds of check, read from a [`Check`]'s fields.
enum Kind<'a> {
    Near {
        model: &'a str,
        within: f64,
        of: [f64; 3],
    },
    Published {
        topic: &'a str,
        at_least: u64,
    },
    NoFailures,
}

impl Check {
    fn kind(&self) -> Result<Kind<'_>, String> {
        match (
            &self.model,
            self.within,
            self.of,
            &self.topic,
            self.at_least,
            self.no_failures,
        ) {
            (Some(model), Some(within), Some(of), None, None, None) => Ok(Kind::Near {
                model,
                within,
                of,
            }),
            (None, None, None, Some(topic), Some(at_least), None) => {
                Ok(Kind::Published { topic, at_least })
            }
            (None, None, None, None, None, Some(true)) => Ok(Kind::NoFailures),
            _ => Err(
                "a check is one of: `model`, `within` and `of` (with `by`); `topic` and `at_least` (with `by`); `no_failures = true`"
                    .into(),
            ),
        }
    }

    /// Checks the fields for a run that ends at sim time `end` (seconds; infinite for a run
    /// counted in steps).
    pub fn validate(&self, end: f64) -> Result<(), String> {
        if self.name.is_empty() || self.name.len() > 64 || self.name.contains([',', '"', '\n']) {
            return Err(
                "the name is 1 to 64 characters, without commas, quotes or line breaks".into(),
            );
        }
        match self.kind()? {
            Kind::Near { within, of, .. } => {
                if !(within.is_finite() && within >= 0.0) {
                    return Err(format!("`within` is a distance in metres, got {within}"));
                }
                if of.iter().any(|x| !x.is_finite()) {
                    return Err("`of` is a point of three finite numbers".into());
                }
            }
            Kind::Published { topic, .. } => {
                sim_transport::validate_topic(topic).map_err(|e| format!("`topic`: {e}"))?;
            }
            Kind::NoFailures => {}
        }
        if let Some(by) = self.by
            && !(by.is_finite() && by >= 0.0 && by <= end)
        {
            return Err(format!(
                "`by` is a sim time from 0 to the run's duration ({end} s), got {by}"
            ));
        }
        Ok(())
    }
}

/// The verdict on one check.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The check's name.
    pub name: String,
    /// Whether it passed.
    pub passed: bool,
    /// Why (the distance reached, the count, the plugins disabled).
    pub detail: String,
}

/// A check being evaluated over a run.
#[derive(Debug)]
pub(super) struct Watch {
    check: Check,
    /// The nearest distance so far, and its time.
    nearest: Option<(f64, f64)>,
    /// When it came within the distance.
    met_at: Option<f64>,
    /// The topic's count at `by`.
    count_at_by: Option<u64>,
}

impl Watch {
    pub(super) fn new(check: &Check) -> Watch {
        Watch {
            check: check.clone(),
            nearest: None,
            met_at: None,
            count_at_by: None,
        }
    }

    /// Looks at the world after a step.
    pub(super) fn after_step(&mut self, sim: &Simulation) {
        let t = sim.time().as_secs_f64();
        let due = self.check.by.is_none_or(|by| t <= by + 1e-12);
        match self.check.kind() {
            Ok(Kind::Near { model, within, of }) if due && self.met_at.is_none() => {
                if let Ok(s) = sim.entity_state(model) {
                    let p = s.pose.position;
                    let d = ((p.x - of[0]).powi(2) + (p.y - of[1]).powi(2) + (p.z - of[2]).powi(2))
                        .sqrt();
                    if self.nearest.is_none_or(|(n, _)| d < n) {
                        self.nearest = Some((d, t));
                    }
                    if d <= within {
                        self.met_at = Some(t);
                    }
                }
            }
            Ok(Kind::Published { topic, .. }) if due => {
                self.count_at_by = Some(sim.bus().stats(topic).published);
            }
            _ => {}
        }
    }

    /// The verdict at the end of the run.
    pub(super) fn verdict(&self, sim: &Simulation) -> Verdict {
        let (passed, detail) = match self.check.kind() {
            Ok(Kind::Near { model, within, .. }) => match (self.met_at, self.nearest) {
                (Some(t), _) => (true, format!("`{model}` within {within} m at {t:.3} s")),
                (None, Some((d, t))) => (
                    false,
                    format!("`{model}` came no nearer than {d:.4} m (at {t:.3} s)"),
                ),
                (None, None) => (false, format!("no model `{model}` in the world")),
            },
            Ok(Kind::Published { topic, at_least }) => {
                let n = self
                    .count_at_by
                    .unwrap_or_else(|| sim.bus().stats(topic).published);
                (n >= at_least, format!("{n} message(s) on `{topic}`"))
            }
            Ok(Kind::NoFailures) => {
                let f = sim.failures();
                (
                    f.is_empty(),
                    if f.is_empty() {
                        "no plugin disabled".into()
                    } else {
                        f.iter()
                            .map(|f| {
                                format!("{} disabled at {:.3} s", f.subject, f.time.as_secs_f64())
                            })
                            .collect::<Vec<_>>()
                            .join("; ")
                    },
                )
            }
            Err(e) => (false, e),
        };
        Verdict {
            name: self.check.name.clone(),
            passed,
            detail,
        }
    }
}
