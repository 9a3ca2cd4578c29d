//! A frame's pixels in chunks on the engine's sensor threads.
//!
//! Every per-pixel pass of a camera (turning and casting the rays, shading, encoding, depths,
//! point clouds) runs through [`WorldRef::for_each_chunk`] on consecutive runs of
//! [`chunk_len`] pixels: one chunk holding the whole frame when the engine runs sensors on one
//! thread, else chunks of [`CHUNK_PIXELS`] shared by the calling thread and the idle sensor
//! workers. Each pixel's output depends on that pixel's inputs alone, so a frame is the same
//! at every thread count.

use sim_plugin_api::WorldRef;

/// Pixels per chunk when the engine offers more than one sensor thread.
pub const CHUNK_PIXELS: usize = 1024;

/// The pixels per chunk of a frame of `n` pixels in `world`: `n` (one chunk; at least 1)
/// on one thread, else [`CHUNK_PIXELS`].
pub fn chunk_len(world: &WorldRef<'_>, n: usize) -> usize {
    match world.sensor_threads().map_or(1, |t| t.threads()) {
        0 | 1 => n.max(1),
        _ => CHUNK_PIXELS,
    }
}
