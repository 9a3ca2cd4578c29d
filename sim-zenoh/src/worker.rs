//! The Zenoh thread: owns the session, declares the run's publishers, subscribers and
//! liveliness tokens, encodes what the bus hands over and publishes it.

use super::control::{Control, Reply, Service};
use super::keys::{self, EndpointKind, Node, Qos};
use super::options::ZenohOptions;
use crossbeam_channel::{Receiver, Sender, TrySendError, select};
use sim_codec::TopicOptions;
use sim_codec::names::RosNames;
use sim_codec::{self as ros, FrameTransform, RosType, catalog};
use sim_engine::guard::{Throttle, WARNING_INTERVAL, held_note};
use sim_plugin_api::{Payload, SimTime};
use sim_transport::{Envelope, Subscription};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use zenoh::Wait;
use zenoh::liveliness::LivelinessToken;
use zenoh::pubsub::{Publisher, Subscriber};
use zenoh::qos::CongestionControl;
use zenoh::query::{Query, Queryable};
use zenoh_ext::{AdvancedPublisher, AdvancedPublisherBuilderExt, CacheConfig};

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
    /// The transforms `/tf_static` carries now (sent again when they change).
    StaticFrames(Vec<FrameTransform>),
    /// The simulation's reply to [`Request::Control`] `id`.
    Reply(u64, Box<Reply>),
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
    pub calls: Receiver<(Service, Query)>,
    pub calls_tx: Sender<(Service, Query)>,
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

/// Whether someone outside listens to an output, as Zenoh's matching listener last said,
/// and whether an [`Event::Matching`] about it waits to be read.
#[derive(Default)]
struct Matched {
    now: AtomicBool,
    pending: AtomicBool,
}

impl Matched {
    /// Records what the listener says; whether an event must be sent (none waits).
    fn record(&self, matching: bool) -> bool {
        self.now.store(matching, Ordering::SeqCst);
        !self.pending.swap(true, Ordering::SeqCst)
    }

    /// How it stands now, the waiting event read (cleared before the state is read: a
    /// change after the read sends another).
    fn take(&self) -> bool {
        self.pending.store(false, Ordering::SeqCst);
        self.now.load(Ordering::SeqCst)
    }
}

struct Output {
    topic: Arc<str>,
    ros: String,
    ty: &'static RosType,
    publisher: Pub,
    _token: LivelinessToken,
    gid: [u8; 16],
    seq: i64,
    /// The size of the last message encoded (the next one's buffer is made that large).
    size: usize,
    matching: bool,
    /// What the matching listener last said (plain publishers).
    matched: Arc<Matched>,
    sub: Option<Subscription>,
    sent: u64,
    lost: u64,
    mistyped: bool,
}

impl Output {
    /// Publishes `bytes`; whether Zenoh took them.
    fn put(&mut self, bytes: Vec<u8>) -> bool {
        self.seq += 1;
        let a = keys::attachment(self.seq, keys::wall_clock_ns(), &self.gid);
        let put = match &self.publisher {
            Pub::Plain(p) => p.put(bytes).attachment(a.to_vec()).wait(),
            Pub::Latched(p) => p.put(bytes).attachment(a.to_vec()).wait(),
        };
        if let Err(e) = put {
            tracing::debug!("{}: publication failed: {e}", self.ros);
            false
        } else {
            self.sent += 1;
            true
        }
    }

    fn release(&mut self) {
        if let Some(s) = self.sub.take() {
            self.lost += s.dropped();
        }
    }
}

