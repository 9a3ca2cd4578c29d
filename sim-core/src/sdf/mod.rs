//! SDF text -> [`crate::world::World`].
