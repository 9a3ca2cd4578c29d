//! Ray casts that see only the visuals a sensor's `<visibility_mask>` selects, through the
//! engine's [`visibility`](sim_plugin_api::visibility) extension, and the fallback where an
//! engine lacks it: every visual is seen, with one warning.

use sim_plugin_api::{ALL_VISIBLE, LogLevel, Ray, RayCastOptions, RayHit, WorldRef};

/// The `<visibility_mask>` of one sensor and whether its engine was found not to honour it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaskedCast {
    mask: u32,
    sensor: String,
    unmasked: bool,
}

impl Default for MaskedCast {
    fn default() -> Self {
        MaskedCast::new(ALL_VISIBLE, "")
    }
}

impl MaskedCast {
    /// Casts of sensor `sensor` (its scoped name, for the warning) that see the visuals whose
    /// `<visibility_flags>` share a bit with `mask` ([`ALL_VISIBLE`]: every visual).
    pub fn new(mask: u32, sensor: &str) -> Self {
        MaskedCast {
            mask,
            sensor: sensor.to_string(),
            unmasked: false,
        }
    }

    /// The mask.
    pub fn mask(&self) -> u32 {
        self.mask
    }

    /// Casts `rays` into `hits` (at least as long) with `options`, masked where the engine
    /// can; on the first cast an engine cannot mask, warns and casts unmasked from then on.
    /// Returns how many rays hit.
    pub fn cast(
        &mut self,
        world: &WorldRef<'_>,
        rays: &[Ray],
        options: &RayCastOptions,
        hits: &mut [RayHit],
    ) -> u32 {
        let mask = self.resolve(world);
        world
            .cast_rays_seen_by(rays, options, mask, hits)
            .unwrap_or(0)
    }

    /// The mask casts in `world` use: this one where the engine can mask, else (warning the
    /// first time) [`ALL_VISIBLE`]. [`WorldRef::cast_rays_seen_by`] casts with it, from any
    /// thread.
    pub fn resolve(&mut self, world: &WorldRef<'_>) -> u32 {
        if self.unmasked || self.mask == ALL_VISIBLE {
            return ALL_VISIBLE;
        }
        if world.visibility_rays().is_some() {
            return self.mask;
        }
        self.unmasked = true;
        let who = if self.sensor.is_empty() {
            String::new()
        } else {
            format!("{}: ", self.sensor)
        };
        world.log_message(
            LogLevel::WARN,
            &format!(
                "{who}this engine does not select visuals by <visibility_mask>: every visual is \
                 seen"
            ),
        );
        ALL_VISIBLE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{EntityId, RayTarget, testing::StaticWorld};

    #[test]
    fn an_engine_without_the_extension_sees_every_visual_and_says_so_once() {
        let mut world = StaticWorld::default();
        world.set_ray_caster(|_, _| RayHit {
            distance: 2.0,
            entity: EntityId(5),
            ..RayHit::MISS
        });
        let options = RayCastOptions {
            max_distance: 10.0,
            target: RayTarget::VISUAL,
            exclude_model: EntityId::NONE,
        };
        let rays = [Ray::default(); 3];
        let warnings = |mask: u32| {
            let mut cast = MaskedCast::new(mask, "m::l::s");
            for _ in 0..2 {
                let mut hits = [RayHit::MISS; 3];
                let n = world.with(|w| cast.cast(&w, &rays, &options, &mut hits));
                assert_eq!(n, 3);
                assert!(hits.iter().all(|h| h.entity == EntityId(5)));
            }
            let mut logs = world.logs.lock().unwrap();
            let found: Vec<String> = logs.drain(..).map(|(_, m)| m).collect();
            found
        };
        assert_eq!(
            warnings(1),
            [
                "m::l::s: this engine does not select visuals by <visibility_mask>: every visual \
              is seen"
            ]
        );
        // The default mask needs no extension.
        assert!(warnings(ALL_VISIBLE).is_empty());
    }
}
