//! The Zenoh thread: owns the session, declares the run's publishers, subscribers and
//! liveliness tokens, encodes what the bus hands over and publishes it ([`outputs`]), hands
//! what clients send to the simulation ([`inputs`]) and serves the control services
//! ([`services`]).

use super::control::{Control, Reply, Service};
use super::keys::{Node, Qos};
use super::options::ZenohOptions;
use crossbeam_channel::{Receiver, Sender, select};
use sim_codec::TopicOptions;
use sim_codec::names::RosNames;
use sim_codec::{self as ros, FrameTransform, RosType, catalog};
use sim_engine::guard::{Throttle, WARNING_INTERVAL};
use sim_plugin_api::{Payload, SimTime};
use sim_transport::{Envelope, Subscription};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use zenoh::Wait;
use zenoh::liveliness::LivelinessToken;
use zenoh::pubsub::Subscriber;
use zenoh::query::{Query, Queryable};

mod inputs;
mod outputs;
mod services;

use outputs::Output;
use services::{Call, reply_to};

/// Inbound messages waiting for the simulation thread (more are dropped with a warning).
pub const INBOUND_QUEUE: usize = 1024;

/// Service calls from outside waiting for the Zenoh thread to read them: a client sending
/// calls faster than they are read gets "busy" answers for the others, at once, instead of
/// queueing them without bound.
pub const CALL_QUEUE: usize = 1024;

/// How often (wall time) the Zenoh thread looks at its queues by itself while the steps keep
/// handing over messages: a run faster than real time never wakes it, and what the steps
/// hand over in between goes out together. When a look finds nothing the thread sleeps until
/// the simulation thread wakes it with the next hand-over (as each step of a run paced at
/// real time does).
pub const WAKE_EVERY: Duration = Duration::from_micros(500);

/// The largest inbound payload accepted; larger ones are dropped with a warning.
pub const MAX_INBOUND_BYTES: usize = 1 << 20;

