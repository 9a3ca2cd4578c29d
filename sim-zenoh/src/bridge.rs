//! The simulation thread's side of the transport: a small object called once per step that
//! hands bus subscriptions to the Zenoh thread and publishes what it receives.

use super::control::{Control, FEATURES, Reply, result, scope, state};
use super::options::{ZenohError, ZenohOptions};
use super::serve;
use super::worker::{
    self, Event, INBOUND_QUEUE, Request, Shared, TF_QUEUE, TF_QUEUE_FRAMES, TopicReport,
};
use crossbeam_channel::{Receiver, Sender, TrySendError, bounded, unbounded};
use sim_codec::Moved;
use sim_engine::runner::MovedFrames;
use sim_engine::runner::{ControlError, ResetDone, ResetScope, RunState, Simulation};
use sim_plugin_api::{Message, SimTime};
use sim_transport::Subscription;
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Queue of a bus subscription the Zenoh thread reads (messages; the oldest are dropped and
/// counted when it falls behind).
pub const QUEUE: usize = 64;

/// How often (wall time) the world's topics are looked at again for new ones (spawned
/// models).
const RESCAN: Duration = Duration::from_millis(500);

/// Messages waiting for the Zenoh thread that wake it sooner than [`WAKE_EVERY`](super::WAKE_EVERY) (a quarter
/// of a subscription's [`QUEUE`], so a fast run does not fill the queues in between).
/// `/tf`'s steps do not count toward it: they go out together, one message for all those
/// waiting, and wake the thread by [`TF_WAKE_AFTER`] (or half of [`TF_QUEUE_FRAMES`]).
pub const WAKE_AFTER: usize = QUEUE / 4;

/// Steps of `/tf` waiting for the Zenoh thread that wake it sooner than [`WAKE_EVERY`](super::WAKE_EVERY):
/// half of the steps that can wait for it, so that a run faster than that many steps per
/// 0.5 ms loses none while the thread gets the CPU within as many steps.
pub const TF_WAKE_AFTER: usize = TF_QUEUE / 2;

/// `/clock` ticks that can wait for the Zenoh thread.
const CLOCK_QUEUE: usize = 1024;

/// The transport of a run: a Zenoh session on its own thread that makes the run's topics
/// reachable in ROS 2's wire format (see the [module docs](super)).
///
/// Call [`Bridge::after_step`] after every step, once before the first, and while the run
/// waits paused: it takes the Zenoh thread's requests (subscribe to a topic someone outside
/// listens to, publish an inbound message, a control call, translated to the engine's run
/// control) and never waits. Each request queued wakes a paused run
/// ([`Simulation::waker`]): StepSimulation lets exactly its steps run, and its reply goes out
/// after everything they published.
pub struct Bridge {
    events: Sender<Event>,
    wake: Sender<()>,
    clocks: Sender<SimTime>,
    frames: Sender<Moved>,
    requests: Receiver<Request>,
    shared: Arc<Shared>,
    /// Counts the messages the bus queues for the Zenoh thread's subscriptions (the Zenoh
    /// thread sets it back to 0 when it takes them).
    queued: Arc<AtomicUsize>,
    probes: Vec<Subscription>,
    known: HashSet<String>,
    last_scan: Instant,
    clock_period: i64,
    next_clock: i64,
    /// The engine's model revision `/tf_static` was last sent for (None: send it).
    frames_at: Option<u64>,
    /// The frames `/tf` has sent (while someone listens there).
    tf: Option<MovedFrames>,
    /// The sim time of the last `/clock` (None: none since the world started).
    last_clock: Option<i64>,
    /// The StepSimulation whose steps are being taken.
    step_call: Option<u64>,
    thread: Option<JoinHandle<Vec<TopicReport>>>,
}

/// How much waits in the Zenoh thread's queues ([`Bridge::after_step`] wakes it for
/// [`Waiting::Many`], and for [`Waiting::Some`] when it sleeps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Waiting {
    None,
    Some,
    Many,
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
        let (events_tx, events) = unbounded();
        let (calls_tx, calls) = bounded(worker::CALL_QUEUE);
        let (wake_tx, wake) = bounded(1);
        let (clocks_tx, clocks) = bounded(CLOCK_QUEUE);
        let (frames_tx, frames) = bounded(TF_QUEUE);
        let (requests_tx, requests) = bounded(INBOUND_QUEUE);
        let shared = Arc::new(Shared::default());
        let queued = Arc::new(AtomicUsize::new(0));
        let (opened_tx, opened) = bounded(1);
        let channels = worker::Channels {
            events,
            events_tx: events_tx.clone(),
            calls,
            calls_tx,
            wake,
            clocks,
            frames,
            requests: worker::Requests {
                tx: requests_tx,
                waker: sim.waker(),
            },
            queued: queued.clone(),
        };
        let (o, s) = (options.clone(), shared.clone());
        let topic_options = sim.topic_options();
        let thread = std::thread::Builder::new()
            .name("simcore-zenoh".into())
            .spawn(move || worker::run(configs, o, topic_options, s, channels, opened_tx))
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
            frames: frames_tx,
            requests,
            shared,
            queued,
            probes: Vec::new(),
            known: HashSet::new(),
            last_scan: Instant::now(),
            clock_period,
            next_clock: 0,
            frames_at: None,
            tf: None,
            last_clock: None,
            step_call: None,
            thread: Some(thread),
        };
        b.scan(sim);
        Ok(b)
    }

    /// Serves the Zenoh thread's requests and hands over what this step produced: call it
    /// after every step, once before the first, and while the run waits paused
    /// ([`Simulation::run_with`]'s hook); it never waits. A StepSimulation's reply goes out
    /// after everything its steps published, with `/clock` at the time they reached.
    pub fn after_step(&mut self, sim: &mut Simulation) {
        self.serve_and_hand_over(sim, true);
    }

    /// Serves the Zenoh thread's requests while the run waits paused (nothing was stepped:
    /// no `/clock` or `/tf` is handed over).
    pub fn while_paused(&mut self, sim: &mut Simulation) {
        self.serve_and_hand_over(sim, false);
    }

    fn serve_and_hand_over(&mut self, sim: &mut Simulation, stepped: bool) {
        // The reply of a StepSimulation whose last step was just taken (before the requests
        // below: one of them may grant steps again).
        let finished = if stepped && sim.control().grant_finished() {
            self.step_call.take()
        } else {
            None
        };
        while let Ok(r) = self.requests.try_recv() {
            self.serve(r, sim);
        }
        // A run that quits before a StepSimulation's steps are all taken refuses the call.
        if sim.control().quitting()
            && let Some(id) = self.step_call.take()
        {
            let e = ControlError::Quitting;
            let reply = Reply::error(
                state_code(RunState::Quitting),
                control_code(&e),
                e.to_string(),
            );
            let _ = self.events.send(Event::Reply(id, Box::new(reply)));
        }
        if self.last_scan.elapsed() >= RESCAN {
            self.scan(sim);
        }
        if !self.probes.is_empty() {
            let events = &self.events;
            let mut i = 0;
            while i < self.probes.len() {
                match self.probes[i].try_recv() {
                    Some(first) => {
                        let _ = events.send(Event::Output(first, self.probes.swap_remove(i)));
                    }
                    None => i += 1,
                }
            }
        }
        let halted = !sim.control().may_step();
        if stepped {
            // The time a lockstep client waits for: where the steps stopped.
            self.clock(sim.time(), halted);
            let revision = sim.physics().revision();
            if self.frames_at != Some(revision) {
                self.frames_at = Some(revision);
                let frames = sim_engine::runner::sensor_frames(sim, sim.time());
                // The latest set replaces one not taken yet; a notice goes only with the
                // first, so the queue holds at most one however often models change.
                let replaced = match self.shared.static_frames.lock() {
                    Ok(mut slot) => slot.replace(frames).is_some(),
                    Err(_) => true,
                };
                if !replaced {
                    let _ = self.events.send(Event::StaticFrames);
                }
            }
            self.frames(sim);
        }
        let waiting = self.waiting();
        if waiting > Waiting::Some || waiting == Waiting::Some && self.worker_parked() {
            let _ = self.wake.try_send(());
        }
        if let Some(id) = finished {
            let _ = self.events.send(Event::Reply(
                id,
                Box::new(Reply::ok(state_code(sim.control().state()))),
            ));
        }
        if waiting > Waiting::None && halted {
            // The steps stop here: what they handed over goes out now.
            let _ = self.wake.try_send(());
        }
    }

    /// What waits in the Zenoh thread's queues.
    fn waiting(&self) -> Waiting {
        let messages = self.queued.load(Ordering::Relaxed) + self.clocks.len();
        let tf_steps = self.frames.len();
        if messages >= WAKE_AFTER
            || tf_steps >= TF_WAKE_AFTER
            || self.shared.tf_waiting.load(Ordering::Relaxed) >= TF_QUEUE_FRAMES / 2
        {
            Waiting::Many
        } else if messages > 0 || tf_steps > 0 {
            Waiting::Some
        } else {
            Waiting::None
        }
    }

    /// Whether the Zenoh thread sleeps until it is woken (it found its queues empty), seen
    /// after what this step handed over (the thread looks at its queues again after it says
    /// so, so one of the two sees the other).
    fn worker_parked(&self) -> bool {
        std::sync::atomic::fence(Ordering::SeqCst);
        self.shared.parked.load(Ordering::Relaxed)
    }

    fn serve(&mut self, r: Request, sim: &mut Simulation) {
        match r {
            Request::Subscribe(topic) => {
                let sub = sim
                    .bus_mut()
                    .subscribe_counted(&topic, QUEUE, self.queued.clone());
                let _ = self.events.send(Event::Subscribed(sub));
            }
            Request::Publish(topic, payload) => {
                let id = sim.bus_mut().intern(&topic);
                sim.bus_mut().publish(id, Message::new("", payload));
            }
            Request::Control(id, c) => {
                if let Some(reply) = self.control(id, c, sim) {
                    let _ = self.events.send(Event::Reply(id, Box::new(reply)));
                }
            }
            Request::WorldCall(id, name, request) => {
                let reply = sim
                    .call_service(&name, &request)
                    .map(|m| sim_codec::json::message_json(&name, &m).to_string())
                    .map_err(|e| e.to_string());
                let _ = self.events.send(Event::WorldReply(id, reply));
            }
            Request::WorldServices(id) => {
                let list = serde_json::Value::from(sim.services()).to_string();
                let _ = self.events.send(Event::WorldReply(id, Ok(list)));
            }
        }
    }

    /// Translates a control call to the run control ([`sim_engine::runner::RunControl`]) or the engine's entity
    /// requests; its reply, or None when it comes later (a step).
    fn control(&mut self, id: u64, c: Control, sim: &mut Simulation) -> Option<Reply> {
        let now = state_code(sim.control().state());
        let refused = |e: ControlError| Some(Reply::error(now, control_code(&e), e.to_string()));
        match c {
            Control::Features => {
                let mut r = Reply::ok(now);
                r.features = FEATURES.to_vec();
                Some(r)
            }
            Control::GetState => Some(Reply::ok(now)),
            Control::Spawn(s) => Some(serve::spawn(sim, &s, now)),
            Control::Delete(name) => Some(serve::delete(sim, &name, now)),
            Control::Entities(f) => Some(serve::entities(sim, &f, now)),
            Control::GetEntityState(name) => Some(serve::entity_state(sim, &name, now)),
            Control::SetEntityState(name, s, parts) => {
                Some(serve::set_entity_state(sim, &name, &s, parts, now))
            }
            Control::Reset(s) => Some(self.reset(sim, s, now)),
            Control::SetState(s) => {
                let Some(to) = run_state(s) else {
                    return Some(Reply::error(
                        now,
                        result::INCORRECT_TRANSITION,
                        format!("simcore cannot go to state {s}"),
                    ));
                };
                match sim.set_run_state(to) {
                    Ok(()) => {
                        if to == RunState::Stopped {
                            self.started_again();
                        }
                        Some(Reply::ok(s))
                    }
                    Err(e) => refused(e),
                }
            }
            Control::Step(n) => match sim.control_mut().step(n) {
                Ok(true) => Some(Reply::ok(now)),
                Ok(false) => {
                    self.step_call = Some(id);
                    None
                }
                Err(e) => refused(e),
            },
        }
    }

    /// ResetSimulation: every scope at once (DEFAULT, ALL, or TIME, STATE and SPAWNED
    /// together) starts the world again ([`ResetScope::All`]); SPAWNED alone removes the
    /// spawned models; TIME or STATE without the others is not something simcore does.
    fn reset(&mut self, sim: &mut Simulation, s: u8, now: u8) -> Reply {
        let every = scope::TIME | scope::STATE | scope::SPAWNED;
        if s != scope::ALL && s & !every != 0 {
            return Reply::error(
                now,
                result::OPERATION_FAILED,
                format!("scope {s} has bits that are no scope of ResetSimulation"),
            );
        }
        let what = if s == scope::DEFAULT || s & every == every {
            ResetScope::All
        } else if s == scope::SPAWNED {
            ResetScope::Spawned
        } else {
            return Reply::error(
                now,
                result::FEATURE_UNSUPPORTED,
                format!(
                    "simcore resets time and state only together (SCOPE_DEFAULT or SCOPE_ALL), and the spawned models alone (SCOPE_SPAWNED); not scope {s}"
                ),
            );
        };
        match sim.reset_scope(what) {
            Ok(ResetDone::All) => {
                self.started_again();
                Reply::ok(now)
            }
            Ok(ResetDone::Spawned(removed)) => {
                tracing::info!("reset: removed the spawned models {removed:?}");
                Reply::ok(now)
            }
            Err(e) => Reply::error(now, control_code(&e), e.to_string()),
        }
    }

    /// After the world started again: `/clock` from 0, `/tf_static` sent again.
    fn started_again(&mut self) {
        self.next_clock = 0;
        self.last_clock = None;
        self.frames_at = None;
    }

    /// Hands the frames that moved in the last step to `/tf` while someone listens there:
    /// every frame in the first step they listen and after models were added or removed,
    /// then those that moved.
    fn frames(&mut self, sim: &Simulation) {
        if !self.shared.tf_wanted.load(Ordering::Relaxed) {
            self.tf = None;
            return;
        }
        let sent = self.tf.get_or_insert_with(MovedFrames::default);
        let moved = sent.moved(sim.physics(), sim.time());
        if moved.is_empty() {
            return;
        }
        // Counted before it is sent, so that the Zenoh thread's count never runs ahead.
        let len = moved.len();
        let waiting = self.shared.tf_waiting.fetch_add(len, Ordering::Relaxed);
        let handed = if waiting > 0 && waiting + len > TF_QUEUE_FRAMES {
            Err(TrySendError::Full(moved))
        } else {
            self.frames.try_send(moved)
        };
        if let Err(e) = handed {
            self.shared.tf_waiting.fetch_sub(len, Ordering::Relaxed);
            if e.is_full() {
                // The Zenoh thread is behind: this step's frames are not sent (a step
                // where nothing moved loses nothing), and the next step gives every
                // frame.
                sent.clear();
                self.shared.tf_lost.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Publishes `/clock` when someone listens and it is due at `now`, or at once when
    /// `now_too` (the steps stopped there) and `now` was not sent yet.
    fn clock(&mut self, now: SimTime, now_too: bool) {
        if !self.shared.clock_wanted.load(Ordering::Relaxed)
            || (now.nanos < self.next_clock && !now_too)
            || self.last_clock == Some(now.nanos)
        {
            return;
        }
        let _ = self.clocks.try_send(now);
        self.last_clock = Some(now.nanos);
        self.next_clock = if self.clock_period > 0 {
            (now.nanos / self.clock_period + 1).saturating_mul(self.clock_period)
        } else {
            now.nanos.saturating_add(1)
        };
    }

    /// Looks for topics not seen yet: one with a subscriber in the simulation and nothing
    /// published on it yet (a system's command input) is offered for publication from
    /// outside; any other gets a subscription whose first message tells its type, and which
    /// goes to the Zenoh thread with it (kept there while someone outside listens).
    fn scan(&mut self, sim: &mut Simulation) {
        self.last_scan = Instant::now();
        for topic in sim.topics() {
            if !self.known.insert(topic.clone()) {
                continue;
            }
            let stats = sim.bus().stats(&topic);
            if stats.subscribers > 0 && stats.published == 0 {
                let ty = sim
                    .systems()
                    .input_types(&topic)
                    .first()
                    .map(|(_, t)| t.ros);
                let _ = self.events.send(Event::Input(topic, ty));
            } else {
                let probe = sim
                    .bus_mut()
                    .subscribe_counted(&topic, QUEUE, self.queued.clone());
                self.probes.push(probe);
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

/// The `simulation_interfaces` code of a run state.
fn state_code(s: RunState) -> u8 {
    match s {
        RunState::Stopped => state::STOPPED,
        RunState::Playing => state::PLAYING,
        RunState::Paused => state::PAUSED,
        RunState::Quitting => state::QUITTING,
    }
}

/// The run state of a `simulation_interfaces` code, if it is one.
fn run_state(code: u8) -> Option<RunState> {
    Some(match code {
        state::STOPPED => RunState::Stopped,
        state::PLAYING => RunState::Playing,
        state::PAUSED => RunState::Paused,
        state::QUITTING => RunState::Quitting,
        _ => return None,
    })
}

/// The `simulation_interfaces` result code of a refused control request.
fn control_code(e: &ControlError) -> u8 {
    match e {
        ControlError::AlreadyInState(_) => result::ALREADY_IN_TARGET_STATE,
        ControlError::Busy | ControlError::Quitting => result::INCORRECT_STATE,
        ControlError::NotPaused | ControlError::Reset(_) => result::OPERATION_FAILED,
    }
}
