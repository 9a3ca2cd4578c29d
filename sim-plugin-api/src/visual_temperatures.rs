//! The `simcore.visual_temperatures.v1` extension: the temperatures a thermal camera sees.
//!
//! A `gz::sim::systems::Thermal` plugin on a `<visual>` gives it a temperature, wherever the
//! visual comes from (the world file, an included model, a model created at run time); the
//! engine reads it with the world and answers for the visual a ray hit
//! ([`RayHit::entity`](crate::RayHit)). Everything else is at the world's ambient temperature
//! (`<atmosphere><temperature>`, 288.15 K when absent).
//!
//! ```
//! # use sim_plugin_api::{testing::StaticWorld, EntityId};
//! # let world = StaticWorld::default();
//! # world.with(|world| {
//! # let visual = EntityId(7);
//! match world.visual_temperatures() {
//!     Some(t) => {
//!         let kelvin = t.temperature_of(visual).into_option().map(|v| v.temperature);
//!         let _ = kelvin.unwrap_or(t.ambient());
//!     }
//!     None => { /* an engine without the extension: everything at 288.15 K */ }
//! }
//! # });
//! ```
//!
//! An engine appends methods to [`VisualTemperatures`] only after its last one, so a plugin
//! built against this version keeps working with later engines.

use crate::EntityId;
use abi_stable::{RRef, StableAbi, sabi_trait, std_types::ROption};

/// The name under which the engine offers [`VisualTemperatures`].
pub const VISUAL_TEMPERATURES_EXTENSION: &str = "simcore.visual_temperatures.v1";

/// The ambient temperature SDF gives a world without `<atmosphere><temperature>`, K.
pub const DEFAULT_AMBIENT_TEMPERATURE: f64 = 288.15;

/// The Thermal temperature of one visual.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct VisualTemperature {
    /// Its `<temperature>`, K, as written (it may be below 0 K); for a heat signature, the
    /// ambient temperature.
    pub temperature: f64,
    /// Whether the Thermal plugin gives a `<heat_signature>` texture (which gz-sim prefers
    /// over a `<temperature>`) rather than one temperature.
    pub heat_signature: bool,
    /// The temperature of the texture's darkest texel, K: `<min_temp>` (the ambient
    /// temperature when absent; swapped with `max_temp` when above it, as gz-sim does);
    /// `temperature` without a heat signature.
    pub min_temp: f64,
    /// The temperature of its brightest texel, K: `<max_temp>` (as `min_temp`).
    pub max_temp: f64,
}

/// Temperatures of visuals (see the [module docs](self)).
#[sabi_trait]
pub trait VisualTemperatures: Send + Sync {
    /// The world's ambient temperature, K.
    fn ambient(&self) -> f64;

    /// The Thermal temperature of `visual`; `None` when it has none (or is not a visual).
    #[sabi(last_prefix_field)]
    fn temperature_of(&self, visual: EntityId) -> ROption<VisualTemperature>;
}

/// The temperatures extension as plugins receive it.
pub type VisualTemperaturesRef<'a> = VisualTemperatures_TO<'a, RRef<'a, ()>>;

impl<'w> crate::WorldRef<'w> {
    /// The [`VISUAL_TEMPERATURES_EXTENSION`] of this world, or `None` when the engine does
    /// not offer it (or offers an incompatible version).
    pub fn visual_temperatures(&self) -> Option<&VisualTemperaturesRef<'_>> {
        self.extension(VISUAL_TEMPERATURES_EXTENSION.into())
            .into_option()
            .and_then(|e| e.get::<VisualTemperaturesRef<'_>>())
    }
}