/// What the simulation thread tells the Zenoh thread.
pub(super) enum Event {
    /// A topic's first message (its type decides its key), and the bus subscription it came
    /// through (kept while someone outside listens, so nothing after it is missed).
    Output(Arc<Envelope>, Subscription),
    /// A topic the simulation listens to, and the type its system reads there (if known).
    Input(String, Option<&'static RosType>),
    /// The bus subscription asked for with [`Request::Subscribe`].
    Subscribed(Subscription),
    /// Whether someone outside listens to output `index` ([`CLOCK`]: `/clock`, [`TF`]:
    /// `/tf`) may have changed: its [`Matched`] says how it stands now. At most one such
    /// event per output waits in the queue, however often clients come and go.
    Matching(usize),
    /// The transforms `/tf_static` carries changed: the latest wait in
    /// [`Shared::static_frames`]. At most one such event waits in the queue, however often
    /// the world's models change while the Zenoh thread is behind.
    StaticFrames,
    /// The simulation's reply to [`Request::Control`] `id`.
    Reply(u64, Box<Reply>),
    /// The reply to [`Request::WorldCall`] or [`Request::WorldServices`] `id`: JSON, or why
    /// the call failed.
    WorldReply(u64, Result<String, String>),
    /// Close the session.
    Stop,
}

/// What the Zenoh thread asks of the simulation thread.
pub(super) enum Request {
    /// Subscribe to a topic on the bus (someone outside listens to it).
    Subscribe(Arc<str>),
    /// Publish an inbound message on the bus.
    Publish(String, Payload),
    /// A control request, answered with [`Event::Reply`] with the same id.
    Control(u64, Control),
    /// Call the world service (a plugin's, a sensor's `set_rate`) with a message; answered
    /// with [`Event::WorldReply`] with the same id.
    WorldCall(u64, String, Box<sim_plugin_api::Message>),
    /// List the world's services; answered with [`Event::WorldReply`].
    WorldServices(u64),
}

/// State both threads read.
#[derive(Default)]
pub(super) struct Shared {
    /// Whether someone listens to `/clock`.
    pub clock_wanted: AtomicBool,
    /// Whether someone listens to `/tf`.
    pub tf_wanted: AtomicBool,
    /// Steps whose `/tf` was not sent because the Zenoh thread was behind.
    pub tf_lost: AtomicU64,
    /// The transforms of the `/tf` steps handed to the Zenoh thread and not taken yet.
    pub tf_waiting: AtomicUsize,
    /// Whether the Zenoh thread sleeps until it is woken: it found its queues empty (while
    /// they are not, it looks at them by itself every [`WAKE_EVERY`]).
    pub parked: AtomicBool,
    /// The transforms `/tf_static` is to carry, not taken by the Zenoh thread yet (a newer
    /// set replaces an older one: only the latest is sent).
    pub static_frames: Mutex<Option<Vec<FrameTransform>>>,
}

/// The most steps of `/tf` waiting for the Zenoh thread; beyond it (or
/// [`TF_QUEUE_FRAMES`]) a step's frames are not sent (and the next step sent carries every
/// frame again). It is also the most steps one `/tf` message holds.
pub const TF_QUEUE: usize = 4096;

/// The most transforms of `/tf` steps waiting for the Zenoh thread (some 4 MB of poses; a
/// step with more is sent when nothing waits).
pub const TF_QUEUE_FRAMES: usize = 1 << 16;

/// The most transforms one `/tf` message holds (a step with more goes alone): about 1 MB.
pub const TF_MESSAGE_FRAMES: usize = 10_000;

/// The output index [`Event::Matching`] gives for `/clock`.
pub(super) const CLOCK: usize = usize::MAX;
/// The output index [`Event::Matching`] gives for `/tf`.
pub(super) const TF: usize = usize::MAX - 1;

/// The Zenoh thread's ends of the channels. What the simulation hands over in its steps
/// (`clocks`, `frames`, the outputs' bus subscriptions) waits in its queues until the thread
/// looks there: every [`WAKE_EVERY`] while it finds something, else when `wake` says there
/// is something (see [`Shared::parked`]); one look takes many messages.
pub(super) struct Channels {
    pub events: Receiver<Event>,
    pub events_tx: Sender<Event>,
    /// Service calls from outside, at most [`CALL_QUEUE`].
    pub calls: Receiver<(Option<Service>, Query)>,
    pub calls_tx: Sender<(Option<Service>, Query)>,
    pub wake: Receiver<()>,
    /// `/clock`'s sim times.
    pub clocks: Receiver<SimTime>,
    /// The model and link frames that moved in a step (`/tf`; sent only while someone
    /// listens there), at most [`TF_QUEUE`].
    pub frames: Receiver<ros::Moved>,
    pub requests: Requests,
    /// Counts the messages the bus queues for the outputs' subscriptions (set back to 0
    /// when they are taken).
    pub queued: Arc<AtomicUsize>,
}

/// The queue of requests for the simulation thread: each one queued wakes the run when it
/// waits paused.
#[derive(Clone, Debug)]
pub(super) struct Requests {
    pub tx: Sender<Request>,
    pub waker: sim_engine::runner::RunWaker,
}

impl Requests {
    /// Queues `r` (never waits) and wakes the run.
    pub fn try_send(&self, r: Request) -> Result<(), crossbeam_channel::TrySendError<Request>> {
        self.tx.try_send(r)?;
        self.waker.wake();
        Ok(())
    }
}

/// What one topic did over the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicReport {
    /// The simcore topic.
    pub topic: String,
    /// Its ROS name.
    pub ros_name: String,
    /// Its ROS type (`pkg/msg/Type`).
    pub ros_type: String,
    /// Messages published to Zenoh.
    pub sent: u64,
    /// Messages lost because the Zenoh thread fell behind the simulation (`/tf`: steps).
    pub lost: u64,
    /// `/tf`'s: the steps whose frames its messages held (one message holds every step
    /// that waited for the Zenoh thread); None for other topics.
    pub steps: Option<u64>,
}

struct Worker {
    session: zenoh::Session,
    node: Node,
    next_eid: u32,
    outputs: Vec<Output>,
    by_topic: HashMap<Arc<str>, usize>,
    names: HashMap<String, String>,
    ros_names: RosNames,
    /// What encoding needs of each topic beyond its messages (a lidar's scan period).
    topic_options: TopicOptions,
    inputs: Vec<(Subscriber<()>, Option<LivelinessToken>)>,
    clock: Option<Output>,
    tf: Option<Output>,
    /// The steps whose frames `/tf`'s messages held.
    tf_steps: u64,
    tf_static: Option<Output>,
    services: Vec<(Queryable<()>, LivelinessToken)>,
    calls: HashMap<u64, Call>,
    /// World service calls waiting for the simulation's reply.
    world_calls: HashMap<u64, Query>,
    /// The queryables of the world's services (calls and the list).
    world_queryables: Vec<Queryable<()>>,
    next_call: u64,
    /// The warnings about refused calls, per service.
    refused_calls: HashMap<&'static str, Throttle>,
    shared: Arc<Shared>,
    ch: Channels,
}

