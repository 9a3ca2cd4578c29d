//! An encoded message as the sinks take it: its topic, stamp and bytes, and the form of its
//! channel (ROS 2 CDR, JSON or a custom encoding) with the channel's schema and QoS.

use sim_codec::RosType;
use sim_codec::qos::Qos;
use sim_plugin_api::SimTime;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How a channel's messages are encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// CDR of a ROS 2 type.
    Ros(&'static RosType),
    /// A payload with no ROS 2 form, as `--echo`'s JSON (by payload type name).
    Json(&'static str),
    /// A custom payload: its own encoding and schema name.
    Custom { encoding: String, schema: String },
}

impl std::hash::Hash for Form {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            Form::Ros(t) => (0u8, t.name).hash(state),
            Form::Json(ty) => (1u8, ty).hash(state),
            Form::Custom { encoding, schema } => (2u8, encoding, schema).hash(state),
        }
    }
}

/// One encoded message: where it goes and what it is.
pub(super) struct Encoded<'a> {
    pub topic: Arc<str>,
    pub form: &'a Form,
    pub stamp: SimTime,
    pub seq: u64,
    pub data: &'a [u8],
}

impl Encoded<'_> {
    /// The log time: the stamp in nanoseconds (0 before the epoch of sim time).
    pub fn time(&self) -> u64 {
        u64::try_from(self.stamp.nanos).unwrap_or(0)
    }

    /// The QoS the topic is offered with, live and in recordings ([`Qos::offered_on`]).
    pub fn qos(&self) -> Qos {
        Qos::offered_on(&self.topic)
    }

    /// The channel's metadata: rosbag2's QoS and type hash for ROS 2 types.
    pub fn channel_metadata(&self) -> BTreeMap<String, String> {
        let mut m = BTreeMap::new();
        if let Form::Ros(t) = self.form {
            m.insert(
                "offered_qos_profiles".to_string(),
                self.qos().rosbag2_profile(),
            );
            m.insert("topic_type_hash".to_string(), t.hash.to_string());
        }
        m
    }

    /// The schema (name, encoding, text) and the message encoding of the channel.
    pub fn schema(&self) -> (String, &'static str, &'static [u8], String) {
        match self.form {
            Form::Ros(t) => (
                t.name.to_string(),
                "ros2msg",
                t.definition.as_bytes(),
                "cdr".into(),
            ),
            // No schema text: rosbag2 readers accept an empty schema encoding (not
            // `jsonschema`), and JSON describes itself.
            Form::Json(ty) => (format!("simcore/{ty}"), "", b"", "json".into()),
            Form::Custom { encoding, schema } => (schema.clone(), "", b"", encoding.clone()),
        }
    }
}
