//! The writer thread: receives what the recorder queues, encodes it and writes the MCAP file.

use crate::ros::{self, FrameTransform, Marker, RosType};
use crate::transport::Envelope;
use crossbeam_channel::Receiver;
use mcap::records::MessageHeader;
use sim_plugin_api::{Payload, SimTime};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// One thing to write.
#[derive(Debug)]
pub(super) enum Item {
    /// A message of the bus.
    Bus(Arc<Envelope>),
    /// Transforms on `/tf` (or, `latched`, on `/tf_static`), at `stamp`.
    Tf {
        stamp: SimTime,
        latched: bool,
        transforms: Vec<FrameTransform>,
    },
    /// The scene's markers on `/scene`, at `stamp`.
    Scene {
        stamp: SimTime,
        markers: Vec<Marker>,
    },
    /// `/clock` at this time.
    Clock(SimTime),
}

/// Counters the writer thread updates as it goes, read by the run's progress line.
#[derive(Debug, Default)]
pub(super) struct Counters {
    /// Messages written.
    pub messages: AtomicU64,
    /// Bytes of message data written (before compression).
    pub bytes: AtomicU64,
}

/// QoS of the channels (rosbag2's `offered_qos_profiles`, numeric form): reliable, volatile,
/// keep last 10, default deadline, lifespan and liveliness.
const QOS_DEFAULT: &str = "- history: 1\n  depth: 10\n  reliability: 1\n  durability: 2\n  deadline:\n    sec: 0\n    nsec: 0\n  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 0\n    nsec: 0\n  avoid_ros_namespace_conventions: false\n";

/// QoS of latched channels (`/tf_static`, `/scene`): reliable, transient local, keep last 1.
const QOS_LATCHED: &str = "- history: 1\n  depth: 1\n  reliability: 1\n  durability: 1\n  deadline:\n    sec: 0\n    nsec: 0\n  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 0\n    nsec: 0\n  avoid_ros_namespace_conventions: false\n";