/// The thread's body: opens the session (telling `opened` how it went), then serves events
/// until [`Event::Stop`].
pub(super) fn run(
    configs: Vec<zenoh::Config>,
    options: ZenohOptions,
    topic_options: TopicOptions,
    shared: Arc<Shared>,
    ch: Channels,
    opened: Sender<Result<(), String>>,
) -> Vec<TopicReport> {
    let mut first_error = None;
    let mut session = None;
    for c in configs {
        match zenoh::open(c).wait() {
            Ok(s) => {
                session = Some(s);
                break;
            }
            Err(e) => {
                tracing::debug!("Zenoh session not opened: {e}");
                first_error.get_or_insert(crate::options::message(e));
            }
        }
    }
    let Some(session) = session else {
        let _ = opened.send(Err(first_error.unwrap_or_default()));
        return Vec::new();
    };
    let node = Node {
        domain: options.domain,
        zid: session.zid().to_string(),
        id: 0,
        name: options.node.clone(),
    };
    let mut w = Worker {
        session,
        node,
        next_eid: 1,
        outputs: Vec::new(),
        by_topic: HashMap::new(),
        names: HashMap::new(),
        ros_names: options.names.clone(),
        topic_options,
        inputs: Vec::new(),
        clock: None,
        tf: None,
        tf_steps: 0,
        tf_static: None,
        services: Vec::new(),
        calls: HashMap::new(),
        world_calls: HashMap::new(),
        world_queryables: Vec::new(),
        next_call: 1,
        refused_calls: HashMap::new(),
        shared,
        ch,
    };
    let node_token = match w.session.liveliness().declare_token(w.node.token()).wait() {
        Ok(t) => t,
        Err(e) => {
            let _ = opened.send(Err(format!("cannot declare the node's token: {e}")));
            return Vec::new();
        }
    };
    w.clock = w.declare("/clock", &catalog::CLOCK, Qos::Reliable, CLOCK);
    // The engine's /tf, unless the user remapped a topic of the world there (a truth
    // PosePublisher's TFMessage, as ros_gz_bridge users do): then that one is /tf.
    if !w.ros_names.is_remapped_to("/tf") {
        w.tf = w.declare("/tf", &catalog::TF_MESSAGE, Qos::Reliable, TF);
        if w.tf.is_some() {
            w.names.insert("/tf".into(), "/tf".into());
        }
    }
    w.tf_static = w.declare("/tf_static", &catalog::TF_MESSAGE, Qos::Latched, usize::MAX);
    // Whoever listened before the publishers were declared.
    for (o, wanted) in [
        (&w.clock, &w.shared.clock_wanted),
        (&w.tf, &w.shared.tf_wanted),
    ] {
        if let Some(o) = o {
            wanted.store(o.matching, Ordering::Relaxed);
        }
    }
    for service in Service::ALL {
        if let Err(e) = w.serve_service(service) {
            let _ = opened.send(Err(format!(
                "cannot serve {}: {e}",
                service.ros_type().name
            )));
            return Vec::new();
        }
    }
    match w.serve_world_services() {
        Ok(q) => w.world_queryables = q,
        Err(e) => {
            let _ = opened.send(Err(format!("cannot serve the world's services: {e}")));
            return Vec::new();
        }
    }
    let _ = opened.send(Ok(()));
    w.serve();
    for (name, t) in &w.refused_calls {
        if t.held() > 0 {
            tracing::warn!(
                "{name}: {} more refused calls were not warned about (one warning per {} s)",
                t.held(),
                WARNING_INTERVAL.as_secs()
            );
        }
    }
    let reports = w.reports();
    drop(node_token);
    // Every publisher, subscriber, queryable and token goes before the session closes.
    let session = w.session.clone();
    drop(w);
    let _ = session.close().wait();
    reports
}

