//! What a run serves ([`Simulation::served`]): every topic with the payload kind and the
//! direction of its messages, and every service, each with the sensor or plugin behind it.
//!
//! Known before the first step: each sensor's own topic, its metrics and trigger topics, each
//! system's subscriptions (typed as [`SystemManager::input_types`](crate::systems::SystemManager::input_types)
//! types them), each topic a sensor or system declared it publishes on
//! (`simcore.output_types.v1`, with its kind), and the services. A plugin that declares
//! nothing (a third-party one, or one built against an API older than 1.7) has its other
//! outputs listed once it published on them, untyped; so is any topic published on so far.

use super::Simulation;
pub use crate::outputs::{Direction, ServedService, ServedTopic};

/// What a run serves ([`Simulation::served`]): its topics, each with the kind and the
/// direction of its messages and who publishes or listens there, and its services. A plugin
/// that declares nothing has its outputs here once it published on them, untyped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Served {
    /// The topics, sorted by name, then direction, then who.
    pub topics: Vec<ServedTopic>,
    /// The services, sorted by name.
    pub services: Vec<ServedService>,
}

impl Served {
    /// Whether `topic` is one of the topics served (either way).
    pub fn has_topic(&self, topic: &str) -> bool {
        self.topics.iter().any(|t| t.topic == topic)
    }

    /// The names of the topics served, sorted, each once.
    pub fn topic_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.topics.iter().map(|t| t.topic.as_str()).collect();
        v.dedup();
        v
    }
}

impl Simulation {
    /// Every topic and service this run serves now (see [`Served`]).
    pub fn served(&self) -> Served {
        let mut topics = Vec::new();
        self.sensors.served_topics(&self.bus, &mut topics);
        self.systems.served_topics(&self.bus, &mut topics);
        for t in self.bus.topics() {
            let published = self.bus.stats(&t).published > 0;
            let listed = topics
                .iter()
                .any(|s| s.topic == t && s.direction == Direction::Out);
            if published && !listed {
                topics.push(ServedTopic {
                    topic: t,
                    direction: Direction::Out,
                    kind: None,
                    by: String::new(),
                });
            }
        }
        topics.sort();
        topics.dedup();
        let mut services = self.systems.served_services();
        services.extend(self.sensors.served_services());
        services.sort();
        services.dedup();
        Served { topics, services }
    }
}
