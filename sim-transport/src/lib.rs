//! In-process topic bus.
//!
//! Publishing never blocks the simulation: each subscriber has a bounded queue, and when it
//! is full the subscriber's *oldest* message is dropped to make room and the loss is counted
//! (per subscriber and per topic) so that run summaries can report it. A tap
//! ([`Bus::tap`]) receives every topic's messages, as a recorder needs.

mod naming;

pub use naming::{
    TopicError, default_joint_sensor_topic, default_sensor_topic, sanitize_topic_part,
    sensor_topic_suffix, validate_topic,
};

use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};
use sim_plugin_api::Message;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// A message as it travels on the bus: its resolved topic and the message.
#[derive(Debug)]
pub struct Envelope {
    /// The absolute topic it was published on.
    pub topic: Arc<str>,
    /// The message, header filled.
    pub message: Message,
}

/// The receiving end of a subscription.
#[derive(Debug)]
pub struct Subscription {
    topic: Arc<str>,
    receiver: Receiver<Arc<Envelope>>,
    dropped: Arc<AtomicU64>,
}

impl Subscription {
    /// The topic subscribed to.
    pub fn topic(&self) -> &str {
        &self.topic
    }
    /// Takes every message queued so far, oldest first.
    pub fn drain(&self) -> Vec<Arc<Envelope>> {
        self.receiver.try_iter().collect()
    }
    /// Whether a message is queued.
    pub fn has_pending(&self) -> bool {
        !self.receiver.is_empty()
    }
    /// Takes the next message if one is queued.
    pub fn try_recv(&self) -> Option<Arc<Envelope>> {
        self.receiver.try_recv().ok()
    }
    /// Takes the next message, waiting up to `timeout`.
    pub fn recv_timeout(&self, timeout: std::time::Duration) -> Option<Arc<Envelope>> {
        self.receiver.recv_timeout(timeout).ok()
    }
    /// Messages this subscriber lost because its queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

#[derive(Debug)]
struct Subscriber {
    sender: Sender<Arc<Envelope>>,
    /// A second receiver, used only to discard the oldest message when the queue is full.
    evictor: Receiver<Arc<Envelope>>,
    dropped: Arc<AtomicU64>,
    /// Counts the messages queued ([`Bus::subscribe_counted`]).
    counter: Option<Arc<AtomicUsize>>,
}

#[derive(Debug)]
struct TopicEntry {
    name: Arc<str>,
    subscribers: Vec<Subscriber>,
    published: u64,
    dropped: u64,
}

/// A topic interned on a [`Bus`]: publishing by id costs no hashing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TopicId(usize);

/// Per-topic counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopicStats {
    /// Messages published.
    pub published: u64,
    /// Messages lost by slow subscribers.
    pub dropped: u64,
    /// Current subscribers.
    pub subscribers: usize,
}

/// The topic bus. Owned by the simulation thread; subscriptions may be read from any thread.
#[derive(Debug, Default)]
pub struct Bus {
    topics: Vec<TopicEntry>,
    index: HashMap<Arc<str>, TopicId>,
    /// Subscribers to every topic.
    taps: Vec<Subscriber>,
}

impl Bus {
    /// An empty bus.
    pub fn new() -> Self {
        Self::default()
    }

    /// Subscribes to `topic` with a queue of `capacity` messages (at least 1).
    pub fn subscribe(&mut self, topic: &str, capacity: usize) -> Subscription {
        self.subscribe_with(topic, capacity, None)
    }

    /// As [`Bus::subscribe`], and every message queued for the subscription adds one to
    /// `counter` (which several subscriptions may share): the publishing thread learns how
    /// much is queued without looking at each queue, so it can wake a reader on another
    /// thread once for many messages.
    pub fn subscribe_counted(
        &mut self,
        topic: &str,
        capacity: usize,
        counter: Arc<AtomicUsize>,
    ) -> Subscription {
        self.subscribe_with(topic, capacity, Some(counter))
    }

    fn subscribe_with(
        &mut self,
        topic: &str,
        capacity: usize,
        counter: Option<Arc<AtomicUsize>>,
    ) -> Subscription {
        let (sender, receiver) = bounded(capacity.max(1));
        let dropped = Arc::new(AtomicU64::new(0));
        let id = self.intern(topic);
        let entry = &mut self.topics[id.0];
        entry.subscribers.push(Subscriber {
            sender,
            evictor: receiver.clone(),
            dropped: dropped.clone(),
            counter,
        });
        Subscription {
            topic: entry.name.clone(),
            receiver,
            dropped,
        }
    }

