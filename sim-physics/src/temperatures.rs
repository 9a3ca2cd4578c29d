//! The visual temperatures extension (`simcore.visual_temperatures.v1`): the Thermal
//! temperature of each visual, as the world model holds it, and the ambient temperature.

use super::Physics;
use super::entities::EntityData;
use sim_plugin_api::{
    EntityId, VisualTemperature, VisualTemperatures, abi_stable::std_types::ROption,
};
use sim_world::VisualThermal;

impl VisualTemperatures for Physics {
    fn ambient(&self) -> f64 {
        self.environment.atmosphere_temperature
    }

    fn temperature_of(&self, visual: EntityId) -> ROption<VisualTemperature> {
        let Some(EntityData::Visual {
            thermal: Some(thermal),
            ..
        }) = self.entities.get(visual).map(|e| &e.data)
        else {
            return ROption::RNone;
        };
        ROption::RSome(visual_temperature(
            thermal,
            self.environment.atmosphere_temperature,
        ))
    }
}

/// What the extension says of `thermal` in a world at `ambient` K.
fn visual_temperature(thermal: &VisualThermal, ambient: f64) -> VisualTemperature {
    match thermal {
        VisualThermal::Uniform(t) => VisualTemperature {
            temperature: *t,
            heat_signature: false,
            min_temp: *t,
            max_temp: *t,
        },
        VisualThermal::HeatSignature { min, max, .. } => {
            let (a, b) = (min.unwrap_or(ambient), max.unwrap_or(ambient));
            VisualTemperature {
                temperature: ambient,
                heat_signature: true,
                min_temp: a.min(b),
                max_temp: a.max(b),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_signature_ranges_default_to_ambient_and_are_ordered() {
        let sig = |min, max| VisualThermal::HeatSignature {
            texture: "t.png".into(),
            min,
            max,
        };
        let t = visual_temperature(&sig(Some(400.0), Some(350.0)), 300.0);
        assert_eq!(
            (t.min_temp, t.max_temp, t.heat_signature),
            (350.0, 400.0, true)
        );
        let t = visual_temperature(&sig(None, Some(320.0)), 300.0);
        assert_eq!(
            (t.temperature, t.min_temp, t.max_temp),
            (300.0, 300.0, 320.0)
        );
        let t = visual_temperature(&VisualThermal::Uniform(-5.0), 300.0);
        assert_eq!(
            (t.temperature, t.min_temp, t.heat_signature),
            (-5.0, -5.0, false)
        );
    }
}
