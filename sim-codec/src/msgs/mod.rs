//! The entries of [`KINDS`](crate::kinds::KINDS), grouped by ROS 2 package or concept: each
//! kind's ROS 2 types and readers, CDR encoder and JSON forms side by side.

pub(crate) mod geometry;
pub(crate) mod image;
pub(crate) mod scan;
pub(crate) mod sensor;
pub(crate) mod simcore;
pub(crate) mod std_msgs;