    /// Subscribes to every topic, those created later included, with a queue of `capacity`
    /// messages (at least 1). While a tap exists every topic has a listener
    /// ([`Bus::has_subscribers_of`]), so publishers build every message.
    pub fn tap(&mut self, capacity: usize) -> Subscription {
        let (sender, receiver) = bounded(capacity.max(1));
        let dropped = Arc::new(AtomicU64::new(0));
        self.taps.push(Subscriber {
            sender,
            evictor: receiver.clone(),
            dropped: dropped.clone(),
            counter: None,
        });
        Subscription {
            topic: Arc::from("*"),
            receiver,
            dropped,
        }
    }

    /// The id of `topic`, creating it if needed.
    pub fn intern(&mut self, topic: &str) -> TopicId {
        if let Some(id) = self.index.get(topic) {
            return *id;
        }
        let name: Arc<str> = Arc::from(topic);
        let id = TopicId(self.topics.len());
        self.topics.push(TopicEntry {
            name: name.clone(),
            subscribers: Vec::new(),
            published: 0,
            dropped: 0,
        });
        self.index.insert(name, id);
        id
    }

    /// The name of a topic.
    pub fn name(&self, id: TopicId) -> &str {
        &self.topics[id.0].name
    }

    /// Whether anyone listens on `topic`.
    pub fn has_subscribers(&self, topic: &str) -> bool {
        !self.taps.is_empty()
            || self
                .index
                .get(topic)
                .is_some_and(|id| !self.topics[id.0].subscribers.is_empty())
    }

    /// Whether anyone listens on a topic, by id (a tap listens on every topic).
    pub fn has_subscribers_of(&self, id: TopicId) -> bool {
        !self.taps.is_empty() || !self.topics[id.0].subscribers.is_empty()
    }

    /// Counts a message published on a topic nobody listens to (the publisher drops it
    /// without building it for delivery).
    pub fn count_unheard(&mut self, id: TopicId) {
        self.topics[id.0].published += 1;
    }

    /// Publishes without blocking. Subscribers whose [`Subscription`] was dropped are removed.
    pub fn publish(&mut self, id: TopicId, message: Message) {
        let entry = &mut self.topics[id.0];
        entry.published += 1;
        if entry.subscribers.is_empty() && self.taps.is_empty() {
            return;
        }
        let envelope = Arc::new(Envelope {
            topic: entry.name.clone(),
            message,
        });
        entry.dropped += deliver(&mut entry.subscribers, &envelope);
        entry.dropped += deliver(&mut self.taps, &envelope);
    }

    /// Counters of one topic.
    pub fn stats(&self, topic: &str) -> TopicStats {
        self.index
            .get(topic)
            .map(|id| self.stats_of(*id))
            .unwrap_or_default()
    }

    /// Counters of one topic, by id.
    pub fn stats_of(&self, id: TopicId) -> TopicStats {
        let t = &self.topics[id.0];
        TopicStats {
            published: t.published,
            dropped: t.dropped,
            subscribers: t.subscribers.len(),
        }
    }

    /// Every topic that has been published on or subscribed to, sorted.
    pub fn topics(&self) -> Vec<String> {
        let mut v: Vec<String> = self.topics.iter().map(|t| t.name.to_string()).collect();
        v.sort();
        v
    }
}

