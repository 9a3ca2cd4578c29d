//! The engine's physics as the world of the sensor manager.

use crate::sensors::SensorWorld;
use sim_physics::Physics;
use sim_plugin_api::{
    SharedStr, SimTime, WorldRef, WorldView_TO, abi_stable::sabi_trait::TD_Opaque,
};

impl SensorWorld for Physics {
    fn step_size(&self) -> SimTime {
        Physics::step_size(self)
    }

    fn with_view<R>(
        &self,
        sensor: &SharedStr,
        helpers: Option<&rayon::ThreadPool>,
        f: impl FnOnce(WorldRef<'_>) -> R,
    ) -> R {
        let workers = sim_physics::Workers::new(helpers);
        let view = self.view_on(sensor, &workers);
        f(WorldView_TO::from_ptr(&view, TD_Opaque))
    }
}
