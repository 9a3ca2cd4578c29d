//! What an entry of [`KINDS`](super::KINDS) holds: a kind's ROS 2 types, the reader of each
//! type it is read from, its CDR encoder and its JSON forms ([`Kind`]).

use crate::json::values::PayloadError;
use crate::options::EncodeOptions;
use crate::{CdrReader, DecodeError, RosType};
use serde_json::{Map, Value};
use sim_plugin_api::{Header, Payload};

/// Writes a payload of its kind as CDR at the end of the buffer (the header and options are
/// the message's) and returns the ROS 2 type written; `None`, writing nothing, for a payload
/// of another kind or one without a ROS 2 form.
pub(crate) type Encoder =
    fn(&Payload, &Header, &EncodeOptions<'_>, &mut Vec<u8>) -> Option<&'static RosType>;

/// Reads the body of a CDR message into the message's header (empty for a type without one)
/// and payload.
pub(crate) type ReadFn = fn(&mut CdrReader<'_>) -> Result<(Header, Payload), DecodeError>;

/// A ROS 2 type a kind is read from, and its reader.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reader {
    pub(crate) ty: &'static RosType,
    pub(crate) read: ReadFn,
}

/// How a kind is read from JSON: the fields its object may have besides `type`, and the
/// reader of the object (its fields already checked against them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct JsonReader {
    pub(crate) fields: &'static [&'static str],
    pub(crate) read: fn(&Map<String, Value>) -> Result<Payload, PayloadError>,
}

/// A payload kind and the ROS 2 types its messages leave the engine as. Kinds are equal when
/// their names are.
#[derive(Clone, Copy, Debug)]
pub struct Kind {
    /// [`Payload::type_name`]: `"Odometry"`, `"Pose_V"`...
    pub name: &'static str,
    /// The ROS 2 types [`encode`](fn@crate::encode) writes it as: one for most kinds; a
    /// `LaserScan` of one row is a `LaserScan`, of several a `PointCloud2`; none for `Custom`.
    pub ros: &'static [&'static RosType],
    /// The ROS 2 type [`decode`](fn@crate::decode) reads it from: the first of `ros` but for
    /// `Pose`, read from a `PoseStamped` (which a client sends; a `TransformStamped` is what
    /// the engine writes); none for `Custom`.
    pub read_from: Option<&'static RosType>,
    /// Every ROS 2 type it is read from, `read_from` first, with its reader.
    pub(crate) reads: &'static [Reader],
    /// Its CDR encoder.
    pub(crate) encode: Encoder,
    /// Its JSON form, the fields beside `topic`, `type` and `header`: an object, or another
    /// value put under `data`; `None` for a payload of another kind.
    pub(crate) json: fn(&Payload) -> Option<Value>,
    /// Its JSON reader, for the kinds a message can be written as in JSON.
    pub(crate) from_json: Option<JsonReader>,
}

impl PartialEq for Kind {
    fn eq(&self, other: &Kind) -> bool {
        self.name == other.name
    }
}

impl Eq for Kind {}
