//! The Zenoh thread's services: the simulation_interfaces queryables, each call read and
//! handed to the simulation thread, and the reply sent back with rmw_zenoh's attachment.

use super::{CALL_QUEUE, MAX_INBOUND_BYTES, Request, Worker};
use crate::control::{Reply, Service};
use crate::keys::{self, EndpointKind, Qos};
use crossbeam_channel::TrySendError;
use sim_engine::guard::held_note;
use zenoh::Wait;
use zenoh::query::{Query, Queryable};

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
        let q = self.call_queryable(key, Some(service))?;
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

impl Worker {
    /// A complete queryable on `key` (it answers every key it matches: clients ask complete
    /// queryables) that hands each call to the Zenoh thread, tagged with the
    /// simulation_interfaces `service` it is (`None`: a world service), and answers "busy" at
    /// once when [`CALL_QUEUE`] calls wait already.
    fn call_queryable(
        &self,
        key: String,
        service: Option<Service>,
    ) -> zenoh::Result<Queryable<()>> {
        let tx = self.ch.calls_tx.clone();
        self.session
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
            .wait()
    }

    /// The queryables of the world's services, in simcore's own key space
    /// ([`keys::world_call_key`], [`keys::world_services_key`]): calls carry the request as
    /// `--call`'s JSON and are answered with the reply's; a call refused, with its reason.
    pub(super) fn serve_world_services(&mut self) -> zenoh::Result<Vec<Queryable<()>>> {
        let mut out = Vec::new();
        for key in [
            format!("{}/{}/call/**", keys::SIMCORE, self.node.domain),
            keys::world_services_key(self.node.domain),
        ] {
            out.push(self.call_queryable(key, None)?);
        }
        Ok(out)
    }

    /// Reads a call of a world service (or the request for their list) and hands it to the
    /// simulation thread.
    pub(super) fn world_query(&mut self, query: Query) {
        let key = query.key_expr().as_str().to_string();
        let id = self.next_call;
        let request = if key == keys::world_services_key(self.node.domain) {
            Ok(Request::WorldServices(id))
        } else {
            let prefix = format!("{}/{}/call/", keys::SIMCORE, self.node.domain);
            let name = format!("/{}", key.strip_prefix(&prefix).unwrap_or(&key));
            world_request(&query).map(|m| Request::WorldCall(id, name, Box::new(m)))
        };
        let request = match request {
            Ok(r) => r,
            Err(e) => {
                let _ = query.reply_err(e).wait();
                return;
            }
        };
        self.next_call += 1;
        if self.ch.requests.try_send(request).is_err() {
            let _ = query.reply_err("the simulation is too far behind").wait();
            return;
        }
        self.world_calls.insert(id, query);
    }
}

/// The message of a world service call: the query's payload, `--call`'s JSON.
fn world_request(query: &Query) -> Result<sim_plugin_api::Message, String> {
    let Some(p) = query.payload() else {
        return Err(
            "bad request: no payload (the request as JSON, e.g. {\"type\": \"Empty\"})".into(),
        );
    };
    if p.len() > MAX_INBOUND_BYTES {
        return Err(format!(
            "bad request: {} bytes, more than the {MAX_INBOUND_BYTES} taken",
            p.len()
        ));
    }
    let value: serde_json::Value =
        serde_json::from_slice(&p.to_bytes()).map_err(|e| format!("bad request: not JSON: {e}"))?;
    let payload =
        sim_codec::json::payload_from_json(&value).map_err(|e| format!("bad request: {e}"))?;
    Ok(sim_plugin_api::Message::new("", payload))
}

/// Answers a world service call with the simulation's reply.
pub(super) fn world_reply(query: Query, reply: Result<String, String>) {
    let key = query.key_expr().clone();
    let sent = match reply {
        Ok(json) => query.reply(key, json).wait(),
        Err(e) => query.reply_err(e).wait(),
    };
    if let Err(e) = sent {
        tracing::debug!("a world service reply was not sent: {e}");
    }
}
