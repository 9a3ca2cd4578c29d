//! The simulation thread's side of the transport: a small object called once per step that
//! hands bus subscriptions to the Zenoh thread and publishes what it receives.

use super::options::{ZenohError, ZenohOptions};
use super::worker::{self, Event, Request, Shared, TopicReport};
use crate::runner::Simulation;
use crate::transport::Subscription;
use crossbeam_channel::{Receiver, Sender, bounded, unbounded};
use sim_plugin_api::{Message, SimTime};
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Queue of a bus subscription the Zenoh thread reads (messages; the oldest are dropped and
/// counted when it falls behind).
pub const QUEUE: usize = 64;

/// Inbound messages waiting for the simulation thread (more are dropped with a warning).
pub const INBOUND_QUEUE: usize = 1024;

/// How often (wall time) the world's topics are looked at again for new ones (spawned
/// models).
const RESCAN: Duration = Duration::from_millis(500);

/// The transport of a run: a Zenoh session on its own thread that makes the run's topics
/// reachable in ROS 2's wire format (see the [module docs](super)).
///
/// Call [`Bridge::after_step`] after every step (and once before the first): it takes the
/// Zenoh thread's requests (subscribe to a topic someone outside listens to, publish an
/// inbound message) and never waits for the network.
pub struct Bridge {
    events: Sender<Event>,
    wake: Sender<()>,
    clocks: Sender<SimTime>,
    requests: Receiver<Request>,
    shared: Arc<Shared>,
    probes: Vec<Subscription>,
    known: HashSet<String>,
    last_scan: Instant,
    clock_period: i64,
    next_clock: i64,
    thread: Option<JoinHandle<Vec<TopicReport>>>,
}

impl std::fmt::Debug for Bridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bridge")
            .field("known_topics", &self.known.len())
            .field("probes", &self.probes.len())
            .finish()
    }
}

impl Bridge {
    /// Opens the Zenoh session on its own thread (waiting until it is open or has failed)
    /// and looks at `sim`'s topics.
    pub fn start(options: &ZenohOptions, sim: &mut Simulation) -> Result<Bridge, ZenohError> {
        let configs = options.configs()?;
        let remaps = options.checked_remaps()?;
        let (events_tx, events) = unbounded();
        let (wake_tx, wake) = bounded(1);
        let (clocks_tx, clocks) = bounded(1024);
        let (requests_tx, requests) = bounded(INBOUND_QUEUE);
        let shared = Arc::new(Shared::default());
        let (opened_tx, opened) = bounded(1);
        let channels = worker::Channels {
            events,
            events_tx: events_tx.clone(),
            wake,
            clocks,
            requests: requests_tx,
        };
        let (o, s) = (
            ZenohOptions {
                remaps,
                ..options.clone()
            },
            shared.clone(),
        );
        let thread = std::thread::Builder::new()
            .name("simcore-zenoh".into())
            .spawn(move || worker::run(configs, o, s, channels, opened_tx))
            .map_err(|e| ZenohError::Open(format!("cannot start its thread: {e}")))?;
        match opened.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                let _ = thread.join();
                return Err(ZenohError::Open(e));
            }
            Err(_) => {
                let _ = thread.join();
                return Err(ZenohError::Open("its thread stopped".into()));
            }
        }
        let clock_period = if options.clock_rate > 0.0 && options.clock_rate.is_finite() {
            ((1e9 / options.clock_rate).round() as i64).max(1)
        } else {
            0
        };
        let mut b = Bridge {
            events: events_tx,
            wake: wake_tx,
            clocks: clocks_tx,
            requests,
            shared,
            probes: Vec::new(),
            known: HashSet::new(),
            last_scan: Instant::now(),
            clock_period,
            next_clock: 0,
            thread: Some(thread),
        };
        b.scan(sim);
        Ok(b)
    }

    /// Serves the Zenoh thread's requests and hands over what this step produced: call it
    /// after every step.
    pub fn after_step(&mut self, sim: &mut Simulation) {
        for r in self.requests.try_iter() {
            match r {
                Request::Subscribe(topic) => {
                    let sub = sim.bus_mut().subscribe(&topic, QUEUE);
                    let _ = self.events.send(Event::Subscribed(sub));
                }
                Request::Publish(topic, payload) => {
                    let id = sim.bus_mut().intern(&topic);
                    sim.bus_mut().publish(id, Message::new("", payload));
                }
            }
        }
        if self.last_scan.elapsed() >= RESCAN {
            self.scan(sim);
        }
        if !self.probes.is_empty() {
            let events = &self.events;
            self.probes.retain(|p| {
                let Some(first) = p
                    .has_pending()
                    .then(|| p.drain())
                    .and_then(|v| v.into_iter().next())
                else {
                    return true;
                };
                let _ = events.send(Event::Output(first));
                false
            });
        }
        self.clock(sim.time());
        if self.shared.active.load(Ordering::Relaxed) > 0 {
            let _ = self.wake.try_send(());
        }
    }

    /// Publishes `/clock` when someone listens and it is due at `now`.
    fn clock(&mut self, now: SimTime) {
        if !self.shared.clock_wanted.load(Ordering::Relaxed) || now.nanos < self.next_clock {
            return;
        }
        let _ = self.clocks.try_send(now);
        self.next_clock = if self.clock_period > 0 {
            (now.nanos / self.clock_period + 1).saturating_mul(self.clock_period)
        } else {
            now.nanos.saturating_add(1)
        };
    }

    /// Looks for topics not seen yet: one with a subscriber in the simulation and nothing
    /// published on it yet (a system's command input) is offered for publication from
    /// outside; any other is probed with a one-message subscription, whose first message
    /// tells its type.
    fn scan(&mut self, sim: &mut Simulation) {
        self.last_scan = Instant::now();
        for topic in sim.topics() {
            if !self.known.insert(topic.clone()) {
                continue;
            }
            let stats = sim.bus().stats(&topic);
            if stats.subscribers > 0 && stats.published == 0 {
                let _ = self.events.send(Event::Input(topic));
            } else {
                self.probes.push(sim.bus_mut().subscribe(&topic, 1));
            }
        }
    }

    /// Stops the Zenoh thread (closing the session, so its tokens vanish for the peers) and
    /// returns what each topic published.
    pub fn finish(mut self) -> Vec<TopicReport> {
        self.stop()
    }

    fn stop(&mut self) -> Vec<TopicReport> {
        let _ = self.events.send(Event::Stop);
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.stop();
        }
    }
}
