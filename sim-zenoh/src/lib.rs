//! # sim-zenoh: the Zenoh front end
//!
//! Clients outside the process: the run's topics over Zenoh in ROS 2's wire format
//! (rmw_zenoh), so ROS 2 nodes and plain Zenoh clients read the same samples.
//!
//! A [`Bridge`] owns a Zenoh session on its own thread; the simulation thread only calls
//! [`Bridge::after_step`] once per step, which never waits for the network. What the steps
//! hand over waits in queues. While it finds something there, the Zenoh thread looks again
//! by itself every [`WAKE_EVERY`], so a run faster than real time hands over without waking
//! it (a wake-up costs the simulation thread a system call, and on a busy machine often its
//! CPU); the simulation thread wakes it only when it sleeps with empty queues (the first
//! hand-over after a pause, each step of a run paced at real time), when [`WAKE_AFTER`]
//! messages or [`TF_WAKE_AFTER`] steps of `/tf` wait, and before a paused world waits or a
//! step call's reply. One look takes many messages; the `/tf` steps waiting go out as one
//! message (at most [`TF_QUEUE`] steps and [`TF_MESSAGE_FRAMES`] transforms).
//!
//! - **Node**: one ROS node (`simcore` by default) in the domain of `ROS_DOMAIN_ID`, with its
//!   `NN` liveliness token; every publisher and subscription has its `MP`/`MS` token
//!   ([`keys`]).
//! - **Topics out**: a topic's ROS type is learnt from its first message: every topic of the
//!   world that nothing in the simulation subscribes to is probed with a one-message bus
//!   subscription, dropped as soon as that message arrives; when the payload has a ROS 2
//!   form ([`sim_codec::encode`]) a publisher is declared on its key, best effort with
//!   sensor-data QoS (`2::,5:,:,:,,`). Only while a subscriber matches it (Zenoh's matching
//!   status) does the bridge subscribe on the bus, so an unobserved run pays nothing; a
//!   subscriber that falls behind loses the oldest messages, counted per topic.
//!   Encoding happens on the Zenoh thread. Each sample carries rmw_zenoh's attachment
//!   (sequence from 1, wall-clock source time, the GID of its token).
//! - **`/tf_static`**: the sensor frames ([`sim_engine::runner::sensor_frames`]), latched as
//!   rmw_zenoh makes TRANSIENT_LOCAL topics (a zenoh-ext AdvancedPublisher with a cache of
//!   one message and publisher detection), sent again when the models change.
//! - **`/tf`**: the model and link frames in the world frame ([`sim_engine::runner::MovedFrames`]),
//!   every frame to a new listener, then those that moved each step, while someone listens.
//! - **`/clock`**: `rosgraph_msgs/Clock` of sim time, at [`ZenohOptions::clock_rate`] per
//!   second of sim time, while someone listens.
//! - **Topics in**: a topic something in the simulation subscribes to and nothing has
//!   published on yet (a system's command input) gets a Zenoh subscriber with wildcard type
//!   and hash chunks, and an `MS` token of the type its system reads (declared by the system
//!   through `simcore.input_types.v1`, as simcore's own systems do); each sample is
//!   decoded by the type its key names and published on the bus. Oversized, undecodable or
//!   excess samples are dropped with a rate-limited warning.
//! - **Control**: the simulation_interfaces services of [`control`] (state, play, pause,
//!   stop, lockstep steps, reset, spawn, delete, entity lists and states), served on the
//!   simulation thread through [`Bridge::after_step`].
//! - **The other side**: [`client`] reaches a running simcore (or any rmw_zenoh graph) as a
//!   ROS 2 node does, for the live command-line tools.
//! - **Names**: the `[[ros.remap]]` entries of the run manifest, else the rule of
//!   [`sim_codec::names`]; a name two topics would share goes to the first only.

mod bridge;
pub mod client;
pub mod control;
#[cfg(test)]
mod control_golden_tests;
pub mod entity;
pub mod keys;
mod options;
mod serve;
mod worker;

pub use bridge::{Bridge, QUEUE, TF_WAKE_AFTER, WAKE_AFTER};
pub use options::{DEFAULT_ENDPOINT, MAX_CONFIG_BYTES, ZenohError, ZenohOptions};
pub use worker::{
    INBOUND_QUEUE, MAX_INBOUND_BYTES, TF_MESSAGE_FRAMES, TF_QUEUE, TF_QUEUE_FRAMES, TopicReport,
    WAKE_EVERY,
};
