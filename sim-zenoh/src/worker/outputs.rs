//! The Zenoh thread's outputs: the publishers of the run's topics, `/clock`, `/tf` and
//! `/tf_static`, whether someone listens to each (Zenoh's matching status), and what the
//! bus hands over, encoded and published.

use super::{Event, TF_MESSAGE_FRAMES, TF_QUEUE, Worker};
use crate::keys::{self, EndpointKind, Qos};
use sim_codec::{self as ros, RosType};
use sim_transport::{Envelope, Subscription};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use zenoh::Wait;
use zenoh::liveliness::LivelinessToken;
use zenoh::pubsub::Publisher;
use zenoh::qos::CongestionControl;
use zenoh_ext::{AdvancedPublisher, AdvancedPublisherBuilderExt, CacheConfig};

/// Whether someone outside listens to an output, as Zenoh's matching listener last said,
/// and whether an [`Event::Matching`] about it waits to be read.
#[derive(Default)]
pub(super) struct Matched {
    now: AtomicBool,
    pending: AtomicBool,
}

impl Matched {
    /// Records what the listener says; whether an event must be sent (none waits).
    pub(super) fn record(&self, matching: bool) -> bool {
        self.now.store(matching, Ordering::SeqCst);
        !self.pending.swap(true, Ordering::SeqCst)
    }

    /// How it stands now, the waiting event read (cleared before the state is read: a
    /// change after the read sends another).
    pub(super) fn take(&self) -> bool {
        self.pending.store(false, Ordering::SeqCst);
        self.now.load(Ordering::SeqCst)
    }
}

pub(super) struct Output {
    pub(super) topic: Arc<str>,
    pub(super) ros: String,
    pub(super) ty: &'static RosType,
    publisher: Pub,
    pub(super) _token: LivelinessToken,
    pub(super) gid: [u8; 16],
    pub(super) seq: i64,
    /// The size of the last message encoded (the next one's buffer is made that large).
    pub(super) size: usize,
    pub(super) matching: bool,
    /// What the matching listener last said (plain publishers).
    pub(super) matched: Arc<Matched>,
    pub(super) sub: Option<Subscription>,
    pub(super) sent: u64,
    pub(super) lost: u64,
    pub(super) mistyped: bool,
}

impl Output {
    /// Publishes `bytes`; whether Zenoh took them.
    pub(super) fn put(&mut self, bytes: Vec<u8>) -> bool {
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

    pub(super) fn release(&mut self) {
        if let Some(s) = self.sub.take() {
            self.lost += s.dropped();
        }
    }
}

/// How a topic is published.
pub(super) enum Pub {
    /// A plain publisher (volatile).
    Plain(Publisher<'static>),
    /// A latched topic: its last sample stays in the publisher's cache, where subscribers
    /// that join later fetch it (rmw_zenoh's TRANSIENT_LOCAL: a zenoh-ext AdvancedPublisher
    /// with a cache of depth 1 and publisher detection).
    Latched(AdvancedPublisher<'static>),
}

impl Worker {
    /// Publishes the `/tf` steps waiting when it starts as one message: every step's
    /// transforms in step order, each with its own step's stamp; a message holds at most
    /// [`TF_QUEUE`] steps and [`TF_MESSAGE_FRAMES`] transforms (a larger step alone), more
    /// go in several.
    pub(super) fn flush_tf(&mut self) -> bool {
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
    pub(super) fn put_tf(&mut self, steps: &[ros::Moved], frames: usize) {
        if let Some(o) = self.tf.as_mut().filter(|o| o.matching) {
            let mut b = Vec::with_capacity(64 + 96 * frames);
            ros::Moved::encode_steps(steps, &mut b);
            if o.put(b) {
                self.tf_steps += steps.len() as u64;
            }
        }
    }

    /// Declares the publisher of a topic whose first message is `first`, if its payload has
    /// a ROS 2 form; when someone already listens, `first` and what `sub` holds since are
    /// published.
    pub(super) fn output(&mut self, first: &Envelope, sub: Subscription) {
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
    pub(super) fn declare(
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

    /// Publishes the outputs' queued messages; whether there were any.
    pub(super) fn publish_pending(&mut self) -> bool {
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
