//! Which live subscriptions are served, so that what the clients' queues can hold stays within
//! one memory bound however many clients connect and however slowly they read.
//!
//! Each client's queue holds at most [`CLIENT_BACKLOG`](super::CLIENT_BACKLOG) messages, so a
//! client subscribed to channels whose largest message so far is `S` bytes can hold
//! `CLIENT_BACKLOG x S`. The subscriptions are served while the sum of that over the clients,
//! in the order they first subscribed, stays within the budget; past it, a client's largest
//! channels are not sent to it (it is told by a status message, the run warns), and they are
//! served again when room frees (another client unsubscribes or leaves).
//!
//! The `foxglove` crate routes a channel to a client as it subscribes, then tells the
//! listener: a message logged in between reaches a client that is refused just after (a
//! message or two at most; the queue's bound holds from the refusal on).

use foxglove::websocket::{ChannelView, Client, ServerListener, Status};
use foxglove::{ChannelId, Context};
use sim_engine::guard::{Throttle, held_note};
use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::sync::{Mutex, Weak};

/// Bytes counted for each queued message besides its payload (frame and queue overhead).
const MESSAGE_OVERHEAD: u64 = 64;

/// The live clients' subscriptions and what they may hold queued: the server's listener.
///
/// Locks: the crate calls [`ServerListener::on_unsubscribe`] while it holds its context's
/// lock when a channel goes, so that callback only books the change (the subscriptions it
/// frees are sent again at the next message or subscription) and never calls the context;
/// the changes are applied to the context under `applying` with the ledger's lock released.
/// Lock order: `applying`, then the ledger or the context, and the context before the
/// ledger; never the ledger before the context.
pub(super) struct Admission {
    context: Weak<Context>,
    applying: Mutex<Throttle>,
    ledger: Mutex<Booked>,
}

/// The ledger and the changes booked but not applied yet.
struct Booked {
    ledger: Ledger<ChannelId, Client>,
    pending: Vec<Change<ChannelId, Client>>,
}

impl Admission {
    /// Subscriptions within `budget` bytes for clients whose queues hold `backlog` messages.
    pub fn new(context: Weak<Context>, budget: u64, backlog: usize) -> Admission {
        Admission {
            context,
            applying: Mutex::new(Throttle::default()),
            ledger: Mutex::new(Booked {
                ledger: Ledger::new(budget, backlog),
                pending: Vec::new(),
            }),
        }
    }

    /// Books a message of `bytes` on `channel` (named `topic`) before it is sent: when it is
    /// the channel's largest so far, the subscriptions are weighed again first.
    pub fn book(&self, channel: ChannelId, topic: &str, bytes: usize) {
        // Most messages change nothing: only the ledger's lock, briefly.
        {
            let booked = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
            if booked.pending.is_empty() && !booked.ledger.grows(&channel, bytes) {
                return;
            }
        }
        self.change(|l| l.book(channel, topic, bytes));
    }

    /// Makes the changes `weigh` gives (after those booked before) under `applying`.
    fn change(
        &self,
        weigh: impl FnOnce(&mut Ledger<ChannelId, Client>) -> Vec<Change<ChannelId, Client>>,
    ) {
        let mut warnings = self.applying.lock().unwrap_or_else(|e| e.into_inner());
        let (changes, reasons) = {
            let mut booked = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
            let mut changes = std::mem::take(&mut booked.pending);
            changes.extend(weigh(&mut booked.ledger));
            let reasons: Vec<Option<String>> = changes
                .iter()
                .map(|c| match c {
                    Change::Refuse(_, ch) => Some(booked.ledger.refusal(ch)),
                    Change::Serve(..) => None,
                })
                .collect();
            (changes, reasons)
        };
        if changes.is_empty() {
            return;
        }
        let Some(context) = self.context.upgrade() else {
            return;
        };
        for (change, why) in changes.into_iter().zip(reasons) {
            match change {
                Change::Serve(client, ch) => {
                    if let Some(sink) = client.sink_id() {
                        context.subscribe_channels(sink, &[ch]);
                    }
                }
                Change::Refuse(client, ch) => {
                    if let Some(sink) = client.sink_id() {
                        context.unsubscribe_channels(sink, &[ch]);
                    }
                    let why = why.unwrap_or_default();
                    client.send_status(Status::warning(why.clone()));
                    if let Some(held) = warnings.allow() {
                        tracing::warn!("Foxglove client {}: {why}{}", client.id(), held_note(held));
                    }
                }
            }
        }
    }
}

impl ServerListener for Admission {
    fn on_subscribe(&self, client: Client, channel: ChannelView) {
        let (id, topic) = (channel.id(), channel.topic().to_string());
        self.change(|l| l.subscribe(client, id, &topic));
    }

    fn on_unsubscribe(&self, client: Client, channel: ChannelView) {
        // Booked only: the crate may hold its context's lock here (see the type's docs).
        let mut booked = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
        let changes = booked.ledger.unsubscribe(&client, channel.id());
        booked.pending.extend(changes);
    }
}

