//! # simcore-plugin-common: helpers shared by the simcore plugins
//!
//! The in-tree plugins read their configuration the same way and measure from the same
//! place, so the pieces they share live here, once:
//!
//! - [`sdf`]: what the plugins add to the API's typed SDF access ([`sim_plugin_api::sdf`],
//!   which they read their elements with, as third-party plugins do): a system's element
//!   parsed with messages naming the system ([`plugin_document`]), a sensor's
//!   `<visibility_mask>` ([`visibility_mask`]);
//! - [`sensor`]: the shape of a sensor plugin's factory ([`SdfSensor`]: the `<sensor>` element
//!   parsed once, the sensor built from it, its outputs declared) and its messages' frame id;
//! - [`noise`]: a [`NoiseChannel`], one seeded noise stream per measured component, for the
//!   [`NoiseParams`](sim_plugin_api::noise::NoiseParams) the API reads;
//! - [`bounded`]: the numbers a command may carry ([`pose_problem`], [`twist_problem`],
//!   [`accepted_twist`]);
//! - [`chunked`]: output buffers set up by the chunks that write them ([`ChunkedVec`]);
//! - [`files`]: writing files (camera frames) never through a symbolic link;
//! - [`frame`]: the motion of the sensor's own frame from the motion of its link;
//! - [`surfaces`]: a property of the surfaces rays hit, looked up in batches and kept;
//! - [`lookup`]: the model a model system is attached to ([`attached_model`]), or the error
//!   saying where it belongs, and the joints it names ([`find_in_model`]);
//! - [`throttle`]: publishing at a configured frequency ([`Throttle`]);
//! - [`topic`]: names as parts of topics ([`topic_part`]);
//! - [`gz`]: what gz-sim's systems share in reading their element: valid topic names, the
//!   controller topic choice, repeated joint names;
//! - [`idle`]: a gz-sim system left idle when what it needs is missing;
//! - [`joint_group`]: the joints a gz-sim joint controller drives together ([`gz::JointGroup`]);
//! - [`odometry`]: the odometry and transform messages of the drive systems;
//! - [`pid`]: gz-math's PID controller ([`Pid`]);
//! - [`limit`]: velocity and acceleration limits of a command ([`SpeedLimiter`]);
//! - [`rolling`]: gz-math's rolling mean ([`RollingMean`]);
//! - [`visibility`]: ray casts masked by a sensor's `<visibility_mask>` ([`MaskedCast`]);
//! - `testing` (feature `testing`): assertions and set-ups the plugins' tests share.
//!
//! This is an ordinary Rust library (an `rlib`): each plugin library links its own copy, and
//! nothing here crosses the plugin boundary.

pub mod axes;
pub mod bounded;
pub mod chunked;
/// Writing files without following symbolic links (the `sim-files` crate the engine writes
/// through too).
pub use sim_files as files;
pub mod frame;
pub mod gz;
pub mod idle;
pub mod inputs;
pub mod interval;
pub mod joint_group;
pub mod limit;
pub mod lookup;
pub mod mount;
pub mod noise;
pub mod odometry;
pub mod passes;
pub mod pid;
pub mod rolling;
pub mod rotation;
pub mod sdf;
pub mod sensor;
pub mod surfaces;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod throttle;
pub mod topic;
pub mod visibility;

pub use axes::{axis_channels, axis_noises};
pub use bounded::{accepted_twist, accepted_value, bounded_value, pose_problem, twist_problem};
pub use chunked::ChunkedVec;
pub use frame::sensor_frame;
pub use inputs::declare_inputs;
pub use interval::upper_bound;
pub use limit::SpeedLimiter;
pub use lookup::{Attached, NotFound, attached, attached_model, find_in_model, on_model, on_world};
pub use mount::SensorMount;
pub use noise::{NoiseChannel, gaussian_variance};
pub use passes::{CHUNK_LEN, Passes};
pub use pid::Pid;
pub use rolling::RollingMean;
pub use rotation::Rotation;
pub use sdf::{plugin_document, visibility_mask};
pub use sensor::{SdfSensor, frame_id};
pub use surfaces::EntitySurfaces;
pub use throttle::{Throttle, period_ns};
pub use topic::topic_part;
pub use visibility::MaskedCast;