/// How a channel's messages are encoded.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Form {
    /// CDR of a ROS 2 type.
    Ros(&'static str),
    /// A payload with no ROS 2 form, as `--echo`'s JSON (by payload type name).
    Json(&'static str),
    /// A custom payload: its own encoding and schema name.
    Custom { encoding: String, schema: String },
}

/// The open file and the channels created so far.
pub(super) struct Sink {
    writer: mcap::Writer<BufWriter<File>>,
    channels: HashMap<(Arc<str>, Form), u16>,
    schemas: HashMap<String, u16>,
    buf: Vec<u8>,
    latched: Vec<Arc<str>>,
}

impl Sink {
    /// Creates `path` with the ROS 2 profile and writes `metadata` (one record, `simcore`).
    pub fn create(path: &PathBuf, metadata: BTreeMap<String, String>) -> Result<Sink, String> {
        let file = File::create(path).map_err(|e| e.to_string())?;
        let mut writer = mcap::WriteOptions::new()
            .profile("ros2")
            .compression(Some(mcap::Compression::Zstd))
            .compression_threads(0)
            .library(concat!("simcore ", env!("CARGO_PKG_VERSION")))
            .create(BufWriter::new(file))
            .map_err(|e| e.to_string())?;
        writer
            .write_metadata(&mcap::records::Metadata {
                name: "simcore".into(),
                metadata,
            })
            .map_err(|e| e.to_string())?;
        Ok(Sink {
            writer,
            channels: HashMap::new(),
            schemas: HashMap::new(),
            buf: Vec::new(),
            latched: vec![Arc::from("/tf_static"), Arc::from("/scene")],
        })
    }

    /// Encodes and writes one item; returns the bytes of message data written.
    pub fn write(&mut self, item: &Item) -> Result<usize, mcap::McapError> {
        self.buf.clear();
        let (topic, form, stamp, seq): (Arc<str>, Form, SimTime, u64) = match item {
            Item::Bus(env) => {
                let m = &env.message;
                let form = match ros::encode(m, &mut self.buf) {
                    Some(t) => Form::Ros(t.name),
                    None => match m.payload.as_enum() {
                        Ok(Payload::Custom(c)) => {
                            self.buf.extend_from_slice(&c.data);
                            Form::Custom {
                                encoding: c.encoding.to_string(),
                                schema: c.schema.to_string(),
                            }
                        }
                        other => {
                            let v = crate::echo::message_json(&env.topic, m);
                            serde_json::to_writer(&mut self.buf, &v)
                                .expect("a JSON value serialises");
                            Form::Json(other.map_or("Unknown", |p| p.type_name()))
                        }
                    },
                };
                (env.topic.clone(), form, m.header.stamp, m.header.seq)
            }
            Item::Tf {
                stamp,
                latched,
                transforms,
            } => {
                let t = ros::encode_tf(transforms, &mut self.buf);
                let topic = if *latched { "/tf_static" } else { "/tf" };
                (Arc::from(topic), Form::Ros(t.name), *stamp, 0)
            }
            Item::Scene { stamp, markers } => {
                let t = ros::encode_markers(markers, &mut self.buf);
                (Arc::from("/scene"), Form::Ros(t.name), *stamp, 0)
            }
            Item::Clock(now) => {
                let t = ros::encode_clock(*now, &mut self.buf);
                (Arc::from("/clock"), Form::Ros(t.name), *now, 0)
            }
        };
        let channel = self.channel(topic, form)?;
        let time = u64::try_from(stamp.nanos).unwrap_or(0);
        self.writer.write_to_known_channel(
            &MessageHeader {
                channel_id: channel,
                sequence: seq as u32,
                log_time: time,
                publish_time: time,
            },
            &self.buf,
        )?;
        Ok(self.buf.len())
    }

    /// The channel of `topic` in `form`, created (with its schema) on first use.
    fn channel(&mut self, topic: Arc<str>, form: Form) -> Result<u16, mcap::McapError> {
        let key = (topic, form);
        if let Some(id) = self.channels.get(&key) {
            return Ok(*id);
        }
        let (topic, form) = &key;
        let latched = self.latched.contains(topic);
        let mut metadata = BTreeMap::new();
        let (schema, encoding) = match form {
            Form::Ros(name) => {
                let t: &RosType = RosType::by_name(name).expect("encoders return catalogued types");
                metadata.insert(
                    "offered_qos_profiles".to_string(),
                    if latched { QOS_LATCHED } else { QOS_DEFAULT }.to_string(),
                );
                metadata.insert("topic_type_hash".to_string(), t.hash.to_string());
                let id = self.schema(t.name, "ros2msg", t.definition.as_bytes())?;
                (id, "cdr")
            }
            // No schema text: rosbag2 readers accept an empty schema encoding, and JSON
            // describes itself.
            Form::Json(ty) => (self.schema(&format!("simcore/{ty}"), "", b"")?, "json"),
            Form::Custom { encoding, schema } => {
                let id = self.schema(schema, "", b"")?;
                let id = self.writer.add_channel(id, topic, encoding, &metadata)?;
                self.channels.insert(key.clone(), id);
                return Ok(id);
            }
        };
        let id = self
            .writer
            .add_channel(schema, topic, encoding, &metadata)?;
        self.channels.insert(key.clone(), id);
        Ok(id)
    }

    fn schema(&mut self, name: &str, encoding: &str, data: &[u8]) -> Result<u16, mcap::McapError> {
        if let Some(id) = self.schemas.get(name) {
            return Ok(*id);
        }
        let id = self.writer.add_schema(name, encoding, data)?;
        self.schemas.insert(name.to_string(), id);
        Ok(id)
    }

    /// Writes the summary section and flushes the file.
    pub fn finish(mut self) -> Result<(), String> {
        self.writer.finish().map_err(|e| e.to_string())?;
        let mut out = self.writer.into_inner();
        std::io::Write::flush(&mut out).map_err(|e| e.to_string())
    }
}

/// What the writer thread reports when its queue closes.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    /// Why writing stopped, with the sim time it stopped at.
    pub error: Option<String>,
}

/// The writer thread's loop: writes every item until the queue closes, then finishes the
/// file. After a write error it says so once on stderr, stops writing and only drains the
/// queue.
pub(super) fn run(
    mut sink: Sink,
    queue: Receiver<Item>,
    counters: Arc<Counters>,
    path: PathBuf,
) -> Outcome {
    let mut error = None;
    let mut last = SimTime::ZERO;
    for item in queue.iter() {
        if error.is_some() {
            continue;
        }
        if let Item::Clock(t) = &item {
            last = *t;
        }
        match sink.write(&item) {
            Ok(n) => {
                counters.messages.fetch_add(1, Ordering::Relaxed);
                counters.bytes.fetch_add(n as u64, Ordering::Relaxed);
            }
            Err(e) => {
                let m = format!(
                    "writing {} failed at sim time {:.3} s: {e}; the recording stopped there, \
                     the run goes on",
                    path.display(),
                    last.as_secs_f64()
                );
                eprintln!("error: {m}");
                error = Some(m);
            }
        }
    }
    if error.is_none()
        && let Err(e) = sink.finish()
    {
        let m = format!("finishing {} failed: {e}", path.display());
        eprintln!("error: {m}");
        error = Some(m);
    }
    Outcome { error }
}
