//! `--foxglove`: the same channels served live over the Foxglove WebSocket protocol (the
//! `foxglove` crate's server, subprotocol `foxglove.sdk.v1`), with the sim time broadcast so
//! that the app follows it, and the run control offered to its clients as services
//! ([`control`]).
//!
//! A client costs only its own messages: each has a bounded queue that drops its oldest
//! messages when the client reads too slowly ([`CLIENT_BACKLOG`]), what all the queues can
//! hold is bounded in bytes ([`admission`]), and stopping leaves the queues [`STOP_GRACE`] to be
//! sent (a quit's answer among them), then waits at most [`STOP_DEADLINE`] for the clients to
//! take their close frame before their connections are dropped, so a client
//! that stopped reading can neither slow the run, nor hold its end, nor take its memory.

mod admission;
pub mod control;

use super::encoded::{Encoded, Form};
use admission::Admission;
use foxglove::websocket::Capability;
use foxglove::websocket::service::Service;
use foxglove::{
    ChannelBuilder, Context, RawChannel, Schema, WebSocketServer, WebSocketServerHandle,
};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The messages queued for one client (and, apart, its control messages) before the oldest
/// are dropped for that client (a client whose control queue fills is disconnected).
const CLIENT_BACKLOG: usize = 256;

/// What the live clients' queues may hold, all together, unless the run says otherwise
/// (`--foxglove-memory`).
pub const DEFAULT_LIVE_MEMORY: u64 = 2 << 30;

/// The sim time is broadcast at most this often (wall time), so that it fills a slow
/// client's control queue slowly: its queue holds [`CLIENT_BACKLOG`] of them, 2.5 s.
const TIME_PERIOD: Duration = Duration::from_millis(10);

/// How long stopping waits for the clients' connections to close: a client that stopped
/// reading never takes its close frame, and its connection is then dropped.
const STOP_DEADLINE: Duration = Duration::from_secs(2);

/// How long a stop leaves connected clients' queues to be sent before closing them: the
/// server drops what is still queued when it stops (the answer to a quit among it), and it
/// has no signal for a queue sent.
const STOP_GRACE: Duration = Duration::from_millis(250);

/// The running server and its channels.
pub(super) struct LiveSink {
    context: Arc<Context>,
    server: WebSocketServerHandle,
    channels: HashMap<(Arc<str>, Form), Arc<RawChannel>>,
    admission: Arc<Admission>,
    last_time: u64,
    last_broadcast: Option<Instant>,
}

impl LiveSink {
    /// Starts a server on `addr` (port 0: any free port) whose clients' queues hold at most
    /// `memory` bytes together (0: [`DEFAULT_LIVE_MEMORY`]), offering `services` (the run
    /// control, [`control`]; none: a view only).
    pub fn start(
        addr: SocketAddr,
        memory: u64,
        services: Vec<Service>,
    ) -> Result<LiveSink, String> {
        let context = Context::new();
        let memory = if memory == 0 {
            DEFAULT_LIVE_MEMORY
        } else {
            memory
        };
        let admission = Arc::new(Admission::new(
            Arc::downgrade(&context),
            memory,
            CLIENT_BACKLOG,
        ));
        let server = WebSocketServer::new()
            .name(concat!("simcore ", env!("CARGO_PKG_VERSION")))
            .bind(addr.ip().to_string(), addr.port())
            .capabilities([Capability::Time])
            .message_backlog_size(CLIENT_BACKLOG)
            .listener(admission.clone())
            .context(&context)
            .services(services)
            .start_blocking()
            .map_err(|e| e.to_string())?;
        Ok(LiveSink {
            context,
            server,
            channels: HashMap::new(),
            admission,
            last_time: 0,
            last_broadcast: None,
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.server.port()
    }

    /// Sends one message to the clients subscribed to its channel, and the sim time when it
    /// advanced.
    pub fn log(&mut self, e: &Encoded<'_>) {
        let key = (e.topic.clone(), e.form.clone());
        let channel = match self.channels.get(&key) {
            Some(c) => c.clone(),
            None => {
                let (name, schema_encoding, text, encoding) = e.schema();
                let built = ChannelBuilder::new(&*e.topic)
                    .message_encoding(encoding)
                    .schema(Schema::new(name, schema_encoding, text))
                    .metadata(e.channel_metadata())
                    .context(&self.context)
                    .build_raw();
                match built {
                    Ok(c) => {
                        self.channels.insert(key, c.clone());
                        c
                    }
                    Err(err) => {
                        tracing::warn!("live channel {} not served: {err}", e.topic);
                        return;
                    }
                }
            }
        };
        let time = e.time();
        self.admission.book(channel.id(), &e.topic, e.data.len());
        channel.log_with_meta(e.data, foxglove::PartialMetadata::with_log_time(time));
        let due = self
            .last_broadcast
            .is_none_or(|t| t.elapsed() >= TIME_PERIOD);
        if time > self.last_time && due {
            self.last_time = time;
            self.last_broadcast = Some(Instant::now());
            self.server.broadcast_time(time);
        }
    }

    /// Stops the server, closing every connection after [`STOP_GRACE`] for what their queues
    /// hold: the clients that have not closed theirs within [`STOP_DEADLINE`] (a client that
    /// stopped reading) are dropped.
    pub fn stop(self) {
        if self.server.client_count() > 0 {
            std::thread::sleep(STOP_GRACE);
        }
        let handle = self.server.stop();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build();
        // Dropping the handle aborts the connections still open.
        let Ok(runtime) = runtime else { return };
        // The timer is made inside the runtime (made outside, it finds no runtime and panics).
        let waited =
            runtime.block_on(async { tokio::time::timeout(STOP_DEADLINE, handle.wait()).await });
        if waited.is_err() {
            tracing::warn!(
                "Foxglove clients that did not close within {} s were dropped",
                STOP_DEADLINE.as_secs()
            );
        }
    }
}
