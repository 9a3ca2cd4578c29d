//! Frames and poses, as SDFormat's pose frame semantics define them (SDF 1.7+, and the
//! older files as libsdformat reads them).
//!
//! The element functions read every pose as written ([`RawPose`]: value and `relative_to`).
//! When a model has been read (its nested models first), [`Reader::resolve_model`] resolves
//! its scope, and [`Reader::resolve_world`] does the same for the world:
//!
//! * the frames of a scope are the scope's own frame (`__model__`, or `world`), its links,
//!   joints, `<frame>`s and nested models, and, through `::`, every frame of a nested model
//!   (`inner::link`, `a::b::frame`);
//! * each of those frames' pose is relative to another frame of the scope: the one named by
//!   `relative_to`, or by default the scope's frame (links, nested models), the child frame
//!   (joints), the `attached_to` frame (`<frame>`s). The relative_to graph must be acyclic;
//! * a `<frame>` moves with what it is `attached_to` (default: the scope's frame); following
//!   that chain must end at a link (a model's frame is attached to its canonical link), or
//!   the world, without a cycle;
//! * a joint's parent and child name frames of the scope (or `world` as parent); each
//!   resolves to the link that frame is attached to;
//! * collisions, visuals, sensors and the inertial of a link, and sensors of a joint, may
//!   be posed relative to any frame of the model's scope (default: their link or joint);
//! * a joint axis may be `expressed_in` any frame of the scope (default: the joint frame);
//! * a model's canonical link is `@canonical_link` (a link, or `nested::link`), by default
//!   its first link, else the canonical link of its first nested model that has one;
//! * a model's `@placement_frame` names one of its frames: its `<pose>` then places that
//!   frame, not the model frame.
//!
//! Resolution writes each element's `pose` relative to its default parent in the data model
//! (see the field docs in [`sim_world`]) and leaves `raw_pose` as written, so resolving a
//! model again after changing a `raw_pose` or `placement_frame` (as an `<include>` does, see
//! [`place_model`]) gives the new poses.

mod exported;
mod resolve;
mod scope;

pub use exported::{PlacementError, frame_in_model, frame_in_world, place_model};
