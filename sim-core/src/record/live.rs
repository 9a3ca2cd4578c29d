//! `--foxglove`: the same channels served live over the Foxglove WebSocket protocol (the
//! `foxglove` crate's server, subprotocol `foxglove.sdk.v1`), with the sim time broadcast so
//! that the app follows it.

use super::writer::{Encoded, Form};
use foxglove::websocket::Capability;
use foxglove::{
    ChannelBuilder, Context, RawChannel, Schema, WebSocketServer, WebSocketServerHandle,
};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

/// The running server and its channels.
pub(super) struct LiveSink {
    context: Arc<Context>,
    server: WebSocketServerHandle,
    channels: HashMap<(Arc<str>, Form), Arc<RawChannel>>,
    last_time: u64,
}

impl LiveSink {
    /// Starts a server on `addr` (port 0: any free port).
    pub fn start(addr: SocketAddr) -> Result<LiveSink, String> {
        let context = Context::new();
        let server = WebSocketServer::new()
            .name(concat!("simcore ", env!("CARGO_PKG_VERSION")))
            .bind(addr.ip().to_string(), addr.port())
            .capabilities([Capability::Time])
            .context(&context)
            .start_blocking()
            .map_err(|e| e.to_string())?;
        Ok(LiveSink {
            context,
            server,
            channels: HashMap::new(),
            last_time: 0,
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
        channel.log_with_meta(e.data, foxglove::PartialMetadata::with_log_time(time));
        if time > self.last_time {
            self.last_time = time;
            self.server.broadcast_time(time);
        }
    }

    /// Stops the server, closing every connection.
    pub fn stop(self) {
        self.server.stop().wait_blocking();
    }
}
