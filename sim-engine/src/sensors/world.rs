//! What the sensor manager needs of the world its sensors read: a read-only view per sensor
//! and the step size. The engine's physics implements it; so can a fixed test world.

use sim_plugin_api::{SharedStr, SimTime, WorldRef};

/// The world sensors are updated against.
pub trait SensorWorld: Sync {
    /// The fixed physics step.
    fn step_size(&self) -> SimTime;

    /// Runs `f` with the read-only view the plugin of `sensor` (its scoped name, which its
    /// log records carry) gets. With `helpers`, the caller runs on the simulation thread
    /// while the helpers' threads are idle: a large ray batch is cast by this thread and the
    /// helpers together.
    fn with_view<R>(
        &self,
        sensor: &SharedStr,
        helpers: Option<&rayon::ThreadPool>,
        f: impl FnOnce(WorldRef<'_>) -> R,
    ) -> R;
}
