//! The Zenoh thread's inputs: a subscriber for each topic the simulation listens to,
//! whatever type a client sends, each sample decoded and handed to the simulation thread;
//! what is dropped, warned about at a bounded rate.

use super::{INBOUND_QUEUE, MAX_INBOUND_BYTES, Request, Worker};
use crate::keys::{self, EndpointKind, Qos};
use sim_codec::{self as ros, RosType};
use sim_engine::guard::{Throttle, WARNING_INTERVAL, held_note};
use std::sync::Mutex;
use zenoh::Wait;

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

impl Worker {
    /// Subscribes to every type of a topic the simulation listens to; an `MS` token of `ty`
    /// (reliable, keep last 10) announces it when the type is known.
    pub(super) fn input(&mut self, topic: String, ty: Option<&'static RosType>) {
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
}