impl Worker {
    fn serve(&mut self) {
        // Whether the last look at the queues found something: the next look is at most
        // WAKE_EVERY later without being woken.
        let mut busy = false;
        loop {
            if !busy {
                self.shared.parked.store(true, Ordering::Relaxed);
                std::sync::atomic::fence(Ordering::SeqCst);
                // What was handed over before the simulation thread could see the flag.
                busy = self.flush();
            }
            let timeout = if busy { WAKE_EVERY } else { Duration::MAX };
            select! {
                recv(self.ch.events) -> e => match e {
                    Ok(Event::Stop) | Err(_) => break,
                    Ok(e) => self.event(e),
                },
                recv(self.ch.calls) -> c => match c {
                    Ok((Some(service), query)) => self.query(service, query),
                    Ok((None, query)) => self.world_query(query),
                    Err(_) => {}
                },
                recv(self.ch.wake) -> _ => {}
                default(timeout) => {}
            }
            self.shared.parked.store(false, Ordering::Relaxed);
            busy = self.flush();
        }
        self.flush();
    }

    /// Publishes everything the simulation has handed over: `/clock`, `/tf` and the
    /// outputs' queued messages; whether there was anything.
    fn flush(&mut self) -> bool {
        self.ch.queued.store(0, Ordering::Relaxed);
        let mut took = false;
        while let Ok(t) = self.ch.clocks.try_recv() {
            took = true;
            if let Some(c) = self.clock.as_mut() {
                let mut b = Vec::with_capacity(16);
                ros::encode_clock(t, &mut b);
                c.put(b);
            }
        }
        took |= self.flush_tf();
        took | self.publish_pending()
    }

    fn event(&mut self, e: Event) {
        match e {
            Event::Output(first, sub) => self.output(&first, sub),
            Event::StaticFrames => {
                let taken = self
                    .shared
                    .static_frames
                    .lock()
                    .ok()
                    .and_then(|mut s| s.take());
                let Some(frames) = taken else { return };
                if let Some(l) = self.tf_static.as_mut() {
                    let mut b = Vec::with_capacity(64 + 96 * frames.len());
                    ros::encode_tf(&frames, &mut b);
                    l.put(b);
                }
            }
            Event::Reply(id, reply) => {
                // Everything the steps before the reply produced goes out first.
                self.flush();
                if let Some(call) = self.calls.remove(&id) {
                    reply_to(call, &reply);
                }
            }
            Event::WorldReply(id, reply) => {
                self.flush();
                if let Some(query) = self.world_calls.remove(&id) {
                    services::world_reply(query, reply);
                }
            }
            Event::Input(topic, ty) => self.input(topic, ty),
            Event::Subscribed(sub) => {
                let Some(&i) = self.by_topic.get(sub.topic()) else {
                    return;
                };
                let o = &mut self.outputs[i];
                if o.matching && o.sub.is_none() {
                    o.sub = Some(sub);
                }
            }
            Event::Matching(i) => {
                let o = match i {
                    CLOCK => self.clock.as_mut(),
                    TF => self.tf.as_mut(),
                    _ => self.outputs.get_mut(i),
                };
                let Some(o) = o else { return };
                let m = o.matched.take();
                let changed = m != o.matching;
                o.matching = m;
                match i {
                    CLOCK => self.shared.clock_wanted.store(m, Ordering::Relaxed),
                    TF => self.shared.tf_wanted.store(m, Ordering::Relaxed),
                    _ => {}
                }
                if i == CLOCK || i == TF {
                    return;
                }
                if m {
                    if o.sub.is_none() {
                        let _ = self
                            .ch
                            .requests
                            .try_send(Request::Subscribe(o.topic.clone()));
                    }
                } else if changed {
                    o.release();
                }
            }
            Event::Stop => {}
        }
    }

    /// The ROS name of a topic: its remap, else the rule of [`sim_codec::names`].
    fn ros_name(&self, topic: &str) -> Option<String> {
        self.ros_names.ros_name(topic)
    }

    fn reports(&mut self) -> Vec<TopicReport> {
        let mut v = Vec::new();
        for o in self
            .outputs
            .iter_mut()
            .chain(self.clock.as_mut())
            .chain(self.tf.as_mut())
            .chain(self.tf_static.as_mut())
        {
            o.release();
            v.push(TopicReport {
                topic: o.topic.to_string(),
                ros_name: o.ros.clone(),
                ros_type: o.ty.name.to_string(),
                sent: o.sent,
                lost: o.lost,
                steps: None,
            });
        }
        if self.tf.is_some()
            && let Some(tf) = v.iter_mut().find(|r| r.topic == "/tf")
        {
            tf.lost += self.shared.tf_lost.load(Ordering::Relaxed);
            tf.steps = Some(self.tf_steps);
        }
        v
    }
}
