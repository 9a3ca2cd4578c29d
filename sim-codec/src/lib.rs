//! # sim-codec: simcore's messages in the forms they leave the engine in
//!
//! The ROS 2 wire format: the CDR encoding of simcore's messages, shared by the Zenoh
//! transport and the MCAP recorder, and the catalogue of ROS 2 types they use; and the JSON
//! form ([`json`]) that the command line prints and reads.
//!
//! Each [`Payload`](sim_plugin_api::Payload) maps to one ROS 2 type ([`encode`]); the types
//! ROS lacks (altimeter, logical camera, fiducials, contacts, ...) are the `simcore_msgs`
//! package shipped under `ros/simcore_msgs` in the repository. The [`catalog`] holds each
//! type's name, RIHS01 hash and `ros2msg` definition (generated once by `tools/ros_types.py`
//! with rosbags; the tests check them against independently computed values).
//!
//! [`decode`] reads the CDR of what ROS clients send in (and of every type [`encode`]
//! writes) back into payloads, checking every length; [`names`] gives each simcore topic a
//! valid ROS 2 name; [`qos`] the quality of service offered on each; [`encode_tf`] and
//! [`encode_markers`] write the frames and scene markers a recorder builds from the engine's
//! state; [`kinds`] lists the payload kinds with the ROS 2 types each leaves as, one entry
//! per kind that also holds its encoder, its readers and its JSON forms. The user-facing
//! summary is `docs/ros.md`.

pub mod catalog;
pub mod cdr;
mod decode;
mod encode;
pub mod json;
pub mod kinds;
mod markers;
mod msgs;
pub mod names;
mod options;
pub mod qos;
mod read;
mod tf;
mod write;

pub use cdr::{CdrReader, CdrWriter, DecodeError};
pub use decode::{decode, decode_message};
pub use encode::{encode, encode_clock, encode_with};
pub use markers::{Marker, MarkerAction, MarkerShape, encode_markers};
pub use options::{EncodeOptions, TopicOptions};
pub use tf::{FrameTransform, Moved, WORLD_FRAME, encode_tf};

/// A ROS 2 message type: what a recorder names as its schema and a transport puts into its
/// keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RosType {
    /// Full name, `pkg/msg/Type`.
    pub name: &'static str,
    /// `RIHS01_` and 64 lowercase hex digits (REP-2016).
    pub hash: &'static str,
    /// The `ros2msg` definition: the type's fields, then each type it uses after a line of
    /// 80 `=` and `MSG: pkg/Type` (the MCAP ROS 2 profile's schema text).
    pub definition: &'static str,
}

impl RosType {
    /// The package, `pkg` of `pkg/msg/Type`.
    pub fn package(&self) -> &'static str {
        self.name.split('/').next().unwrap_or(self.name)
    }

    /// The bare type name, `Type` of `pkg/msg/Type`.
    pub fn short_name(&self) -> &'static str {
        self.name.rsplit('/').next().unwrap_or(self.name)
    }

    /// The DDS type name rmw_zenoh puts into keys and liveliness tokens:
    /// `pkg::msg::dds_::Type_`.
    pub fn dds_name(&self) -> String {
        format!("{}::msg::dds_::{}_", self.package(), self.short_name())
    }

    /// The type of a `pkg/msg/Type` name, if simcore writes it.
    pub fn by_name(name: &str) -> Option<&'static RosType> {
        catalog::ALL.iter().copied().find(|t| t.name == name)
    }
}

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod tests;
