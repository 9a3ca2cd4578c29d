//! What the sensors serve, for the listings of a run and its front ends: the topics they
//! publish on (declared, their own, those published so far) with their rates, the topics they
//! listen to, and their `set_rate` services.

use super::{SensorManager, set_rate_service};
use crate::outputs::{Direction, ServedService, ServedTopic};
use sim_transport::Bus;

impl SensorManager {
    /// Every topic the sensors have published on so far, plus their main and trigger topics.
    pub fn topics(&self, bus: &Bus) -> Vec<String> {
        let mut v: Vec<String> = self
            .output_topics_by(bus)
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        for s in &self.slots {
            if s.cold.setup.triggered {
                v.push(s.cold.setup.trigger_topic.clone());
            }
        }
        v
    }

    /// The topics the sensors publish on (their outputs and metrics), with the scoped name
    /// of the sensor publishing each.
    pub fn output_topics_by(&self, bus: &Bus) -> Vec<(String, String)> {
        let mut v = Vec::new();
        for s in &self.slots {
            let name = || s.name.as_str().to_string();
            v.extend(
                s.out_topics()
                    .map(|t| (bus.name(t.topic).to_string(), name())),
            );
            if let Some(m) = &s.metrics {
                v.push((bus.name(m.topic).to_string(), name()));
            }
        }
        v
    }

    /// Each sensor's output topics (its main topic and those published on so far) with its
    /// `<update_rate>` in Hz (0: every step).
    pub fn output_rates(&self, bus: &Bus) -> Vec<(String, f64)> {
        let mut v = Vec::new();
        for s in &self.slots {
            let rate = s.cold.setup.update_rate;
            v.extend(
                s.out_topics()
                    .map(|t| (bus.name(t.topic).to_string(), rate)),
            );
        }
        v
    }

    /// The topics the active sensors serve (see [`crate::runner::Served`]): for each, the
    /// outputs it declared, the other topics it published on so far, its own topic (unless
    /// it declared outputs without it and never published there), its metrics topic, and
    /// its trigger topic (listened to).
    pub fn served_topics(&self, bus: &Bus, out: &mut Vec<ServedTopic>) {
        for s in self.slots.iter().filter(|s| s.plugin.is_some()) {
            let by = format!("sensor {}", s.name.as_str());
            let setup = &s.cold.setup;
            let row = |topic: &str, direction, kind| ServedTopic {
                topic: topic.to_string(),
                direction,
                kind,
                by: by.clone(),
            };
            let declared = |topic: &str| {
                s.cold
                    .outputs
                    .iter()
                    .find(|o| o.topic == topic)
                    .map(|o| o.kind)
            };
            let own = declared(&setup.topic);
            if own.is_some() || s.cold.outputs.is_empty() || s.main.seq > 0 {
                out.push(row(&setup.topic, Direction::Out, own));
            }
            for o in s.cold.outputs.iter().filter(|o| o.topic != setup.topic) {
                out.push(row(&o.topic, Direction::Out, Some(o.kind)));
            }
            for t in &s.cold.topics {
                let name = bus.name(t.topic);
                if name != setup.topic && declared(name).is_none() {
                    out.push(row(name, Direction::Out, None));
                }
            }
            if let Some(m) = &s.metrics {
                let kind = Some("PerformanceSensorMetrics");
                out.push(row(bus.name(m.topic), Direction::Out, kind));
            }
            if setup.triggered {
                out.push(row(&setup.trigger_topic, Direction::In, None));
            }
        }
    }

    /// The `set_rate` services of the sensors, each with its sensor.
    pub fn served_services(&self) -> Vec<ServedService> {
        self.slots
            .iter()
            .map(|s| ServedService {
                name: set_rate_service(&s.cold.setup.topic),
                by: format!("sensor {}", s.name.as_str()),
            })
            .collect()
    }
}
