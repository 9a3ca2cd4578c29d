//! The Zenoh thread's services: the simulation_interfaces queryables, each call read and
//! handed to the simulation thread, and the reply sent back with rmw_zenoh's attachment.

use super::{CALL_QUEUE, MAX_INBOUND_BYTES, Request, Worker};
use crate::control::{Reply, Service};
use crate::keys::{self, EndpointKind, Qos};
use crossbeam_channel::TrySendError;
use sim_engine::guard::held_note;
use zenoh::Wait;
use zenoh::query::Query;

/// A service call waiting for the simulation's reply.
pub(super) struct Call {
    pub(super) service: Service,
    pub(super) query: Query,
    pub(super) seq: i64,
    pub(super) gid: [u8; 16],
}

/// Replies to a call on its own key, with the attachment rmw_zenoh's clients expect (the
/// request's sequence number and GID, a fresh timestamp).
pub(super) fn reply_to(call: Call, reply: &Reply) {
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

impl Worker {
    /// A queryable and an `SS` token for `service`.
    pub(super) fn serve_service(&mut self, service: Service) -> zenoh::Result<()> {
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
    pub(super) fn query(&mut self, service: Service, query: Query) {
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
}