/// A client handle as the ledger keeps it.
pub(super) trait Subscriber: Clone {
    /// The same client.
    fn same(&self, other: &Self) -> bool;
}

impl Subscriber for Client {
    fn same(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

/// A subscription to serve again or to stop serving.
#[derive(Debug, PartialEq)]
pub(super) enum Change<C, K> {
    /// Send the channel to the client again.
    Serve(K, C),
    /// Stop sending it.
    Refuse(K, C),
}

/// The subscriptions and the largest message of each channel: the policy, apart from the
/// server.
pub(super) struct Ledger<C, K> {
    budget: u64,
    backlog: u64,
    /// The largest message booked so far on each channel (its overhead included), and its
    /// topic.
    largest: HashMap<C, (u64, String)>,
    /// The clients with subscriptions, in the order they first subscribed.
    clients: Vec<Subscriptions<C, K>>,
}

struct Subscriptions<C, K> {
    client: K,
    served: HashSet<C>,
    refused: HashSet<C>,
}

impl<C: Copy + Eq + Hash, K: Subscriber> Ledger<C, K> {
    pub fn new(budget: u64, backlog: usize) -> Self {
        Ledger {
            budget,
            backlog: backlog as u64,
            largest: HashMap::new(),
            clients: Vec::new(),
        }
    }

    /// Whether a message of `bytes` on `channel` would be its largest so far.
    pub fn grows(&self, channel: &C, bytes: usize) -> bool {
        let bytes = (bytes as u64).saturating_add(MESSAGE_OVERHEAD);
        self.largest.get(channel).is_none_or(|l| l.0 < bytes)
    }

    /// A message of `bytes` on `channel`: when it is the channel's largest so far, the
    /// subscriptions are weighed again.
    pub fn book(&mut self, channel: C, topic: &str, bytes: usize) -> Vec<Change<C, K>> {
        let bytes = (bytes as u64).saturating_add(MESSAGE_OVERHEAD);
        match self.largest.get_mut(&channel) {
            Some((largest, _)) if *largest >= bytes => return Vec::new(),
            Some((largest, _)) => *largest = bytes,
            None => {
                self.largest.insert(channel, (bytes, topic.to_string()));
            }
        }
        self.weigh()
    }

    /// `client` subscribed to `channel`.
    pub fn subscribe(&mut self, client: K, channel: C, topic: &str) -> Vec<Change<C, K>> {
        self.largest
            .entry(channel)
            .or_insert_with(|| (MESSAGE_OVERHEAD, topic.to_string()));
        let i = match self.clients.iter().position(|c| c.client.same(&client)) {
            Some(i) => i,
            None => {
                self.clients.push(Subscriptions {
                    client,
                    served: HashSet::new(),
                    refused: HashSet::new(),
                });
                self.clients.len() - 1
            }
        };
        self.clients[i].served.insert(channel);
        self.weigh()
    }

    /// `client` unsubscribed from `channel` (or left: the server unsubscribes each of its
    /// channels).
    pub fn unsubscribe(&mut self, client: &K, channel: C) -> Vec<Change<C, K>> {
        let Some(i) = self.clients.iter().position(|c| c.client.same(client)) else {
            return Vec::new();
        };
        let c = &mut self.clients[i];
        c.served.remove(&channel);
        c.refused.remove(&channel);
        if c.served.is_empty() && c.refused.is_empty() {
            self.clients.remove(i);
        }
        self.weigh()
    }

    /// What the served subscriptions can hold queued, all clients together.
    #[cfg(test)]
    pub fn held(&self) -> u64 {
        self.clients
            .iter()
            .map(|c| self.worst(&c.served))
            .fold(0, u64::saturating_add)
    }

    /// Why `channel` is refused, for the client and the log.
    pub fn refusal(&self, channel: &C) -> String {
        let (bytes, topic) = self
            .largest
            .get(channel)
            .map_or((MESSAGE_OVERHEAD, "?"), |(b, t)| (*b, t.as_str()));
        format!(
            "{topic} is not sent to this client: its queue of {} messages could hold {} MB of \
             it, and the live clients together may hold {} MB (simcore run --foxglove-memory); \
             it is sent again when other subscriptions end",
            self.backlog,
            mb(self.backlog.saturating_mul(bytes)),
            mb(self.budget),
        )
    }

    fn size(&self, channel: &C) -> u64 {
        self.largest.get(channel).map_or(MESSAGE_OVERHEAD, |l| l.0)
    }

    /// What a queue can hold with these subscriptions.
    fn worst(&self, served: &HashSet<C>) -> u64 {
        let largest = served.iter().map(|ch| self.size(ch)).max().unwrap_or(0);
        self.backlog.saturating_mul(largest)
    }

    /// Serves the subscriptions within the budget, the clients that subscribed first first:
    /// a client's refused channels come back, smallest first, while they fit; its largest
    /// served channels are refused while they do not fit.
    fn weigh(&mut self) -> Vec<Change<C, K>> {
        let mut changes = Vec::new();
        let mut total = 0u64;
        for i in 0..self.clients.len() {
            let mut back: Vec<C> = self.clients[i].refused.iter().copied().collect();
            back.sort_by_key(|ch| self.size(ch));
            for ch in back {
                let mut served = self.clients[i].served.clone();
                served.insert(ch);
                if total.saturating_add(self.worst(&served)) > self.budget {
                    break;
                }
                let c = &mut self.clients[i];
                c.served = served;
                c.refused.remove(&ch);
                changes.push(Change::Serve(c.client.clone(), ch));
            }
            loop {
                let worst = self.worst(&self.clients[i].served);
                if total.saturating_add(worst) <= self.budget {
                    total = total.saturating_add(worst);
                    break;
                }
                let c = &self.clients[i];
                let Some(ch) = c.served.iter().copied().max_by_key(|ch| self.size(ch)) else {
                    break;
                };
                let c = &mut self.clients[i];
                c.served.remove(&ch);
                c.refused.insert(ch);
                changes.push(Change::Refuse(c.client.clone(), ch));
            }
        }
        changes
    }
}

fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Subscriber for u32 {
        fn same(&self, other: &Self) -> bool {
            self == other
        }
    }

    const KB: usize = 1000;

    /// Budget 100 x 1 MB, queues of 10 messages: a client on a 1 MB channel holds 10 MB.
    fn ledger() -> Ledger<u8, u32> {
        Ledger::new(100_000_000, 10)
    }

    fn refused(changes: &[Change<u8, u32>]) -> Vec<(u32, u8)> {
        changes
            .iter()
            .filter_map(|c| match c {
                Change::Refuse(k, ch) => Some((*k, *ch)),
                Change::Serve(..) => None,
            })
            .collect()
    }

    #[test]
    fn the_clients_past_the_budget_lose_their_largest_channels_first() {
        let mut l = ledger();
        // Channel 1: 3 MB images (30 MB a client); channel 2: 1 KB messages.
        l.book(1, "/image", 3000 * KB - 64);
        l.book(2, "/imu", KB - 64);
        for client in 0..3 {
            assert!(refused(&l.subscribe(client, 1, "/image")).is_empty());
            assert!(refused(&l.subscribe(client, 2, "/imu")).is_empty());
        }
        assert_eq!(l.held(), 90_000_000);
        // A fourth client would bring it to 120 MB: its image channel is refused, its small
        // one served.
        assert!(refused(&l.subscribe(3, 2, "/imu")).is_empty());
        assert_eq!(refused(&l.subscribe(3, 1, "/image")), vec![(3, 1)]);
        assert_eq!(l.held(), 90_000_000 + 10 * KB as u64);
        assert!(l.held() <= 100_000_000);
        assert!(l.refusal(&1).contains("/image"), "{}", l.refusal(&1));
        // The first client leaves: the fourth gets its images back.
        let _ = l.unsubscribe(&0, 2);
        let back = l.unsubscribe(&0, 1);
        assert_eq!(back, vec![Change::Serve(3, 1)]);
        assert_eq!(l.held(), 90_000_000);
    }

    #[test]
    fn a_channel_that_grows_past_the_budget_is_refused_before_it_is_sent() {
        let mut l = ledger();
        for client in 0..5 {
            assert!(l.subscribe(client, 7, "/cloud").is_empty());
        }
        // Unknown size: counted as overhead only.
        assert_eq!(l.held(), 5 * 10 * 64);
        // Its first message is 4 MB: 40 MB a client, two fit.
        let r = refused(&l.book(7, "/cloud", 4_000_000 - 64));
        assert_eq!(r, vec![(2, 7), (3, 7), (4, 7)]);
        assert_eq!(l.held(), 80_000_000);
        // Smaller messages change nothing; a larger one weighs again.
        assert!(!l.grows(&7, 10) && l.grows(&7, 4_000_000 - 63) && l.grows(&8, 0));
        assert!(l.book(7, "/cloud", 10).is_empty());
        let r = refused(&l.book(7, "/cloud", 6_000_000 - 64));
        assert_eq!(r, vec![(1, 7)]);
        assert_eq!(l.held(), 60_000_000);
    }

    #[test]
    fn no_client_is_served_a_channel_larger_than_the_budget() {
        let mut l = ledger();
        l.book(1, "/huge", 64 << 20);
        assert_eq!(refused(&l.subscribe(9, 1, "/huge")), vec![(9, 1)]);
        assert_eq!(l.held(), 0);
        // Sizes near u64::MAX saturate instead of wrapping to a small figure.
        let mut l: Ledger<u8, u32> = Ledger::new(u64::MAX / 2, usize::MAX);
        l.book(1, "/x", 1 << 40);
        assert_eq!(refused(&l.subscribe(1, 1, "/x")), vec![(1, 1)]);
    }
}
