//! The writer thread: receives what the recorder queues, encodes it, and writes it to the
//! MCAP file and the live server.

use super::encoded::{Encoded, Form};
use super::file::FileSink;
use super::live::LiveSink;
use crossbeam_channel::Receiver;
use sim_codec::TopicOptions;
use sim_codec::names::RosNames;
use sim_codec::{self as ros, FrameTransform, Marker, Moved};
use sim_plugin_api::{Payload, SimTime};
use sim_transport::Envelope;
use std::collections::HashMap;
use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// One thing to write.
#[derive(Debug)]
pub(super) enum Item {
    /// A message of the bus.
    Bus(Arc<Envelope>),
    /// The frames that moved in a step, on `/tf`.
    Moved(Moved),
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

/// Encodes items, reusing one buffer.
#[derive(Default)]
pub(super) struct Encoder {
    buf: Vec<u8>,
    form: Option<Form>,
    names: RosNames,
    /// What encoding needs of each topic beyond its messages (a lidar's scan period).
    topic_options: TopicOptions,
    /// Each bus topic's ROS name, found once.
    ros_topics: HashMap<Arc<str>, Arc<str>>,
}

impl Encoder {
    /// An encoder that writes bus topics under their ROS names in `names`, with
    /// `topic_options` (the simulation's, as the live transport encodes with).
    pub fn new(names: RosNames, topic_options: TopicOptions) -> Encoder {
        Encoder {
            names,
            topic_options,
            ..Encoder::default()
        }
    }

    /// The ROS name of bus topic `topic` (the topic itself if it has none).
    fn ros_topic(&mut self, topic: &Arc<str>) -> Arc<str> {
        if let Some(name) = self.ros_topics.get(topic) {
            return name.clone();
        }
        let name: Arc<str> = self
            .names
            .ros_name(topic)
            .map_or_else(|| topic.clone(), Arc::from);
        self.ros_topics.insert(topic.clone(), name.clone());
        name
    }

    /// Encodes `item` (CDR of its ROS 2 type, else `--echo`'s JSON or a custom payload's bytes).
    pub fn encode(&mut self, item: &Item) -> Encoded<'_> {
        self.buf.clear();
        let (topic, form, stamp, seq): (Arc<str>, Form, SimTime, u64) = match item {
            Item::Bus(env) => {
                let m = &env.message;
                let topic = self.ros_topic(&env.topic);
                let options = self.topic_options.of(&env.topic);
                let form = match ros::encode_with(m, &options, &mut self.buf) {
                    Some(t) => Form::Ros(t),
                    None => match m.payload.as_enum() {
                        Ok(Payload::Custom(c)) => {
                            self.buf.extend_from_slice(&c.data);
                            Form::Custom {
                                encoding: c.encoding.to_string(),
                                schema: c.schema.to_string(),
                            }
                        }
                        other => {
                            let v = sim_codec::json::message_json(&topic, m);
                            serde_json::to_writer(&mut self.buf, &v)
                                .expect("a JSON value serialises");
                            Form::Json(other.map_or("Unknown", |p| p.type_name()))
                        }
                    },
                };
                (topic, form, m.header.stamp, m.header.seq)
            }
            Item::Moved(moved) => {
                let t = moved.encode(&mut self.buf);
                (Arc::from("/tf"), Form::Ros(t), moved.stamp(), 0)
            }
            Item::Tf {
                stamp,
                latched,
                transforms,
            } => {
                let t = ros::encode_tf(transforms, &mut self.buf);
                let topic = if *latched { "/tf_static" } else { "/tf" };
                (Arc::from(topic), Form::Ros(t), *stamp, 0)
            }
            Item::Scene { stamp, markers } => {
                let t = ros::encode_markers(markers, &mut self.buf);
                (Arc::from("/scene"), Form::Ros(t), *stamp, 0)
            }
            Item::Clock(now) => {
                let t = ros::encode_clock(*now, &mut self.buf);
                (Arc::from("/clock"), Form::Ros(t), *now, 0)
            }
        };
        let form = &*self.form.insert(form);
        Encoded {
            topic,
            form,
            stamp,
            seq,
            data: &self.buf,
        }
    }
}

/// What the writer thread reports when its queue closes.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    /// Why writing the file stopped, with the sim time it stopped at.
    pub error: Option<String>,
}

/// The writer thread's loop: encodes every item for the file and the live server until the
/// queue closes, then finishes the file. After a write error it says so once on stderr and
/// stops writing the file (the live server goes on).
pub(super) fn run(
    mut file: Option<FileSink>,
    mut live: Option<LiveSink>,
    queue: Receiver<Item>,
    counters: Arc<Counters>,
    (names, topic_options): (RosNames, TopicOptions),
) -> Outcome {
    let mut error = None;
    let mut encoder = Encoder::new(names, topic_options);
    for item in queue.iter() {
        if file.is_none() && live.is_none() {
            continue;
        }
        let e = encoder.encode(&item);
        if let Some(l) = &mut live {
            l.log(&e);
        }
        if let Some(f) = &mut file {
            match f.write(&e) {
                Ok(()) => {
                    counters.messages.fetch_add(1, Ordering::Relaxed);
                    counters
                        .bytes
                        .fetch_add(e.data.len() as u64, Ordering::Relaxed);
                }
                Err(err) => {
                    let m = format!(
                        "writing {} failed at sim time {:.3} s: {err}; the recording stopped \
                         there, the run goes on",
                        f.path().display(),
                        e.stamp.as_secs_f64()
                    );
                    let _ = writeln!(std::io::stderr(), "error: {m}");
                    error = Some(m);
                    file = None;
                }
            }
        }
    }
    if let Some(f) = file {
        let path = f.path().to_path_buf();
        if let Err(e) = f.finish() {
            let m = format!("finishing {} failed: {e}", path.display());
            let _ = writeln!(std::io::stderr(), "error: {m}");
            error = Some(m);
        }
    }
    if let Some(l) = live {
        l.stop();
    }
    Outcome { error }
}