/// How a topic is published.
enum Pub {
    /// A plain publisher (volatile).
    Plain(Publisher<'static>),
    /// A latched topic: its last sample stays in the publisher's cache, where subscribers
    /// that join later fetch it (rmw_zenoh's TRANSIENT_LOCAL: a zenoh-ext AdvancedPublisher
    /// with a cache of depth 1 and publisher detection).
    Latched(AdvancedPublisher<'static>),
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
    next_call: u64,
    /// The warnings about refused calls, per service.
    refused_calls: HashMap<&'static str, Throttle>,
    shared: Arc<Shared>,
    ch: Channels,
}

/// A service call waiting for the simulation's reply.
struct Call {
    service: Service,
    query: Query,
    seq: i64,
    gid: [u8; 16],
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
    let Worker {
        session,
        outputs,
        inputs,
        clock,
        tf,
        tf_static,
        services,
        calls,
        ..
    } = w;
    drop((outputs, inputs, clock, tf, tf_static, services, calls));
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
                recv(self.ch.calls) -> c => {
                    if let Ok((service, query)) = c {
                        self.query(service, query);
                    }
                }
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

    /// Publishes the `/tf` steps waiting when it starts as one message: every step's
    /// transforms in step order, each with its own step's stamp; a message holds at most
    /// [`TF_QUEUE`] steps and [`TF_MESSAGE_FRAMES`] transforms (a larger step alone), more
    /// go in several.
    fn flush_tf(&mut self) -> bool {
        let mut steps: Vec<ros::Moved> = Vec::new();
        let mut frames = 0;
        for _ in 0..self.ch.frames.len() {
            let Ok(m) = self.ch.frames.try_recv() else {
                break;
            };
            self.shared.tf_waiting.fetch_sub(m.len(), Ordering::Relaxed);
            if !steps.is_empty()
                && (steps.len() == TF_QUEUE || frames + m.len() > TF_MESSAGE_FRAMES)
            {
                self.put_tf(&steps, frames);
                steps.clear();
                frames = 0;
            }
            frames += m.len();
            steps.push(m);
        }
        if steps.is_empty() {
            return false;
        }
        self.put_tf(&steps, frames);
        true
    }

    /// Publishes one `/tf` message of `steps` (holding `frames` transforms) while someone
    /// listens there.
    fn put_tf(&mut self, steps: &[ros::Moved], frames: usize) {
        if let Some(o) = self.tf.as_mut().filter(|o| o.matching) {
            let mut b = Vec::with_capacity(64 + 96 * frames);
            ros::Moved::encode_steps(steps, &mut b);
            if o.put(b) {
                self.tf_steps += steps.len() as u64;
            }
        }
    }

    fn event(&mut self, e: Event) {
        match e {
            Event::Output(first, sub) => self.output(&first, sub),
            Event::StaticFrames(frames) => {
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

    /// Declares the publisher of a topic whose first message is `first`, if its payload has
    /// a ROS 2 form; when someone already listens, `first` and what `sub` holds since are
    /// published.
    fn output(&mut self, first: &Envelope, sub: Subscription) {
        let mut scratch = Vec::new();
        let options = self.topic_options.of(&first.topic);
        let Some(ty) = ros::encode_with(&first.message, &options, &mut scratch) else {
            tracing::debug!("{}: no ROS 2 form; not published", first.topic);
            return;
        };
        let Some(ros) = self.ros_name(&first.topic) else {
            return;
        };
        if let Some(other) = self.names.get(&ros) {
            tracing::warn!(
                "topics `{other}` and `{}` both map to the ROS name `{ros}`; only the first is published",
                first.topic
            );
            return;
        }
        let index = self.outputs.len();
        if let Some(mut o) = self.declare(&ros, ty, Qos::offered_on(&ros), index) {
            o.topic = first.topic.clone();
            o.size = scratch.len();
            if o.matching {
                o.put(scratch);
                o.sub = Some(sub);
            }
            self.names.insert(ros, first.topic.to_string());
            self.by_topic.insert(first.topic.clone(), index);
            self.outputs.push(o);
        }
    }

    /// A publisher of `ty` on `ros` and its token: a latched one for [`Qos::Latched`], else one
    /// with a matching listener reporting as output `index`.
    fn declare(
        &mut self,
        ros: &str,
        ty: &'static RosType,
        qos: Qos,
        index: usize,
    ) -> Option<Output> {
        let key = keys::topic_key(self.node.domain, ros, ty);
        let eid = self.next_eid;
        self.next_eid += 1;
        let token = self.node.endpoint_token(
            eid,
            EndpointKind::Publisher,
            ros,
            &ty.dds_name(),
            ty.hash,
            qos,
        );
        let declared = (|| -> zenoh::Result<Output> {
            let builder = self.session.declare_publisher(key);
            let matched = Arc::new(Matched::default());
            let (publisher, matching) = if qos == Qos::Latched {
                let p = builder
                    .cache(CacheConfig::default().max_samples(1))
                    .publisher_detection()
                    .wait()?;
                (Pub::Latched(p), false)
            } else {
                let p = builder.congestion_control(CongestionControl::Drop).wait()?;
                let matching = p.matching_status().wait()?.matching();
                matched.now.store(matching, Ordering::SeqCst);
                let tx = self.ch.events_tx.clone();
                let m = matched.clone();
                p.matching_listener()
                    .callback(move |s| {
                        if m.record(s.matching()) {
                            let _ = tx.send(Event::Matching(index));
                        }
                    })
                    .background()
                    .wait()?;
                (Pub::Plain(p), matching)
            };
            let gid = keys::gid(&token);
            let t = self.session.liveliness().declare_token(token).wait()?;
            Ok(Output {
                topic: Arc::from(ros),
                ros: ros.to_string(),
                ty,
                publisher,
                _token: t,
                gid,
                seq: 0,
                size: 0,
                matching,
                matched,
                sub: None,
                sent: 0,
                lost: 0,
                mistyped: false,
            })
        })();
        declared
            .map_err(|e| tracing::warn!("cannot publish `{ros}` on Zenoh: {e}"))
            .ok()
    }

    /// Subscribes to every type of a topic the simulation listens to; an `MS` token of `ty`
    /// (reliable, keep last 10) announces it when the type is known.
    fn input(&mut self, topic: String, ty: Option<&'static RosType>) {
        let Some(ros) = self.ros_name(&topic) else {
            return;
        };
        let key = keys::any_type_key(self.node.domain, &ros);
        let requests = self.ch.requests.clone();
        let warn = Warner::new(&topic);
        let t = topic.clone();
        let sub = self
            .session
            .declare_subscriber(key)
            .callback(move |sample| {
                let bytes = sample.payload();
                if bytes.len() > MAX_INBOUND_BYTES {
                    warn.warn(|| format!("{t}: dropped a {} byte message from Zenoh (at most {MAX_INBOUND_BYTES})", bytes.len()));
                    return;
                }
                let ke = sample.key_expr().as_str();
                let Some(ty) = keys::type_of_key(ke) else {
                    warn.warn(|| format!("{t}: dropped a message of a type simcore does not read ({ke})"));
                    return;
                };
                match ros::decode(ty.name, &bytes.to_bytes()) {
                    Ok(p) => {
                        if requests.try_send(Request::Publish(t.clone(), p)).is_err() {
                            warn.warn(|| format!("{t}: dropped an inbound message (the simulation is {INBOUND_QUEUE} behind)"));
                        }
                    }
                    Err(e) => warn.warn(|| format!("{t}: dropped an undecodable {} from Zenoh: {e}", ty.name)),
                }
            })
            .wait();
        let sub = match sub {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("cannot subscribe to `{ros}` on Zenoh: {e}");
                return;
            }
        };
        let token = ty.map(|ty| {
            let eid = self.next_eid;
            self.next_eid += 1;
            let token = self.node.endpoint_token(
                eid,
                EndpointKind::Subscription,
                &ros,
                &ty.dds_name(),
                ty.hash,
                Qos::Reliable,
            );
            self.session.liveliness().declare_token(token).wait().ok()
        });
        self.inputs.push((sub, token.flatten()));
    }

    /// A queryable and an `SS` token for `service`.
    fn serve_service(&mut self, service: Service) -> zenoh::Result<()> {
        let ty = service.ros_type();
        let ros = service.ros_name();
        let dds = service.dds_name();
        let key = keys::data_key(self.node.domain, ros, &dds, ty.hash);
        let eid = self.next_eid;
        self.next_eid += 1;
        let token = self.node.endpoint_token(
            eid,
            EndpointKind::Service,
            ros,
            &dds,
            ty.hash,
            Qos::Reliable,
        );
        let tx = self.ch.calls_tx.clone();
        let q = self
            .session
            .declare_queryable(key)
            .complete(true)
            .callback(move |q| {
                if let Err(TrySendError::Full((_, q))) = tx.try_send((service, q)) {
                    let _ = q
                        .reply_err(format!(
                            "simcore is busy: {CALL_QUEUE} calls wait to be read; call again"
                        ))
                        .wait();
                }
            })
            .wait()?;
        let t = self.session.liveliness().declare_token(token).wait()?;
        self.services.push((q, t));
        Ok(())
    }

    /// Reads a service call and hands it to the simulation thread.
    fn query(&mut self, service: Service, query: Query) {
        let (seq, gid) = query
            .attachment()
            .and_then(|a| keys::parse_attachment(&a.to_bytes()))
            .unwrap_or((0, [0; 16]));
        let request = match query.payload() {
            Some(p) if p.len() > MAX_INBOUND_BYTES => Err("too large".to_string()),
            Some(p) => service.decode(&p.to_bytes()),
            None => Err("no payload".to_string()),
        };
        let control = match request {
            Ok(c) => c,
            Err(e) => {
                // A client can send bad calls without end: one warning per service and
                // interval, with the count of those held back.
                let name = service.ros_name();
                if let Some(held) = self.refused_calls.entry(name).or_default().allow() {
                    tracing::warn!(
                        "{name} ({}): refused a call: {e}{}",
                        service.ros_type().name,
                        held_note(held)
                    );
                }
                let _ = query.reply_err(format!("bad request: {e}")).wait();
                return;
            }
        };
        let id = self.next_call;
        self.next_call += 1;
        if self
            .ch
            .requests
            .try_send(Request::Control(id, control))
            .is_err()
        {
            let _ = query.reply_err("the simulation is too far behind").wait();
            return;
        }
        self.calls.insert(
            id,
            Call {
                service,
                query,
                seq,
                gid,
            },
        );
    }

    /// Publishes the outputs' queued messages; whether there were any.
    fn publish_pending(&mut self) -> bool {
        let mut took = false;
        for o in &mut self.outputs {
            let Some(sub) = &o.sub else { continue };
            if !sub.has_pending() {
                continue;
            }
            took = true;
            for env in sub.drain() {
                let mut b = Vec::with_capacity(o.size);
                let options = self.topic_options.of(&o.topic);
                match ros::encode_with(&env.message, &options, &mut b) {
                    Some(t) if t == o.ty => {
                        o.size = b.len();
                        o.put(b);
                    }
                    _ => {
                        if !o.mistyped {
                            tracing::warn!(
                                "{}: a message not of type {}; such messages are not published",
                                o.topic,
                                o.ty.name
                            );
                            o.mistyped = true;
                        }
                    }
                }
            }
        }
        took
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

/// Replies to a call on its own key, with the attachment rmw_zenoh's clients expect (the
/// request's sequence number and GID, a fresh timestamp).
fn reply_to(call: Call, reply: &Reply) {
    let a = keys::attachment(call.seq, keys::wall_clock_ns(), &call.gid);
    let key = call.query.key_expr().clone();
    if let Err(e) = call
        .query
        .reply(key, reply.encode(call.service))
        .attachment(a.to_vec())
        .wait()
    {
        tracing::debug!("{}: reply not sent: {e}", call.service.ros_type().name);
    }
}

/// Warnings about what arrives on one topic from Zenoh, from the session's threads: the
/// first, then at most one per [`WARNING_INTERVAL`] with the count of those held back; those
/// still held back when it is dropped are counted in one last line.
struct Warner {
    topic: String,
    throttle: Mutex<Throttle>,
}

impl Warner {
    fn new(topic: &str) -> Warner {
        Warner {
            topic: topic.to_string(),
            throttle: Mutex::new(Throttle::default()),
        }
    }

    fn warn(&self, message: impl FnOnce() -> String) {
        let Ok(mut t) = self.throttle.lock() else {
            return;
        };
        if let Some(held) = t.allow() {
            tracing::warn!("{}{}", message(), held_note(held));
        }
    }
}

impl Drop for Warner {
    fn drop(&mut self) {
        let held = self.throttle.get_mut().map_or(0, |t| t.held());
        if held > 0 {
            tracing::warn!(
                "{}: {held} more dropped messages from Zenoh were not warned about (one \
                 warning per {} s)",
                self.topic,
                WARNING_INTERVAL.as_secs()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Matched;

    #[test]
    fn clients_coming_and_going_leave_one_event_per_output() {
        let m = Matched::default();
        assert!(m.record(true), "the first news is sent");
        for k in 1..=10_000 {
            assert!(!m.record(k % 2 == 0), "one waits already");
        }
        assert!(m.take(), "the last word: matching");
        assert!(m.record(false), "read: the next news is sent");
        assert!(!m.take());
    }
}
