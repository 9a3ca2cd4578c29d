//! The shape of a sensor plugin's factory ([`SdfSensor`]): its `<sensor>` element parsed
//! once, the sensor built from it, the topics it publishes on declared to the engine. The
//! sensors' counterpart of the gz-sim systems' [`GzSystem`](crate::idle::GzSystem).

use sim_plugin_api::sdf::Element;
use sim_plugin_api::{PluginError, SensorConfig, WorldRef};

/// A sensor built from its `<sensor>` element; [`SdfSensor::create`] is the factory a sensor
/// plugin exports (`export_plugin!`'s `create:`, with this trait in scope).
pub trait SdfSensor: Sized {
    /// Builds the sensor from its configuration and its `<sensor>` element `sdf` (parsed
    /// once, by [`SdfSensor::create`]); a bad value is a configuration error naming the
    /// sensor, the element and where it is written.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError>;

    /// The topics the built sensor publishes on, each relative to its own topic (`""` is the
    /// topic itself) with its payload kind
    /// ([`Payload::type_name`](sim_plugin_api::Payload::type_name)).
    fn outputs(&self) -> Vec<(String, &'static str)>;

    /// The factory: the sensor built from its parsed `<sensor>` element, with its
    /// [outputs](SdfSensor::outputs) declared to the engine (`simcore.output_types.v1`),
    /// which lists them before the first update.
    fn create(config: &SensorConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let doc = config.parse_sdf()?;
        let sensor = Self::build(config, &doc.root(), world)?;
        sim_plugin_api::declare_outputs(world, &sensor.outputs());
        Ok(sensor)
    }
}

/// The frame id of the messages of the sensor `config` configures: its `<frame_id>`, or its
/// scoped name `model::link::sensor` when it has none.
pub fn frame_id<'a>(config: &'a SensorConfig<'_>) -> &'a str {
    match config.frame_id.as_str() {
        "" => config.scoped_name.as_str(),
        f => f,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::testing::{StaticWorld, sensor_config};
    use sim_plugin_api::{EntityId, ErrorCode};

    /// A sensor that reads one number and publishes on two topics.
    #[derive(Debug)]
    struct Gauge {
        scale: f64,
    }

    impl SdfSensor for Gauge {
        fn build(
            _config: &SensorConfig<'_>,
            sdf: &Element<'_, '_>,
            _world: &WorldRef<'_>,
        ) -> Result<Self, PluginError> {
            Ok(Gauge {
                scale: sdf.get_or("gauge/scale", 1.0)?,
            })
        }

        fn outputs(&self) -> Vec<(String, &'static str)> {
            vec![(String::new(), "Double"), ("raw".to_string(), "Int64")]
        }
    }

    #[test]
    fn create_reads_the_element_once_and_names_a_bad_value_with_its_place() {
        let sdf =
            "<sensor name=\"g\" type=\"gauge\">\n  <gauge><scale>2.5</scale></gauge>\n</sensor>";
        let config = sensor_config("m::l::g", "gauge", EntityId(2), sdf);
        let g = StaticWorld::default()
            .with(|w| Gauge::create(&config, &w))
            .unwrap();
        assert_eq!(g.scale, 2.5);

        let bad =
            "<sensor name=\"g\" type=\"gauge\">\n  <gauge><scale>x</scale></gauge>\n</sensor>";
        let config =
            sensor_config("m::l::g", "gauge", EntityId(2), bad).with_source("world.sdf", 9);
        let e = StaticWorld::default()
            .with(|w| Gauge::create(&config, &w))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert!(e.message.contains("<gauge><scale>"), "{e}");
        assert!(e.message.contains("world.sdf:10"), "{e}");
    }

    #[test]
    fn the_frame_id_is_the_scoped_name_unless_one_is_written() {
        let mut config = sensor_config("m::l::g", "gauge", EntityId(2), "");
        config.frame_id = "".into();
        assert_eq!(frame_id(&config), "m::l::g");
        config.frame_id = "base".into();
        assert_eq!(frame_id(&config), "base");
    }
}
