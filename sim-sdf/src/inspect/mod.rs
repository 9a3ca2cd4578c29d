//! `simcore inspect`: the resolved contents of an SDF document, as a readable tree or as JSON
//! in the schema of the libsdformat oracle (`shared/tools/sdf-oracle`, README "JSON schema"),
//! so that the two readings of a file can be diffed.
//!
//! The JSON has the oracle's keys in the oracle's order, with these differences, all because
//! this reader does not keep the information:
//!
//! * `sdf_version` is the version the file declares (the oracle prints the version
//!   libsdformat converted it to);
//! * world-level joints (SDF 1.10, which libsdformat 12 drops) are listed under the world's
//!   `joints` key, present only when there are some;
//! * `resolve_errors` and `console` are always empty: a pose or frame that cannot be
//!   resolved is an error that stops loading (then `ok` is false), and warnings go to the log.
//!
//! Where this reader follows a newer SDFormat than the oracle's (1.9), values differ as the
//! newer libsdformat's would: a screw joint's `thread_pitch` is `-2*pi / screw_thread_pitch`
//! (libsdformat's `ThreadPitch()`, so a file's `<thread_pitch>` is printed as written, but
//! `<screw_thread_pitch>` and its 1 m/rev default count), and a link's `mass` under
//! `<inertial auto="true">` is the computed one.
//!
//! Numbers are printed as the oracle prints them (`%.12g`, `0` below 1e-12, non-finite values
//! as the strings `"inf"`, `"-inf"`, `"nan"`); poses are `[x, y, z, roll, pitch, yaw]` with

mod json;
mod oracle;
mod tree;

pub use oracle::{canonical_sensor_type, error_json, to_json};
pub use tree::to_tree;
