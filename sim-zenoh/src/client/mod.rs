//! The other side of the wire: a Zenoh session that reaches a running simcore (or any ROS 2
//! graph over rmw_zenoh) as a ROS 2 node does, for the live command-line tools (`simcore
//! topic`, `simcore service`, `simcore sim`).
//!
//! A [`Client`] joins the domain as a node of its own (`NN` token) and announces what it
//! does as rmw_zenoh nodes do: an `MS` token while it listens on a topic of known type, an
//! `MP` token for each publisher, an `SC` token while it calls a service. It reads the graph
//! from the liveliness tokens ([`graph`]), receives a topic's samples of any type
//! ([`TopicReader`]: the type is the one the sample's key names), publishes CDR with
//! rmw_zenoh's attachment ([`TopicWriter`]) and calls services with a deadline
//! ([`Client::call`]). Every wait also wakes for the caller's stop flag, so Ctrl-C ends it.
//! [`requests`] writes the `simulation_interfaces` requests from JSON and reads their replies.

pub mod graph;
pub mod requests;

use crate::keys::{self, EndpointKind, Node, Qos};
use crate::options::{DEFAULT_ENDPOINT, ZenohError, message, read_config, set};
use graph::Graph;
use sim_codec::RosType;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use zenoh::Wait;
use zenoh::handlers::{RingChannel, RingChannelHandler};
use zenoh::liveliness::LivelinessToken;
use zenoh::pubsub::{Publisher, Subscriber};
use zenoh::query::{ConsolidationMode, QueryTarget};
use zenoh::sample::Sample;

/// How often a wait looks at the stop flag.
const POLL: Duration = Duration::from_millis(50);

/// The samples a [`TopicReader`] keeps while its reader is busy (the oldest go first).
pub const READER_QUEUE: usize = 1024;

/// The largest reply read from a service (a bigger one is an error).
pub const MAX_REPLY_BYTES: usize = 64 << 20;

/// Where the client's session connects.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientOptions {
    /// Endpoints to connect to (default: [`DEFAULT_ENDPOINT`], where a ROS 2 router or a
    /// simcore run listens).
    pub connect: Vec<String>,
    /// A Zenoh configuration file (JSON5); the endpoints above are added to it.
    pub config_file: Option<PathBuf>,
    /// The ROS domain (`ROS_DOMAIN_ID`).
    pub domain: u32,
    /// The node name the client announces.
    pub node: String,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect: Vec::new(),
            config_file: None,
            domain: 0,
            node: "simcore_cli".into(),
        }
    }
}

impl ClientOptions {
    /// The session's configuration: the file's, else a Zenoh client (it reaches every
    /// endpoint through the router or peer it connects to, as across hosts), connecting to
    /// the endpoints given or to [`DEFAULT_ENDPOINT`].
    pub fn config(&self) -> Result<zenoh::Config, ZenohError> {
        let mut c = match &self.config_file {
            Some(path) => read_config(path)?,
            None => {
                let mut c = zenoh::Config::default();
                set(&mut c, "mode", "\"client\"")?;
                set(&mut c, "scouting/multicast/enabled", "false")?;
                c
            }
        };
        let connect = if self.connect.is_empty() && self.config_file.is_none() {
            vec![DEFAULT_ENDPOINT.to_string()]
        } else {
            self.connect.clone()
        };
        if !connect.is_empty() {
            let list = serde_json::Value::from(connect).to_string();
            set(&mut c, "connect/endpoints", &list)?;
        }
        Ok(c)
    }
}

/// Why a call got no answer.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No reply within the deadline.
    #[error("no reply within {0:.1} s")]
    Timeout(f64),
    /// The query ended without a reply: nothing serves the service there.
    #[error("no server answered")]
    Unanswered,
    /// The caller stopped waiting (its stop flag).
    #[error("stopped before the reply")]
    Stopped,
    /// The server answered with an error.
    #[error("the server refused the call: {0}")]
    Refused(String),
    /// The reply is larger than [`MAX_REPLY_BYTES`].
    #[error("the reply has {0} bytes, more than the {MAX_REPLY_BYTES} read")]
    TooLarge(usize),
    /// Zenoh failed.
    #[error("{0}")]
    Zenoh(String),
}

/// A session in a ROS 2 domain over rmw_zenoh's wire (see the module docs).
pub struct Client {
    session: zenoh::Session,
    node: Node,
    next_eid: u32,
    _token: LivelinessToken,
}

impl Client {
    /// Opens the session and announces the node.
    pub fn open(options: &ClientOptions) -> Result<Client, ZenohError> {
        let config = options.config()?;
        let session = zenoh::open(config)
            .wait()
            .map_err(|e| ZenohError::Open(message(e)))?;
        let node = Node {
            domain: options.domain,
            zid: session.zid().to_string(),
            id: 0,
            name: options.node.clone(),
        };
        let token = session
            .liveliness()
            .declare_token(node.token())
            .wait()
            .map_err(|e| ZenohError::Session(message(e)))?;
        Ok(Client {
            session,
            node,
            next_eid: 1,
            _token: token,
        })
    }