/// Queues `envelope` for each of `subscribers`, dropping the oldest message of a full queue,
/// and removes those whose [`Subscription`] is gone. Returns the messages dropped.
fn deliver(subscribers: &mut Vec<Subscriber>, envelope: &Arc<Envelope>) -> u64 {
    let mut lost = 0;
    subscribers.retain(|s| {
        // The subscription and the bus share the drop counter: when the bus holds the only
        // reference, the subscription is gone (its queue stays open through `evictor`).
        if Arc::strong_count(&s.dropped) == 1 {
            return false;
        }
        let mut item = envelope.clone();
        loop {
            match s.sender.try_send(item) {
                Ok(()) => {
                    if let Some(c) = &s.counter {
                        c.fetch_add(1, Ordering::Relaxed);
                    }
                    return true;
                }
                Err(TrySendError::Disconnected(_)) => return false,
                Err(TrySendError::Full(back)) => {
                    item = back;
                    if s.evictor.try_recv().is_ok() {
                        s.dropped.fetch_add(1, Ordering::Relaxed);
                        lost += 1;
                    }
                }
            }
        }
    });
    lost
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::Payload;

    fn msg(v: f64) -> Message {
        Message::new("", Payload::Double(v))
    }

    fn value(e: &Envelope) -> f64 {
        match e.message.payload.as_enum() {
            Ok(Payload::Double(v)) => *v,
            other => panic!("unexpected payload {other:?}"),
        }
    }

    #[test]
    fn fan_out_in_order() {
        let mut bus = Bus::new();
        let a = bus.subscribe("/t", 10);
        let b = bus.subscribe("/t", 10);
        let other = bus.subscribe("/u", 10);
        let t = bus.intern("/t");
        for i in 0..3 {
            bus.publish(t, msg(i as f64));
        }
        assert_eq!(
            a.drain().iter().map(|e| value(e)).collect::<Vec<_>>(),
            vec![0.0, 1.0, 2.0]
        );
        assert_eq!(b.drain().len(), 3);
        assert!(other.drain().is_empty());
        assert_eq!(
            bus.stats("/t"),
            TopicStats {
                published: 3,
                dropped: 0,
                subscribers: 2
            }
        );
    }

    #[test]
    fn slow_subscriber_loses_oldest_and_is_counted() {
        let mut bus = Bus::new();
        let slow = bus.subscribe("/t", 2);
        let fast = bus.subscribe("/t", 100);
        let t = bus.intern("/t");
        for i in 0..5 {
            bus.publish(t, msg(i as f64));
        }
        assert_eq!(
            slow.drain().iter().map(|e| value(e)).collect::<Vec<_>>(),
            vec![3.0, 4.0]
        );
        assert_eq!(slow.dropped(), 3);
        assert_eq!(fast.drain().len(), 5);
        assert_eq!(fast.dropped(), 0);
        assert_eq!(bus.stats("/t").dropped, 3);
    }

    #[test]
    fn a_tap_receives_every_topic_and_makes_each_heard() {
        let mut bus = Bus::new();
        let t = bus.intern("/t");
        assert!(!bus.has_subscribers_of(t));
        let tap = bus.tap(10);
        assert!(bus.has_subscribers_of(t));
        assert!(bus.has_subscribers("/later"));
        bus.publish(t, msg(1.0));
        let later = bus.intern("/later");
        bus.publish(later, msg(2.0));
        let got: Vec<(String, f64)> = tap
            .drain()
            .iter()
            .map(|e| (e.topic.to_string(), value(e)))
            .collect();
        assert_eq!(got, vec![("/t".into(), 1.0), ("/later".into(), 2.0)]);
        drop(tap);
        bus.publish(t, msg(3.0));
        assert!(!bus.has_subscribers_of(t), "a dropped tap is removed");
    }

    #[test]
    fn a_counted_subscription_counts_each_message_queued() {
        let mut bus = Bus::new();
        let counter = Arc::new(AtomicUsize::new(0));
        let s = bus.subscribe_counted("/t", 2, counter.clone());
        let v = bus.subscribe_counted("/v", 2, counter.clone());
        let plain = bus.subscribe("/u", 2);
        let (t, u, w) = (bus.intern("/t"), bus.intern("/u"), bus.intern("/v"));
        bus.publish(u, msg(0.0));
        assert_eq!(
            counter.load(Ordering::Relaxed),
            0,
            "another topic's message"
        );
        bus.publish(t, msg(1.0));
        bus.publish(w, msg(1.0));
        assert_eq!(counter.swap(0, Ordering::Relaxed), 2, "shared by both");
        for i in 2..5 {
            bus.publish(t, msg(i as f64));
        }
        assert_eq!(counter.swap(0, Ordering::Relaxed), 3, "also when full");
        assert_eq!(s.drain().len(), 2);
        assert_eq!(s.dropped(), 2);
        assert_eq!(v.drain().len(), 1);
        assert_eq!(plain.drain().len(), 1);
        drop(s);
        bus.publish(t, msg(5.0));
        assert_eq!(
            counter.load(Ordering::Relaxed),
            0,
            "a dropped subscription counts nothing"
        );
    }

    #[test]
    fn dropped_subscription_is_removed() {
        let mut bus = Bus::new();
        let s = bus.subscribe("/t", 1);
        drop(s);
        let t = bus.intern("/t");
        bus.publish(t, msg(1.0));
        assert_eq!(bus.stats("/t").subscribers, 0);
    }
}
