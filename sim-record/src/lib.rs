//! # sim-record: recordings and the live view
//!
//! Recording a run to MCAP (`simcore run --record FILE`), in the ROS 2 profile: the files
//! open in Foxglove, in `ros2 bag` (rosbag2's MCAP storage) and in Rerun.
//!
//! | topic | type | what |
//! |---|---|---|
//! | every bus topic (or those chosen) | the ROS 2 type of [`ros::encode`](sim_codec::encode), CDR | sensor and plugin messages; a payload without a ROS 2 form as `--echo`'s JSON (encoding `json`), a custom payload in its own encoding |
//! | `/tf` | `tf2_msgs/msg/TFMessage` | each model and link pose in the `world` frame, each step it moves |
//! | `/tf_static` | `tf2_msgs/msg/TFMessage`, latched | each sensor's frame in its link's frame |
//! | `/scene` | `visualization_msgs/msg/MarkerArray`, latched | each visual, in its link's frame, at the start and when models are added or removed |
//! | `/clock` | `rosgraph_msgs/msg/Clock` | sim time, every step but at most at 100 Hz |
//!
//! Log and publish times are sim time in nanoseconds, the sequence is the message's
//! `header.seq`; the metadata record `simcore` holds the world file, seed, version and plugin
//! libraries. The [`Recorder`] queues on the simulation thread without waiting; a writer
//! thread encodes and writes (see `writer`, `file`), so a slow disk costs dropped messages,
//! counted in the [`RecordSummary`], never a stalled step. The same channels can be served
//! live to the Foxglove app (`--foxglove`, see `live`).

mod encoded;
mod file;
mod live;
mod recorder;
mod scene;
mod writer;

pub use live::DEFAULT_LIVE_MEMORY;
pub use recorder::{RecordError, RecordOptions, RecordSummary, Recorder, WORLD_FRAME};