    /// The domain's graph: every endpoint whose token answers within `wait` (less when
    /// `stop` is set).
    pub fn graph(&self, wait: Duration, stop: &AtomicBool) -> Result<Graph, ZenohError> {
        let key = format!("{}/{}/**", keys::GRAPH, self.node.domain);
        let replies = self
            .session
            .liveliness()
            .get(key)
            .timeout(wait)
            .wait()
            .map_err(|e| ZenohError::Session(message(e)))?;
        let mut tokens = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            match replies.recv_timeout(POLL) {
                Ok(Some(reply)) => {
                    if let Ok(sample) = reply.result() {
                        tokens.push(sample.key_expr().as_str().to_string());
                    }
                }
                Ok(None) => {}
                // Every token has answered (the query's timeout ends it).
                Err(_) => break,
            }
        }
        Ok(Graph::from_tokens(tokens.iter().map(String::as_str)))
    }

    fn token(&mut self, kind: EndpointKind, name: &str, dds: &str, hash: &str, qos: Qos) -> String {
        let eid = self.next_eid;
        self.next_eid += 1;
        self.node.endpoint_token(eid, kind, name, dds, hash, qos)
    }

    fn declare_token(&self, token: String) -> Result<LivelinessToken, ZenohError> {
        self.session
            .liveliness()
            .declare_token(token)
            .wait()
            .map_err(|e| ZenohError::Session(message(e)))
    }

    /// Listens to the topic `ros_name`, whatever its type (announced with an `MS` token of
    /// `ty` when given).
    pub fn reader(
        &mut self,
        ros_name: &str,
        ty: Option<&'static RosType>,
    ) -> Result<TopicReader, ZenohError> {
        let token = match ty {
            Some(t) => {
                let token = self.token(
                    EndpointKind::Subscription,
                    ros_name,
                    &t.dds_name(),
                    t.hash,
                    Qos::SensorData,
                );
                Some(self.declare_token(token)?)
            }
            None => None,
        };
        let sub = self
            .session
            .declare_subscriber(keys::any_type_key(self.node.domain, ros_name))
            .with(RingChannel::new(READER_QUEUE))
            .wait()
            .map_err(|e| ZenohError::Session(message(e)))?;
        Ok(TopicReader { sub, _token: token })
    }

    /// A publisher of `ty` on `ros_name` (reliable, keep last 10; an `MP` token).
    pub fn writer(
        &mut self,
        ros_name: &str,
        ty: &'static RosType,
    ) -> Result<TopicWriter, ZenohError> {
        let token = self.token(
            EndpointKind::Publisher,
            ros_name,
            &ty.dds_name(),
            ty.hash,
            Qos::Reliable,
        );
        let gid = keys::gid(&token);
        let publisher = self
            .session
            .declare_publisher(keys::topic_key(self.node.domain, ros_name, ty))
            .wait()
            .map_err(|e| ZenohError::Session(message(e)))?;
        let token = self.declare_token(token)?;
        Ok(TopicWriter {
            publisher,
            gid,
            sequence: 0,
            _token: token,
        })
    }

    /// Calls the service `name` of type `ty` (`dds` its DDS name) with the CDR `request` and
    /// returns the CDR reply; waits at most `timeout`, or until `stop` is set.
    pub fn call(
        &mut self,
        name: &str,
        ty: &RosType,
        dds: &str,
        request: Vec<u8>,
        timeout: Duration,
        stop: &AtomicBool,
    ) -> Result<Vec<u8>, CallError> {
        let token = self.token(EndpointKind::Client, name, dds, ty.hash, Qos::Reliable);
        let gid = keys::gid(&token);
        let _token = self
            .declare_token(token)
            .map_err(|e| CallError::Zenoh(e.to_string()))?;
        let attachment = keys::attachment(1, keys::wall_clock_ns(), &gid).to_vec();
        let key = keys::data_key(self.node.domain, name, dds, ty.hash);
        self.query(key, Some(request), Some(attachment), timeout, stop)
    }

    /// Calls the world service `name` (a system plugin's, a sensor's `set_rate`: what
    /// `simcore run --call` calls) with its request as `--call`'s JSON; the reply's JSON.
    pub fn call_world(
        &self,
        name: &str,
        request: &serde_json::Value,
        timeout: Duration,
        stop: &AtomicBool,
    ) -> Result<serde_json::Value, CallError> {
        let key = keys::world_call_key(self.node.domain, name);
        let reply = self.query(
            key,
            Some(request.to_string().into_bytes()),
            None,
            timeout,
            stop,
        )?;
        serde_json::from_slice(&reply)
            .map_err(|e| CallError::Zenoh(format!("a reply not JSON: {e}")))
    }

    /// The names of the world's services (see [`Client::call_world`]); `None` when no
    /// simcore answers.
    pub fn world_services(
        &self,
        timeout: Duration,
        stop: &AtomicBool,
    ) -> Result<Option<Vec<String>>, CallError> {
        let key = keys::world_services_key(self.node.domain);
        match self.query(key, None, None, timeout, stop) {
            Ok(reply) => serde_json::from_slice(&reply)
                .map(Some)
                .map_err(|e| CallError::Zenoh(format!("a reply not a list of names: {e}"))),
            Err(CallError::Unanswered | CallError::Timeout(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Queries `key` and returns the first reply's payload.
    fn query(
        &self,
        key: String,
        payload: Option<Vec<u8>>,
        attachment: Option<Vec<u8>>,
        timeout: Duration,
        stop: &AtomicBool,
    ) -> Result<Vec<u8>, CallError> {
        let mut get = self
            .session
            .get(key)
            .target(QueryTarget::AllComplete)
            .consolidation(ConsolidationMode::None)
            .timeout(timeout);
        if let Some(p) = payload {
            get = get.payload(p);
        }
        if let Some(a) = attachment {
            get = get.attachment(a);
        }
        let replies = get.wait().map_err(|e| CallError::Zenoh(message(e)))?;
        let deadline = Instant::now() + timeout;
        loop {
            if stop.load(Ordering::Relaxed) {
                return Err(CallError::Stopped);
            }
            if Instant::now() >= deadline {
                return Err(CallError::Timeout(timeout.as_secs_f64()));
            }
            match replies.recv_timeout(POLL) {
                Ok(Some(reply)) => {
                    return match reply.result() {
                        Ok(sample) if sample.payload().len() > MAX_REPLY_BYTES => {
                            Err(CallError::TooLarge(sample.payload().len()))
                        }
                        Ok(sample) => Ok(sample.payload().to_bytes().into_owned()),
                        Err(e) => Err(CallError::Refused(
                            e.payload()
                                .try_to_string()
                                .map(|s| s.into_owned())
                                .unwrap_or_else(|_| "(an error that is not text)".into()),
                        )),
                    };
                }
                Ok(None) => {}
                // The query ended without a reply: before the deadline, nothing serves it.
                Err(_) if Instant::now() + POLL < deadline => return Err(CallError::Unanswered),
                Err(_) => return Err(CallError::Timeout(timeout.as_secs_f64())),
            }
        }
    }
}

/// A topic's samples, whatever their type (see [`Client::reader`]).
pub struct TopicReader {
    sub: Subscriber<RingChannelHandler<Sample>>,
    _token: Option<LivelinessToken>,
}

/// One sample read from a topic.
#[derive(Clone, Debug)]
pub struct Received {
    /// Its data key.
    pub key: String,
    /// The type its key names, if simcore knows it.
    pub ty: Option<&'static RosType>,
    /// Its CDR bytes.
    pub bytes: Vec<u8>,
}

impl TopicReader {
    /// The next sample, waiting at most `wait` (`None` when none came).
    pub fn next(&self, wait: Duration) -> Option<Received> {
        let sample = self.sub.recv_timeout(wait).ok().flatten()?;
        let key = sample.key_expr().as_str().to_string();
        Some(Received {
            ty: keys::type_of_key(&key),
            bytes: sample.payload().to_bytes().into_owned(),
            key,
        })
    }
}

/// A publisher of one topic and type (see [`Client::writer`]).
pub struct TopicWriter {
    publisher: Publisher<'static>,
    gid: [u8; 16],
    sequence: i64,
    _token: LivelinessToken,
}

impl TopicWriter {
    /// Publishes CDR bytes with rmw_zenoh's attachment.
    pub fn put(&mut self, bytes: Vec<u8>) -> Result<(), ZenohError> {
        self.sequence += 1;
        let a = keys::attachment(self.sequence, keys::wall_clock_ns(), &self.gid);
        self.publisher
            .put(bytes)
            .attachment(a.to_vec())
            .wait()
            .map_err(|e| ZenohError::Session(message(e)))
    }

    /// Waits until a subscriber matches, at most `wait` or until `stop` is set; whether one
    /// does.
    pub fn wait_for_subscriber(&self, wait: Duration, stop: &AtomicBool) -> bool {
        let deadline = Instant::now() + wait;
        loop {
            if self
                .publisher
                .matching_status()
                .wait()
                .is_ok_and(|s| s.matching())
            {
                return true;
            }
            if stop.load(Ordering::Relaxed) || Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(POLL);
        }
    }
}
