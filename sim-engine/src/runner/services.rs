//! Services offered by system plugins, and the `<topic>/set_rate` service of every sensor
//! (see [`crate::sensors::RateError`]), called from outside the step loop (`--call`, tools).

use super::Simulation;
use crate::systems::ServiceError;
use sim_plugin_api::{Message, Payload};
use std::time::{Duration, Instant};

/// How long [`Simulation::call_service`] waits for a reply (wall time) before it answers with
/// a timeout error.
pub const DEFAULT_SERVICE_TIMEOUT: Duration = Duration::from_secs(5);

impl Simulation {
    /// Calls a service offered by a system plugin (see
    /// [`SystemManager::call`](crate::systems::SystemManager::call)) with the default
    /// deadline, [`DEFAULT_SERVICE_TIMEOUT`]; the commands the plugin queues are applied at
    /// once.
    pub fn call_service(
        &mut self,
        service: &str,
        request: &Message,
    ) -> Result<Message, ServiceError> {
        self.call_service_within(service, request, DEFAULT_SERVICE_TIMEOUT)
    }

    /// [`Simulation::call_service`] with a deadline: a reply that takes longer than `timeout`
    /// (wall time) is dropped and the caller gets a timeout error, as a transport client
    /// that stops waiting at its deadline. Plugins answer on the simulation thread, so the
    /// call itself is not interrupted: what the plugin did (and the commands it queued)
    /// stands; only its reply is discarded.
    pub fn call_service_within(
        &mut self,
        service: &str,
        request: &Message,
        timeout: Duration,
    ) -> Result<Message, ServiceError> {
        let started = Instant::now();
        let reply = self.call_service_now(service, request);
        let took = started.elapsed();
        if took > timeout {
            return Err(ServiceError::Timeout {
                service: service.to_string(),
                timeout,
                took,
            });
        }
        reply
    }

    fn call_service_now(
        &mut self,
        service: &str,
        request: &Message,
    ) -> Result<Message, ServiceError> {
        if let Some(reply) = self.call_set_rate(service, request) {
            return reply;
        }
        let now = self.physics.time();
        let (reply, commands, failure) = self.with_spawner(|systems, physics, spawner| {
            systems.call(service, request, physics, Some(spawner))
        });
        if let Some(f) = failure {
            self.record_system_failures(now, vec![f]);
        }
        for c in commands {
            self.apply(c, now);
        }
        reply.map_err(|e| match e {
            ServiceError::Unknown { service, .. } => ServiceError::Unknown {
                service,
                known: match self.services() {
                    known if known.is_empty() => "none".to_string(),
                    known => known.join(", "),
                },
            },
            e => e,
        })
    }

    /// A sensor's `set_rate` service, when `service` is one: a `Double` request (Hz) answered
    /// with the rate now in effect as a `Double`, or refused with the reason.
    fn call_set_rate(
        &mut self,
        service: &str,
        request: &Message,
    ) -> Option<Result<Message, ServiceError>> {
        if !self.sensors.offers_set_rate(service) {
            return None;
        }
        let rate = match request.payload.as_enum() {
            Ok(Payload::Double(r)) => *r,
            _ => {
                return Some(Err(ServiceError::Failed(format!(
                    "`{service}` takes a Double request (the update rate in Hz)"
                ))));
            }
        };
        let applied = self.sensors.set_rate(service, rate)?;
        Some(
            applied
                .map(|r| Message::new("", Payload::Double(r)))
                .map_err(|e| ServiceError::Failed(e.to_string())),
        )
    }

    /// Services offered by the system plugins and the sensors' `set_rate` services, sorted.
    pub fn services(&self) -> Vec<String> {
        let mut v = self.systems.services();
        v.extend(self.sensors.set_rate_services());
        v.sort();
        v.dedup();
        v
    }
}
